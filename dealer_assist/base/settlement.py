"""The main wager against the dealer (4.3–4.6 of each game; 4.4–4.6 in Star Elements)."""

from __future__ import annotations


def main_result(player_total: int, player_blackjack: bool, dealer_total: int, dealer_blackjack: bool) -> tuple[str, str]:
    """The result of a hand that did not bust and its clause concept.

    Results: ``blackjack`` (paid at blackjack odds), ``win``, ``lose``, ``push``.
    """
    if player_blackjack:
        if dealer_blackjack:
            return "push", "push.both_blackjack"
        return "blackjack", "win.blackjack"
    if dealer_blackjack:
        return "lose", "lose.dealer_blackjack"
    if dealer_total > 21:
        return "win", "win.dealer_bust"
    if player_total > dealer_total:
        return "win", "win.higher"
    if player_total < dealer_total:
        return "lose", "lose.lower"
    return "push", "push.equal"


def dealer_blackjack_concept(from_split: bool) -> str:
    """Which clause takes a split or doubled hand against a dealer blackjack."""
    return "dealer_blackjack.split" if from_split else "dealer_blackjack.doubled"
