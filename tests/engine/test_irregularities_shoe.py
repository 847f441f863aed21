"""The shoe across rounds: 5.1 counts copies since the last shuffle, not one round; the
dealer is told before the shoe runs out (5.19; 5.16 in Dueling 8's) and after the
cutting card (5.20; 5.17 in Dueling 8's)."""

from __future__ import annotations

import dataclasses
from typing import Any

from dealer_assist.base.cards import parse_card
from dealer_assist.engine.events import NoMoreBets, Wager
from dealer_assist.engine.irregularities import cards_needed, shoe_notices
from dealer_assist.engine.table import TableRound
from dealer_assist.engine.transcript import new_round, parse_event, round_output
from dealer_assist.games import composition_for


def _round(game: str, decks: int, dealt: list[str]) -> TableRound:
    """A round whose shoe already delivered ``dealt`` in earlier rounds since the shuffle."""
    rnd = new_round({"game": game, "decks": decks, "areas": 7})
    assert isinstance(rnd, TableRound)
    config = dataclasses.replace(rnd.config, shoe_dealt=tuple(parse_card(c) for c in dealt))
    return TableRound(config)


def _card(name: str) -> Any:
    return parse_event({"type": "card", "card": name})


def test_a_copy_too_many_counted_over_earlier_rounds_voids_5_1() -> None:
    # One deck holds one A♠. It came out in an earlier round since the shuffle; the A♠
    # now dealt is an extra card: the round is void, the earlier round stands (5.1.2).
    rnd = _round("lucky8", 1, ["AS", "KD"])
    rnd.apply_all([Wager("bob", "main", parse_amount(10), 2), NoMoreBets()])
    rnd.apply(_card("AS"))
    out = round_output(rnd)
    assert out["status"] == "void"
    assert [(r["rule"], r["ruling"]) for r in out["rulings"]] == [("5.1", "void")]
    assert "copy 2" in out["rulings"][0]["text"]


def test_the_same_card_in_a_fresh_shoe_is_fine() -> None:
    rnd = _round("lucky8", 1, [])
    rnd.apply_all([Wager("bob", "main", parse_amount(10), 2), NoMoreBets(), _card("AS")])
    assert round_output(rnd)["status"] == "in_progress"


def parse_amount(x: int) -> Any:
    from decimal import Decimal

    return Decimal(x)


def _all_but(game: str, keep: int) -> list[str]:
    deck = [str(c) for c in composition_for(game)]
    return deck[: len(deck) - keep]


def test_too_few_cards_for_the_round_is_said_before_it_happens_5_19() -> None:
    # One 52-card deck with 48 dealt: 4 remain. Two areas need at least the 5 cards of the
    # initial deal (2 + dealer 1 + 2): insufficient, the dealer is told 5.19 before dealing.
    rnd = _round("lucky8", 1, _all_but("lucky8", 4))
    rnd.apply_all([Wager("bob", "main", parse_amount(10), 2), Wager("carol", "main", parse_amount(10), 3),
                   NoMoreBets()])
    assert rnd.shoe.remaining == 4
    assert cards_needed(rnd) == 5
    notes = shoe_notices(rnd)
    assert [n[0] for n in notes] == ["5.19"]
    assert "4 cards remain and the round needs at least 5" in notes[0][1]


def test_a_few_cards_over_the_need_is_a_warning_and_plenty_is_silent() -> None:
    rnd = _round("lucky8", 1, _all_but("lucky8", 8))  # 8 remain, 5 needed: 8 < 5 + 6
    rnd.apply_all([Wager("bob", "main", parse_amount(10), 2), Wager("carol", "main", parse_amount(10), 3),
                   NoMoreBets()])
    assert shoe_notices(rnd) == [("5.19", "only 8 cards remain; the round needs at least 5 (5.19)")]
    fresh = _round("lucky8", 6, [])
    fresh.apply_all([Wager("bob", "main", parse_amount(10), 2), NoMoreBets()])
    assert shoe_notices(fresh) == []


def test_dueling8s_cites_its_own_5_16_and_5_17() -> None:
    # Dueling 8's: the initial deal is one card to each area and none to the dealer: one
    # area needs 1 card; the whole 3 × 48 shoe is dealt, 0 remain.
    rnd = _round("dueling8s", 3, _all_but("dueling8s", 0) * 3)
    rnd.apply_all([Wager("bob", "main", parse_amount(10), 2), NoMoreBets()])
    assert rnd.shoe.remaining == 0
    assert cards_needed(rnd) == 1
    rnd.shoe.cut_card()
    assert [n[0] for n in shoe_notices(rnd)] == ["5.16", "5.17"]


def test_cut_card_out_means_shuffle_after_this_round_5_20() -> None:
    rnd = _round("ace_race", 6, [])
    rnd.apply_all([Wager("bob", "main", parse_amount(10), 2), NoMoreBets()])
    rnd.shoe.cut_card()
    assert shoe_notices(rnd) == [("5.20", "the cutting card has come out: shuffle when this round is "
                                          "complete (5.20)")]


def test_cards_needed_during_play_counts_hands_waiting_and_the_dealers_second_card() -> None:
    # Lucky 8, bob 5C 6S, carol 9H 8D, dealer KD; bob hits: his hand waits for 1 card and
    # the dealer needs a second card: at least 2.
    rnd = _round("lucky8", 6, [])
    rnd.apply_all([Wager("bob", "main", parse_amount(10), 2), Wager("carol", "main", parse_amount(10), 3),
                   NoMoreBets(), *[_card(c) for c in ("5C", "9H", "KD", "6S", "8D")],
                   parse_event({"type": "decision", "action": "hit", "area": 2})])
    assert cards_needed(rnd) == 2


def test_the_player_next_to_act_is_named_to_cut_the_riffled_discards() -> None:
    # 6 decks of 52 = 312 cards; 306 dealt earlier plus this round's 5 = 311: 1 remains.
    # Bob (area 2) hits: he needs 1 card and the dealer its second: 2 > 1.
    earlier = _all_but("lucky8", 0) * 6
    for c in ("5C", "9H", "KD", "6S", "8D"):
        earlier.remove(c)  # one copy of each stays for this round
    rnd = _round("lucky8", 6, earlier[:306])
    rnd.apply_all([Wager("bob", "main", parse_amount(10), 2), Wager("carol", "main", parse_amount(10), 3),
                   NoMoreBets(), *[_card(c) for c in ("5C", "9H", "KD", "6S", "8D")],
                   parse_event({"type": "decision", "action": "hit", "area": 2})])
    assert rnd.shoe.remaining == 1
    notes = shoe_notices(rnd)
    assert notes[0][0] == "5.19"
    assert "have bob (area 2, next to act) cut them" in notes[0][1]


def test_shoe_dealt_in_the_header_counts_copies_over_the_whole_shoe() -> None:
    # 5.1 over the shoe since its last shuffle: one deck of Lucky 8 (1.1 decks allowed: 1-8) and the
    # A♠ already came out in an earlier round; a second A♠ cannot belong to the shoe: void.
    from dealer_assist.engine.transcript import settle_document

    doc = {"game": "lucky8", "decks": 1, "areas": 7, "shoe_dealt": ["AS", "KD"], "events": [
        {"type": "wager", "player": "a", "area": 1, "bet": "main", "amount": 10},
        {"type": "no_more_bets"}, {"type": "card", "card": "AS"},
    ]}
    out = settle_document(doc)
    assert out["status"] == "void"
    assert out["rulings"][0]["rule"] == "5.1"
    doc["shoe_dealt"] = ["KD"]
    assert settle_document(doc)["status"] == "in_progress"
