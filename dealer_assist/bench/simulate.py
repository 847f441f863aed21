"""Play whole rounds through the engine from a shuffled shoe: for the benchmark and property tests.

The round says what it expects next; this module answers: a card from the shoe, or a
decision chosen by a strategy from the legal options the round lists.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Final

from dealer_assist.base.cards import Card
from dealer_assist.base.hands import hand_value
from dealer_assist.engine.electronic import ElectronicRound
from dealer_assist.engine.events import CardDrawn, CloseOffers, Decision, Event, NoMoreBets, Wager
from dealer_assist.engine.outcome import Expectation
from dealer_assist.engine.round_api import Round
from dealer_assist.engine.table import TableRound
from dealer_assist.games import GAMES
from dealer_assist.odds.strategy import Chart

Strategy = Callable[[list[Card], Card | None, tuple[str, ...], random.Random], str]

# Events are immutable values: the driver hands the round one instance per distinct event
# instead of building a frozen dataclass (about 3 µs here) for every card, decision and wager.
# (Final: compiled, a module constant is read directly, not looked up in the module's dict.)
_DRAWN: Final[dict[Card, Event]] = {}  # a card's CardDrawn (read inline by _play_table: one call fewer a card)
_decision: Final = cache(Decision)
_wager: Final = cache(Wager)
_amount: Final = cache(Decimal)  # whole amounts; one Decimal each keeps its hash for the look-up above
_NO_MORE_BETS: Final = NoMoreBets()
_CLOSE_OFFERS: Final = CloseOffers()


def _card(card: Card) -> Event:
    ev = _DRAWN.get(card)
    if ev is None:
        ev = _DRAWN[card] = CardDrawn(card)
    return ev


# Cards left in the shoe below which it is reshuffled before a round (the par sheets'
# confirming simulations print it: their shoes are dealt down to it, not fresh each round).
RESHUFFLE_BELOW = 60


class Shoe:
    """A shuffled shoe of the game's composition; reshuffles when fewer than ``reserve`` remain."""

    def __init__(self, game: str, decks: int, seed: int, reserve: int = RESHUFFLE_BELOW) -> None:
        self.cards = list(GAMES[game].composition) * decks
        self.rng = random.Random(seed)
        self.reserve = reserve
        self.pos = len(self.cards)

    def round_start(self) -> None:
        if len(self.cards) - self.pos < self.reserve:
            self.shuffle()

    def shuffle(self) -> None:
        """Fisher–Yates with one random() per card (random.shuffle runs a Python loop)."""
        cards = self.cards
        random_ = self.rng.random
        for i in range(len(cards) - 1, 0, -1):
            j = int(random_() * (i + 1))
            cards[i], cards[j] = cards[j], cards[i]
        self.pos = 0

    def __iter__(self) -> Iterator[Card]:
        return self

    def __next__(self) -> Card:
        c = self.cards[self.pos]
        self.pos += 1
        return c


def basic_strategy(cards: list[Card], dealer_up: Card | None, options: tuple[str, ...], rng: random.Random) -> str:
    """A compact basic strategy for a hand in turn, restricted to the legal options."""
    total, soft = hand_value(cards)
    up = dealer_up.points if dealer_up is not None else 8
    up = 11 if dealer_up is not None and dealer_up.rank == "A" else up
    if "split" in options and len(cards) == 2 and cards[0].rank in ("A", "8"):
        return "split"
    if "double" in options and not soft and total in (10, 11) and up < 10:
        return "double"
    if "hit" not in options:
        return "stand"
    if soft:
        return "hit" if total <= 17 else "stand"
    if total <= 11:
        return "hit"
    if total <= 16 and up >= 7:
        return "hit"
    if total == 12 and up in (2, 3):
        return "hit"
    return "stand"


def random_strategy(cards: list[Card], dealer_up: Card | None, options: tuple[str, ...], rng: random.Random) -> str:
    """Any legal option, at random (property tests)."""
    return rng.choice(options)


def _pick(amounts: tuple[int, ...], rng: random.Random) -> int:
    """One of ``amounts`` at random (random() is one C call; choice() runs Python code)."""
    return amounts[int(rng.random() * len(amounts))]


@cache
def _layout(game: str, areas: int, players_per_area: int, side_bets: bool, amounts: tuple[int, ...]
            ) -> tuple[tuple[tuple[Wager, ...], tuple[Wager, ...]], ...]:
    """For every player in order: the main wager in each amount, and the side wagers (of 5)."""
    rules = GAMES[game]
    out = []
    for area in range(1, areas + 1):
        for p in range(players_per_area):
            player = f"p{area}{'abc'[p]}"
            mains = tuple(Wager(player, "main", Decimal(a), area) for a in amounts)
            sides = tuple(Wager(player, kind, Decimal(5), area) for kind in rules.side_bets) if side_bets else ()
            out.append((mains, sides))
    return tuple(out)


