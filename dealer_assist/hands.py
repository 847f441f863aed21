"""Point totals of hands (3.4 of each game)."""

from __future__ import annotations

from collections.abc import Sequence

from dealer_assist.cards import Card


def hand_value(cards: Sequence[Card], aces_fixed_at_one: int = 0) -> tuple[int, bool]:
    """Best total and whether it is soft (an ace counted as 11, 1.1.13).

    ``aces_fixed_at_one`` aces may not count 11 (Ace Race 3.4.2: aces in the first two
    cards of a doubled hand count 1).
    """
    total = 0
    aces = 0
    for c in cards:
        total += c.points
        if c.rank == "A":
            aces += 1
    if aces > aces_fixed_at_one and total + 10 <= 21:
        return total + 10, True
    return total, False


def is_two_card_21(cards: Sequence[Card]) -> bool:
    """An ace and a ten-point card as the only two cards (1.1.1/1.1.2)."""
    return len(cards) == 2 and (
        (cards[0].rank == "A" and cards[1].points == 10)
        or (cards[1].rank == "A" and cards[0].points == 10)
    )
