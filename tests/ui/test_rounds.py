"""A full round of each game through the real window, on the simulated shoe (fixed order).

Each test bets with the chip buttons, presses "No more bets", deals every card with the
simulated shoe's Deal button (the card travels pty -> driver -> signals -> engine ->
store -> screen), answers the prompt's buttons, and reads the settlement panel. The
expected amounts are worked out by hand from the rules in the comments.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from dealer_assist.engine.table_setup import TableSetup
from tests.ui.driving import TableDriver
from ui.common.cards import CardFace

MakeTable = Callable[..., TableDriver]


def test_ace_race_blackjack_pays_6_to_5(make_table: MakeTable) -> None:
    # Deal order 3.18: area 1, dealer, area 1. Alice: A♠ K♥ = Blackjack (1.1.1); dealer 9♦.
    # Ace Race pays Blackjack 6 to 5 (4.1): 100 × 6/5 = 120, won under 4.3.1. The dealer's
    # 9 cannot make a Blackjack, so the round ends at the interim settlement.
    t = make_table(TableSetup(game="ace_race", decks=6, areas=7, seated={"alice": 1}), "AS 9D KH 5C 5D")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal(3)
    assert t.window.prompt.headline.text() == "Round settled: pay and collect"
    assert t.settlement_rows() == [("alice", "1/1", "Main", "PAY 120", "4.3.1", "interim")]
    assert t.window.settlement.total_of("alice") == "PAY 120"
    t.screenshot("ace_race_blackjack")
    t.press("confirm")
    assert t.window.prompt.headline.text().startswith("Place wagers: ")
    # the round is in the recall of the last 10 rounds, with alice's +120
    t.qtbot.waitUntil(lambda: len(t.controller.recall) == 1, timeout=5000)
    t.qtbot.mouseClick(t.window.recall_button, Qt.MouseButton.LeftButton)
    assert t.window.recall_list.count() == 1
    assert t.window.recall_list.item(0).text().endswith("settled  alice +120")
    t.window.recall_list.setCurrentRow(0)
    assert t.window.recall_view.rows[0]["net"] == 120


def test_lucky8_pair_wins_main_loses(make_table: MakeTable) -> None:
    # Alice: main 100 and Pair 5 on area 1. Cards: 8♥ (area 1), 6♦ (dealer), 8♠ (area 1).
    # 8-8 is a Pair (1.1.9) and wins (3.15.1) at 11 to 1 by the pay table 4.1: 5 × 11 = 55, paid at the interim settlement,
    # which takes place when the offers close: at alice's first play decision (round-script "Phases").
    # Alice stands on 16. Dealer 6 + 10 = 16 draws (3.34: stands on 17 and above), 4 -> 20.
    # 20 beats 16: alice loses 100 (4.4.1). Alice's total: 55 − 100 = −45.
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), "8H 6D 8S 10C 4S 2C")
    t.bet("alice", "main", [100], area=1)
    t.bet("alice", "pair", [5], area=1)
    assert t.window.betting.slip.count() == 2
    t.press("no_more_bets")
    t.deal(3)
    assert t.settlement_rows() == []  # offers open: nothing settled yet
    assert set(t.window.prompt.buttons) >= {"hit", "stand", "double", "split"}
    t.screenshot("lucky8_decision")
    t.press("stand")
    assert t.settlement_rows() == [("alice", "1", "Pair", "PAY 55", "4.1", "interim")]
    assert t.window.settlement.title.text() == "Interim settlement"
    t.deal(2)
    assert t.settlement_rows() == [
        ("alice", "1", "Pair", "PAY 55", "4.1", "interim"),
        ("alice", "1/1", "Main", "COLLECT 100", "4.4.1", "final"),
    ]
    assert t.window.settlement.total_of("alice") == "COLLECT 45"


def test_star_elements_dealer_busts(make_table: MakeTable) -> None:
    # Star Elements cards: 10 Fire (area 1), 5 Water (dealer), Shou (K) Gold (area 1) = 20.
    # Alice stands. Dealer 5 + 10 Earth = 15, draws, + Fu (J) Wood = 25: the dealer busts and
    # alice wins even money: +100 (4.4.3 in Star Elements' numbering).
    t = make_table(TableSetup(game="star_elements", decks=6, areas=7, seated={"alice": 1}),
                   "10Fi 5Wa KGo 10Ea JWo 2Fi")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal(3)
    faces = t.window.table_view.area_boxes[1].findChildren(CardFace)
    assert [f.text for f in faces] == ["10Fi", "KGo"]
    t.screenshot("star_elements_decision")
    t.press("stand")
    t.deal(2)
    assert t.settlement_rows() == [("alice", "1/1", "Main", "PAY 100", "4.4.3", "final")]


def test_dueling8s_permanent_eight_hit_to_21(make_table: MakeTable) -> None:
    # Every hand starts with the printed 8♠ (1.1.4); the initial deal gives area 1 one card: 3♦
    # (8 + 3 = 11) and the dealer none. Alice hits: K♠ -> 21, which ends her hand. Dealer:
    # 8♠ + 7♦ = 15, + 9♣ = 24 busts. Alice wins even money: +100 (4.4.2 in Dueling 8's).
    t = make_table(TableSetup(game="dueling8s", decks=6, areas=7, seated={"alice": 1}), "3D KS 7D 9C 2C")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal(1)
    box = t.window.table_view.area_boxes[1]
    faces = box.findChildren(CardFace)
    assert [(f.text, f.printed) for f in faces] == [("8S", True), ("3D", False)]
    t.press("hit")
    t.deal(3)
    assert t.settlement_rows() == [("alice", "1/1", "Main", "PAY 100", "4.4.2", "final")]
    t.screenshot("dueling8s_settled")


def test_electronic_terminal_stands_and_wins(make_table: MakeTable) -> None:
    # Electronic: one shared Player hand; deal order Player, Dealer, Player (3.7).
    # Player 10♥ 9♠ = 19; dealer 7♣. Terminal t1 (main 100) stands; dealer 7 + 10♦ = 17 stands.
    # 19 beats 17: t1 wins even money, +100 (4.5.2 in Electronic's numbering).
    setup = TableSetup(game="electronic", decks=6, terminals=["t1", "t2"], decision_seconds=120)
    t = make_table(setup, "10H 7C 9S 10D 2C")
    t.bet("t1", "main", [100])
    t.press("no_more_bets")
    t.deal(3)
    panel = t.window.terminals
    assert set(o for (p, o) in panel.buttons if p == "t1") == {"hit", "stand", "double", "surrender"}
    t.screenshot("electronic_terminals")
    t.qtbot.mouseClick(panel.buttons[("t1", "stand")], Qt.MouseButton.LeftButton)
    t.settled_writes()
    t.deal(1)
    assert t.settlement_rows() == [("t1", "hand 1", "Main", "PAY 100", "4.5.2", "final")]
    # the details' first column names the shared hand's hands: no entry has an area
    assert t.window.settlement.table.horizontalHeaderItem(0).text() == "Hand"
    # the hand's own amount on the terminal, beside its total (issue 24 item 3)
    # (the panel's page is revealed one paint after the card: wait for that paint)
    t.qtbot.waitUntil(lambda: "hard 19  +100" in [w.text() for w in panel.findChildren(QLabel)
                                                  if w.isVisibleTo(t.window)], timeout=5000)


def test_electronic_terminal_time_out_plays_the_default_strategy(make_table: MakeTable) -> None:
    # The same cards as above, but t1 does not decide. The terminal's decision time (3.18) is
    # counted down by the station service's clock (the panel shows it); at 0 the service records
    # "timeout" and the default strategy plays t1: draw while hard <= 11 or soft <= 16, so
    # hard 19 stands. Dealer 7 + 10 = 17; 19 beats 17: +100 (4.5.2).
    setup = TableSetup(game="electronic", decks=6, terminals=["t1"], decision_seconds=5)  # the least (3.18.1)
    t = make_table(setup, "10H 7C 9S 10D 2C")
    t.bet("t1", "main", [100])
    t.press("no_more_bets")
    t.deal(3)
    panel = t.window.terminals
    t.qtbot.waitUntil(lambda: "t1" in panel.countdowns
                      and re.fullmatch(r"H1: [1-5] s left", panel.countdowns["t1"].text()) is not None,
                      timeout=5000)
    t.qtbot.waitUntil(lambda: t.controller.events[-1] == {"type": "timeout", "player": "t1"}, timeout=15000)
    t.deal(1)
    assert t.settlement_rows() == [("t1", "hand 1", "Main", "PAY 100", "4.5.2", "final")]


def test_split_with_a_follower_who_matches_and_a_double_for_less(make_table: MakeTable) -> None:
    # Lucky 8, area 2: alice sits there (controls, 3.11) with 50; bob's 25 is behind her.
    # Cards (3.18): 8♥ area 2, 7♦ dealer, 8♣ area 2. Alice splits; bob matches (3.24.1): 25 on hand 2.
    # Hand 1: 8♥ 3♠ = 11; alice doubles for 30 only (≤ her 50, 3.26; typed in the amount field),
    # bob adds nothing (3.26.6: still one card): 10♦ → 21. Hand 2: 8♣ 10♠ = 18, stands.
    # Dealer 7♦ 10♥ = 17 stands (3.34).
    # alice: hand 1 stake 80 wins 80 (4.3.2), hand 2 50 wins 50: +130. bob: hand 1 25 wins 25 (21 v 17),
    # hand 2 25 wins 25 (18 v 17): +50.
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 2}),
                   "8H 7D 8C 3S 10D 10S 10H 2C")
    t.bet("alice", "main", [25, 25], area=2)
    t.bet("bob", "main", [25], area=2)
    t.press("no_more_bets")
    t.deal(3)
    t.press("split")
    dialog = t.window.followers_dialog
    assert dialog is not None and set(dialog.answers) == {"bob"}
    assert dialog.question.text().endswith("(3.24)")  # Lucky 8's clause for the followers of a split
    assert not dialog.ok.isEnabled()  # nothing is decided for bob until he answers
    t.qtbot.mouseClick(dialog.buttons[("bob", "match")], Qt.MouseButton.LeftButton)
    t.qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    t.settled_writes()
    t.deal(1)  # 3♠ to hand 1
    t.window.decision_amount.setText("30")
    t.press("double")
    dialog = t.window.followers_dialog
    assert dialog.question.text().endswith("(3.26.5)")  # Lucky 8's for the followers of a double
    t.qtbot.mouseClick(dialog.buttons[("bob", "")], Qt.MouseButton.LeftButton)  # bob: no double
    t.qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    t.settled_writes()
    t.deal(2)  # 10♦ to hand 1 (21), 10♠ to hand 2
    t.press("stand")
    t.deal(1)  # the dealer's 10♥
    rows = t.settlement_rows()
    assert ("alice", "2/1", "Main", "PAY 80", "4.3.2", "final") in rows
    assert ("alice", "2/2", "Main", "PAY 50", "4.3.2", "final") in rows
    assert ("bob", "2/1", "Main", "PAY 25", "4.3.2", "final") in rows
    assert ("bob", "2/2", "Main", "PAY 25", "4.3.2", "final") in rows
    assert t.window.settlement.total_of("alice") == "PAY 130"
    assert t.window.settlement.total_of("bob") == "PAY 50"


def test_electronic_terminal_shows_its_insurance_before_it_is_settled(make_table: MakeTable) -> None:
    # Electronic: Player 10♥ 9♠, dealer A♣ (3.7). t1 (main 100) takes insurance at its terminal:
    # exactly half its wager, 50 (Electronic's insurance rule). Its box shows the 50 at once,
    # before the dealer's second card settles it (it is no settlement entry yet).
    setup = TableSetup(game="electronic", decks=6, terminals=["t1", "t2"], decision_seconds=120)
    t = make_table(setup, "10H AC 9S 5D")
    t.bet("t1", "main", [100])
    t.press("no_more_bets")
    t.deal(3)
    panel = t.window.terminals
    t.qtbot.waitUntil(lambda: ("t1", "insurance") in panel.buttons, timeout=5000)
    t.qtbot.mouseClick(panel.buttons[("t1", "insurance")], Qt.MouseButton.LeftButton)
    t.settled_writes()

    def shown() -> list[str]:  # a rebuilt terminal box is shown at the next turn of the event loop
        return [label.text() for label in panel.findChildren(QLabel) if label.isVisibleTo(panel)]

    t.qtbot.waitUntil(lambda: "Insur 50" in shown(), timeout=5000)
    assert not any(s["bet"] == "insurance" for s in t.controller.output()["settlements"])


def test_electronic_terminal_shows_the_cards_it_drew(make_table: MakeTable) -> None:
    # Electronic: shared Player 5♥ 6♠ = 11, dealer 7♣ (3.7). t1 hits and draws 9♦ for its own
    # hand: 5 + 6 + 9 = 20, shown as the card, not only the total; t1 stands.
    setup = TableSetup(game="electronic", decks=6, terminals=["t1"], decision_seconds=120)
    t = make_table(setup, "5H 7C 6S 9D 10D 2C")
    t.bet("t1", "main", [100])
    t.press("no_more_bets")
    t.deal(3)
    panel = t.window.terminals
    stand_at = panel.buttons[("t1", "stand")].geometry()
    t.qtbot.mouseClick(panel.buttons[("t1", "hit")], Qt.MouseButton.LeftButton)
    t.settled_writes()
    t.deal(1)
    # the choices keep their places (issue 24: they reflowed under the finger): Double is no
    # longer open after the hit, its button stays where it was, disabled
    assert panel.buttons[("t1", "stand")].geometry() == stand_at
    assert ("t1", "double") not in panel.buttons and not panel.slots["double"].isEnabled()
    # still t1's turn: it may hit again (shown one paint after the card: wait for that paint)
    t.qtbot.waitUntil(lambda: "\u25b6 + 9\u2666 = hard 20" in [
        w.text() for w in panel.findChildren(QLabel) if w.isVisibleTo(t.window)], timeout=5000)
