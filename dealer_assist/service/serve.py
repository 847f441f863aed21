"""``dealer-assist station serve``: put the store, the table and the socket together and
run until SIGTERM/SIGINT. The shoe is attached by the caller (hardware/station.py owns the
device and the simulator): ``attach_shoe(on_event)`` starts it and returns its stop."""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dealer_assist.service.station as st
from dealer_assist.base.errors import TranscriptError
from dealer_assist.engine.table_setup import TableSetup, default_setup
from dealer_assist.service.applog import start_logging
from dealer_assist.service.client import dev_socket_path
from dealer_assist.service.config_watch import check_config_digest
from dealer_assist.service.forwarding import FloorForwarding, floor_last_round, floor_passfile
from dealer_assist.service.health import notify_systemd
from dealer_assist.service.server import StationServer
from dealer_assist.service.table import TableService
from dealer_assist.store import Store, StoreError
from dealer_assist.store.users import PIN_COST, PinCost

ShoeEvents = Callable[[dict[str, Any]], None]
AttachShoe = Callable[[ShoeEvents], Callable[[], None]]
log = logging.getLogger("dealer_assist.service")
STOP_SECONDS = 10


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


@dataclass
class Running:
    """A started service (tests and dev.py stop it with :meth:`stop`)."""

    service: TableService
    server: StationServer
    store: Store
    stop_shoe: Callable[[], None]
    lock: st.StationLock

    def stop(self) -> None:
        self.stop_shoe()
        self.server.stop()
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
    cfg = st.find_config(options.config)
    config_path, _ = st.config_location(options.config)
    station = cfg is not None
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
            "simulated": cfg.simulated if cfg else True, "configured": station}
    setup = table_setup(cfg)
    service = TableService(store, setup.config([]), state_dir=state, station=info, log=log, setup=setup)
    service.start()
    if cfg is not None and cfg.table and not service.refused:
        try:  # the station's store carries its table's name (the floor goes by it)
            store.claim_table(cfg.table, cfg.pit or None, actor="service")
        except StoreError as exc:
            service.refused = f"the store {store_file} is refused: {exc}"
            log.critical("significant event: %s", service.refused)
    url = st.floor_url(cfg)
    if url and cfg is not None and cfg.table and not service.refused:
        on_floor = floor_last_round(url, cfg.table, password=st.floor_password(state))
        newest = max((r.id for r in store.list_rounds(limit=1)), default=0)
        if on_floor is not None and newest < on_floor:
            service.refused = (f"the store {store_file} is refused: its newest round is {newest}, but the floor "
                               f"holds round {on_floor} of {cfg.table}: the store was replaced by an older copy")
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
    stop_shoe = attach_shoe(service.on_shoe) if attach_shoe is not None else (lambda: None)
    if options.simulators:
        service.simulator = options.simulators[0]
    if url and not service.refused:
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
    return Running(service, server, store, stop_shoe, lock)


def serve(options: ServeOptions, attach_shoe: AttachShoe | None = None) -> int:
    """Run in the foreground until SIGTERM or SIGINT; the exit status."""
    cfg_present = st.find_config(options.config) is not None
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
    print(f"serving on {running.server.path}", flush=True)
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
