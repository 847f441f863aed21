"""Bets by touch (issue 24 item 2): area, player and bet as large toggles, the table's own
chip values, the keyboard for every step, the last round's wagers repeated for the whole
table or one player, an area cleared; no drop-down list on the betting panel."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox

from dealer_assist.engine.table_setup import TableSetup
from tests.ui.driving import TableDriver

MakeTable = Callable[..., TableDriver]
LEFT = Qt.MouseButton.LeftButton


def wager(player: str, bet: str, amount: int, area: int) -> dict[str, object]:
    return {"type": "wager", "player": player, "bet": bet, "amount": amount, "area": area}


def test_tap_area_player_bet_and_the_tables_own_chips(make_table: MakeTable) -> None:
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1, "bob": 2},
                              chips=[10, 20, 50]), "8H 6D 8S 10C")
    panel = t.window.betting
    assert [b.text() for b in panel.chip_buttons] == ["+10", "+20", "+50"]  # one row (issue 34)
    assert [b.toolTip() for b in panel.chip_buttons] == ["key: F1", "key: F2", "key: F3"]
    assert sorted(panel.area_buttons) == [1, 2, 3, 4, 5, 6, 7]
    assert [w for w in t.window.findChildren(QComboBox) if w.isVisibleTo(t.window)] == []
    # touch: area 2 offers its seated player, chosen; a new player behind him by name (Enter keeps it)
    t.qtbot.mouseClick(panel.area_buttons[2], LEFT)
    assert list(panel.player_buttons) == ["bob"]
    assert panel.player_buttons["bob"].isChecked()
    t.qtbot.mouseClick(panel.new_player, LEFT)
    dialog = panel.dialog
    t.qtbot.waitUntil(dialog.isVisible, timeout=2000)
    t.qtbot.keyClicks(dialog.field, "cy")
    t.qtbot.keyClick(dialog.field, Qt.Key.Key_Return)
    assert not dialog.isVisible() and dialog.result() == dialog.DialogCode.Accepted
    assert list(panel.player_buttons) == ["bob", "cy"] and panel.player_buttons["cy"].isChecked()
    t.qtbot.mouseClick(panel.bet_buttons["main"], LEFT)
    for _ in range(2):
        t.qtbot.mouseClick(panel.chip_buttons[2], LEFT)  # +50 twice
    t.qtbot.mouseClick(panel.place_button, LEFT)
    assert t.controller.slip == [wager("cy", "main", 100, 2)]
    # keys: Ctrl+1 area 1 (alice), Shift+F1 main, F2 F2 F1 = 50, Enter; Shift+F2 pair, F1 = 10, Enter
    t.window.activateWindow()
    t.qtbot.waitUntil(t.window.isActiveWindow, timeout=2000)
    keys = [(Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier), (Qt.Key.Key_F1, Qt.KeyboardModifier.ShiftModifier),
            (Qt.Key.Key_F2, None), (Qt.Key.Key_F2, None), (Qt.Key.Key_F1, None), (Qt.Key.Key_Return, None),
            (Qt.Key.Key_F2, Qt.KeyboardModifier.ShiftModifier), (Qt.Key.Key_F1, None), (Qt.Key.Key_Return, None)]
    for key, mod in keys:
        t.qtbot.keyClick(t.window, key, mod or Qt.KeyboardModifier.NoModifier)
    assert t.controller.slip == [wager("cy", "main", 100, 2), wager("alice", "main", 50, 1),
                                 wager("alice", "pair", 10, 1)]
    assert panel.bet_buttons["pair"].isChecked() and not panel.bet_buttons["main"].isChecked()
    # Alt+2: the second player of the chosen area (area 2: cy) by key
    t.qtbot.keyClick(t.window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    t.qtbot.keyClick(t.window, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    assert panel.player_name() == "cy"
    # Clear area (Ctrl+Delete) on area 1 removes alice's two wagers only
    t.qtbot.keyClick(t.window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    t.qtbot.keyClick(t.window, Qt.Key.Key_Delete, Qt.KeyboardModifier.ControlModifier)
    assert t.controller.slip == [wager("cy", "main", 100, 2)]


def test_repeat_last_rounds_wagers_for_the_table_or_one_player(make_table: MakeTable) -> None:
    # Ace Race, deal order 3.18: area 1, area 3, dealer, area 1, area 3. A♠ K♥ and A♥ K♠: both
    # Blackjacks; the dealer's 9 cannot make one, so the round ends at the interim settlement.
    t = make_table(TableSetup(game="ace_race", decks=6, areas=7, seated={"alice": 1, "bob": 3}),
                   "AS AH 9D KH KS 5C 5D")
    panel = t.window.betting
    assert not panel.repeat_all_button.isEnabled()  # nothing to repeat before a first round
    t.bet("alice", "main", [100], area=1)
    t.bet("bob", "main", [25, 25], area=3)
    t.bet("carl", "main", [5], area=3)  # a new name on bob's area (3.9: behind the box)
    first = list(t.controller.slip)
    assert first == [wager("alice", "main", 100, 1), wager("bob", "main", 50, 3), wager("carl", "main", 5, 3)]
    t.press("no_more_bets")
    t.deal(5)
    t.press("confirm")
    assert t.controller.betting and t.controller.slip == []
    # the whole table again, in one step
    assert panel.repeat_all_button.isEnabled()
    t.qtbot.mouseClick(panel.repeat_all_button, LEFT)
    assert t.controller.slip == first
    # carl is offered on area 3 (he bet there last round); Clear area 3, then repeat carl's only
    t.qtbot.mouseClick(panel.area_buttons[3], LEFT)
    assert list(panel.player_buttons) == ["bob", "carl"]
    t.qtbot.mouseClick(panel.clear_area_button, LEFT)
    assert t.controller.slip == [wager("alice", "main", 100, 1)]
    t.qtbot.mouseClick(panel.player_buttons["carl"], LEFT)
    t.qtbot.mouseClick(panel.repeat_player_button, LEFT)
    assert t.controller.slip == [wager("alice", "main", 100, 1), wager("carl", "main", 5, 3)]
