"""Section 5 (and 6.1) at the table games: rulings, moved cards and amounts, worked by hand.

Deal order (3.18; 3.19 in Dueling 8's): first card to each wagered area from the
dealer's left, one to the dealer, then the second card to each area; Dueling 8's
deals one card to each area's permanent 8♠ and none to the dealer. Ace Race, Lucky 8
and Star Elements number section 5 alike; Dueling 8's numbers it its own way (its
clause numbers are cited in its own tests). Star Elements cards are written with the
element suits: the helper ``g`` turns S/H/D/C into Fi/Go/Ea/Wo for that game.
"""

from __future__ import annotations

from typing import Any

import pytest

from dealer_assist.base.errors import TranscriptError
from dealer_assist.engine.transcript import settle_document

STD3 = ("ace_race", "lucky8", "star_elements")
_SE = {"S": "Fi", "H": "Go", "D": "Ea", "C": "Wo"}


def g(game: str, name: str) -> str:
    """A standard card name in the game's notation (Star Elements uses element suits)."""
    return name[:-1] + _SE[name[-1]] if game == "star_elements" else name


def doc(game: str, *events: Any, decks: int = 6) -> dict[str, Any]:
    flat: list[dict[str, Any]] = []
    for e in events:
        flat.extend(e if isinstance(e, list) else [e])
    return {"game": game, "decks": decks, "areas": 7, "events": flat}


def W(player: str, area: int, amount: float, bet: str = "main") -> dict[str, Any]:
    return {"type": "wager", "player": player, "area": area, "bet": bet, "amount": amount}


def cs(game: str, names: str) -> list[dict[str, Any]]:
    return [{"type": "card", "card": g(game, n)} for n in names.split()]


def to(game: str, name: str, where: str) -> dict[str, Any]:
    return {"type": "card", "card": g(game, name), "to": where}


def D(action: str, area: int, hand: int | None = None, **kw: Any) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "decision", "action": action, "area": area}
    if hand is not None:
        ev["hand"] = hand
    ev.update(kw)
    return ev


NMB = {"type": "no_more_bets"}
CLOSE = {"type": "close_offers"}


def run(d: dict[str, Any]) -> dict[str, Any]:
    return settle_document(d)


def err(d: dict[str, Any]) -> str:
    with pytest.raises(TranscriptError) as info:
        settle_document(d)
    return info.value.message


def hands(out: dict[str, Any]) -> dict[int, list[list[str]]]:
    return {a["area"]: [h["cards"] for h in a["hands"]] for a in out["areas"]}


def rulings(out: dict[str, Any]) -> list[tuple[int, str, str]]:
    return [(r["index"], r["rule"], r["ruling"]) for r in out["rulings"]]


def moves(out: dict[str, Any], i: int = -1) -> list[tuple[str, str, str]]:
    return [(m["card"], m["from"], m["to"]) for m in out["rulings"][i]["moves"]]


def entry(out: dict[str, Any], player: str, bet: str = "main") -> tuple[str, float, str]:
    found = [s for s in out["settlements"] if s["player"] == player and s["bet"] == bet]
    assert len(found) == 1, found
    return found[0]["result"], found[0]["net"], found[0]["rule"]


# The two-area table most tests use: bob plays area 2, carol area 3, 10 each.
def two(game: str) -> list[dict[str, Any]]:
    return [W("bob", 2, 10), W("carol", 3, 10), NMB]


WIN_HIGHER = {"ace_race": "4.3.2", "lucky8": "4.3.2", "star_elements": "4.4.2"}
PUSH = {"ace_race": "4.5.1", "lucky8": "4.6.1", "star_elements": "4.6.1"}
LOSE_LOWER = {"ace_race": "4.4.1", "lucky8": "4.4.1", "star_elements": "4.5.1"}


# ================================================================ 5.1 cards that cannot belong
@pytest.mark.parametrize(
    ("game", "decks", "cards", "why"),
    [
        ("ace_race", 6, ["5C", "7Wa"], "does not belong"),  # an element suit in a 52-card game
        ("lucky8", 6, ["5C", "7Fi"], "does not belong"),
        ("star_elements", 4, ["5Wo", "7S"], "does not belong"),  # a standard suit in Star Elements
        ("dueling8s", 6, ["10H"], "does not belong"),  # Dueling 8's decks hold no 10s
        ("lucky8", 1, ["AS", "AS"], "copy 2 in a shoe of 1 decks"),  # one deck holds one A♠
    ],
)
def test_a_card_that_cannot_belong_to_the_shoe_voids_the_round(
    game: str, decks: int, cards: list[str], why: str
) -> None:
    d = doc(game, W("bob", 2, 10), W("bob", 2, 5, "pair" if game != "dueling8s" else "superb8"), NMB,
            [{"type": "card", "card": c} for c in cards], decks=decks)
    out = run(d)
    assert out["status"] == "void"
    bad = 3 + len(cards) - 1  # the event index of the offending card
    assert rulings(out) == [(bad, "5.1", "void")]
    assert why in out["rulings"][0]["text"]
    # 5.1.1: every wager is returned: main 10 and side bet 5, net 0 each.
    assert sorted((s["bet"], s["stake"], s["result"], s["net"]) for s in out["settlements"]) == sorted(
        [("main", 10, "returned", 0), ("pair" if game != "dueling8s" else "superb8", 5, "returned", 0)]
    )
    assert out["net"] == {"bob": 0}
    assert out["next"] is None


def test_nothing_is_accepted_after_a_void() -> None:
    d = doc("lucky8", two("lucky8"), cs("lucky8", "5C"), {"type": "card", "card": "7Fi"}, cs("lucky8", "9H"))
    assert "void" in err(d) and "(5.1)" in err(d)


@pytest.mark.parametrize("game", [*STD3, "dueling8s"])
@pytest.mark.parametrize("rule", ["5.1", "5.2"])
def test_a_supervisor_may_void_for_extra_missing_or_unshuffled_cards(game: str, rule: str) -> None:
    d = doc(game, two(game), cs(game, "5C 9H"),
            {"type": "void", "reason": "unshuffled cards found", "rule": rule})
    out = run(d)
    assert out["status"] == "void"
    assert rulings(out) == [(5, rule, "void")]
    assert out["net"] == {"bob": 0, "carol": 0}


def test_a_supervisor_void_names_a_void_clause() -> None:
    d = doc("ace_race", two("ace_race"), cs("ace_race", "5C"), {"type": "void", "reason": "x", "rule": "3.4"})
    assert "5.1 or 5.2" in err(d)


