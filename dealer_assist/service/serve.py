"""``dealer-assist station serve``: put the store, the table and the socket together and
run until SIGTERM/SIGINT. The shoe is attached by the caller (hardware/station.py owns the
device and the simulator): ``attach_shoe(on_event)`` starts it and returns its stop."""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import dealer_assist.service.station as st
from dealer_assist.base.errors import DealerAssistError, TranscriptError
from dealer_assist.engine.table_setup import TableSetup, default_setup, usable_setup
from dealer_assist.service.applog import start_logging
from dealer_assist.service.client import dev_socket_path
from dealer_assist.service.config_watch import check_config_digest
from dealer_assist.service.health import notify_systemd
from dealer_assist.service.server import StationServer
from dealer_assist.service.table import TableService
from dealer_assist.service.terminal_ca import PairingError, TerminalCA
from dealer_assist.service.terminal_server import TerminalServer
from dealer_assist.store import Store, StoreError
from dealer_assist.store.users import PIN_COST, PinCost

ShoeEvents = Callable[[dict[str, Any]], None]
AttachShoe = Callable[[ShoeEvents], Callable[[], None]]
log = logging.getLogger("dealer_assist.service")
STOP_SECONDS = 10
RETRY_SECONDS = 1.0  # a store that failed a write (a full disk) is tried again this often


@dataclass
class ServeOptions:
    config: str | None = None
    state_dir: str | None = None
    socket: str | None = None
    log_dir: str | None = None
    pin_cost: PinCost | None = None  # tests only (TEST_PIN_COST); the service never sets it
    # the simulated shoe (hardware.simulator.SimulatedShoe) when the station has none: the
    # screen's "Deal" asks the service to deal from it (op sim_deal)
    simulators: list[Any] = field(default_factory=list)
    terminals: tuple[str, int] | None = None  # (host, port) of the terminal endpoint, over [terminals]
    # with no station configuration only: a development run's settings (the account's own
    # service, `dealer-assist --shoe/--game/--floor`): its shoe, game and floor
    development: st.StationConfig | None = None
    # a review service (``station serve --review FILE --socket PATH``): this store file only, for
    # ``dealer-assist review --db FILE``: no table, no shoe, no terminals, no floor, the
    # station's configuration not read; it serves the ops the registry marks ``review`` (the
    # supervisor's PIN with its lockout, audited; notes; the copy) and refuses every other
    review_store: str | None = None


@dataclass
class Running:
    """A started service (tests and dev.py stop it with :meth:`stop`)."""

    service: TableService
    server: StationServer
    store: Store
    stop_shoe: Callable[[], None]
    lock: st.StationLock
    stopping: threading.Event = field(default_factory=threading.Event)
    terminals: TerminalServer | None = None  # the player terminals' endpoint, when configured

    def stop(self) -> None:
        self.stopping.set()
        self.stop_shoe()
        if self.terminals is not None:
            self.terminals.stop()
        self.service.clock.stop()
        self.service.write_result_due(stopping=True)  # a round's result not yet written (RESULT_AFTER_S)
        self.server.stop()
        self.service.pins.stop()
        with self.service.lock:
            self.store.close()
            self.service.journal.close()
        self.lock.release()


def table_header(cfg: st.StationConfig | None) -> dict[str, Any]:
    """The table's transcript header from the station configuration (else the default setup)."""
    return table_setup(cfg).config([])


def table_setup(cfg: st.StationConfig | None) -> TableSetup:
    """The table's set-up from the station configuration (else the default setup)."""
    setup = default_setup()
    if cfg is not None:
        setup.game = cfg.game or setup.game
        setup.decks = cfg.decks or setup.decks
        setup.areas = cfg.areas or setup.areas
        if cfg.limits:
            setup.limits = {k: [lo, hi] for k, (lo, hi) in cfg.limits.items()}  # exact (Decimal)
    return setup


