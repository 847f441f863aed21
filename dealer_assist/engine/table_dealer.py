"""The turn moving on and the dealer's hand: the next hand in play, the dealer's drawing
rule and when the dealer draws at all (3.33-3.35; Dueling 8's 3.33.1), insurance settled on
the dealer's second card (3.27), a dealer bust the pay table cannot settle referred (6.1)."""

from __future__ import annotations

from dealer_assist.engine.table_core import card_expected
from dealer_assist.engine.table_settlement import Settling
from dealer_assist.engine.table_state import TableState


class DealerTurn:
    """The turn moving on and the dealer's hand (3.33-3.35)
    A part of ``table.TableRound``: it changes the round's one state value (``TableState``)
    and asks only the parts it is given."""

    __slots__ = ("st", "settling")

    def __init__(self, st: TableState, settling: Settling) -> None:
        self.st = st
        self.settling = settling

    def dealer_needs_card(self) -> bool:
        st = self.st
        if st.dealer_stands():
            return False
        live = False
        for number in st.order:
            for h in st.areas[number].hands:
                if h.busted or h.settled.issuperset(h.stakes):
                    continue  # not live: nothing on it to compare
                # 3.35: a player blackjack only waits on the dealer's second card (a dealer blackjack).
                if not st.is_blackjack(h):
                    return True
                live = True
        if st.bets.dealer_draws_for and any(
            s.bet in st.bets.dealer_draws_for and not s.settled for a in st.areas.values() for s in a.sides
        ):
            return True  # Dueling 8's 3.33.1: the dealer draws for unsettled 21+ wagers
        if len(st.dealer) < 2:
            # Insurance and unsettled blackjacks need the second card.
            return live or any(a.insured or a.claimed_insurance for a in st.areas.values())
        return False

    def dealer_step(self) -> None:
        """The dealer draws (what the round waits for next, set here: it is worked out
        already) or the round is settled."""
        st = self.st
        if not self.dealer_needs_card():
            self.settling.final_settlement()
        elif st.phase == "dealer":
            st.next_exp = card_expected(0, 0)  # 3.33-3.35: the dealer's next card

    def after_dealer_card(self) -> None:
        st = self.st
        if len(st.dealer) == 2 and st.rules.insurance:
            self.settling.settle_insurance()
        paid = st.bets.paid_by_dealer_cards
        if paid is not None:
            total, _ = st.dealer_value()
            if total > 21 and len(st.dealer) > paid.dealer_cards_paid:
                # No row of the pay table (Dueling 8's 21+, 4.3): the Gaming Shift Manager decides.
                st.refer(f"the dealer busted with {len(st.dealer)} cards; the {paid.name} pay table "
                           f"stops at {paid.dealer_cards_paid} cards")
                return
        self.dealer_step()

    def advance(self) -> None:
        """Mark finished hands done; when no player hand is left, the dealer plays."""
        st = self.st
        while True:
            hand = st.hand_in_turn()
            if hand is None:
                break
            area = st.areas[st.order[st.turn]]
            if not area.controller and not area.absent_play and not st.needs_card(area, hand):
                hand.done = True
                continue
            if len(hand.cards) >= 2 and not hand.awaiting:
                total = hand.total()
                if total >= 21 or (hand.split_aces and len(hand.cards) >= 2):
                    hand.done = True
                    continue
                if hand.stood_by_rule:
                    hand.done = True
                    continue
                if area.absent_play and not st.fixed_rule_draws(hand):
                    hand.done = True
                    hand.stood_by_rule = st.clause("absent")
                    continue
            break
        if hand is None and st.phase == "play":
            st.enter("dealer")
            self.dealer_step()
