"""Blackjack Ace Race (ace-race.txt): its clause numbers and its rules as data."""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from dealer_assist.games.clauses import COMMON_TABLE, derive_table
from dealer_assist.games.rules import GameRules
from dealer_assist.games.sidebets import ACE_RACE_SPEC, PAIR_SPEC

ACE_RACE_CLAUSES: Final = derive_table(
    COMMON_TABLE,
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

ACE_RACE: Final = GameRules(
    key="ace_race", name="Blackjack Ace Race", deck_range=(2, 8), area_range=(5, 7),
    specs=(PAIR_SPEC, ACE_RACE_SPEC), blackjack_odds=Fraction(6, 5), dealer_hits_soft_17=True,
    double_hard_10_11_only=True, double_equal_only=False, max_hands=4, split_eights_only=False,
    surrender_against_ace=False, insurance=True, insurance_exactly_half=False,
    dealer_blackjack_vs_doubled="all", permanent_eight=False, dealer_card_in_initial_deal=True,
    shared_hand=False, clauses=ACE_RACE_CLAUSES, short_name="Ace Race",
    usual_decks=6, list_name="Ace Race",
    rules_document=('Blackjack Ace Race (MBS) Game Rules, rules/ace-race.txt',
                    'Version 4, w.e.f. 27 September 2019'),
    readings=(
        "Pair and Ace Race pay on the same rank (J, Q, K as their face; 10-J is no pair): a reading by point value would pay 10-J and raise the Pair's hit frequency.",
        'Doubling on hard 10 or 11 (1.1.5, 3.26.1): A-9 may be doubled as a hard 10 (3.4.2); the analysis never doubles it (a soft 20), so the edge is the same under either reading.',
        'A dealer blackjack takes every wager on doubled and split hands (3.24.3, 3.26.8).',
    ),
)
