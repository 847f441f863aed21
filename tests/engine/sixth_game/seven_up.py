"""Seven Up Blackjack (invented for the tests), as a game module is: its deck, its clause
numbers and its rules as data. A 36-card deck (A-9 of four suits, no tens or faces), the
dealer hits soft 17; its side bets are in ``side_bets``."""

from __future__ import annotations

from fractions import Fraction

from dealer_assist.base.cards import Card, make_card
from dealer_assist.games import GAMES, GameRules
from tests.engine.sixth_game.side_bets import LUCKY_SEVENS, PAT_HAND


def seven_up_deck() -> tuple[Card, ...]:
    return tuple(make_card(r, s) for s in ("S", "H", "D", "C") for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9"))


# Its own clause numbers: another game's table as a start, then this game's own numbering.
CLAUSES = {**GAMES["lucky8"].clauses, "side.lucky_sevens": "3.15.7", "side.pat_hand": "3.15.8",
           "lose.lower": "4.4.9", "push.equal": "4.6.9", "void.foreign_card": "5.1.7"}

SEVEN_UP = GameRules(
    key="seven_up", name="Seven Up Blackjack", deck_range=(1, 4), area_range=(1, 7),
    specs=(LUCKY_SEVENS, PAT_HAND), blackjack_odds=Fraction(3, 2), dealer_hits_soft_17=True,
    double_hard_10_11_only=False, double_equal_only=False, max_hands=4, split_eights_only=False,
    surrender_against_ace=False, insurance=True, insurance_exactly_half=False, dealer_blackjack_vs_doubled="all",
    permanent_eight=False, dealer_card_in_initial_deal=True, shared_hand=False, clauses=CLAUSES,
    deck=seven_up_deck, short_name="Seven Up",
)
