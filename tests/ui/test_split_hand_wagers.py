"""Side bets on a split hand from the screen (issue 24 item 4): the Ace Race wager on split
Aces (Ace Race 3.21.1) and Tie on 18 on a split hand (Dueling 8's 3.23.1); the engine
accepts or refuses each with its clause."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt

from dealer_assist.engine.table_setup import TableSetup
from tests.ui.driving import TableDriver
from ui.dealer.main_window import SplitWagerDialog

MakeTable = Callable[..., TableDriver]
LEFT = Qt.MouseButton.LeftButton


def open_dialog(t: TableDriver) -> SplitWagerDialog:
    t.press("split_wager")
    dialog = t.window.split_wager_dialog
    assert isinstance(dialog, SplitWagerDialog)
    t.qtbot.waitUntil(dialog.isVisible, timeout=2000)
    return dialog


def test_ace_race_wager_on_split_aces(make_table: MakeTable) -> None:
    # Ace Race, alice 100 on area 1: A♠ (area 1), 9♦ (dealer), A♥ (area 1). She splits the
    # Aces and, before any further card, places an Ace Race wager of 10 on the second hand (3.21.1).
    t = make_table(TableSetup(game="ace_race", decks=6, areas=7, seated={"alice": 1}), "AS 9D AH 5C 6C 7C 8C")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal(3)
    assert "split_wager" not in t.window.prompt.buttons  # no split hand yet
    t.press("split")
    dialog = open_dialog(t)
    assert sorted(dialog.hand_buttons) == [(1, 1), (1, 2)]
    t.qtbot.mouseClick(dialog.hand_buttons[(1, 2)], LEFT)
    assert dialog.player == "alice" and dialog.bet == "ace_race"  # the only ones: chosen
    t.qtbot.mouseClick(dialog.chip_buttons[0], LEFT)  # +5
    t.qtbot.mouseClick(dialog.chip_buttons[0], LEFT)
    t.qtbot.keyClick(dialog, Qt.Key.Key_Return)  # Enter places it
    t.settled_writes()
    assert {"type": "wager", "player": "alice", "bet": "ace_race", "amount": 10, "area": 1, "hand": 2} \
        in t.controller.events
    # after hand 1's next card the wager is refused, named by its clause, and nothing changes
    t.deal(1)
    before = list(t.controller.events)
    dialog = open_dialog(t)
    t.qtbot.mouseClick(dialog.hand_buttons[(1, 1)], LEFT)
    t.qtbot.mouseClick(dialog.chip_buttons[0], LEFT)
    t.qtbot.mouseClick(dialog.ok, LEFT)
    assert t.controller.events == before
    assert "before any subsequent card" in t.window.refusal.text() and "3.21.1" in t.window.refusal.text()


def test_tie_on_18_on_a_split_hand(make_table: MakeTable) -> None:
    # Dueling 8's, alice main 100 and Tie on 18 10 on area 1. Her hand is the printed 8♠ and
    # 8♥: she splits the 8's, and before the second hand's next card places another Tie on 18
    # of 10 on it (3.23.1: she had one before the initial deal).
    t = make_table(TableSetup(game="dueling8s", decks=6, areas=7, seated={"alice": 1}),
                   "8H 5C 6C 7C 9C 10C 2C 3C")
    t.bet("alice", "main", [100], area=1)
    t.bet("alice", "tie18", [5, 5], area=1)
    t.press("no_more_bets")
    t.deal(1)
    t.press("split")
    dialog = open_dialog(t)
    t.qtbot.mouseClick(dialog.hand_buttons[(1, 2)], LEFT)
    assert dialog.bet == "tie18"
    t.qtbot.mouseClick(dialog.chip_buttons[0], LEFT)
    t.qtbot.mouseClick(dialog.chip_buttons[0], LEFT)
    t.qtbot.mouseClick(dialog.ok, LEFT)
    t.settled_writes()
    assert {"type": "wager", "player": "alice", "bet": "tie18", "amount": 10, "area": 1, "hand": 2} \
        in t.controller.events
    assert t.window.refusal.isHidden()
