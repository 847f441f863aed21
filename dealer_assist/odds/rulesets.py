"""Rule sets for the main wager's analysis: each game's rules (from games.py) and the standard ones.

A :class:`RuleSet` says everything the combinatorial analysis of the main wager needs: the
shoe (card counts by point value, read from the game's deck in games.py), the dealer's
soft-17 rule, blackjack odds, doubling, splitting, surrender and what a dealer blackjack
takes when there is no hole card. ``for_game`` builds it from the same ``GameRules`` the
engine plays by, so a changed rule changes the analysis with it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from dealer_assist.games import GAMES, GameRules, composition_for

# Hole-card rules. "peek": the dealer checks for blackjack (a US game; the published
# reference figures). "none_all": no hole card, a dealer blackjack takes every wager on
# doubled and split hands (Ace Race 3.24.3/3.26.8, Star Elements 4.5.3). "none_original":
# no hole card, only the original wager is lost (Lucky 8 4.5, Electronic 4.7).
HOLE_CARD_RULES = ("peek", "none_all", "none_original")
# Surrender: "none"; "late" (after the peek); "early_not_ace" (before the dealer's second
# card, not against an ace: 3.25 of the table games, Electronic 3.12); "early" (Dueling 8's
# 3.20: against the permanent 8, before any further card).
SURRENDER_RULES = ("none", "late", "early_not_ace", "early")


@dataclass(frozen=True)
class RuleSet:
    """The rules of one main wager, as the analysis needs them."""

    name: str
    decks: int
    deck: tuple[int, ...]  # cards of each point value 1..10 in one deck (index 0 = aces)
    hits_soft_17: bool
    blackjack_pays: Fraction | None  # None: no blackjack (Dueling 8's)
    double_hard_10_11_only: bool  # Ace Race 1.1.3/3.26.1
    double_after_split: bool
    max_hands: int
    split_value: int | None  # only pairs of this value may split (Dueling 8's 1.1.11); None: any pair
    surrender: str
    hole_card: str
    permanent_eight: bool  # Dueling 8's 3.14: an 8 starts every hand and the dealer's, not from the shoe
    main_bonus: tuple[Fraction, Fraction] | None = None  # (all spades, other) odds of the 6-7-8 bonus
    # Electronic 1.1.2/3.15: a double is exactly the original wager; the others (3.26) allow
    # less. The analysis values a double at the full amount either way: a double of x units
    # more (0 < x <= 1) is worth (1 + x) x the one-card value (less x times a dealer blackjack's
    # cost where it takes everything): linear in x, so the best is x = 1 or not doubling, and
    # doubling for less never plays better (tests/odds/test_par_sheet_27.py checks it).
    double_equal_only: bool = False

    def with_decks(self, decks: int) -> RuleSet:
        return replace(self, decks=decks)

    @property
    def shoe(self) -> tuple[int, ...]:
        return tuple(n * self.decks for n in self.deck)

    def describe(self) -> str:
        parts = [f"{self.decks} deck{'s' if self.decks != 1 else ''}",
                 "H17" if self.hits_soft_17 else "S17",
                 f"blackjack {self.blackjack_pays.numerator}:{self.blackjack_pays.denominator}"
                 if self.blackjack_pays is not None else "no blackjack",
                 ("double 10/11" if self.double_hard_10_11_only else "double any two")
                 + (" for the full wager only" if self.double_equal_only else ""),
                 "DAS" if self.double_after_split else "no DAS",
                 f"split to {self.max_hands}",
                 {"none": "no surrender", "late": "late surrender",
                  "early_not_ace": "surrender before the dealer's second card (not against an ace)",
                  "early": "surrender against the 8"}[self.surrender],
                 "no hole card" if self.blackjack_pays is None else
                 {"peek": "dealer peeks", "none_all": "no hole card, dealer blackjack takes all",
                  "none_original": "no hole card, dealer blackjack takes the original wager only"}[self.hole_card]]
        if self.permanent_eight:
            parts.append("permanent 8 of spades")
        return ", ".join(parts)


def deck_by_value(game: str) -> tuple[int, ...]:
    """Cards of each point value in one deck of ``game`` (games.py's ``composition_for``)."""
    counts = [0] * 10
    for c in composition_for(game):
        counts[c.points - 1] += 1
    return tuple(counts)


def for_game(game: str, decks: int | None = None) -> RuleSet:
    """The main wager of ``game`` as the engine plays it (games.py), at ``decks`` decks."""
    rules: GameRules = GAMES[game]
    n = decks if decks is not None else usual_decks(game)
    bonus = None
    if rules.main_bonus is not None:  # paid on the main wager (Dueling 8's 4.1.1): (all spades, other)
        bonus = (rules.main_bonus.rows[0].odds, rules.main_bonus.rows[1].odds)
    if rules.dealer_blackjack_vs_doubled is None:
        hole = "none_all"  # Dueling 8's: the dealer cannot make a blackjack
    else:
        hole = "none_all" if rules.dealer_blackjack_vs_doubled == "all" else "none_original"
    return RuleSet(
        name=rules.name,
        decks=n,
        deck=deck_by_value(game),
        hits_soft_17=rules.dealer_hits_soft_17,
        blackjack_pays=rules.blackjack_odds,
        double_hard_10_11_only=rules.double_hard_10_11_only,
        # Every game doubles the first two cards of a split pair (3.26.2; Electronic 3.15.2).
        double_after_split=True,
        max_hands=rules.max_hands,
        split_value=8 if rules.split_eights_only else None,
        # Surrender before the subsequent deal: not against an ace (3.25; Electronic 1.1.17),
        # except Dueling 8's, whose dealer shows the permanent 8 (3.20).
        surrender="early" if rules.surrender_against_ace else "early_not_ace",
        hole_card=hole,
        permanent_eight=rules.permanent_eight,
        main_bonus=bonus,
        double_equal_only=rules.double_equal_only,
    )


def usual_decks(game: str) -> int:
    """The deck count ``game`` is usually dealt with (its ``GameRules.usual_decks``, within 2.1)."""
    return GAMES[game].decks_usual


def standard(decks: int, *, h17: bool, das: bool, blackjack: Fraction = Fraction(3, 2),
             surrender: str = "none", hole_card: str = "peek") -> RuleSet:
    """A standard 52-card rule set (resplit to 4 hands, aces once with one card each)."""
    return RuleSet(
        name="standard", decks=decks, deck=(4, 4, 4, 4, 4, 4, 4, 4, 4, 16), hits_soft_17=h17,
        blackjack_pays=blackjack, double_hard_10_11_only=False, double_after_split=das,
        max_hands=4, split_value=None, surrender=surrender, hole_card=hole_card,
        permanent_eight=False,
    )
