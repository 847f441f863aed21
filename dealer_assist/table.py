"""The round at a table with playing areas (Ace Race, Star Elements, Lucky 8, Dueling 8's).

A :class:`TableRound` is its :class:`TableConfig` plus the events applied to it. Each
event either changes the state or is refused with the clause that forbids it
(:class:`RuleRefusal`); a refused event leaves the round exactly as it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from functools import lru_cache
from typing import Any, Final

from dealer_assist import claims, hand_rules, irregularities, sidebets
from dealer_assist.cards import Card
from dealer_assist.errors import RuleRefusal
from dealer_assist.events import (
    Absent,
    Burn,
    CardDrawn,
    Claim,
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
)
from dealer_assist.games import INSURANCE_ODDS, GameRules
from dealer_assist.hands import hand_value, is_two_card_21
from dealer_assist.money import ZERO, half_kept, to_json_number, winnings
from dealer_assist.outcome import (
    NO_EXTRA,
    ClaimDecision,
    ControlChange,
    Expectation,
    Ruling,
    Settlement,
    control_change,
    settlement,
)
from dealer_assist.round_api import AreaView, DealerView, HandView, RoundView, WagerView
from dealer_assist.round_base import EventSourcedRound
from dealer_assist.settlement import main_result
from dealer_assist.shoe_state import ShoeState
from dealer_assist.table_state import (
    PERMANENT_EIGHT,
    Area,
    Hand,
    IrregularState,
    MainWager,
    SideWager,
    TableConfig,
)

PLAY_ACTIONS: Final = frozenset({"hit", "stand", "double", "split"})
_CLOSED_PHASES: Final = frozenset({"void", "settled", "referred"})  # phases that take few events or none


class TableRound(EventSourcedRound):
    """One round at a table: state folded from events; refuses what the rules forbid."""

    def __init__(self, config: TableConfig) -> None:
        self.config = config
        self.rules = config.rules
        self._bets = _bets_of(self.rules)
        self._reset()

    # ------------------------------------------------------------------ state
    def _reset(self) -> None:
        cfg = self.config
        self.events = []
        self.phase = "betting"  # betting, initial, offers, play, dealer, settled, void, referred
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
        self._turn = 0  # index into order: every hand of the areas before it is done
        self.offers_open = False
        self.interim_done = False
        self.referral: tuple[str, str] | None = None
        self.event_index = 0  # index of the event being applied
        self._expected = None  # expectation(), until the next event
        self._asked = None  # the expectation the event being applied answers
        self.irregular: IrregularState | None = None  # section 5 rulings left pending
        # event index -> where its card went, (0, None) for the dealer (5.6 corrections)
        self.placed_cards: dict[int, tuple[int, Hand | None]] = {}

    def clause(self, concept: str) -> str:
        """This game's clause number for ``concept`` (as GameRules.clause, one call fewer)."""
        return self.rules.clauses[concept]

    def refuse(self, message: str, concept: str | None = None, clause: str | None = None) -> RuleRefusal:
        return RuleRefusal(message, clause if clause else self.clause(concept) if concept else None)

    # ------------------------------------------------------------------ applying events
    def fresh(self) -> TableRound:
        """A new round at the same table (the same configuration), no event applied."""
        return TableRound(self.config)

    def _dispatch(self, event: Event) -> None:
        phase = self.phase
        if phase in _CLOSED_PHASES:
            if phase == "void":
                raise self.refuse("the round is void; no further events", "void.foreign_card")
            if phase == "settled" and not (isinstance(event, CardDrawn) and event.to is not None):
                raise RuleRefusal("the round is settled; no further events")
            if phase == "referred" and not isinstance(event, Resolve | Void):
                raise self.refuse(
                    "the round is referred to the Gaming Shift Manager; waiting for a resolve", "refer"
                )
        # Section 5 hooks only matter once a ruling left something pending (self.irregular).
        if self.irregular is not None and irregularities.before_event(self, event):
            return  # section 5 consumed the event
        self._handle(event)
        if self.irregular is not None:  # also when this event's ruling left something pending
            irregularities.after_event(self, event)

    def _handle(self, event: Event) -> None:
        """The one place an event is dispatched (the common ones first)."""
        if isinstance(event, CardDrawn):
            self._on_card(event)
        elif isinstance(event, Decision):
            self._on_decision(event)
        elif isinstance(event, Wager):
            self._on_wager(event)
        elif isinstance(event, NoMoreBets):
            self._on_no_more_bets(event)
        elif isinstance(event, Claim):
            claims.resolve_claim(self, event)
        elif isinstance(event, Burn):
            self._on_burn(event)
        elif isinstance(event, CloseOffers):
            self._on_close_offers(event)
        elif isinstance(event, Absent):
            self._on_absent(event)
        elif isinstance(event, Resolve):
            self._on_resolve(event)
        elif isinstance(event, Correction):
            irregularities.correction(self, event)
        elif isinstance(event, Multi):
            irregularities.multi(self, event)
        elif isinstance(event, Pick):
            irregularities.pick(self, event)
        elif isinstance(event, Withdraw):
            irregularities.withdraw(self, event)
        elif isinstance(event, PowerFailure):
            irregularities.power_failure(self)
        elif isinstance(event, Void):
            irregularities.supervisor_void(self, event)
        elif isinstance(event, Timeout):
            raise self.refuse("a terminal time-out is an Electronic Blackjack event; at this table use "
                              "'absent'", "absent")
        else:
            raise RuleRefusal(f"{event.type} events do not apply at this table")

    # ------------------------------------------------------------------ wagers
    def _on_wager(self, ev: Wager) -> None:
        rules = self.rules
        config = self.config
        number, bet, player = ev.area, ev.bet, ev.player
        if number is None:
            raise RuleRefusal("a wager at this table names its playing area")
        if not 1 <= number <= config.areas:
            raise RuleRefusal(f"area {number} is not on this layout of {config.areas} areas")
        if self.phase != "betting":
            if ev.hand is not None and self._late_wager_allowed(ev):
                self._place_split_side_bet(ev)
                return
            raise self.refuse("no wager may be placed or increased after \"no more bets\"", "bets_closed")
        if ev.hand is not None:
            raise RuleRefusal("a wager names a hand only when placed on a split hand")
        if bet != "main" and bet not in self._bets.specs:
            raise RuleRefusal(f"{rules.name} has no '{bet}' wager")
        if config.one_area_players:
            self.check_one_area(player, number)  # 3.9
        area = self.areas.get(number)
        if bet == "main":
            if area is None:
                area = self.areas[number] = Area(number)
            existing = area.wager_of(player)
            if existing is not None:
                # 3.10.2: a player's wagers within one area are not separated.
                existing.placed += ev.amount
                existing.amount = existing.placed
                return
            limit = config.max_wagers_per_area
            if len(area.wagers) >= limit:
                if limit == 3:
                    raise self.refuse(f"area {number} already holds three main wagers", "max_wagers_area")
                raise self.refuse(
                    f"the pit manager allows {limit} main wager{'s' if limit > 1 else ''} per area "
                    f"and area {number} holds {len(area.wagers)}", "pit_restrict_wagers",
                )
            area.wagers.append(MainWager(player, ev.amount, len(area.wagers) + 1))
            # 3.13: the controller is known, and shown, while bets are being placed.
            self.update_controller(area, None)
            return
        if area is None or not area.wagers:
            raise self.refuse(
                f"a {bet} wager may only be placed on an area which contains a main wager",
                "side_needs_main",
            )
        taken = 0
        for s in area.sides:
            if s.bet == bet and s.hand is None:
                if s.player == player:
                    s.placed += ev.amount
                    s.amount = s.placed
                    return
                taken += 1
        if taken >= 3:
            raise self.refuse(f"area {number} already holds three {bet} wagers", "side_slots")
        area.sides.append(SideWager(player, bet, ev.amount, None))

    def check_one_area(self, player: str, area_no: int) -> None:
        if player not in self.config.one_area_players:
            return
        for a in self.areas.values():
            if a.number != area_no and (
                a.wager_of(player) is not None or any(s.player == player for s in a.sides)
            ):
                raise self.refuse(
                    f"{player} is restricted by the pit manager to one playing area "
                    f"and already wagers on area {a.number}",
                    "pit_restrict_area",
                )

    def _late_wager_allowed(self, ev: Wager) -> bool:
        spec = self._bets.specs.get(ev.bet)
        return spec is not None and spec.split_hand is not None

    def _place_split_side_bet(self, ev: Wager) -> None:
        """Ace Race wager on split aces (3.21.1); Tie on 18 on a split hand (3.23.1, 3.25)."""
        assert ev.area is not None and ev.hand is not None
        area = self.areas.get(ev.area)
        hand = self._hand(area, ev.hand) if area else None
        if area is None or hand is None:
            raise RuleRefusal(f"area {ev.area} has no hand {ev.hand}")
        spec = self._bets.specs.get(ev.bet)
        assert spec is not None
        name = spec.name
        clause = self.clause(spec.split_concept)
        if spec.split_hand == "aces":  # Ace Race 3.21.1
            if not hand.split_aces:
                raise RuleRefusal(f"an {name} wager after the deal goes only on split Aces", clause)
            if any(len(h.cards) > 1 for h in area.hands if h.split_aces):
                raise RuleRefusal(
                    f"the {name} wager on split Aces must be placed before any subsequent card", clause
                )
        else:  # any split hand (Dueling 8's 3.23.1, 3.25)
            if not hand.from_split:
                raise RuleRefusal(f"a {name} wager after the deal goes only on a split hand", clause)
            if len(hand.cards) > 1:
                raise RuleRefusal(
                    f"the {name} wager on a split hand must be placed before its second card", clause
                )
            if not any(s.bet == ev.bet and s.player == ev.player and s.hand is None for s in area.sides):
                raise RuleRefusal(
                    f"{ev.player} placed no {name} wager before the initial deal", clause
                )
            if ev.player not in hand.stakes:
                raise RuleRefusal(
                    f"{ev.player} has no wager on hand {ev.hand}: only players who matched the split "
                    f"may wager {name} on it",
                    self.clause(spec.split_follower_concept),
                )
        if any(s.hand is hand and s.bet == ev.bet and s.player == ev.player for s in area.sides):
            raise RuleRefusal(f"{ev.player} already has a {ev.bet} wager on that hand", clause)
        side = SideWager(ev.player, ev.bet, ev.amount, hand)
        self._apply_limits(side, ev.bet)
        area.sides.append(side)

    def _apply_limits(self, wager: MainWager | SideWager, kind: str) -> None:
        """5.26/5.27 at the close of bets: cap at the maximum, return repeat under-minimums."""
        limits = self.config.limits.get(kind)
        if limits is None:
            return
        low, high = limits
        if wager.placed > high:
            wager.amount = high
            wager.excess = wager.placed - high
        elif wager.placed < low:
            if wager.player in self.under_min_players:
                wager.returned = True
            else:
                self.under_min_players.add(wager.player)

    def _on_no_more_bets(self, ev: NoMoreBets) -> None:
        if self.phase != "betting":
            raise self.refuse("bets are already closed", "bets_closed")
        self.phase = "initial"
        self.order = sorted(a.number for a in self.areas.values() if a.wagers)
        self._turn = 0
        limited = bool(self.config.limits)  # no table limits: nothing to cap or return
        for number in self.order:
            area = self.areas[number]
            if limited:
                # Limits in placement order: the first under-minimum wager of a player settles normally.
                for w in area.wagers:
                    self._apply_limits(w, "main")
                for s in area.sides:
                    self._apply_limits(s, s.bet)
            first = Hand([PERMANENT_EIGHT] if self.rules.permanent_eight else [])
            for w in area.wagers:
                first.stakes[w.player] = w.amount
            area.hands.append(first)
            self.update_controller(area, None)
        # 3.18 (3.19 in Dueling 8's): one card to each area, one to the dealer, second round.
        self.initial_queue = [(n, 0) for n in self.order]
        if self.rules.dealer_card_in_initial_deal:
            self.initial_queue.append((0, 0))
        if not self.rules.permanent_eight:
            self.initial_queue += [(n, 0) for n in self.order]
        self.queue_pos = 0
        if not self.order:
            self._finish()

    # ------------------------------------------------------------------ control (3.11, 3.12)
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

    # ------------------------------------------------------------------ cards
    def _on_burn(self, ev: Burn) -> None:
        if self.phase not in ("betting", "initial") or self._cards_dealt():
            # A burn noticed after cards came out is a card dealt in error (5.21).
            irregularities.late_burn(self, ev)  # 5.21: the dealer forgot to burn the first card
            return
        self.check_shoe(ev.card)

    def _cards_dealt(self) -> bool:
        return bool(self.shoe.dealt) and self.queue_pos > 0

    def void(self, rule: str, text: str) -> None:
        self.phase = "void"
        self.rulings.append(Ruling(self.event_index, rule, "void", text))
        self.settlements = [s for s in self.settlements if False]
        for area in self.areas.values():
            for w in area.wagers:
                self.record_entry(w.player, "main", w.placed, "returned", ZERO, rule, area=area.number, hand=1)
            for s in area.sides:
                hand_no = self._hand_number(area, s.hand) if s.hand else None
                self.record_entry(s.player, s.bet, s.placed, "returned", ZERO, rule, area=area.number, hand=hand_no)
            for player, amount in area.insurance_wagers():
                self.record_entry(player, "insurance", amount, "returned", ZERO, rule, area=area.number)

    def expected_card_target(self) -> tuple[int, int] | None:
        """(area, hand index) or (0, 0) for the dealer; None when no card is expected."""
        if self.phase == "initial":
            return self.initial_queue[self.queue_pos]
        if self.phase == "play":
            cur = self.current_hand()
            if cur is None:
                return None
            area, hand = cur
            if self._needs_card(area, hand):
                return (area.number, area.hands.index(hand))
            return None
        if self.phase == "offers":
            return None
        if self.phase == "dealer":
            return (0, 0) if self._dealer_needs_card() else None
        return None

    def _on_card(self, ev: CardDrawn) -> None:
        if ev.face_up:
            self.face_up(ev.card)
        if ev.to is not None:
            irregularities.misplaced_card(self, ev)
            return
        asked = self._asked
        if asked is not None and asked.kind == "card" and self.irregular is None:
            # The round said where the next card goes (expectation() works it out as
            # expected_card_target() does): area 0 is the dealer.
            number, hand_no = asked.area, asked.hand
            assert number is not None and hand_no is not None
            target: tuple[int, int] | None = (number, hand_no - 1)
        else:
            target = self.expected_card_target()
        if target is None and self.phase == "offers" and self._no_player_decision():
            # Nobody has a decision to make: the dealer's card closes the offers.
            self.close_offers()
            target = self.expected_card_target()
        if target is None:
            raise RuleRefusal(
                "no card is expected now and the card event says nothing of where it went"
                + self._waiting_for()
            )
        if not self.check_shoe(ev.card):
            return
        self.deliver(ev.card, target)

    def _waiting_for(self) -> str:
        exp = self.expectation()
        if exp.kind == "decision":
            return f" (waiting for a decision by {exp.player} on area {exp.area})"
        if exp.kind == "wagers":
            return " (bets are not closed)"
        return ""

    def deliver(self, card: Card, target: tuple[int, int]) -> None:
        """Put a card where the deal expects it and move the round on."""
        number, hand_index = target
        if self.irregular is None:  # otherwise irregularities.after_event records it
            self.placed_cards[self.event_index] = (0, None) if number == 0 else (
                number, self.areas[number].hands[hand_index])
        if number == 0:
            self.dealer.append(card)
            if self.phase == "initial":
                self.queue_pos += 1
                self.after_initial_card()
            else:
                self._after_dealer_card()
            return
        area = self.areas[number]
        hand = area.hands[hand_index]
        hand.cards.append(card)
        area.dealt.append(card)
        self.track_run(area, card)
        if self.phase == "initial":
            self.queue_pos += 1
            self.after_initial_card()
            return
        hand.awaiting = False
        self.after_player_card(area, hand)

    def after_initial_card(self) -> None:
        if self.queue_pos < len(self.initial_queue):
            return
        self.phase = "offers"
        self.offers_open = True
        for number in self.order:
            area = self.areas[number]
            hand = area.hands[0]
            if self._is_blackjack(hand):
                hand.done = True
        self.maybe_close_offers()

    def _no_player_decision(self) -> bool:
        """No hand waits for a player: all done, or the next is dealt for an absent player (5.22)."""
        cur = self.current_hand()
        return cur is None or cur[0].absent_play

    def maybe_close_offers(self) -> None:
        """Offers close by themselves when nobody has anything to decide."""
        if self.offers_open and not self._offers() and self._no_player_decision():
            self.close_offers()
            if self.phase == "play":
                self.advance()

    def after_player_card(self, area: Area, hand: Hand) -> None:
        total, _ = hand.value()
        if total > 21:
            hand.busted = True
            hand.done = True
            self.settle_bust(area, hand)
        elif total == 21:
            hand.done = True  # 3.30: 21 draws no more
        elif hand.split_aces and len(hand.cards) >= 2:
            hand.done = True  # 3.23.1: one card to each split ace
        elif hand.doubled and len(hand.cards) >= 3:
            hand.done = True  # 3.26.4: one card only
        elif area.absent_play and not self._fixed_rule_draws(hand):
            hand.done = True  # 5.22 fixed rule reached
            hand.stood_by_rule = self.clause("absent")
        if self.phase == "play":
            self.advance()

    @staticmethod
    def _fixed_rule_draws(hand: Hand) -> bool:
        """5.22: the dealer draws while the hard total is 11 or less or a soft total under 17."""
        return hand_rules.fixed_rule_draws(hand.cards, hand.aces_fixed)

    def track_run(self, area: Area, card: Card) -> None:
        """A "run" side bet (Superb 8's, 4.2.2) is decided by the first card that breaks the run."""
        spec = self._bets.run
        if not area.run_open or spec is None:
            return
        if card.rank != spec.run_rank:
            area.run_open = False
            if self.phase != "initial":
                self._settle_run(area, "final")

    # ------------------------------------------------------------------ the hand in turn
    def current_hand(self) -> tuple[Area, Hand] | None:
        """The first hand not yet done, in dealing order (3.18), or None."""
        # Hands finish in order, so the scan resumes at the first area not yet finished
        # (``_turn``); anything that re-opens a finished hand rewinds it (rewind_turn).
        order = self.order
        areas = self.areas
        i = self._turn
        n = len(order)
        while i < n:
            area = areas[order[i]]
            for hand in area.hands:
                if not hand.done:
                    self._turn = i
                    return area, hand
            i += 1
        self._turn = i
        return None

    def rewind_turn(self) -> None:
        """A finished hand was re-opened (5.21 reconstruction): scan from the first area again."""
        self._turn = 0

    def _needs_card(self, area: Area, hand: Hand) -> bool:
        if hand.awaiting or len(hand.cards) < 2:
            return True
        if area.absent_play and self._fixed_rule_draws(hand):
            return True
        return False

    def advance(self) -> None:
        """Mark finished hands done; when no player hand is left, the dealer plays."""
        while True:
            cur = self.current_hand()
            if cur is None:
                break
            area, hand = cur
            if not area.controller and not area.absent_play and not self._needs_card(area, hand):
                hand.done = True
                continue
            if len(hand.cards) >= 2 and not hand.awaiting:
                total, _ = hand.value()
                if total >= 21 or (hand.split_aces and len(hand.cards) >= 2):
                    hand.done = True
                    continue
                if hand.stood_by_rule:
                    hand.done = True
                    continue
                if area.absent_play and not self._fixed_rule_draws(hand):
                    hand.done = True
                    hand.stood_by_rule = self.clause("absent")
                    continue
            break
        if cur is None and self.phase == "play":
            self.phase = "dealer"
            self.dealer_step()

    # ------------------------------------------------------------------ offers and interim
    def _offers(self) -> list[dict[str, Any]]:
        """Everyone who may still take insurance, even money or surrender."""
        if not self.offers_open:
            return []
        out: list[dict[str, Any]] = []
        dealer_ace = bool(self.dealer) and self.dealer[-1].rank == "A" and not self.rules.permanent_eight
        rules = self.rules
        for number in self.order:
            area = self.areas[number]
            hand = area.hands[0]
            blackjack = self._is_blackjack(hand)
            for w in area.wagers:
                p = w.player
                if p in area.surrendered or p in area.even_money or p in self.absent:
                    continue
                options = hand_rules.offers(
                    rules, dealer_ace, blackjack, len(area.hands) == 1,
                    # 3.27.3: a player who declined and whose insurance others took
                    may_insure=p not in area.insured and p not in area.insurance_declined,
                )
                if options:
                    out.append({"player": p, "area": number, "options": options})
        return out

    def close_offers(self) -> None:
        """Offers close, the interim settlement takes place and the subsequent deal begins."""
        if not self.offers_open:
            return
        self.offers_open = False
        self.phase = "play"
        self._interim_settlement()
        self.interim_done = True

    def _interim_settlement(self) -> None:
        dealer_up = self.dealer[0] if self.dealer and not self.rules.permanent_eight else None
        dealer_may_blackjack = dealer_up is not None and (dealer_up.rank == "A" or dealer_up.points == 10)
        for number in self.order:
            area = self.areas[number]
            hand = area.hands[0]
            # Player blackjacks the dealer can no longer match (4.3.1).
            if self._is_blackjack(hand) and not dealer_may_blackjack:
                for player, stake in hand.stakes.items():
                    if player not in hand.settled:
                        self._pay_blackjack(area, hand, player, stake, "interim")
            if area.sides:
                self._settle_initial_side_bets(area, dealer_up)
            if area.surrendered and all(w.player in area.surrendered for w in area.wagers):
                hand.done = True

    def _settle_initial_side_bets(self, area: Area, dealer_up: Card | None) -> None:
        """Side bets the initial cards decide (each game's section 4; the specs in ``sidebets``)."""
        first = area.hands[0].cards
        if len(first) < 2:
            return
        cards = sidebets.SideCards(first[:2], (dealer_up,) if dealer_up is not None else ())
        rows: dict[str, sidebets.PayRow | None] = {}  # every player's wager of a kind sees the same cards
        for side in area.sides:
            if side.settled or side.hand is not None:
                continue
            bet = side.bet
            row: sidebets.PayRow | None
            if bet in rows:
                row = rows[bet]
            else:
                spec = self._bets.specs.get(bet)
                if spec is None:
                    continue
                if spec.stage == "run":
                    if area.run_open and len(area.dealt) == 1 and area.dealt[0].rank == spec.run_rank:
                        continue  # the run may go on (Superb 8's 4.2.2)
                    self._settle_run(area, "interim")
                    continue
                if spec.stage != "initial" or spec.needs_dealer_up and dealer_up is None:
                    continue  # decided later (Tie on 18, 21+)
                row = spec.classify(cards)
            rows[bet] = row
            self._settle_side(area, side, row, "interim")

    def _settle_side(self, area: Area, side: SideWager, row: sidebets.PayRow | None, stage: str) -> None:
        side.settled = True
        hand_no = self._hand_number(area, side.hand) if side.hand is not None else None
        if row is None:
            self._wager_entry(side, area.number, hand_no, "lose", -side.amount,
                              self.clause("side." + side.bet), stage)
        else:
            self._wager_entry(side, area.number, hand_no, "win", winnings(side.amount, row.odds),
                              row.clause, stage, row.name)

    def _settle_run(self, area: Area, stage: str) -> None:
        spec = self._bets.run
        if spec is None:
            return
        # The permanent 8 and the cards of the run's rank dealt to the area from its first on.
        run = [PERMANENT_EIGHT] if self.rules.permanent_eight else []
        for c in area.dealt:
            if c.rank != spec.run_rank:
                break
            run.append(c)
        row = spec.classify(sidebets.SideCards((), run=run))
        for side in area.sides:
            if side.bet == spec.key and not side.settled:
                self._settle_side(area, side, row, stage)

    # ------------------------------------------------------------------ decisions
    def _on_decision(self, ev: Decision) -> None:
        action = ev.action
        if action in ("insurance", "even_money", "surrender"):
            self._offer_decision(ev)
            return
        if action in ("accept", "refuse", "act"):
            irregularities.irregular_decision(self, ev)
            return
        if action not in PLAY_ACTIONS:
            raise RuleRefusal(f"'{action}' is not a decision at this table")
        # One validation path, whether or not the round was asked what it expects first:
        # the listed options (expectation) come from the same refusal functions.
        area, hand, player = self._play_turn(ev)
        if action == "hit":
            self._check_hit(area, hand)
        elif action == "double":
            self._check_double(area, hand, player, ev)
        elif action == "split":
            self._check_split(area, hand, ev)
        self._play(area, hand, player, action, ev)

    def _play_turn(self, ev: Decision) -> tuple[Area, Hand, str]:
        """The hand a play decision is for and who makes it, or the clause that refuses it."""
        action = ev.action
        named = self.areas.get(ev.area) if ev.area is not None else None
        if named is not None and named.absent_play:
            raise self.refuse(
                f"area {named.number} is played by the dealer for an absent player; splitting and "
                "doubling are forfeited", "absent",
            )
        done = self._hand(named, ev.hand or 1) if named is not None else None
        if named is not None and done is not None and done.doubled and len(done.cards) >= 3:
            # 3.26.4 (3.26.3 in Dueling 8's); 3.26.6 (3.26.5) when others on it did not double.
            concept = ("double.followers_one_card" if any(p not in done.doubled_by for p in done.stakes)
                       else "double.one_card")
            raise self.refuse(
                f"area {named.number} hand {ev.hand or 1} was doubled and receives "
                "only one additional card", concept,
            )
        if self.phase not in ("offers", "play"):
            raise RuleRefusal(f"no {action} decision is possible now" + self._waiting_for())
        area, hand, hand_no = self._decision_hand(ev)
        cur = self.current_hand()
        if cur is None or cur[1] is not hand:
            if cur is None:
                raise RuleRefusal(f"no hand is waiting for a decision ({action} on area {area.number})")
            raise RuleRefusal(
                f"it is not the turn of area {area.number} hand {hand_no}: "
                f"area {cur[0].number} hand {self._hand_number(cur[0], cur[1])} is in play",
                self.clause("split.order") if cur[0] is area else self.clause("deal_order"),
            )
        if self._needs_card(area, hand):
            raise RuleRefusal(
                f"area {area.number} hand {hand_no} is waiting for a card, not a decision"
            )
        player = ev.player or area.controller
        if area.absent_play:
            raise self.refuse(
                f"area {area.number} is played by the dealer for an absent player", "absent"
            )
        if player is None:
            raise RuleRefusal(f"nobody calls the decisions of area {area.number}")
        if player != area.controller:
            raise self._not_controller(area, hand, player, action)
        return area, hand, player

    def _play(self, area: Area, hand: Hand, player: str, action: str, ev: Decision) -> None:
        """Carry out a valid hit, stand, double or split by ``player`` on the hand in turn."""
        # The first play decision closes the offers (interim settlement, subsequent deal).
        if self.offers_open:
            self.close_offers()
        if action == "stand":
            hand.done = True
        elif action == "hit":
            hand.awaiting = True
        elif action == "double":
            self._do_double(area, hand, player, ev)
        else:
            self._do_split(area, hand, ev)
        self.advance()

    def _not_controller(self, area: Area, hand: Hand, player: str, action: str) -> RuleRefusal:
        """A decision by someone who does not call the area's decisions (3.8)."""
        if action == "double" and player in hand.stakes:
            # 3.26.7: others double only alongside the controller (as its followers, 3.26.5).
            return self.refuse(
                f"{player} may double on area {area.number} only when {area.controller}, who "
                "controls it, doubles", "double.controller_first",
            )
        if area.wager_of(player) is None:
            return self.refuse(
                f"{player} has no wager on area {area.number} and calls no decisions there; "
                f"{area.controller} does", "call_decisions",
            )
        # The clause that gave the area its controller: 3.11, 3.12, 3.25.1.3 or 5.22.1.
        rule = next(
            (c.rule for c in reversed(self.control_changes) if c.area == area.number),
            self.clause("control_front"),
        )
        return RuleRefusal(
            f"{player} does not control area {area.number}; {area.controller} calls its decisions",
            rule,
        )

    def _decision_hand(self, ev: Decision) -> tuple[Area, Hand, int]:
        if ev.area is None:
            raise RuleRefusal("a decision at this table names its playing area")
        area = self.areas.get(ev.area)
        if area is None or not area.hands:
            raise RuleRefusal(f"area {ev.area} has no hand in play")
        hand_no = ev.hand or 1
        hand = self._hand(area, hand_no)
        if hand is None:
            raise RuleRefusal(f"area {ev.area} has no hand {hand_no}")
        return area, hand, hand_no

    def _check_hit(self, area: Area, hand: Hand) -> None:
        total, _ = hand.value()
        if total >= 21:
            raise self.refuse(f"a total of {total} takes no more cards", "twenty_one_stops")
        if hand.doubled:
            raise self.refuse("a doubled hand receives only one additional card", "double.one_card")
        if hand.split_aces:
            raise self.refuse("split aces receive one card each", "split.aces_one_card")

    # _double_refusal and _split_refusal run for every decision the round asks for (the
    # options listed): they return the message and the concept of the clause, and only a
    # refused decision looks the clause up.
    def _double_refusal(self, area: Area, hand: Hand, total: int | None = None) -> tuple[str, str] | None:
        """None if the hand may be doubled, else why not and the concept of the clause.

        ``total`` is the hand's best total when the caller has it already.
        """
        rules = self.rules
        if area.absent_play:
            return "options to split or double are forfeited", "absent"
        if area.controller is not None and area.controller not in hand.stakes:
            return self._not_on_hand(area, hand)
        return hand_rules.double_refusal(rules, hand.cards, hand.split_aces, hand.from_split, total)

    def _check_double(self, area: Area, hand: Hand, player: str, ev: Decision) -> None:
        refusal = self._double_refusal(area, hand)
        if refusal is not None:
            raise self.refuse(*refusal)
        self._check_double_amount(area, player, ev.amount if ev.amount is not None else area.original(player))
        for follower, amount in ev.followers:
            if follower == player:
                continue
            if follower not in hand.stakes or follower in area.surrendered:
                raise RuleRefusal(
                    f"{follower} has no wager on area {area.number} hand "
                    f"{self._hand_number(area, hand)} to double", self.clause("double.followers")
                )
            if follower in self.absent:
                raise self.refuse(f"{follower} is absent; options to double are forfeited", "absent")
            if not isinstance(amount, Decimal):
                raise RuleRefusal(f"{follower}'s double names no amount", self.clause("double.followers"))
            self._check_double_amount(area, follower, amount)

    def _check_double_amount(self, area: Area, player: str, amount: Decimal) -> None:
        original = area.original(player)
        concept = "double.amount"
        if self.rules.double_equal_only and amount != original:
            raise self.refuse(f"a double must equal the original wager of {original}", concept)
        if amount > original:
            raise self.refuse(
                f"{player} may double by at most the original wager of {_fmt(original)}, not {_fmt(amount)}",
                concept,
            )
        minimum = self.config.limits.get("main", (ZERO, ZERO))[0]
        if amount < minimum:
            raise self.refuse(
                f"a double must not be less than the table minimum of {_fmt(minimum)}", concept
            )

    def _do_double(self, area: Area, hand: Hand, player: str, ev: Decision) -> None:
        amount = ev.amount if ev.amount is not None else area.original(player)
        hand.stakes[player] += amount
        hand.doubled_by.add(player)
        for follower, extra in ev.followers:
            if follower != player and isinstance(extra, Decimal):
                hand.stakes[follower] += extra
                hand.doubled_by.add(follower)
        if self.rules.double_hard_10_11_only:
            hand.aces_fixed = sum(1 for c in hand.cards[:2] if c.rank == "A")  # 3.4.2
        hand.awaiting = True

    def _not_on_hand(self, area: Area, hand: Hand) -> tuple[str, str]:
        # 5.22.1: control passed to a player who kept their wager on another hand of a split;
        # they play this hand for the absent player, whose options to split or double are
        # forfeited (5.22), and have no wager of their own on it to double or split.
        return (
            f"{area.controller} plays hand {self._hand_number(area, hand)} of area {area.number} "
            "for an absent player and has no wager on it; splitting and doubling are forfeited",
            "absent",
        )

    def _split_refusal(self, area: Area, hand: Hand) -> tuple[str, str] | None:
        """None if the hand may be split, else why not and the concept of the clause."""
        rules = self.rules
        if area.absent_play:
            return "options to split or double are forfeited", "absent"
        if area.controller is not None and area.controller not in hand.stakes:
            return self._not_on_hand(area, hand)
        return hand_rules.split_refusal(rules, hand.cards, len(area.hands), any(h.split_aces for h in area.hands))

    def _check_split(self, area: Area, hand: Hand, ev: Decision) -> None:
        refusal = self._split_refusal(area, hand)
        if refusal is not None:
            raise self.refuse(*refusal)
        for follower, choice in ev.followers:
            if follower not in hand.stakes or follower == area.controller or follower in area.surrendered:
                raise RuleRefusal(
                    f"{follower} has no other wager on that hand to match or keep",
                    self.clause("split.followers"),
                )
            if choice not in ("match", "stay"):
                raise RuleRefusal(
                    f"{follower} must 'match' or 'stay' on a split, not {choice!r}",
                    self.clause("split.followers"),
                )
            if choice == "match" and follower in self.absent:
                raise self.refuse(f"{follower} is absent and cannot match a split", "absent")

    def _do_split(self, area: Area, hand: Hand, ev: Decision) -> None:
        choices = {p: c for p, c in ev.followers}
        second_card = hand.cards.pop()
        new = Hand([second_card], from_split=True)
        hand.from_split = True
        if second_card.rank == "A" and not self.rules.split_eights_only:
            hand.split_aces = new.split_aces = True
        for player in list(hand.stakes):
            if player in area.surrendered:
                continue
            if player == area.controller or choices.get(player) == "match":
                new.stakes[player] = area.original(player)  # 3.21, 3.24.1
        area.hands.insert(area.hands.index(hand) + 1, new)

    def _offer_decision(self, ev: Decision) -> None:
        action = ev.action
        if not self.offers_open:
            concept = {"insurance": "insurance.before_subsequent", "even_money": "even_money",
                       "surrender": "surrender"}[action]
            if not self.rules.has(concept):
                raise RuleRefusal(f"{self.rules.name} has no {action.replace('_', ' ')}")
            raise self.refuse(
                f"{action.replace('_', ' ')} is offered only after the initial deal and before the "
                "subsequent deal", concept,
            )
        area, hand, _ = self._decision_hand(ev)
        player = ev.player or area.controller
        if player is None:
            raise RuleRefusal(f"nobody controls area {area.number} now: name the player deciding")
        if area.wager_of(player) is None:
            raise RuleRefusal(f"{player} has no main wager on area {area.number}")
        if player in self.absent:
            raise self.refuse(f"{player} is not present to make decisions", "absent")
        if action == "insurance" and player in area.insurance_declined:
            raise self.refuse(
                f"{player} declined insurance on area {area.number} and another player's claim on it "
                "was decided", "insurance.declined",
            )
        offered: list[str] = next(
            (o["options"] for o in self._offers() if o["player"] == player and o["area"] == area.number),
            [],
        )
        if action not in offered:
            raise self._offer_refusal(area, player, action)
        if action == "surrender":
            area.surrendered.add(player)
            stake = hand.stakes[player]
            kept = half_kept(stake)
            hand.settled.add(player)
            w = area.wager_of(player)
            assert w is not None
            self._main_entry(w, area.number, 1, "surrender", kept - stake, self.clause("surrender"), "interim")
            if player == area.controller:
                self.update_controller(area, "surrender.control_passes")
            if all(p in area.surrendered for p in hand.stakes):
                hand.done = True
        elif action == "insurance":
            original = area.original(player)
            amount = ev.amount if ev.amount is not None else half_kept(original)
            if amount > original / 2:
                raise self.refuse(
                    f"insurance may be at most half of the original wager ({_fmt(original / 2)})",
                    "insurance",
                )
            area.insured[player] = amount
        else:
            area.even_money.add(player)
            stake = hand.stakes[player]
            hand.settled.add(player)
            w = area.wager_of(player)
            assert w is not None
            self._main_entry(w, area.number, 1, "even_money", stake, self.clause("even_money"), "interim")
            insured = area.insured.pop(player, None)
            if insured is not None:
                # 3.20: any insurance wager is returned.
                self.record_entry(player, "insurance", insured, "returned", ZERO, self.clause("even_money"),
                            area=area.number, stage="interim")
        self.maybe_close_offers()

    def _offer_refusal(self, area: Area, player: str, action: str) -> RuleRefusal:
        dealer_ace = bool(self.dealer) and self.dealer[0].rank == "A"
        if action == "surrender":
            if not self.rules.surrender_against_ace and dealer_ace:
                return self.refuse("surrender is not offered when the dealer's card is an Ace", "surrender")
            if player in area.surrendered:
                return self.refuse(f"{player} has already surrendered", "surrender")
            return self.refuse("a blackjack or a split hand may not surrender", "surrender.after_split")
        if not self.rules.insurance:
            return RuleRefusal(f"{self.rules.name} has no {action.replace('_', ' ')}")
        if not dealer_ace:
            return self.refuse(f"{action.replace('_', ' ')} is offered only when the dealer's first card is an Ace",
                               "insurance" if action == "insurance" else "even_money")
        if action == "even_money":
            return self.refuse("even money is offered only on a blackjack", "even_money")
        return self.refuse(f"{player} has already insured area {area.number}", "insurance")

    def _on_close_offers(self, ev: CloseOffers) -> None:
        if not self.offers_open:
            raise RuleRefusal("no offers are open")
        self.close_offers()
        self.advance()

    # ------------------------------------------------------------------ the dealer
    def live_hands(self) -> list[tuple[Area, Hand]]:
        out = []
        for number in self.order:
            area = self.areas[number]
            for h in area.hands:
                if not h.busted and not h.settled.issuperset(h.stakes):
                    out.append((area, h))
        return out

    def _is_blackjack(self, hand: Hand) -> bool:
        return hand_rules.is_blackjack(self.rules, hand.cards, hand.from_split)

    def dealer_value(self) -> tuple[int, bool]:
        return hand_value(self.dealer)

    def dealer_stands(self) -> bool:
        """The dealer's hand is complete (3.34; Ace Race hits soft 17)."""
        return hand_rules.dealer_stands(self.rules, self.dealer)

    def _dealer_needs_card(self) -> bool:
        if self.dealer_stands():
            return False
        live = False
        for number in self.order:
            for h in self.areas[number].hands:
                if h.busted or h.settled.issuperset(h.stakes):
                    continue  # not live: nothing on it to compare
                # 3.35: a player blackjack only waits on the dealer's second card (a dealer blackjack).
                if not self._is_blackjack(h):
                    return True
                live = True
        if self._bets.dealer_draws_for and any(
            s.bet in self._bets.dealer_draws_for and not s.settled for a in self.areas.values() for s in a.sides
        ):
            return True  # Dueling 8's 3.33.1: the dealer draws for unsettled 21+ wagers
        if len(self.dealer) < 2:
            # Insurance and unsettled blackjacks need the second card.
            return live or any(a.insured or a.claimed_insurance for a in self.areas.values())
        return False

    def dealer_step(self) -> None:
        if not self._dealer_needs_card():
            self._finish()

    def _after_dealer_card(self) -> None:
        if len(self.dealer) == 2 and self.rules.insurance:
            self._settle_insurance()
        paid = self._bets.paid_by_dealer_cards
        if paid is not None:
            total, _ = self.dealer_value()
            if total > 21 and len(self.dealer) > paid.dealer_cards_paid:
                # No row of the pay table (Dueling 8's 21+, 4.3): the Gaming Shift Manager decides.
                self.refer(f"the dealer busted with {len(self.dealer)} cards; the {paid.name} pay table "
                           f"stops at {paid.dealer_cards_paid} cards")
                return
        self.dealer_step()

    def _settle_insurance(self) -> None:
        blackjack = is_two_card_21(self.dealer)
        for number in self.order:
            area = self.areas[number]
            if not area.insured and not area.claimed_insurance:
                continue  # no insurance wager on the area
            for player, amount in area.insurance_wagers():
                if blackjack:
                    self.record_entry(player, "insurance", amount, "win", winnings(amount, INSURANCE_ODDS),
                                self.clause("pays"), area=area.number)
                else:
                    self.record_entry(player, "insurance", amount, "lose", -amount, self.clause("insurance"),
                                area=area.number)
            area.insured = {}
            area.claimed_insurance = []

    def refer(self, text: str) -> None:
        self.phase = "referred"
        self.referral = (self.clause("refer"), text)
        self.rulings.append(Ruling(self.event_index, self.clause("refer"), "referred", text))

    def _on_resolve(self, ev: Resolve) -> None:
        if self.phase != "referred":
            raise RuleRefusal("nothing is referred to the Gaming Shift Manager")
        rule = self.clause("refer")
        self.rulings.append(Ruling(self.event_index, rule, ev.ruling, ev.text))
        self.referral = None
        if ev.ruling == "void":
            self.void(rule, ev.text or "voided by the Gaming Shift Manager")
            return
        if irregularities.resume_after_referral(self):
            return  # referred mid-play (6.1): play resumes where it stopped
        self.phase = "dealer"
        self._finish(referred_rule=rule)

    def _finish(self, referred_rule: str | None = None) -> None:
        """Final settlement of everything still open."""
        dealer_total, _ = self.dealer_value()
        dealer_bj = self.rules.blackjack_odds is not None and is_two_card_21(self.dealer)
        if len(self.dealer) >= 2 and self.rules.insurance:
            self._settle_insurance()
        for number in self.order:
            area = self.areas[number]
            self._settle_area_hands(area, dealer_total, dealer_bj)
            for side in area.sides:
                if side.settled:
                    continue
                spec = self._bets.specs.get(side.bet)
                if spec is None:
                    continue
                if spec.stage == "run":
                    self._settle_run(area, "final")
                elif spec.stage == "final":
                    n = len(self.dealer)
                    if spec.dealer_cards_paid and dealer_total > 21 and n > spec.dealer_cards_paid \
                            and referred_rule is not None:
                        side.settled = True  # no row: returned on the 6.1 ruling
                        self._wager_entry(side, area.number, None, "returned", ZERO, referred_rule, "final")
                        continue
                    hand = side.hand if side.hand is not None else area.hands[0]
                    total, _ = hand.value()
                    cards = sidebets.SideCards(hand.cards, self.dealer, (), total, hand.busted, dealer_total)
                    self._settle_side(area, side, spec.classify(cards), "final")
                elif side.hand is not None and spec.split_classify is not None:
                    row = spec.split_classify(sidebets.SideCards(side.hand.cards))  # Ace Race 3.21.1
                    self._settle_side(area, side, row, "final")
                else:
                    self._settle_initial_side_bets(area, self.dealer[0] if self.dealer else None)
            self._settle_main_bonus(area)
        self.phase = "settled"

    def _settle_main_bonus(self, area: Area) -> None:
        """A bonus the game pays on main wagers (Dueling 8's 6-7-8, 1.1.2 and 4.1.1)."""
        bonus = self.rules.main_bonus
        if bonus is None:
            return
        hand = area.hands[0]
        if hand.from_split or len(area.hands) > 1:
            return  # 1.1.2: not for hands formed after splitting
        row = bonus.classify(sidebets.SideCards(hand.cards))
        if row is None:
            return
        for w in area.wagers:
            if w.player in area.surrendered or w.returned:
                continue
            self.record_entry(w.player, bonus.key, w.amount, "win", winnings(w.amount, row.odds), row.clause,
                              area=area.number, hand=1, row=row.name)

    def _settle_area_hands(self, area: Area, dealer_total: int, dealer_bj: bool) -> None:
        rules = self.rules
        once = hand_rules.OriginalWagerOnce(rules)
        for i, hand in enumerate(area.hands, start=1):
            if hand.busted:
                continue
            total, _ = hand.value()
            player_bj = self._is_blackjack(hand)
            for player, stake in hand.stakes.items():
                if player in hand.settled or player in area.surrendered:
                    continue
                w = area.wager_of(player)
                assert w is not None
                hand.settled.add(player)
                result, concept = main_result(total, player_bj, dealer_total, dealer_bj)
                if result == "blackjack":
                    hand.settled.discard(player)
                    self._pay_blackjack(area, hand, player, stake, "final")
                    continue
                net = stake if result == "win" else -stake if result == "lose" else ZERO
                result, net, concept = once.settle(player, result, net, concept, hand.from_split,
                                                   player in hand.doubled_by, w.amount)
                self._main_entry(w, area.number, i, result, net, self.clause(concept), "final", stake)

    def _pay_blackjack(self, area: Area, hand: Hand, player: str, stake: Decimal, stage: str) -> None:
        odds = self.rules.blackjack_odds
        assert odds is not None
        w = area.wager_of(player)
        assert w is not None
        hand.settled.add(player)
        self._main_entry(w, area.number, 1, "win", winnings(stake, odds), self.clause("win.blackjack"), stage, stake)

    def settle_bust(self, area: Area, hand: Hand) -> None:
        """3.32 (3.31 in Dueling 8's): every wager on a busted hand loses at once."""
        i = self._hand_number(area, hand)
        for player, stake in hand.stakes.items():
            if player in hand.settled:
                continue
            hand.settled.add(player)
            w = area.wager_of(player)
            assert w is not None
            self._main_entry(w, area.number, i, "lose", -stake, self.clause("lose.bust"), "final", stake)
        for side in area.sides:
            if side.bet in self._bets.lost_on_bust and not side.settled and (
                    side.hand is hand or (side.hand is None and i == 1)):
                self._settle_side(area, side, None, "final")

    # ------------------------------------------------------------------ entries
    def _main_entry(
        self, w: MainWager, area: int, hand: int, result: str, net: Decimal, rule: str, stage: str,
        stake: Decimal | None = None,
    ) -> None:
        stake = w.amount if stake is None else stake
        if w.returned:
            self.record_entry(w.player, "main", stake, "returned", ZERO, self.clause("under_min"),
                        area=area, hand=hand, stage=stage)
            return
        excess = w.excess if hand == 1 else ZERO
        limits = self.config.limits.get("main") if self.config.limits else None
        if limits is not None and stake > limits[1] and result != "returned":
            # 5.27: the limit holds for the hand's whole wager, so a double (or a follower's
            # match) over the maximum settles as the maximum; the rest is returned.
            high = limits[1]
            excess += stake - high
            if net == stake:
                net = high
            elif net == -stake:
                net = -high
            stake = high
        # The common case straight to the record (this runs for every wager settled).
        self.settlements.append(settlement(w.player, "main", stake, result, net, rule, stage, area, hand))
        if excess and result != "returned":
            self.record_entry(w.player, "main", excess, "returned", ZERO, self.clause("over_max"),
                        area=area, hand=hand, stage=stage)

    def _wager_entry(
        self, side: SideWager, area: int, hand: int | None, result: str, net: Decimal, rule: str,
        stage: str, row: str | None = None,
    ) -> None:
        if side.returned:
            self.record_entry(side.player, side.bet, side.amount, "returned", ZERO, self.clause("under_min"),
                        area=area, hand=hand, stage=stage)
            return
        self.settlements.append(
            settlement(side.player, side.bet, side.amount, result, net, rule, stage, area, hand, row)
        )
        if side.excess:
            self.record_entry(side.player, side.bet, side.excess, "returned", ZERO, self.clause("over_max"),
                        area=area, hand=hand, stage=stage)

    def record_entry(
        self, player: str, bet: str, stake: Decimal, result: str, net: Decimal, rule: str, *,
        area: int | None = None, hand: int | None = None, stage: str | None = None,
        row: str | None = None,
    ) -> None:
        if stage is None:
            stage = "final" if self.interim_done else "interim"
        self.settlements.append(settlement(player, bet, stake, result, net, rule, stage, area, hand, row))

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _hand(area: Area | None, number: int) -> Hand | None:
        if area is None or not 1 <= number <= len(area.hands):
            return None
        return area.hands[number - 1]

    @staticmethod
    def _hand_number(area: Area, hand: Hand | None) -> int:
        return area.hands.index(hand) + 1 if hand is not None else 1

    # ------------------------------------------------------------------ irregular events (section 5)
    def _on_absent(self, ev: Absent) -> None:
        if self.phase in ("betting",):
            raise RuleRefusal(f"{ev.player} has not been dealt in yet; an absent player is reported after the deal begins")
        if not any(a.wager_of(ev.player) for a in self.areas.values()):
            raise RuleRefusal(f"{ev.player} has no main wager in this round")
        self.absent.add(ev.player)
        for number in self.order:
            area = self.areas[number]
            if area.controller == ev.player:
                self.update_controller(area, "absent.other_player")
        self.maybe_close_offers()
        if self.phase == "play":
            self.advance()

    # ------------------------------------------------------------------ what comes next
    def _expectation(self) -> Expectation:
        phase = self.phase
        if phase == "betting":
            return _WAGERS
        if phase in ("settled", "void"):
            return _NOTHING
        if phase == "referred":
            assert self.referral is not None
            return Expectation("ruling", rule=self.referral[0], text=self.referral[1])
        if self.irregular is not None:
            pending = irregularities.pending_expectation(self)
            if pending is not None:
                return pending
        target = self.expected_card_target()
        if target is not None:
            return _card_expected(target[0], target[1])
        cur = self.current_hand()
        offers = tuple(self._offers()) if self.offers_open else ()
        if cur is None or cur[0].absent_play:
            if offers:
                first = offers[0]
                return Expectation("decision", None, first["area"], 1, first["player"],
                                   tuple(first["options"]), offers)
            return _NOTHING
        area, hand = cur
        controller = area.controller
        extra: Mapping[str, Any] = NO_EXTRA
        options = self._options(area, hand, offers)
        if len(hand.stakes) > 1 and ("split" in options or "double" in options):
            # The other players on the hand, for the dealer screen to ask when the controller
            # splits (match or stay, 3.24) or doubles (up to their own wager, 3.26.5).
            followers = [
                {"player": p, "wager": to_json_number(area.original(p))}
                for p in hand.stakes
                if p != controller and p not in area.surrendered and p not in self.absent
                and p not in hand.settled
            ]
            if followers:
                extra = {"followers": followers}
        if not offers and extra is NO_EXTRA:
            return _decision_expected(area.number, area.hands.index(hand) + 1, controller, options)
        return Expectation("decision", None, area.number, area.hands.index(hand) + 1, controller,
                           options, offers, (), None, None, extra)

    def options(self, area: Area, hand: Hand) -> tuple[str, ...]:
        """The legal choices for the hand in turn, in the spec's order."""
        return self._options(area, hand, self._offers())

    def _options(self, area: Area, hand: Hand, offers: Iterable[dict[str, Any]]) -> tuple[str, ...]:
        total, _ = hand.value()
        out = ["hit", "stand"] if total < 21 and not hand.doubled_by and not hand.split_aces else ["stand"]
        if len(hand.cards) == 2:  # both need the first two cards (3.26.1, 3.21)
            if self._double_refusal(area, hand, total) is None:
                out.append("double")
            if self._split_refusal(area, hand) is None:
                out.append("split")
        if self.offers_open and area.controller and any(
            o["player"] == area.controller and o["area"] == area.number and "surrender" in o["options"]
            for o in offers
        ):
            out.append("surrender")
        return tuple(out)

    # ------------------------------------------------------------------ reporting
    def report(self) -> dict[str, Any]:
        """The layout for the settle output: the dealer's cards and every area's hands."""
        total, _ = self.dealer_value()
        areas = []
        for number in sorted(self.areas):
            area = self.areas[number]
            hands = [
                {"hand": i, "cards": [str(c) for c in h.cards], "total": h.value()[0]}
                for i, h in enumerate(area.hands, start=1)
            ]
            areas.append({"area": number, "controller": area.controller, "hands": hands})
        return {"dealer": {"cards": [str(c) for c in self.dealer], "total": total}, "areas": areas}


    # ------------------------------------------------------------------ power failure (5.29)
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
            if self._is_blackjack(area.hands[0]) and dealer_up is not None and not (
                    dealer_up.rank == "A" or dealer_up.points == 10):
                return True  # 4.3.1: the dealer can no longer match it
            for side in area.sides:
                if side.settled or side.hand is not None:
                    continue
                if self._side_decided(area, side.bet, first, dealer_up):
                    return True
        return False

    def _side_decided(self, area: Area, bet: str, first: list[Card], dealer_up: Card | None) -> bool:
        """The cards already dealt decide a side wager placed before the deal."""
        spec = self._bets.specs.get(bet)
        if spec is None:
            return False
        if spec.stage == "run":
            return not area.run_open  # a card out of the run ended it (Superb 8's 4.2.2)
        if spec.stage == "initial":
            return len(first) >= 2 and (dealer_up is not None or not spec.needs_dealer_up)
        return False  # decided by the finished hands (Tie on 18, 21+)

    # ------------------------------------------------------------------ the shoe (5.19)
    def cards_needed(self) -> int:
        """The fewest cards the round still needs from the shoe to be completed (5.19)."""
        if self.phase in ("betting", "settled", "void", "referred"):
            return 0
        if self.phase == "initial":
            return len(self.initial_queue) - self.queue_pos  # the rest of the initial deal (3.18)
        dealer_min = max(0, 2 - len(self.dealer)) if self.live_hands() else 0
        hands = sum(
            1 for n in self.order for h in self.areas[n].hands
            if not h.done and not h.busted and (h.awaiting or len(h.cards) < 2)
        )
        st = self.irregular
        ready = len(st.undisclosed) + len(st.pool) if st is not None else 0
        return max(0, hands + dealer_min - ready)

    def next_to_act(self) -> tuple[int, str] | None:
        """(area, player) of the hand in turn, when someone controls it (5.19: who cuts)."""
        cur = self.current_hand()
        if cur is None or cur[0].controller is None:
            return None
        return cur[0].number, cur[0].controller

    # ------------------------------------------------------------------ views
    def view(self) -> RoundView:
        """An immutable picture of the layout for a screen (round_api.RoundView)."""
        rules = self.rules
        exp = self.expectation()
        in_turn: tuple[int, int] | None = None
        if exp.kind == "decision" and exp.area is not None and exp.hand is not None:
            in_turn = (exp.area, exp.hand)
        elif exp.kind == "card" and exp.area and exp.hand is not None:
            in_turn = (exp.area, exp.hand)
        seated: dict[int, list[str]] = {}
        for player, number in self.config.seated.items():
            seated.setdefault(number, []).append(player)
        areas: list[AreaView] = []
        for number in range(1, self.config.areas + 1):
            area = self.areas.get(number)
            if area is None:
                areas.append(AreaView(number, None, tuple(seated.get(number, ())), (), (), (), ()))
                continue
            wagers = tuple(
                WagerView(w.player, "main", rules.bet_name("main"), w.amount, w.placed, w.position,
                          None, w.returned)
                for w in area.wagers
            )
            sides = tuple(
                WagerView(s.player, s.bet, rules.bet_name(s.bet), s.amount, s.placed, None,
                          self._hand_number(area, s.hand) if s.hand is not None else None, s.returned)
                for s in area.sides
            )
            hands = []
            for i, hand in enumerate(area.hands, start=1):
                total, soft = hand.value()
                hands.append(HandView(
                    i, tuple(str(c) for c in hand.cards), total, soft, tuple(hand.stakes.items()),
                    self._is_blackjack(hand), hand.busted or total > 21, hand.doubled,
                    bool(hand.stakes) and all(p in area.surrendered for p in hand.stakes),
                    in_turn == (number, i), rules.permanent_eight and i == 1 and not hand.from_split,
                ))
            insurance = tuple(
                WagerView(player, "insurance", rules.bet_name("insurance"), amount, amount)
                for player, amount in area.insurance_wagers()
            )
            areas.append(AreaView(number, area.controller, tuple(seated.get(number, ())), wagers, sides,
                                  tuple(hands), tuple(sorted(area.surrendered)), area.absent_play,
                                  insurance, tuple(sorted(area.even_money))))
        return RoundView(
            rules.key, rules.name, False, self.status(), self.phase == "betting", self._dealer_view(),
            tuple(areas), (), (), in_turn,
            tuple((a.number, a.controller) for a in areas if a.controller is not None),
        )

    def _dealer_view(self) -> DealerView:
        total, soft = self.dealer_value()
        blackjack = self.rules.blackjack_odds is not None and is_two_card_21(self.dealer)
        return DealerView(tuple(str(c) for c in self.dealer), total, soft, blackjack, total > 21,
                          self.rules.permanent_eight)

    def under_minimum_first_time(self) -> tuple[str, ...]:
        """Players whose under-minimum wager this round settles normally: their first at the
        table (5.26). The store remembers them; their next under-minimum wager is returned."""
        new = self.under_min_players - self.config.under_min_history
        limits = self.config.limits
        # Settled normally: an entry of an under-minimum stake that was not returned (a void
        # or a withdrawal returns it; the first time is then still to come).
        return tuple(sorted({
            s.player for s in self.settlements
            if s.player in new and s.result != "returned" and s.bet in limits and s.stake < limits[s.bet][0]
        }))


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


# Expectations are immutable: the plain ones are made once (expectation() runs for every event).
_WAGERS: Final = Expectation("wagers")
_NOTHING: Final = Expectation("none")


_CARD_EXPECTED: Final[dict[int, Expectation]] = {}


def _card_expected(number: int, hand_index: int) -> Expectation:
    """A card for the dealer (area 0) or for an area's hand (index from 0); made once each."""
    key = number * 16 + hand_index  # at most 4 hands per area (3.23.2)
    exp = _CARD_EXPECTED.get(key)
    if exp is None:
        where = "dealer" if number == 0 else f"area:{number}/{hand_index + 1}"
        exp = _CARD_EXPECTED[key] = Expectation("card", where, number, hand_index + 1)
    return exp


@lru_cache(maxsize=4096)  # bounded: player names come and go over a long session
def _decision_expected(number: int, hand_no: int, player: str | None, options: tuple[str, ...]) -> Expectation:
    """A decision with no offers open and nobody else on the hand (most decisions)."""
    return Expectation("decision", None, number, hand_no, player, options)


def _fmt(amount: Decimal) -> str:
    return f"{amount.normalize():f}"