def start(options: ServeOptions, attach_shoe: AttachShoe | None = None) -> Running:
    """Open everything and start serving (raises StoreError/StationError/OSError)."""
    if options.review_store is not None:
        return start_review(options)
    cfg = st.find_config(options.config)
    config_path, _ = st.config_location(options.config)
    station = cfg is not None
    dev = options.development if cfg is None else None  # a station's settings are its file's
    state = Path(options.state_dir) if options.state_dir else (st.site_data_dir() if station else st.user_data_dir())
    state.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(state, 0o700)  # the store, its key, the PIN hashes and the anchor: the service's alone
    sock = Path(options.socket) if options.socket else (
        Path("/run/dealer-assist/station.sock") if station else dev_socket_path())
    if not station:
        sock.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    store_file = Path(cfg.store) if cfg is not None and cfg.store else state / st.STORE_NAME
    old = os.umask(0o077)
    lock = st.StationLock(store_file)  # one writer per store: a second service (or screen) is refused
    try:
        lock.acquire()
        store = Store.open(store_file, table=(cfg.table if cfg is not None and cfg.table else "table"),
                           pin_cost=options.pin_cost or PIN_COST)
    except BaseException:
        lock.release()
        raise
    finally:
        os.umask(old)
    store.head_sync = False  # the anchor (fsynced each round) is the durable lower bound
    info = {"table": cfg.table if cfg else "", "pit": cfg.pit if cfg else "",
            "simulated": cfg.simulated if cfg else (dev.simulated if dev else True), "configured": station}
    setup = table_setup(cfg)
    service = TableService(store, setup.config([]), state_dir=state, station=info, log=log, setup=setup)
    if station or options.log_dir:  # the anchor's copy where a rolled-back state directory does not reach
        service.anchor_copy_dir = Path(options.log_dir) if options.log_dir else st.log_dir(station)
        try:
            service.anchor_copy_dir.mkdir(parents=True, exist_ok=True, mode=0o750)
        except OSError as exc:
            log.error("no directory %s for the anchor's copy: %s", service.anchor_copy_dir, exc)
    service.start()
    if dev is not None and dev.game and dev.game != service.setup.game and not service.refused:
        # --game: this game from now on (the kept set-up brought into its ranges), audited
        try:
            game_setup, _ = usable_setup(replace(service.setup, game=dev.game))
            service.adopt_station_setup(game_setup, "--game")
        except (DealerAssistError, TranscriptError) as exc:
            log.error("the game %s cannot be set up: %s", dev.game, exc)
    service.start_clock()  # Electronic's decision time (3.17, 3.18), counted by the service
    if cfg is not None and cfg.table and not service.refused:
        try:  # the station's store carries its table's name (the floor goes by it)
            store.claim_table(cfg.table, cfg.pit or None, actor="service")
        except StoreError as exc:
            service.refused = f"the store {store_file} is refused: {exc}"
            log.critical("significant event: %s", service.refused)
    url = st.floor_url(cfg) or (dev.floor_database if dev is not None else "")
    if url and cfg is not None and cfg.table:
        # psycopg and the forwarder only where a floor is configured (issue 37: ~0.1 s a start)
        from dealer_assist.service.forwarding import floor_last_round

        on_floor = floor_last_round(url, cfg.table, password=st.floor_password(state))
        newest = max((r.id for r in store.list_rounds(limit=1)), default=0)
        if on_floor is not None and newest < on_floor:
            floor_text = (f"its newest round is {newest}, but the floor holds round {on_floor} of {cfg.table}: "
                          "the store was replaced by an older copy")
            service.refused = (f"{service.refused}; and {floor_text}" if service.refused
                               else f"the store {store_file} is refused: {floor_text}")
            log.critical("significant event: %s", service.refused)
    if station and not service.refused and cfg is not None:
        changed = check_config_digest(store, config_path, cfg.settings())
        if changed is not None:
            log.critical("significant event: %s was changed by hand: %s", config_path, changed["changes"])
            if set(changed["changes"]) & {"game", "decks", "areas", "limits"}:
                try:  # root set the table up again: the file's set-up from now on
                    service.adopt_station_setup(setup, str(config_path))
                except TranscriptError as exc:
                    log.error("the configuration's table set-up cannot be used: %s", exc)
    server = StationServer(service, sock, log=log, mode=0o660 if station else 0o600)
    server.start()
    terminals = None
    where = options.terminals or ((cfg.terminals_host or "0.0.0.0", cfg.terminals_port)
                                  if cfg is not None and cfg.terminals_port is not None else None)
    if where is not None:  # player terminals (issue 38): off unless configured
        owner = state.stat()
        terminals = TerminalServer(service, TerminalCA(state, (owner.st_uid, owner.st_gid)), where[0], where[1],
                                   log=log)
        try:
            terminals.start()
        except (PairingError, OSError) as exc:
            server.stop()
            with service.lock:
                store.close()
                service.journal.close()
            lock.release()
            raise st.StationError(f"the terminals' endpoint on {where[0]}:{where[1]} cannot start: {exc}") from None
    stop_shoe = attach_shoe(service.on_shoe) if attach_shoe is not None else (lambda: None)
    if options.simulators:
        service.simulator = options.simulators[0]
    if url and not service.refused:
        from dealer_assist.service.forwarding import FloorForwarding, floor_passfile

        password = st.floor_password(state)
        if password:  # the forwarder connects through libpq: its password file, not the URL
            os.environ["PGPASSFILE"] = str(floor_passfile(state, password))
        forwarding = FloorForwarding(store_file, url, server.broadcast)
        service.floor = lambda: dict(forwarding.state)
        forwarding.start()
        shoe_stop = stop_shoe

        def stop_both() -> None:
            shoe_stop()
            forwarding.stop()

        stop_shoe = stop_both
    log.info("station service on %s (store %s)", sock, store_file)
    running = Running(service, server, store, stop_shoe, lock, terminals=terminals)
    threading.Thread(target=_retry_store, args=(running,), name="store-retry", daemon=True).start()
    return running


