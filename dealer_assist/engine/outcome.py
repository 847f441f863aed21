"""What a round reports: settlements, rulings, claim decisions and what it expects next."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from dealer_assist.base.cards import Card

# Settlement and Expectation are made on nearly every event, dozens per round: immutable named tuples cost a quarter of a frozen dataclass to create.
_tuple_new: Final = tuple.__new__


class Settlement(NamedTuple):
    """One wager's outcome on one hand, with the clause that decided it."""

    player: str
    bet: str
    stake: Decimal
    result: str  # win | lose | push | surrender | returned | even_money
    net: Decimal
    rule: str
    stage: str  # interim | final
    area: int | None = None
    hand: int | None = None
    row: str | None = None  # the pay-table row that won, for people


def settlement(player: str, bet: str, stake: Decimal, result: str, net: Decimal, rule: str, stage: str,
               area: int | None = None, hand: int | None = None, row: str | None = None) -> Settlement:
    """``Settlement(...)`` without the Python-level ``__new__`` that NamedTuple generates (the engine
    makes one for every wager settled; this is a single C call, compiled or not)."""
    return _tuple_new(Settlement, (player, bet, stake, result, net, rule, stage, area, hand, row))


@dataclass(frozen=True, slots=True)
class CardMove:
    card: Card
    source: str
    dest: str


@dataclass(frozen=True, slots=True)
class Ruling:
    """A decision on an irregularity: clause, one sentence, and the cards it moved."""

    index: int
    rule: str
    ruling: str
    text: str
    moves: tuple[CardMove, ...] = ()


@dataclass(frozen=True, slots=True)
class ClaimDecision:
    index: int
    granted: tuple[str, ...]
    refused: tuple[str, ...]
    rule: str


class ControlChange(NamedTuple):
    """Who calls the decisions for an area from the event at ``event`` (its index) on, and why."""

    event: int
    area: int
    player: str | None
    rule: str


def control_change(event: int, area: int, player: str | None, rule: str) -> ControlChange:
    """``ControlChange(...)`` in one C call (see settlement())."""
    return _tuple_new(ControlChange, (event, area, player, rule))


NO_EXTRA: Final[Mapping[str, Any]] = MappingProxyType({})


class Expectation(NamedTuple):
    """What the round waits for. ``kind`` is one of: wagers, card, decision, decisions, ruling, none."""

    kind: str
    target: str | None = None  # card: "area:3/1", "dealer", "players"
    area: int | None = None
    hand: int | None = None
    player: str | None = None
    options: tuple[str, ...] = ()
    offers: tuple[dict[str, Any], ...] = ()
    pending: tuple[dict[str, Any], ...] = ()
    rule: str | None = None
    text: str | None = None
    extra: Mapping[str, Any] = NO_EXTRA  # read-only; each expectation with extras has its own dict
