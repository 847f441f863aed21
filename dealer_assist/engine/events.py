"""Round events: the event-sourced round is its configuration plus a list of these.

They mirror the transcript's ``events`` (spec/round-script.md) one to one; the
transcript module parses JSON into them and writes them back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from dealer_assist.base.cards import Card
from dealer_assist.base.errors import EventFormatError


@dataclass(frozen=True, slots=True)
class Target:
    """Where a card physically lies: ``area:3/2``, ``dealer``, ``discard``, ``player`` (Electronic)."""

    kind: str  # "area" | "dealer" | "discard" | "player" | "shoe"
    area: int = 0
    hand: int = 0

    def __str__(self) -> str:
        if self.kind == "area":
            return f"area:{self.area}/{self.hand}"
        return self.kind


@dataclass(frozen=True, slots=True)
class Wager:
    player: str
    bet: str
    amount: Decimal
    area: int | None = None
    hand: int | None = None
    type: str = field(default="wager", init=False)


@dataclass(frozen=True, slots=True)
class Claimant:
    player: str
    amount: Decimal


@dataclass(frozen=True, slots=True)
class Claim:
    bet: str
    area: int
    claimants: tuple[Claimant, ...]
    declined_by: str | None = None
    type: str = field(default="claim", init=False)


@dataclass(frozen=True, slots=True)
class NoMoreBets:
    type: str = field(default="no_more_bets", init=False)


@dataclass(frozen=True, slots=True)
class Burn:
    card: Card
    type: str = field(default="burn", init=False)


@dataclass(frozen=True, slots=True)
class CardDrawn:
    card: Card
    to: Target | None = None
    face_up: bool = False  # found face up in the shoe (5.5): played as if face down
    shoe_seq: int | None = None  # the shoe's own frame number (da1), for the review; no rule reads it
    type: str = field(default="card", init=False)


@dataclass(frozen=True, slots=True)
class Multi:
    cards: tuple[Card, ...]
    disclosed: tuple[Card, ...]
    order_known: bool = False
    type: str = field(default="multi", init=False)


@dataclass(frozen=True, slots=True)
class Pick:
    card: Card
    by: str  # "player" | "pit_manager"
    player: str | None = None
    type: str = field(default="pick", init=False)


@dataclass(frozen=True, slots=True)
class Correction:
    index: int
    to: Target
    type: str = field(default="correction", init=False)


@dataclass(frozen=True, slots=True)
class Decision:
    action: str
    area: int | None = None
    hand: int | None = None
    player: str | None = None
    amount: Decimal | None = None
    followers: tuple[tuple[str, str | Decimal], ...] = ()
    type: str = field(default="decision", init=False)


@dataclass(frozen=True, slots=True)
class CloseOffers:
    type: str = field(default="close_offers", init=False)


@dataclass(frozen=True, slots=True)
class Timeout:
    player: str
    type: str = field(default="timeout", init=False)


@dataclass(frozen=True, slots=True)
class Absent:
    player: str
    type: str = field(default="absent", init=False)


@dataclass(frozen=True, slots=True)
class PowerFailure:
    type: str = field(default="power_failure", init=False)


@dataclass(frozen=True, slots=True)
class Withdraw:
    player: str
    area: int | None = None
    type: str = field(default="withdraw", init=False)


@dataclass(frozen=True, slots=True)
class Void:
    reason: str
    rule: str
    type: str = field(default="void", init=False)


@dataclass(frozen=True, slots=True)
class Resolve:
    ruling: str  # "continue" | "void"
    text: str
    type: str = field(default="resolve", init=False)


Event = (
    Wager | Claim | NoMoreBets | Burn | CardDrawn | Multi | Pick | Correction | Decision
    | CloseOffers | Timeout | Absent | PowerFailure | Withdraw | Void | Resolve
)

DECISION_ACTIONS = (
    "hit", "stand", "double", "split", "surrender", "insurance", "even_money",
    "accept", "refuse", "act",
)


def card_event_at(events: Sequence[Event], index: int) -> CardDrawn:
    """The card event a correction points at (5.6; Electronic 5.2)."""
    if not 0 <= index < len(events):
        raise EventFormatError(f"there is no event {index} yet")
    found = events[index]
    if not isinstance(found, CardDrawn):
        raise EventFormatError(f"event {index} is a {found.type}, not a card")
    return found