def start_review(options: ServeOptions) -> Running:
    """A review service on ``options.review_store`` (its socket ``options.socket``, its review
    tokens in ``options.state_dir``): the store opened for writing under its lock (one writer
    per store: a table's service on the same file is refused while it runs, and the other way
    round), its table never started (no round restored, no anchor written, nothing dealt).
    StationError when the store has no supervisor yet (nobody could open its review)."""
    assert options.review_store is not None
    if not options.socket:
        raise st.StationError("a review service needs its own socket (--socket PATH)")
    store_file = Path(options.review_store)
    state = Path(options.state_dir) if options.state_dir else st.user_data_dir() / "review"
    state.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(state, 0o700)  # its review tokens are the supervisor's
    lock = st.StationLock(store_file)
    lock.acquire()
    try:
        store = Store.open(store_file, pin_cost=options.pin_cost or PIN_COST)
    except BaseException:
        lock.release()
        raise
    if store.needs_enrolment():
        store.close()
        lock.release()
        raise st.StationError(f"{store_file} has no supervisor yet: enrol one on the dealer's screen first")
    setup = default_setup()
    service = TableService(store, setup.config([]), state_dir=state, log=log, setup=setup,
                           station={"table": store.table, "pit": "", "simulated": False, "configured": False})
    service.review_only = str(store_file)
    server = StationServer(service, Path(options.socket), log=log, mode=0o600)
    try:
        server.start()
    except BaseException:
        with service.lock:
            store.close()
            service.journal.close()
        lock.release()
        raise
    log.info("review service on %s (store %s)", options.socket, store_file)
    return Running(service, server, store, lambda: None, lock)


def clock_set_back(before: tuple[float, float], now: tuple[float, float]) -> float:
    """Seconds the wall clock was set back between two (wall, monotonic) readings (0 if not):
    the wall clock ran slower than the monotonic one by more than a second."""
    back = (now[1] - before[1]) - (now[0] - before[0])
    return back if back > 1.0 else 0.0


