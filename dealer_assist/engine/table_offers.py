"""The offers after the initial deal: insurance and even money (3.27), surrender (3.20,
3.25) and their refusals, and their closing (the interim settlement)."""

from __future__ import annotations

from typing import Any

from dealer_assist.base.errors import RuleRefusal
from dealer_assist.base.money import ZERO, half_kept
from dealer_assist.engine.events import CloseOffers, Decision
from dealer_assist.engine.table_core import amount_text
from dealer_assist.engine.table_dealer import DealerTurn
from dealer_assist.engine.table_settlement import Settling
from dealer_assist.engine.table_state import Area, TableState, offer_key


class Offers:
    """Insurance, even money and surrender (3.20, 3.25, 3.27), and the offers closing
    A part of ``table.TableRound``: it changes the round's one state value (``TableState``)
    and asks only the parts it is given."""

    __slots__ = ("st", "settling", "dealer_turn")

    def __init__(self, st: TableState, settling: Settling, dealer_turn: DealerTurn) -> None:
        self.st = st
        self.settling = settling
        self.dealer_turn = dealer_turn

    def current_offers(self, first_only: bool = False) -> list[dict[str, Any]]:
        """Everyone who may still take insurance, even money or surrender (with
        ``first_only``, at most the first of them: whether anyone may)."""
        st = self.st
        if not st.offers_open:
            return []
        out: list[dict[str, Any]] = []
        dealer_ace = bool(st.dealer) and st.dealer[-1].rank == "A" and not st.rules.permanent_eight
        table = st.bets.offer_options  # hand_rules.offers, worked out once per game
        absent = st.absent
        for number in st.order:
            area = st.areas[number]
            blackjack, one_hand = st.is_blackjack(area.hands[0]), len(area.hands) == 1
            may_insure = table[offer_key(dealer_ace, blackjack, one_hand, True)]
            may_not = table[offer_key(dealer_ace, blackjack, one_hand, False)]
            surrendered, even_money = area.surrendered, area.even_money
            insured, declined = area.insured, area.insurance_declined
            for w in area.wagers:
                p = w.player
                if p in surrendered or p in even_money or p in absent:
                    continue
                # 3.27.3: a player who declined and whose insurance others took
                options = may_not if p in insured or p in declined else may_insure
                if options:
                    out.append({"player": p, "area": number, "options": options})
                    if first_only:
                        return out
        return out

    def close_offers(self) -> None:
        """Offers close, the interim settlement takes place and the subsequent deal begins."""
        st = self.st
        if not st.offers_open:
            return
        st.offers_open = False
        st.enter("play")
        self.settling.interim_settlement()
        st.interim_done = True

    def reopen(self) -> None:
        """5.12.2: surrender and insurance are offered once the dealer has the redrawn card."""
        self.st.offers_open = True
        self.maybe_close_offers()

    def close_by_card(self) -> None:
        """The dealer's card closes the offers when nobody has a decision left (3.27.2, 3.20):
        the interim settlement, then the dealer's turn."""
        self.close_offers()
        if self.st.phase == "play":
            self.dealer_turn.advance()

    def maybe_close_offers(self) -> None:
        """Offers close by themselves when nobody has anything to decide."""
        st = self.st
        if st.offers_open and not self.current_offers(first_only=True) and self.no_player_decision():
            self.close_offers()
            if st.phase == "play":
                self.dealer_turn.advance()

    def no_player_decision(self) -> bool:
        """No hand waits for a player: all done, or the next is dealt for an absent player (5.22)."""
        st = self.st
        hand = st.hand_in_turn()
        return hand is None or st.areas[st.order[st.turn]].absent_play

    def offer_decision(self, ev: Decision) -> None:
        st = self.st
        action = ev.action
        if not st.offers_open:
            concept = {"insurance": "insurance.before_subsequent", "even_money": "even_money",
                       "surrender": "surrender"}[action]
            if not st.rules.has(concept):
                raise st.refuse(f"{st.rules.name} has no {action.replace('_', ' ')}", "options")
            raise st.refuse(
                f"{action.replace('_', ' ')} is offered only after the initial deal and before the "
                "subsequent deal", concept,
            )
        area, hand, _ = st.decision_hand(ev)
        player = ev.player or area.controller
        if player is None:
            raise st.refuse(f"nobody controls area {area.number} now: name the player deciding", "call_decisions")
        if area.wager_of(player) is None:  # each offer is on the player's own original wager
            raise st.refuse(f"{player} has no main wager on area {area.number}",
                            action if st.rules.has(action) else None)
        if player in st.absent:
            raise st.refuse(f"{player} is not present to make decisions", "absent")
        if action == "insurance" and player in area.insurance_declined:
            raise st.refuse(
                f"{player} declined insurance on area {area.number} and another player's claim on it "
                "was decided", "insurance.declined",
            )
        offered: tuple[str, ...] = next(
            (o["options"] for o in self.current_offers() if o["player"] == player and o["area"] == area.number),
            (),
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
            self.settling.main_entry(w, area.number, 1, "surrender", kept - stake, st.clause("surrender"), "interim")
            if player == area.controller:
                st.update_controller(area, "surrender.control_passes")
            if all(p in area.surrendered for p in hand.stakes):
                hand.done = True
        elif action == "insurance":
            original = area.original(player)
            amount = ev.amount if ev.amount is not None else half_kept(original)
            if amount > original / 2:
                raise st.refuse(
                    f"insurance may be at most half of the original wager ({amount_text(original / 2)})",
                    "insurance",
                )
            area.insured[player] = amount
        else:
            area.even_money.add(player)
            stake = hand.stakes[player]
            hand.settled.add(player)
            w = area.wager_of(player)
            assert w is not None
            self.settling.main_entry(w, area.number, 1, "even_money", stake, st.clause("even_money"), "interim")
            insured = area.insured.pop(player, None)
            if insured is not None:
                # 3.20: any insurance wager is returned.
                st.record_entry(player, "insurance", insured, "returned", ZERO, st.clause("even_money"),
                            area=area.number, stage="interim")
        self.maybe_close_offers()

    def _offer_refusal(self, area: Area, player: str, action: str) -> RuleRefusal:
        st = self.st
        dealer_ace = bool(st.dealer) and st.dealer[0].rank == "A"
        if action == "surrender":
            if not st.rules.surrender_against_ace and dealer_ace:
                return st.refuse("surrender is not offered when the dealer's card is an Ace", "surrender")
            if player in area.surrendered:
                return st.refuse(f"{player} has already surrendered", "surrender")
            return st.refuse("a blackjack or a split hand may not surrender", "surrender.after_split")
        if not st.rules.insurance:
            return st.refuse(f"{st.rules.name} has no {action.replace('_', ' ')}", "options")
        if not dealer_ace:
            return st.refuse(f"{action.replace('_', ' ')} is offered only when the dealer's first card is an Ace",
                               "insurance" if action == "insurance" else "even_money")
        if action == "even_money":
            return st.refuse("even money is offered only on a blackjack", "even_money")
        return st.refuse(f"{player} has already insured area {area.number}", "insurance")

    def on_close_offers(self, ev: CloseOffers) -> None:
        if not self.st.offers_open:
            rules = self.st.rules  # the offers: insurance and even money, or Dueling 8's surrender
            raise self.st.refuse("no offers are open",
                                 "insurance.offer" if rules.insurance else "surrender.offer")
        self.close_offers()
        self.dealer_turn.advance()
