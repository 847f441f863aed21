"""A station service in this process on a given store, its simulated shoe on a real
pseudo-terminal dealing a given card order (issue 33: the one table host, for the screen's
tests, its benchmark and its screenshots; ui/dealer/local_station.py connects the screen).

``dealer_assist.service.serve.start`` is the code a station runs; the shoe is attached as a
station's is (``hardware.station.attach_shoe``, the driver opening the pty by its path). The
accounts are made up for the run, with cheap PIN hashes (``TEST_PIN_COST``).

:func:`start_station_process` runs ``dealer-assist station serve`` as a process of its own
instead, on a station configuration whose shoe is the simulated shoe in this process (the
screen's benchmark, ui/dealer/bench.py). The screen holds the shoe's handle (``sim``: deal,
peek, shuffle) and never names the shoe's driver or simulator itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dealer_assist.service.station as st
from dealer_assist.cli.common import DEV_MODE_VARIABLE
from dealer_assist.engine.table_setup import TableSetup, usable_setup
from dealer_assist.service.client import SOCKET_ENV
from dealer_assist.service.probe import handshake
from dealer_assist.service.serve import Running, ServeOptions, start
from dealer_assist.store import TEST_PIN_COST, Store
from hardware.simulator import SimulatedShoe
from hardware.station import attach_shoe

#: the simulated shoe's handle that the screen's tests and benchmark hold (deal, peek, shuffle ...)
ShoeHandle = SimulatedShoe

SUPERVISOR, SUPERVISOR_PIN = "sue", "482913"
DEALER, DEALER_PIN = "ann", "730418"
TABLE = "BJ-07"  # the table of every store here (a restart on the same store is the same table)


@dataclass
class LocalService:
    """A running station service on its store and socket, and its simulated shoe."""

    running: Running
    sim: SimulatedShoe
    store_path: Path
    socket: Path
    accounts: dict[str, tuple[str, list[str]]]
    setup: TableSetup | None  # to be set by a supervisor once a dealer is logged in (op set_table)

    @property
    def supervisor(self) -> tuple[str, str]:
        """The first supervisor's name and PIN ("" when there is none)."""
        return next(((n, pin) for n, (pin, roles) in self.accounts.items() if "supervisor" in roles), ("", ""))

    def stop(self) -> None:
        self.running.stop()
        self.sim.close()


def start_local_service(tmp_path: Path, index: int, setup: TableSetup | None, cards: list[Any], *, db: Path,
                        users: dict[str, tuple[str, list[str]]] | None = None, dealer: str = DEALER,
                        with_accounts: bool = True, codec: str = "da1") -> LocalService:
    """The service on ``db`` (its socket and shoe ``index`` in ``tmp_path``; accounts from
    ``users``, and unless ``with_accounts`` is False also sue the supervisor and ``dealer`` as
    a dealer), the shoe dealing ``cards``; ``setup`` (None: the one the store has) is kept for
    the screen to ask for under the supervisor's PIN once its dealer is logged in."""
    setup = usable_setup(setup)[0] if setup is not None else None  # as the set-up dialog offers it
    accounts = dict(users or {})
    if with_accounts:
        if not any("supervisor" in roles for _, roles in accounts.values()):
            accounts[SUPERVISOR] = (SUPERVISOR_PIN, ["supervisor"])
        if dealer not in accounts:
            accounts[dealer] = (DEALER_PIN, ["dealer"])
    store = Store.open(db, pin_cost=TEST_PIN_COST)  # cheap hashes: accounts made up for the run
    try:
        known = {str(u["username"]) for u in store.users()}
        for name, (pin, roles) in accounts.items():
            if name not in known:
                store.create_user(name, pin, roles)
    finally:
        store.close()
    sim = SimulatedShoe(game=setup.game if setup else "lucky8", decks=setup.decks if setup else 6, cards=cards,
                        codec=codec, link=str(tmp_path / f"shoe{index}"), penetration=None)
    sim.open()
    state = db.parent / f"{db.stem}-state"  # the store's own: a restart on the same store finds its anchor
    socket = tmp_path / f"run{index}" / "station.sock"
    config = db.parent / f"{db.stem}-station.toml"  # the store's station: a restart reads the same file
    if not config.exists():
        config.write_text(st.render_config(st.StationConfig(table=TABLE, game=setup.game if setup else "",
                                                            shoe_port=sim.path, store=str(db))))
    shoe_cfg = st.StationConfig(shoe_port=sim.path, codec=codec)
    running = start(ServeOptions(config=str(config), state_dir=str(state), socket=str(socket),
                                 pin_cost=TEST_PIN_COST, simulators=[sim]),
                    lambda on_event: attach_shoe(shoe_cfg, on_event))
    return LocalService(running, sim, db, socket, accounts, setup)


@dataclass
class StationProcess:
    """``station serve`` as a process of its own and the simulated shoe (in this process) it
    reads as its shoe; :meth:`stop` ends both."""

    process: subprocess.Popen[str]
    sim: SimulatedShoe
    socket: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        """SIGTERM to the service's PID, wait for it (30 s at most), then close the shoe."""
        self.process.terminate()
        try:
            self.process.wait(30)
        finally:
            self.sim.close()


def start_station_process(base: Path, *, table: str, pit: str, game: str, decks: int, areas: int,
                          seed: int, timeout_s: float = 30.0) -> StationProcess:
    """``dealer-assist station serve`` as its own process on a station configuration written in
    ``base`` (its state directory, a private socket, its log), its shoe the simulated shoe
    opened here on a pty (shuffled with ``seed``), which the service's driver opens by its
    path; returns once the service answers on its socket. The development switches are not
    passed on. StationError (the service's own words) when it does not start."""
    sim = SimulatedShoe(game=game, decks=decks, seed=seed)
    sim.open()
    state, sock = base / "state", base / "run" / "station.sock"
    config = base / "station.toml"
    config.write_text(st.render_config(st.StationConfig(table=table, pit=pit, game=game, decks=decks, areas=areas,
                                                        shoe_port=sim.path, store=str(state / "table.db"))))
    env = {k: v for k, v in os.environ.items() if k not in (DEV_MODE_VARIABLE, SOCKET_ENV, st.CONFIG_ENV)}
    process = subprocess.Popen([sys.executable, "-m", "dealer_assist", "station", "serve", "--config", str(config),
                                "--state-dir", str(state), "--socket", str(sock), "--log-dir", str(base / "log")],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    station = StationProcess(process, sim, sock)
    try:
        deadline = time.monotonic() + timeout_s
        while not (sock.exists() and handshake(sock, timeout_s=1).ok):
            if process.poll() is not None:
                raise st.StationError(f"the station service did not start: {process.communicate()[1]}")
            if time.monotonic() > deadline:
                raise st.StationError(f"the station service did not answer within {timeout_s:.0f} s")
            time.sleep(0.1)
    except BaseException:
        station.stop()
        raise
    return station
