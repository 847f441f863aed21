"""A table round's core (Ace Race, Star Elements, Lucky 8, Dueling 8's): its state reset, its
clause table and refusals, the hand in turn and what a hand still needs (3.18, 3.29-3.31,
5.22), who controls an area (3.11, 3.12, 5.22.1), and the one place a settlement entry is
recorded. The phases of the round build on it, one module each, in this order:
``table_settlement`` -> ``table_betting`` -> ``table_dealer`` -> ``table_offers`` ->
``table_play`` -> ``table_dealing`` -> ``table`` (each class derives from the one before; a
module never imports a later one).
"""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache
from typing import Final

from dealer_assist.base.cards import Card
from dealer_assist.base.errors import RuleRefusal
from dealer_assist.base.hands import hand_value
from dealer_assist.engine import hand_rules
from dealer_assist.engine.events import Decision
from dealer_assist.engine.outcome import (
    ClaimDecision,
    ControlChange,
    Expectation,
    Settlement,
    control_change,
    settlement,
)
from dealer_assist.engine.phase import TABLE_MOVES
from dealer_assist.engine.round_base import EventSourcedRound
from dealer_assist.engine.shoe_state import ShoeState
from dealer_assist.engine.table_state import (
    PERMANENT_EIGHT,
    Area,
    Hand,
    IrregularState,
    TableConfig,
)
from dealer_assist.games import GameRules, sidebets


class _GameBets:
    """What a game's side bets ask of a table round, worked out once per game (a round
    starts often): the specs by key, the run bet, and the bets the dealer's hand settles."""

    __slots__ = ("rules", "specs", "run", "paid_by_dealer_cards", "dealer_draws_for", "lost_on_bust")

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        self.specs: dict[str, sidebets.SideBetSpec] = {s.key: s for s in rules.specs}
        self.run: sidebets.SideBetSpec | None = next((s for s in rules.specs if s.stage == "run"), None)
        self.paid_by_dealer_cards = next((s for s in rules.specs if s.dealer_cards_paid), None)
        self.dealer_draws_for = frozenset(s.key for s in rules.specs if s.dealer_draws_for_it)
        self.lost_on_bust = frozenset(s.key for s in rules.specs if s.loses_on_bust)

    def __deepcopy__(self, memo: dict[int, object]) -> _GameBets:
        return self  # constant data of the game, shared by every copy of a round (the review)


_BETS: Final[dict[int, _GameBets]] = {}


def _bets_of(rules: GameRules) -> _GameBets:
    found = _BETS.get(id(rules))
    if found is None or found.rules is not rules:
        found = _BETS[id(rules)] = _GameBets(rules)
    return found


