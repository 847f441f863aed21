"""Point totals of hands (3.4 of each game)."""

from __future__ import annotations

from dealer_assist.base.cards import Card


def hand_value(cards: list[Card], aces_fixed_at_one: int = 0) -> tuple[int, bool]:
    """Best total and whether it is soft (an ace counted as 11, 1.1.13).

    ``aces_fixed_at_one`` aces may not count 11 (Ace Race 3.4.2: aces in the first two
    cards of a doubled hand count 1).
    """
    total = 0
    aces = 0
    for c in cards:
        points = c.points
        total += points
        if points == 1:  # only an ace counts 1 (3.4)
            aces += 1
    if aces > aces_fixed_at_one and total + 10 <= 21:
        return total + 10, True
    return total, False


def is_two_card_21(cards: list[Card]) -> bool:
    """An ace and a ten-point card as the only two cards (1.1.1/1.1.2)."""
    if len(cards) != 2:
        return False
    a = cards[0].points
    b = cards[1].points
    return (a == 1 and b == 10) or (a == 10 and b == 1)
