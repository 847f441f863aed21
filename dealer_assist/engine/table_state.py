"""The state of a round at a table with playing areas: its configuration, areas, hands and
wagers, what section 5 rulings leave pending, and :class:`TableState`, the one value that
holds all of it for a round (its phase, expectation and records too) with the questions
every part of the round asks of it. The rules that change it are the round's parts
(``table_settlement``, ``table_betting``, ``table_dealer``, ``table_offers``,
``table_play``, ``table_dealing``) and section 5 (``irregularities``); ``table`` composes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from itertools import product
from typing import Final

from dealer_assist.base.cards import Card, parse_card
from dealer_assist.base.errors import RuleRefusal
from dealer_assist.base.hands import RunningHand, hand_value
from dealer_assist.base.money import ZERO
from dealer_assist.engine import hand_rules
from dealer_assist.engine.events import Decision, Event, Target
from dealer_assist.engine.outcome import (
    ClaimDecision,
    ControlChange,
    Expectation,
    Ruling,
    Settlement,
    control_change,
    settlement,
)
from dealer_assist.engine.phase import TABLE_MOVES, Phase, check_move
from dealer_assist.engine.shoe_state import ShoeState
from dealer_assist.games import GameRules, sidebets

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


class Hand(RunningHand):
    """A player hand on an area with every player's stake on it. Its cards and their
    running totals are ``RunningHand``'s (the deal, a split (3.21) and section 5's
    corrections change them only through its methods)."""

    __slots__ = (
        "stakes", "doubled_by", "from_split", "split_aces", "awaiting", "done",
        "busted", "settled", "stood_by_rule",
    )

    def __init__(self, cards: list[Card], from_split: bool = False) -> None:
        RunningHand.__init__(self, cards)  # (aces_fixed: Ace Race 3.4.2)
        self.stakes: dict[str, Decimal] = {}
        self.doubled_by: set[str] = set()
        self.from_split = from_split
        self.split_aces = False
        self.awaiting = False  # a card was asked for (hit/double)
        self.done = False
        self.busted = False
        self.settled: set[str] = set()  # players whose main stake here is settled
        self.stood_by_rule: str | None = None

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
DEALER: Final[Place] = (0, None)


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


class GameBets:
    """What a game's side bets ask of a table round, worked out once per game (a round
    starts often): the specs by key, the run bet, and the bets the dealer's hand settles."""

    __slots__ = ("rules", "specs", "run", "paid_by_dealer_cards", "dealer_draws_for", "lost_on_bust",
                 "offer_options")

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        self.specs: dict[str, sidebets.SideBetSpec] = {s.key: s for s in rules.specs}
        self.run: sidebets.SideBetSpec | None = next((s for s in rules.specs if s.stage == "run"), None)
        self.paid_by_dealer_cards = next((s for s in rules.specs if s.dealer_cards_paid), None)
        self.dealer_draws_for = frozenset(s.key for s in rules.specs if s.dealer_draws_for_it)
        self.lost_on_bust = frozenset(s.key for s in rules.specs if s.loses_on_bust)
        # The offers open to a player after the initial deal (hand_rules.offers: 3.20, 3.25,
        # 3.27), by offer_key(dealer ace, blackjack, one hand, may insure): asked per player.
        options: list[tuple[str, ...]] = [()] * 16
        for ace, blackjack, one_hand, insure in product((False, True), repeat=4):
            options[offer_key(ace, blackjack, one_hand, insure)] = tuple(
                hand_rules.offers(rules, ace, blackjack, one_hand, may_insure=insure))
        self.offer_options = tuple(options)

    def __deepcopy__(self, memo: dict[int, object]) -> GameBets:
        return self  # constant data of the game, shared by every copy of a round (the review)


def offer_key(dealer_ace: bool, blackjack: bool, one_hand: bool, may_insure: bool) -> int:
    """The index of ``GameBets.offer_options`` for these facts."""
    return (8 if dealer_ace else 0) + (4 if blackjack else 0) + (2 if one_hand else 0) + (1 if may_insure else 0)


