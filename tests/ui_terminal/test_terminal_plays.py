"""The player wagers and decides at the terminal itself (issue 38 build 2; 3.1, 3.9, 3.17).

The service accepts a terminal's own `wager` and `decide` for its seat and puts the decision
time (`seconds_left`, `deadline`) in the view's `next` (3.17): the countdown is shown.

The shoe's order 10S 9H QD 8C (3.7). t1 holds the 5 chip and touches Main twice and Royal
Match 21 once, then Place bet: 10 on the main wager, 5 on Royal Match. 10S QD = 20 against
the dealer's 9; t1 touches Stand; Royal Match loses 5 (4.3: not suited); the dealer's 9 8 =
17 stands (3.19); 20 beats 17, the main wager wins 10 (4.5.2): net +5. Then Repeat bet builds
the same bet for the next round.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.ui_terminal.terminal_table import TerminalTable

CARDS = "10S 9H QD 8C 5D 7H 6S"


@pytest.fixture
def table(qtbot: Any, tmp_path: Path) -> Iterator[TerminalTable]:
    t = TerminalTable(tmp_path, CARDS)
    yield t
    t.close()


def test_the_player_bets_and_decides_at_the_terminal(qtbot: Any, table: TerminalTable) -> None:
    w = table.open_window((1024, 768))
    qtbot.waitUntil(lambda: "main" in w.bets.spots and 5 in w.chips.buttons, timeout=15000)
    qtbot.mouseClick(w.chips.buttons[5], Qt.MouseButton.LeftButton)
    for bet in ("main", "main", "royal_match"):
        qtbot.mouseClick(w.bets.spots[bet], Qt.MouseButton.LeftButton)
    assert table.controller.building == {"main": Decimal(10), "royal_match": Decimal(5)}
    assert w.bets.spots["main"].amount.text() == "+ 10 to place"
    qtbot.mouseClick(w.place_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: table.controller.sending == 0, timeout=15000)
    assert w.refusal.text() == ""
    qtbot.waitUntil(lambda: w.bets.spots["main"].amount.text() == "Bet 10", timeout=15000)
    assert w.bets.spots["royal_match"].amount.text() == "Bet 5"
    assert w.meter.text() == "Credits 485"  # 500 bought, 10 + 5 placed from it (1.1.10)
    wagers = [e for e in table.screen.request("state")["slip"]]
    assert [(e["player"], e["bet"], e["amount"]) for e in wagers] == [("t1", "main", 10), ("t1", "royal_match", 5)]

    table.deal(3)
    qtbot.waitUntil(lambda: "stand" in w.hands.options, timeout=15000)
    qtbot.waitUntil(lambda: w.hands.countdown.isVisible(), timeout=15000)  # the time the service gives (3.17)
    seconds = int(w.hands.countdown.text().removesuffix(" s"))
    assert 0 <= seconds <= 20  # the table's decision time (TableSetup.decision_seconds, 3.18)
    qtbot.mouseClick(w.hands.options["stand"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not w.hands.options, timeout=15000)
    decided = [e for e in table.screen.request("state")["events"] if e["type"] == "decision"]
    assert decided == [{"type": "decision", "action": "stand", "hand": 1, "player": "t1"}]
    table.deal(1)
    qtbot.waitUntil(lambda: bool(table.controller.view.get("concluded")), timeout=15000)
    assert w.bets.spots["main"].amount.text() == "WIN +10"
    assert w.bets.spots["royal_match"].amount.text() == "LOSE \u22125"
    assert w.net.text() == "Net +5"
    # the main wager's 10 and its 10 won back, Royal Match's 5 lost: 485 + 20 = 505 = 500 + 5
    qtbot.waitUntil(lambda: w.meter.text() == "Credits 505", timeout=15000)

    table.screen.request("next_round")
    qtbot.waitUntil(lambda: w.banner.text() == "Place your bets", timeout=15000)
    qtbot.mouseClick(w.repeat_button, Qt.MouseButton.LeftButton)
    assert table.controller.building == {"main": Decimal(10), "royal_match": Decimal(5)}
    qtbot.mouseClick(w.clear_button, Qt.MouseButton.LeftButton)
    assert table.controller.building == {}


def test_cash_out_at_the_terminal_writes_the_voucher_and_zeroes_the_meter(qtbot: Any, table: TerminalTable) -> None:
    # 1.1.10: the player cashes out at the terminal. With a wager in play the service says it
    # may not (the button is off); between rounds the whole meter, 500, goes on a voucher.
    w = table.open_window((1024, 768))
    qtbot.waitUntil(lambda: w.meter.text() == "Credits 500", timeout=15000)
    assert w.cash_out_button.isEnabled() and not w.voucher.isVisible()
    qtbot.waitUntil(lambda: "main" in w.bets.spots and 5 in w.chips.buttons, timeout=15000)
    qtbot.mouseClick(w.chips.buttons[5], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(w.bets.spots["main"], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(w.place_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: w.meter.text() == "Credits 495", timeout=15000)
    assert not w.cash_out_button.isEnabled()  # the service says no cash-out with a wager in play
    table.connect().request("withdraw")  # 5.4: taken back before "No more bets": 495 + 5 = 500
    qtbot.waitUntil(lambda: w.meter.text() == "Credits 500", timeout=15000)
    qtbot.waitUntil(lambda: w.cash_out_button.isEnabled(), timeout=15000)
    qtbot.mouseClick(w.cash_out_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: w.meter.text() == "Credits 0", timeout=15000)
    qtbot.waitUntil(lambda: w.voucher.isVisible(), timeout=15000)
    (voucher,) = table.station.running.store.vouchers()
    assert w.voucher.text().startswith(f"Voucher {voucher.validation}  \u00b7  500  \u00b7  seat T1")
    assert not w.cash_out_button.isEnabled()


def test_an_overridden_terminal_shows_the_dealer_deciding_and_offers_no_choice(qtbot: Any,
                                                                                table: TerminalTable) -> None:
    # 3.17: a supervisor overrode t1's terminal for the round; the dealer enters its decisions
    # and wagers (the service refuses the terminal's own: tests/service/test_terminal_override.py).
    # The window says so, offers no choice and no chip, and still shows the decision's time.
    # Cards 10S 9H QD 8C: 20 against 9; the dealer stands for t1; 9 8 = 17 stands (3.19); the
    # main wager's 10 wins 10 (4.5.2).
    w = table.open_window((1024, 768))
    qtbot.waitUntil(lambda: "main" in w.bets.spots and 5 in w.chips.buttons, timeout=15000)
    assert not w.override_notice.isVisible()
    table.override()
    qtbot.waitUntil(lambda: w.override_notice.isVisible(), timeout=15000)
    assert w.override_notice.text().startswith("Supervisor sue has overridden this terminal for this round")
    assert "(3.17)" in w.override_notice.text()
    assert w.banner.text() == "Place your bets"  # the bets are open, for the dealer to place t1's
    assert not any(b.isEnabled() for b in w.chips.buttons.values())
    assert not any(s.isEnabled() for s in w.bets.spots.values()) and not w.place_button.isEnabled()
    table.screen.request("wager", player="t1", bet="main", amount=10)  # the dealer, as t1's player says
    table.deal(3)
    qtbot.waitUntil(lambda: table.controller.pending is not None, timeout=15000)
    qtbot.waitUntil(lambda: w.hands.countdown.isVisible(), timeout=15000)  # its decision time still runs (3.17)
    assert w.hands.options == {}  # no choice of its own
    assert w.hands.prompt.text() == "The dealer enters your decision on hand 1 (3.17)"
    table.screen.request("decide", player="t1", action="stand", hand=1)
    table.deal(1)
    qtbot.waitUntil(lambda: bool(table.controller.view.get("concluded")), timeout=15000)
    assert w.bets.spots["main"].amount.text() == "WIN +10"
    table.screen.request("next_round")  # the override was for that round
    qtbot.waitUntil(lambda: not w.override_notice.isVisible() and w.chips.buttons[5].isEnabled(), timeout=15000)
