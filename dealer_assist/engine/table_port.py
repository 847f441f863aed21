"""The round's public face toward section 5 (``irregularities``) and the priority clauses
(``claims``), as four small protocols, each one idea:

- :class:`RoundRecords`: what a ruling cites and where it is written (the clause table,
  the event being applied, settlements, rulings, claims);
- :class:`TableLayout`: the table as it lies (areas, hands, the dealer's cards, the deal
  queue and what section 5 left pending) and the questions about it (the hand in turn,
  where the next card goes, a hand's options, the dealer's total);
- :class:`CardFlow`: a card reaching a place (record it from the shoe, deliver it where the
  deal expects it, or tell the round a card section 5 placed itself);
- :class:`PlayFlow`: play moving on (the turn, the offers, the dealer, control of an area,
  a referral or a void).

``claims`` needs only :class:`ClaimsPort` (records and a few looks at the layout);
``irregularities`` types each function against the smallest that serves it: records alone,
the layout alone, :class:`TableReader` (both: it reads and rules but moves nothing), or
:class:`TablePort` (all four) where it moves cards or play on. ``table.TableRound`` implements them; neither room
imports ``table`` (no cycle) nor touches the round's private members.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Protocol

from dealer_assist.base.cards import Card
from dealer_assist.base.errors import RuleRefusal
from dealer_assist.engine.events import Event
from dealer_assist.engine.outcome import ClaimDecision, Ruling, Settlement
from dealer_assist.engine.phase import Phase
from dealer_assist.engine.shoe_state import ShoeState
from dealer_assist.engine.table_state import Area, Hand, IrregularState, TableConfig
from dealer_assist.games import GameRules


class RoundRecords(Protocol):
    """What a ruling cites and where it is recorded."""

    config: TableConfig
    rules: GameRules
    phase: Phase  # read here; changed through PlayFlow.enter
    settlements: list[Settlement]
    rulings: list[Ruling]
    claims: list[ClaimDecision]

    @property
    def events(self) -> Sequence[Event]: ...

    @property
    def event_index(self) -> int:
        """The index of the event being applied (rulings and claims cite it)."""

    def clause(self, concept: str) -> str: ...

    def refuse(self, message: str, concept: str | None = None, clause: str | None = None) -> RuleRefusal: ...

    def record_entry(
        self, player: str, bet: str, stake: Decimal, result: str, net: Decimal, rule: str, *,
        area: int | None = None, hand: int | None = None, stage: str | None = None,
        row: str | None = None,
    ) -> None:
        """Record one settlement entry."""


class TableLayout(Protocol):
    """The table as it lies, and the questions section 5 asks about it (section 5 also
    reshapes hands and the deal queue it reconstructs)."""

    areas: dict[int, Area]
    order: list[int]
    dealer: list[Card]
    absent: set[str]
    shoe: ShoeState
    offers_open: bool
    interim_done: bool
    initial_queue: list[tuple[int, int]]
    queue_pos: int
    irregular: IrregularState | None
    placed_cards: dict[int, tuple[int, Hand | None]]

    def current_hand(self) -> tuple[Area, Hand] | None:
        """The hand in turn (dealing order, 3.18), or None."""

    def expected_card_target(self) -> tuple[int, int] | None:
        """(area, hand index) of the next card, (0, 0) for the dealer, None if none is due."""

    def options(self, area: Area, hand: Hand) -> tuple[str, ...]: ...

    def dealer_value(self) -> tuple[int, bool]: ...

    def dealer_stands(self) -> bool: ...

    def outcome_established(self) -> bool:
        """A wager has conclusively won or lost by the cards dealt (5.29.1)."""


class CardFlow(Protocol):
    """A card reaching its place."""

    def check_shoe(self, card: Card) -> bool:
        """Record a card the shoe read (5.1); False when it voided the round."""

    def deliver(self, card: Card, target: tuple[int, int]) -> None:
        """Put a card where the deal expects it and move the round on."""

    def track_run(self, area: Area, card: Card) -> None:
        """A card section 5 put on an area itself: the run bet's run goes on or breaks."""

    def after_player_card(self, area: Area, hand: Hand) -> None:
        """A card section 5 put on a hand itself: blackjack, bust or 21 and the turn."""

    def after_initial_card(self) -> None: ...

    def settle_bust(self, area: Area, hand: Hand) -> None: ...


class PlayFlow(Protocol):
    """Play moving on."""

    def enter(self, to: Phase) -> None:
        """Move to another phase (phase.TABLE_MOVES)."""

    def advance(self) -> None: ...

    def rewind_turn(self) -> None: ...

    def close_offers(self) -> None: ...

    def maybe_close_offers(self) -> None: ...

    def dealer_step(self) -> None: ...

    def update_controller(self, area: Area, concept: str | None) -> None: ...

    def refer(self, text: str) -> None:
        """6.1: the round waits for the Gaming Shift Manager."""

    def void(self, rule: str, text: str) -> None: ...


class ClaimsPort(RoundRecords, Protocol):
    """A table round as the priority claims see it (3.16, 3.17.2, 3.27.3/3.27.4)."""

    areas: dict[int, Area]
    dealer: list[Card]
    absent: set[str]
    offers_open: bool

    def check_one_area(self, player: str, area_no: int) -> None: ...

    def maybe_close_offers(self) -> None: ...


class TableReader(RoundRecords, TableLayout, Protocol):
    """Reads the table and records rulings and settlements; moves no card and no turn."""


class TablePort(RoundRecords, TableLayout, CardFlow, PlayFlow, Protocol):
    """A table round as section 5 sees it: all four."""
