"""A station service with its terminal endpoint on loopback (real TLS), an Electronic
Blackjack table set up by a supervisor through a dealer's screen, and terminal t1 paired
with `dealer-assist terminal --pair` (tests/service/test_terminals.py's set-up), t1 and t2
(or the seats ``credited``) with 500 of credits each, then the
terminal's real window on it (offscreen). Used by tests/ui_terminal/ and by
scripts/shot_terminal.py."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from decimal import Decimal  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import ui.common.qtfix  # noqa: E402, F401  (before any Qt call: keeps PySide6 6.12 from aborting CPython 3.11)
from dealer_assist.engine.table_setup import TableSetup, setup_to_json  # noqa: E402
from dealer_assist.service.terminal_client import TerminalConnection  # noqa: E402
from tests.service.conftest import make_shoe, wait_connected  # noqa: E402
from tests.service.test_terminals import SUE, TerminalStation, paired  # noqa: E402

SEAT = "t1"
LIMITS = {"main": [Decimal(5), Decimal(1000)], "royal_match": [Decimal(1), Decimal(100)],
          "kings_bounty": [Decimal(1), Decimal(25)]}  # bet_the_set: none set
CHIPS = [5, 25, 100, 500]
BOUGHT = 500  # each terminal's credits at the start
SIZES = [(1024, 768), (1280, 800), (1920, 1080)]


class TerminalTable:
    """The station, the dealer's screen (a service client) and t1's terminal directory."""

    def __init__(self, tmp: Path, cards: str, decision_seconds: int = 20,
                 credited: tuple[str, ...] = (SEAT, "t2")) -> None:
        self.tmp = tmp
        self.station = TerminalStation(tmp / "state", tmp / "run" / "station.sock", make_shoe(cards))
        self.station.start()
        wait_connected(self.station)
        self.screen = self.station.dealer()
        setup = TableSetup(game="electronic", decks=6, limits=dict(LIMITS), terminals=[SEAT, "t2"], chips=CHIPS,
                           decision_seconds=decision_seconds)
        self.screen.request("set_table", setup=setup_to_json(setup), pin=SUE)
        for seat in credited:  # 1.1.10: credits bought at the dealer's screen, a supervisor's PIN
            self.screen.request("buy_in", seat=seat, amount=BOUGHT, pin=SUE)
        self.directory = tmp / SEAT
        self.first = paired(self.station, SEAT, self.directory)
        self.window: Any = None
        self.link: Any = None

    def connect(self) -> TerminalConnection:
        return TerminalConnection("127.0.0.1", self.station.port, self.directory)

    def open_window(self, size: tuple[int, int]) -> Any:
        from ui.terminal.controller import TerminalController
        from ui.terminal.link import TerminalLink
        from ui.terminal.window import TerminalWindow

        self.link = TerminalLink(self.first, self.connect)
        self.controller = TerminalController(self.link)
        self.window = TerminalWindow(self.controller, self.link.table_name)
        self.window.resize(*size)
        self.window.show()
        self.link.start()
        return self.window

    def override(self) -> None:
        """A supervisor's override of t1's terminal for this round: the dealer's screen may then
        enter t1's decisions (issue 38 build 5; otherwise refused naming 3.17)."""
        self.screen.request("terminal_override", seat=SEAT, pin=SUE)

    def buy_in(self, seat: str = SEAT, amount: int = BOUGHT) -> None:
        """Credits bought for ``seat`` at the dealer's screen under a supervisor's PIN (1.1.10)."""
        self.screen.request("buy_in", seat=seat, amount=amount, pin=SUE)

    def deal(self, count: int) -> dict[str, Any]:
        """``count`` cards out of the shoe, taken by the service (tests/service/conftest.py)."""
        return self.station.deal(self.screen, count)

    def close(self) -> None:
        from ui.common.style import set_scale

        if self.link is not None:
            self.link.close()
        if self.window is not None:
            self.window.close()
            self.window.deleteLater()
        set_scale(1.0)
        self.station.stop()
        self.station.sim.close()


def wait_for(app_process: Callable[[], None], check: Callable[[], bool], what: str, seconds: float = 15) -> None:
    """Process Qt events until ``check()`` (a liveness bound, not a timing assertion)."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not shown within {seconds} s: {what}")
        app_process()
        time.sleep(0.01)