def _retry_store(running: Running) -> None:
    """While a write fails (a full disk) the table holds; once the store takes writes again
    it resumes by itself, the cards the journal kept recorded in order (issue 39 item 4).
    The wall clock set back (the store's times then go backwards) is logged."""
    import time

    clock = (time.time(), time.monotonic())
    while not running.stopping.wait(RETRY_SECONDS):
        now = (time.time(), time.monotonic())
        back = clock_set_back(clock, now)
        if back:
            log.critical("significant event: the system clock was set back by %.1f s (recorded times go "
                         "backwards from here)", back)
        clock = now
        if running.service.store_error and not running.service.refused:
            try:
                running.service.retry_store()
                running.service.tell_screens()  # the table as on disk again, to every screen
            except Exception:  # noqa: BLE001 - logged; the next try may succeed
                log.exception("retrying the store failed")


def drop_root(options: ServeOptions, cfg_present: bool) -> str:
    """Root never serves (issue 39 item 5): the service's files stay the service's. As root,
    become the owner of the state directory (the service account on a station), else the
    service account; with neither (a development machine run as root) root's own files.
    The account become ("" when none); StationError when it cannot be done."""
    from dealer_assist.service.layout import find_account, is_root

    if not is_root():
        return ""
    state = Path(options.state_dir) if options.state_dir else (
        st.site_data_dir() if cfg_present else st.user_data_dir())
    try:
        owner = state.stat()
        uid, gid = owner.st_uid, owner.st_gid
    except OSError:
        uid = gid = 0
    import pwd

    account = find_account()
    if uid == 0 and account is not None:
        uid, gid = account.uid, account.gid
    if uid == 0:
        return ""
    try:
        name = pwd.getpwuid(uid).pw_name
        member = find_account(name)
        groups = sorted(member.groups) if member is not None else [gid]
        os.setgroups(groups)
        os.setgid(gid)
        os.setuid(uid)
    except (OSError, KeyError) as exc:
        raise st.StationError(f"station serve does not run as root and cannot become the account of {state} "
                              f"(uid {uid}): {exc}") from None
    return name


def serve(options: ServeOptions, attach_shoe: AttachShoe | None = None) -> int:
    """Run in the foreground until SIGTERM or SIGINT; the exit status."""
    # a review service reads no station configuration (the store it reviews is named)
    cfg_present = options.review_store is None and st.find_config(options.config) is not None
    try:
        became = drop_root(options, cfg_present)
    except st.StationError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 2
    if became:
        print(f"station serve was started as root: running as {became} (the owner of its state)", flush=True)
    logs = Path(options.log_dir) if options.log_dir else st.log_dir(cfg_present)
    applog = start_logging(logs)
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):  # before the start: a stop while starting is kept
        signal.signal(sig, lambda *_: done.set())
    try:
        running = start(options, attach_shoe)
    except (StoreError, st.StationError, OSError) as exc:
        log.critical("the station service cannot start: %s", exc)
        print(f"error: {exc}", flush=True)
        applog.stop()
        return 1
    # what the start made (modules, the table restored, the store, the engine's tables) lives
    # as long as the service: out of every later collection. A full pass over it (~50,000
    # objects) took 17-47 ms on a card that happened to trigger one (docs/station.md)
    gc.collect()
    gc.freeze()
    print(f"serving on {running.server.path}", flush=True)
    if running.terminals is not None:
        t = running.terminals
        print(f"terminals on {t.host}:{t.port} (pairing on {t.pair_port})", flush=True)
    notify_systemd("READY=1")  # Type=notify: started; the watchdog's pings follow (server.py)
    # Never an endless wait: a SIGTERM the kernel hands to another thread (the shoe's reader,
    # a client's) only flags the main thread, which must come back to Python to run the
    # handler; blocked in Event.wait() it never did, and the stop waited for SIGKILL.
    while not done.wait(0.5):
        pass
    notify_systemd("STOPPING=1")
    # stop in order, but never hang a stop on a stuck device or client (systemd waits for us)
    stopper = threading.Thread(target=running.stop, name="station-stop", daemon=True)
    stopper.start()
    stopper.join(STOP_SECONDS)
    if stopper.is_alive():
        log.error("the station service did not stop within %s s: leaving anyway", STOP_SECONDS)
    applog.stop()
    return 0