# ================================================================ 5.6.1, 5.11, 5.13: reconstruct in the initial deal
@pytest.mark.parametrize("game", STD3)
def test_initial_deal_card_on_the_wrong_area_is_reconstructed(game: str) -> None:
    # Shoe order 5C 9H KD 6S 8D: 5C belongs to area 2 (first card of the deal) but the
    # dealer put it on area 3. 5.13: area 2 would have fewer than two cards: reconstruct.
    # Layout: area 2 5C 6S (11), area 3 9H 8D (17), dealer KD. Bob hits 9C: 20, stands;
    # carol stands; dealer KD 7S = hard 17 stands (also in Ace Race).
    # Bob 20 > 17: +10; carol 17 = 17: push.
    d = doc(game, two(game), to(game, "5C", "area:3"), cs(game, "9H KD 6S 8D"),
            D("hit", 2), cs(game, "9C"), D("stand", 2), D("stand", 3), cs(game, "7S"))
    out = run(d)
    assert rulings(out) == [(3, "5.13", "reconstructed")]
    assert moves(out, 0) == [(g(game, "5C"), "area:3/1", "area:2/1")]
    assert hands(out) == {2: [[g(game, c) for c in ("5C", "6S", "9C")]],
                          3: [[g(game, "9H"), g(game, "8D")]]}
    assert entry(out, "bob") == ("win", 10, WIN_HIGHER[game])
    assert entry(out, "carol") == ("push", 0, PUSH[game])


@pytest.mark.parametrize("game", STD3)
def test_dealer_card_on_a_player_area_is_reconstructed_5_11(game: str) -> None:
    # The third card (KD) is the dealer's; the dealer put it on area 2: 5.11 reconstruct.
    d = doc(game, two(game), cs(game, "5C 9H"), to(game, "KD", "area:2/1"), cs(game, "6S 8D"))
    out = run(d)
    assert rulings(out) == [(5, "5.11", "reconstructed")]
    assert moves(out, 0) == [(g(game, "KD"), "area:2/1", "dealer")]
    assert out["dealer"]["cards"] == [g(game, "KD")]
    assert hands(out) == {2: [[g(game, "5C"), g(game, "6S")]], 3: [[g(game, "9H"), g(game, "8D")]]}


def test_dueling8s_player_card_on_the_wrong_area_is_reconstructed_5_11() -> None:
    # Dueling 8's 5.11: a player not dealt a card to the permanent 8 before the interim
    # settlement: reconstruct. 9H belongs to area 1 (first in the deal), put on area 2.
    d = doc("dueling8s", W("bob", 1, 10), W("carol", 2, 10), NMB,
            to("dueling8s", "9H", "area:2"), cs("dueling8s", "6D"))
    out = run(d)
    assert rulings(out) == [(3, "5.11", "reconstructed")]
    assert moves(out, 0) == [("9H", "area:2/1", "area:1/1")]
    assert hands(out) == {1: [["8S", "9H"]], 2: [["8S", "6D"]]}


def test_a_card_the_dealer_put_in_the_discards_during_the_deal_is_reconstructed() -> None:
    d = doc("lucky8", two("lucky8"), to("lucky8", "5C", "discard"), cs("lucky8", "9H"))
    out = run(d)
    assert rulings(out) == [(3, "5.13", "reconstructed")]
    assert moves(out, 0) == [("5C", "discard", "area:2/1")]
    assert hands(out) == {2: [["5C"]], 3: [["9H"]]}


def test_a_card_put_where_the_deal_expected_it_is_no_irregularity() -> None:
    out = run(doc("lucky8", two("lucky8"), to("lucky8", "5C", "area:2/1"), cs("lucky8", "9H")))
    assert out["rulings"] == []
    assert hands(out) == {2: [["5C"]], 3: [["9H"]]}


def test_a_place_off_the_layout_is_refused_and_the_round_is_unchanged() -> None:
    assert "area 9 is not on this layout" in err(doc("lucky8", two("lucky8"), to("lucky8", "5C", "area:9")))


# ================================================================ the phase decides: correction before / after interim
def _dealt(game: str) -> list[dict[str, Any]]:
    # 5C (area 2), 9H (area 3), KD (dealer), 6S (area 2), 8D (area 3): events 3..7.
    return [*two(game), *cs(game, "5C 9H KD 6S 8D")]


@pytest.mark.parametrize("game", STD3)
def test_correction_before_the_interim_settlement_moves_the_card_back(game: str) -> None:
    # Offers still open (surrender offered against a K): no interim settlement yet: 5.13.
    # The program's layout is already the shoe order: the card goes back to area 2.
    out = run(doc(game, _dealt(game), {"type": "correction", "index": 6, "to": "area:5"}))
    assert rulings(out) == [(8, "5.13", "reconstructed")]
    assert moves(out, 0) == [(g(game, "6S"), "area:5/1", "area:2/1")]
    assert hands(out)[2] == [[g(game, "5C"), g(game, "6S")]]
    assert out["next"]["expect"] == "decision" and out["next"]["area"] == 2


@pytest.mark.parametrize("game", STD3)
def test_same_misplacement_corrected_after_the_interim_settlement_is_5_15_and_5_16(game: str) -> None:
    # After close_offers the interim settlement took place: 5.15 the card on area 5 (no
    # wager) is discarded; area 2 is left with one card: 5.16 act or withdraw.
    out = run(doc(game, _dealt(game), CLOSE, {"type": "correction", "index": 6, "to": "area:5"}))
    assert rulings(out) == [(9, "5.15", "discarded"), (9, "5.16", "one_card")]
    assert moves(out, 0) == [(g(game, "6S"), "area:5/1", "discard")]
    assert hands(out)[2] == [[g(game, "5C")]]
    assert out["next"] == {"expect": "decision", "area": 2, "hand": 1, "player": "bob",
                           "options": ["act", "withdraw"]}


@pytest.mark.parametrize("game", STD3)
def test_one_card_withdraw_returns_the_wager_and_discards_the_card_5_16_2(game: str) -> None:
    # Carol then stands on 17; dealer KD 7S = 17: carol pushes. Bob's 10 is returned.
    out = run(doc(game, _dealt(game), CLOSE, {"type": "correction", "index": 6, "to": "area:5"},
                  {"type": "withdraw", "player": "bob", "area": 2}, D("stand", 3), cs(game, "7S")))
    assert entry(out, "bob") == ("returned", 0, "5.16.2")
    assert out["rulings"][2]["rule"] == "5.16.2"
    assert moves(out, 2) == [(g(game, "5C"), "area:2/1", "discard")]
    assert hands(out)[2] == [[]]
    assert entry(out, "carol") == ("push", 0, PUSH[game])
    assert out["status"] == "settled"


@pytest.mark.parametrize("game", STD3)
def test_one_card_act_plays_the_hand_in_turn_5_16_1(game: str) -> None:
    # Bob acts: area 2 takes the next card 9C: 5C 9C = 14, then decides: stand.
    # Carol stands 17. Dealer KD 8C = 18. Bob 14 < 18 loses 10; carol 17 < 18 loses 10.
    out = run(doc(game, _dealt(game), CLOSE, {"type": "correction", "index": 6, "to": "area:5"},
                  D("act", 2), cs(game, "9C"), D("stand", 2), D("stand", 3), cs(game, "8C")))
    assert out["rulings"][2]["rule"] == "5.16.1"
    assert hands(out)[2] == [[g(game, "5C"), g(game, "9C")]]
    assert entry(out, "bob") == ("lose", -10, LOSE_LOWER[game])
    assert entry(out, "carol") == ("lose", -10, LOSE_LOWER[game])


