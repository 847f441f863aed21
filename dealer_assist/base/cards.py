"""Cards, their notation, and the deck compositions of the five games.

Notation (spec/round-script.md): rank then suit. Ranks ``A 2 … 10 J Q K`` (``T`` is
read as 10); suits ``S H D C``, or the Star Elements elements ``Fi Go Ea Wo Wa``
(there ``J Q K`` stand for Fu, Lu, Shou). Output always writes ``10``.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import ClassVar, Final

RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
STANDARD_SUITS: Final = ("S", "H", "D", "C")
ELEMENT_SUITS: Final = ("Fi", "Go", "Ea", "Wo", "Wa")
FACES: Final = frozenset({"J", "Q", "K"})

SUIT_NAMES: Final = {
    "S": "Spades", "H": "Hearts", "D": "Diamonds", "C": "Clubs",
    "Fi": "Fire", "Go": "Gold", "Ea": "Earth", "Wo": "Wood", "Wa": "Water",
}
SUIT_SYMBOLS: Final = {
    "S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663",
    "Fi": "\u25b2", "Go": "\u2660", "Ea": "\u25cf", "Wo": "\u2660", "Wa": "\u25cf",
}
# Star Elements 1.1.9: the faces are Fu, Lu and Shou in place of J, Q, K.
ELEMENT_FACE_NAMES: Final = {"J": "Fu", "Q": "Lu", "K": "Shou"}
RED_SUITS: Final = frozenset({"H", "D"})


_POINTS: Final = {r: (1 if r == "A" else 10 if r in FACES else int(r)) for r in RANKS}


class CardNotationError(ValueError):
    """A card written in a way the notation does not allow."""


class Card:
    """One playing card: a rank and a suit (a standard suit or a Star Elements element).

    Cards are interned: ``Card("A", "S") is Card("A", "S")``, so equality and hashing are
    by identity and cost nothing on the engine's hot path. Immutable.
    """

    __slots__ = ("rank", "suit", "points", "index")
    _interned: ClassVar[dict[tuple[str, str], Card]] = {}

    rank: str
    suit: str
    points: int  # point value with an ace as 1 (3.4): 2–10 face value, J/Q/K 10
    index: int  # a small integer of its own, 0 to CARD_KINDS - 1 (tables indexed by card)

    def __new__(cls, rank: str, suit: str) -> Card:
        key = (rank, suit)
        found = cls._interned.get(key)
        if found is not None:
            return found
        if rank not in _POINTS or suit not in SUIT_NAMES:
            raise CardNotationError(f"'{rank}{suit}' is not a card")
        obj = super().__new__(cls)
        object.__setattr__(obj, "rank", rank)
        object.__setattr__(obj, "suit", suit)
        object.__setattr__(obj, "points", _POINTS[rank])
        object.__setattr__(obj, "index", len(cls._interned))
        cls._interned[key] = obj
        return obj

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Card is immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[str, str]]:
        return (Card, (self.rank, self.suit))

    @property
    def is_ace(self) -> bool:
        return self.rank == "A"

    @property
    def is_face(self) -> bool:
        return self.rank in FACES

    @property
    def is_element(self) -> bool:
        return self.suit in ELEMENT_SUITS

    @property
    def is_red(self) -> bool:
        """Colour for Ace Race's Coloured/Mixed Pair (1.1.1): hearts and diamonds are red."""
        return self.suit in RED_SUITS

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card({self.rank}{self.suit})"

    def display_name(self) -> str:
        """A name for people: ``10♥``, ``Shou (Fire)``."""
        if self.suit in ELEMENT_SUITS:
            rank = ELEMENT_FACE_NAMES.get(self.rank, self.rank)
            return f"{rank} {SUIT_NAMES[self.suit]}"
        return f"{self.rank}{SUIT_SYMBOLS[self.suit]}"



# Every card that exists, interned: parsing is one dictionary look-up.
_ALL: Final[dict[str, Card]] = {}
for _suit in STANDARD_SUITS + ELEMENT_SUITS:
    for _rank in RANKS:
        _ALL[_rank + _suit] = Card(_rank, _suit)
for _suit in STANDARD_SUITS + ELEMENT_SUITS:
    _ALL["T" + _suit] = _ALL["10" + _suit]
_LOWER: Final = {k.lower(): v for k, v in _ALL.items()}
# How many cards exist (every rank in every suit): ``Card.index`` is below it.
CARD_KINDS: Final = len(RANKS) * (len(STANDARD_SUITS) + len(ELEMENT_SUITS))


def parse_card(text: str) -> Card:
    """Parse ``"10H"``, ``"TH"``, ``"7Wa"``, ``"KFi"`` (case-insensitive)."""
    if not isinstance(text, str):
        raise CardNotationError(f"a card is written as text like '10H', not {text!r}")
    card = _ALL.get(text) or _LOWER.get(text.strip().lower())
    if card is None:
        raise CardNotationError(
            f"'{text}' is not a card: write rank (A 2-10 J Q K, T for 10) then suit "
            "(S H D C, or Fi Go Ea Wo Wa for Star Elements)"
        )
    return card


def card(text: str) -> Card:
    """Shorthand for :func:`parse_card`."""
    return parse_card(text)


def cards(text: str) -> tuple[Card, ...]:
    """Parse white-space separated cards: ``cards("AS 10H 7Wa")``."""
    return tuple(parse_card(t) for t in text.split())


def make_card(rank: str, suit: str) -> Card:
    """The card of this rank and suit (both as in the notation)."""
    return parse_card(rank + suit)


# Deck compositions (2.1 of each game).
@cache
def standard_deck() -> tuple[Card, ...]:
    """52 cards, four standard suits."""
    return tuple(_ALL[r + s] for s in STANDARD_SUITS for r in RANKS)


@cache
def element_deck() -> tuple[Card, ...]:
    """Star Elements 2.1: 65 cards, thirteen ranks in each of five elements."""
    return tuple(_ALL[r + s] for s in ELEMENT_SUITS for r in RANKS)


@cache
def no_tens_deck() -> tuple[Card, ...]:
    """Dueling 8's 2.1: 48 cards, the four 10s removed (J, Q, K stay)."""
    return tuple(_ALL[r + s] for s in STANDARD_SUITS for r in RANKS if r != "10")


def shoe_counts(deck: tuple[Card, ...], decks: int) -> Counter[Card]:
    """How many of each card a shoe of ``decks`` decks holds."""
    return Counter({c: decks for c in deck})
