"""What the program knows about the shoe between shuffles (5.1, 5.19, 5.20).

Pure bookkeeping, no I/O: every card the shoe delivered since the last shuffle,
how many of each card remain, and whether the cut card has come out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from dealer_assist.base.cards import CARD_KINDS, Card
from dealer_assist.games import GAMES


@dataclass(frozen=True, slots=True)
class ForeignCard:
    """A card that cannot belong to this shoe: wrong composition, or one copy too many (5.1)."""

    card: Card
    reason: str


_KINDS: Final[dict[int, tuple[tuple[Card, ...], frozenset[Card], list[bool]]]] = {}


def _kinds(composition: tuple[Card, ...]) -> tuple[frozenset[Card], list[bool]]:
    """The distinct cards of a composition, and by ``Card.index`` whether a card is one of
    them (made once per composition: a round starts often)."""
    known = _KINDS.get(id(composition))
    if known is not None and known[0] is composition:
        return known[1], known[2]
    kinds = frozenset(composition)
    mask = [False] * CARD_KINDS
    for c in kinds:
        mask[c.index] = True
    _KINDS[id(composition)] = (composition, kinds, mask)
    return kinds, mask


class ShoeState:
    """The shoe since the last shuffle: composition × decks, cards dealt, cut card.

    ``dealt`` holds every card the shoe delivered, foreign ones included (5.1 voids
    the round, but the card was seen and stays on record). ``unread`` counts cards
    that came out without being read (NOREAD, or a double feed's unreadable cards).
    """

    # A plain class (every round makes one; a dataclass __init__ is Python code even when
    # the engine is compiled).
    def __init__(self, composition: tuple[Card, ...], decks: int, dealt: list[Card] | None = None,
                 unread: int = 0, cut_card_seen: bool = False) -> None:
        if decks < 1:
            raise ValueError(f"a shoe holds at least one deck, not {decks}")
        if not composition:
            raise ValueError("a shoe needs a deck composition")
        if unread < 0:
            raise ValueError("unread cards cannot be negative")
        self.composition = composition
        self.decks = decks
        self.dealt: list[Card] = dealt if dealt is not None else []
        self.unread = unread
        self.cut_card_seen = cut_card_seen
        self._allowed, self._allowed_index = _kinds(composition)
        # Copies seen of each card, by Card.index (a list: indexed, not hashed).
        counts = [0] * CARD_KINDS
        for c in self.dealt:
            counts[c.index] += 1
        self._counts = counts

    def __repr__(self) -> str:
        return (f"ShoeState(decks={self.decks}, dealt={len(self.dealt)}, unread={self.unread}, "
                f"cut_card_seen={self.cut_card_seen})")

    @classmethod
    def for_game(cls, game: str, decks: int) -> ShoeState:
        """A fresh shoe of ``decks`` decks of ``game`` (2.1 of its rules)."""
        return cls(GAMES[game].composition, decks)

    @property
    def size(self) -> int:
        return len(self.composition) * self.decks

    @property
    def foreign_dealt(self) -> int:
        """Dealt cards whose kind is not in the decks in use (they were never part of the shoe)."""
        allowed = self._allowed_index
        return sum(n for i, n in enumerate(self._counts) if not allowed[i])

    @property
    def remaining(self) -> int:
        """Cards still in the shoe (unreadable cards count as dealt; never below 0).

        A card not of the decks in use was an extra card: it does not lower the count.
        """
        out = self.size - (len(self.dealt) - self.foreign_dealt) - self.unread
        return max(0, out)

    @property
    def penetration(self) -> float:
        """Fraction of the shoe dealt so far (0.0 to 1.0)."""
        return 1.0 - self.remaining / self.size

    def remaining_of(self, card: Card) -> int:
        """Copies of ``card`` not yet seen (unread cards may be some of them)."""
        if card not in self._allowed:
            return 0
        return max(0, self.decks - self._counts[card.index])

    def remaining_by_rank(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.composition:
            out[c.rank] = out.get(c.rank, 0) + max(0, self.decks - self._counts[c.index])
        return out

    def check(self, card: Card) -> ForeignCard | None:
        """Whether ``card`` could come out of this shoe now; None if it could (5.1)."""
        if card not in self._allowed:
            return ForeignCard(card, f"{card} does not belong to the decks in use (5.1)")
        seen = self._counts[card.index]
        if seen >= self.decks:
            return ForeignCard(
                card,
                f"{card} would be copy {seen + 1} in a shoe of {self.decks} decks (5.1)",
            )
        return None

    def record(self, card: Card) -> ForeignCard | None:
        """Count a delivered card; returns the 5.1 problem if it cannot belong to the shoe."""
        i = card.index
        counts = self._counts
        seen = counts[i]
        # A card of the decks in use with copies left is the usual case; check() words the problem.
        problem = None if self._allowed_index[i] and seen < self.decks else self.check(card)
        self.dealt.append(card)
        counts[i] = seen + 1
        return problem

    def record_unread(self, count: int = 1) -> None:
        """``count`` cards came out without being read."""
        if count < 0:
            raise ValueError("unread cards cannot be negative")
        self.unread += count

    def record_multi(self, count: int, cards: Iterable[Card]) -> list[ForeignCard]:
        """A double feed: ``count`` cards came out together, ``cards`` are those that were read."""
        read = list(cards)
        if count < len(read):
            raise ValueError(f"{len(read)} cards read in a double feed of {count}")
        problems = [p for p in (self.record(c) for c in read) if p is not None]
        self.record_unread(count - len(read))
        return problems

    def cut_card(self) -> None:
        """The cut card came out: shuffle after this round (5.20)."""
        self.cut_card_seen = True

    def shuffle(self) -> None:
        """A freshly shuffled shoe was loaded."""
        self.dealt.clear()
        self._counts = [0] * CARD_KINDS
        self.unread = 0
        self.cut_card_seen = False

    def reshuffle_discards(self, on_table: Iterable[Card]) -> None:
        """5.19: the discards were shuffled back mid-round; only ``on_table`` stay out of the shoe.

        (5.19 in Ace Race, Lucky 8 and Star Elements; 5.16 in Dueling 8's.) A cut card
        already seen stays seen: the shoe is still shuffled after this round (5.20).
        """
        cut = self.cut_card_seen
        self.shuffle()
        self.cut_card_seen = cut
        for c in on_table:
            self.record(c)

    def insufficient_for(self, cards_needed: int) -> bool:
        """Too few cards remain to complete the round (5.19)."""
        return self.remaining < cards_needed