_BETS: Final[dict[int, GameBets]] = {}


def bets_of(rules: GameRules) -> GameBets:
    found = _BETS.get(id(rules))
    if found is None or found.rules is not rules:
        found = _BETS[id(rules)] = GameBets(rules)
    return found


class TableState:
    """Everything a table round changes as events apply, in one value the round's parts
    share (``table.TableRound`` owns it; each part is given it at construction). Each
    field names the part that writes it (docs/engine.md, "The composed round"); the
    questions every part asks of the table (the hand in turn, control of an area, the
    clause table, the one place a settlement entry is recorded) are methods here."""

    __slots__ = (
        "config", "rules", "bets", "moves", "pays_blackjack",
        "events", "event_index", "phase", "expected", "asked_for", "next_exp",
        "areas", "dealer", "order", "turn", "initial_queue", "queue_pos", "absent",
        "offers_open", "interim_done", "referral", "under_min_players", "shoe",
        "settlements", "rulings", "claims", "control_changes", "irregular", "placed_cards",
    )

    def __init__(self, config: TableConfig, bets: GameBets | None = None) -> None:
        self.config = config
        self.rules = config.rules
        # ``bets``: the game's, from an earlier round at the same table (TableRound.fresh).
        self.bets = bets if bets is not None and bets.rules is config.rules else bets_of(config.rules)
        self.moves: dict[str, frozenset[str]] = TABLE_MOVES  # the phase machine (phase.py)
        self.pays_blackjack = config.rules.blackjack_odds is not None  # 1.1.1/1.1.2
        self.reset()

    def reset(self) -> None:
        """No event applied (a refused event rebuilds the state from the accepted ones)."""
        cfg = self.config
        # The round (table.TableRound): the events, the expectation it keeps.
        self.events: list[Event] = []
        self.event_index = 0  # index of the event being applied
        self.phase: Phase = "betting"  # changed only by enter() (phase.TABLE_MOVES)
        self.expected: Expectation | None = None  # expectation(), until the next event
        self.asked_for: Expectation | None = None  # the expectation the event being applied answers
        self.next_exp: Expectation | None = None  # what comes next, as the event's handler set it
        # The layout: Betting makes the areas and the deal queue, Dealing and Play fill the
        # hands, DealerTurn the dealer's cards; the turn moves in DealerTurn.advance.
        self.areas: dict[int, Area] = {}
        self.dealer: list[Card] = [PERMANENT_EIGHT] if self.rules.permanent_eight else []
        self.order: list[int] = []  # areas in play, dealing order
        self.turn = 0  # index into order: every hand of the areas before it is done
        self.initial_queue: list[tuple[int, int]] = []  # (area, 0) or (0, 0) for the dealer
        self.queue_pos = 0
        self.absent: set[str] = set()  # Play (5.22)
        self.offers_open = False  # Offers
        self.interim_done = False  # Settling
        self.referral: tuple[str, str] | None = None  # DealerTurn / section 5 (6.1)
        self.under_min_players: set[str] = set(cfg.under_min_history)  # Betting (5.26)
        self.shoe = ShoeState(self.rules.composition, cfg.decks, list(cfg.shoe_dealt))
        # The records.
        self.settlements: list[Settlement] = []
        self.rulings: list[Ruling] = []
        self.claims: list[ClaimDecision] = []
        self.control_changes: list[ControlChange] = []
        # Section 5 (irregularities): what its rulings left pending, and where each card went
        # (event index -> place, (0, None) for the dealer; 5.6 corrections).
        self.irregular: IrregularState | None = None
        self.placed_cards: dict[int, tuple[int, Hand | None]] = {}

    def enter(self, to: Phase) -> None:
        """Move to phase ``to``: the one place a table round's phase changes (phase.py)."""
        check_move(self.moves, self.phase, to)
        self.phase = to

    def expect_next(self, expectation: Expectation | None) -> None:
        """The handler of the event being applied says what the round waits for next (it must
        be what the state gives; tests/engine/test_expectation_kept.py checks it)."""
        self.next_exp = expectation

    def refer(self, text: str) -> None:
        """6.1: not covered by the rules: the round waits for the Gaming Shift Manager."""
        self.enter("referred")
        rule = self.clause("refer")
        self.referral = (rule, text)
        self.rulings.append(Ruling(self.event_index, rule, "referred", text))

    def restart_initial_deal(self) -> None:
        """5.21: the initial deal is laid out again from its first place (no offer open)."""
        self.rewind_turn()
        self.enter("initial")
        self.offers_open = False
        self.queue_pos = 0

    def status(self) -> str:
        """settled, void, referred or in_progress."""
        return _STATUS.get(self.phase, "in_progress")

    def face_up(self, card: Card) -> None:
        """5.5: a card found face up in the shoe is played as if it were found face down."""
        rule = self.clause("face_up_card")
        self.rulings.append(Ruling(self.event_index, rule, "played",
                                   f"{card} was found face up in the shoe: it is played as if face down ({rule})"))

    def asked(self) -> Expectation | None:
        """The expectation the event being applied answers (None if nobody asked first)."""
        return self.asked_for

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
        """A two-card 21 not on a split hand, in a game that pays blackjacks (1.1.1/1.1.2), from
        the hand's running totals (``two_card_21`` inline: asked some two dozen times a round)."""
        return (hand.hard == 11 and hand.aces == 1 and len(hand.cards) == 2 and not hand.from_split
                and self.pays_blackjack)

    def dealer_value(self) -> tuple[int, bool]:
        return hand_value(self.dealer)

    def dealer_stands(self) -> bool:
        """The dealer's hand is complete (3.34; Ace Race hits soft 17)."""
        return hand_rules.dealer_stands(self.rules, self.dealer)

    def decision_hand(self, ev: Decision) -> tuple[Area, Hand, int]:
        if ev.area is None:
            raise self.refuse("a decision at this table names its playing area", "call_decisions")
        area = self.areas.get(ev.area)
        if area is None or not area.hands:
            raise self.refuse(f"area {ev.area} has no hand in play", "deal_order")  # cards go to areas with a wager
        hand_no = ev.hand or 1
        hand = self.hand_at(area, hand_no)
        if hand is None:
            raise self.refuse(f"area {ev.area} has no hand {hand_no}", "split")
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

    def outcome_established(self) -> bool:
        """Whether any wager has "conclusively won or lost" (5.29.1; 5.26.1 in Dueling 8's):
        decided by the cards dealt, whether or not its settlement was recorded yet."""
        if any(s.result in ("win", "lose", "surrender", "even_money") for s in self.settlements):
            return True
        dealer_up = self.dealer[0] if self.dealer and not self.rules.permanent_eight else None
        for number in self.order:
            area = self.areas[number]
            if any(h.busted for h in area.hands):
                return True
            first = area.hands[0].cards if area.hands else []
            if self.is_blackjack(area.hands[0]) and dealer_up is not None and not (
                    dealer_up.rank == "A" or dealer_up.points == 10):
                return True  # 4.3.1: the dealer can no longer match it
            for side in area.sides:
                if side.settled or side.hand is not None:
                    continue
                if self.side_decided(area, side.bet, first, dealer_up):
                    return True
        return False

    def side_decided(self, area: Area, bet: str, first: list[Card], dealer_up: Card | None) -> bool:
        """The cards already dealt decide a side wager placed before the deal."""
        spec = self.bets.specs.get(bet)
        if spec is None:
            return False
        if spec.stage == "run":
            return not area.run_open  # a card out of the run ended it (Superb 8's 4.2.2)
        if spec.stage == "initial":
            return len(first) >= 2 and (dealer_up is not None or not spec.needs_dealer_up)
        return False  # decided by the finished hands (Tie on 18, 21+)


_STATUS: Final = {"void": "void", "settled": "settled", "referred": "referred"}
