"""The five games as data: deck, limits of play, pay tables' odds and each game's clause numbers.

Each game numbers its clauses its own way (Dueling 8's and Electronic differ); code asks
``rules.clause("double.amount")`` and cites what the game's own document says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final

from dealer_assist.base.cards import Card, element_deck, no_tens_deck, standard_deck
from dealer_assist.games import sidebets as sb

# Concepts every game's clause table may name. Missing concept = the game has no such rule.
_COMMON_TABLE: Final[dict[str, str]] = {
    "decks": "2.1",
    "limits": "3.6",  # within the minimum and maximum limits displayed at the table
    "bets_closed": "5.3",
    "no_withdraw": "5.4",
    "max_wagers_area": "3.10",
    "pit_restrict_wagers": "3.10.1",
    "no_separate": "3.10.2",
    "call_decisions": "3.8",
    "pit_restrict_area": "3.9",
    "control_seated": "3.11",
    "control_front": "3.12",
    "side_needs_main": "3.15.3",
    "side_priority": "3.16",
    "side_slots": "3.17.1",
    "claim.non_controller": "3.17.2.1",
    "claim.nearest_area": "3.17.2.2",
    "claim.lowest_total": "3.17.2.3",
    "claim.equivalent": "3.17.2.4",
    "claim.no_wager": "3.17.2.5",
    "decide_after_cards": "3.14",  # a wager, the two cards, then the decisions
    "deal_order": "3.18",
    "even_money": "3.20",
    "split": "3.21",
    "split.no_blackjack": "3.21.1",
    "split.max_hands": "3.22",
    "split.aces_once": "3.22.1",
    "split.aces_again": "3.22.1/3.23.1",  # a split ace: split once, one card, no decision
    "split.order": "3.23",
    "split.aces_one_card": "3.23.1",
    "split.resplit": "3.23.2",
    "split.followers": "3.24",
    "split.follower_match": "3.24.1",
    "split.follower_stay": "3.24.2",
    "surrender": "3.25",
    "surrender.offer": "3.25.1",
    "surrender.after_split": "3.25.1.1",
    "surrender.each_player": "3.25.1.2",
    "surrender.control_passes": "3.25.1.3",
    "double": "3.26",
    "double.first_two": "3.26.1",
    "double.split_pair": "3.26.2",
    "double.split_aces": "3.26.3",
    "double.one_card": "3.26.4",
    "double.followers": "3.26.5",
    "double.followers_one_card": "3.26.6",
    "double.controller_first": "3.26.7",
    "double.amount": "1.1.2",
    "insurance": "3.27",
    "insurance.offer": "3.27.1",
    "insurance.before_subsequent": "3.27.2",
    "insurance.declined": "3.27.3",
    "insurance.same_area": "3.27.4.1",
    "insurance.nearest_area": "3.27.4.2",
    "insurance.lowest_total": "3.27.4.3",
    "insurance.equivalent": "3.27.4.4",
    "insurance.no_wager": "3.27.4.5",
    "stand": "3.28",
    "hit": "3.29",
    "twenty_one_stops": "3.30",
    "bust": "3.32",
    "dealer_draws": "3.34",
    "dealer_no_effect": "3.35",
    "pays": "4.1",
    "win.blackjack": "4.3.1",
    "win.higher": "4.3.2",
    "win.dealer_bust": "4.3.3",
    "lose.lower": "4.4.1",
    "lose.bust": "4.4.2",
    "lose.dealer_blackjack": "4.4.3",
    "push.equal": "4.5.1",
    "push.both_blackjack": "4.5.2",
    "void.foreign_card": "5.1",
    "void.cannot_reconstruct": "5.2",
    "face_up_card": "5.5",
    "misdeal": "5.6",
    "misdeal.reconstruct": "5.6.1",
    "misdeal.after_interim": "5.6.2",
    "dealer_completed": "5.7",
    "card_in_error": "5.8",
    "card_refused": "5.9",
    "card_refused_all": "5.10",
    "dealer_no_card.reconstruct": "5.11",
    "dealer_no_card.draw": "5.12",
    "dealer_no_card.complete_hand": "5.12.1",
    "dealer_no_card.offers": "5.12.2",
    "one_card.reconstruct": "5.13",
    "no_cards.returned": "5.14",
    "no_wager_cards.discard": "5.15",
    "one_card.option": "5.16",
    "one_card.act": "5.16.1",
    "one_card.withdraw": "5.16.2",
    "skipped.undisclosed": "5.17",
    "skipped.stood": "5.18",
    "insufficient_cards": "5.19",
    "cut_card": "5.20",
    "burn.reconstruct": "5.21.1",
    "burn.stays": "5.21.2",
    "absent": "5.22",
    "absent.other_player": "5.22.1",
    "multi": "5.23",
    "multi.none_disclosed": "5.23.1",
    "multi.one_disclosed": "5.23.2",
    "multi.several_disclosed": "5.23.3",
    "multi.offered_on": "5.23.3.1",
    "multi.dealer": "5.23.4",
    "multi.dealer_none": "5.23.4.1",
    "multi.dealer_one": "5.23.4.3",
    "multi.dealer_both": "5.23.4.5",
    "refuse_stands": "5.24",
    "withdraw_after_ruling": "5.25",
    "under_min": "5.26",
    "over_max": "5.27",
    "power_failure": "5.29",
    "power_failure.withdraw": "5.29.1",
    "power_failure.continue": "5.29.2",
    "refer": "6.1",
}


def _table(base: dict[str, str], **changes: str | None) -> dict[str, str]:
    out = dict(base)
    for key, value in changes.items():
        key = key.replace("__", ".")
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


ACE_RACE_CLAUSES: Final = _table(
    _COMMON_TABLE,
    **{
        "split.no_blackjack": "3.21.2",
        "split.ace_race_wager": "3.21.1",
        "double.amount": "1.1.3",
        "double.hard_total": "3.26.1",
        "double.aces_count_one": "3.4.2",
        "dealer_blackjack.doubled": "3.26.8",
        "dealer_blackjack.split": "3.24.3",
        "side.pair": "3.15.1",
        "side.ace_race": "3.15.2",
    },
)

LUCKY8_CLAUSES: Final = _table(
    _COMMON_TABLE,
    **{
        "dealer_blackjack.original_only": "4.5",
        "dealer_blackjack.doubled": "4.5.1",
        "dealer_blackjack.split": "4.5.2",
        "push.equal": "4.6.1",
        "push.both_blackjack": "4.6.2",
        "side.pair": "3.15.1",
        "side.lucky8": "3.15.2",
    },
)

STAR_ELEMENTS_CLAUSES: Final = _table(
    _COMMON_TABLE,
    **{
        "side_needs_main": "3.15.4",
        "win.blackjack": "4.4.1",
        "win.higher": "4.4.2",
        "win.dealer_bust": "4.4.3",
        "lose.lower": "4.5.1",
        "lose.bust": "4.5.2",
        "lose.dealer_blackjack": "4.5.3",
        "dealer_blackjack.doubled": "4.5.3",
        "dealer_blackjack.split": "4.5.3",
        "push.equal": "4.6.1",
        "push.both_blackjack": "4.6.2",
        "side.pair": "3.15.1",
        "side.super_sevens": "3.15.2",
        "side.three_stars": "3.15.3",
    },
)

DUELING8S_CLAUSES: Final = _table(
    _COMMON_TABLE,
    **{
        "permanent_eight": "3.14",
        "decide_after_cards": "3.15",
        "side_needs_main": "3.16.4",
        "side_priority": "3.17",
        "side_slots": "3.18.1",
        "claim.non_controller": "3.18.2.1",
        "claim.nearest_area": "3.18.2.2",
        "claim.lowest_total": "3.18.2.3",
        "claim.equivalent": "3.18.2.4",
        "claim.no_wager": "3.18.2.5",
        "deal_order": "3.19",
        "surrender": "3.20",
        "surrender.offer": "3.20.1",
        "surrender.after_split": "3.20.1.1",
        "surrender.each_player": "3.20.1.2",
        "surrender.control_passes": "3.20.1.3",
        "split": "3.21",
        "split.no_blackjack": None,
        "split.aces_once": None,
        "split.aces_again": None,
        "split.aces_one_card": None,
        "split.order": "3.23",
        "split.tie18": "3.23.1",
        "split.no_more_side": "3.23.2",
        "split.resplit": "3.23.3",
        "split.follower_tie18": "3.25",
        "double.first_two": "3.26.1",
        "double.split_pair": "3.26.2",
        "double.split_aces": None,
        "double.one_card": "3.26.3",
        "double.followers": "3.26.4",
        "double.followers_one_card": "3.26.5",
        "double.controller_first": "3.26.6",
        "double.amount": "1.1.3",
        "even_money": None,
        "insurance": None,
        "stand": "3.27",
        "hit": "3.28",
        "twenty_one_stops": "3.29",
        "bust": "3.31",
        "dealer_draws": "3.33",
        "dealer_no_effect": "3.33.1",
        "dealer_for_21plus": "3.33.1",
        "win.blackjack": None,
        "win.higher": "4.4.1",
        "win.dealer_bust": "4.4.2",
        "lose.lower": "4.5.1",
        "lose.bust": "4.5.2",
        "lose.dealer_blackjack": None,
        "push.equal": "4.6.1",
        "push.both_blackjack": None,
        "side.superb8": "3.16.1",
        "side.tie18": "3.16.2",
        "side.plus21": "3.16.3",
        "card_in_error": "5.8",
        "dealer_no_card.reconstruct": None,
        "dealer_no_card.draw": None,
        "dealer_no_card.complete_hand": None,
        "dealer_no_card.offers": None,
        "one_card.reconstruct": "5.11",
        "no_cards.returned": "5.12",
        "no_wager_cards.discard": "5.13",
        "one_card.option": None,
        "one_card.act": None,
        "one_card.withdraw": None,
        "skipped.undisclosed": "5.14",
        "skipped.stood": "5.15",
        "insufficient_cards": "5.16",
        "cut_card": "5.17",
        "burn.reconstruct": "5.18.1",
        "burn.stays": "5.18.2",
        "absent": "5.19",
        "absent.other_player": "5.19.1",
        "multi": "5.20",
        "multi.none_disclosed": "5.20.1",
        "multi.one_disclosed": "5.20.2",
        "multi.several_disclosed": "5.20.3",
        "multi.offered_on": "5.20.3.1",
        "multi.dealer": "5.20.4",
        "multi.dealer_none": "5.20.4.1",
        "multi.dealer_one": "5.20.4.3",
        "multi.dealer_both": "5.20.4.5",
        "refuse_stands": "5.21",
        "withdraw_after_ruling": "5.22",
        "under_min": "5.23",
        "over_max": "5.24",
        "power_failure": "5.26",
        "power_failure.withdraw": "5.26.1",
        "power_failure.continue": "5.26.2",
    },
)

ELECTRONIC_CLAUSES: Final[dict[str, str]] = {
    "decks": "2.1",
    "limits": "2.2",
    "bets_closed": "5.3",
    "no_withdraw": "5.4",
    "main_required": "3.5",
    "side_needs_main": "3.5",
    "deal_order": "3.7",
    "shared_hand": "3.8",
    "options": "3.9",
    "even_money": "3.10.1",
    "insurance": "3.11",
    "insurance.amount": "1.1.8",
    "surrender": "3.12",
    "surrender.not_ace": "1.1.17",
    "surrender.after_split": "3.12",
    "split": "3.13",
    "split.order": "3.13.1",
    "split.resplit": "3.14",
    "split.aces_one_card": "3.14.1",
    "split.no_blackjack": "3.14.2",
    "split.max_hands": "3.14.3",
    "split.aces_once": "3.14.3",
    "split.aces_again": "3.14.1/3.14.3",  # a split ace: one card, no decision; aces split once
    "double": "3.15",
    "double.first_two": "3.15.1",
    "double.split_pair": "3.15.2",
    "double.split_aces": "3.15.3",
    "double.one_card": "3.15.4",
    "double.amount": "1.1.2",
    "dealer_blackjack.original_only": "3.15.5",
    "dealer_blackjack.doubled": "4.7.1",
    "dealer_blackjack.split": "4.7.2",
    "twenty_one_stops": "3.16",
    "hit": "1.1.6",
    "stand": "3.9",
    "decision_time": "3.17",
    "default_strategy": "3.18.1",
    "subsequent_cards": "3.18.2",
    "dealer_draws": "3.19",
    "dealer_no_effect": "3.20",
    "pays": "4.1",
    "side.bet_the_set": "3.6.1",
    "side.royal_match": "3.6.2",
    "side.kings_bounty": "3.6.3",
    "win.blackjack": "4.5.1",
    "win.higher": "4.5.2",
    "win.dealer_bust": "4.5.3",
    "lose.lower": "4.6.1",
    "lose.bust": "4.6.2",
    "lose.dealer_blackjack": "4.6.3",
    "push.equal": "4.8.1",
    "push.both_blackjack": "4.8.2",
    "void.foreign_card": "5.1",
    "misdeal.reconstruct": "5.2",
    "face_up_card": "5.5",
    "dealer_completed": "5.6",
    "multi.order_known": "5.7",
    "multi.order_unknown": "5.8",
    "power_failure": "5.9",
    "power_failure.accepted": "5.9.1",
    "power_failure.not_accepted": "5.9.2",
    "refer": "6.1",
}


_COMMON_BET_NAMES: Final[dict[str, str]] = {"main": "Main", "insurance": "Insurance"}


@dataclass(frozen=True)
class GameRules:
    """Everything that differs between the games, as data."""

    key: str
    name: str
    deck_range: tuple[int, int]
    area_range: tuple[int, int]
    specs: tuple[sb.SideBetSpec, ...]  # the side bets, in the layout's order
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
    main_bonus: sb.SideBetSpec | None = None  # paid on main wagers (Dueling 8's 6-7-8, 1.1.2)
    usual_decks: int = 0  # the deck count it is usually dealt with (0: 6, within its 2.1 range)
    list_name: str = ""  # its name in lists: the review's filter and columns, the bench (else short_name)

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

    def spec(self, bet: str) -> sb.SideBetSpec | None:
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


ACE_RACE: Final = GameRules(
    key="ace_race", name="Blackjack Ace Race", deck_range=(2, 8), area_range=(5, 7),
    specs=(sb.PAIR_SPEC, sb.ACE_RACE_SPEC), blackjack_odds=Fraction(6, 5), dealer_hits_soft_17=True,
    double_hard_10_11_only=True, double_equal_only=False, max_hands=4, split_eights_only=False,
    surrender_against_ace=False, insurance=True, insurance_exactly_half=False,
    dealer_blackjack_vs_doubled="all", permanent_eight=False, dealer_card_in_initial_deal=True,
    shared_hand=False, clauses=ACE_RACE_CLAUSES, short_name="Ace Race",
    usual_decks=6, list_name="Ace Race",
)
LUCKY8: Final = GameRules(
    key="lucky8", name="Blackjack Lucky 8", deck_range=(1, 8), area_range=(5, 7),
    specs=(sb.PAIR_SPEC, sb.LUCKY8_SPEC), blackjack_odds=Fraction(3, 2), dealer_hits_soft_17=False,
    double_hard_10_11_only=False, double_equal_only=False, max_hands=4, split_eights_only=False,
    surrender_against_ace=False, insurance=True, insurance_exactly_half=False,
    dealer_blackjack_vs_doubled="original", permanent_eight=False,
    dealer_card_in_initial_deal=True, shared_hand=False, clauses=LUCKY8_CLAUSES, short_name="Lucky 8",
    usual_decks=6, list_name="Lucky 8",
)
STAR_ELEMENTS: Final = GameRules(
    key="star_elements", name="Star Elements Blackjack", deck_range=(4, 6), area_range=(1, 7),
    specs=(sb.PAIR_SPEC, sb.SUPER_SEVENS_SPEC, sb.THREE_STARS_SPEC), blackjack_odds=Fraction(3, 2),
    dealer_hits_soft_17=False, double_hard_10_11_only=False, double_equal_only=False,
    max_hands=4, split_eights_only=False, surrender_against_ace=False, insurance=True,
    insurance_exactly_half=False, dealer_blackjack_vs_doubled="all", permanent_eight=False,
    dealer_card_in_initial_deal=True, shared_hand=False, clauses=STAR_ELEMENTS_CLAUSES, short_name="Star Elements", deck=element_deck,
    usual_decks=6, list_name="Star Elements",
)
DUELING8S: Final = GameRules(
    key="dueling8s", name="Dueling 8's 21+", deck_range=(3, 8), area_range=(1, 7),
    specs=(sb.SUPERB8_SPEC, sb.TIE18_SPEC, sb.PLUS21_SPEC), blackjack_odds=None, dealer_hits_soft_17=False,
    double_hard_10_11_only=False, double_equal_only=False, max_hands=4, split_eights_only=True,
    surrender_against_ace=True, insurance=False, insurance_exactly_half=False,
    dealer_blackjack_vs_doubled=None, permanent_eight=True, dealer_card_in_initial_deal=False,
    shared_hand=False, clauses=DUELING8S_CLAUSES, short_name="Dueling 8's", deck=no_tens_deck,
    usual_decks=6, list_name="Dueling 8's 21+",
    main_bonus=sb.BONUS678_SPEC,
)
ELECTRONIC: Final = GameRules(
    key="electronic", name="Electronic Blackjack", deck_range=(2, 6), area_range=(0, 0),
    specs=(sb.BET_THE_SET_SPEC, sb.ROYAL_MATCH_SPEC, sb.KINGS_BOUNTY_SPEC), blackjack_odds=Fraction(3, 2),
    dealer_hits_soft_17=False, double_hard_10_11_only=False, double_equal_only=True,
    max_hands=3, split_eights_only=False, surrender_against_ace=False, insurance=True,
    insurance_exactly_half=True, dealer_blackjack_vs_doubled="original", permanent_eight=False,
    dealer_card_in_initial_deal=True, shared_hand=True, clauses=ELECTRONIC_CLAUSES, short_name="Electronic Blackjack",
    usual_decks=6, list_name="Electronic",
)

GAMES: Final[dict[str, GameRules]] = {
    g.key: g for g in (ACE_RACE, ELECTRONIC, STAR_ELEMENTS, LUCKY8, DUELING8S)
}

# Odds of the main wager and insurance (4.1 of each game).
INSURANCE_ODDS: Final = Fraction(2, 1)


def composition_for(game: str) -> tuple[Card, ...]:
    """One deck of ``game`` (2.1 of its rules), from the game's data; KeyError for no such game."""
    return GAMES[game].composition
