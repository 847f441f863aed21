"""Pay per hand on the layout (issue 24 item 3): each split hand's spot says what to pay,
collect or return to each player on it, and the dealer's list has a row per player and
area with each hand's amount and the total. Amounts worked out by hand from the rules."""

from __future__ import annotations

from collections.abc import Callable

from dealer_assist.engine.table_setup import TableSetup
from tests.ui.driving import TableDriver
from ui.common.round_view import hand_net

MakeTable = Callable[..., TableDriver]


def test_split_hands_are_paid_each_on_its_spot(make_table: MakeTable) -> None:
    # Lucky 8, alice 100 and bob 50 behind her on area 1. Deal: 8♥ (area 1), 6♦ (dealer), 8♠
    # (area 1): alice splits, bob matches his 50 on the new hand (3.24). Hand 1 takes 10♣ = 18,
    # stands; hand 2 takes 9♣ = 17, stands. Dealer 6 + 10♥ = 16 draws (3.34), A♠ = 17, stands.
    # Hand 1: 18 beats 17, even money (4.4): alice +100, bob +50. Hand 2: 17 against 17 is a
    # push, the wagers are returned: alice =100, bob =50. Totals: alice +100, bob +50.
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), "8H 6D 8S 10C 9C 10H AS")
    t.bet("alice", "main", [100], area=1)
    t.bet("bob", "main", [25, 25], area=1)
    t.press("no_more_bets")
    t.deal(3)
    assert t.controller.decide("split", area=1, hand=1, followers={"bob": "match"})
    t.settled_writes()
    t.deal(1)  # hand 1's second card
    t.press("stand")
    t.deal(1)  # hand 2's second card
    t.press("stand")
    t.deal(2)  # the dealer's
    assert t.controller.concluded
    # the tags are placed once the settled area is laid out (a zero-time timer after the cards)
    t.qtbot.waitUntil(lambda: all(h.pay.showing() for h in t.window.table_view.area_boxes[1].hand_boxes),
                      timeout=3000)
    box = t.window.table_view.area_boxes[1]
    hands = box.hand_boxes
    assert [h.pay_text() for h in hands] == [["alice +100", "bob +50"], ["alice =100", "bob =50"]]
    assert all(h.pay.showing() for h in hands)
    # each hand's net (the tag of a hand too narrow for each player's line): +100 + 50; both returned
    assert [h.hand.net for h in hands] == [("+150", "pay"), ("=150", "return")]
    assert hands[0].pay.font().pixelSize() >= 18  # read from two metres
    assert t.window.settlement.summary_rows() == [
        ("1", "alice", "H1 +100  H2 =100", "+100"),
        ("", "bob", "H1 +50  H2 =50", "+50"),
    ]


def test_interim_side_bet_then_final_on_the_hands_spot(make_table: MakeTable) -> None:
    # Lucky 8: alice main 100 and Pair 5 on area 1. 8♥ (area 1), 6♦ (dealer), 8♠ (area 1):
    # the Pair wins 11 to 1 (4.1) at the interim settlement: 5 × 11 = 55, on its wager row,
    # not on the hand (the hand is not settled yet). Alice stands on 16; dealer 6 + 10♣ = 16
    # draws, 4♠ = 20: the hand loses its 100 (4.4.1): its spot says alice −100.
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), "8H 6D 8S 10C 4S 2C")
    t.bet("alice", "main", [100], area=1)
    t.bet("alice", "pair", [5], area=1)
    t.press("no_more_bets")
    t.deal(3)
    t.press("stand")
    hand = t.window.table_view.area_boxes[1].hand_boxes[0]
    assert hand.pay_text() == [] and not hand.pay.showing()
    assert t.window.settlement.summary_rows() == [("1", "alice", "Pair +55", "+55")]
    t.deal(2)
    hand = t.window.table_view.area_boxes[1].hand_boxes[0]
    assert hand.pay_text() == ["alice \u2212100"]
    assert t.window.settlement.summary_rows() == [("1", "alice", "\u2212100  Pair +55", "\u221245")]


def test_a_hands_net_where_a_pay_and_a_collect_cancel() -> None:
    # one hand's spot: alice paid 100 (4.4), bob collected 100 (4.4.1): nothing changes hands
    # in sum, but that is not a return of the stakes (=): the net says ±0; no entry, no net
    entry = {"stage": "final", "hand": 1}
    entries = {"alice": [{**entry, "net": "100", "stake": "100", "result": "win", "rule": "4.4"}],
               "bob": [{**entry, "net": "-100", "stake": "100", "result": "lose", "rule": "4.4.1"}]}
    assert hand_net(entries) == ("\u00b10", "return")
    assert hand_net({"alice": entries["alice"], "bob": entries["alice"]}) == ("+200", "pay")
    assert hand_net({}) == ("", "")