def test_other_events_wait_for_the_one_card_choice_and_the_round_is_unchanged() -> None:
    base = doc("lucky8", _dealt("lucky8"), CLOSE, {"type": "correction", "index": 6, "to": "area:5"})
    before = run(base)
    message = err(doc("lucky8", base["events"], D("stand", 3)))
    assert "act or withdraw" in message and "(5.16)" in message
    assert run(base) == before


@pytest.mark.parametrize("game", STD3)
def test_both_cards_of_an_area_on_an_empty_area_returns_the_wager_5_14(game: str) -> None:
    # 5C (event 3) and 6S (event 6) of area 2 both lie on area 5 (no wager), found after
    # the interim settlement: first 5.15 + 5.16 (one card), then no card at all: 5.14
    # returns bob's 10.
    out = run(doc(game, _dealt(game), CLOSE,
                  {"type": "correction", "index": 6, "to": "area:5"},
                  {"type": "correction", "index": 3, "to": "area:5"}))
    assert rulings(out)[-2:] == [(10, "5.15", "discarded"), (10, "5.14", "returned")]
    assert entry(out, "bob") == ("returned", 0, "5.14")
    assert out["next"]["area"] == 3  # play goes on with carol


def test_dueling8s_card_on_an_area_without_wager_found_late_returns_the_wager_5_12() -> None:
    # Dueling 8's: 5.13 discards the card found on area 5; area 2 then holds only its
    # permanent 8: 5.12 (Dueling 8's numbering) returns the 10.
    d = doc("dueling8s", W("bob", 2, 10), W("carol", 3, 10), NMB, cs("dueling8s", "5C 9H"), CLOSE,
            {"type": "correction", "index": 3, "to": "area:5"})
    out = run(d)
    assert rulings(out) == [(6, "5.13", "discarded"), (6, "5.12", "returned")]
    assert moves(out, 0) == [("5C", "area:5/1", "discard")]
    assert entry(out, "bob") == ("returned", 0, "5.12")
    assert hands(out)[2] == [["8S"]]


@pytest.mark.parametrize("game", STD3)
def test_correction_after_interim_to_another_player_moves_the_card_back_5_6_2(game: str) -> None:
    out = run(doc(game, _dealt(game), CLOSE, {"type": "correction", "index": 6, "to": "area:3/1"}))
    assert rulings(out) == [(9, "5.6.2", "reconstructed")]
    assert moves(out, 0) == [(g(game, "6S"), "area:3/1", "area:2/1")]
    assert hands(out)[2] == [[g(game, "5C"), g(game, "6S")]]


def test_correction_of_an_event_that_is_not_a_card_is_refused() -> None:
    assert "not a card" in err(doc("lucky8", _dealt("lucky8"), {"type": "correction", "index": 2, "to": "area:5"}))


def test_correction_to_where_the_card_already_lies_is_refused() -> None:
    message = err(doc("lucky8", _dealt("lucky8"), {"type": "correction", "index": 3, "to": "area:2/1"}))
    assert "5C already lies at area 2" in message


# ================================================================ 5.12 the dealer has no card
@pytest.mark.parametrize("game", STD3)
def test_dealer_without_a_card_after_interim_draws_and_offers_reopen_5_12(game: str) -> None:
    # The dealer's KD (event 5) lies on area 6 (no wager), found after the interim
    # settlement: 5.15 discards it, 5.12 the dealer draws: the next card AH is the
    # dealer's; against an Ace insurance is offered to both players (5.12.2).
    out = run(doc(game, _dealt(game), CLOSE, {"type": "correction", "index": 5, "to": "area:6"},
                  cs(game, "AH")))
    assert rulings(out) == [(9, "5.15", "discarded"), (9, "5.12", "dealer_draws")]
    assert out["dealer"]["cards"] == [g(game, "AH")]
    waiting = run(doc(game, _dealt(game), CLOSE, {"type": "correction", "index": 5, "to": "area:6"}))
    assert waiting["dealer"]["cards"] == [] and waiting["next"] == {"expect": "card", "for": "dealer",
                                                                    "rule": "5.12"}
    assert out["next"]["offers"] == [
        {"player": "bob", "area": 2, "options": ["insurance"]},
        {"player": "carol", "area": 3, "options": ["insurance"]},
    ]


def test_player_in_turn_may_complete_the_hand_before_the_dealer_draws_5_12_1() -> None:
    # Bob already asked for a card (hit) when the missing dealer card is found: the next
    # card 4C completes his request (5.12.1), then 9D is the dealer's.
    out = run(doc("lucky8", _dealt("lucky8"), D("hit", 2),
                  {"type": "correction", "index": 5, "to": "area:6"}, cs("lucky8", "4C 9D")))
    assert hands(out)[2] == [["5C", "6S", "4C"]]
    assert out["dealer"]["cards"] == ["9D"]


# ================================================================ 5.7 the dealer's completed hand
def test_lucky8_card_to_dealers_soft_17_is_discarded_and_the_outcome_stands() -> None:
    # Bob K 8 = 18 stands; dealer 6D AS = soft 17 stands in Lucky 8 (3.34): bob wins 10.
    # Then 2C lands on the dealer's completed hand: 5.7 discards it, bob still wins.
    d = doc("lucky8", W("bob", 2, 10), NMB, cs("lucky8", "KH 6D 8C"), D("stand", 2), cs("lucky8", "AS"),
            to("lucky8", "2C", "dealer"))
    out = run(d)
    assert rulings(out) == [(7, "5.7", "discarded")]  # events: wager, nmb, 3 cards, stand, AS, 2C
    assert moves(out, 0) == [("2C", "dealer", "discard")]
    assert out["dealer"] == {"cards": ["6D", "AS"], "total": 17}
    assert entry(out, "bob") == ("win", 10, "4.3.2")


def test_ace_race_soft_17_is_not_completed_the_card_is_the_dealers_next() -> None:
    # Ace Race hits soft 17 (DESIGN: completed = hard 17+ or soft 18+): 2C is simply the
    # dealer's next card: 6 A 2 = soft 19; bob's 18 loses 10.
    d = doc("ace_race", W("bob", 2, 10), NMB, cs("ace_race", "KH 6D 8C"), D("stand", 2),
            cs("ace_race", "AS"), to("ace_race", "2C", "dealer"))
    out = run(d)
    assert out["rulings"] == []
    assert out["dealer"] == {"cards": ["6D", "AS", "2C"], "total": 19}
    assert entry(out, "bob") == ("lose", -10, "4.4.1")


