"""The round at a table with playing areas (Ace Race, Star Elements, Lucky 8, Dueling 8's).

A :class:`TableRound` is its :class:`TableConfig` plus the events applied to it. Each
event either changes the state or is refused with the clause that forbids it
(:class:`RuleRefusal`); a refused event leaves the round exactly as it was.

The round is written by phase, one module each, every class deriving from the one before
(no module imports a later one): ``table_core`` (state, clauses, the hand in turn, control),
``table_settlement`` (entries, side bets, interim and final settlement, void),
``table_betting`` (wagers and limits), ``table_dealer`` (the turn moving on, the dealer's
hand), ``table_offers`` (insurance, even money, surrender), ``table_play`` (hit, stand,
double, split), ``table_dealing`` (where each card goes) and this module: the one place an
event is dispatched (``_handle``), what the round expects, its views and its report.
"""

from __future__ import annotations

from typing import Any, Final

from dealer_assist.base.cards import Card
from dealer_assist.base.errors import RuleRefusal
from dealer_assist.base.hands import is_two_card_21
from dealer_assist.engine import claims, irregularities
from dealer_assist.engine.events import (
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
from dealer_assist.engine.outcome import Expectation, Ruling
from dealer_assist.engine.round_api import AreaView, DealerView, HandView, RoundView, WagerView
from dealer_assist.engine.table_core import NOTHING_EXPECTED, card_expected
from dealer_assist.engine.table_dealing import TableDealing
from dealer_assist.engine.table_play import IRREGULAR_ACTIONS
from dealer_assist.engine.table_state import Area, Hand

_CLOSED_PHASES: Final = frozenset({"void", "settled", "referred"})  # phases that take few events or none


class TableRound(TableDealing):
    """One round at a table: state folded from events; refuses what the rules forbid."""

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
            self.expect_next(None)  # section 5 has the last word: worked out from the state when asked

    def _handle(self, event: Event) -> None:
        """The one place an event is dispatched (the common ones first)."""
        if isinstance(event, CardDrawn):
            if event.face_up:
                self.face_up(event.card)  # 5.5: played as if found face down
            if event.to is None:
                self.on_card(event)
            else:  # the dealer put it somewhere the deal did not expect: section 5
                irregularities.misplaced_card(self, event)
        elif isinstance(event, Decision):
            if event.action in IRREGULAR_ACTIONS:  # accept, refuse, act: section 5's choices
                irregularities.irregular_decision(self, event)
            else:
                self.on_decision(event)
                if self.next_expected() is None:
                    self.expect_in_turn()
        elif isinstance(event, Wager):
            self.on_wager(event)
        elif isinstance(event, NoMoreBets):
            self.on_no_more_bets(event)
        elif isinstance(event, Claim):
            claims.resolve_claim(self, event)
        elif isinstance(event, Burn):
            if self.burn_is_late():  # 5.21: the dealer forgot to burn the first card
                irregularities.late_burn(self, event)
            else:
                self.on_burn(event)
        elif isinstance(event, CloseOffers):
            self.on_close_offers(event)
            self.expect_in_turn()
        elif isinstance(event, Absent):
            self.on_absent(event)
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
        self.enter("dealer")
        self.final_settlement(referred_rule=rule)

    def _expectation(self) -> Expectation:
        phase = self.phase
        if self.irregular is None:
            # The common cases first, as expected_card_target() and the rest below work them
            # out, with the hand in turn found once.
            if phase == "initial":
                number, hand_index = self.initial_queue[self.queue_pos]
                return card_expected(number, hand_index)
            if phase == "play":
                return self.play_expectation()
        if phase == "betting":
            return _WAGERS
        if phase in ("settled", "void"):
            return NOTHING_EXPECTED
        if phase == "referred":
            assert self.referral is not None
            return Expectation("ruling", rule=self.referral[0], text=self.referral[1])
        if self.irregular is not None:
            pending = irregularities.pending_expectation(self)
            if pending is not None:
                return pending
        target = self.expected_card_target()
        if target is not None:
            return card_expected(target[0], target[1])
        return self.waiting_decision(self.current_hand())

    def options(self, area: Area, hand: Hand) -> tuple[str, ...]:
        """The legal choices for the hand in turn, in the spec's order."""
        return self.play_options(area, hand, self.current_offers())

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
                if self._side_decided(area, side.bet, first, dealer_up):
                    return True
        return False

    def _side_decided(self, area: Area, bet: str, first: list[Card], dealer_up: Card | None) -> bool:
        """The cards already dealt decide a side wager placed before the deal."""
        spec = self.bets.specs.get(bet)
        if spec is None:
            return False
        if spec.stage == "run":
            return not area.run_open  # a card out of the run ended it (Superb 8's 4.2.2)
        if spec.stage == "initial":
            return len(first) >= 2 and (dealer_up is not None or not spec.needs_dealer_up)
        return False  # decided by the finished hands (Tie on 18, 21+)

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
                          self.hand_number(area, s.hand) if s.hand is not None else None, s.returned)
                for s in area.sides
            )
            hands = []
            for i, hand in enumerate(area.hands, start=1):
                total, soft = hand.value()
                hands.append(HandView(
                    i, tuple(str(c) for c in hand.cards), total, soft, tuple(hand.stakes.items()),
                    self.is_blackjack(hand), hand.busted or total > 21, hand.doubled,
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


# Expectations are immutable: the plain ones are made once (expectation() runs for every event).
_WAGERS: Final = Expectation("wagers")
