"""The round contract every user of the engine types against, and typed views of a round.

Both kinds of round (``table.TableRound`` for the games with playing areas,
``electronic.ElectronicRound`` for Electronic Blackjack's shared hand) implement
:class:`Round`. The transcript, the store, the simulator, the review and the dealer's
screen use nothing else of a round: its events in and refusals out, what it expects
next, what it has settled and ruled, and :meth:`Round.view` — an immutable picture of
the layout made by the engine (areas, hands, wagers, totals, badges, the hand in turn,
the dealer's hand, Electronic terminals) so that a screen never has to look inside
the round or work out a rule (a blackjack, a bust, a soft total) for itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol

from dealer_assist.engine.events import Event
from dealer_assist.engine.outcome import (
    ClaimDecision,
    ControlChange,
    Expectation,
    Ruling,
    Settlement,
)
from dealer_assist.engine.shoe_state import ShoeState
from dealer_assist.games import GameRules


@dataclass(frozen=True, slots=True)
class WagerView:
    """One wager as the layout shows it. ``amount`` is what is in play (capped at the table
    maximum, 5.27); ``placed`` what the player put down."""

    player: str
    bet: str  # the transcript's bet kind: main, pair, tie18, ...
    name: str  # the game's display name for the bet
    amount: Decimal
    placed: Decimal
    position: int | None = None  # main wagers: 1 is nearest the dealer (3.10)
    hand: int | None = None  # a side bet placed on a split hand (3.21.1, 3.23.1)
    returned: bool = False  # an under-minimum wager that is returned (5.26)


@dataclass(frozen=True, slots=True)
class HandView:
    """A hand: its cards (transcript notation), best total, and the engine's badges."""

    number: int  # from 1, in the order the hands are played (3.23)
    cards: tuple[str, ...]
    total: int
    soft: bool
    stakes: tuple[tuple[str, Decimal], ...] = ()  # every player's stake on it (table games)
    blackjack: bool = False
    bust: bool = False
    doubled: bool = False
    surrendered: bool = False
    in_turn: bool = False  # the hand the round waits on (a decision or a card)
    printed_first: bool = False  # the first card is the permanent 8 printed on the layout


@dataclass(frozen=True, slots=True)
class AreaView:
    """A playing area (1..N from the dealer's left); one with no wager has no hands."""

    number: int
    controller: str | None
    seated: tuple[str, ...]
    wagers: tuple[WagerView, ...]  # main wagers, front position first
    sides: tuple[WagerView, ...]
    hands: tuple[HandView, ...]
    surrendered: tuple[str, ...]
    absent_play: bool = False  # the dealer plays it by the fixed rule (5.22)
    # insurance wagers taken and not yet settled (bet "insurance"): the players' own (3.27),
    # then those claimed of a player who declined (3.27.3); settled, they are entries
    insurance: tuple[WagerView, ...] = ()
    even_money: tuple[str, ...] = ()  # players who took even money (settled at once, interim)


@dataclass(frozen=True, slots=True)
class DealerView:
    cards: tuple[str, ...]
    total: int
    soft: bool
    blackjack: bool
    bust: bool
    printed_first: bool = False  # Dueling 8's permanent 8


@dataclass(frozen=True, slots=True)
class TerminalView:
    """An Electronic Blackjack terminal: its wagers, its hands and what it may decide now."""

    player: str
    main: Decimal
    sides: tuple[WagerView, ...]
    hands: tuple[HandView, ...]
    in_turn: int | None  # the hand it plays now, from 1
    options: tuple[str, ...]  # its legal choices now (empty when it waits for nothing)
    waiting_for_card: bool
    default_strategy: bool  # 3.18: the default strategy plays it (time-out, power failure)
    resolved: bool
    insurance: WagerView | None = None  # taken and not yet settled (bet "insurance")
    even_money: bool = False  # took even money (settled at once, interim)


@dataclass(frozen=True, slots=True)
class RoundView:
    """The whole layout at one moment, for a screen to draw without deciding anything."""

    game: str  # the game's key
    game_name: str
    shared_hand: bool  # Electronic Blackjack: terminals instead of areas
    status: str  # in_progress, settled, void, referred
    betting: bool  # wagers are still being taken
    dealer: DealerView
    areas: tuple[AreaView, ...] = ()  # every area of the layout, 1..N (table games)
    player_cards: tuple[str, ...] = ()  # the shared Player cards (Electronic)
    terminals: tuple[TerminalView, ...] = ()
    in_turn: tuple[int, int] | None = None  # (area, hand) the round waits on
    controlling: tuple[tuple[int, str], ...] = ()  # (area, player) of every controlled area
    # 5.23: cards drawn together that nobody has seen wait for a pick: their faces stay hidden
    pick_unseen: bool = False

    def area(self, number: int) -> AreaView | None:
        for a in self.areas:
            if a.number == number:
                return a
        return None

    def held_card_places(self) -> list[str]:
        """Where a card the round could not take may lie: once the round is settled only the
        discard holder (it is removed from play, the outcome stands: 5.7, 5.6 in Electronic),
        else every place of :meth:`card_places`."""
        return ["discard"] if self.status == "settled" else self.card_places()

    def card_places(self) -> list[str]:
        """Every place a card can be put on this layout (transcript ``to`` notation)."""
        if self.shared_hand:
            return ["player", "dealer", "discard"]
        out = ["dealer", "discard"]
        for a in self.areas:
            out.extend(f"area:{a.number}/{h}" for h in range(1, max(len(a.hands), 1) + 1))
        return out


class Round(Protocol):
    """What every round offers (both ``TableRound`` and ``ElectronicRound``)."""

    @property
    def rules(self) -> GameRules: ...

    @property
    def events(self) -> Sequence[Event]: ...

    @property
    def settlements(self) -> Sequence[Settlement]: ...

    @property
    def rulings(self) -> Sequence[Ruling]: ...

    @property
    def claims(self) -> Sequence[ClaimDecision]: ...

    @property
    def control_changes(self) -> Sequence[ControlChange]: ...

    @property
    def shoe(self) -> ShoeState: ...

    @property
    def phase(self) -> str: ...

    def apply(self, event: Event) -> None:
        """Apply one event, or raise RuleRefusal leaving the round unchanged."""

    def apply_all(self, events: Iterable[Event]) -> None: ...

    def fresh(self) -> Round:
        """A new round at the same table (the same configuration), no event applied."""

    def expectation(self) -> Expectation:
        """What the round waits for now."""

    def status(self) -> str:
        """settled, void, referred or in_progress."""

    def report(self) -> dict[str, Any]:
        """The layout part of the settle output (spec/round-script.md)."""

    def view(self) -> RoundView:
        """An immutable picture of the round for a screen."""

    def cards_needed(self) -> int:
        """The fewest cards the round still needs from the shoe to be completed (5.19)."""

    def next_to_act(self) -> tuple[int, str] | None:
        """(area, player) of the hand in turn at a table; None when nobody (or Electronic)."""

    def under_minimum_first_time(self) -> tuple[str, ...]:
        """Players whose under-minimum wager this round settled normally: their first time
        at this table (5.26; the store remembers them for the next rounds)."""
