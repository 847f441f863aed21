"""The state of a round at a table with playing areas: its configuration, areas, hands and
wagers, and what section 5 rulings leave pending. Data only; the rules that change it are
in ``table`` (the round) and ``irregularities`` (section 5), which both read it from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Final

from dealer_assist.base.cards import Card, parse_card
from dealer_assist.base.money import ZERO
from dealer_assist.engine.events import Target
from dealer_assist.engine.phase import Phase
from dealer_assist.games import GameRules

PERMANENT_EIGHT: Final = parse_card("8S")  # Dueling 8's 3.14: printed on the layout


@dataclass(frozen=True)
class TableConfig:
    """The table a round is played at: game, shoe, layout, limits and who sits where."""

    rules: GameRules
    decks: int
    areas: int
    limits: dict[str, tuple[Decimal, Decimal]] = field(default_factory=dict)
    seated: dict[str, int] = field(default_factory=dict)
    under_min_history: frozenset[str] = frozenset()
    max_wagers_per_area: int = 3  # 3.10; a pit manager may set fewer (3.10.1)
    one_area_players: frozenset[str] = frozenset()  # 3.9
    # Cards the shoe delivered in earlier rounds since the last shuffle: 5.1 counts copies
    # over the whole shoe, not one round.
    shoe_dealt: tuple[Card, ...] = ()


class MainWager:
    """A player's main wager on a playing area; position 1 is nearest the dealer."""

    __slots__ = ("player", "amount", "placed", "position", "returned", "excess")

    def __init__(self, player: str, amount: Decimal, position: int) -> None:
        self.player = player
        self.placed = amount
        self.amount = amount  # what is in play: capped at the maximum (5.27)
        self.position = position
        self.returned = False  # an under-minimum wager returned (5.26)
        self.excess = ZERO


class SideWager:
    __slots__ = ("player", "bet", "amount", "placed", "hand", "settled", "returned", "excess")

    def __init__(self, player: str, bet: str, amount: Decimal, hand: Hand | None) -> None:
        self.player = player
        self.bet = bet
        self.placed = amount
        self.amount = amount
        self.hand = hand  # set for wagers placed on a split hand (3.21.1, 3.23.1)
        self.settled = False
        self.returned = False
        self.excess = ZERO


class Hand:
    """A player hand on an area with every player's stake on it.

    The hand keeps running totals of its cards (``hard``: every ace counted 1, 3.4;
    ``aces``), so its value is not summed again on every question. The deal changes cards
    through ``add_card`` and ``take_last``; a change section 5 makes to ``cards`` directly
    is noticed (the count or the last card differs) and the totals are counted afresh.
    """

    __slots__ = (
        "cards", "stakes", "doubled_by", "from_split", "split_aces", "awaiting", "done",
        "busted", "aces_fixed", "settled", "stood_by_rule", "hard", "aces", "counted", "last",
    )

    def __init__(self, cards: list[Card], from_split: bool = False) -> None:
        self.cards = cards
        self.stakes: dict[str, Decimal] = {}
        self.doubled_by: set[str] = set()
        self.from_split = from_split
        self.split_aces = False
        self.awaiting = False  # a card was asked for (hit/double)
        self.done = False
        self.busted = False
        self.aces_fixed = 0  # Ace Race 3.4.2
        self.settled: set[str] = set()  # players whose main stake here is settled
        self.stood_by_rule: str | None = None
        # The running totals of ``cards``: points with aces as 1 (3.4), and aces; how many
        # cards they hold, and the last of them.
        hard = aces = 0
        for c in cards:
            hard += c.points
            if c.points == 1:
                aces += 1
        self.hard = hard
        self.aces = aces
        self.counted = len(cards)
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
        """Remove the last card (a split, 3.21) and return it."""
        card = self.cards.pop()
        self.recount()
        return card

    def total(self) -> int:
        """The best total (an ace counts 11 where that does not bust it, 1.1.13)."""
        cards = self.cards  # the totals still those of ``cards``? (inline: runs several times per event)
        n = len(cards)
        if n != self.counted or (n and cards[n - 1] is not self.last):
            self.recount()
        hard = self.hard
        if self.aces > self.aces_fixed and hard <= 11:
            return hard + 10
        return hard

    def value(self) -> tuple[int, bool]:
        """The best total and whether it is soft (as ``base.hands.hand_value``)."""
        cards = self.cards
        n = len(cards)
        if n != self.counted or (n and cards[n - 1] is not self.last):
            self.recount()
        hard = self.hard
        if self.aces > self.aces_fixed and hard <= 11:
            return hard + 10, True
        return hard, False

    def two_card_21(self) -> bool:
        """An ace and a ten-point card as the only two cards (1.1.1/1.1.2)."""
        cards = self.cards
        if len(cards) != 2:
            return False
        if self.counted != 2 or cards[1] is not self.last:
            self.recount()
        return self.hard == 11 and self.aces == 1

    @property
    def doubled(self) -> bool:
        return bool(self.doubled_by)


