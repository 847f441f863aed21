"""Blackjack Lucky 8 (lucky-8.txt): its clause numbers and its rules as data."""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from dealer_assist.games.clauses import COMMON_TABLE, derive_table
from dealer_assist.games.rules import GameRules
from dealer_assist.games.sidebets import LUCKY8_SPEC, PAIR_SPEC

LUCKY8_CLAUSES: Final = derive_table(
    COMMON_TABLE,
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

LUCKY8: Final = GameRules(
    key="lucky8", name="Blackjack Lucky 8", deck_range=(1, 8), area_range=(5, 7),
    specs=(PAIR_SPEC, LUCKY8_SPEC), blackjack_odds=Fraction(3, 2), dealer_hits_soft_17=False,
    double_hard_10_11_only=False, double_equal_only=False, max_hands=4, split_eights_only=False,
    surrender_against_ace=False, insurance=True, insurance_exactly_half=False,
    dealer_blackjack_vs_doubled="original", permanent_eight=False,
    dealer_card_in_initial_deal=True, shared_hand=False, clauses=LUCKY8_CLAUSES, short_name="Lucky 8",
    usual_decks=6, list_name="Lucky 8",
    rules_document=('Blackjack Lucky 8 (MBS) Game Rules, rules/lucky-8.txt',
                    'Version 5, w.e.f. 27 September 2019'),
    readings=(
        "Pair and Lucky 8's 'Two of a Kind' pay on the same rank (J, Q, K as their face).",
        'A dealer blackjack takes one original wager in all from the hands that did not bust (4.5).',
    ),
)
