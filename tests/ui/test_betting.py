"""Betting through the window: the slip, and a side-bet slot claim resolved by the program."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from dealer_assist.engine.table_setup import TableSetup
from tests.ui.driving import TableDriver

MakeTable = Callable[..., TableDriver]


def test_pair_slot_claim_granted_by_distance(make_table: MakeTable) -> None:
    # Lucky 8: three Pair wagers per area (3.17.1). Alice (area 1) holds one, so two are free.
    # Dan, bob, erin and carol claim them (chips in that order), without agreeing. No claimant
    # has a main wager on area 1; bob's main wager is on area 2 (distance 1), erin's on area 4
    # (distance 3): the nearest area first (3.17.2.2) gives bob and erin the two slots. Dan and
    # carol have no wager in the round (3.17.2.5) and come after them: refused.
    setup = TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1, "bob": 2, "erin": 4})
    t = make_table(setup, "2C 3C 4C")
    t.bet("alice", "main", [100], area=1)
    t.bet("alice", "pair", [5], area=1)
    t.bet("bob", "main", [25, 25], area=2)
    t.bet("erin", "main", [25, 25], area=4)
    panel = t.window.betting
    panel.set_area(1)
    t.qtbot.mouseClick(panel.bet_buttons["pair"], Qt.MouseButton.LeftButton)
    t.qtbot.mouseClick(panel.claim_button, Qt.MouseButton.LeftButton)
    dialog = panel.dialog
    assert dialog is not None and "3.17.2" in dialog.findChildren(QLabel)[0].text()
    dialog.field.setText("dan=10, bob=10, erin=10, carol=10")
    t.qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    assert t.window.ruling_panel.body.text() == "<b>3.17.2.2</b> claim: granted bob, erin; refused dan, carol"
    sides = [(s.player, s.bet, s.amount) for s in t.controller.rnd.view().area(1).sides]
    assert sorted(sides) == [("alice", "pair", 5), ("bob", "pair", 10), ("erin", "pair", 10)]
    # Before "no more bets" a wager can be removed from the slip: erin's main wager goes. The
    # claim is decided again on what is now on the layout: erin has no wager any more, so after
    # bob (3.17.2.2) the players without a wager are served in the order their chips went
    # down (3.17.2.5): dan, then erin, then carol. One slot left: dan. (Names are listed in the
    # order of the claim.)
    panel.slip.setCurrentRow(3)
    t.qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    assert not t.controller.rnd.view().area(4).wagers
    assert t.window.ruling_panel.body.text() == "<b>3.17.2.5</b> claim: granted dan, bob; refused erin, carol"
    sides = [(s.player, s.bet, s.amount) for s in t.controller.rnd.view().area(1).sides]
    assert sorted(sides) == [("alice", "pair", 5), ("bob", "pair", 10), ("dan", "pair", 10)]
    t.screenshot("betting_claim")
