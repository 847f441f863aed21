"""Effects of removal (issue 36, Build 2) against brute-force recomputation of the edge with
one card removed, for every game at two deck counts; the fitted counts are balanced and
their betting correlation is what the definition gives.

- Side bets decided by the first cards: the one-pass effects (``side_bet_removal``) equal,
  as exact fractions, the expected return recomputed over the shoe less that card minus the
  full shoe's (``side_bet_return``), and the full shoe's return is the par sheet's (odds
  engine, ``rate``). Three-card bets: a few cards each (a recomputation takes a
  second); two-card bets: every card.
- The main wager: the effects on file (``data/main_removal.json``, the usual deck count and
  the lowest legal one) are the odds engine's analysis of the shoe less that card minus the
  full shoe's: recomputed here for Dueling 8's (every value, both deck counts; its analysis
  is quick) and for one value of every other game at its lowest deck count; and for every game
  and deck count on file, one deck's worth of removals changes the edge by little (removing
  a deck in proportion leaves the shoe as it was: the effects nearly cancel).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from dealer_assist.base.cards import parse_card
from dealer_assist.games import GAMES
from dealer_assist.odds.side_bets import rate
from dealer_assist.protect.counts import (
    POINT_NAMES,
    betting_correlation,
    count_for,
    known_decks,
    on_file,
)
from dealer_assist.protect.removal import (
    exact_side_bets,
    full_shoe,
    main_wager_return,
    side_bet_removal,
    side_bet_return,
)


def two_deck_counts(game: str) -> tuple[int, int]:
    low, _ = GAMES[game].deck_range
    return low, GAMES[game].decks_usual


SIDE_CASES = [(g, d, s.key) for g in GAMES for d in two_deck_counts(g) for s in exact_side_bets(g)]


@pytest.mark.parametrize(("game", "decks", "bet"), SIDE_CASES)
def test_side_bet_effects_equal_recomputation_with_the_card_removed(game: str, decks: int, bet: str) -> None:
    spec = GAMES[game].spec(bet)
    assert spec is not None
    removal = side_bet_removal(game, decks, spec)
    shoe = full_shoe(game, decks)
    full = side_bet_return(game, spec, shoe)
    assert removal.expected_return == full
    sheet = rate(game, decks, spec)
    assert sheet is not None and sheet.expected_value_exact == full  # the par sheet's figure
    cards = list(shoe)
    if spec.needs_dealer_up:  # an ace, a five, a seven, a ten-value of another suit
        picks = [c for c in cards if str(c) in (str(cards[0]), str(cards[4]))]
        picks += [c for c in cards if c.points in (7, 10)][-1:]
    else:
        picks = cards
    for card in picks:
        less = dict(shoe)
        less[card] -= 1
        assert removal.effects[str(card)] == side_bet_return(game, spec, less) - full, card
    assert all(isinstance(v, Fraction) for v in removal.effects.values())


def test_every_game_has_main_wager_effects_on_file_at_two_deck_counts() -> None:
    for game in GAMES:
        assert set(two_deck_counts(game)) <= set(known_decks(game)), game


def test_dueling8s_main_wager_effects_equal_recomputation() -> None:
    for decks in two_deck_counts("dueling8s"):
        entry = on_file()["dueling8s"][str(decks)]
        full = main_wager_return("dueling8s", decks)
        assert entry["expected_return"] == pytest.approx(full, abs=1e-12)
        deck = count_for("dueling8s", decks).deck  # type: ignore[union-attr]
        for i, name in enumerate(POINT_NAMES):
            if not deck[i]:
                continue
            removed = [0] * 10
            removed[i] = 1
            assert entry["effects"][name] == pytest.approx(main_wager_return("dueling8s", decks, removed) - full,
                                                           abs=1e-12), (decks, name)


@pytest.mark.parametrize("game", [g for g in GAMES if g != "dueling8s"])
def test_one_main_wager_effect_equals_recomputation(game: str) -> None:
    decks = two_deck_counts(game)[0]
    entry = on_file()[game][str(decks)]
    removed = [0] * 10
    removed[4] = 1  # a five
    full = main_wager_return(game, decks)
    assert entry["effects"]["5"] == pytest.approx(main_wager_return(game, decks, removed) - full, abs=1e-12)


@pytest.mark.parametrize("game", list(GAMES))
def test_the_effects_of_one_deck_nearly_cancel_and_the_count_is_balanced(game: str) -> None:
    for decks in known_decks(game):
        count = count_for(game, decks)
        assert count is not None
        whole = sum(k * e for k, e in zip(count.deck, count.effects, strict=True))
        size = sum(k * abs(e) for k, e in zip(count.deck, count.effects, strict=True))
        assert abs(whole) < 0.1 * size
        assert sum(k * t for k, t in zip(count.deck, count.tags, strict=True)) == 0  # balanced
        assert set(count.tags) <= {-1, 0, 1}
        # small cards out help the player, tens out hurt: the count sees it
        assert count.tag(parse_card("5S")) == 1 and count.tag(parse_card("10S")) == -1
        assert count.betting_correlation == pytest.approx(
            betting_correlation(count.tags, count.effects, count.deck))
        assert count.betting_correlation > 0.9
