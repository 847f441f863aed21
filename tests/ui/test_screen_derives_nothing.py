"""The screen never works out again what the service computed (issue 33 build 4): once the
bets are closed, the dealer's screen builds no table session and no engine round, applies no
event and settles nothing; it draws the picture the service's engine made of the round
(engine/picture.py). Played through the real window and a real station service (in this
process, on its own threads): every engine call made on the GUI thread while the round is
open is recorded, and there must be none. Before the bets close the screen's own engine
checks each wager of the slip as it is placed (allowed: the service has no round yet).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt

from dealer_assist.engine.electronic import ElectronicRound
from dealer_assist.engine.session import TableSession
from dealer_assist.engine.table import TableRound
from dealer_assist.engine.table_setup import TableSetup
from tests.ui.driving import TableDriver

MakeTable = Callable[..., TableDriver]

# what re-deriving the round would call: a session built or restored, an event applied, the
# round asked for its layout, expectation or settle report
WATCHED = [(TableSession, "__init__"), (TableSession, "restore"), (TableSession, "apply"),
           (TableSession, "set_slip"),
           *((cls, name) for cls in (TableRound, ElectronicRound)
             for name in ("apply", "apply_all", "report", "view", "expectation", "status"))]


class GuiThreadCalls:
    """Records each watched engine call made on the GUI thread while ``on``."""

    def __init__(self) -> None:
        self.on = False
        self.calls: list[str] = []


@pytest.fixture
def engine_on_gui_thread(monkeypatch: pytest.MonkeyPatch) -> Iterator[GuiThreadCalls]:
    spy = GuiThreadCalls()
    for cls, name in WATCHED:
        real = getattr(cls, name)

        def watched(self: Any, *args: Any, _real: Any = real, _name: str = f"{cls.__name__}.{name}",
                    **kw: Any) -> Any:
            if spy.on and threading.current_thread() is threading.main_thread():
                spy.calls.append(_name)
            return _real(self, *args, **kw)

        monkeypatch.setattr(cls, name, watched)
    yield spy


def test_a_table_round_is_drawn_from_the_services_picture_only(
        make_table: MakeTable, engine_on_gui_thread: GuiThreadCalls) -> None:
    # Lucky 8, alice 100 on area 1. Cards: 8H (area 1), 6D (dealer), 5S (area 1): 13. The next
    # card, 3C, comes out before any decision: an implied hit (tentative until the next input,
    # 3.26.4), 16. Alice stands; the dealer takes the stand back with Undo (before the next
    # card, the dealer may), and she stands again. Dealer 6 + 10C = 16 draws (3.34), 4S: 20.
    # 20 beats 16: alice loses her 100 (4.4.1), collected at the final settlement.
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), "8H 6D 5S 3C 10C 4S 2C")
    t.bet("alice", "main", [100], area=1)
    engine_on_gui_thread.on = True
    t.press("no_more_bets")
    t.deal(4)
    assert t.controller.implied  # the hit's card, tentative on the screen as the service holds it
    assert t.controller.current.view().area(1).hands[0].cards == ("8H", "5S", "3C")
    t.press("stand")
    t.qtbot.keyClick(t.window, Qt.Key.Key_Z)  # undo: the stand is taken back
    t.qtbot.waitUntil(lambda: t.controller.last_undo.startswith("Taken back: stand"), timeout=5000)
    t.press("stand")
    t.deal(2)
    assert t.controller.concluded
    assert t.settlement_rows() == [("alice", "1/1", "Main", "COLLECT 100", "4.4.1", "final")]
    assert t.window.settlement.total_of("alice") == "COLLECT 100"
    engine_on_gui_thread.on = False
    assert engine_on_gui_thread.calls == []
    t.press("confirm")  # the next round's slip: the screen's own check of each wager again
    assert t.controller.betting


def test_an_electronic_round_is_drawn_from_the_services_picture_only(
        make_table: MakeTable, engine_on_gui_thread: GuiThreadCalls) -> None:
    # Electronic: one shared Player hand; deal order Player, Dealer, Player (3.7). Player
    # 10H 9S = 19; dealer 7C. Terminal t1 (main 100) stands at its terminal box; dealer
    # 7 + 10D = 17 stands. 19 beats 17: t1 wins even money, +100 (4.5.2).
    setup = TableSetup(game="electronic", decks=6, terminals=["t1", "t2"], decision_seconds=120)
    t = make_table(setup, "10H 7C 9S 10D 2C")
    t.bet("t1", "main", [100])
    engine_on_gui_thread.on = True
    t.press("no_more_bets")
    t.deal(3)
    panel = t.window.terminals
    assert set(o for (p, o) in panel.buttons if p == "t1") == {"hit", "stand", "double", "surrender"}
    t.qtbot.mouseClick(panel.buttons[("t1", "stand")], Qt.MouseButton.LeftButton)
    t.settled_writes()
    t.deal(1)
    assert t.settlement_rows() == [("t1", "hand 1", "Main", "PAY 100", "4.5.2", "final")]
    assert t.controller.concluded
    engine_on_gui_thread.on = False
    assert engine_on_gui_thread.calls == []
