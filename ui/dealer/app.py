"""``dealer-assist`` (no arguments) / ``dealer-assist gui``: the dealer's screen.

The screen is a client of the station service. On a configured station
(dealer_assist/service/station.py, docs/station.md) it connects to the station's socket.
With no configuration it starts the station service for this account first (its own store,
the simulated shoe, a private socket: dealer_assist/service/launch.py) and stops it when the
screen closes; the first start enrols the supervisor, as on a station. ``--socket PATH`` (or
$DEALER_ASSIST_SOCKET) connects to a service already running. The log goes to the
platform's log directory (dealer_assist/service/applog.py).

With no configuration the account's service also takes a real shoe, a game and a floor
(``--shoe PORT [--codec ...] [--baud B]``, ``--game``, ``--floor URL``: a technician's check,
a development run); ``--sim-cards FILE`` (a fixed card order) and ``--sim-seed N`` set up
its simulated shoe. There is no other table host (issue 33): the round, the store and the
shoe are always the service's.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealer_assist.cli.common import fail, no_display, whole_number
from dealer_assist.service import station
from dealer_assist.service.station import StationConfig
from ui.common.collector import collect_between_rounds, collect_on_gui_thread_only

if TYPE_CHECKING:
    from dealer_assist.engine.table_setup import TableSetup

CODECS = station.CODECS  # da1 (CRC-16), da1-xor (earlier firmware's 8-bit XOR), beetek


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE",
                        help="the station configuration (default: $DEALER_ASSIST_CONFIG, else the site's station.toml)")
    parser.add_argument("--shoe", metavar="PORT", help="serial port of the card-reading shoe (default: the configured one, else simulated)")
    parser.add_argument("--codec", choices=CODECS, help="the shoe's wire format (default: the configured one, else da1; da1-xor for shoes of earlier firmware)")
    parser.add_argument("--baud", type=whole_number(50, 4_000_000), help=f"serial speed (default: the configured one, else {station.DEFAULT_BAUD})")
    parser.add_argument("--game", help="game for this session (overrides the configuration and the remembered setup)")
    parser.add_argument("--sim-cards", metavar="FILE", help="simulated shoe: fixed card order (cards separated by spaces)")
    parser.add_argument("--sim-seed", type=whole_number(0), help="simulated shoe: shuffle seed")
    parser.add_argument("--floor", metavar="URL",
                        help="forward finished rounds to this floor database in the background "
                             "(postgresql://... or service=NAME; credentials via PGPASSFILE/PGSERVICEFILE)")
    parser.add_argument("--socket", metavar="PATH",
                        help="the station service's socket (default: $DEALER_ASSIST_SOCKET, else "
                             "/run/dealer-assist/station.sock on a configured station)")
    parser.add_argument("--exit-after-show", action="store_true", help=argparse.SUPPRESS)  # ui.dealer.bench


def station_title(cfg: StationConfig | None, simulated: bool, dealer: str | None = None) -> str:
    """The window title: the table (from the configuration) and, on the simulated shoe,
    that this is a demonstration, so nobody mistakes it for a live table."""
    parts = ["Dealer Assist"]
    if cfg is not None and cfg.table:
        parts.append(f"{cfg.table} ({cfg.pit})" if cfg.pit else cfg.table)
    if simulated:
        parts.append("SIMULATED SHOE \u2014 demonstration, not a live table")
    if dealer:
        parts.append(dealer)
    return " \u2014 ".join(parts)


def setup_from_station(setup: TableSetup, cfg: StationConfig | None, game: str | None) -> TableSetup:
    """The remembered setup with the configuration's game, decks, areas and limits, then
    ``--game`` on top (each clamped into the game's ranges, 2.1 and Appendix A)."""
    from dealer_assist.games import GAMES

    setup = replace(setup)
    if cfg is not None:
        if cfg.game:
            setup.game = cfg.game
        if cfg.decks is not None:
            setup.decks = cfg.decks
        if cfg.areas is not None:
            setup.areas = cfg.areas
        if cfg.limits:
            setup.limits = {k: list(pair) for k, pair in cfg.limits.items()}  # exact (Decimal)
    if game:
        setup.game = game
    rules = GAMES[setup.game]
    low, high = rules.deck_range
    setup.decks = min(max(setup.decks, low), high)
    a_low, a_high = rules.area_range
    setup.areas = min(max(setup.areas, a_low), a_high)
    return setup


def _shown_on_screen(args: argparse.Namespace) -> bool:
    """Whether a start-up error is also shown in a window: started from the menu, standard
    error goes nowhere. Not for tests and benchmarks (offscreen, --exit-after-show) nor on a
    terminal, where the ``error:`` line is read."""
    return (not getattr(args, "exit_after_show", False) and os.environ.get("QT_QPA_PLATFORM") != "offscreen"
            and not sys.stderr.isatty() and no_display() is None)


def _refuse(args: argparse.Namespace, message: str, status: int = 2) -> int:
    """``error: message`` on standard error, and in a message box when nobody sees stderr."""
    fail(message, status)
    if _shown_on_screen(args):
        from PySide6.QtWidgets import QApplication, QMessageBox

        _app = QApplication.instance() or QApplication(sys.argv[:1])
        QMessageBox.critical(None, "Dealer Assist", message)
    return status


def run(args: argparse.Namespace) -> int:
    # check what can be checked before Qt starts, so bad input is one line, not a Qt abort
    from dealer_assist.cli.common import DEV_MODE_VARIABLE
    from dealer_assist.games import GAMES
    from dealer_assist.service import station

    if args.game and args.game not in GAMES:
        return _refuse(args, f"unknown game {args.game!r}: one of {', '.join(GAMES)}")
    try:
        cfg = station.find_config(args.config)
    except station.StationError as exc:
        return _refuse(args, str(exc))
    if cfg is not None and os.environ.get(DEV_MODE_VARIABLE):
        # issue 23: no development switch on a configured station, whatever the environment says
        where = cfg.source or station.config_location(args.config)[0]
        return fail(f"{DEV_MODE_VARIABLE} is for development runs only: this is a station "
                    f"(configured by {where}); log in as a dealer")
    service_socket = station_socket(args, cfg)
    if service_socket is None:  # no configuration: this account's own station service
        return _run_with_private_service(args)
    if args.shoe or args.sim_cards or args.floor or args.game:
        return fail("--shoe, --sim-cards, --floor and --game are the station service's: its "
                    "configuration, given to `dealer-assist station serve` (docs/station.md)")
    reason = no_display()
    if reason:
        return fail(reason)
    return _run_client_window(args, cfg, service_socket)


def _run_with_private_service(args: argparse.Namespace) -> int:
    """No station configuration: this account's station service (its own store, the simulated
    shoe, a private socket) as a child process, then the screen as its client, exactly as on a
    station; the service is stopped when the screen closes."""
    from dealer_assist.service.launch import LaunchError, start_private_service

    reason = no_display()
    if reason:
        return fail(reason)
    extra: list[str] = []
    if args.sim_cards:  # the simulated shoe is the service's: checked here, read there
        from hardware.commands import CommandError, read_card_file

        try:
            read_card_file(args.sim_cards)
        except CommandError as exc:
            return _refuse(args, str(exc))
        extra += ["--sim-cards", str(Path(args.sim_cards).resolve())]
    if args.sim_seed is not None:
        extra += ["--sim-seed", str(args.sim_seed)]
    if args.shoe:  # a real shoe on this account's service (a technician's check, a development run)
        extra += ["--shoe", args.shoe, "--codec", args.codec or "da1", "--baud", str(args.baud or station.DEFAULT_BAUD)]
    if args.game:
        extra += ["--game", args.game]
    if args.floor:
        from dealer_assist.floor.connection import FloorError, parse_url

        try:
            parse_url(args.floor)
        except FloorError as exc:
            return _refuse(args, str(exc))
        extra += ["--floor", args.floor]
    started: list[tuple[Any, Any]] = []

    def meanwhile() -> None:  # while the service starts: Qt, the screen's modules, the application
        _load_screen_modules()
        started.append(_start_application(station.log_dir(installed=False)))

    try:
        service = start_private_service(extra, meanwhile=meanwhile)
    except LaunchError as exc:
        status = _refuse(args, str(exc), 1)
        if started:
            _stop_logging(started[0][1])
        return status
    if sys.stdout is not None:  # started from the menu: maybe no standard output at all
        print(f"dealer-assist: no station configuration: the station service for this account "
              f"(local store, {('shoe ' + args.shoe) if args.shoe else 'SIMULATED SHOE'}) on {service.socket}, pid {service.pid}", flush=True)
    try:
        return _run_client_window(args, None, service.socket, started[0] if started else None)
    finally:
        service.stop()


def _load_screen_modules() -> None:
    """Import Qt and the screen's modules (about a quarter of a second) while the service
    starts: nothing of Qt or the screen is imported before the service is spawned."""
    import PySide6.QtWidgets  # noqa: F401

    import ui.common.qtfix  # noqa: F401  (before any Qt call: keeps PySide6 6.12 from aborting CPython 3.11)
    import ui.common.service_link  # noqa: F401
    import ui.dealer.controller  # noqa: F401
    import ui.dealer.main_window  # noqa: F401


def _start_application(log_dir: Path) -> tuple[Any, Any]:
    """The log file (a warning if it cannot be written), Qt's messages routed to it, and the
    QApplication with the program's names and icon: (app, the AppLog or None)."""
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from dealer_assist.service import applog
    from ui.common.applog import crash_reporter, route_qt_messages

    log_path = log_dir / applog.LOG_NAME
    try:
        app_log: applog.AppLog | None = applog.start_logging(log_path.parent, on_crash=crash_reporter(log_path))
    except OSError as exc:
        print(f"warning: no log file ({log_path.parent}: {exc.strerror or exc})", file=sys.stderr)
        app_log = None
    route_qt_messages()
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    collect_on_gui_thread_only()  # before the shoe's reader or the service link starts
    app.setOrganizationName("dealer-assist")
    app.setApplicationName("dealer-assist")
    # Matches packaging/linux/*.desktop (Wayland), and the installed icon theme entry.
    app.setDesktopFileName("com.dealerassist.DealerAssist")
    app.setWindowIcon(QIcon.fromTheme("com.dealerassist.DealerAssist"))
    return app, app_log


def station_socket(args: argparse.Namespace, cfg: StationConfig | None) -> Path | None:
    """The station service's socket this screen is a client of: ``--socket``, else
    $DEALER_ASSIST_SOCKET, else the station's on a configured station; None: no service
    (this account's own service is started)."""
    from dealer_assist.service.client import SOCKET_ENV, STATION_SOCKET

    given = getattr(args, "socket", None) or os.environ.get(SOCKET_ENV)
    if given:
        return Path(given)
    return STATION_SOCKET if cfg is not None else None


@dataclass
class ClientScreen:
    """The dealer's screen as a client of the station service (the tests look at it)."""

    controller: Any  # ui.dealer.controller.TableController
    window: Any
    shifts: Any = None


def build_client_screen(link: Any, cfg: StationConfig | None, socket_path: Path,
                        game: str | None = None) -> ClientScreen:
    """The window on a connected service link: the round, the log-in and the accounts are the
    service's (no store, no shoe in this process)."""
    from PySide6.QtWidgets import QLabel, QSizePolicy

    from dealer_assist.engine.table_setup import default_setup, usable_setup
    from dealer_assist.service.ops import Op
    from ui.common.accounts import Shifts
    from ui.common.style import LEAST_TYPE_PX, px
    from ui.dealer.controller import TableController
    from ui.dealer.main_window import DealerWindow

    info = link.client.station
    simulated = bool(info.get("simulated"))
    setup = setup_from_station(default_setup(), cfg, game)
    controller = TableController(setup, link)
    controller.read_state()  # the service's state, its set-up included
    header = controller.config
    if header.get("game") and not isinstance(controller.service_state.get("setup"), dict):
        setup = replace(setup, game=str(header["game"]), decks=int(header.get("decks", setup.decks)),
                        areas=int(header.get("areas") or setup.areas))
        setup, _ = usable_setup(setup)
        controller.setup = setup
    window = DealerWindow(controller)
    table_name = str(info.get("table") or "")
    shown = cfg if cfg is not None else (StationConfig(table=table_name) if table_name else None)
    window.setWindowTitle(station_title(shown, simulated))
    shoe = "SIMULATED SHOE" if simulated else "shoe of the station"
    where = f"configuration {cfg.source}" if cfg is not None else "no station configuration (development)"
    # the service's socket in the tooltip (and the log): at 16 px a temporary directory's path
    # made the line wider than a 1366 px screen
    status = QLabel(f"{shoe} \u00b7 {where}")
    status.setToolTip(f"station service {socket_path}")
    status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # never wider than the screen
    status.setObjectName("station_status")
    size = f"font-size: {px(LEAST_TYPE_PX)}px;"  # the status bar's own type was 12 px (issue 34: 16 at least)
    status.setStyleSheet(size + (" font-weight: bold; color: #b00020;" if simulated else ""))
    window.statusBar().addPermanentWidget(status, 1)
    connection = QLabel("")  # "reconnecting to the station service…" while the service restarts
    connection.setObjectName("station_link")
    connection.setStyleSheet(size + " font-weight: bold; color: #b00020;")
    link.link_state.connect(lambda text: connection.setText("" if text == "connected" else text))
    window.statusBar().addPermanentWidget(connection)
    if controller.service_state.get("simulated_shoe"):
        # the service's simulated shoe (a demonstration): the dealer takes each card out here,
        # and shows or rehearses every fault the simulator has (the service names them)
        from PySide6.QtGui import QAction

        bar = window.addToolBar("Simulated shoe")
        bar.setObjectName("simulated_shoe")
        for key, words in controller.service_state.get("sim_faults") or [["deal", "Deal a card"]]:
            action = QAction(f"{words} (SIMULATED SHOE)" if key == "deal" else str(words), window)
            action.setObjectName(f"sim_{key}")
            action.triggered.connect(lambda _=False, k=str(key): controller.ask(Op.SIM_DEAL, fault=k))
            bar.addAction(action)
    screen = ClientScreen(controller, window)
    shifts = Shifts(controller, window, jobs=controller.jobs)
    shifts.title = lambda name: station_title(shown, simulated, name or "nobody logged in")
    screen.shifts = shifts

    def login_lost() -> None:  # a restarted service that could not resume the shift
        shifts.dealer = controller.dealer or shifts.dealer
        shifts.end_shift()

    controller.login_lost = login_lost
    return screen


def _stop_logging(app_log: Any) -> None:
    from ui.common.applog import stop_routing_qt_messages

    stop_routing_qt_messages()
    if app_log is not None:
        app_log.stop()


def _run_client_window(args: argparse.Namespace, cfg: StationConfig | None, socket_path: Path,
                       started: tuple[Any, Any] | None = None) -> int:
    """The dealer's screen as a client of the station service on ``socket_path``; ``started``:
    the application and log already started while this account's service started."""
    import logging

    import ui.common.qtfix  # noqa: F401  (before any Qt call: keeps PySide6 6.12 from aborting CPython 3.11)
    from dealer_assist.service import station
    from dealer_assist.service.client import ServiceError
    from ui.common.service_link import ServiceLink

    log = logging.getLogger("ui.dealer.app")
    # the user's own log (the service logs apart)
    app, app_log = started or _start_application(station.log_dir(installed=False))

    def stop_logging() -> None:
        _stop_logging(app_log)

    try:
        link = ServiceLink(socket_path, "screen")
    except ServiceError as exc:
        log.error("not started: %s", exc.message)
        hint = "" if exc.code == "permission" else " (is `dealer-assist station serve` running? docs/station.md)"
        _refuse(args, f"{exc.message}{hint}", 1)
        stop_logging()
        return 1
    screen = build_client_screen(link, cfg, socket_path, args.game)
    log.info("screen connected to the station service %s as account %s", socket_path, link.client.account)
    collect_between_rounds()
    window = screen.window
    window.show_on_screen(kiosk=cfg is not None)
    if args.exit_after_show:
        from PySide6.QtCore import QTimer

        def shown() -> None:
            window.repaint()
            print("shown", flush=True)
            app.quit()

        QTimer.singleShot(0, shown)
    screen.shifts.start()
    try:
        return int(app.exec())
    finally:
        screen.controller.close()
        window.close()
        log.info("dealer-assist stopped")
        stop_logging()
