"""Point totals of hands (3.4 of each game)."""

from __future__ import annotations

from dealer_assist.base.cards import Card


class RunningHand:
    """A hand's cards with running totals: ``hard`` (every ace counted 1, 3.4) and ``aces``,
    so its value is not summed again on every question. The best total counts an ace 11
    where that does not bust the hand (1.1.13), except ``aces_fixed`` aces that may not
    (Ace Race 3.4.2) — the rule as ``hand_value`` has it for a plain list of cards.

    Cards change through ``add_card`` and ``take_last`` (a split); a change made to ``cards``
    directly (section 5 at the tables) is noticed — the count or the last card differs —
    and the totals are counted afresh. The table's hand and Electronic's terminal hand are
    this class with their wagers added.
    """

    __slots__ = ("cards", "hard", "aces", "aces_fixed", "counted", "last")

    def __init__(self, cards: list[Card]) -> None:
        self.cards = cards
        self.aces_fixed = 0
        hard = aces = 0
        for c in cards:
            points = c.points
            hard += points
            if points == 1:
                aces += 1
        self.hard = hard
        self.aces = aces
        self.counted = len(cards)  # how many cards the totals hold, and the last of them
        self.last: Card | None = cards[-1] if cards else None

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
        self.counted = len(self.cards)
        self.last = self.cards[-1] if self.cards else None

    def add_card(self, card: Card) -> None:
        cards = self.cards
        n = len(cards)
        if n != self.counted or (n and cards[n - 1] is not self.last):
            self.recount()  # ``cards`` was changed directly
        cards.append(card)
        points = card.points
        self.hard += points
        if points == 1:
            self.aces += 1
        self.counted += 1
        self.last = card

    def take_last(self) -> Card:
        """Remove the last card (a split) and return it."""
        card = self.cards.pop()
        self.recount()
        return card

    def total(self) -> int:
        """The best total (an ace counts 11 where that does not bust it, 1.1.13)."""
        cards = self.cards  # (inline, not a call: asked several times per event)
        n = len(cards)
        if n != self.counted or (n and cards[n - 1] is not self.last):
            self.recount()
        hard = self.hard
        if self.aces > self.aces_fixed and hard <= 11:
            return hard + 10
        return hard

    def value(self) -> tuple[int, bool]:
        """The best total and whether it is soft."""
        total = self.total()
        return total, total != self.hard

    def two_card_21(self) -> bool:
        """An ace and a ten-point card as the only two cards (1.1.1/1.1.2)."""
        cards = self.cards
        if len(cards) != 2:
            return False
        if self.counted != 2 or cards[1] is not self.last:
            self.recount()
        return self.hard == 11 and self.aces == 1


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
