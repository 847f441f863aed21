"""A station in this process: the service and the dealer's screen as its client (issue 33).

For the screen's tests, its benchmark and its screenshots: a station service on a given store
with its simulated shoe (hardware/local_station.py: the code a station runs; it starts the
shoe, this module holds only its handle) and the screen a client of it
(``ui.dealer.app.build_client_screen``), the dealer logged in with a PIN through the service.
The screen opens neither the store nor the shoe.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealer_assist.engine.table_setup import TableSetup, setup_to_json
from dealer_assist.service.ops import Op
from hardware.local_station import (
    DEALER,
    DEALER_PIN,
    SUPERVISOR,
    SUPERVISOR_PIN,
    TABLE,
    LocalService,
    ShoeHandle,
    start_local_service,
)

__all__ = ["DEALER", "DEALER_PIN", "SUPERVISOR", "SUPERVISOR_PIN", "TABLE", "LocalStation", "start_local_station"]


@dataclass
class LocalStation:
    """A running service and the screen connected to it (what the tests drive)."""

    service: LocalService
    link: Any  # ui.common.service_link.ServiceLink
    screen: Any  # ui.dealer.app.ClientScreen
    closed: bool = False

    @property
    def controller(self) -> Any:
        return self.screen.controller

    @property
    def window(self) -> Any:
        return self.screen.window

    @property
    def sim(self) -> ShoeHandle:
        return self.service.sim

    @property
    def store_path(self) -> Path:
        return self.service.store_path

    @property
    def socket(self) -> Path:
        return self.service.socket

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.controller.close()
        self.window.close()
        self.service.stop()


def start_local_station(tmp_path: Path, index: int, setup: TableSetup | None, cards: list[Any], *, db: Path,
                        users: dict[str, tuple[str, list[str]]] | None = None, dealer: str = DEALER,
                        login: bool = True, codec: str = "da1") -> LocalStation:
    """Start the service on ``db`` (its socket and shoe ``index`` in ``tmp_path``; accounts from
    ``users``, else sue the supervisor and ann the dealer), the shoe dealing ``cards``, the
    screen with ``dealer`` logged in (``login`` False: nobody; ``users`` then are all the
    accounts, none when empty: a new store)."""
    from ui.common.service_link import ServiceLink
    from ui.dealer.app import build_client_screen

    service = start_local_service(tmp_path, index, setup, cards, db=db, users=users, dealer=dealer,
                                  with_accounts=login, codec=codec)
    try:
        link = ServiceLink(service.socket, "screen")
        if login:
            link.ask(Op.LOGIN, name=dealer, pin=service.accounts[dealer][0])
            if service.setup is not None:  # a supervisor's change under PIN, as on a station
                boss, pin = service.supervisor
                link.ask(Op.SET_TABLE, setup=setup_to_json(service.setup), pin={"user": boss, "pin": pin})
        screen = build_client_screen(link, None, service.socket)
        if login:
            screen.controller.start_shift(dealer)
    except Exception:
        service.stop()
        raise
    return LocalStation(service, link, screen)