class Area:
    __slots__ = (
        "number", "wagers", "sides", "hands", "controller", "surrendered", "dealt",
        "run_open", "absent_play", "insured", "even_money", "claimed_insurance",
        "insurance_declined",
    )

    def __init__(self, number: int) -> None:
        self.number = number
        self.wagers: list[MainWager] = []
        self.sides: list[SideWager] = []
        self.hands: list[Hand] = []
        self.controller: str | None = None
        self.surrendered: set[str] = set()
        self.dealt: list[Card] = []  # every card dealt to the area, in order (Superb 8's 4.2.2)
        self.run_open = True
        self.absent_play = False  # the dealer plays it by the fixed rule (5.22)
        self.insured: dict[str, Decimal] = {}
        self.even_money: set[str] = set()
        # 3.27.3: insurance other players took on a wager whose player declined it:
        # (claimant, amount, declined_by); kept apart from the claimant's own insurance.
        self.claimed_insurance: list[tuple[str, Decimal, str]] = []
        self.insurance_declined: set[str] = set()  # players whose insurance others claimed

    def wager_of(self, player: str) -> MainWager | None:
        for w in self.wagers:
            if w.player == player:
                return w
        return None

    def original(self, player: str) -> Decimal:
        w = self.wager_of(player)
        return w.amount if w is not None else ZERO

    def insurance_wagers(self) -> list[tuple[str, Decimal]]:
        """Every insurance wager on the area: players' own (3.27), then claimed ones (3.27.3)."""
        return [*self.insured.items(), *((p, a) for p, a, _ in self.claimed_insurance)]


# Where a card lies in the program's layout: ("dealer", None) or (area number, hand).
Place = tuple[int, "Hand | None"]
DEALER: Place = (0, None)


@dataclass
class IrregularState:
    """What section 5 rulings leave pending in a round (rebuilt with the round)."""

    undisclosed: list[Card] = field(default_factory=list)  # next cards before the shoe's (5.17, 5.23)
    pool: list[Card] = field(default_factory=list)  # drawn together, order unknown (5.23)
    pool_mode: str = ""  # none | several | dealer_both
    pool_owner: tuple[int, Hand | None] | None = None  # who picked from a several-disclosed pool
    offered: tuple[int, Card] | None = None  # (event index, card) offered under 5.8
    refused_players: set[str] = field(default_factory=set)  # 5.9: no further cards this round
    one_card: list[int] = field(default_factory=list)  # areas holding a 5.16 choice
    withdraw_rule: str | None = None  # an open 5.25 / 5.29.1 window
    held: list[tuple[int, Card, Target]] = field(default_factory=list)  # out of turn (5.17/5.18)
    dealer_redraw: bool = False  # 5.12
    resume_phase: Phase | None = None  # 6.1: where play resumes after "continue"
    placed: dict[int, Place] = field(default_factory=dict)  # event index -> where its card went
    snapshot: dict[int, int] = field(default_factory=dict)
