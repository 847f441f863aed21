"""Cards: where the next card goes (3.18 dealing order, hits and doubles, the dealer), a
card delivered to its hand or the dealer and what it decides at once (blackjack, bust, 21,
a run of 8s broken), the burn card (3.18)."""

from __future__ import annotations

from dealer_assist.base.cards import Card
from dealer_assist.base.errors import RuleRefusal
from dealer_assist.engine.events import Burn, CardDrawn
from dealer_assist.engine.table_core import NOTHING_EXPECTED, card_expected
from dealer_assist.engine.table_play import TablePlay
from dealer_assist.engine.table_state import DEALER, Area, Hand


class TableDealing(TablePlay):
    """Play, and the cards that reach the hands and the dealer."""

    def expected_card_target(self) -> tuple[int, int] | None:
        """(area, hand index) or (0, 0) for the dealer; None when no card is expected."""
        if self.phase == "initial":
            return self.initial_queue[self.queue_pos]
        if self.phase == "play":
            cur = self.current_hand()
            if cur is None:
                return None
            area, hand = cur
            if self.needs_card(area, hand):
                return (area.number, area.hands.index(hand))
            return None
        if self.phase == "offers":
            return None
        if self.phase == "dealer":
            return (0, 0) if self.dealer_needs_card() else None
        return None

    def on_card(self, ev: CardDrawn) -> None:
        """A card out of the shoe with no place named: it goes where the deal expects it."""
        asked = self.asked()
        card = ev.card
        if asked is not None and asked.kind == "card" and self.irregular is None:
            # The round said where the next card goes (expectation() works it out as
            # expected_card_target() does): area 0 is the dealer.
            number, hand_no = asked.area, asked.hand
            assert number is not None and hand_no is not None
            if not self.check_shoe(card):
                return
            self.deliver_to(card, number, hand_no - 1)
        else:
            target = self.expected_card_target()
            if target is None and self.phase == "offers" and self.no_player_decision():
                # Nobody has a decision to make: the dealer's card closes the offers.
                self.close_offers()
                target = self.expected_card_target()
            if target is None:
                raise RuleRefusal(
                    "no card is expected now and the card event says nothing of where it went"
                    + self.waiting_for()
                )
            if not self.check_shoe(card):
                return
            self.deliver_to(card, target[0], target[1])
        # What comes next, where the deal says it:
        if self.phase == "initial":  # 3.18: the next card of the initial deal
            number, hand_index = self.initial_queue[self.queue_pos]
            self.expect_next(card_expected(number, hand_index))
        else:
            self.expect_in_turn()

    def expect_in_turn(self) -> None:
        """What comes next after a card, a play decision, an offer taken or the offers closed
        (no section 5 ruling pending; the round resets it when one is): the hand in turn's
        card or decision (3.29-3.31), the offers' decisions (3.25, 3.27), the dealer's next
        card (3.33-3.35), or nothing once settled. Anything else is worked out when asked."""
        phase = self.phase
        if phase == "play":
            self.expect_next(self.play_expectation())
        elif phase == "offers":
            self.expect_next(self.waiting_decision(self.current_hand()))
        elif phase == "dealer":
            if self.dealer_needs_card():  # the dealer draws on
                self.expect_next(card_expected(0, 0))
        elif phase == "settled":
            self.expect_next(NOTHING_EXPECTED)

    def deliver(self, card: Card, target: tuple[int, int]) -> None:
        """Put a card where the deal expects it and move the round on."""
        self.deliver_to(card, target[0], target[1])

    def deliver_to(self, card: Card, number: int, hand_index: int) -> None:
        """:meth:`deliver` to area ``number`` (0: the dealer), hand ``hand_index`` (from 0)."""
        if number == 0:
            if self.irregular is None:  # otherwise irregularities.after_event records it
                self.placed_cards[self.event_index] = DEALER
            self.dealer.append(card)
            if self.phase == "initial":
                self.queue_pos += 1
                if self.queue_pos >= len(self.initial_queue):  # (after_initial_card's own test)
                    self.after_initial_card()
            else:
                self.after_dealer_card()
            return
        area = self.areas[number]
        hand = area.hands[hand_index]
        if self.irregular is None:  # otherwise irregularities.after_event records it
            self.placed_cards[self.event_index] = (number, hand)
        hand.add_card(card)
        area.dealt.append(card)
        if area.run_open and self.bets.run is not None:  # (track_run's own test)
            self.track_run(area, card)
        if self.phase == "initial":
            self.queue_pos += 1
            if self.queue_pos >= len(self.initial_queue):
                self.after_initial_card()
            return
        hand.awaiting = False
        self.after_player_card(area, hand)

    def after_initial_card(self) -> None:
        if self.queue_pos < len(self.initial_queue):
            return
        self.enter("offers")
        self.offers_open = True
        for number in self.order:
            area = self.areas[number]
            hand = area.hands[0]
            if self.is_blackjack(hand):
                hand.done = True
        self.maybe_close_offers()

    def after_player_card(self, area: Area, hand: Hand) -> None:
        total = hand.total()
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
        elif area.absent_play and not self.fixed_rule_draws(hand):
            hand.done = True  # 5.22 fixed rule reached
            hand.stood_by_rule = self.clause("absent")
        if self.phase == "play":
            self.advance()

    def burn_is_late(self) -> bool:
        """A burn noticed after cards came out is a card dealt in error (5.21)."""
        return self.phase not in ("betting", "initial") or self.cards_dealt()

    def on_burn(self, ev: Burn) -> None:
        self.check_shoe(ev.card)

    def cards_dealt(self) -> bool:
        return bool(self.shoe.dealt) and self.queue_pos > 0