def table_wagers(game: str, areas: int, players_per_area: int, side_bets: bool, rng: random.Random,
                 amounts: tuple[int, ...] = (10, 25, 50, 100)) -> list[Event]:
    """Every player's main wager (an amount at random) and, with ``side_bets``, one of each side bet."""
    events: list[Event] = []
    n = len(amounts)
    for mains, sides in _layout(game, areas, players_per_area, side_bets, amounts):
        events.append(mains[int(rng.random() * n)])
        events.extend(sides)
    return events


def electronic_wagers(terminals: int, side_bets: bool, rng: random.Random) -> list[Event]:
    rules = GAMES["electronic"]
    events: list[Event] = []
    for t in range(1, terminals + 1):
        events.append(_wager(f"t{t}", "main", _amount(_pick((10, 25, 50), rng)), None))
        if side_bets:
            for kind in rules.side_bets:
                events.append(_wager(f"t{t}", kind, _amount(5), None))
    return events


def next_event(rnd: Round, exp: Expectation, shoe: Iterator[Card], strategy: Strategy,
               rng: random.Random, take_offers: bool = False) -> Event | None:
    """The event that answers what the round expects, or None when it is done."""
    kind = exp.kind
    if kind == "card":
        return _card(next(shoe))
    if kind == "decision":
        if take_offers and exp.offers and rng.random() < 0.3:
            offer = rng.choice(exp.offers)
            return _decision(rng.choice(offer["options"]), offer["area"], 1, offer["player"])
        number, hand_no = exp.area, exp.hand
        if number is None or hand_no is None:
            return _CLOSE_OFFERS
        options = exp.options
        if "stand" not in options:
            # Nobody has a hand to play; only offers remain (insurance, even money, surrender).
            if take_offers and rng.random() < 0.5:
                return _decision(rng.choice(options), number, hand_no, exp.player)
            return _CLOSE_OFFERS
        assert isinstance(rnd, TableRound)
        hand = rnd.areas[number].hands[hand_no - 1]
        dealer = rnd.dealer
        if "surrender" in options:
            options = tuple(o for o in options if o != "surrender") or options
        return _decision(strategy(hand.cards, dealer[0] if dealer else None, options, rng), number, hand_no)
    if kind == "decisions":
        assert isinstance(rnd, ElectronicRound)
        pending = exp.pending[0]
        term = rnd.terminals[pending["player"]]
        ehand = term.current()
        options = tuple(o for o in pending["options"] if o not in ("surrender", "insurance", "even_money"))
        if ehand is None or not options:
            return _decision("stand", None, None, pending["player"])
        dealer = rnd.dealer
        action = strategy(ehand.cards, dealer[0] if dealer else None, options, rng)
        return _decision(action, None, pending["hand"], pending["player"])
    if kind == "wagers":
        return _NO_MORE_BETS
    return None


def play(rnd: Round, shoe: Iterator[Card], strategy: Strategy, rng: random.Random,
         take_offers: bool = False, max_events: int = 500) -> int:
    """Answer the round until it is settled; returns the number of events applied."""
    if isinstance(rnd, TableRound):
        return _play_table(rnd, shoe, strategy, rng, take_offers, max_events)
    n = 0
    while n < max_events:
        exp = rnd.expectation()
        if exp.kind == "card":  # the most common answer, as next_event gives it
            ev: Event | None = _card(next(shoe))
        else:
            ev = next_event(rnd, exp, shoe, strategy, rng, take_offers)
        if ev is None:
            return n
        rnd.apply(ev)
        n += 1
    raise RuntimeError("round did not finish")


def _play_table(rnd: TableRound, shoe: Iterator[Card], strategy: Strategy, rng: random.Random,
                take_offers: bool, max_events: int) -> int:
    """``play`` for a table round, typed as one: compiled, its calls go straight to the round's
    methods instead of through the ``Round`` protocol's generic look-up (same events)."""
    n = 0
    drawn = _DRAWN
    st = rnd.st
    deck = shoe if isinstance(shoe, Shoe) else None  # its next card read inline (Shoe.__next__)
    while n < max_events:
        exp = rnd.expectation()
        if exp.kind == "card":
            if deck is not None:
                card = deck.cards[deck.pos]
                deck.pos += 1
            else:
                card = next(shoe)
            ev: Event | None = drawn.get(card)
            if ev is None:
                ev = _card(card)
        elif exp.kind == "decision" and not take_offers and exp.area is not None and exp.hand is not None \
                and "stand" in exp.options and "surrender" not in exp.options:
            # next_event's usual decision, inline: the hand in turn plays by the strategy.
            number, hand_no = exp.area, exp.hand
            dealer = st.dealer
            cards = st.areas[number].hands[hand_no - 1].cards
            ev = _decision(strategy(cards, dealer[0] if dealer else None, exp.options, rng), number, hand_no)
        else:
            ev = next_event(rnd, exp, shoe, strategy, rng, take_offers)
        if ev is None:
            return n
        rnd.apply(ev)
        n += 1
    raise RuntimeError("round did not finish")