def test_ace_race_card_to_dealers_hard_17_is_discarded() -> None:
    # Dealer 6D KS AC = hard 17: completed in Ace Race; 5C dealt on it is discarded.
    # Bob 18 > 17 wins 10.
    d = doc("ace_race", W("bob", 2, 10), NMB, cs("ace_race", "KH 6D 8C"), D("stand", 2),
            cs("ace_race", "KS AC"), to("ace_race", "5C", "dealer"))
    out = run(d)
    assert rulings(out) == [(8, "5.7", "discarded")]
    assert "hard 17" in out["rulings"][0]["text"]
    assert entry(out, "bob") == ("win", 10, "4.3.2")


@pytest.mark.parametrize(("game", "win"), [("star_elements", "4.4.2"), ("dueling8s", "4.4.1")])
def test_card_to_dealers_completed_hand_other_games(game: str, win: str) -> None:
    # Star Elements: dealer 9 8 = 17. Dueling 8's: dealer 8♠ 9D = 17. Bob has 18, wins 10.
    if game == "dueling8s":
        d = doc(game, W("bob", 2, 10), NMB, cs(game, "QH"), D("stand", 2), cs(game, "9D"),
                to(game, "5C", "dealer"))
    else:
        d = doc(game, W("bob", 2, 10), NMB, cs(game, "KH 9D 8C"), D("stand", 2), cs(game, "8S"),
                to(game, "5C", "dealer"))
    out = run(d)
    assert out["rulings"][0]["rule"] == "5.7" and out["rulings"][0]["ruling"] == "discarded"
    assert out["dealer"]["total"] == 17
    assert entry(out, "bob") == ("win", 10, win)


def test_a_card_on_a_player_area_after_settlement_is_refused() -> None:
    d = doc("lucky8", W("bob", 2, 10), NMB, cs("lucky8", "KH 6D 8C"), D("stand", 2), cs("lucky8", "AS"),
            to("lucky8", "2C", "area:2"))
    assert "settled" in err(d)


# ================================================================ 5.8 - 5.10, 5.24: a card dealt in error
@pytest.mark.parametrize("game", STD3)
def test_card_dealt_in_error_accepted_is_the_next_card_5_8(game: str) -> None:
    # After the interim settlement the dealer puts 4H on area 2 though bob asked for
    # nothing: offered to bob as the next card; he accepts: 5C 6S 4H = 15, and decides on.
    out = run(doc(game, _dealt(game), CLOSE, to(game, "4H", "area:2"), D("accept", 2)))
    assert rulings(out) == [(9, "5.8", "offered")]
    assert hands(out)[2] == [[g(game, c) for c in ("5C", "6S", "4H")]]
    assert out["next"]["area"] == 2 and out["next"]["options"][:2] == ["hit", "stand"]


@pytest.mark.parametrize("game", STD3)
def test_card_refused_by_every_player_becomes_the_dealers_next_card_5_9_5_10(game: str) -> None:
    # 4H offered to bob (refuses: stands on 11, 5.9/5.24), then to carol (refuses: stands
    # on 17); 5.10: it is the dealer's next card: K 4 = 14, then 2C = 16, then 5S = 21.
    # Bob 11 and carol 17 both lose 10 to 21.
    out = run(doc(game, _dealt(game), CLOSE, to(game, "4H", "area:2"), D("refuse", 2), D("refuse", 3),
                  cs(game, "2C 5S")))
    assert rulings(out) == [(9, "5.8", "offered"), (10, "5.9", "refused"), (10, "5.8", "offered"),
                            (11, "5.9", "refused"), (11, "5.10", "moved")]
    assert moves(out, 2) == [(g(game, "4H"), "area:2/1", "area:3/1")]
    assert moves(out, 4) == [(g(game, "4H"), "area:3/1", "dealer")]
    assert out["dealer"]["cards"] == [g(game, c) for c in ("KD", "4H", "2C", "5S")]
    assert "5.24" in out["rulings"][1]["text"]
    assert entry(out, "bob") == ("lose", -10, LOSE_LOWER[game])
    assert entry(out, "carol") == ("lose", -10, LOSE_LOWER[game])


def test_card_refused_by_one_goes_to_the_next_player_who_accepts() -> None:
    # Bob refuses 4H (stands on 11), carol accepts: 9H 8D 4H = 21, done (3.30); dealer
    # K then 7C = 17. Bob 11 loses 10; carol 21 wins 10.
    out = run(doc("lucky8", _dealt("lucky8"), CLOSE, to("lucky8", "4H", "dealer"), D("refuse", 2),
                  D("accept", 3), cs("lucky8", "7C")))
    assert moves(out, 0) == [("4H", "dealer", "area:2/1")]
    assert hands(out)[3] == [["9H", "8D", "4H"]]
    assert entry(out, "bob") == ("lose", -10, "4.4.1")
    assert entry(out, "carol") == ("win", 10, "4.3.2")


def test_dueling8s_card_dealt_in_error_uses_its_own_5_8_and_5_21() -> None:
    # Dueling 8's: bob 8♠ 5C, carol 8♠ 9H. 4H to area 2 in error: bob refuses (stands,
    # Dueling 8's 5.21), carol refuses: 5.10 the dealer's next card: 8♠ 4H = 12, then
    # 6C = 18. Bob 13 loses 10, carol 17 loses 10.
    d = doc("dueling8s", W("bob", 2, 10), W("carol", 3, 10), NMB, cs("dueling8s", "5C 9H"), CLOSE,
            to("dueling8s", "4H", "area:2"), D("refuse", 2), D("refuse", 3), cs("dueling8s", "6C"))
    out = run(d)
    assert [r[1] for r in rulings(out)] == ["5.8", "5.9", "5.8", "5.9", "5.10"]
    assert "(5.21)" in out["rulings"][1]["text"]
    assert out["dealer"]["cards"] == ["8S", "4H", "6C"]
    assert entry(out, "bob") == ("lose", -10, "4.5.1")


def test_before_the_interim_a_stray_card_is_taken_back_as_the_next_card_5_6_1() -> None:
    # Offers still open: 4H on area 2 is reconstructed as the next card; bob hits and
    # receives it without a new shoe card: 5C 6S 4H = 15.
    out = run(doc("lucky8", _dealt("lucky8"), to("lucky8", "4H", "area:2"), D("hit", 2)))
    assert rulings(out) == [(8, "5.6.1", "reconstructed")]
    assert moves(out, 0) == [("4H", "area:2/1", "shoe")]
    assert hands(out)[2] == [["5C", "6S", "4H"]]


def test_accept_without_an_offered_card_is_refused() -> None:
    assert "(5.8)" in err(doc("lucky8", _dealt("lucky8"), CLOSE, D("accept", 2)))


def test_other_decisions_wait_for_accept_or_refuse() -> None:
    message = err(doc("lucky8", _dealt("lucky8"), CLOSE, to("lucky8", "4H", "area:2"), D("hit", 2)))
    assert "accept or refuse" in message and "(5.8)" in message


