"""Electronic Blackjack: one shared Player hand, terminals deciding for themselves.

Deal: Player, Dealer, Player (3.7). Subsequent cards form one stream that each terminal's
hands use in order, only as far as its own decisions need (3.13.1, 3.18.2); the dealer's
cards come when every terminal is resolved (3.19).
"""

from __future__ import annotations

import pytest

from tests.engine.helpers import NMB, bet, cards, entries, one, refusal, settle, table


def decide(player: str, action: str, hand: int | None = None, **kw: object) -> dict[str, object]:
    ev: dict[str, object] = {"type": "decision", "player": player, "action": action}
    if hand is not None:
        ev["hand"] = hand
    ev.update(kw)
    return ev


def timeout(player: str) -> dict[str, object]:
    return {"type": "timeout", "player": player}


def test_one_terminals_split_draws_a_card_another_terminal_then_uses() -> None:
    # Shared 8♠ 8♦ against a dealer 6♥.
    # t1 stands on 16. t2 splits: its hand 1 needs the first stream card, 3♣ (8 3 = 11).
    # t3 then hits and takes that same 3♣ without a new card being drawn: 8 8 3 = 19, stands.
    # t2 doubles hand 1: 9♥ → 20. Hand 2 takes the next stream card 10♣: 8 10 = 18, stands.
    # Dealer: 6♥ 10♦ = 16 draws, 7♣ → 23 busts.
    # t1 +10, t2 +20 (doubled 20) +10, t3 +10.
    doc = table(
        "electronic", bet("t1", 10), bet("t2", 10), bet("t3", 10), NMB, *cards("8S", "6H", "8D"),
        decide("t1", "stand"), decide("t2", "split"), *cards("3C"),
        decide("t3", "hit"),
    )
    mid = settle(doc)
    # t3's hit used the 3♣ already drawn: no new card is expected for t3, only its decision.
    assert [p["cards"] for p in mid["players"][2]["hands"]] == [["8S", "8D", "3C"]]
    assert mid["next"]["expect"] == "decisions"
    assert {p["player"] for p in mid["next"]["pending"]} == {"t2", "t3"}
    doc["events"] += [decide("t3", "stand"), decide("t2", "double", 1), *cards("9H", "10C"),
                      decide("t2", "stand", 2), *cards("10D", "7C")]
    out = settle(doc)
    assert out["status"] == "settled"
    assert out["dealer"] == {"cards": ["6H", "10D", "7C"], "total": 23}
    hands = {p["player"]: [h["cards"] for h in p["hands"]] for p in out["players"]}
    assert hands == {
        "t1": [["8S", "8D"]],
        "t2": [["8S", "3C", "9H"], ["8D", "10C"]],
        "t3": [["8S", "8D", "3C"]],
    }
    assert out["net"] == {"t1": 10, "t2": 30, "t3": 10}
    assert {e["rule"] for e in entries(out, bet="main")} == {"4.5.3"}


def test_card_is_drawn_only_when_a_terminal_needs_one_it_has_not_seen() -> None:
    doc = table("electronic", bet("t1", 10), bet("t2", 10), NMB, *cards("5S", "9H", "6D"),
                decide("t1", "hit"))
    out = settle(doc)
    assert out["next"] == {"expect": "card", "for": "players", "waiting": ["t1"]}


def test_even_money_insurance_exactly_half_and_blackjack_push() -> None:
    # Shared A♠ K♦ against a dealer A♥. t1 takes even money: +10 at once (3.10.1).
    # t2 insures 5 (exactly 50%, 1.1.8) and stands; t3 times out (3.18).
    # The dealer's 10♠ makes a blackjack: t2's insurance wins 10 (2 to 1), its blackjack stands off.
    doc = table("electronic", bet("t1", 10), bet("t2", 10), bet("t3", 10), NMB, *cards("AS", "AH", "KD"),
                decide("t1", "even_money"), decide("t2", "insurance", amount=5), decide("t2", "stand"),
                timeout("t3"), *cards("10S"))
    out = settle(doc)
    e = one(out, "t1", "main")
    assert (e["result"], e["net"], e["rule"], e["stage"]) == ("even_money", 10, "3.10.1", "interim")
    ins = one(out, "t2", "insurance")
    assert (ins["result"], ins["net"], ins["rule"]) == ("win", 10, "4.1")
    assert (one(out, "t2", "main")["result"], one(out, "t2", "main")["rule"]) == ("push", "4.8.2")
    assert one(out, "t3", "main")["result"] == "push"
    assert out["net"] == {"t1": 10, "t2": 10, "t3": 0}