# ---------------------------------------------------------------- the printed chart, played
def chart_strategy(chart: Chart) -> Strategy:
    """The printed strategy chart (odds/strategy.py) as a strategy for ``play``: a hand's first
    decision from its two-card cell, later ones from its total's row (hit or stand)."""

    def decide(cards: list[Card], dealer_up: Card | None, options: tuple[str, ...], rng: random.Random) -> str:
        up = dealer_up.points if dealer_up is not None else 8
        if len(cards) == 2:
            return chart.initial_action(cards[0].points, cards[1].points, up, lambda a: a in options)
        hard = sum(c.points for c in cards)
        ace = any(c.points == 1 for c in cards)
        return "hit" if "hit" in options and chart.hits(hard, ace, up) else "stand"

    return decide


def _chart_surrenders(chart: Chart, cards: list[Card], dealer_up: Card | None) -> bool:
    if len(cards) != 2:
        return False
    up = dealer_up.points if dealer_up is not None else 8
    return chart.initial_action(cards[0].points, cards[1].points, up, lambda a: True) == "surrender"


def chart_event(rnd: Round, exp: Expectation, shoe: Iterator[Card], chart: Chart, strategy: Strategy,
                rng: random.Random) -> Event | None:
    """``next_event`` for the chart: also surrenders where the chart says R (the surrender is
    offered before the dealer's second card, 3.25, Electronic 3.12; insurance never taken)."""
    if exp.kind == "decision" and exp.offers and isinstance(rnd, TableRound):
        dealer = rnd.dealer
        for offer in exp.offers:
            if "surrender" in offer["options"]:
                hand = rnd.areas[offer["area"]].hands[0]
                if _chart_surrenders(chart, hand.cards, dealer[0] if dealer else None):
                    return _decision("surrender", offer["area"], 1, offer["player"])
    if exp.kind == "decisions" and isinstance(rnd, ElectronicRound):
        pending = exp.pending[0]
        if "surrender" in pending["options"]:
            ehand = rnd.terminals[pending["player"]].current()
            dealer = rnd.dealer
            if ehand is not None and _chart_surrenders(chart, ehand.cards, dealer[0] if dealer else None):
                return _decision("surrender", None, pending["hand"], pending["player"])
    return next_event(rnd, exp, shoe, strategy, rng)


@dataclass
class ChartRun:
    """Main wagers of one unit played by the chart: per-round sums for the interval."""

    game: str
    decks: int
    rounds: int = 0
    wagers: int = 0
    net: float = 0.0  # units, the 6-7-8 bonus included (it is paid on the main wager)
    net_sq_per_round: float = 0.0  # sum over rounds of (the round's net)^2: areas share a dealer

    @property
    def edge(self) -> float:
        """The player's mean net per unit wagered (negative: the house's edge)."""
        return self.net / self.wagers if self.wagers else 0.0

    @property
    def half_width(self) -> float:
        """Half the 95 % interval of ``edge`` (rounds independent; a round's areas are not)."""
        if self.rounds < 2:
            return float("inf")
        mean_r = self.net / self.rounds
        var_r = (self.net_sq_per_round - self.rounds * mean_r * mean_r) / (self.rounds - 1)
        per = self.wagers / self.rounds
        return 1.96 * math.sqrt(var_r / self.rounds) / per


def play_chart(run: ChartRun, chart: Chart, rounds: int, seed: int, areas: int = 7) -> None:
    """Play ``rounds`` rounds through the engine, one main wager of 100 on each of ``areas``
    areas (Electronic: one terminal, the Player hand is shared), every decision the chart's."""
    from dealer_assist.engine.transcript import new_round

    game = run.game
    electronic = game == "electronic"
    template = new_round({"game": game, "decks": run.decks, "areas": 0 if electronic else areas})
    wagers: list[Event] = ([_wager("t1", "main", _amount(100), None)] if electronic else
                           [_wager(f"p{a}", "main", _amount(100), a) for a in range(1, areas + 1)])
    rng = random.Random(seed)
    shoe = Shoe(game, run.decks, seed)
    strategy = chart_strategy(chart)
    hundred = Decimal(100)
    for _ in range(rounds):
        shoe.round_start()
        rnd = template.fresh()
        for ev in wagers:
            rnd.apply(ev)
        for _n in range(500):
            ev2 = chart_event(rnd, rnd.expectation(), shoe, chart, strategy, rng)
            if ev2 is None:
                break
            rnd.apply(ev2)
        else:
            raise RuntimeError("round did not finish")
        net = float(sum((s.net for s in rnd.settlements if s.bet in ("main", "bonus678")), Decimal(0)) / hundred)
        run.rounds += 1
        run.wagers += len(wagers)
        run.net += net
        run.net_sq_per_round += net * net