# ================================================================ 5.14 (at once), 5.15, 5.25
@pytest.mark.parametrize("game", STD3)
def test_card_on_an_area_without_wager_after_interim_is_discarded_5_15(game: str) -> None:
    # Bob hits; the dealer puts 4H on area 5 (no wager): discarded; bob's card is the
    # next one, 9C: 5C 6S 9C = 20.
    out = run(doc(game, _dealt(game), D("hit", 2), to(game, "4H", "area:5"), cs(game, "9C")))
    assert rulings(out) == [(9, "5.15", "discarded")]
    assert moves(out, 0) == [(g(game, "4H"), "area:5/1", "discard")]
    assert hands(out)[2] == [[g(game, c) for c in ("5C", "6S", "9C")]]


@pytest.mark.parametrize("game", STD3)
def test_dissatisfied_player_withdraws_before_more_cards_5_25(game: str) -> None:
    # After the 5.15 ruling carol withdraws all her remaining wagers: main 10 returned.
    out = run(doc(game, _dealt(game), D("hit", 2), to(game, "4H", "area:5"),
                  {"type": "withdraw", "player": "carol"}))
    assert entry(out, "carol") == ("returned", 0, "5.25")
    assert rulings(out)[-1] == (10, "5.25", "withdrawn")


def test_no_withdrawal_once_further_cards_are_dealt_5_4() -> None:
    d = doc("lucky8", _dealt("lucky8"), D("hit", 2), to("lucky8", "4H", "area:5"), cs("lucky8", "9C"),
            {"type": "withdraw", "player": "carol"})
    assert "(5.4)" in err(d)


def test_dueling8s_withdrawal_after_its_5_13_is_5_22() -> None:
    d = doc("dueling8s", W("bob", 2, 10), W("carol", 3, 10), W("carol", 3, 10, "superb8"), NMB,
            cs("dueling8s", "5C 9H"), D("hit", 2), to("dueling8s", "4H", "area:6"),
            {"type": "withdraw", "player": "carol"})
    out = run(d)
    assert rulings(out)[0][1:] == ("5.13", "discarded")
    # carol's main 10 is returned; her Superb 8's already lost at the interim settlement
    # (9H is not an 8, 4.2.2) stays lost: 5.22 "previously lost shall not be returned".
    assert entry(out, "carol") == ("returned", 0, "5.22")
    assert entry(out, "carol", "superb8")[:2] == ("lose", -10)


# ================================================================ 5.17 / 5.18 skipped player
@pytest.mark.parametrize(("game", "u"), [("lucky8", "5.17"), ("ace_race", "5.17"), ("star_elements", "5.17"),
                                        ("dueling8s", "5.14")])
def test_skipped_player_only_next_hand_acted_cards_taken_back(game: str, u: str) -> None:
    # Bob (area 2) is in turn; the dealer gives 4H to carol (area 3), the next hand. When
    # bob speaks, 4H is taken back undisclosed and is the next card: bob hits and gets it.
    if game == "dueling8s":
        start = [W("bob", 2, 10), W("carol", 3, 10), NMB, *cs(game, "5C 9H"), CLOSE]
        bob = ["8S", "5C", "4H"]
    else:
        start = [*_dealt(game), CLOSE]
        bob = ["5C", "6S", "4H"]
    out = run(doc(game, start, to(game, "4H", "area:3"), D("hit", 2)))
    assert rulings(out)[0][1:] == (u, "undisclosed")
    assert moves(out, 0) == [(g(game, "4H"), "area:3/1", "shoe")]
    assert hands(out)[2] == [[g(game, c) for c in bob]]


@pytest.mark.parametrize(("game", "s"), [("lucky8", "5.18"), ("ace_race", "5.18"), ("star_elements", "5.18"),
                                        ("dueling8s", "5.15")])
def test_skipped_player_after_cards_to_two_areas_is_deemed_to_stand(game: str, s: str) -> None:
    if game == "dueling8s":
        # bob 8♠5C (13), carol 8♠9H, dan 8♠2S. 4H to carol (21), 3H to dan (8 2 3 = 13).
        start = [W("bob", 2, 10), W("carol", 3, 10), W("dan", 4, 10), NMB, *cs(game, "5C 9H 2S"), CLOSE]
        # dan stands on 13; dealer 8♠ 9C = 17: bob 13 and dan 13 lose 10, carol 21 wins 10.
        tail = [D("stand", 4), *cs(game, "9C")]
        rules = ("4.5.1", "4.4.1")
    else:
        # bob 5C 6S (11), carol 9H 8D (17), dan 2S 9S (11); dealer KD.
        start = [W("bob", 2, 10), W("carol", 3, 10), W("dan", 4, 10), NMB,
                 *cs(game, "5C 9H 2S KD 6S 8D 9S"), CLOSE]
        # carol 17+4 = 21, dan 11+3 = 14 stands; dealer K 7 = 17: bob 11 and dan 14 lose
        # 10, carol 21 wins 10.
        tail = [D("stand", 4), *cs(game, "7C")]
        rules = (LOSE_LOWER[game], WIN_HIGHER[game])
    out = run(doc(game, start, to(game, "4H", "area:3"), to(game, "3H", "area:4"), tail))
    ev = len(start) + 1  # ruled at once, when the second area (dan's) gets a card
    assert rulings(out)[0] == (ev, s, "continued")
    assert entry(out, "bob") == ("lose", -10, rules[0])
    assert entry(out, "dan") == ("lose", -10, rules[0])
    assert entry(out, "carol") == ("win", 10, rules[1])
    assert out["status"] == "settled"


# ================================================================ 5.21 the forgotten burn card
@pytest.mark.parametrize("game", STD3)
def test_forgotten_burn_noticed_in_the_initial_deal_is_reconstructed_5_21_1(game: str) -> None:
    # 5C should have been burned: 9H moves to area 2, KD to area 3, 6S becomes the
    # dealer's; the deal goes on: 8D to area 2, 2D to area 3.
    out = run(doc(game, two(game), cs(game, "5C 9H KD 6S"), {"type": "burn", "card": g(game, "5C")},
                  cs(game, "8D 2D")))
    assert rulings(out) == [(7, "5.21.1", "reconstructed")]
    assert moves(out, 0) == [(g(game, "5C"), "area:2/1", "discard"), (g(game, "9H"), "area:3/1", "area:2/1"),
                             (g(game, "KD"), "dealer", "area:3/1"), (g(game, "6S"), "area:2/1", "dealer")]
    assert hands(out) == {2: [[g(game, "9H"), g(game, "8D")]], 3: [[g(game, "KD"), g(game, "2D")]]}
    assert out["dealer"]["cards"] == [g(game, "6S")]


@pytest.mark.parametrize("game", STD3)
def test_forgotten_burn_noticed_after_the_interim_stays_in_play_5_21_2(game: str) -> None:
    out = run(doc(game, _dealt(game), CLOSE, {"type": "burn", "card": g(game, "5C")}))
    assert rulings(out) == [(9, "5.21.2", "continue")]
    assert hands(out)[2] == [[g(game, "5C"), g(game, "6S")]]


