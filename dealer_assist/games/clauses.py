"""The clause table every table game starts from: concept -> clause number (Ace Race, Lucky 8
and Star Elements numbering); each game's module changes what its own document numbers otherwise."""

from __future__ import annotations

from typing import Final

# Concepts every game's clause table may name. Missing concept = the game has no such rule.
COMMON_TABLE: Final[dict[str, str]] = {
    "round_of_play": "1.1.12",  # commences ... concludes when the outcome is announced and settled
    "decks": "2.1",
    "layout": "2.2",  # the layout's playing areas for each wager
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
    "claim": "3.17.2",  # players who have not agreed claim free side-bet slots
    "claim.non_controller": "3.17.2.1",
    "claim.nearest_area": "3.17.2.2",
    "claim.lowest_total": "3.17.2.3",
    "claim.equivalent": "3.17.2.4",
    "claim.no_wager": "3.17.2.5",
    "decide_after_cards": "3.14",  # a wager, the two cards, then the decisions
    "options": "3.14",  # the player's options: stand, hit, split, surrender, double, insurance
    "side_bets": "3.15",  # the side bets a player may also place
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


def derive_table(base: dict[str, str], **changes: str | None) -> dict[str, str]:
    """``base`` with ``changes`` (``a__b`` is the concept ``a.b``; None: the game has no such rule)."""
    out = dict(base)
    for key, value in changes.items():
        key = key.replace("__", ".")
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out
