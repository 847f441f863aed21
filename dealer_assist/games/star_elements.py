"""Star Elements Blackjack (star-elements.txt): its clause numbers and its rules as data."""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from dealer_assist.base.cards import element_deck
from dealer_assist.games.clauses import COMMON_TABLE, derive_table
from dealer_assist.games.rules import GameRules
from dealer_assist.games.sidebets import PAIR_SPEC, SUPER_SEVENS_SPEC, THREE_STARS_SPEC

STAR_ELEMENTS_CLAUSES: Final = derive_table(
    COMMON_TABLE,
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

STAR_ELEMENTS: Final = GameRules(
    key="star_elements", name="Star Elements Blackjack", deck_range=(4, 6), area_range=(1, 7),
    specs=(PAIR_SPEC, SUPER_SEVENS_SPEC, THREE_STARS_SPEC), blackjack_odds=Fraction(3, 2),
    dealer_hits_soft_17=False, double_hard_10_11_only=False, double_equal_only=False,
    max_hands=4, split_eights_only=False, surrender_against_ace=False, insurance=True,
    insurance_exactly_half=False, dealer_blackjack_vs_doubled="all", permanent_eight=False,
    dealer_card_in_initial_deal=True, shared_hand=False, clauses=STAR_ELEMENTS_CLAUSES, short_name="Star Elements", deck=element_deck,
    usual_decks=6, list_name="Star Elements",
    rules_document=('Star Elements Blackjack (MBS) Game Rules, rules/star-elements.txt',
                    'w.e.f. 17 March 2020 (no version number printed)'),
    readings=(
        'Pair pays on the same rank (Fu, Lu, Shou as their face); five suits (elements) of 13 cards.',
        'A dealer blackjack takes every wager on doubled and split hands (4.5.3).',
    ),
)
