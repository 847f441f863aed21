"""Cards: where the next card goes (3.18 dealing order, hits and doubles, the dealer), a
card delivered to its hand or the dealer and what it decides at once (blackjack, bust, 21,
a run of 8s broken), the burn card (3.18)."""

from __future__ import annotations

from dealer_assist.base.cards import Card
from dealer_assist.engine.events import Burn, CardDrawn
from dealer_assist.engine.outcome import Expectation
from dealer_assist.engine.shoe_state import ForeignCard
from dealer_assist.engine.table_core import (
    NOTHING_EXPECTED,
    WAGERS_EXPECTED,
    Unexpected,
    card_expected,
)
from dealer_assist.engine.table_dealer import DealerTurn
from dealer_assist.engine.table_offers import Offers
from dealer_assist.engine.table_play import Play
from dealer_assist.engine.table_settlement import Settling
from dealer_assist.engine.table_state import DEALER, Area, Hand, TableState


class Dealing:
    """Where each card goes and what it decides at once (3.18), the burn card
    A part of ``table.TableRound``: it changes the round's one state value (``TableState``)
    and asks only the parts it is given."""

    __slots__ = ("st", "settling", "dealer_turn", "offers", "play")

    def __init__(self, st: TableState, settling: Settling, dealer_turn: DealerTurn, offers: Offers, play: Play) -> None:
        self.st = st
        self.settling = settling
        self.dealer_turn = dealer_turn
        self.offers = offers
        self.play = play

    def check_shoe(self, card: Card) -> bool:
        """Record a card the shoe read; a card that cannot belong to it voids the round (5.1)."""
        st = self.st
        problem = st.shoe.record(card)
        if problem is None:
            return True
        self.foreign_card(problem)
        return False

    def foreign_card(self, problem: ForeignCard) -> None:
        """A card that cannot belong to the shoe voids the round (5.1)."""
        st = self.st
        self.settling.void(st.clause("void.foreign_card"), problem.reason + ": the round is void")

    def expected_card_target(self) -> tuple[int, int] | None:
        """(area, hand index) or (0, 0) for the dealer; None when no card is expected."""
        st = self.st
        if st.phase == "initial":
            return st.initial_queue[st.queue_pos]
        if st.phase == "play":
            cur = st.current_hand()
            if cur is None:
                return None
            area, hand = cur
            if st.needs_card(area, hand):
                return (area.number, area.hands.index(hand))
            return None
        if st.phase == "offers":
            return None
        if st.phase == "dealer":
            return (0, 0) if self.dealer_turn.dealer_needs_card() else None
        return None

    def on_card(self, ev: CardDrawn) -> None:
        """A card out of the shoe with no place named: it goes where the deal expects it."""
        st = self.st
        asked = st.asked_for
        card = ev.card
        if asked is not None and asked.kind == "card" and st.irregular is None:
            # The round said where the next card goes (expectation() works it out as
            # expected_card_target() does): area 0 is the dealer.
            number, hand_no = asked.area, asked.hand
            assert number is not None and hand_no is not None
            problem = st.shoe.record(card)  # check_shoe, inline
            if problem is not None:
                self.foreign_card(problem)
                return
            self.deliver_to(card, number, hand_no - 1, True)
        else:
            target = self.expected_card_target()
            if target is None and st.phase == "offers" and self.offers.no_player_decision():
                # Nobody has a decision to make: the dealer's card closes the offers (insurance
                # and even money before the subsequent deal: 3.27.2 / 3.20), and his turn begins.
                self.offers.close_by_card()
                target = self.expected_card_target()
            if target is None:
                raise Unexpected("no card is expected now and the card event says nothing of where it went")
            if not self.check_shoe(card):
                return
            self.deliver_to(card, target[0], target[1], True)
        # What comes next, where the deal says it:
        phase = st.phase
        if phase == "initial":  # 3.18: the next card of the initial deal
            number, hand_index = st.initial_queue[st.queue_pos]
            st.next_exp = card_expected(number, hand_index)
        elif phase == "play":  # (next_expectation's own branch, one call fewer)
            st.next_exp = self.play.play_expectation()
        elif phase == "dealer" and st.next_exp is not None:
            return  # the dealer's next card, as DealerTurn.dealer_step found it
        else:
            self.expect_in_turn()

    def expect_in_turn(self) -> None:
        """What comes next after a card, a play decision, an offer taken or the offers closed
        (no section 5 ruling pending; the round resets it when one is)."""
        self.st.next_exp = self.next_expectation()

    def next_expectation(self) -> Expectation:
        """What the round waits for, by its phase (no section 5 ruling pending): wagers, the
        initial deal's next card (3.18), the hand in turn's card or decision (3.29-3.31), the
        offers' decisions (3.25, 3.27), the dealer's next card (3.33-3.35), a ruling (6.1),
        or nothing once settled or void."""
        st = self.st
        phase = st.phase
        if phase == "initial":
            number, hand_index = st.initial_queue[st.queue_pos]
            return card_expected(number, hand_index)
        if phase == "play":
            return self.play.play_expectation()
        if phase == "betting":
            return WAGERS_EXPECTED
        if phase == "settled" or phase == "void":
            return NOTHING_EXPECTED
        if phase == "referred":
            assert st.referral is not None
            return Expectation("ruling", rule=st.referral[0], text=st.referral[1])
        if phase == "dealer" and self.dealer_turn.dealer_needs_card():
            return card_expected(0, 0)
        return self.play.waiting_decision(st.current_hand())  # the offers' decisions

    def deliver(self, card: Card, target: tuple[int, int]) -> None:
        """Put a card where the deal expects it and move the round on."""
        self.deliver_to(card, target[0], target[1])

    def deliver_to(self, card: Card, number: int, hand_index: int, in_turn: bool = False) -> None:
        """:meth:`deliver` to area ``number`` (0: the dealer), hand ``hand_index`` (from 0);
        ``in_turn``: the card is the one the deal expected, for the hand in turn."""
        st = self.st
        if number == 0:
            if st.irregular is None:  # otherwise irregularities.after_event records it
                st.placed_cards[st.event_index] = DEALER
            st.dealer.append(card)
            if st.phase == "initial":
                st.queue_pos += 1
                if st.queue_pos >= len(st.initial_queue):  # (after_initial_card's own test)
                    self.after_initial_card()
            else:
                self.dealer_turn.after_dealer_card()
            return
        area = st.areas[number]
        hand = area.hands[hand_index]
        if st.irregular is None:  # otherwise irregularities.after_event records it
            st.placed_cards[st.event_index] = (number, hand)
        hand.add_card(card)
        area.dealt.append(card)
        if area.run_open and st.bets.run is not None:  # (track_run's own test)
            self.settling.track_run(area, card)
        if st.phase == "initial":
            st.queue_pos += 1
            if st.queue_pos >= len(st.initial_queue):
                self.after_initial_card()
            return
        hand.awaiting = False
        self.after_player_card(area, hand, in_turn)

    def after_initial_card(self) -> None:
        st = self.st
        if st.queue_pos < len(st.initial_queue):
            return
        st.enter("offers")
        st.offers_open = True
        for number in st.order:
            area = st.areas[number]
            hand = area.hands[0]
            if st.is_blackjack(hand):
                hand.done = True
        self.offers.maybe_close_offers()

    def after_player_card(self, area: Area, hand: Hand, in_turn: bool = False) -> None:
        st = self.st
        total = hand.total()
        if total > 21:
            hand.busted = True
            hand.done = True
            self.settling.settle_bust(area, hand)
        elif total == 21:
            hand.done = True  # 3.30: 21 draws no more
        elif hand.split_aces and len(hand.cards) >= 2:
            hand.done = True  # 3.23.1: one card to each split ace
        elif hand.doubled and len(hand.cards) >= 3:
            hand.done = True  # 3.26.4: one card only
        elif area.absent_play and not st.fixed_rule_draws(hand):
            hand.done = True  # 5.22 fixed rule reached
            hand.stood_by_rule = st.clause("absent")
        if st.phase == "play" and (not in_turn or hand.done or not area.controller or hand.stood_by_rule):
            # (The hand in turn, not finished and called by its controller, stays in turn for
            # its decision: advance would find it again, 3.29.)
            self.dealer_turn.advance()

    def place_card(self, area: Area, hand: Hand, card: Card, move_on: bool) -> None:
        """A card section 5 puts on a hand itself (5.8 accepted, 5.18's cards kept where they
        fell): the run bet's run goes on or breaks, then, with ``move_on``, what any card dealt
        there decides (``after_player_card``); else only a bust (settled) or 21 ends the hand."""
        hand.add_card(card)
        area.dealt.append(card)
        self.settling.track_run(area, card)
        if move_on:
            self.after_player_card(area, hand)
            return
        total = hand.total()
        if total > 21:
            hand.busted = hand.done = True
            self.settling.settle_bust(area, hand)
        elif total == 21:
            hand.done = True

    def skip_areas(self, emptied: set[int]) -> None:
        """The initial deal gives no more cards to these areas (every wager on them withdrawn)."""
        st = self.st
        done, rest = st.initial_queue[:st.queue_pos], st.initial_queue[st.queue_pos:]
        st.initial_queue = done + [t for t in rest if t[0] not in emptied]
        if st.queue_pos >= len(st.initial_queue):
            self.after_initial_card()

    def burn_is_late(self) -> bool:
        """A burn noticed after cards came out is a card dealt in error (5.21)."""
        return self.st.phase not in ("betting", "initial") or self.cards_dealt()

    def on_burn(self, ev: Burn) -> None:
        self.check_shoe(ev.card)

    def cards_dealt(self) -> bool:
        st = self.st
        return bool(st.shoe.dealt) and st.queue_pos > 0
