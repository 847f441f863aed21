"""Betting at a table: wagers and where they may be placed (3.8-3.17), wagers on split
hands (3.21.1, 3.23.1), the limits applied at *no more bets* (5.26, 5.27) and the start of
the deal (3.18)."""

from __future__ import annotations

from dealer_assist.base.errors import RuleRefusal
from dealer_assist.engine.events import NoMoreBets, Wager
from dealer_assist.engine.table_core import card_expected
from dealer_assist.engine.table_settlement import Settling
from dealer_assist.engine.table_state import (
    PERMANENT_EIGHT,
    Area,
    Hand,
    MainWager,
    SideWager,
    TableState,
)


class Betting:
    """Wagers and where they may go (3.8-3.17), limits, bets closing (5.3)
    A part of ``table.TableRound``: it changes the round's one state value (``TableState``)
    and asks only the parts it is given."""

    __slots__ = ("st", "settling")

    def __init__(self, st: TableState, settling: Settling) -> None:
        self.st = st
        self.settling = settling

    def on_wager(self, ev: Wager) -> None:
        st = self.st
        rules = st.rules
        config = st.config
        number, bet, player = ev.area, ev.bet, ev.player
        if number is None:
            raise st.refuse("a wager at this table names its playing area", "layout")
        if not 1 <= number <= config.areas:
            raise st.refuse(f"area {number} is not on this layout of {config.areas} areas", "layout")
        if st.phase != "betting":
            if ev.hand is not None and self._late_wager_allowed(ev):
                self._place_split_side_bet(ev)
                return
            raise st.refuse("no wager may be placed or increased after \"no more bets\"", "bets_closed")
        if ev.hand is not None:
            raise st.refuse("a wager names a hand only when placed on a split hand", "split")
        if bet != "main" and bet not in st.bets.specs:
            raise st.refuse(f"{rules.name} has no '{bet}' wager", "side_bets")
        if config.one_area_players:
            self.check_one_area(player, number)  # 3.9
        area = st.areas.get(number)
        if bet == "main":
            if area is None:
                area = st.areas[number] = Area(number)
            existing = area.wager_of(player)
            if existing is not None:
                # 3.10.2: a player's wagers within one area are not separated.
                existing.placed += ev.amount
                existing.amount = existing.placed
                return
            limit = config.max_wagers_per_area
            if len(area.wagers) >= limit:
                if limit == 3:
                    raise st.refuse(f"area {number} already holds three main wagers", "max_wagers_area")
                raise st.refuse(
                    f"the pit manager allows {limit} main wager{'s' if limit > 1 else ''} per area "
                    f"and area {number} holds {len(area.wagers)}", "pit_restrict_wagers",
                )
            area.wagers.append(MainWager(player, ev.amount, len(area.wagers) + 1))
            # 3.13: the controller is known, and shown, while bets are being placed.
            st.update_controller(area, None)
            return
        if area is None or not area.wagers:
            raise st.refuse(
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
            raise st.refuse(f"area {number} already holds three {bet} wagers", "side_slots")
        area.sides.append(SideWager(player, bet, ev.amount, None))

    def check_one_area(self, player: str, area_no: int) -> None:
        st = self.st
        if player not in st.config.one_area_players:
            return
        for a in st.areas.values():
            if a.number != area_no and (
                a.wager_of(player) is not None or any(s.player == player for s in a.sides)
            ):
                raise st.refuse(
                    f"{player} is restricted by the pit manager to one playing area "
                    f"and already wagers on area {a.number}",
                    "pit_restrict_area",
                )

    def _late_wager_allowed(self, ev: Wager) -> bool:
        spec = self.st.bets.specs.get(ev.bet)
        return spec is not None and spec.split_hand is not None

    def _place_split_side_bet(self, ev: Wager) -> None:
        """Ace Race wager on split aces (3.21.1); Tie on 18 on a split hand (3.23.1, 3.25)."""
        st = self.st
        assert ev.area is not None and ev.hand is not None
        area = st.areas.get(ev.area)
        hand = st.hand_at(area, ev.hand) if area else None
        if area is None or hand is None:
            raise st.refuse(f"area {ev.area} has no hand {ev.hand}", "split")
        spec = st.bets.specs.get(ev.bet)
        assert spec is not None
        name = spec.name
        clause = st.clause(spec.split_concept)
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
                    st.clause(spec.split_follower_concept),
                )
        if any(s.hand is hand and s.bet == ev.bet and s.player == ev.player for s in area.sides):
            raise RuleRefusal(f"{ev.player} already has a {ev.bet} wager on that hand", clause)
        side = SideWager(ev.player, ev.bet, ev.amount, hand)
        self.apply_limits(side, ev.bet)
        area.sides.append(side)

    def apply_limits(self, wager: MainWager | SideWager, kind: str) -> None:
        """5.26/5.27 at the close of bets: cap at the maximum, return repeat under-minimums."""
        st = self.st
        limits = st.config.limits.get(kind)
        if limits is None:
            return
        low, high = limits
        if wager.placed > high:
            wager.amount = high
            wager.excess = wager.placed - high
        elif wager.placed < low:
            if wager.player in st.under_min_players:
                wager.returned = True
            else:
                st.under_min_players.add(wager.player)

    def on_no_more_bets(self, ev: NoMoreBets) -> None:
        st = self.st
        if st.phase != "betting":
            raise st.refuse("bets are already closed", "bets_closed")
        st.enter("initial")
        st.order = sorted(a.number for a in st.areas.values() if a.wagers)
        st.turn = 0
        limited = bool(st.config.limits)  # no table limits: nothing to cap or return
        for number in st.order:
            area = st.areas[number]
            if limited:
                # Limits in placement order: the first under-minimum wager of a player settles normally.
                for w in area.wagers:
                    self.apply_limits(w, "main")
                for s in area.sides:
                    self.apply_limits(s, s.bet)
            first = Hand([PERMANENT_EIGHT] if st.rules.permanent_eight else [])
            for w in area.wagers:
                first.stakes[w.player] = w.amount
            area.hands.append(first)
            # The controller needs no new look: every wager placed (and every withdrawal) since
            # the area's first wager already worked it out (3.11-3.13).
        # 3.18 (3.19 in Dueling 8's): one card to each area, one to the dealer, second round.
        st.initial_queue = [(n, 0) for n in st.order]
        if st.rules.dealer_card_in_initial_deal:
            st.initial_queue.append((0, 0))
        if not st.rules.permanent_eight:
            st.initial_queue += [(n, 0) for n in st.order]
        st.queue_pos = 0
        if not st.order:
            self.settling.final_settlement()
        else:  # 3.18: the initial deal's first card
            number, hand_index = st.initial_queue[0]
            st.next_exp = card_expected(number, hand_index)
