"""The round's public face toward section 5 (``irregularities``) and the priority clauses
(``claims``): what those rooms may read of a table round and the few things they may ask
it to do. ``table.TableRound`` implements it; neither room imports ``table`` (no cycle)
nor touches the round's private members.

What they may do, in the round's own words: find the hand in turn, deliver a card where
the deal expects it (or record a card the shoe read), move play on, close the offers,
record a settlement, a ruling, a referral or a void; everything else is read-only state.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Protocol

from dealer_assist.cards import Card
from dealer_assist.errors import RuleRefusal
from dealer_assist.events import Event
from dealer_assist.games import GameRules
from dealer_assist.outcome import ClaimDecision, Ruling, Settlement
from dealer_assist.shoe_state import ShoeState
from dealer_assist.table_state import Area, Hand, IrregularState, TableConfig


class TablePort(Protocol):
    """A table round as section 5 and the claims see it."""

    # ---- state (read; section 5 also reshapes hands and the deal queue it reconstructs)
    config: TableConfig
    rules: GameRules
    phase: str
    areas: dict[int, Area]
    order: list[int]
    dealer: list[Card]
    absent: set[str]
    offers_open: bool
    interim_done: bool
    initial_queue: list[tuple[int, int]]
    queue_pos: int
    irregular: IrregularState | None
    placed_cards: dict[int, tuple[int, Hand | None]]
    settlements: list[Settlement]
    rulings: list[Ruling]
    claims: list[ClaimDecision]
    shoe: ShoeState

    @property
    def events(self) -> Sequence[Event]: ...

    @property
    def event_index(self) -> int:
        """The index of the event being applied (rulings and claims cite it)."""

    # ---- clauses
    def clause(self, concept: str) -> str: ...

    def refuse(self, message: str, concept: str | None = None, clause: str | None = None) -> RuleRefusal: ...

    # ---- where play stands
    def current_hand(self) -> tuple[Area, Hand] | None:
        """The hand in turn (dealing order, 3.18), or None."""

    def expected_card_target(self) -> tuple[int, int] | None:
        """(area, hand index) of the next card, (0, 0) for the dealer, None if none is due."""

    def options(self, area: Area, hand: Hand) -> tuple[str, ...]: ...

    def dealer_value(self) -> tuple[int, bool]: ...

    def dealer_stands(self) -> bool: ...

    def live_hands(self) -> list[tuple[Area, Hand]]: ...

    def outcome_established(self) -> bool: ...

    # ---- cards
    def check_shoe(self, card: Card) -> bool:
        """Record a card the shoe read (5.1); False when it voided the round."""

    def deliver(self, card: Card, target: tuple[int, int]) -> None:
        """Put a card where the deal expects it and move the round on."""

    def after_player_card(self, area: Area, hand: Hand) -> None: ...

    def after_initial_card(self) -> None: ...

    def track_run(self, area: Area, card: Card) -> None: ...

    # ---- moving play on
    def advance(self) -> None: ...

    def rewind_turn(self) -> None: ...

    def close_offers(self) -> None: ...

    def maybe_close_offers(self) -> None: ...

    def dealer_step(self) -> None: ...

    def update_controller(self, area: Area, concept: str | None) -> None: ...

    def check_one_area(self, player: str, area_no: int) -> None: ...

    # ---- records
    def record_entry(
        self, player: str, bet: str, stake: Decimal, result: str, net: Decimal, rule: str, *,
        area: int | None = None, hand: int | None = None, stage: str | None = None,
        row: str | None = None,
    ) -> None:
        """Record one settlement entry."""

    def settle_bust(self, area: Area, hand: Hand) -> None: ...

    def refer(self, text: str) -> None:
        """6.1: the round waits for the Gaming Shift Manager."""

    def void(self, rule: str, text: str) -> None: ...