def test_insurance_must_be_exactly_half() -> None:
    doc = table("electronic", bet("t1", 10), NMB, *cards("9S", "AH", "7D"), decide("t1", "insurance", amount=4))
    assert "(1.1.8)" in refusal(doc)


def test_no_surrender_against_an_ace_and_half_lost_otherwise() -> None:
    doc = table("electronic", bet("t1", 10), NMB, *cards("10S", "AH", "6D"), decide("t1", "surrender"))
    assert "(1.1.17)" in refusal(doc)
    out = settle(table("electronic", bet("t1", 10), bet("t2", 10), NMB, *cards("10S", "9H", "6D"),
                       decide("t1", "surrender"), decide("t2", "stand"), *cards("9C")))
    e = one(out, "t1", "main")
    assert (e["result"], e["net"], e["rule"]) == ("surrender", -5, "3.12")
    assert one(out, "t2", "main")["net"] == -10  # 16 v 18


def test_timeout_plays_the_default_strategy() -> None:
    # Shared 2♠ 3♦ = 5 against 9♥. t1 times out: draws until hard 12 or soft 17 (3.18.1):
    # 4♣ → 9, 2♥ → 11, A♠ → 12 (hard: the ace would make 22 as 11) and stops.
    # t2 doubles 5 and takes the first stream card only: 4♣ → 9.
    # Dealer: 9♥ + 8♣ (the card after the three t1 used) = 17 stands: t1 −10, t2 −20.
    doc = table("electronic", bet("t1", 10), bet("t2", 10), NMB, *cards("2S", "9H", "3D"),
                timeout("t1"), *cards("4C", "2H", "AS"), decide("t2", "double"), *cards("8C"))
    out = settle(doc)
    hands = {p["player"]: p["hands"][0]["cards"] for p in out["players"]}
    assert hands == {"t1": ["2S", "3D", "4C", "2H", "AS"], "t2": ["2S", "3D", "4C"]}
    assert out["dealer"]["cards"] == ["9H", "8C"]
    assert out["net"] == {"t1": -10, "t2": -20}


def test_split_to_three_hands_at_most_and_resplit() -> None:
    # 8 8 split; hand 1 gets 8♣ and splits again (3.14) → 3 hands; 2♥ makes hand 1 8 2;
    # a third split is refused: 2 splits, 3 hands at most (3.14.3).
    doc = table("electronic", bet("t1", 10), NMB, *cards("8S", "7H", "8D"), decide("t1", "split"),
                *cards("8C"), decide("t1", "split", 1), *cards("8H"), decide("t1", "split", 1))
    assert "(3.14.3)" in refusal(doc)


def test_hands_complete_in_order() -> None:
    doc = table("electronic", bet("t1", 10), NMB, *cards("8S", "7H", "8D"), decide("t1", "split"),
                *cards("2C"), decide("t1", "stand", 2))
    assert "(3.13.1)" in refusal(doc)


def test_dealer_blackjack_takes_only_the_original_wager_from_split_and_doubled_hands() -> None:
    # 8♥ 8♦ v A♠. t1 splits: hand 1 8 3 doubled, 9 → 20; hand 2 8 2 doubled, 5 → 15.
    # t2 stands on 16. Dealer K♦: blackjack. 3.15.5 / 4.7: t1 loses 10 in total; t2 loses 10 (4.6.3).
    doc = table("electronic", bet("t1", 10), bet("t2", 10), NMB, *cards("8H", "AS", "8D"),
                decide("t2", "stand"), decide("t1", "split"), *cards("3C"), decide("t1", "double", 1),
                *cards("9S", "2H"), decide("t1", "double", 2), *cards("5C", "KD"))
    out = settle(doc)
    h1, h2 = one(out, "t1", "main", 1), one(out, "t1", "main", 2)
    assert (h1["stake"], h1["result"], h1["net"], h1["rule"]) == (20, "lose", -10, "4.7.2")
    assert (h2["result"], h2["net"]) == ("returned", 0)
    assert (one(out, "t2", "main")["net"], one(out, "t2", "main")["rule"]) == (-10, "4.6.3")


def test_double_must_equal_the_wager() -> None:
    doc = table("electronic", bet("t1", 10), NMB, *cards("5S", "7H", "6D"), decide("t1", "double", amount=5))
    assert "(1.1.2)" in refusal(doc)


