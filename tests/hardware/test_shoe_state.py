"""dealer_assist.engine.shoe_state: the program's count of the shoe (5.1 foreign/extra cards, 5.19, 5.20)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer_assist.base.cards import Card, card, cards, standard_deck
from dealer_assist.engine.shoe_state import ShoeState
from dealer_assist.games import composition_for


def test_fresh_shoe_sizes() -> None:
    assert ShoeState.for_game("ace_race", 6).size == 312
    assert ShoeState.for_game("star_elements", 4).size == 260
    assert ShoeState.for_game("dueling8s", 3).remaining == 144


def test_recording_cards_counts_them_down() -> None:
    shoe = ShoeState.for_game("lucky8", 2)
    assert shoe.record(card("AS")) is None
    assert shoe.record(card("AS")) is None
    assert shoe.remaining == 102
    assert shoe.remaining_of(card("AS")) == 0
    assert shoe.remaining_by_rank()["A"] == 6
    assert shoe.dealt == [card("AS"), card("AS")]


def test_third_copy_in_two_decks_is_an_extra_card_5_1() -> None:
    shoe = ShoeState.for_game("lucky8", 2)
    shoe.record(card("7H"))
    shoe.record(card("7H"))
    problem = shoe.record(card("7H"))
    assert problem is not None and "copy 3" in problem.reason and "5.1" in problem.reason
    assert shoe.remaining_of(card("7H")) == 0  # never negative


@pytest.mark.parametrize(("game", "foreign"), [("dueling8s", "10S"), ("ace_race", "7Wa"), ("star_elements", "7S")])
def test_card_not_of_the_decks_in_use_is_foreign_5_1(game: str, foreign: str) -> None:
    shoe = ShoeState.for_game(game, 4)
    before = shoe.remaining
    problem = shoe.record(card(foreign))
    assert problem is not None and "does not belong" in problem.reason
    assert shoe.remaining == before  # it never was one of the shoe's cards
    assert shoe.remaining_of(card(foreign)) == 0
    assert shoe.foreign_dealt == 1


def test_unread_cards_and_double_feeds() -> None:
    shoe = ShoeState.for_game("ace_race", 2)
    shoe.record_unread()
    problems = shoe.record_multi(3, cards("5D 9C"))
    assert problems == []
    assert shoe.unread == 2 and shoe.dealt == list(cards("5D 9C"))
    assert shoe.remaining == 104 - 4
    with pytest.raises(ValueError):
        shoe.record_multi(1, cards("5D 9C"))
    with pytest.raises(ValueError):
        shoe.record_unread(-1)


def test_cut_card_and_shuffle_5_20() -> None:
    shoe = ShoeState.for_game("ace_race", 6)
    shoe.record(card("KH"))
    shoe.record_unread()
    shoe.cut_card()
    assert shoe.cut_card_seen
    shoe.shuffle()
    assert (shoe.dealt, shoe.unread, shoe.cut_card_seen, shoe.remaining) == ([], 0, False, 312)
    assert shoe.remaining_of(card("KH")) == 6


def test_insufficient_cards_and_reshuffle_of_discards_5_19() -> None:
    shoe = ShoeState(tuple(standard_deck()), 1)
    for c in standard_deck()[:49]:
        shoe.record(c)
    shoe.cut_card()
    assert shoe.remaining == 3
    assert shoe.insufficient_for(4) and not shoe.insufficient_for(3)
    on_table = standard_deck()[45:49]
    shoe.reshuffle_discards(on_table)
    assert shoe.remaining == 48
    assert shoe.dealt == list(on_table)
    assert shoe.cut_card_seen  # still shuffle after this round


def test_counts_follow_cards_given_at_construction() -> None:
    shoe = ShoeState(composition_for("ace_race"), 1, dealt=list(cards("AS")))
    assert shoe.remaining_of(card("AS")) == 0
    assert shoe.check(card("AS")) is not None


@pytest.mark.parametrize("decks", [0, -1])
def test_a_shoe_has_at_least_one_deck(decks: int) -> None:
    with pytest.raises(ValueError):
        ShoeState(composition_for("ace_race"), decks)


@given(st.permutations(list(composition_for("ace_race")) * 2), st.integers(0, 104))
@settings(deadline=None)  # no per-example time limit: the machine may be busy
def test_any_deal_of_the_real_shoe_is_never_foreign(order: list[Card], n: int) -> None:
    shoe = ShoeState.for_game("ace_race", 2)
    assert all(shoe.record(c) is None for c in order[:n])
    assert shoe.remaining == 104 - n
    assert sum(shoe.remaining_by_rank().values()) == 104 - n
    assert 0.0 <= shoe.penetration <= 1.0
