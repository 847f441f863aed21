"""Electronic Blackjack (electronic-blackjack.txt): its clause numbers and its rules as data."""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from dealer_assist.games.rules import GameRules
from dealer_assist.games.sidebets import BET_THE_SET_SPEC, KINGS_BOUNTY_SPEC, ROYAL_MATCH_SPEC

ELECTRONIC_CLAUSES: Final[dict[str, str]] = {
    "round_of_play": "1.1.12",  # concluding when an outcome is established
    "decks": "2.1",
    "layout": "2.2",  # the layouts are shown in the Player Terminals
    "limits": "2.2",
    "bets_closed": "5.3",
    "no_withdraw": "5.4",
    "main_required": "3.5",
    "side_needs_main": "3.5",
    "side_bets": "3.6",
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
    "no_selection": "3.18",  # no selection made in time: the default strategy decides
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

ELECTRONIC: Final = GameRules(
    key="electronic", name="Electronic Blackjack", deck_range=(2, 6), area_range=(0, 0),
    specs=(BET_THE_SET_SPEC, ROYAL_MATCH_SPEC, KINGS_BOUNTY_SPEC), blackjack_odds=Fraction(3, 2),
    dealer_hits_soft_17=False, double_hard_10_11_only=False, double_equal_only=True,
    max_hands=3, split_eights_only=False, surrender_against_ace=False, insurance=True,
    insurance_exactly_half=True, dealer_blackjack_vs_doubled="original", permanent_eight=False,
    dealer_card_in_initial_deal=True, shared_hand=True, clauses=ELECTRONIC_CLAUSES, short_name="Electronic Blackjack",
    usual_decks=6, list_name="Electronic",
    rules_document=('Electronic Blackjack (MBS) Game Rules, rules/electronic-blackjack.txt',
                    'w.e.f. 7 March 2024 (no version number printed)'),
    readings=(
        "Kings Bounty 'Suited 20' / 'Unsuited 20' (4.4): any two cards totalling 20, A-9 included, not paid by a higher row: house edge 23.16 % at 6 decks; if A-9 were not a '20' it would be 30.58 %.",
        'Bet the Set pays on the same rank (J, Q, K as their face).',
        'A dealer blackjack takes one original wager in all from the hands that did not bust (4.7).',
    ),
)
