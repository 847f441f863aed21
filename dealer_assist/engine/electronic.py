"""Electronic Blackjack: one shared Player hand, each terminal deciding for itself.

The dealer deals Player, Dealer, Player (3.7); every terminal shares those two cards
(3.8). Later cards form one stream: each terminal's hands take them in order, only
as far as its own decisions need (3.13.1, 3.18.2), so a terminal that stood uses none
and one that split completes hand 1 before hand 2 continues from where it left off.
A new card is drawn only when some terminal needs one it has not seen; when every
terminal is resolved the next cards are the dealer's (3.18.2, 3.19, 3.20).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from dealer_assist.base.cards import Card
from dealer_assist.base.errors import EventFormatError, RuleRefusal
from dealer_assist.base.hands import RunningHand, hand_value, is_two_card_21
from dealer_assist.base.money import ZERO, half_kept, winnings
from dealer_assist.base.settlement import main_result
from dealer_assist.engine import hand_rules
from dealer_assist.engine.events import (
    Absent,
    Burn,
    CardDrawn,
    CloseOffers,
    Correction,
    Decision,
    Event,
    Multi,
    NoMoreBets,
    Pick,
    PowerFailure,
    Resolve,
    Timeout,
    Void,
    Wager,
    Withdraw,
    card_event_at,
)
from dealer_assist.engine.outcome import (
    CardMove,
    ClaimDecision,
    ControlChange,
    Expectation,
    Ruling,
    Settlement,
    settlement,
)
from dealer_assist.engine.phase import ELECTRONIC_MOVES
from dealer_assist.engine.round_api import DealerView, HandView, RoundView, TerminalView, WagerView
from dealer_assist.engine.round_base import EventSourcedRound
from dealer_assist.engine.shoe_state import ShoeState
from dealer_assist.games import INSURANCE_ODDS, GameRules, sidebets


@dataclass(frozen=True)
class ElectronicConfig:
    rules: GameRules
    decks: int
    limits: dict[str, tuple[Decimal, Decimal]]
    under_min_history: frozenset[str] = frozenset()
    shoe_dealt: tuple[Card, ...] = ()  # earlier rounds since the last shuffle (5.1)


# What an Electronic round waits for, where no part of it varies (the rest: _decisions_expectation).
_WAGERS: Final = Expectation("wagers")
_NOTHING: Final = Expectation("none")
_DEALER_CARD: Final = Expectation("card", target="dealer")
_PLAYERS_CARD: Final = Expectation("card", target="players")


class TerminalHand(RunningHand):
    """One of a terminal's hands: its cards with running totals (``RunningHand``), changed
    only through ``add_card`` and ``take_last`` (a split, 3.14), and its stake."""

    __slots__ = ("stake", "doubled", "from_split", "split_aces", "awaiting", "done", "busted", "settled")

    def __init__(self, cards: list[Card], stake: Decimal, from_split: bool = False) -> None:
        RunningHand.__init__(self, cards)
        self.stake = stake
        self.doubled = False
        self.from_split = from_split
        self.split_aces = False
        self.awaiting = False
        self.done = False
        self.busted = False
        self.settled = False


class Terminal:
    """One player terminal: its wagers, its hands and how far it has read the card stream."""

    __slots__ = ("player", "index", "main", "sides", "hands", "stream_pos", "offers_open", "default_play",
                 "surrendered", "insured", "even_money", "side_settled", "entry", "waiting", "resolved")

    def __init__(self, player: str, index: int) -> None:
        self.player = player
        self.index = index  # its place among the round's terminals (the order wagers came in)
        self.main = ZERO
        self.sides: dict[str, Decimal] = {}
        self.hands: list[TerminalHand] = []
        self.stream_pos = 0
        self.offers_open = True
        self.default_play = False  # 3.18 time-out, 5.9.1 power failure
        self.surrendered = False
        self.insured = ZERO
        self.even_money = False
        self.side_settled = False
        # While decisions are open: its pending entry, whether it waits for a stream card and
        # whether it is resolved, kept by ElectronicRound.refresh for the terminal that changed.
        self.entry: dict[str, Any] | None = None
        self.waiting = False
        self.resolved = True  # counted only once refreshed

    def current(self) -> TerminalHand | None:
        for h in self.hands:
            if not h.done:
                return h
        return None


class ElectronicRound(EventSourcedRound):
    """A round of Electronic Blackjack folded from its events."""

    def __init__(self, config: ElectronicConfig) -> None:
        self.config = config
        self.rules = config.rules
        self.side_specs: dict[str, sidebets.SideBetSpec] = {}  # the game's side bets by key
        for spec in config.rules.specs:
            self.side_specs.setdefault(spec.key, spec)
        self._reset()

    def _reset(self) -> None:
        self.events = []
        self.phase = "betting"  # the phase machine: phase.ELECTRONIC_MOVES
        self.moves = ELECTRONIC_MOVES
        self.terminals: dict[str, Terminal] = {}
        self.player_cards: list[Card] = []
        self.dealer: list[Card] = []
        self.stream: list[Card] = []
        self.settlements: list[Settlement] = []
        self._entered: set[tuple[str, str]] = set()  # (player, bet) of every settlement entry
        self.rulings = []
        self.claims: list[ClaimDecision] = []
        self.control_changes: list[ControlChange] = []  # terminals decide for themselves: none
        self.shoe = ShoeState(self.rules.composition, self.config.decks, list(self.config.shoe_dealt))
        self.under_min_players = set(self.config.under_min_history)
        self.event_index = 0
        self._expected = None
        self._asked = None
        self._next = None  # set by the handlers (expect_next); the rest by _dispatch from the kept state
        self.waiting_count = 0  # terminals waiting for a stream card (decisions phase)
        self.unresolved_count = 0  # terminals not yet resolved (decisions phase)
        # Decisions phase, by terminal index: its pending entry, and its player while it waits
        # for a stream card (None otherwise); kept by refresh for the terminal that changed.
        self.entries: list[dict[str, Any] | None] = []
        self.waits: list[str | None] = []
        self.player_blackjack = False  # the shared two cards are a blackjack (3.8)
        # Per (side bet, dealer cards dealt): its pay-table row, and whether it waits for the
        # dealer's second card -- the same for every terminal (3.8).
        self.side_rows: dict[tuple[str, int], sidebets.PayRow | None] = {}
        self.side_waits: dict[tuple[str, int], bool] = {}

    def clause(self, concept: str) -> str:
        return self.rules.clause(concept)

    def refuse(self, message: str, concept: str) -> RuleRefusal:
        return RuleRefusal(message, self.clause(concept))

    # ------------------------------------------------------------------ applying
    def fresh(self) -> ElectronicRound:
        """A new round at the same table (the same configuration), no event applied."""
        return ElectronicRound(self.config)

    def _dispatch(self, ev: Event) -> None:
        self.expect_next(None)  # (also when _rebuild replays the events)
        if self.phase == "void":
            raise RuleRefusal("the round is void; no further events", self.clause("void.foreign_card"))
        if self.phase == "settled" and isinstance(ev, CardDrawn) and ev.to is None:
            raise RuleRefusal("the round is settled: a card out of the shoe now is removed from play, the "
                              "outcome stands", self.clause("dealer_completed"))
        if self.phase == "settled" and not isinstance(ev, CardDrawn):
            raise self.refuse("the round is settled; no further events", "round_of_play")
        if isinstance(ev, Decision):  # the commonest events first
            self._on_decision(ev)
        elif isinstance(ev, CardDrawn):
            self._on_card(ev)
        elif isinstance(ev, Wager):
            self._on_wager(ev)
        elif isinstance(ev, NoMoreBets):
            self._on_no_more_bets()
        elif isinstance(ev, Burn):
            if self.player_cards:
                raise self.refuse("a burn card comes before the first card of the round", "deal_order")
            self.check_shoe(ev.card)
        elif isinstance(ev, Timeout):
            self._on_timeout(ev.player, self.clause("default_strategy"))
        elif isinstance(ev, PowerFailure):
            self._on_power_failure()
        elif isinstance(ev, Multi):
            self._on_multi(ev)
        elif isinstance(ev, Void):
            self.void(ev.rule or self.clause("void.foreign_card"), ev.reason or "voided by the supervisor")
        elif isinstance(ev, Absent):
            # A player away from a terminal that accepted the wager plays the default (3.18).
            self._on_timeout(ev.player, self.clause("default_strategy"))
        elif isinstance(ev, CloseOffers):
            if self.phase != "decisions":
                raise self.refuse("no offers are open", "insurance")
            for t in self.terminals.values():
                self._close_offers(t)
            self._progress()
        elif isinstance(ev, Correction):
            self._correction(ev)  # 5.2
        elif isinstance(ev, Pick):  # cards drawn together in an unknown order void the round (5.8)
            raise self.refuse("pick does not apply to Electronic Blackjack: cards drawn together in an "
                              "unknown order void the round", "multi.order_unknown")
        elif isinstance(ev, Resolve):
            raise self.refuse("resolve does not apply to Electronic Blackjack now: nothing is referred", "refer")
        elif isinstance(ev, Withdraw):
            raise self.refuse("withdraw does not apply to Electronic Blackjack: no wager may be withdrawn "
                              "after \"No more bets\"", "no_withdraw")
        else:  # a claim: every player shares the Player hand and decides at their own terminal
            raise self.refuse(f"{ev.type} events do not apply to Electronic Blackjack", "shared_hand")
        if self.next_expected() is None:
            # An event that leaves what is awaited as it was (a burn, a time-out before the
            # deal, a 5.2 ruling, ...): read from the kept state, no terminal searched.
            self.expect_next(self._kept_expectation())

    # ------------------------------------------------------------------ wagers
    def _on_wager(self, ev: Wager) -> None:
        if self.phase != "betting":
            raise self.refuse("no wager may be placed or increased after \"Bets are closed\"", "bets_closed")
        if ev.area is not None or ev.hand is not None:
            raise self.refuse("Electronic Blackjack wagers are placed at a terminal, not on an area", "layout")
        if ev.bet != "main" and ev.bet not in self.side_specs:
            raise self.refuse(f"Electronic Blackjack has no '{ev.bet}' wager", "side_bets")
        term = self.terminals.get(ev.player)
        new_total = ev.amount + (
            (term.main if ev.bet == "main" else term.sides.get(ev.bet, ZERO)) if term else ZERO
        )
        limits = self.config.limits.get(ev.bet)
        if limits is not None and not limits[0] <= new_total <= limits[1]:
            raise self.refuse(
                f"the terminal accepts {ev.bet} wagers from {limits[0]} to {limits[1]}, not {new_total}",
                "limits",
            )
        if ev.bet != "main" and (term is None or not term.main):
            raise self.refuse("a player must place a main wager to take part", "main_required")
        if term is None:
            term = self.terminals[ev.player] = Terminal(ev.player, len(self.terminals))
        if ev.bet == "main":
            term.main = new_total
        else:
            term.sides[ev.bet] = new_total
        self.expect_next(_WAGERS)

    def _on_no_more_bets(self) -> None:
        if self.phase != "betting":
            raise self.refuse("bets are already closed", "bets_closed")
        self.enter("initial" if self.terminals else "settled")
        self.expect_next(_PLAYERS_CARD if self.terminals else _NOTHING)  # 3.7: the Player's first card

    # ------------------------------------------------------------------ cards
    def void(self, rule: str, text: str) -> None:
        self.enter("void")
        self.expect_next(_NOTHING)
        self.rulings.append(Ruling(self.event_index, rule, "void", text))
        self.settlements = []
        self._entered.clear()
        for t in self.terminals.values():
            self._entry(t.player, "main", t.main, "returned", ZERO, rule, hand=1)
            for bet, amount in t.sides.items():
                self._entry(t.player, bet, amount, "returned", ZERO, rule)
            if t.insured:
                self._entry(t.player, "insurance", t.insured, "returned", ZERO, rule)

    def expected_target(self) -> str | None:
        if self.phase == "initial":
            return "dealer" if len(self.player_cards) == 1 and not self.dealer else "players"
        if self.phase == "decisions":
            return "players" if self.waiting_count else None
        if self.phase == "dealer":
            return "dealer" if self._dealer_needs_card() else None
        return None

    def _on_card(self, ev: CardDrawn) -> None:
        if ev.face_up:
            self.face_up(ev.card)
        asked = self._asked  # what the round said it waits for (kept): no search for the target
        if asked is not None:
            target = asked.target if asked.kind == "card" else None
        else:
            target = self.expected_target()
        if ev.to is not None:
            wanted = ev.to.kind
            if self.phase == "settled":
                self._after_outcome(ev.card, wanted)
                return
            if wanted not in ("player", "dealer"):
                raise self.refuse(f"an Electronic Blackjack card goes to the player or the dealer, not {ev.to}", "deal_order")
            if target is not None and wanted != _place(target):
                self._reconstruct(ev.card, wanted, target)  # 5.2
                return
            if target is None and self.phase == "decisions":
                self._next_card(ev.card, wanted)  # 5.2: it is the next card
                return
        if target is None:
            raise self.refuse("no card is expected now" + self._waiting_text(),
                              "deal_order" if self.phase == "betting" else "subsequent_cards")
        if not self.check_shoe(ev.card):
            return
        self._deliver(ev.card, target)

    def _after_outcome(self, card: Card, wanted: str) -> None:
        """A card out of the shoe once the outcome is established (1.1.12): on the dealer's
        completed hand 5.6; in the discard holder (or on a dealer's hand that drew no more,
        3.20) removed from play likewise, the outcome stands. Counted for 5.1 either way."""
        if wanted == "dealer" and hand_value(self.dealer)[0] >= 17:
            self._dealer_completed(card)
            return
        if wanted == "player":
            raise RuleRefusal("the round is settled: the player hand takes no card now; a card out of the "
                              "shoe goes to the discard holder", self.clause("dealer_completed"))
        if not self.check_shoe(card):
            return
        where = "" if wanted == "discard" else " on the dealer's hand"
        self.rulings.append(Ruling(
            self.event_index, self.clause("dealer_completed"), "discarded",
            f"{card} came out after the outcome{where}: removed from play; the outcome stands",
            (CardMove(card, "shoe" if wanted == "discard" else wanted, "discard"),),
        ))

    def _dealer_completed(self, card: Card) -> None:
        """5.6: a card dealt to the dealer's completed hand is removed; the outcome stands."""
        total, _ = hand_value(self.dealer)
        self.shoe.record(card)
        self.rulings.append(Ruling(
            self.event_index, self.clause("dealer_completed"), "discarded",
            f"{card} was dealt to the dealer's completed hand of {total}: removed from play; "
            "the outcome stands",
            (CardMove(card, "dealer", "discard"),),
        ))

    def _deliver(self, card: Card, target: str) -> None:
        if self.phase == "initial":
            if target == "dealer":
                self.dealer.append(card)
            else:
                self.player_cards.append(card)
            if len(self.player_cards) == 2:
                self._after_initial_deal()
            else:  # 3.7: Player, Dealer, Player
                self.expect_next(_DEALER_CARD if not self.dealer else _PLAYERS_CARD)
            return
        if target == "dealer":
            self.dealer.append(card)
            if len(self.dealer) == 2:
                self._settle_dealer_second_card()
            self._dealer_step()
            return
        self.stream.append(card)
        self._progress(waiting_only=True)

    def _after_initial_deal(self) -> None:
        self.enter("decisions")
        bj = self.player_blackjack = is_two_card_21(self.player_cards)
        n = len(self.terminals)
        self.entries = [None] * n
        self.waits = [None] * n
        for t in self.terminals.values():
            hand = TerminalHand(list(self.player_cards), t.main)
            hand.done = bj
            t.hands.append(hand)
        self._progress()

    # ------------------------------------------------------------------ terminals
    def _waiting_for_card(self, t: Terminal) -> bool:
        return self._hand_waits(t, t.current())

    def _hand_waits(self, t: Terminal, hand: TerminalHand | None) -> bool:
        """``hand``, the terminal's hand in turn, needs a stream card not dealt yet."""
        return hand is not None and self._hand_needs_card(t, hand) and t.stream_pos >= len(self.stream)

    def _hand_needs_card(self, t: Terminal, hand: TerminalHand) -> bool:
        if hand.awaiting or len(hand.cards) < 2:
            return True
        return t.default_play and self._default_draws(hand)

    @staticmethod
    def _default_draws(hand: TerminalHand) -> bool:
        """3.18.1: cards until hard 12 or soft 17."""
        total, soft = hand.value()
        return hand_rules.draws_by_fixed_rule(total, soft)

    def _progress(self, only: Terminal | None = None, waiting_only: bool = False) -> None:
        """Let the terminals take the stream cards their hands need; then the dealer.

        ``only``: the one terminal that acted (nothing else changed); ``waiting_only``: a card
        joined the stream, so only the terminals waiting for one can move. Each terminal
        moved has its pending entry worked out again, so a decision costs the same however
        many terminals play (linear in terminals per round)."""
        if only is not None:
            todo: list[Terminal] = [only]
        elif waiting_only:
            terminals = self.terminals
            todo = [terminals[p] for p in self.waits if p is not None]
        else:
            todo = list(self.terminals.values())
        for t in todo:
            self._play_terminal(t)
        if self.phase != "decisions":
            return
        for t in todo:
            self.refresh(t)
        if not self.unresolved_count:
            for t in self.terminals.values():
                self._close_offers(t)
            self.enter("dealer")
            self._unused_cards()  # 5.2: a card dealt early that no terminal took
            self._dealer_step()
            return
        self.expect_next(self._decisions_expectation())

    def _play_terminal(self, t: Terminal) -> None:
        while True:
            hand = t.current()
            if hand is None:
                return
            if self._hand_needs_card(t, hand):
                if t.stream_pos >= len(self.stream):
                    return
                card = self.stream[t.stream_pos]
                t.stream_pos += 1
                hand.add_card(card)
                hand.awaiting = False
                total = hand.total()
                if total > 21:
                    hand.busted = hand.done = True
                    self._settle_bust(t, hand)
                elif total == 21 or (hand.split_aces and len(hand.cards) >= 2) or (
                    hand.doubled and len(hand.cards) >= 3
                ):
                    hand.done = True
                continue
            if t.default_play:
                hand.done = True
                continue
            return

    def refresh(self, t: Terminal) -> None:
        """Work out again what one terminal shows while decisions are open (after it changed)."""
        if t.waiting:
            self.waiting_count -= 1
        if not t.resolved:
            self.unresolved_count -= 1
        hand = t.current()  # found once for the three questions
        t.entry = self.entries[t.index] = self._entry_for(t, hand)
        waiting = t.waiting = self._hand_waits(t, hand)
        t.resolved = hand is None and self._offers_done(t)
        self.waits[t.index] = t.player if waiting else None
        if waiting:
            self.waiting_count += 1
        if not t.resolved:
            self.unresolved_count += 1

    def _resolved(self, t: Terminal) -> bool:
        return t.current() is None and self._offers_done(t)

    def _offers_done(self, t: Terminal) -> bool:
        # A blackjack against a dealer Ace still has even money / insurance to decline.
        return not (t.offers_open and self._offers(t))

    def _offers(self, t: Terminal) -> list[str]:
        if not t.offers_open or t.default_play or not self.dealer:
            return []
        one_hand = len(t.hands) == 1
        return hand_rules.offers(
            self.rules, self.dealer[0].rank == "A", self.player_blackjack and one_hand, one_hand,
            may_insure=not t.insured and not t.even_money, may_take_even_money=not t.even_money,
            may_surrender=not t.surrendered,
        )

    def _close_offers(self, t: Terminal) -> None:
        """The terminal's offers close at its first play decision: its interim settlement."""
        if not t.offers_open:
            return
        t.offers_open = False
        self._settle_side_bets(t, final=False)
        up = self.dealer[0] if self.dealer else None
        hand = t.hands[0] if t.hands else None
        if hand is not None and hand.two_card_21() and not hand.settled and up is not None and not (
            up.rank == "A" or up.points == 10
        ):
            self._pay_blackjack(t, hand, "interim")

    def _settle_side_bets(self, t: Terminal, final: bool) -> None:
        if t.side_settled or len(self.player_cards) < 2:
            return
        if not t.sides:  # nothing to settle: no side bets' cards worked out
            t.side_settled = True
            return
        up = self.dealer[0] if self.dealer else None
        cards: sidebets.SideCards | None = None
        could_bj = up is not None and (up.rank == "A" or up.points == 10)
        pending_kb = False
        # Every terminal's side bets read the same cards (3.8): each bet is classified once
        # per dealer card count, not once per terminal.
        dealt = len(self.dealer)
        for bet, amount in t.sides.items():
            spec = self.side_specs.get(bet)
            if spec is None:
                continue
            key = (bet, dealt)
            if spec.waits_for_dealer is not None and could_bj and not final:
                waits = self.side_waits.get(key)
                if waits is None:
                    if cards is None:
                        cards = self._side_cards()
                    waits = self.side_waits[key] = spec.waits_for_dealer(cards)
                if waits:
                    pending_kb = True  # Kings Bounty's top row needs the dealer's second card (4.4)
                    continue
            if (t.player, bet) in self._entered:
                continue  # settled already (the interim, while Kings Bounty waited)
            if key in self.side_rows:
                row = self.side_rows[key]
            else:
                if cards is None:
                    cards = self._side_cards()
                row = self.side_rows[key] = spec.classify(cards)
            stage = "final" if final else "interim"
            if row is None:
                self._side_entry(t, bet, amount, "lose", -amount, self.clause(f"side.{bet}"), stage)
            else:
                self._side_entry(t, bet, amount, "win", winnings(amount, row.odds), row.clause, stage, row.name)
        t.side_settled = not pending_kb

    def _side_cards(self) -> sidebets.SideCards:
        return sidebets.SideCards(self.player_cards, self.dealer, dealer_blackjack=is_two_card_21(self.dealer))

    def _on_decision(self, ev: Decision) -> None:
        if ev.player is None:
            raise self.refuse("an Electronic Blackjack decision names the player (terminal)", "options")
        if ev.area is not None:
            raise self.refuse("Electronic Blackjack decisions name no area", "shared_hand")
        t = self.terminals.get(ev.player)
        if t is None:
            raise self.refuse(f"{ev.player} placed no main wager in this round", "main_required")
        action = ev.action
        if action == "split" and self._split_ace_named(t, ev.hand):
            raise self.refuse(*hand_rules.SPLIT_ACES_AGAIN)  # 3.14.1/3.14.3, whatever the hand in turn
        if self.phase != "decisions":
            # The options follow the initial deal (3.7, 3.9); the dealer draws once every
            # player's hand is complete (3.19).
            phase = self.phase
            when = ("options" if phase == "betting" or phase == "initial"
                    else "dealer_draws" if phase == "dealer" else None)
            raise RuleRefusal(f"no decision is possible now{self._waiting_text()}",
                              self.clause(when) if when is not None else None)
        if t.default_play:
            raise self.refuse(f"{t.player}'s decision time ran out: the default strategy plays", "default_strategy")
        if action in ("insurance", "even_money", "surrender"):
            self._offer_decision(t, ev)
            self._progress(t)
            return
        if action not in ("hit", "stand", "double", "split"):
            raise self.refuse(f"'{action}' is not an Electronic Blackjack decision", "options")
        hand = t.current()
        if hand is None:
            if action == "stand" and t.offers_open:
                self._close_offers(t)  # a blackjack declines even money and insurance
                self._progress(t)
                return
            hands = t.hands
            number = ev.hand if ev.hand is not None and 0 < ev.hand <= len(hands) else len(hands)
            last = hands[number - 1] if number else None
            finished = (hand_rules.finished_hand(last, last.split_aces, last.doubled, last.busted,
                                                 "lose.bust", "its wager has lost")
                        if last is not None else None)
            if finished is not None:  # why the hand takes no more decisions
                raise self.refuse(f"{t.player}'s hand {number} {finished[0]}", finished[1])
            raise self.refuse(f"{t.player} has no hand waiting for a decision", "options")
        number = t.hands.index(hand) + 1
        if ev.hand is not None and ev.hand != number:
            raise self.refuse(
                f"{t.player} completes hand {number} before deciding on hand {ev.hand}", "split.order"
            )
        if self._hand_needs_card(t, hand):
            # A split hand's second card comes first (3.13.1); the other cards it needs, from
            # the subsequent cards (3.18.2).
            raise self.refuse(f"{t.player}'s hand {number} is waiting for a card, not a decision",
                              "split.order" if len(hand.cards) < 2 else "subsequent_cards")
        total = hand.total()
        if action == "hit":
            if total >= 21:
                raise self.refuse(f"a total of {total} takes no more cards", "twenty_one_stops")
            if hand.split_aces:
                raise self.refuse("split aces receive one card each", "split.aces_one_card")
        elif action == "double":
            reason = self._double_refusal(t, hand, ev.amount)
            if reason is not None:
                raise self.refuse(*reason)
        elif action == "split":
            reason = self._split_refusal(t, hand)
            if reason is not None:
                raise self.refuse(*reason)
        self._close_offers(t)
        if action == "stand":
            hand.done = True
        elif action == "hit":
            hand.awaiting = True
        elif action == "double":
            hand.stake += t.main
            hand.doubled = True
            hand.awaiting = True
        else:
            second = hand.take_last()
            new = TerminalHand([second], t.main, from_split=True)
            hand.from_split = True
            if second.rank == "A":
                hand.split_aces = new.split_aces = True
            t.hands.insert(t.hands.index(hand) + 1, new)
        self._progress(t)

    # The refusals return the message and the concept of the clause: they run for every
    # option listed (pending), and only a refused decision becomes a RuleRefusal.
    def _double_refusal(self, t: Terminal, hand: TerminalHand, amount: Decimal | None) -> tuple[str, str] | None:
        refusal = hand_rules.double_refusal(self.rules, hand.cards, hand.split_aces, hand.from_split, hand.total())
        if refusal is not None:
            return refusal
        if amount is not None and amount != t.main:
            return f"a double equals the original wager of {t.main}", "double.amount"
        return None

    @staticmethod
    def _split_ace_named(t: Terminal, number: int | None) -> bool:
        """The hand a split names (by number, else the one in turn, else any) is a split ace."""
        if number is not None:
            return 0 < number <= len(t.hands) and t.hands[number - 1].split_aces
        hand = t.current()
        return hand.split_aces if hand is not None else any(h.split_aces for h in t.hands)

    def _split_refusal(self, t: Terminal, hand: TerminalHand) -> tuple[str, str] | None:
        return hand_rules.split_refusal(self.rules, hand.cards, len(t.hands), any(h.split_aces for h in t.hands))

    def _offer_decision(self, t: Terminal, ev: Decision) -> None:
        action = ev.action
        offered = self._offers(t)
        if action not in offered:
            dealer_ace = bool(self.dealer) and self.dealer[0].rank == "A"
            if not t.offers_open:
                concept = {"insurance": "insurance", "even_money": "even_money", "surrender": "surrender"}[action]
                raise self.refuse(f"{action.replace('_', ' ')} is possible only before {t.player}'s first play decision", concept)
            if action == "surrender":
                if dealer_ace:
                    raise self.refuse("a player may not surrender if the dealer's first card is an Ace", "surrender.not_ace")
                raise self.refuse("a blackjack or a split hand may not surrender", "surrender.after_split")
            if not dealer_ace:
                raise self.refuse(f"{action.replace('_', ' ')} is offered only when the dealer's first card is an Ace",
                                  "insurance" if action == "insurance" else "even_money")
            raise self.refuse(f"{action.replace('_', ' ')} is not available to {t.player} now",
                              "insurance" if action == "insurance" else "even_money")
        if action == "insurance":
            half = half_kept(t.main)
            amount = ev.amount if ev.amount is not None else half
            if self.rules.insurance_exactly_half and amount != half or amount > half:
                raise self.refuse(f"insurance is exactly 50% of the wager: {half}", "insurance.amount")
            t.insured = amount
            return
        hand = t.hands[0]
        if action == "surrender":
            t.surrendered = True
            hand.done = hand.settled = True
            self._close_offers(t)
            kept = half_kept(hand.stake)
            self._entry(t.player, "main", hand.stake, "surrender", kept - hand.stake, self.clause("surrender"),
                        hand=1, stage="interim")
            return
        t.even_money = True
        hand.settled = True
        self._entry(t.player, "main", hand.stake, "even_money", hand.stake, self.clause("even_money"),
                    hand=1, stage="interim")
        if t.insured:
            self._entry(t.player, "insurance", t.insured, "returned", ZERO, self.clause("even_money"),
                        stage="interim")
            t.insured = ZERO
        self._close_offers(t)

    def _on_timeout(self, player: str, rule: str) -> None:
        t = self.terminals.get(player)
        if t is None:
            raise self.refuse(f"{player} placed no main wager in this round", "main_required")
        if self.phase not in ("initial", "decisions"):
            raise self.refuse(f"{player} has no decision pending{self._waiting_text()}", "no_selection")
        t.default_play = True
        if self.phase == "decisions":
            self._close_offers(t)
            self._progress(t)  # only this terminal changed

    def _on_power_failure(self) -> None:
        """5.9: the round continues; affected terminals whose wagers were accepted play the default."""
        rule = self.clause("power_failure.accepted")
        if self.phase == "betting":
            self.rulings.append(Ruling(self.event_index, self.clause("power_failure.not_accepted"), "continue",
                                       "power failure before bets closed: wagers not accepted take no part"))
            return
        self.rulings.append(Ruling(self.event_index, rule, "continue",
                                   "power failure: the round continues; terminals play the default strategy (3.18)"))
        for t in self.terminals.values():
            t.default_play = True
            if self.phase == "decisions":
                self._close_offers(t)
        if self.phase == "decisions":
            self._progress()

    def _on_multi(self, ev: Multi) -> None:
        if ev.order_known:
            rest = list(ev.cards)
            for c in ev.disclosed:
                if c not in rest:
                    raise EventFormatError(f"multi: disclosed card {c} is not among the cards drawn")
                rest.remove(c)
            self._multi_in_order(ev.cards)
            return
        for c in ev.cards:
            self.shoe.record(c)
        self.void(self.clause("multi.order_unknown"),
                   f"{len(ev.cards)} cards left the shoe together in an unknown order: the round is void")

    def _multi_in_order(self, cards: tuple[Card, ...]) -> None:
        """5.7: cards drawn together in a known order are entered in that order, each where
        the next card goes: a terminal's hand or the dealer's, while decisions are pending
        the next card of the stream (as 5.2's next card); once no hand needs one, a card is
        removed from play and the outcome stands (5.6, as for the stream's unused cards)."""
        if self.expected_target() is None and self.phase != "decisions":
            raise self.refuse("no card is expected now: the cards drawn together have no hand to go to",
                              "multi.order_known")
        at = len(self.rulings)
        moves: list[CardMove] = []
        for card in cards:
            target = self.expected_target()
            if target is None and self.phase == "decisions":
                if not self.check_shoe(card):
                    return  # 5.1
                self.stream.append(card)
                moves.append(CardMove(card, "shoe", "player"))
                continue
            if target is None:
                if not self.check_shoe(card):
                    return  # 5.1
                rule = self.clause("dealer_completed")
                self.rulings.append(Ruling(self.event_index, rule, "discarded",
                                           f"{card} is not needed by any hand: it is removed from play ({rule})",
                                           (CardMove(card, "shoe", "discard"),)))
                continue
            if not self.check_shoe(card):
                return  # 5.1
            moves.append(CardMove(card, "shoe", _place(target)))
            self._deliver(card, target)
        rule = self.clause("multi.order_known")
        self.rulings.insert(at, Ruling(
            self.event_index, rule, "dealt",
            f"{len(cards)} cards left the shoe together in a known order: entered in that order "
            f"({', '.join(str(c) for c in cards)})", tuple(moves),
        ))

    # ------------------------------------------------------------------ dealer
    def _live(self) -> bool:
        """A hand whose outcome another dealer card may still change (3.20). A blackjack is
        decided once the dealer has two cards: no later card makes a dealer blackjack (1.1.1),
        and a hand of more cards never beats it (4.5.1)."""
        dealer_has_two = len(self.dealer) >= 2
        return any(not h.busted and not h.settled and not (dealer_has_two and self._blackjack(h))
                   for t in self.terminals.values() for h in t.hands)

    def _dealer_needs_card(self) -> bool:
        if hand_rules.dealer_stands(self.rules, self.dealer):  # 3.19
            return False
        if self._live():
            return True
        if len(self.dealer) < 2:
            return any(t.insured for t in self.terminals.values()) or any(
                not t.side_settled for t in self.terminals.values()
            )
        return False

    def _dealer_step(self) -> None:
        if self._dealer_needs_card():
            self.expect_next(_DEALER_CARD)
        else:
            self._finish()

    def _settle_dealer_second_card(self) -> None:
        bj = is_two_card_21(self.dealer)
        for t in self.terminals.values():
            if t.insured:
                if bj:
                    self._entry(t.player, "insurance", t.insured, "win", winnings(t.insured, INSURANCE_ODDS),
                                self.clause("pays"))
                else:
                    self._entry(t.player, "insurance", t.insured, "lose", -t.insured, self.clause("insurance"))
                t.insured = ZERO
            self._settle_side_bets(t, final=True)

    def _finish(self) -> None:
        if len(self.dealer) >= 2:
            for t in self.terminals.values():
                if t.insured:
                    self._settle_dealer_second_card()
                    break
        total, _ = hand_value(self.dealer)
        dealer_bj = is_two_card_21(self.dealer)
        once = hand_rules.OriginalWagerOnce(self.rules)  # 3.15.5 / 4.7 (kept per player: one for all)
        for t in self.terminals.values():
            self._settle_side_bets(t, final=True)
            for i, hand in enumerate(t.hands, start=1):
                if hand.busted or hand.settled:
                    continue
                hand.settled = True
                result, concept = main_result(hand.total(), self._blackjack(hand), total, dealer_bj)
                if result == "blackjack":
                    self._pay_blackjack(t, hand, "final")
                    continue
                net = hand.stake if result == "win" else -hand.stake if result == "lose" else ZERO
                result, net, concept = once.settle(t.player, result, net, concept, hand.from_split, hand.doubled,
                                                   t.main)
                self._entry(t.player, "main", hand.stake, result, net, self.clause(concept), hand=i)
        self.enter("settled")
        self.expect_next(_NOTHING)

    def _blackjack(self, hand: TerminalHand) -> bool:
        """A two-card 21 not on a split hand, in a game that pays blackjacks (1.1.1/1.1.2)."""
        return self.rules.blackjack_odds is not None and not hand.from_split and hand.two_card_21()

    def _pay_blackjack(self, t: Terminal, hand: TerminalHand, stage: str) -> None:
        odds = self.rules.blackjack_odds
        assert odds is not None
        hand.settled = True
        self._entry(t.player, "main", hand.stake, "win", winnings(hand.stake, odds), self.clause("win.blackjack"),
                    hand=1, stage=stage)

    def _settle_bust(self, t: Terminal, hand: TerminalHand) -> None:
        hand.settled = True
        self._entry(t.player, "main", hand.stake, "lose", -hand.stake, self.clause("lose.bust"),
                    hand=t.hands.index(hand) + 1)

    def _side_entry(self, t: Terminal, bet: str, amount: Decimal, result: str, net: Decimal, rule: str,
                    stage: str, row: str | None = None) -> None:
        self._entry(t.player, bet, amount, result, net, rule, stage=stage, row=row)

    def _entry(self, player: str, bet: str, stake: Decimal, result: str, net: Decimal, rule: str, *,
               hand: int | None = None, stage: str = "final", row: str | None = None) -> None:
        self.settlements.append(settlement(player, bet, stake, result, net, rule, stage, None, hand, row))
        self._entered.add((player, bet))

    # ------------------------------------------------------------------ section 5 (5.2)
    def _reconstruct(self, card: Card, wanted: str, target: str) -> None:
        """5.2: a card dealt to the wrong hand goes where the shoe order puts it."""
        if not self.check_shoe(card):
            return  # 5.1
        dest = _place(target)
        rule = self.clause("misdeal.reconstruct")
        self.rulings.append(Ruling(
            self.event_index, rule, "reconstructed",
            f"{card} was dealt to the {wanted} but is the {dest}'s card in the order the shoe dealt it: "
            f"move it there ({rule})", (CardMove(card, wanted, dest),),
        ))
        self._deliver(card, target)

    def _correction(self, ev: Correction) -> None:
        """5.2: discovered later, the card is moved back to where the shoe order put it."""
        card_ev = card_event_at(self.events, ev.index)
        if ev.to.kind not in ("player", "dealer"):
            raise self.refuse(f"an Electronic Blackjack card lies with the player or the dealer, not {ev.to}", "deal_order")
        if self.phase in ("void", "betting"):
            raise self.refuse("the round is not in play", "misdeal.reconstruct")
        before = ElectronicRound(self.config)
        before.apply_all(self.events[:ev.index])
        target = before.expected_target()
        if target is None:
            raise self.refuse(f"{card_ev.card} of event {ev.index} was discarded", "misdeal.reconstruct")
        here = _place(target)
        if here == ev.to.kind:
            raise self.refuse(f"{card_ev.card} already lies with the {here}", "misdeal.reconstruct")
        rule = self.clause("misdeal.reconstruct")
        self.rulings.append(Ruling(
            self.event_index, rule, "reconstructed",
            f"{card_ev.card} lies with the {ev.to.kind} but is the {here}'s card in the order the shoe "
            f"dealt it: move it back ({rule})", (CardMove(card_ev.card, ev.to.kind, here),),
        ))

    def _next_card(self, card: Card, wanted: str) -> None:
        """5.2: a card dealt while no hand asked for one is, in shoe order, the next card."""
        if not self.check_shoe(card):
            return  # 5.1
        rule = self.clause("misdeal.reconstruct")
        self.stream.append(card)
        self.rulings.append(Ruling(
            self.event_index, rule, "reconstructed",
            f"{card} was dealt to the {wanted} before any hand asked for a card: it is taken back and is "
            f"the next card, the Player's if a terminal draws, else the dealer's ({rule})",
            (CardMove(card, wanted, "shoe"),),
        ))

    def _unused_cards(self) -> None:
        """Cards taken back under 5.2 that no terminal drew are the dealer's next cards."""
        used = max((t.stream_pos for t in self.terminals.values()), default=0)
        unused = self.stream[used:]
        del self.stream[used:]
        for card in unused:
            if self._dealer_needs_card():
                self.dealer.append(card)
                if len(self.dealer) == 2:
                    self._settle_dealer_second_card()
                continue
            rule = self.clause("dealer_completed")
            self.rulings.append(Ruling(self.event_index, rule, "discarded",
                                       f"{card} is not needed by any hand: it is removed from play ({rule})",
                                       (CardMove(card, "shoe", "discard"),)))

    # ------------------------------------------------------------------ reporting
    def _waiting_text(self) -> str:
        exp = self.expectation()
        if exp.kind == "decisions":
            return " (waiting for decisions from " + ", ".join(p["player"] for p in exp.pending) + ")"
        return ""

    def terminal_states(self) -> list[dict[str, Any]]:
        """Per terminal, for the dealer's screen: hands, the hand in turn, legal options,
        offers, whether it waits for a card, and whether the default strategy plays it (3.18)."""
        pending = {p["player"]: p for p in self.pending()}
        out = []
        for t in self.terminals.values():
            hand = t.current()
            out.append({
                "player": t.player,
                "main": t.main,
                "hands": [[str(c) for c in h.cards] for h in t.hands],
                "in_turn": (t.hands.index(hand) + 1) if hand is not None else None,
                "options": pending.get(t.player, {}).get("options", []),
                "waiting_for_card": self._waiting_for_card(t),
                "default_strategy": t.default_play,
                "resolved": self._resolved(t),
            })
        return out

    def pending(self, *, recompute: bool = False) -> list[dict[str, Any]]:
        """Every terminal still to decide: hand in turn, legal options, time-out state.
        ``recompute`` works every terminal out afresh (what the kept entries must equal)."""
        if self.phase == "decisions" and not recompute:  # kept terminal by terminal (refresh)
            return [e for e in self.entries if e is not None]
        out = []
        for t in self.terminals.values():
            entry = self._pending_entry(t)
            if entry is not None:
                out.append(entry)
        return out

    def _pending_entry(self, t: Terminal) -> dict[str, Any] | None:
        """One terminal's pending decision (None: it has none)."""
        return self._entry_for(t, t.current())

    def _entry_for(self, t: Terminal, hand: TerminalHand | None) -> dict[str, Any] | None:
        """``_pending_entry`` with the terminal's hand in turn (``hand``) already found."""
        if t.default_play:
            return None
        options: list[str] = []
        if hand is not None and not self._hand_needs_card(t, hand):
            total = hand.total()
            if total < 21 and not hand.split_aces:
                options.append("hit")
            options.append("stand")
            if self._double_refusal(t, hand, None) is None:
                options.append("double")
            if self._split_refusal(t, hand) is None:
                options.append("split")
        offers = self._offers(t)
        if "surrender" in offers and hand is not None:
            options.append("surrender")
        extra = [o for o in offers if o != "surrender"]
        if hand is None and extra:
            options = ["stand"]
        if not options and not extra:
            return None
        return {
            "player": t.player,
            "hand": (t.hands.index(hand) + 1) if hand is not None else 1,
            "options": options + extra,
        }

    def _decisions_expectation(self) -> Expectation:
        """While decisions are open: the stream card the waiting terminals need, else every
        pending decision; read from what refresh keeps per terminal, in the terminals' order."""
        if self.waiting_count:
            return Expectation("card", target="players", extra={"waiting": [p for p in self.waits if p is not None]})
        return Expectation("decisions", pending=tuple(filter(None, self.entries)))  # (entries are non-empty)

    def _kept_expectation(self) -> Expectation:
        """What the round waits for, from the kept state (no terminal worked out again)."""
        phase = self.phase
        if phase == "decisions":
            return self._decisions_expectation()
        if phase == "initial":
            return _DEALER_CARD if len(self.player_cards) == 1 and not self.dealer else _PLAYERS_CARD
        if phase == "betting":
            return _WAGERS
        if phase == "dealer" and self._dealer_needs_card():
            return _DEALER_CARD
        if phase == "dealer":
            return Expectation("decisions", pending=tuple(self.pending()))
        return _NOTHING

    def _expectation(self) -> Expectation:
        """The full search: every terminal worked out afresh from its hands (what the kept
        expectation must equal; tests/engine/test_electronic_expectation_kept.py)."""
        phase = self.phase
        if phase == "betting":
            return _WAGERS
        if phase in ("settled", "void"):
            return _NOTHING
        if phase == "initial":
            return _DEALER_CARD if len(self.player_cards) == 1 and not self.dealer else _PLAYERS_CARD
        if phase == "decisions":
            waiting = [t.player for t in self.terminals.values() if self._waiting_for_card(t)]
            if waiting:
                return Expectation("card", target="players", extra={"waiting": waiting})
        elif self._dealer_needs_card():
            return _DEALER_CARD
        return Expectation("decisions", pending=tuple(self.pending(recompute=True)))

    def report(self) -> dict[str, Any]:
        total, _ = hand_value(self.dealer)
        players = []
        for t in self.terminals.values():
            hands = [{"hand": i, "cards": [str(c) for c in h.cards], "total": h.total()}
                     for i, h in enumerate(t.hands, start=1)]
            if not hands and self.player_cards:
                hands = [{"hand": 1, "cards": [str(c) for c in self.player_cards],
                          "total": hand_value(self.player_cards)[0]}]
            players.append({"player": t.player, "hands": hands})
        return {
            "dealer": {"cards": [str(c) for c in self.dealer], "total": total},
            "player_cards": [str(c) for c in self.player_cards],
            "players": players,
        }

    # ------------------------------------------------------------------ the shoe
    def cards_needed(self) -> int:
        """The fewest cards the round still needs from the shoe to be completed."""
        if self.phase in ("betting", "settled", "void", "referred"):
            return 0
        if self.phase == "initial":
            return 3 - len(self.player_cards) - len(self.dealer) + 1  # 3.7, then the dealer's second
        waiting = 1 if self.phase == "decisions" and self.expected_target() == "players" else 0
        return waiting + max(0, 2 - len(self.dealer))

    def next_to_act(self) -> tuple[int, str] | None:
        """None: every terminal decides for itself (there are no playing areas)."""
        return None

    # ------------------------------------------------------------------ views
    def view(self) -> RoundView:
        """An immutable picture of the round for a screen (round_api.RoundView)."""
        rules = self.rules
        pending = {p["player"]: p for p in self.pending()}
        terminals = []
        for t in self.terminals.values():
            current = t.current()
            in_turn = (t.hands.index(current) + 1) if current is not None else None
            hands = []
            for i, h in enumerate(t.hands, start=1):
                total, soft = h.value()
                hands.append(HandView(
                    i, tuple(str(c) for c in h.cards), total, soft, ((t.player, h.stake),),
                    self._blackjack(h), h.busted or total > 21, h.doubled,
                    t.surrendered and i == 1, in_turn == i and t.player in pending,
                ))
            sides = tuple(WagerView(t.player, bet, rules.bet_name(bet), amount, amount)
                          for bet, amount in t.sides.items())
            insurance = (WagerView(t.player, "insurance", rules.bet_name("insurance"), t.insured, t.insured)
                         if t.insured else None)
            terminals.append(TerminalView(
                t.player, t.main, sides, tuple(hands), in_turn,
                tuple(pending.get(t.player, {}).get("options", ())), self._waiting_for_card(t),
                t.default_play, self._resolved(t), insurance, t.even_money,
            ))
        total, soft = hand_value(self.dealer)
        dealer = DealerView(tuple(str(c) for c in self.dealer), total, soft, is_two_card_21(self.dealer),
                            total > 21)
        return RoundView(rules.key, rules.name, True, self.status(), self.phase == "betting", dealer, (),
                         tuple(str(c) for c in self.player_cards), tuple(terminals))

    def under_minimum_first_time(self) -> tuple[str, ...]:
        """None: the terminal refuses a wager outside its limits (2.2), so 5.26 never arises."""
        return ()


def _place(target: str) -> str:
    """Where an Electronic Blackjack card lies: with the Player (the shared hand) or the dealer."""
    return "dealer" if target == "dealer" else "player"
