"""``dealer-assist`` (no arguments) / ``dealer-assist gui``: the dealer's screen.

Without ``--shoe`` it starts an in-process simulated shoe on a pseudo-terminal (the
driver opens the pty by path, as it opens a real shoe) and a local store in the
platform user data dir. ``--shoe PORT [--codec da1|da1-xor|beetek] [--baud B] [--db FILE]``
runs it against a real shoe. For tests and benchmarks: ``--sim-cards FILE`` (a fixed
card order), ``--sim-seed N``, ``--game``, ``--dealer NAME`` (skip the log-in: only with
``DEALER_ASSIST_DEV=1``, a development run).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import ui.qtfix  # noqa: F401  (first: keeps PySide6 6.12 from aborting CPython 3.11)
from hardware.codecs import CODEC_NAMES
from hardware.driver import DEFAULT_BAUD, ShoeDriver
from hardware.simulator import SimulatedShoe
from ui.controller import TableController, TableSetup
from ui.worker import Worker

CODECS = CODEC_NAMES  # da1 (CRC-16), da1-xor (earlier firmware's 8-bit XOR), beetek


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--shoe", metavar="PORT", help="serial port of the card-reading shoe (default: simulated shoe)")
    parser.add_argument("--codec", choices=CODECS, default="da1", help="the shoe's wire format (default da1; da1-xor for shoes of earlier firmware)")
    parser.add_argument("--baud", type=int, default=DEFAULT_BAUD, help=f"serial speed (default {DEFAULT_BAUD})")
    parser.add_argument("--db", metavar="FILE", help="the table's store (default: user data dir)")
    parser.add_argument("--game", help="game for this session (overrides the remembered setup)")
    parser.add_argument("--sim-cards", metavar="FILE", help="simulated shoe: fixed card order (cards separated by spaces)")
    parser.add_argument("--sim-seed", type=int, help="simulated shoe: shuffle seed")
    parser.add_argument("--dealer", help="log in as this dealer without the login dialog "
                        "(development runs only: DEALER_ASSIST_DEV=1)")
    parser.add_argument("--floor", metavar="URL",
                        help="forward finished rounds to this floor database in the background "
                             "(postgresql://... or service=NAME; credentials via PGPASSFILE/PGSERVICEFILE)")
    parser.add_argument("--settings", metavar="FILE", help="where to remember the setup (default: Qt's user settings)")
    parser.add_argument("--exit-after-show", action="store_true", help=argparse.SUPPRESS)  # ui.bench


@dataclass
class Table:
    """Everything one running dealer's screen consists of (the tests drive this)."""

    controller: TableController
    window: Any
    driver: ShoeDriver
    signals: Any
    sim: SimulatedShoe | None
    sim_worker: Worker | None
    shifts: Any = None  # ui.accounts.Shifts once the log-in flow runs
    floor_link: Any = None  # ui.floor_link.FloorLink when a floor URL is configured

    def close(self) -> None:
        if self.floor_link is not None:
            self.floor_link.stop()
        self.driver.stop()
        if self.sim is not None:
            self.sim.close()
        if self.sim_worker is not None:
            self.sim_worker.stop()
        self.controller.close()
        self.window.close()


def build_table(setup: TableSetup, *, db: str | None, dealer: str, port: str | None = None,
                codec: str = "da1", baud: int = DEFAULT_BAUD, sim_cards: list[Any] | None = None,
                sim_seed: int | None = None, sim_link: str | None = None,
                driver_options: dict[str, Any] | None = None, floor_url: str | None = None) -> Table:
    """Create the controller, the store, the shoe (simulated if no ``port``) and the window."""
    from ui.main_window import DealerWindow
    from ui.shoe_signals import ShoeSignals
    from ui.sim_panel import SimPanel

    controller = TableController(setup, dealer)
    sim: SimulatedShoe | None = None
    sim_worker: Worker | None = None
    sim_panel = None
    if port is None:
        sim = SimulatedShoe(game=setup.game, decks=setup.decks, seed=sim_seed, cards=sim_cards,
                            codec=codec, link=sim_link, penetration=None if sim_cards else 0.75)
        port = sim.open()
        sim_worker = Worker("simulated-shoe", controller)
        sim_panel = SimPanel(sim, sim_worker)
    window = DealerWindow(controller, sim_panel=sim_panel)
    window.setup_saved = controller.remember_setup  # the store remembers the table setup
    controller.open_store(db)
    # the shoe talks to the app only through signals, delivered on the GUI thread
    signals = ShoeSignals(window)
    signals.shoe_event.connect(controller.on_shoe_event)
    driver = ShoeDriver(port, signals.on_event, codec=codec, baud=baud, **(driver_options or {}))
    driver.start()
    floor_link = None
    if floor_url:  # issue 18: forward in the background, the link's state in the status bar
        from dealer_assist.store import default_db_path
        from ui.floor_link import FloorLink

        floor_link = FloorLink(db or default_db_path("table"), floor_url, parent=window)
        window.statusBar().addPermanentWidget(floor_link.widget)
        floor_link.start()
    return Table(controller, window, driver, signals, sim, sim_worker, floor_link)