def test_dueling8s_forgotten_burn_is_its_5_18() -> None:
    early = run(doc("dueling8s", W("bob", 1, 10), W("carol", 2, 10), NMB, cs("dueling8s", "5C"),
                    {"type": "burn", "card": "5C"}, cs("dueling8s", "9H 2S")))
    assert rulings(early) == [(4, "5.18.1", "reconstructed")]
    assert hands(early) == {1: [["8S", "9H"]], 2: [["8S", "2S"]]}
    late = run(doc("dueling8s", W("bob", 1, 10), NMB, cs("dueling8s", "5C"), CLOSE,
                   {"type": "burn", "card": "5C"}))
    assert rulings(late) == [(4, "5.18.2", "continue")]


def test_a_late_burn_must_name_the_first_card_dealt() -> None:
    assert "first card dealt" in err(doc("lucky8", two("lucky8"), cs("lucky8", "5C 9H"),
                                         {"type": "burn", "card": "9H"}))


# ================================================================ 5.23 cards drawn together
def multi(cards: list[str], disclosed: list[str]) -> dict[str, Any]:
    return {"type": "multi", "cards": cards, "disclosed": disclosed}


def pick(card: str, by: str = "player") -> dict[str, Any]:
    return {"type": "pick", "card": card, "by": by}


def test_none_disclosed_the_player_picks_and_the_other_is_the_next_card_5_23_1() -> None:
    # The first two cards come out together unseen: bob (area 2, to receive) picks 9H;
    # 5C is then the next card: area 3's.
    base = doc("lucky8", two("lucky8"), multi(["5C", "9H"], []))
    out = run(base)
    assert rulings(out) == [(3, "5.23.1", "pick")]
    assert out["next"] == {"expect": "decision", "area": 2, "hand": 1, "player": "bob",
                           "options": ["pick"], "cards": ["5C", "9H"], "by": "player"}
    out = run(doc("lucky8", base["events"], pick("9H"), cs("lucky8", "KD")))
    assert hands(out) == {2: [["9H"]], 3: [["5C"]]}
    assert out["dealer"]["cards"] == ["KD"]


@pytest.mark.parametrize("game", STD3)
def test_one_disclosed_is_the_next_card_5_23_2(game: str) -> None:
    out = run(doc(game, two(game), multi([g(game, "5C"), g(game, "9H")], [g(game, "9H")])))
    assert rulings(out) == [(3, "5.23.2", "dealt")]
    assert moves(out, 0) == [(g(game, "9H"), "shoe", "area:2/1")]
    assert hands(out) == {2: [[g(game, "9H")]], 3: [[g(game, "5C")]]}


def test_several_disclosed_player_picks_rest_offered_on_then_burned_5_23_3() -> None:
    # Bob hits on 11: 2C and 9H come out together, both seen: bob picks 9H (20) and
    # stands; 2C is offered to carol, who declines: burned, and she stands on 17 (5.24).
    # Dealer K 7 = 17: bob 20 wins 10, carol 17 pushes.
    out = run(doc("lucky8", _dealt("lucky8"), D("hit", 2), multi(["2C", "9H"], ["2C", "9H"]), pick("9H"),
                  D("stand", 2), D("refuse", 3), cs("lucky8", "7C")))
    assert rulings(out) == [(9, "5.23.3", "pick"), (10, "5.23", "picked"), (12, "5.23.3.1", "burned")]
    assert moves(out, 2) == [("2C", "shoe", "discard")]
    assert hands(out) == {2: [["5C", "6S", "9H"]], 3: [["9H", "8D"]]}
    assert entry(out, "bob") == ("win", 10, "4.3.2")
    assert entry(out, "carol") == ("push", 0, "4.6.1")


def test_several_disclosed_next_player_may_take_the_card() -> None:
    # As above but carol picks 2C: 9H 8D 2C = 19; dealer K 7 = 17: both win 10.
    out = run(doc("lucky8", _dealt("lucky8"), D("hit", 2), multi(["2C", "9H"], ["2C", "9H"]), pick("9H"),
                  D("stand", 2), pick("2C"), D("stand", 3), cs("lucky8", "7C")))
    assert hands(out)[3] == [["9H", "8D", "2C"]]
    assert entry(out, "carol") == ("win", 10, "4.3.2")


def test_dealer_both_disclosed_pit_manager_picks_the_other_is_discarded_5_23_4_5() -> None:
    # Bob 5C 6S stands on 11, carol stands; dealer K: 9H and 5C come out together, seen.
    # The pit manager gives the dealer 5C (K 5 = 15, the worse for the dealer) and 9H is
    # discarded; then 7C: 22, dealer busts: both win 10.
    base = [*_dealt("lucky8"), D("stand", 2), D("stand", 3), multi(["9H", "5C"], ["9H", "5C"])]
    out = run(doc("lucky8", base))
    assert rulings(out) == [(10, "5.23.4.5", "pick")]
    assert out["next"]["player"] == "pit_manager"
    assert "the pit manager picks the dealer's card (5.23.4.5)" in err(doc("lucky8", base, pick("5C", "player")))
    out = run(doc("lucky8", base, pick("5C", "pit_manager"), cs("lucky8", "7C")))
    assert moves(out, 1) == [("5C", "shoe", "dealer"), ("9H", "shoe", "discard")]
    assert out["dealer"]["cards"] == ["KD", "5C", "7C"]
    assert entry(out, "bob") == ("win", 10, "4.3.3")


def test_dealer_none_disclosed_pit_manager_picks_first_5_23_4_1() -> None:
    out = run(doc("ace_race", two("ace_race"), cs("ace_race", "5C 9H"), multi(["KD", "6S"], []),
                  pick("KD", "pit_manager")))
    assert rulings(out)[0] == (5, "5.23.4.1", "pick")
    # KD is the dealer's, 6S the next card: area 2's second card.
    assert out["dealer"]["cards"] == ["KD"]
    assert hands(out)[2] == [["5C", "6S"]]


def test_dueling8s_cards_drawn_together_cite_5_20() -> None:
    out = run(doc("dueling8s", W("bob", 1, 10), W("carol", 2, 10), NMB, multi(["5C", "9H"], ["9H"])))
    assert rulings(out) == [(3, "5.20.2", "dealt")]
    assert hands(out) == {1: [["8S", "9H"]], 2: [["8S", "5C"]]}


def test_a_pick_of_a_card_not_drawn_is_refused_and_the_round_unchanged() -> None:
    base = doc("lucky8", two("lucky8"), multi(["5C", "9H"], []))
    before = run(base)
    assert "is not one of 5C, 9H" in err(doc("lucky8", base["events"], pick("KD")))
    assert "waiting for bob to choose pick" in err(doc("lucky8", base["events"], cs("lucky8", "KD")))
    assert run(base) == before


def test_cards_drawn_together_when_none_is_expected_are_refused() -> None:
    assert "(5.23)" in err(doc("lucky8", _dealt("lucky8"), CLOSE, multi(["5C", "9H"], [])))


# ================================================================ 5.29 power failure
@pytest.mark.parametrize(("game", "w"), [("lucky8", "5.29.1"), ("ace_race", "5.29.1"), ("star_elements", "5.29.1"),
                                        ("dueling8s", "5.26.1")])
