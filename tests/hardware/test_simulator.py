"""The simulated shoe's cards: composition × decks, seeded or fixed order, cut card."""

from __future__ import annotations

from collections import Counter

import pytest

from dealer_assist.base.cards import cards
from dealer_assist.games import composition_for
from hardware.simulator import SimulatedShoe


def drain(shoe: SimulatedShoe) -> list[str]:
    out = []
    while (c := shoe.deal()) is not None:
        out.append(str(c))
    return out


@pytest.mark.parametrize(("game", "decks", "per_deck"), [("ace_race", 6, 52), ("star_elements", 4, 65), ("dueling8s", 3, 48)])
def test_shoe_holds_the_game_composition_times_decks(game: str, decks: int, per_deck: int) -> None:
    with SimulatedShoe(game=game, decks=decks, seed=1, heartbeat_s=None) as shoe:
        assert shoe.size == per_deck * decks
        dealt = drain(shoe)
    assert len(dealt) == per_deck * decks
    assert Counter(dealt) == Counter({str(c): decks for c in composition_for(game)})
    if game == "dueling8s":
        assert not any(c.startswith("10") for c in dealt)


def test_same_seed_same_order_other_seed_other_order() -> None:
    def order(seed: int) -> list[str]:
        with SimulatedShoe(decks=2, seed=seed, heartbeat_s=None) as shoe:
            return drain(shoe)

    assert order(5) == order(5)
    assert order(5) != order(6)


def test_fixed_order_is_dealt_as_given_and_again_after_shuffle() -> None:
    with SimulatedShoe(cards=cards("AS 10H 7Wa KFi"), penetration=None, heartbeat_s=None) as shoe:
        assert drain(shoe) == ["AS", "10H", "7Wa", "KFi"]
        shoe.shuffle()
        assert drain(shoe) == ["AS", "10H", "7Wa", "KFi"]


def test_cut_card_position_follows_penetration() -> None:
    with SimulatedShoe(decks=2, seed=1, penetration=0.75, heartbeat_s=None) as shoe:
        assert shoe.cut_position == 78
        for _ in range(78):
            shoe.deal()
        assert not shoe.cut_out
        shoe.deal()
        assert shoe.cut_out


def test_multi_and_noread_take_cards_out() -> None:
    with SimulatedShoe(cards=cards("2C 3C 4C 5C"), penetration=None, heartbeat_s=None) as shoe:
        assert [str(c) for c in shoe.multi(2)] == ["2C", "3C"]
        assert str(shoe.noread()) == "4C"
        assert shoe.remaining == 1
        assert [str(c) for c in shoe.multi(3)] == ["5C"]  # only what is left
        assert shoe.multi(2) == []


@pytest.mark.parametrize(
    "options",
    [{"decks": 0}, {"penetration": 0.0}, {"penetration": 1.5}],
)
def test_bad_options_are_refused(options: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        SimulatedShoe(**options)  # type: ignore[arg-type]


def test_unknown_game_is_refused() -> None:
    with pytest.raises(KeyError):
        SimulatedShoe(game="poker")
