"""Settling a table round: the entries of every wager (main, side, insurance, the main-wager
bonus), side bets settled when their cards decide them (initial, run, final stages), the
interim settlement when the offers close, busts and blackjacks, the final settlement against
the dealer (section 4 of each game), and the void (every wager returned)."""

from __future__ import annotations

from decimal import Decimal

from dealer_assist.base.cards import Card
from dealer_assist.base.hands import is_two_card_21
from dealer_assist.base.money import ZERO, winnings
from dealer_assist.base.settlement import main_result
from dealer_assist.engine import hand_rules
from dealer_assist.engine.outcome import Ruling, settlement
from dealer_assist.engine.table_state import (
    PERMANENT_EIGHT,
    Area,
    Hand,
    MainWager,
    SideWager,
    TableState,
)
from dealer_assist.games import INSURANCE_ODDS, sidebets


class Settling:
    """How each wager is settled (section 4), the interim settlement and the void
    A part of ``table.TableRound``: it changes the round's one state value (``TableState``)
    and asks only the parts it is given."""

    __slots__ = ("st",)

    def __init__(self, st: TableState) -> None:
        self.st = st

    def main_entry(
        self, w: MainWager, area: int, hand: int, result: str, net: Decimal, rule: str, stage: str,
        stake: Decimal | None = None,
    ) -> None:
        st = self.st
        stake = w.amount if stake is None else stake
        if w.returned:
            st.record_entry(w.player, "main", stake, "returned", ZERO, st.clause("under_min"),
                        area=area, hand=hand, stage=stage)
            return
        excess = w.excess if hand == 1 else ZERO
        limits = st.config.limits.get("main") if st.config.limits else None
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
        st.settlements.append(settlement(w.player, "main", stake, result, net, rule, stage, area, hand))
        if excess and result != "returned":
            st.record_entry(w.player, "main", excess, "returned", ZERO, st.clause("over_max"),
                        area=area, hand=hand, stage=stage)

    def wager_entry(
        self, side: SideWager, area: int, hand: int | None, result: str, net: Decimal, rule: str,
        stage: str, row: str | None = None,
    ) -> None:
        st = self.st
        if side.returned:
            st.record_entry(side.player, side.bet, side.amount, "returned", ZERO, st.clause("under_min"),
                        area=area, hand=hand, stage=stage)
            return
        st.settlements.append(
            settlement(side.player, side.bet, side.amount, result, net, rule, stage, area, hand, row)
        )
        if side.excess:
            st.record_entry(side.player, side.bet, side.excess, "returned", ZERO, st.clause("over_max"),
                        area=area, hand=hand, stage=stage)

    def settle_side(self, area: Area, side: SideWager, row: sidebets.PayRow | None, stage: str) -> None:
        st = self.st
        side.settled = True
        hand_no = st.hand_number(area, side.hand) if side.hand is not None else None
        if row is None:
            self.wager_entry(side, area.number, hand_no, "lose", -side.amount,
                             st.clause("side." + side.bet), stage)
        else:
            self.wager_entry(side, area.number, hand_no, "win", winnings(side.amount, row.odds),
                             row.clause, stage, row.name)

    def settle_run(self, area: Area, stage: str) -> None:
        st = self.st
        spec = st.bets.run
        if spec is None:
            return
        # The permanent 8 and the cards of the run's rank dealt to the area from its first on.
        run = [PERMANENT_EIGHT] if st.rules.permanent_eight else []
        for c in area.dealt:
            if c.rank != spec.run_rank:
                break
            run.append(c)
        row = spec.classify(sidebets.SideCards((), run=run))
        for side in area.sides:
            if side.bet == spec.key and not side.settled:
                self.settle_side(area, side, row, stage)

    def track_run(self, area: Area, card: Card) -> None:
        """A "run" side bet (Superb 8's, 4.2.2) is decided by the first card that breaks the run."""
        st = self.st
        spec = st.bets.run
        if not area.run_open or spec is None:
            return
        if card.rank != spec.run_rank:
            area.run_open = False
            if st.phase != "initial":
                self.settle_run(area, "final")

    def settle_initial_side_bets(self, area: Area, dealer_up: Card | None) -> None:
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
                spec = self.st.bets.specs.get(bet)
                if spec is None:
                    continue
                if spec.stage == "run":
                    if area.run_open and len(area.dealt) == 1 and area.dealt[0].rank == spec.run_rank:
                        continue  # the run may go on (Superb 8's 4.2.2)
                    self.settle_run(area, "interim")
                    continue
                if spec.stage != "initial" or spec.needs_dealer_up and dealer_up is None:
                    continue  # decided later (Tie on 18, 21+)
                row = spec.classify(cards)
            rows[bet] = row
            self.settle_side(area, side, row, "interim")

    def pay_blackjack(self, area: Area, hand: Hand, player: str, stake: Decimal, stage: str) -> None:
        st = self.st
        odds = st.rules.blackjack_odds
        assert odds is not None
        w = area.wager_of(player)
        assert w is not None
        hand.settled.add(player)
        self.main_entry(w, area.number, 1, "win", winnings(stake, odds), st.clause("win.blackjack"), stage, stake)

    def settle_bust(self, area: Area, hand: Hand) -> None:
        """3.32 (3.31 in Dueling 8's): every wager on a busted hand loses at once."""
        st = self.st
        i = st.hand_number(area, hand)
        for player, stake in hand.stakes.items():
            if player in hand.settled:
                continue
            hand.settled.add(player)
            w = area.wager_of(player)
            assert w is not None
            self.main_entry(w, area.number, i, "lose", -stake, st.clause("lose.bust"), "final", stake)
        for side in area.sides:
            if side.bet in st.bets.lost_on_bust and not side.settled and (
                    side.hand is hand or (side.hand is None and i == 1)):
                self.settle_side(area, side, None, "final")

    def settle_insurance(self) -> None:
        st = self.st
        blackjack = is_two_card_21(st.dealer)
        for number in st.order:
            area = st.areas[number]
            if not area.insured and not area.claimed_insurance:
                continue  # no insurance wager on the area
            for player, amount in area.insurance_wagers():
                if blackjack:
                    st.record_entry(player, "insurance", amount, "win", winnings(amount, INSURANCE_ODDS),
                                st.clause("pays"), area=area.number)
                else:
                    st.record_entry(player, "insurance", amount, "lose", -amount, st.clause("insurance"),
                                area=area.number)
            area.insured = {}
            area.claimed_insurance = []

    def settle_main_bonus(self, area: Area) -> None:
        """A bonus the game pays on main wagers (Dueling 8's 6-7-8, 1.1.2 and 4.1.1)."""
        st = self.st
        bonus = st.rules.main_bonus
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
            st.record_entry(w.player, bonus.key, w.amount, "win", winnings(w.amount, row.odds), row.clause,
                              area=area.number, hand=1, row=row.name)

    def settle_area_hands(self, area: Area, dealer_total: int, dealer_bj: bool) -> None:
        st = self.st
        once: hand_rules.OriginalWagerOnce | None = None  # made for the area when it matters
        for i, hand in enumerate(area.hands, start=1):
            if hand.busted:
                continue
            total = hand.total()
            player_bj = st.is_blackjack(hand)
            for player, stake in hand.stakes.items():
                if player in hand.settled or player in area.surrendered:
                    continue
                w = area.wager_of(player)
                assert w is not None
                hand.settled.add(player)
                result, concept = main_result(total, player_bj, dealer_total, dealer_bj)
                if result == "blackjack":
                    hand.settled.discard(player)
                    self.pay_blackjack(area, hand, player, stake, "final")
                    continue
                net = stake if result == "win" else -stake if result == "lose" else ZERO
                if concept == "lose.dealer_blackjack" and (hand.from_split or player in hand.doubled_by):
                    if once is None:
                        once = hand_rules.OriginalWagerOnce(st.rules)
                    result, net, concept = once.settle(player, result, net, concept, hand.from_split,
                                                       True, w.amount)
                self.main_entry(w, area.number, i, result, net, st.clause(concept), "final", stake)

    def final_settlement(self, referred_rule: str | None = None) -> None:
        """Final settlement of everything still open."""
        st = self.st
        dealer_total, _ = st.dealer_value()
        dealer_bj = st.rules.blackjack_odds is not None and is_two_card_21(st.dealer)
        if len(st.dealer) >= 2 and st.rules.insurance:
            self.settle_insurance()
        for number in st.order:
            area = st.areas[number]
            self.settle_area_hands(area, dealer_total, dealer_bj)
            for side in area.sides:
                if side.settled:
                    continue
                spec = st.bets.specs.get(side.bet)
                if spec is None:
                    continue
                if spec.stage == "run":
                    self.settle_run(area, "final")
                elif spec.stage == "final":
                    n = len(st.dealer)
                    if spec.dealer_cards_paid and dealer_total > 21 and n > spec.dealer_cards_paid \
                            and referred_rule is not None:
                        side.settled = True  # no row: returned on the 6.1 ruling
                        self.wager_entry(side, area.number, None, "returned", ZERO, referred_rule, "final")
                        continue
                    hand = side.hand if side.hand is not None else area.hands[0]
                    total = hand.total()
                    cards = sidebets.SideCards(hand.cards, st.dealer, (), total, hand.busted, dealer_total)
                    self.settle_side(area, side, spec.classify(cards), "final")
                elif side.hand is not None and spec.split_classify is not None:
                    row = spec.split_classify(sidebets.SideCards(side.hand.cards))  # Ace Race 3.21.1
                    self.settle_side(area, side, row, "final")
                else:
                    self.settle_initial_side_bets(area, st.dealer[0] if st.dealer else None)
            self.settle_main_bonus(area)
        st.enter("settled")

    def void(self, rule: str, text: str) -> None:
        st = self.st
        st.enter("void")
        st.rulings.append(Ruling(st.event_index, rule, "void", text))
        st.settlements = []
        for area in st.areas.values():
            for w in area.wagers:
                st.record_entry(w.player, "main", w.placed, "returned", ZERO, rule, area=area.number, hand=1)
            for s in area.sides:
                hand_no = st.hand_number(area, s.hand) if s.hand else None
                st.record_entry(s.player, s.bet, s.placed, "returned", ZERO, rule, area=area.number, hand=hand_no)
            for player, amount in area.insurance_wagers():
                st.record_entry(player, "insurance", amount, "returned", ZERO, rule, area=area.number)

    def interim_settlement(self) -> None:
        st = self.st
        dealer_up = st.dealer[0] if st.dealer and not st.rules.permanent_eight else None
        dealer_may_blackjack = dealer_up is not None and (dealer_up.rank == "A" or dealer_up.points == 10)
        for number in st.order:
            area = st.areas[number]
            hand = area.hands[0]
            # Player blackjacks the dealer can no longer match (4.3.1).
            if st.is_blackjack(hand) and not dealer_may_blackjack:
                for player, stake in hand.stakes.items():
                    if player not in hand.settled:
                        self.pay_blackjack(area, hand, player, stake, "interim")
            if area.sides:
                self.settle_initial_side_bets(area, dealer_up)
            if area.surrendered and all(w.player in area.surrendered for w in area.wagers):
                hand.done = True