def run(args: argparse.Namespace) -> int:
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from dealer_assist.games import GAMES
    from ui.setup_dialog import remembered_setup

    def fail(message: str) -> int:
        print(f"dealer-assist: error: {message}", file=sys.stderr)
        return 2

    # check what can be checked before Qt starts, so bad input is one line, not a Qt abort
    from ui.accounts import DEV_MODE_VARIABLE, development_mode

    if args.dealer and not development_mode():
        return fail(f"--dealer skips the log-in and is for development runs only (set {DEV_MODE_VARIABLE}=1)")
    if args.game and args.game not in GAMES:
        return fail(f"unknown game {args.game!r}: one of {', '.join(GAMES)}")
    cards = None
    if args.sim_cards:
        from hardware.commands import CommandError, read_card_file

        try:
            cards = read_card_file(args.sim_cards)
        except CommandError as exc:
            return fail(str(exc))
    if (sys.platform.startswith("linux") and not os.environ.get("QT_QPA_PLATFORM")
            and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY")):
        return fail("no display to open the window on (set DISPLAY, or QT_QPA_PLATFORM=offscreen)")
    if args.floor:
        from dealer_assist.floor.connection import FloorError, parse_url

        try:
            parse_url(args.floor)
        except FloorError as exc:
            return fail(str(exc))
    if args.db:
        try:
            Path(args.db).parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return fail(f"cannot use --db {args.db}: {exc}")

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    app.setOrganizationName("dealer-assist")
    app.setApplicationName("dealer-assist")
    # Matches packaging/linux/*.desktop (Wayland), and the installed icon theme entry.
    app.setDesktopFileName("com.dealerassist.DealerAssist")
    app.setWindowIcon(QIcon.fromTheme("com.dealerassist.DealerAssist"))
    settings = QSettings(args.settings, QSettings.Format.IniFormat) if args.settings else QSettings()
    remembered = remembered_setup(args.db)  # at launch, before the window exists
    setup = replace(remembered)
    if args.game:
        setup.game = args.game
        low, high = GAMES[args.game].deck_range
        setup.decks = min(max(setup.decks, low), high)
        a_low, a_high = GAMES[args.game].area_range
        setup.areas = min(max(setup.areas, a_low), a_high)
    table = build_table(setup, db=args.db, dealer=args.dealer or "", port=args.shoe, codec=args.codec,
                        baud=args.baud, sim_cards=cards, sim_seed=args.sim_seed, floor_url=args.floor)
    window = table.window
    geometry = settings.value("window/geometry")
    if geometry is None or not window.restoreGeometry(geometry):
        window.resize(1600, 1000)
    window.show()
    if args.exit_after_show:
        from PySide6.QtCore import QTimer

        def shown() -> None:
            window.repaint()  # painted: the first window is on screen
            print("shown", flush=True)
            app.quit()

        QTimer.singleShot(0, shown)
    if not args.dealer:
        _ask_login(table)
    if setup != remembered:
        table.controller.remember_setup(setup)  # e.g. --game: queued after the store opens
    try:
        return int(app.exec())
    finally:
        settings.setValue("window/geometry", window.saveGeometry())  # QSettings: window state only
        table.close()


def _ask_login(table: Table) -> None:
    """The dealer's shift starts with a log-in; a new store first enrols a supervisor (ui.accounts)."""
    from ui.accounts import Shifts

    shifts = Shifts(table.controller, table.window)
    table.shifts = shifts
    shifts.start()