def test_kings_bounty_top_row_waits_for_the_dealer_blackjack() -> None:
    # Shared K♠ K♠ v A♥; the dealer's J♦ makes a blackjack: 2 Kings of Spades + Dealer Blackjack 1000 to 1.
    doc = table("electronic", bet("t1", 10), bet("t1", 5, "kings_bounty"), NMB, *cards("KS", "AH", "KS"),
                decide("t1", "stand"))
    mid = settle(doc)
    assert entries(mid, "t1", "kings_bounty") == []  # not decided yet
    doc["events"] += cards("JD")
    out = settle(doc)
    e = one(out, "t1", "kings_bounty")
    assert (e["result"], e["net"], e["row"]) == ("win", 5000, "2 Kings of Spades + Dealer Blackjack")
    assert one(out, "t1", "main")["net"] == -10


def test_kings_bounty_two_kings_of_spades_without_a_possible_dealer_blackjack_pays_100_at_once() -> None:
    # Side bets settle at the terminal's interim settlement, its first play decision.
    out = settle(table("electronic", bet("t1", 10), bet("t1", 5, "kings_bounty"), NMB,
                       *cards("KS", "5H", "KS"), decide("t1", "stand")))
    e = one(out, "t1", "kings_bounty")
    assert (e["net"], e["stage"]) == (500, "interim")


@pytest.mark.parametrize(("kind", "shared", "net"), [
    ("bet_the_set", "9H 9D", 50),       # unsuited pair 10 to 1 on 5
    ("royal_match", "KC QC", 125),      # 25 to 1
    ("royal_match", "2C 9C", 12.5),     # 5 to 2
])
def test_electronic_side_bets(kind: str, shared: str, net: float) -> None:
    a, b = shared.split()
    out = settle(table("electronic", bet("t1", 10), bet("t1", 5, kind), NMB, *cards(a, "5S", b),
                       decide("t1", "stand")))
    assert one(out, "t1", kind)["net"] == net


def test_side_bet_without_a_main_wager_is_refused() -> None:
    assert "(3.5)" in refusal(table("electronic", bet("t1", 5, "royal_match")))


def test_wager_outside_the_terminal_limits_is_refused() -> None:
    doc = table("electronic", bet("t1", 600), limits={"main": [10, 500]})
    assert "(2.2)" in refusal(doc)


def test_multi_with_unknown_order_voids_the_round() -> None:
    doc = table("electronic", bet("t1", 10), NMB, *cards("5S"),
                {"type": "multi", "cards": ["7H", "9C"], "disclosed": []})
    out = settle(doc)
    assert out["status"] == "void"
    assert out["rulings"][0]["rule"] == "5.8"
    assert one(out, "t1", "main")["result"] == "returned"


def test_power_failure_terminals_play_the_default() -> None:
    # 5.9.1: accepted wagers play the default strategy: 10 6 = 16 stands (hard 12 reached).
    doc = table("electronic", bet("t1", 10), NMB, *cards("10S", "9H", "6D"), {"type": "power_failure"},
                *cards("8C"))
    out = settle(doc)
    assert out["rulings"][0]["rule"] == "5.9.1"
    assert out["net"] == {"t1": -10}  # 16 v 17


def test_pending_lists_each_terminal_with_its_options() -> None:
    out = settle(table("electronic", bet("t1", 10), bet("t2", 10), NMB, *cards("8S", "6H", "8D")))
    assert out["next"] == {"expect": "decisions", "pending": [
        {"player": "t1", "hand": 1, "options": ["hit", "stand", "double", "split", "surrender"]},
        {"player": "t2", "hand": 1, "options": ["hit", "stand", "double", "split", "surrender"]},
    ]}


def test_terminal_states_for_the_dealer_screen() -> None:
    from dealer_assist.engine.transcript import run_document

    # 5 6 v 9: t1 hits and waits for the first stream card; t2 timed out (default strategy).
    doc = table("electronic", bet("t1", 10), bet("t2", 10), bet("t3", 10), NMB, *cards("5S", "9H", "6D"),
                decide("t1", "hit"), timeout("t2"))
    states = {s["player"]: s for s in run_document(doc).terminal_states()}
    assert states["t1"]["waiting_for_card"] and states["t1"]["options"] == []
    assert states["t2"]["default_strategy"] and states["t2"]["waiting_for_card"]
    assert states["t3"]["options"] == ["hit", "stand", "double", "surrender"]
    assert states["t3"]["in_turn"] == 1 and states["t3"]["hands"] == [["5S", "6D"]]