def test_power_failure_before_any_outcome_lets_players_withdraw(game: str, w: str) -> None:
    if game == "dueling8s":
        start = [W("bob", 2, 10), W("carol", 3, 10), NMB, *cs(game, "5C 9H")]
    else:
        start = [*two(game), *cs(game, "5C 9H KD 6S")]
    out = run(doc(game, start, {"type": "power_failure"}, {"type": "withdraw", "player": "bob"}))
    assert rulings(out) == [(len(start), w, "withdraw_offered"), (len(start) + 1, w, "withdrawn")]
    assert entry(out, "bob") == ("returned", 0, w)


def test_withdrawal_under_5_29_1_takes_all_wagers_not_one_area() -> None:
    d = doc("lucky8", _dealt("lucky8"), {"type": "power_failure"}, {"type": "withdraw", "player": "bob", "area": 2})
    assert "all of their wagers" in err(d)


@pytest.mark.parametrize(("game", "c"), [("lucky8", "5.29.2"), ("ace_race", "5.29.2"),
                                        ("star_elements", "5.29.2"), ("dueling8s", "5.26.2")])
def test_power_failure_after_an_outcome_play_continues(game: str, c: str) -> None:
    # An outcome is established by a bust: Dueling 8's bob 8♠ K Q = 28; elsewhere bob
    # doubles 11 + K = 21 and carol hits 17 + Q = 27. Play continues, no withdrawal.
    if game == "dueling8s":
        start = [W("bob", 2, 10), W("carol", 3, 10), NMB, *cs(game, "KC 9H"), D("hit", 2), *cs(game, "QS")]
    else:
        start = [*_dealt(game), D("double", 2), *cs(game, "KS"), D("hit", 3), *cs(game, "QS")]
    out = run(doc(game, start, {"type": "power_failure"}))
    assert rulings(out) == [(len(start), c, "continue")]
    assert "(5.4)" in err(doc(game, start, {"type": "power_failure"}, {"type": "withdraw", "player": "carol"}))


# ================================================================ 6.1 referral and resume
def test_uncovered_situation_is_referred_and_resumes_on_continue() -> None:
    # Bob's third card (hit, 9C) is found in the discard holder after he stood: no clause
    # covers a lost subsequent-deal card: referred to the Gaming Shift Manager (6.1).
    base = [*_dealt("lucky8"), D("hit", 2), *cs("lucky8", "9C"), D("stand", 2),
            {"type": "correction", "index": 9, "to": "discard"}]
    out = run(doc("lucky8", base))
    assert out["status"] == "referred"
    assert rulings(out) == [(11, "6.1", "referred")]
    assert out["next"]["expect"] == "ruling" and out["next"]["rule"] == "6.1"
    assert "(6.1)" in err(doc("lucky8", base, D("stand", 3)))
    out = run(doc("lucky8", base, {"type": "resolve", "ruling": "continue", "text": "card stands"},
                  D("stand", 3), cs("lucky8", "7C")))
    # Play resumed: bob 20, carol 17 against K 7 = 17: bob +10, carol push.
    assert out["status"] == "settled"
    assert entry(out, "bob") == ("win", 10, "4.3.2")
    assert entry(out, "carol") == ("push", 0, "4.6.1")


def test_timeout_is_not_a_table_event() -> None:
    assert "(5.22)" in err(doc("lucky8", _dealt("lucky8"), {"type": "timeout", "player": "bob"}))



def test_a_card_in_error_closes_the_withdrawal_window() -> None:
    # 5.29.1 allows withdrawal only before further cards are dealt; 4H dealt (in error)
    # after the power failure closes it: bob's withdrawal is refused (5.4).
    d = doc("lucky8", _dealt("lucky8"), CLOSE, {"type": "power_failure"}, to("lucky8", "4H", "area:2"),
            {"type": "withdraw", "player": "bob"})
    assert "(5.4)" in err(d)


def test_an_offer_decision_on_an_area_left_without_controller_is_refused_not_a_crash() -> None:
    # Power failure before any outcome (5.29.1): bob withdraws; area 2 has nobody left,
    # so an insurance or surrender "for area 2" names nobody: refused with a message.
    d = doc("lucky8", _dealt("lucky8"), {"type": "power_failure"}, {"type": "withdraw", "player": "bob"},
            D("surrender", 2))
    assert "nobody controls area 2" in err(d)


def test_cards_dealt_past_the_hand_in_turn_are_shown_until_ruled() -> None:
    # 4H went to area 3 while bob (area 2) was in turn; nothing else happened yet: the
    # round still waits for bob and shows the card dealt out of turn.
    out = run(doc("lucky8", _dealt("lucky8"), CLOSE, to("lucky8", "4H", "area:3")))
    assert out["rulings"] == []
    assert out["next"] == {"expect": "decision", "area": 2, "hand": 1, "player": "bob",
                           "options": ["hit", "stand", "double"],
                           "out_of_turn": [{"card": "4H", "at": "area:3/1"}]}


def test_forgotten_burn_after_a_surrender_is_referred() -> None:
    # Bob surrendered on 5C 6S before the forgotten burn was noticed: laying the cards out
    # again would change the hand he surrendered; no clause covers it: 6.1.
    out = run(doc("lucky8", _dealt("lucky8"), D("surrender", 2), {"type": "burn", "card": "5C"}))
    assert rulings(out) == [(9, "6.1", "referred")]
    assert out["status"] == "referred"


def _d8_dealt() -> list[dict[str, Any]]:
    # Dueling 8's: bob area 2 8♠ 5C, carol area 3 8♠ 9H (events 3, 4); no dealer card.
    return [W("bob", 2, 10), W("carol", 3, 10), NMB, *cs("dueling8s", "5C 9H")]


def test_dueling8s_correction_before_and_after_the_interim_settlement() -> None:
    # 5C (event 3) found on carol's area. Before the interim settlement: Dueling 8's 5.11,
    # the card goes back to bob; after it: 5.6.2, moved back as well (a wagered area).
    early = run(doc("dueling8s", _d8_dealt(), {"type": "correction", "index": 3, "to": "area:3"}))
    assert rulings(early) == [(5, "5.11", "reconstructed")]
    assert moves(early, 0) == [("5C", "area:3/1", "area:2/1")]
    late = run(doc("dueling8s", _d8_dealt(), CLOSE, {"type": "correction", "index": 3, "to": "area:3"}))
    assert rulings(late) == [(6, "5.6.2", "reconstructed")]
    assert hands(late) == {2: [["8S", "5C"]], 3: [["8S", "9H"]]}


