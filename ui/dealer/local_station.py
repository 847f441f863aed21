"""A station in this process: the service and the dealer's screen as its client (issue 33).

For the screen's tests, its benchmark and its screenshots: a station service
(``dealer_assist.service.serve.start``, the code a station runs) on a socket in a scratch
folder and a given store file, its simulated shoe on a real pseudo-terminal dealing a given
card order; the screen a client of it (``ui.dealer.app.build_client_screen``), the dealer
logged in with a PIN through the service. The table's set-up is a supervisor's change under
PIN (op ``set_table``), as on a station. PIN hashes are cheap (``TEST_PIN_COST``): the
accounts here are made up for the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dealer_assist.service.station as st
from dealer_assist.engine.table_setup import TableSetup, setup_to_json, usable_setup
from dealer_assist.service.ops import Op
from dealer_assist.service.serve import Running, ServeOptions, start
from dealer_assist.store import TEST_PIN_COST, Store
from hardware.simulator import SimulatedShoe
from hardware.station import attach_shoe

SUPERVISOR, SUPERVISOR_PIN = "sue", "482913"
DEALER, DEALER_PIN = "ann", "730418"
TABLE = "BJ-07"  # the table of every store here (a restart on the same store is the same table)


@dataclass
class LocalStation:
    """A running service and the screen connected to it (what the tests drive)."""

    running: Running
    sim: SimulatedShoe
    link: Any  # ui.common.service_link.ServiceLink
    screen: Any  # ui.dealer.app.ClientScreen
    store_path: Path
    socket: Path
    closed: bool = False

    @property
    def controller(self) -> Any:
        return self.screen.controller

    @property
    def window(self) -> Any:
        return self.screen.window

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.controller.close()
        self.window.close()
        self.running.stop()
        self.sim.close()


def start_local_station(tmp_path: Path, index: int, setup: TableSetup | None, cards: list[Any], *, db: Path,
                users: dict[str, tuple[str, list[str]]] | None = None, dealer: str = DEALER,
                login: bool = True, codec: str = "da1") -> LocalStation:
    """Start the service on ``db`` (its socket and shoe ``index`` in ``tmp_path``; accounts from
    ``users``, else sue the supervisor and ann the dealer), the shoe dealing ``cards``, the screen with ``dealer`` logged in (``login``
    False: nobody; ``users`` then are all the accounts, none when empty: a new store)."""
    from ui.common.service_link import ServiceLink
    from ui.dealer.app import build_client_screen

    # as the screen's set-up dialog offers it (areas of the game); None: the one the store has
    setup = usable_setup(setup)[0] if setup is not None else None
    accounts = dict(users or {})
    supervisors = [(name, pin) for name, (pin, roles) in accounts.items() if "supervisor" in roles]
    if not supervisors and login:
        accounts[SUPERVISOR] = (SUPERVISOR_PIN, ["supervisor"])
        supervisors = [(SUPERVISOR, SUPERVISOR_PIN)]
    if dealer not in accounts and login:
        accounts[dealer] = (DEALER_PIN, ["dealer"])
    store = Store.open(db, pin_cost=TEST_PIN_COST)  # cheap hashes for tests
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
    try:
        link = ServiceLink(socket, "screen")
        boss = supervisors[0] if supervisors else ("", "")
        if login:  # the set-up under the supervisor's PIN (logged out: the configured game only)
            link.ask(Op.LOGIN, name=dealer, pin=accounts[dealer][0])
            if setup is not None:
                link.ask(Op.SET_TABLE, setup=setup_to_json(setup), pin={"user": boss[0], "pin": boss[1]})
        screen = build_client_screen(link, None, socket)
        if login:
            screen.controller.start_shift(dealer)
    except Exception:
        running.stop()
        sim.close()
        raise
    return LocalStation(running, sim, link, screen, db, socket)
