"""What the program knows about the shoe between shuffles (5.1, 5.19, 5.20).

Pure bookkeeping, no I/O: every card the shoe delivered since the last shuffle,
how many of each card remain, and whether the cut card has come out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from dealer_assist.cards import Card


@dataclass(frozen=True, slots=True)
class ForeignCard:
    """A card that cannot belong to this shoe: wrong composition, or one copy too many (5.1)."""

    card: Card
    reason: str


@dataclass
class ShoeState:
    """The shoe since the last shuffle: composition × decks, cards dealt, cut card."""

    composition: tuple[Card, ...]
    decks: int
    dealt: list[Card] = field(default_factory=list)
    unread: int = 0
    cut_card_seen: bool = False
    _counts: Counter[Card] = field(default_factory=Counter)

    @property
    def size(self) -> int:
        return len(self.composition) * self.decks

    @property
    def remaining(self) -> int:
        """Cards still in the shoe (unreadable cards count as dealt)."""
        return self.size - len(self.dealt) - self.unread

    def remaining_of(self, card: Card) -> int:
        if card not in self._allowed:
            return 0
        return self.decks - self._counts[card]

    def remaining_by_rank(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.composition:
            out[c.rank] = out.get(c.rank, 0) + self.decks - self._counts[c]
        return out

    @property
    def _allowed(self) -> frozenset[Card]:
        return frozenset(self.composition)

    def check(self, card: Card) -> ForeignCard | None:
        """Whether ``card`` could come out of this shoe now; None if it could (5.1)."""
        if card not in self._allowed:
            return ForeignCard(card, f"{card} does not belong to the decks in use")
        if self._counts[card] >= self.decks:
            return ForeignCard(
                card, f"{card} would be copy {self._counts[card] + 1} in a shoe of {self.decks} decks"
            )
        return None

    def record(self, card: Card) -> ForeignCard | None:
        """Count a delivered card; returns the 5.1 problem if it cannot belong to the shoe."""
        problem = self.check(card)
        self.dealt.append(card)
        self._counts[card] += 1
        return problem

    def record_unread(self) -> None:
        self.unread += 1

    def cut_card(self) -> None:
        """The cut card came out: shuffle after this round (5.20)."""
        self.cut_card_seen = True

    def shuffle(self) -> None:
        """A freshly shuffled shoe was loaded."""
        self.dealt.clear()
        self._counts.clear()
        self.unread = 0
        self.cut_card_seen = False

    def insufficient_for(self, cards_needed: int) -> bool:
        """Too few cards remain to complete the round (5.19)."""
        return self.remaining < cards_needed
