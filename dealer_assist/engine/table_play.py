"""Play decisions: hit, stand, double and split (3.21-3.30) checked the same way whether or
not the round was asked first, who may decide for an area (3.11, 5.22.1), the options a hand
has, and an absent player (5.22)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any, Final

from dealer_assist.base.errors import RuleRefusal
from dealer_assist.base.money import ZERO, to_json_number
from dealer_assist.engine import hand_rules
from dealer_assist.engine.events import Absent, Decision
from dealer_assist.engine.outcome import NO_EXTRA, Expectation
from dealer_assist.engine.table_core import (
    NOTHING_EXPECTED,
    Unexpected,
    amount_text,
    card_expected,
    decision_expected,
)
from dealer_assist.engine.table_dealer import DealerTurn
from dealer_assist.engine.table_offers import Offers
from dealer_assist.engine.table_state import Area, Hand, TableState

PLAY_ACTIONS: Final = frozenset({"hit", "stand", "double", "split"})
# Section 5's choices (accept / refuse a card dealt in error, act on one card): the round
# hands them to irregularities before play decisions are looked at.
IRREGULAR_ACTIONS: Final = frozenset({"accept", "refuse", "act"})


_HIT_STAND: Final = ("hit", "stand")
_STAND: Final = ("stand",)


class Play:
    """The play decisions (3.21-3.30) and an absent player (5.22)
    A part of ``table.TableRound``: it changes the round's one state value (``TableState``)
    and asks only the parts it is given."""

    __slots__ = ("st", "offers", "dealer_turn")

    def __init__(self, st: TableState, offers: Offers, dealer_turn: DealerTurn) -> None:
        self.st = st
        self.offers = offers
        self.dealer_turn = dealer_turn

    def on_decision(self, ev: Decision) -> None:
        action = ev.action
        if action in ("insurance", "even_money", "surrender"):
            self.offers.offer_decision(ev)
            return
        if action not in PLAY_ACTIONS:
            raise self.st.refuse(f"'{action}' is not a decision at this table", "options")
        st = self.st
        asked = st.asked_for
        if asked is not None and asked.kind == "decision" and (action == "hit" or action == "stand"):
            number, hand_no, player = asked.area, asked.hand, asked.player
            if (number is not None and hand_no is not None and player is not None and number == ev.area
                    and hand_no == (ev.hand or 1) and (ev.player is None or ev.player == player)
                    and action in asked.options and st.irregular is None):
                # The hit or stand the round listed for the hand in turn and its controller, the
                # state unchanged since: the refusal functions that listed it (waiting_decision,
                # play_options) would let it pass, so it is carried out without asking again.
                area = st.areas[number]
                self._play(area, area.hands[hand_no - 1], player, action, ev)
                return
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
        st = self.st
        action = ev.action
        named = st.areas.get(ev.area) if ev.area is not None else None
        if named is not None and named.absent_play:
            raise st.refuse(
                f"area {named.number} is played by the dealer for an absent player; splitting and "
                "doubling are forfeited", "absent",
            )
        done = st.hand_at(named, ev.hand or 1) if named is not None else None
        if named is not None and done is not None and done.doubled and len(done.cards) >= 3:
            # 3.26.4 (3.26.3 in Dueling 8's); 3.26.6 (3.26.5) when others on it did not double.
            concept = ("double.followers_one_card" if any(p not in done.doubled_by for p in done.stakes)
                       else "double.one_card")
            raise st.refuse(
                f"area {named.number} hand {ev.hand or 1} was doubled and receives "
                "only one additional card", concept,
            )
        if action == "split" and done is not None and done.split_aces:
            # 3.22.1/3.23.1, whichever hand is in turn and whether or not the round moved on.
            raise st.refuse(*hand_rules.SPLIT_ACES_AGAIN)
        if st.phase not in ("offers", "play"):
            # Decisions follow a hand's two cards (3.14; Dueling 8's 3.15) and the rest of the
            # initial deal (3.18; 3.19), and end where the dealer's turn begins (3.34; 3.33).
            phase = st.phase
            when = ("decide_after_cards" if phase == "betting" or (
                        phase == "initial" and (done is None or len(done.cards) < 2))
                    else "deal_order" if phase == "initial"
                    else "dealer_draws" if phase == "dealer" else None)
            raise Unexpected(f"no {action} decision is possible now",
                             st.clause(when) if when is not None else None)
        if named is not None and done is not None:  # decision_hand(ev), already found
            area, hand, hand_no = named, done, ev.hand or 1
        else:
            area, hand, hand_no = st.decision_hand(ev)
        cur = st.current_hand()
        if cur is None or cur[1] is not hand:
            finished = hand_rules.finished_hand(hand, hand.split_aces, hand.doubled, hand.busted,
                                                "bust", "its wagers have lost")
            if finished is not None:  # the hand takes no more decisions, and why
                raise st.refuse(f"area {area.number} hand {hand_no} {finished[0]}", finished[1])
            if cur is None:  # every hand is complete: the dealer's turn (3.34; Dueling 8's 3.33)
                raise st.refuse(f"no hand is waiting for a decision ({action} on area {area.number})",
                                "dealer_draws")
            raise RuleRefusal(
                f"it is not the turn of area {area.number} hand {hand_no}: "
                f"area {cur[0].number} hand {st.hand_number(cur[0], cur[1])} is in play",
                st.clause("split.order") if cur[0] is area else st.clause("deal_order"),
            )
        if st.needs_card(area, hand):
            # The card it waits for: a split hand's second card (3.23), the one card of a
            # double (3.26.4; Dueling 8's 3.26.3) or the card a hit asked for (3.29; 3.28).
            concept = ("split.order" if len(hand.cards) < 2 else "double.one_card" if hand.doubled_by
                       else "hit")
            raise st.refuse(f"area {area.number} hand {hand_no} is waiting for a card, not a decision",
                            concept)
        player = ev.player or area.controller
        if area.absent_play:
            raise st.refuse(
                f"area {area.number} is played by the dealer for an absent player", "absent"
            )
        if player is None:
            raise st.refuse(f"nobody calls the decisions of area {area.number}", "call_decisions")
        if player != area.controller:
            raise self._not_controller(area, hand, player, action)
        return area, hand, player

    def _play(self, area: Area, hand: Hand, player: str, action: str, ev: Decision) -> None:
        """Carry out a valid hit, stand, double or split by ``player`` on the hand in turn."""
        st = self.st
        # The first play decision closes the offers (interim settlement, subsequent deal).
        if st.offers_open:
            self.offers.close_offers()
        if action == "stand":
            hand.done = True
            self.dealer_turn.advance()
            if st.phase == "play" and st.next_exp is None:
                st.next_exp = self.play_expectation()  # next_expectation's play branch
            return
        if action == "hit":
            hand.awaiting = True
            if st.phase == "play":
                # The hand stays in turn for its card (advance would find it again, 3.29).
                st.next_exp = card_expected(area.number, area.hands.index(hand))
                return
        elif action == "double":
            self._do_double(area, hand, player, ev)
        else:
            self._do_split(area, hand, ev)
        self.dealer_turn.advance()

    def _not_controller(self, area: Area, hand: Hand, player: str, action: str) -> RuleRefusal:
        """A decision by someone who does not call the area's decisions (3.8)."""
        st = self.st
        if action == "double" and player in hand.stakes:
            # 3.26.7: others double only alongside the controller (as its followers, 3.26.5).
            return st.refuse(
                f"{player} may double on area {area.number} only when {area.controller}, who "
                "controls it, doubles", "double.controller_first",
            )
        if area.wager_of(player) is None:
            return st.refuse(
                f"{player} has no wager on area {area.number} and calls no decisions there; "
                f"{area.controller} does", "call_decisions",
            )
        # The clause that gave the area its controller: 3.11, 3.12, 3.25.1.3 or 5.22.1.
        rule = next(
            (c.rule for c in reversed(st.control_changes) if c.area == area.number),
            st.clause("control_front"),
        )
        return RuleRefusal(
            f"{player} does not control area {area.number}; {area.controller} calls its decisions",
            rule,
        )

    def _check_hit(self, area: Area, hand: Hand) -> None:
        st = self.st
        total = hand.total()
        if total >= 21:
            raise st.refuse(f"a total of {total} takes no more cards", "twenty_one_stops")
        if hand.doubled:
            raise st.refuse("a doubled hand receives only one additional card", "double.one_card")
        if hand.split_aces:
            raise st.refuse("split aces receive one card each", "split.aces_one_card")

    # _double_refusal and _split_refusal run for every decision the round asks for (the
    # options listed): they return the message and the concept of the clause, and only a
    # refused decision looks the clause up.
    def _double_refusal(self, area: Area, hand: Hand, total: int | None = None) -> tuple[str, str] | None:
        """None if the hand may be doubled, else why not and the concept of the clause.

        ``total`` is the hand's best total when the caller has it already.
        """
        rules = self.st.rules
        if area.absent_play:
            return "options to split or double are forfeited", "absent"
        if area.controller is not None and area.controller not in hand.stakes:
            return self._not_on_hand(area, hand)
        return hand_rules.double_refusal(rules, hand.cards, hand.split_aces, hand.from_split, total)

    def _check_double(self, area: Area, hand: Hand, player: str, ev: Decision) -> None:
        st = self.st
        refusal = self._double_refusal(area, hand)
        if refusal is not None:
            raise st.refuse(*refusal)
        self._check_double_amount(area, player, ev.amount if ev.amount is not None else area.original(player))
        for follower, amount in ev.followers:
            if follower == player:
                continue
            if follower not in hand.stakes or follower in area.surrendered:
                raise RuleRefusal(
                    f"{follower} has no wager on area {area.number} hand "
                    f"{st.hand_number(area, hand)} to double", st.clause("double.followers")
                )
            if follower in st.absent:
                raise st.refuse(f"{follower} is absent; options to double are forfeited", "absent")
            if not isinstance(amount, Decimal):
                raise RuleRefusal(f"{follower}'s double names no amount", st.clause("double.followers"))
            self._check_double_amount(area, follower, amount)

    def _check_double_amount(self, area: Area, player: str, amount: Decimal) -> None:
        st = self.st
        original = area.original(player)
        concept = "double.amount"
        if st.rules.double_equal_only and amount != original:
            raise st.refuse(f"a double must equal the original wager of {original}", concept)
        if amount > original:
            raise st.refuse(
                f"{player} may double by at most the original wager of {amount_text(original)}, not {amount_text(amount)}",
                concept,
            )
        minimum = st.config.limits.get("main", (ZERO, ZERO))[0]
        if amount < minimum:
            raise st.refuse(
                f"a double must not be less than the table minimum of {amount_text(minimum)}", concept
            )

    def _do_double(self, area: Area, hand: Hand, player: str, ev: Decision) -> None:
        amount = ev.amount if ev.amount is not None else area.original(player)
        hand.stakes[player] += amount
        hand.doubled_by.add(player)
        for follower, extra in ev.followers:
            if follower != player and isinstance(extra, Decimal):
                hand.stakes[follower] += extra
                hand.doubled_by.add(follower)
        if self.st.rules.double_hard_10_11_only:
            hand.aces_fixed = sum(1 for c in hand.cards[:2] if c.rank == "A")  # 3.4.2
        hand.awaiting = True

    def _not_on_hand(self, area: Area, hand: Hand) -> tuple[str, str]:
        # 5.22.1: control passed to a player who kept their wager on another hand of a split;
        # they play this hand for the absent player, whose options to split or double are
        # forfeited (5.22), and have no wager of their own on it to double or split.
        return (
            f"{area.controller} plays hand {self.st.hand_number(area, hand)} of area {area.number} "
            "for an absent player and has no wager on it; splitting and doubling are forfeited",
            "absent",
        )

    def _split_refusal(self, area: Area, hand: Hand) -> tuple[str, str] | None:
        """None if the hand may be split, else why not and the concept of the clause."""
        rules = self.st.rules
        if area.absent_play:
            return "options to split or double are forfeited", "absent"
        if area.controller is not None and area.controller not in hand.stakes:
            return self._not_on_hand(area, hand)
        cards = hand.cards
        # Whether aces were split matters only for a pair of aces (split_refusal's last test).
        aces_split = len(cards) == 2 and cards[0].rank == "A" and any(h.split_aces for h in area.hands)
        return hand_rules.split_refusal(rules, cards, len(area.hands), aces_split)

    def _check_split(self, area: Area, hand: Hand, ev: Decision) -> None:
        st = self.st
        refusal = self._split_refusal(area, hand)
        if refusal is not None:
            raise st.refuse(*refusal)
        for follower, choice in ev.followers:
            if follower not in hand.stakes or follower == area.controller or follower in area.surrendered:
                raise RuleRefusal(
                    f"{follower} has no other wager on that hand to match or keep",
                    st.clause("split.followers"),
                )
            if choice not in ("match", "stay"):
                raise RuleRefusal(
                    f"{follower} must 'match' or 'stay' on a split, not {choice!r}",
                    st.clause("split.followers"),
                )
            if choice == "match" and follower in st.absent:
                raise st.refuse(f"{follower} is absent and cannot match a split", "absent")

    def _do_split(self, area: Area, hand: Hand, ev: Decision) -> None:
        choices = {p: c for p, c in ev.followers}
        second_card = hand.take_last()
        new = Hand([second_card], from_split=True)
        hand.from_split = True
        if second_card.rank == "A" and not self.st.rules.split_eights_only:
            hand.split_aces = new.split_aces = True
        for player in list(hand.stakes):
            if player in area.surrendered:
                continue
            if player == area.controller or choices.get(player) == "match":
                new.stakes[player] = area.original(player)  # 3.21, 3.24.1
        area.hands.insert(area.hands.index(hand) + 1, new)

    def waiting_decision(self, cur: tuple[Area, Hand] | None) -> Expectation:
        """The decision the round waits for when no card is expected (``cur``: the hand in turn)."""
        st = self.st
        offers = tuple(self.offers.current_offers()) if st.offers_open else ()
        if cur is None or cur[0].absent_play:
            if offers:
                first = offers[0]
                return Expectation("decision", None, first["area"], 1, first["player"],
                                   tuple(first["options"]), offers)
            return NOTHING_EXPECTED
        area, hand = cur
        controller = area.controller
        extra: Mapping[str, Any] = NO_EXTRA
        options = self.play_options(area, hand, offers)
        if len(hand.stakes) > 1 and ("split" in options or "double" in options):
            # The other players on the hand, for the dealer screen to ask when the controller
            # splits (match or stay, 3.24) or doubles (up to their own wager, 3.26.5).
            followers = [
                {"player": p, "wager": to_json_number(area.original(p))}
                for p in hand.stakes
                if p != controller and p not in area.surrendered and p not in st.absent
                and p not in hand.settled
            ]
            if followers:
                extra = {"followers": followers}
        if not offers and extra is NO_EXTRA:
            return decision_expected(area.number, area.hands.index(hand) + 1, controller, options)
        return Expectation("decision", None, area.number, area.hands.index(hand) + 1, controller,
                           options, offers, (), None, None, extra)

    def play_expectation(self) -> Expectation:
        """What the play phase waits for (no section 5 ruling pending): the hand in turn's
        card, or its decision (3.29-3.31)."""
        st = self.st
        hand = st.hand_in_turn()
        if hand is None:
            return self.waiting_decision(None)
        area = st.areas[st.order[st.turn]]
        if st.needs_card(area, hand):
            return card_expected(area.number, area.hands.index(hand))
        if not st.offers_open and not area.absent_play and len(hand.cards) != 2:
            # waiting_decision's usual case: a later decision, hit or stand alone (play_options),
            # nobody asked to follow (no split or double listed) and no offer open.
            return decision_expected(area.number, area.hands.index(hand) + 1, area.controller,
                                     self.play_options(area, hand, ()))
        return self.waiting_decision((area, hand))

    def play_options(self, area: Area, hand: Hand, offers: Iterable[dict[str, Any]]) -> tuple[str, ...]:
        st = self.st
        total = hand.total()
        may_hit = total < 21 and not hand.doubled_by and not hand.split_aces
        if len(hand.cards) != 2 and not st.offers_open:  # the usual case: hit or stand alone
            return _HIT_STAND if may_hit else _STAND
        out = ["hit", "stand"] if may_hit else ["stand"]
        if len(hand.cards) == 2:  # both need the first two cards (3.26.1, 3.21)
            if self._double_refusal(area, hand, total) is None:
                out.append("double")
            a, b = hand.cards
            # Not a pair: split_refusal's answer whatever else holds.
            if hand_rules.is_pair(st.rules, a, b) and self._split_refusal(area, hand) is None:
                out.append("split")
        if st.offers_open and area.controller and any(
            o["player"] == area.controller and o["area"] == area.number and "surrender" in o["options"]
            for o in offers
        ):
            out.append("surrender")
        return tuple(out)

    def on_absent(self, ev: Absent) -> None:
        st = self.st
        # 5.22 (Dueling 8's 5.19): a player who placed a wager and is not present to decide on
        # the cards dealt to it.
        if st.phase in ("betting",):
            raise st.refuse(f"{ev.player} has not been dealt in yet; an absent player is reported after "
                            "the deal begins", "absent")
        if not any(a.wager_of(ev.player) for a in st.areas.values()):
            raise st.refuse(f"{ev.player} has no main wager in this round", "absent")
        st.absent.add(ev.player)
        for number in st.order:
            area = st.areas[number]
            if area.controller == ev.player:
                st.update_controller(area, "absent.other_player")
        self.offers.maybe_close_offers()
        if st.phase == "play":
            self.dealer_turn.advance()
