"""Issue 14's four rules bugs, by the readings in DESIGN.md, in every game they touch.

- Passed-over player (5.17/5.18; 5.14/5.15 in Dueling 8's): 5.18 is ruled at once when a
  second area gets a card; a single stray card on a later hand that is not the next in
  play is a card dealt in error (5.8); "the next hand in play" skips finished hands.
- Over-maximum (5.27; 5.24 in Dueling 8's): a double over the maximum settles as the maximum.
- Power failure (5.29.1; 5.26.1 in Dueling 8's): "conclusively won or lost" is decided by the cards.

Every amount and card below is worked out by hand from the deal written beside it.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.engine.test_irregularities import CLOSE, NMB, D, W, cs, doc, err, g, rulings, run, to

SEATS4 = {"carol": 1, "alice": 2, "bob": 3, "dan": 4}


def se(*events: Any, **header: Any) -> dict[str, Any]:
    flat: list[dict[str, Any]] = []
    for e in events:
        flat.extend(e if isinstance(e, list) else [e])
    return {"game": "star_elements", "decks": 5, "areas": 4, "seated": SEATS4, "events": flat, **header}


def four_star_elements() -> list[dict[str, Any]]:
    return [W("carol", 1, 10), W("alice", 2, 10), W("bob", 3, 10), W("dan", 4, 10), NMB]


def se_cards(names: str) -> list[dict[str, Any]]:
    """Cards already in Star Elements notation (element suits)."""
    return [{"type": "card", "card": n} for n in names.split()]


def se_to(name: str, where: str) -> dict[str, Any]:
    return {"type": "card", "card": name, "to": where}


def nets(out: dict[str, Any]) -> dict[str, tuple[str, float, str]]:
    return {s["player"]: (s["result"], s["net"], s["rule"]) for s in out["settlements"] if s["bet"] == "main"}


# ================================================================ 5.18 at once
def test_star_elements_issue_case_5_18_is_ruled_when_the_second_area_gets_a_card() -> None:
    # carol 9Fi 9Go = 18, alice 10Go 6Fi = 16, bob 10Ea 5Wa = 15, dan 10Wo 4Ea = 14, dealer 7Wa.
    # carol stands (event 14); alice is in turn but 6Go goes to area 3 (15) and 2Wa to area 4 (16).
    base = [*four_star_elements(), *se_cards("9Fi 10Go 10Ea 10Wo 7Wa 9Go 6Fi 5Wa 4Ea"),
            D("stand", 1), se_to("6Go", "area:3"), se_to("2Wa", "area:4")]
    out = run(se(base))
    # Two areas got cards: alice is deemed to have stood (5.18) at once; bob has 10 5 6 = 21,
    # so play goes on from dan (10 4 2 = 16, three cards: hit or stand).
    assert rulings(out) == [(16, "5.18", "continued")]
    assert out["status"] == "in_progress"
    assert out["next"] == {"expect": "decision", "area": 4, "hand": 1, "player": "dan", "options": ["hit", "stand"]}
    assert "(3.18)" in err(se(base, D("stand", 2)))  # alice is no longer offered a choice
    # dan stands; the dealer draws 10Fi: 7 + 10 = 17 and stands.
    out = run(se(base, D("stand", 4), se_cards("10Fi")))
    assert out["status"] == "settled"
    assert nets(out) == {"carol": ("win", 10, "4.4.2"), "alice": ("lose", -10, "4.5.1"),
                         "bob": ("win", 10, "4.4.2"), "dan": ("lose", -10, "4.5.1")}


@pytest.mark.parametrize(("game", "rule"), [("lucky8", "5.18"), ("ace_race", "5.18"), ("star_elements", "5.18"),
                                           ("dueling8s", "5.15")])
def test_next_after_cards_to_two_areas_is_the_last_area_that_got_one(game: str, rule: str) -> None:
    if game == "dueling8s":
        # bob 8S 5C, carol 8S 9H, dan 8S 2S; 4H to carol (21), 3H to dan (8 2 3 = 13).
        start = [W("bob", 2, 10), W("carol", 3, 10), W("dan", 4, 10), NMB, *cs(game, "5C 9H 2S"), CLOSE]
    else:
        # bob 5C 6S, carol 9H 8D, dan 2S 9S, dealer KD; 4H to carol (21), 3H to dan (14).
        start = [W("bob", 2, 10), W("carol", 3, 10), W("dan", 4, 10), NMB,
                 *cs(game, "5C 9H 2S KD 6S 8D 9S"), CLOSE]
    out = run(doc(game, start, to(game, "4H", "area:3"), to(game, "3H", "area:4")))
    assert rulings(out) == [(len(start) + 1, rule, "continued")]
    assert out["next"] == {"expect": "decision", "area": 4, "hand": 1, "player": "dan", "options": ["hit", "stand"]}


# ================================================================ a single stray card: 5.8
def test_lucky8_issue_case_stray_card_on_a_later_hand_is_a_card_dealt_in_error() -> None:
    # alice 10H 4C, bob 10C 2D, carol 10D 8H, dealer 9S. alice hits: 3S (17). 5H then goes to
    # area 3, which is not the next hand in play (bob's is): 5.8, offered to alice at once.
    base = [W("alice", 1, 10), W("bob", 2, 10), W("carol", 3, 10), NMB,
            *cs("lucky8", "10H 10C 10D 9S 4C 2D 8H"), D("hit", 1), *cs("lucky8", "3S"),
            to("lucky8", "5H", "area:3")]
    header = {"seated": {"alice": 1, "bob": 2, "carol": 3}}
    out = run({**doc("lucky8", base), **header})
    assert out["status"] == "in_progress"
    assert rulings(out) == [(13, "5.8", "offered")]
    assert out["rulings"][0]["moves"] == [{"card": "5H", "from": "area:3/1", "to": "area:1/1"}]
    assert out["next"] == {"expect": "decision", "area": 1, "hand": 1, "player": "alice",
                           "options": ["accept", "refuse"], "card": "5H"}
    # alice refuses (5.9: she stands on 17); the card is offered on to bob, who accepts it:
    # 10 2 5 = 17 and stands; carol stands on 18; the dealer draws 8C: 9 + 8 = 17.
    out = run({**doc("lucky8", base, D("refuse", 1), D("accept", 2), D("stand", 2), D("stand", 3),
                     cs("lucky8", "8C")), **header})
    assert [r[1:] for r in rulings(out)] == [("5.8", "offered"), ("5.9", "refused"), ("5.8", "offered")]
    assert out["areas"][1]["hands"][0]["cards"] == ["10C", "2D", "5H"]  # the card is on record
    assert nets(out) == {"alice": ("push", 0, "4.6.1"), "bob": ("push", 0, "4.6.1"), "carol": ("win", 10, "4.3.2")}


@pytest.mark.parametrize("game", ["lucky8", "ace_race", "star_elements", "dueling8s"])
def test_a_stray_card_beyond_the_next_hand_is_offered_to_the_hand_in_turn(game: str) -> None:
    if game == "dueling8s":
        # bob 8S 5C = 13 in turn, carol 8S 9H (next), dan 8S 2S; 4H goes to dan.
        start = [W("bob", 2, 10), W("carol", 3, 10), W("dan", 4, 10), NMB, *cs(game, "5C 9H 2S"), CLOSE]
        bob = ["8S", "5C", "4H"]
    else:
        start = [W("bob", 2, 10), W("carol", 3, 10), W("dan", 4, 10), NMB,
                 *cs(game, "5C 9H 2S KD 6S 8D 9S"), CLOSE]
        bob = [g(game, c) for c in ("5C", "6S", "4H")]
    out = run(doc(game, start, to(game, "4H", "area:4")))
    assert rulings(out) == [(len(start), "5.8", "offered")]
    assert out["status"] == "in_progress"
    assert out["next"]["player"] == "bob" and out["next"]["options"] == ["accept", "refuse"]
    out = run(doc(game, start, to(game, "4H", "area:4"), D("accept", 2)))
    assert out["areas"][0]["hands"][0]["cards"] == bob


# ================================================================ the next hand skips finished hands
def test_star_elements_issue_case_a_paid_blackjack_is_not_the_next_hand() -> None:
    # carol 9Fi 9Go = 18, alice 10Go 6Fi = 16, bob AEa KFi = blackjack, dan 10Wo 4Ea = 14;
    # dealer 7Wa cannot make a blackjack: bob is paid 3 to 2 (+15) when carol stands.
    # 3Go then goes to dan's area 4: the first hand after alice's that can still act.
    base = [*four_star_elements(), *se_cards("9Fi 10Go AEa 10Wo 7Wa 9Go 6Fi KFi 4Ea"),
            D("stand", 1), se_to("3Go", "area:4")]
    out = run(se(base))
    assert out["next"]["player"] == "alice" and out["next"]["options"] == ["hit", "stand", "double"]
    # alice's stand is accepted: 5.17, the 3Go is taken back undisclosed and is the next card.
    out = run(se(base, D("stand", 2)))
    assert rulings(out) == [(16, "5.17", "undisclosed")]
    assert out["next"] == {"expect": "decision", "area": 4, "hand": 1, "player": "dan",
                           "options": ["hit", "stand", "double"]}
    # dan hits and receives the 3Go (10 4 3 = 17) and stands; the dealer draws 10Ea: 17.
    out = run(se(base, D("stand", 2), D("hit", 4), D("stand", 4), se_cards("10Ea")))
    assert out["areas"][3]["hands"][0]["cards"] == ["10Wo", "4Ea", "3Go"]
    assert nets(out) == {"carol": ("win", 10, "4.4.2"), "alice": ("lose", -10, "4.5.1"),
                         "bob": ("win", 15, "4.4.1"), "dan": ("push", 0, "4.6.1")}


@pytest.mark.parametrize(("game", "rule"), [("lucky8", "5.17"), ("ace_race", "5.17"), ("star_elements", "5.17")])
def test_a_blackjack_is_skipped_when_finding_the_next_hand(game: str, rule: str) -> None:
    # bob 5C 6S = 11 in turn, carol AH KD blackjack (paid: the dealer's 7D cannot match it),
    # dan 2S 9S = 11; 4H to dan's area is a card on the next hand in play: 5.17.
    start = [W("bob", 2, 10), W("carol", 3, 10), W("dan", 4, 10), NMB, *cs(game, "5C AH 2S 7D 6S KD 9S"), CLOSE]
    out = run(doc(game, start, to(game, "4H", "area:4"), D("stand", 2), D("hit", 4)))
    assert rulings(out) == [(len(start) + 1, rule, "undisclosed")]
    assert out["areas"][2]["hands"][0]["cards"] == [g(game, c) for c in ("2S", "9S", "4H")]


def test_dueling8s_a_surrendered_hand_is_skipped_when_finding_the_next_hand() -> None:
    # bob 8S 5C = 13, carol 8S 9H surrenders, dan 8S 2S = 10. 4H to dan: 5.14 (Dueling 8's 5.17).
    start = [W("bob", 2, 10), W("carol", 3, 10), W("dan", 4, 10), NMB, *cs("dueling8s", "5C 9H 2S"),
             D("surrender", 3), CLOSE]
    out = run(doc("dueling8s", start, to("dueling8s", "4H", "area:4"), D("stand", 2), D("hit", 4)))
    assert rulings(out) == [(len(start) + 1, "5.14", "undisclosed")]
    assert out["areas"][2]["hands"][0]["cards"] == ["8S", "2S", "4H"]


# ================================================================ 5.27 a double over the maximum
@pytest.mark.parametrize(("game", "win", "lose", "over"), [
    ("star_elements", "4.4.2", "4.5.1", "5.27"), ("lucky8", "4.3.2", "4.4.1", "5.27"),
    ("ace_race", "4.3.2", "4.4.1", "5.27"),
])
@pytest.mark.parametrize("third", ["10C", "2C"])
def test_a_double_over_the_maximum_settles_as_the_maximum(game: str, win: str, lose: str, over: str,
                                                          third: str) -> None:
    # Limits 10-100; alice 80 on 6S 5D = hard 11 (Ace Race doubles hard 11 too) doubles to 160.
    # With 10C she has 21, with 2C 13; the dealer 10H 8C = 18. 160 is over the maximum: it
    # pays or collects 100 and the other 60 is returned.
    d = doc(game, W("alice", 1, 80), NMB, cs(game, "6S 10H 5D"), D("double", 1), cs(game, f"{third} 8C"))
    d["limits"] = {"main": [10, 100]}
    out = run(d)
    mains = [(s["stake"], s["result"], s["net"], s["rule"]) for s in out["settlements"]]
    outcome = (100, "win", 100, win) if third == "10C" else (100, "lose", -100, lose)
    assert mains == [outcome, (60, "returned", 0, over)]


def test_dueling8s_a_double_over_the_maximum_settles_as_the_maximum_5_24() -> None:
    # alice 90 on 8S 3C = 11 doubles to 180; KD: 21. The dealer 8S KH = 18: +100, 80 returned.
    d = doc("dueling8s", W("alice", 1, 90), NMB, cs("dueling8s", "3C"), D("double", 1), cs("dueling8s", "KD KH"))
    d["limits"] = {"main": [10, 100]}
    out = run(d)
    assert [(s["stake"], s["result"], s["net"], s["rule"]) for s in out["settlements"]] == [
        (100, "win", 100, "4.4.1"), (80, "returned", 0, "5.24")]


def test_a_followers_double_over_the_maximum_settles_as_the_maximum() -> None:
    # Lucky 8, limits 10-100: alice 80 (controller) and bob 90 on area 1; 6S 5D = 11; alice
    # doubles 80 and bob follows with 90: 160 and 180. 10C: 21 against the dealer's 10H 8C = 18.
    d = doc("lucky8", W("alice", 1, 80), W("bob", 1, 90), NMB, cs("lucky8", "6S 10H 5D"),
            D("double", 1, followers={"bob": 90}), cs("lucky8", "10C 8C"))
    d["limits"] = {"main": [10, 100]}
    d["seated"] = {"alice": 1}
    out = run(d)
    got = sorted((s["player"], s["stake"], s["result"], s["net"], s["rule"]) for s in out["settlements"])
    assert got == [("alice", 60, "returned", 0, "5.27"), ("alice", 100, "win", 100, "4.3.2"),
                   ("bob", 80, "returned", 0, "5.27"), ("bob", 100, "win", 100, "4.3.2")]


# ================================================================ 5.29 power failure
POWER = {"type": "power_failure"}


@pytest.mark.parametrize(("game", "cont"), [("lucky8", "5.29.2"), ("ace_race", "5.29.2"),
                                           ("star_elements", "5.29.2")])
def test_power_failure_after_a_pair_wager_lost_on_the_cards_continues(game: str, cont: str) -> None:
    # alice main 10 + Pair 5, bob 10: alice 9H 4D (no pair: the Pair wager has lost, though its
    # settlement is recorded only at the interim), bob 10C 9D, dealer 7S. 5.29.2 applies.
    start = [W("alice", 1, 10), W("alice", 1, 5, "pair"), W("bob", 2, 10), NMB, *cs(game, "9H 10C 7S 4D 9D"), POWER]
    out = run(doc(game, start))
    assert rulings(out) == [(9, cont, "continue")]
    assert "(5.4)" in err(doc(game, start, {"type": "withdraw", "player": "alice"}))


def test_dueling8s_power_failure_after_superb8s_lost_on_the_cards_continues_5_26_2() -> None:
    # alice's first card 9H is not an 8: her Superb 8's has lost (4.2.2). 5.26.2 applies.
    start = [W("alice", 1, 10), W("alice", 1, 5, "superb8"), W("bob", 2, 10), NMB, *cs("dueling8s", "9H 5C"), POWER]
    out = run(doc("dueling8s", start))
    assert rulings(out) == [(6, "5.26.2", "continue")]
    assert "(5.4)" in err(doc("dueling8s", start, {"type": "withdraw", "player": "alice"}))


def test_power_failure_after_a_blackjack_the_dealer_cannot_match_continues() -> None:
    # Lucky 8: alice AH KD against the dealer's 7S: won (4.3.1) before any settlement is
    # recorded (bob, 10C 9D, may still surrender: the offers are open).
    out = run(doc("lucky8", W("alice", 1, 10), W("bob", 2, 10), NMB, cs("lucky8", "AH 10C 7S KD 9D"), POWER))
    assert out["settlements"] == []
    assert rulings(out) == [(8, "5.29.2", "continue")]


def test_power_failure_before_anything_is_decided_still_allows_withdrawal() -> None:
    # Only the first card of the deal is out: nothing is decided: 5.29.1, alice withdraws.
    start = [W("alice", 1, 10), W("alice", 1, 5, "pair"), NMB, *cs("lucky8", "9H"), POWER]
    out = run(doc("lucky8", start, {"type": "withdraw", "player": "alice"}))
    assert rulings(out)[0] == (4, "5.29.1", "withdraw_offered")
    assert sorted((s["bet"], s["result"], s["rule"]) for s in out["settlements"]) == [
        ("main", "returned", "5.29.1"), ("pair", "returned", "5.29.1")]
