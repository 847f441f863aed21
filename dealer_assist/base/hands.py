"""Point totals of hands (3.4 of each game)."""

from __future__ import annotations

from dealer_assist.base.cards import Card


class RunningHand:
    """A hand's cards with running totals: ``hard`` (every ace counted 1, 3.4) and ``aces``,
    so its value is not summed again on every question. The best total counts an ace 11
    where that does not bust the hand (1.1.13), except ``aces_fixed`` aces that may not
    (Ace Race 3.4.2) — the rule as ``hand_value`` has it for a plain list of cards.

    ``cards`` changes only through these methods (the deal: ``add_card``; a split:
    ``take_last``; section 5's corrections: ``remove_card``, ``keep_first``), which keep
    the totals. The table's hand and Electronic's terminal hand are this class with their
    wagers added.
    """

    __slots__ = ("cards", "hard", "aces", "aces_fixed")

    def __init__(self, cards: list[Card]) -> None:
        self.cards = cards
        self.aces_fixed = 0
        self.hard = 0
        self.aces = 0
        self.recount()

    def recount(self) -> None:
        """Count the totals afresh from ``cards``."""
        hard = aces = 0
        for c in self.cards:
            points = c.points
            hard += points
            if points == 1:
                aces += 1
        self.hard = hard
        self.aces = aces

    def add_card(self, card: Card) -> None:
        self.cards.append(card)
        points = card.points
        self.hard += points
        if points == 1:
            self.aces += 1

    def take_last(self) -> Card:
        """Remove the last card (a split) and return it."""
        card = self.cards.pop()
        points = card.points
        self.hard -= points
        if points == 1:
            self.aces -= 1
        return card

    def remove_card(self, card: Card) -> None:
        """Take the last copy of ``card`` out of the hand (a card found where it does not
        belong); ValueError if the hand does not hold it."""
        cards = self.cards
        del cards[len(cards) - 1 - cards[::-1].index(card)]
        self.recount()

    def keep_first(self, count: int) -> None:
        """Keep the first ``count`` cards and discard the rest."""
        del self.cards[count:]
        self.recount()

    def total(self) -> int:
        """The best total (an ace counts 11 where that does not bust it, 1.1.13)."""
        hard = self.hard
        if self.aces > self.aces_fixed and hard <= 11:
            return hard + 10
        return hard

    def value(self) -> tuple[int, bool]:
        """The best total and whether it is soft."""
        hard = self.hard
        if self.aces > self.aces_fixed and hard <= 11:
            return hard + 10, True
        return hard, False

    def two_card_21(self) -> bool:
        """An ace and a ten-point card as the only two cards (1.1.1/1.1.2)."""
        return self.hard == 11 and self.aces == 1 and len(self.cards) == 2


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