def test_dueling8s_dealer_cards_drawn_together_both_seen_5_20_4_5() -> None:
    # Both stand (13 and 17). The dealer's 8♠ then draws: 9D and 2C come out together,
    # seen: the pit manager gives the dealer 2C (8 2 = 10, worse than 17) and 9D is
    # discarded; then KS: 20. Bob 13 and carol 17 lose 10 each (4.5.1).
    out = run(doc("dueling8s", _d8_dealt(), D("stand", 2), D("stand", 3),
                  multi(["9D", "2C"], ["9D", "2C"]), pick("2C", "pit_manager"), cs("dueling8s", "KS")))
    assert rulings(out) == [(7, "5.20.4.5", "pick"), (8, "5.20", "picked")]
    assert moves(out, 1) == [("2C", "shoe", "dealer"), ("9D", "shoe", "discard")]
    assert out["dealer"]["cards"] == ["8S", "2C", "KS"]
    assert entry(out, "bob") == ("lose", -10, "4.5.1")
    assert entry(out, "carol") == ("lose", -10, "4.5.1")


def test_a_lost_card_of_a_hand_already_played_on_is_referred() -> None:
    # Bob stood on 5C 6S; afterwards 6S is found on area 5 (no wager). Offering him a
    # one-card choice now would replay a hand already acted upon: referred (6.1), after
    # the 5.15 discard of the card.
    out = run(doc("lucky8", _dealt("lucky8"), D("stand", 2), {"type": "correction", "index": 6, "to": "area:5"}))
    assert rulings(out) == [(9, "5.15", "discarded"), (9, "6.1", "referred")]
    assert out["status"] == "referred"


def test_dueling8s_lost_hit_card_is_referred_not_a_returned_wager() -> None:
    # Bob 8♠ 5C hits 2D (event 6); 2D later found in the discards: Dueling 8's gives one
    # card in the initial deal, so this is a subsequent-deal card: referred (6.1).
    out = run(doc("dueling8s", _d8_dealt(), D("hit", 2), cs("dueling8s", "2D"),
                  {"type": "correction", "index": 6, "to": "discard"}))
    assert rulings(out) == [(7, "6.1", "referred")]
    assert out["settlements"] == []


def test_ace_race_card_to_dealers_soft_18_is_discarded() -> None:
    # Ace Race: dealer 7D AS = soft 18, a standing total (the dealer hits only soft 17):
    # completed. 5C dealt on it is discarded (5.7). Bob's K 8 = 18 pushes (4.5.1).
    d = doc("ace_race", W("bob", 2, 10), NMB, cs("ace_race", "KH 7D 8C"), D("stand", 2),
            cs("ace_race", "AS"), to("ace_race", "5C", "dealer"))
    out = run(d)
    assert rulings(out) == [(7, "5.7", "discarded")]
    assert "soft 18" in out["rulings"][0]["text"]
    assert out["dealer"] == {"cards": ["7D", "AS"], "total": 18}
    assert entry(out, "bob") == ("push", 0, "4.5.1")


def test_dueling8s_several_disclosed_picked_then_declined_and_burned_5_20_3() -> None:
    # Bob 8♠ 5C hits: 2C and 9H come out together, seen. Bob picks 2C (15) and stands;
    # 9H is offered to carol (8♠ 9H = 17), who declines: burned, she stands (5.21).
    # Dealer 8♠ KS = 18: bob 15 and carol 17 lose 10 each (4.5.1).
    out = run(doc("dueling8s", _d8_dealt(), D("hit", 2), multi(["2C", "9H"], ["2C", "9H"]), pick("2C"),
                  D("stand", 2), D("refuse", 3), cs("dueling8s", "KS")))
    assert rulings(out) == [(6, "5.20.3", "pick"), (7, "5.20", "picked"), (9, "5.20.3.1", "burned")]
    assert "(5.21)" in out["rulings"][2]["text"]
    assert moves(out, 2) == [("9H", "shoe", "discard")]
    assert hands(out) == {2: [["8S", "5C", "2C"]], 3: [["8S", "9H"]]}
    assert entry(out, "bob") == ("lose", -10, "4.5.1")
    assert entry(out, "carol") == ("lose", -10, "4.5.1")


@pytest.mark.parametrize("game", STD3)
def test_a_card_after_the_outcome_goes_to_the_discard_holder_and_the_outcome_stands(game: str) -> None:
    # Issue 34 item 5. Bob K 9 = 19 stands, dealer 9 8 = 17: bob wins 10 (4.3.2). Then 5C out of
    # the shoe: straight from the shoe it is refused with the rule that says where it goes
    # (5.7: removed from play, discard holder, the outcome stands); in the discard holder it is
    # that ruling, counted for 5.1, and bob still wins 10.
    base = [W("bob", 2, 10), NMB, cs(game, "KH 9D 9C"), D("stand", 2), cs(game, "8S")]
    assert "discard holder" in err(doc(game, *base, cs(game, "5C")))
    out = run(doc(game, *base, to(game, "5C", "discard")))
    assert rulings(out) == [(7, "5.7", "discarded")]
    assert moves(out) == [(g(game, "5C"), "shoe", "discard")]
    assert out["dealer"]["total"] == 17
    assert entry(out, "bob")[:2] == ("win", 10)


def test_a_card_after_everyone_busted_is_discarded_not_the_dealers() -> None:
    # Lucky 8: bob K 6 hits 9 = 25, bust (3.32): the dealer draws no more (3.35), the round is
    # settled with the dealer on 5. 10H placed on the dealer's hand now is no draw of hers:
    # removed from play (5.7), bob still loses 10.
    d = doc("lucky8", W("bob", 2, 10), NMB, cs("lucky8", "KH 5D 6C"), D("hit", 2), cs("lucky8", "9S"),
            to("lucky8", "10H", "dealer"))
    out = run(d)
    assert rulings(out)[-1][1:] == ("5.7", "discarded")
    assert out["dealer"]["cards"] == ["5D"]
    assert entry(out, "bob")[:2] == ("lose", -10)


def test_the_view_says_when_a_pick_is_blind_5_23() -> None:
    """5.23.1 / 5.23.4.1: cards drawn together that nobody has seen are picked blind (the
    screen shows no face); 5.23.3 / 5.23.4.5: disclosed ones are picked seen."""
    from dealer_assist.engine.transcript import run_document

    blind = run_document(doc("lucky8", two("lucky8"), multi(["5C", "9H"], [])))
    assert blind.expectation().options == ("pick",) and blind.view().pick_unseen
    assert not run_document(doc("lucky8", two("lucky8"), multi(["5C", "9H"], []), pick("9H"))).view().pick_unseen
    seen = run_document(doc("lucky8", _dealt("lucky8"), D("hit", 2), multi(["2C", "9H"], ["2C", "9H"])))
    assert seen.expectation().options == ("pick",) and not seen.view().pick_unseen
    dealer_blind = run_document(doc("ace_race", two("ace_race"), cs("ace_race", "5C 9H"), multi(["KD", "6S"], [])))
    assert dealer_blind.expectation().player == "pit_manager" and dealer_blind.view().pick_unseen
    dealer_seen = run_document(doc("lucky8", [*_dealt("lucky8"), D("stand", 2), D("stand", 3),
                                              multi(["9H", "5C"], ["9H", "5C"])]))
    assert dealer_seen.expectation().player == "pit_manager" and not dealer_seen.view().pick_unseen