class TableCore(EventSourcedRound):
    """The state of a table round and what every phase asks of it."""

    def __init__(self, config: TableConfig) -> None:
        self.config = config
        self.rules = config.rules
        self.bets = _bets_of(self.rules)
        self._reset()

    def _reset(self) -> None:
        cfg = self.config
        self.events = []
        self.phase = "betting"  # the phase machine: phase.TABLE_MOVES
        self.moves = TABLE_MOVES
        self.areas: dict[int, Area] = {}
        self.dealer: list[Card] = [PERMANENT_EIGHT] if self.rules.permanent_eight else []
        self.settlements: list[Settlement] = []
        self.rulings = []
        self.claims: list[ClaimDecision] = []
        self.control_changes: list[ControlChange] = []
        self.absent: set[str] = set()
        self.under_min_players: set[str] = set(cfg.under_min_history)
        self.shoe = ShoeState(self.rules.composition, cfg.decks, list(cfg.shoe_dealt))
        self.initial_queue: list[tuple[int, int]] = []  # (area, 0) or (0, 0) for the dealer
        self.queue_pos = 0
        self.order: list[int] = []  # areas in play, dealing order
        self.turn = 0  # index into order: every hand of the areas before it is done
        self.offers_open = False
        self.interim_done = False
        self.referral: tuple[str, str] | None = None
        self.event_index = 0  # index of the event being applied
        self._expected = None  # expectation(), until the next event
        self._asked = None  # the expectation the event being applied answers
        self._next = None  # what comes next, as the handler of the event being applied set it
        self.irregular: IrregularState | None = None  # section 5 rulings left pending
        # event index -> where its card went, (0, None) for the dealer (5.6 corrections)
        self.placed_cards: dict[int, tuple[int, Hand | None]] = {}

    def asked(self) -> Expectation | None:
        """The expectation the event being applied answers (None if nobody asked first)."""
        return self._asked

    def clause(self, concept: str) -> str:
        """This game's clause number for ``concept`` (as GameRules.clause, one call fewer)."""
        return self.rules.clauses[concept]

    def refuse(self, message: str, concept: str | None = None, clause: str | None = None) -> RuleRefusal:
        return RuleRefusal(message, clause if clause else self.clause(concept) if concept else None)

    def record_entry(
        self, player: str, bet: str, stake: Decimal, result: str, net: Decimal, rule: str, *,
        area: int | None = None, hand: int | None = None, stage: str | None = None,
        row: str | None = None,
    ) -> None:
        if stage is None:
            stage = "final" if self.interim_done else "interim"
        self.settlements.append(settlement(player, bet, stake, result, net, rule, stage, area, hand, row))

    @staticmethod
    def hand_at(area: Area | None, number: int) -> Hand | None:
        if area is None or not 1 <= number <= len(area.hands):
            return None
        return area.hands[number - 1]

    @staticmethod
    def hand_number(area: Area, hand: Hand | None) -> int:
        return area.hands.index(hand) + 1 if hand is not None else 1

    def is_blackjack(self, hand: Hand) -> bool:
        # hand_rules.is_blackjack, from the hand's running totals
        return self.rules.blackjack_odds is not None and not hand.from_split and hand.two_card_21()

    def dealer_value(self) -> tuple[int, bool]:
        return hand_value(self.dealer)

    def dealer_stands(self) -> bool:
        """The dealer's hand is complete (3.34; Ace Race hits soft 17)."""
        return hand_rules.dealer_stands(self.rules, self.dealer)

    def decision_hand(self, ev: Decision) -> tuple[Area, Hand, int]:
        if ev.area is None:
            raise RuleRefusal("a decision at this table names its playing area")
        area = self.areas.get(ev.area)
        if area is None or not area.hands:
            raise RuleRefusal(f"area {ev.area} has no hand in play")
        hand_no = ev.hand or 1
        hand = self.hand_at(area, hand_no)
        if hand is None:
            raise RuleRefusal(f"area {ev.area} has no hand {hand_no}")
        return area, hand, hand_no

    def live_hands(self) -> list[tuple[Area, Hand]]:
        out = []
        for number in self.order:
            area = self.areas[number]
            for h in area.hands:
                if not h.busted and not h.settled.issuperset(h.stakes):
                    out.append((area, h))
        return out

    def update_controller(self, area: Area, concept: str | None) -> None:
        # The first present wager seated at the area (3.11), else the first present one (3.12).
        new: str | None = None
        rule = "absent"
        absent_left = False  # an absent player's wager is still on the area
        seated = self.config.seated
        for w in area.wagers:
            player = w.player
            if player in area.surrendered:
                continue
            if player in self.absent:
                absent_left = True
            elif seated.get(player) == area.number:
                new, rule = player, "control_seated"
                break
            elif new is None:
                new, rule = player, "control_front"
        # 5.22: nobody present is left on the area but an absent player's wager is: the
        # dealer plays it by the fixed rule (5.22.1 applies only while someone present is on it).
        absent_play = new is None and absent_left
        if new != area.controller:
            area.controller = new
            if absent_play:
                rule = "absent"
            elif concept is not None:
                rule = concept
            self.control_changes.append(control_change(self.event_index, area.number, new, self.clause(rule)))
        if absent_play:
            area.absent_play = True

    @staticmethod
    def fixed_rule_draws(hand: Hand) -> bool:
        """5.22: the dealer draws while the hard total is 11 or less or a soft total under 17."""
        return hand_rules.fixed_rule_draws(hand.cards, hand.aces_fixed)

    def current_hand(self) -> tuple[Area, Hand] | None:
        """The first hand not yet done, in dealing order (3.18), or None."""
        hand = self.hand_in_turn()
        if hand is None:
            return None
        return self.areas[self.order[self.turn]], hand

    def hand_in_turn(self) -> Hand | None:
        """current_hand()'s hand alone (no pair made: the hot loops call this); its area is
        ``self.areas[self.order[self.turn]]``."""
        # Hands finish in order, so the scan resumes at the first area not yet finished
        # (``turn``); anything that re-opens a finished hand rewinds it (rewind_turn).
        order = self.order
        areas = self.areas
        i = self.turn
        n = len(order)
        while i < n:
            for hand in areas[order[i]].hands:
                if not hand.done:
                    self.turn = i
                    return hand
            i += 1
        self.turn = i
        return None

    def rewind_turn(self) -> None:
        """A finished hand was re-opened (5.21 reconstruction): scan from the first area again."""
        self.turn = 0

    def needs_card(self, area: Area, hand: Hand) -> bool:
        if hand.awaiting or len(hand.cards) < 2:
            return True
        if area.absent_play and self.fixed_rule_draws(hand):
            return True
        return False

    def waiting_for(self) -> str:
        exp = self.expectation()
        if exp.kind == "decision":
            return f" (waiting for a decision by {exp.player} on area {exp.area})"
        if exp.kind == "wagers":
            return " (bets are not closed)"
        return ""


def amount_text(amount: Decimal) -> str:
    """An amount as a refusal quotes it (25, 12.5)."""
    return f"{amount.normalize():f}"


_CARD_EXPECTED: Final[dict[int, Expectation]] = {}


NOTHING_EXPECTED: Final = Expectation("none")


@lru_cache(maxsize=4096)  # bounded: player names come and go over a long session
def decision_expected(number: int, hand_no: int, player: str | None, options: tuple[str, ...]) -> Expectation:
    """A decision with no offers open and nobody else on the hand (most decisions)."""
    return Expectation("decision", None, number, hand_no, player, options)


def card_expected(number: int, hand_index: int) -> Expectation:
    """A card for the dealer (area 0) or for an area's hand (index from 0); made once each
    (expectations are immutable)."""
    key = number * 16 + hand_index  # at most 4 hands per area (3.23.2)
    exp = _CARD_EXPECTED.get(key)
    if exp is None:
        where = "dealer" if number == 0 else f"area:{number}/{hand_index + 1}"
        exp = _CARD_EXPECTED[key] = Expectation("card", where, number, hand_index + 1)
    return exp
