"""The round at a table with playing areas (Ace Race, Star Elements, Lucky 8, Dueling 8's).

A :class:`TableRound` is its :class:`TableConfig` plus the events applied to it. Each
event either changes the state or is refused with the clause that forbids it
(:class:`RuleRefusal`); a refused event leaves the round exactly as it was (rebuilt from
its accepted events).

The round is composed, not inherited: one state value (``table_state.TableState``: the
layout, the records, the phase and the expectation) and parts with one job each, each
given the state and the parts it asks at construction: ``Settling`` (table_settlement),
``Betting`` (table_betting), ``DealerTurn`` (table_dealer), ``Offers`` (table_offers),
``Play`` (table_play), ``Dealing`` (table_dealing), and section 5 (``irregularities``,
through ``table_port.Section5Port``) and the claims (``claims``, ``ClaimsPort``). This
module is the facade: the one place an event is dispatched to the part that handles it,
the expectation the handlers keep, the round's views and its report.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from dealer_assist.base.cards import Card
from dealer_assist.base.errors import EventFormatError, RuleRefusal
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
from dealer_assist.engine.outcome import (
    ClaimDecision,
    ControlChange,
    Expectation,
    Ruling,
    Settlement,
)
from dealer_assist.engine.phase import Phase
from dealer_assist.engine.round_api import AreaView, DealerView, HandView, RoundView, WagerView
from dealer_assist.engine.round_base import replay
from dealer_assist.engine.shoe_state import ShoeState
from dealer_assist.engine.table_betting import Betting
from dealer_assist.engine.table_core import WAGERS_EXPECTED, Unexpected, card_expected, waiting_for
from dealer_assist.engine.table_dealer import DealerTurn
from dealer_assist.engine.table_dealing import Dealing
from dealer_assist.engine.table_offers import Offers
from dealer_assist.engine.table_play import IRREGULAR_ACTIONS, Play
from dealer_assist.engine.table_settlement import Settling
from dealer_assist.engine.table_state import (
    Area,
    GameBets,
    Hand,
    IrregularState,
    TableConfig,
    TableState,
)
from dealer_assist.games import GameRules

_CLOSED_PHASES: Final = frozenset({"void", "settled", "referred"})  # phases that take few events or none


class TableRound:
    """One round at a table: state folded from events; refuses what the rules forbid."""

    __slots__ = ("st", "settling", "betting", "dealer_turn", "offers", "play", "dealing")

    def __init__(self, config: TableConfig, bets: GameBets | None = None) -> None:
        st = self.st = TableState(config, bets)
        self.settling = Settling(st)
        self.betting = Betting(st, self.settling)
        self.dealer_turn = DealerTurn(st, self.settling)
        self.offers = Offers(st, self.settling, self.dealer_turn)
        self.play = Play(st, self.offers, self.dealer_turn)
        self.dealing = Dealing(st, self.settling, self.dealer_turn, self.offers, self.play)

    def fresh(self) -> TableRound:
        """A new round at the same table (the same configuration), no event applied."""
        st = self.st
        return TableRound(st.config, st.bets)  # the game's bets worked out once per table

    # ------------------------------------------------------------------ applying events
    def apply(self, event: Event) -> None:
        """Apply one event, or raise :class:`RuleRefusal` leaving the round unchanged."""
        st = self.st
        st.event_index = len(st.events)
        # What the round said it expected before this event (None if nobody asked): the
        # card it said it waits for goes there without working the target out again.
        st.asked_for = st.expected
        st.expected = None
        # Written through self.st, read back through st: mypy (and so the compiled build) must
        # not take st.next_exp as None after the event; a method call per event did that before.
        self.st.next_exp = None
        try:
            # (Tested through self.st: st.irregular must not be taken as None below, where a
            # handler's ruling may have set it; the compiled build would trust the narrowing.)
            if self.st.irregular is None and st.phase not in _CLOSED_PHASES:
                # The usual event (no section 5 ruling pending, the round open): what
                # _dispatch does, with the commonest events handed straight to their part.
                if isinstance(event, CardDrawn) and event.to is None and not event.face_up:
                    self.dealing.on_card(event)
                elif isinstance(event, Decision) and event.action not in IRREGULAR_ACTIONS:
                    self.play.on_decision(event)
                elif isinstance(event, Wager):
                    self.betting.on_wager(event)
                    if st.phase == "betting" and st.irregular is None:
                        st.expect_next(WAGERS_EXPECTED)  # next_expectation's betting branch
                else:
                    self._handle(event)
                if st.irregular is not None:  # this event's ruling left something pending
                    irregularities.after_event(self, event)
                    st.expect_next(None)
                elif st.next_exp is None:
                    self.dealing.expect_in_turn()
            else:
                self._dispatch(event)
        except (RuleRefusal, EventFormatError) as e:  # a malformed event is refused alike
            self._rebuild()  # (from reset(): nothing worked out mid-event is kept)
            if isinstance(e, Unexpected):
                # Not what the round waits for: say what it does, from the rebuilt state (the
                # refused handler may have changed the state before it raised).
                raise RuleRefusal(e.message + self.waiting_for(), e.clause) from None
            raise
        except BaseException:
            st.asked_for = st.expected = None  # anything worked out mid-event is stale
            raise
        # What the handler set (expect_next); None: worked out from the state when asked.
        # (``asked_for`` is read only while an event applies; the next one sets it.)
        st.expected = st.next_exp
        st.events.append(event)

    def apply_all(self, events: Iterable[Event]) -> None:
        for e in events:
            self.apply(e)

    def _rebuild(self) -> None:
        st = self.st
        replay(st, st.reset, self._dispatch)

    def _dispatch(self, event: Event) -> None:
        st = self.st
        phase = st.phase
        if phase in _CLOSED_PHASES:
            if phase == "void":
                raise st.refuse("the round is void; no further events", "void.foreign_card")
            if phase == "settled" and isinstance(event, CardDrawn) and event.to is None:
                raise RuleRefusal(irregularities.after_outcome_text(self), st.clause("dealer_completed"))
            if phase == "settled" and not isinstance(event, CardDrawn):
                raise st.refuse("the round is settled; no further events", "round_of_play")
            if phase == "referred" and not isinstance(event, Resolve | Void):
                raise st.refuse(
                    "the round is referred to the Gaming Shift Manager; waiting for a resolve", "refer"
                )
        # Section 5 hooks only matter once a ruling left something pending (st.irregular).
        # (An Unexpected raised here is worded by apply, once the round is rebuilt.)
        if st.irregular is not None and irregularities.before_event(self, event):
            return  # section 5 consumed the event
        self._handle(event)
        if st.irregular is not None:  # also when this event's ruling left something pending
            irregularities.after_event(self, event)
            st.expect_next(None)  # section 5 has the last word: worked out from the state when asked
        elif st.next_exp is None:
            # A handler that did not say what comes next (a wager, a claim, an absence, a
            # section 5 ruling that left nothing pending): what the phase waits for, now.
            self.dealing.expect_in_turn()

    def _handle(self, event: Event) -> None:
        """The one place an event is dispatched to the part that handles it (the common
        ones first); each handler sets what comes next (``TableState.expect_next``)."""
        if isinstance(event, CardDrawn):
            if event.face_up:
                self.st.face_up(event.card)  # 5.5: played as if found face down
            if event.to is None:
                self.dealing.on_card(event)
            else:  # the dealer put it somewhere the deal did not expect: section 5
                irregularities.misplaced_card(self, event)
        elif isinstance(event, Decision):
            if event.action in IRREGULAR_ACTIONS:  # accept, refuse, act: section 5's choices
                irregularities.irregular_decision(self, event)
            else:
                self.play.on_decision(event)
        elif isinstance(event, Wager):
            self.betting.on_wager(event)
        elif isinstance(event, NoMoreBets):
            self.betting.on_no_more_bets(event)
        elif isinstance(event, Claim):
            claims.resolve_claim(self, event)
        elif isinstance(event, Burn):
            if self.dealing.burn_is_late():  # 5.21: the dealer forgot to burn the first card
                irregularities.late_burn(self, event)
            else:
                self.dealing.on_burn(event)
        elif isinstance(event, CloseOffers):
            self.offers.on_close_offers(event)
        elif isinstance(event, Absent):
            self.play.on_absent(event)
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
            raise self.st.refuse("a terminal time-out is an Electronic Blackjack event; at this table "
                                 "use 'absent'", "absent")
        else:
            raise EventFormatError(f"{event.type} is not an event at this table")  # every event type is handled above

    def _on_resolve(self, ev: Resolve) -> None:
        st = self.st
        if st.phase != "referred":
            raise st.refuse("nothing is referred to the Gaming Shift Manager", "refer")
        rule = st.clause("refer")
        st.rulings.append(Ruling(st.event_index, rule, ev.ruling, ev.text))
        st.referral = None
        if ev.ruling == "void":
            self.settling.void(rule, ev.text or "voided by the Gaming Shift Manager")
            return
        if irregularities.resume_after_referral(self):
            return  # referred mid-play (6.1): play resumes where it stopped
        st.enter("dealer")
        self.settling.final_settlement(referred_rule=rule)

    # ------------------------------------------------------------------ what it expects
    def expectation(self) -> Expectation:
        """What the round waits for now: as the last event's handler set it, else worked out
        from the state once until the next event."""
        st = self.st
        expected = st.expected
        if expected is None:
            expected = st.expected = self._expectation()
        return expected

    def next_expected(self) -> Expectation | None:
        """What the handler of the event being applied set (``expect_next``), if anything."""
        return self.st.next_exp

    def expectation_from_state(self) -> Expectation:
        """What the round waits for, worked out from its state now (never the kept one)."""
        return self._expectation()

    def _expectation(self) -> Expectation:
        st = self.st
        if st.irregular is None or st.phase in _CLOSED_PHASES or st.phase == "betting":
            return self.dealing.next_expectation()
        pending = irregularities.pending_expectation(self)
        if pending is not None:
            return pending
        target = self.dealing.expected_card_target()
        if target is not None:
            return card_expected(target[0], target[1])
        return self.play.waiting_decision(st.current_hand())

    def waiting_for(self) -> str:
        """What the round waits for, as a refusal of an event it does not expect adds it."""
        return waiting_for(self.expectation())

    def status(self) -> str:
        """settled, void, referred or in_progress."""
        return self.st.status()

    def options(self, area: Area, hand: Hand) -> tuple[str, ...]:
        """The legal choices for the hand in turn, in the spec's order."""
        return self.play.play_options(area, hand, self.offers.current_offers())

    # ------------------------------------------------------------------ section 5 and the claims
    # (table_port.Section5Port, ClaimsPort: the moves only the parts make)
    def check_shoe(self, card: Card) -> bool:
        return self.dealing.check_shoe(card)

    def expected_card_target(self) -> tuple[int, int] | None:
        return self.dealing.expected_card_target()

    def deliver(self, card: Card, target: tuple[int, int]) -> None:
        self.dealing.deliver(card, target)

    def place_card(self, area: Area, hand: Hand, card: Card, move_on: bool) -> None:
        self.dealing.place_card(area, hand, card, move_on)

    def skip_areas(self, emptied: set[int]) -> None:
        self.dealing.skip_areas(emptied)

    def void(self, rule: str, text: str) -> None:
        """The round is void: every wager is returned, citing ``rule``."""
        self.settling.void(rule, text)

    def advance(self) -> None:
        self.dealer_turn.advance()

    def dealer_step(self) -> None:
        self.dealer_turn.dealer_step()

    def close_offers(self) -> None:
        self.offers.close_offers()

    def maybe_close_offers(self) -> None:
        self.offers.maybe_close_offers()

    def reopen_offers(self) -> None:
        self.offers.reopen()

    def check_one_area(self, player: str, area_no: int) -> None:
        self.betting.check_one_area(player, area_no)

    # ------------------------------------------------------------------ the state, read
    @property
    def config(self) -> TableConfig:
        return self.st.config

    @property
    def rules(self) -> GameRules:
        return self.st.rules

    @property
    def events(self) -> list[Event]:
        return self.st.events

    @property
    def phase(self) -> Phase:
        return self.st.phase

    @property
    def areas(self) -> dict[int, Area]:
        return self.st.areas

    @property
    def dealer(self) -> list[Card]:
        return self.st.dealer

    @property
    def absent(self) -> set[str]:
        return self.st.absent

    @property
    def shoe(self) -> ShoeState:
        return self.st.shoe

    @property
    def settlements(self) -> list[Settlement]:
        return self.st.settlements

    @property
    def rulings(self) -> list[Ruling]:
        return self.st.rulings

    @property
    def claims(self) -> list[ClaimDecision]:
        return self.st.claims

    @property
    def control_changes(self) -> list[ControlChange]:
        return self.st.control_changes

    @property
    def irregular(self) -> IrregularState | None:
        return self.st.irregular

    def clause(self, concept: str) -> str:
        """This game's clause number for ``concept``."""
        return self.st.clause(concept)

    # ------------------------------------------------------------------ views
    def report(self) -> dict[str, Any]:
        """The layout for the settle output: the dealer's cards and every area's hands."""
        st = self.st
        total, _ = st.dealer_value()
        areas = []
        for number in sorted(st.areas):
            area = st.areas[number]
            hands = [
                {"hand": i, "cards": [str(c) for c in h.cards], "total": h.value()[0]}
                for i, h in enumerate(area.hands, start=1)
            ]
            areas.append({"area": number, "controller": area.controller, "hands": hands})
        return {"dealer": {"cards": [str(c) for c in st.dealer], "total": total}, "areas": areas}

    def cards_needed(self) -> int:
        """The fewest cards the round still needs from the shoe to be completed (5.19)."""
        st = self.st
        if st.phase in ("betting", "settled", "void", "referred"):
            return 0
        if st.phase == "initial":
            return len(st.initial_queue) - st.queue_pos  # the rest of the initial deal (3.18)
        dealer_min = max(0, 2 - len(st.dealer)) if st.live_hands() else 0
        hands = sum(
            1 for n in st.order for h in st.areas[n].hands
            if not h.done and not h.busted and (h.awaiting or len(h.cards) < 2)
        )
        pending = st.irregular
        ready = len(pending.undisclosed) + len(pending.pool) if pending is not None else 0
        return max(0, hands + dealer_min - ready)

    def next_to_act(self) -> tuple[int, str] | None:
        """(area, player) of the hand in turn, when someone controls it (5.19: who cuts)."""
        st = self.st
        cur = st.current_hand()
        if cur is None or cur[0].controller is None:
            return None
        return cur[0].number, cur[0].controller

    def view(self) -> RoundView:
        """An immutable picture of the layout for a screen (round_api.RoundView)."""
        st = self.st
        rules = st.rules
        exp = self.expectation()
        in_turn: tuple[int, int] | None = None
        if exp.kind == "decision" and exp.area is not None and exp.hand is not None:
            in_turn = (exp.area, exp.hand)
        elif exp.kind == "card" and exp.area and exp.hand is not None:
            in_turn = (exp.area, exp.hand)
        seated: dict[int, list[str]] = {}
        for player, number in st.config.seated.items():
            seated.setdefault(number, []).append(player)
        areas: list[AreaView] = []
        for number in range(1, st.config.areas + 1):
            area = st.areas.get(number)
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
                          st.hand_number(area, s.hand) if s.hand is not None else None, s.returned)
                for s in area.sides
            )
            hands = []
            for i, hand in enumerate(area.hands, start=1):
                total, soft = hand.value()
                hands.append(HandView(
                    i, tuple(str(c) for c in hand.cards), total, soft, tuple(hand.stakes.items()),
                    st.is_blackjack(hand), hand.busted or total > 21, hand.doubled,
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
            rules.key, rules.name, False, st.status(), st.phase == "betting", self._dealer_view(),
            tuple(areas), (), (), in_turn,
            tuple((a.number, a.controller) for a in areas if a.controller is not None),
            irregularities.pick_unseen(self),
        )

    def _dealer_view(self) -> DealerView:
        st = self.st
        total, soft = st.dealer_value()
        blackjack = st.rules.blackjack_odds is not None and is_two_card_21(st.dealer)
        return DealerView(tuple(str(c) for c in st.dealer), total, soft, blackjack, total > 21,
                          st.rules.permanent_eight)

    def under_minimum_first_time(self) -> tuple[str, ...]:
        """Players whose under-minimum wager this round settles normally: their first at the
        table (5.26). The store remembers them; their next under-minimum wager is returned."""
        st = self.st
        new = st.under_min_players - st.config.under_min_history
        limits = st.config.limits
        # Settled normally: an entry of an under-minimum stake that was not returned (a void
        # or a withdrawal returns it; the first time is then still to come).
        return tuple(sorted({
            s.player for s in st.settlements
            if s.player in new and s.result != "returned" and s.bet in limits and s.stake < limits[s.bet][0]
        }))


