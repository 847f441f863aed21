"""What differs between the games, as data: ``GameRules`` (one instance per game, in its own module)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final

from dealer_assist.base.cards import Card, standard_deck
from dealer_assist.games.sidebets import SideBetSpec

# Odds of insurance (4.1 of each game).
INSURANCE_ODDS: Final = Fraction(2, 1)

_COMMON_BET_NAMES: Final[dict[str, str]] = {"main": "Main", "insurance": "Insurance"}


@dataclass(frozen=True)
class GameRules:
    """Everything that differs between the games, as data."""

    key: str
    name: str
    deck_range: tuple[int, int]
    area_range: tuple[int, int]
    specs: tuple[SideBetSpec, ...]  # the side bets, in the layout's order
    blackjack_odds: Fraction | None
    dealer_hits_soft_17: bool
    double_hard_10_11_only: bool
    double_equal_only: bool
    max_hands: int
    split_eights_only: bool
    surrender_against_ace: bool
    insurance: bool
    insurance_exactly_half: bool
    # "all": a dealer blackjack takes everything on doubled/split hands; "original": one original wager.
    dealer_blackjack_vs_doubled: str | None
    permanent_eight: bool
    dealer_card_in_initial_deal: bool
    shared_hand: bool
    clauses: dict[str, str] = field(repr=False)
    deck: Callable[[], tuple[Card, ...]] = standard_deck  # one deck (2.1)
    short_name: str = ""  # in refusals: "Ace Race doubles only on hard 10 or 11"
    main_bonus: SideBetSpec | None = None  # paid on main wagers (Dueling 8's 6-7-8, 1.1.2)
    usual_decks: int = 0  # the deck count it is usually dealt with (0: 6, within its 2.1 range)
    list_name: str = ""  # its name in lists: the review's filter and columns, the bench (else short_name)
    # the rules document the game is played by: its title and file, its revision as its header
    # states it (par sheets name both; tests/odds/test_par_sheet_36.py reads the headers)
    rules_document: tuple[str, str] = ("", "")
    readings: tuple[str, ...] = field(default=(), repr=False)  # readings (DESIGN.md) that move a figure

    @property
    def decks_usual(self) -> int:
        """The deck count used when none is given (bench, odds): within the game's 2.1 range."""
        lo, hi = self.deck_range
        return self.usual_decks or min(max(6, lo), hi)

    @property
    def display_name(self) -> str:
        """The game's name in lists and filters (the review, the bench)."""
        return self.list_name or self.short_name or self.name

    @property
    def composition(self) -> tuple[Card, ...]:
        return self.deck()

    @property
    def side_bets(self) -> tuple[str, ...]:
        return tuple(s.key for s in self.specs)

    def spec(self, bet: str) -> SideBetSpec | None:
        """The side bet ``bet`` of this game, or None."""
        for s in self.specs:
            if s.key == bet:
                return s
        return None

    @property
    def top_odds(self) -> Fraction:
        """The best odds any wager of the game can be paid (sanity checks, the auditor)."""
        rows = [r for s in self.specs for r in s.rows]
        if self.main_bonus is not None:
            rows.extend(self.main_bonus.rows)
        return max([r.odds for r in rows] + [INSURANCE_ODDS])

    def clause(self, concept: str) -> str:
        """This game's clause number for ``concept`` (KeyError if the game has no such rule)."""
        return self.clauses[concept]

    def has(self, concept: str) -> bool:
        return concept in self.clauses

    def bet_name(self, bet: str) -> str:
        """The display name of a wager kind (``tie18`` -> ``Tie on 18``)."""
        if bet in _COMMON_BET_NAMES:
            return _COMMON_BET_NAMES[bet]
        spec = self.spec(bet)
        if spec is None and self.main_bonus is not None and self.main_bonus.key == bet:
            spec = self.main_bonus
        return spec.name if spec is not None else bet
