"""Section 5 (and 6.1) of the table games: rulings on irregularities.

The round is event-sourced, and the shoe read every card in order, so a card that
lands in the wrong place can be put right exactly: "reconstruction" re-assigns the
cards, in the order the shoe delivered them, to the hands that should have received
them, and every ruling lists the cards it moved (``CardMove``).

Clause numbers below are Ace Race / Lucky 8 / Star Elements ones; the code always
asks ``rnd.st.clause(concept)`` so each game cites its own text (Dueling 8's numbers
section 5 differently and has no dealer card in the initial deal, so no 5.11/5.12/5.16).

The phase at the moment an error is reported decides the ruling:

- initial deal, or offers open before any interim settlement (5.6.1, 5.11, 5.13,
  5.21.1): reconstruct;
- after the interim settlement / once the subsequent deal started (5.6.2):
  reconstruct unless a clause says otherwise — 5.7 (dealer's completed hand),
  5.8-5.10 (a card dealt in error is offered as the next card), 5.12, 5.14-5.18,
  5.21.2, 5.23.

Readings adopted (each says so where it is applied):

- A card sent with ``to`` while a hand is waiting for it goes to that hand
  (reconstructed) — except after the interim settlement onto an area with no wager,
  which 5.15 discards.
- A card sent with ``to`` while a decision is awaited (nobody asked for a card):
  before the interim settlement it is reconstructed as the next card (5.6.1); after
  it, on the hand in turn, the dealer, a finished hand or the discard holder it is a
  card dealt in error (5.8) offered to the hand in turn; on a later hand it means the
  player in turn was skipped (5.17/5.18, ruled when the next other event arrives).
- A ``correction`` before the interim settlement moves the card back to where the
  shoe order put it (the program's layout already is the reconstruction). After it,
  a card that lies on an area with no wager or in the discard holder is discarded
  (5.15) and its rightful hand is short: 5.16 (one card), 5.14 (none) or 5.12 (the
  dealer has no card); anywhere else it is moved back (5.6.2).
- 5.25 withdrawal is open from a 5.12/5.15/5.16/5.23 ruling until the next card comes
  out of the shoe; 5.29.1 from the power failure until the next card.
"""

from __future__ import annotations

from dealer_assist.base.cards import Card
from dealer_assist.base.errors import EventFormatError, RuleRefusal
from dealer_assist.base.money import ZERO
from dealer_assist.engine.events import (
    Burn,
    CardDrawn,
    Correction,
    Decision,
    Event,
    Multi,
    Pick,
    PowerFailure,
    Resolve,
    Target,
    Void,
    Withdraw,
    card_event_at,
)
from dealer_assist.engine.outcome import CardMove, Expectation, Ruling
from dealer_assist.engine.round_api import Round
from dealer_assist.engine.table_port import Section5Port
from dealer_assist.engine.table_state import DEALER, Area, Hand, IrregularState, Place


def state(rnd: Section5Port) -> IrregularState:
    if rnd.st.irregular is None:
        # Shares the round's record of where each card went (kept from the first card on).
        rnd.st.irregular = IrregularState(placed=rnd.st.placed_cards)
    return rnd.st.irregular


# ---------------------------------------------------------------------- places
def _place_text(rnd: Section5Port, place: Place | None) -> str:
    if place is None:
        return "discard"
    number, hand = place
    if number == 0:
        return "dealer"
    area = rnd.st.areas[number]
    assert hand is not None
    return f"area:{number}/{area.hands.index(hand) + 1}"



def _h(place: object) -> str:
    """A place in the dealer's words: area:2/1 -> "area 2", area:2/2 -> "area 2 hand 2"."""
    text = str(place)
    if text.startswith("area:"):
        number, _, hand = text[5:].partition("/")
        return f"area {number}" if hand in ("", "1") else f"area {number} hand {hand}"
    return {"dealer": "the dealer", "discard": "the discard holder", "shoe": "the shoe"}.get(text, text)


def _target_place(rnd: Section5Port, target: tuple[int, int]) -> Place:
    number, index = target
    if number == 0:
        return DEALER
    return (number, rnd.st.areas[number].hands[index])


def _place_of_target(rnd: Section5Port, to: Target) -> Place | None:
    """The layout place ``to`` names, None for the discard holder or an area not in play."""
    if to.kind == "dealer":
        return DEALER
    if to.kind == "area" and to.area in rnd.st.order:
        area = rnd.st.areas[to.area]
        if 1 <= to.hand <= len(area.hands):
            return (to.area, area.hands[to.hand - 1])
    return None


def _check_target(rnd: Section5Port, to: Target) -> None:
    if to.kind in ("player", "shoe"):
        raise rnd.st.refuse(f"'{to}' is not a place at a table with playing areas", "layout")
    if to.kind == "area":
        if not 1 <= to.area <= rnd.st.config.areas:
            raise rnd.st.refuse(f"area {to.area} is not on this layout of {rnd.st.config.areas} areas", "layout")
        area = rnd.st.areas.get(to.area)
        if to.area in rnd.st.order and area is not None and to.hand > len(area.hands):
            raise rnd.st.refuse(f"area {to.area} has no hand {to.hand}", "split")


def _current_place(rnd: Section5Port, index: int, card: Card) -> Place | None:
    """Where the program holds the card of event ``index`` now (None: discarded / unknown)."""
    place = state(rnd).placed.get(index)
    if place is None:
        return None
    number, hand = place
    if number == 0:
        return DEALER if card in rnd.st.dealer else None
    area = rnd.st.areas[number]
    if hand is not None and hand in area.hands and card in hand.cards:
        return place
    for h in area.hands:  # a split moved it to the new hand
        if card in h.cards:
            return (number, h)
    return None


def _containers(rnd: Section5Port) -> list[tuple[Place, list[Card]]]:
    out: list[tuple[Place, list[Card]]] = [(DEALER, rnd.st.dealer)]
    for number in rnd.st.order:
        for h in rnd.st.areas[number].hands:
            out.append(((number, h), h.cards))
    return out


def _remove_card(rnd: Section5Port, place: Place, card: Card) -> None:
    number, hand = place
    if number == 0:
        # Remove the last copy: the dealer's cards are in the order received.
        idx = len(rnd.st.dealer) - 1 - rnd.st.dealer[::-1].index(card)
        del rnd.st.dealer[idx]
        return
    assert hand is not None
    hand.remove_card(card)
    area = rnd.st.areas[number]
    if card in area.dealt:
        area.dealt.remove(card)


def _ruling(rnd: Section5Port, concept: str, ruling: str, text: str, moves: tuple[CardMove, ...] = ()) -> str:
    rule = rnd.st.clause(concept)
    if f"({rule})" not in text:
        text = f"{text} ({rule})"
    rnd.st.rulings.append(Ruling(rnd.st.event_index, rule, ruling, text, moves))
    return rule


def _open_withdrawal(rnd: Section5Port, concept: str) -> None:
    """5.25 (5.22 in Dueling 8's): dissatisfied players may withdraw before more cards."""
    state(rnd).withdraw_rule = rnd.st.clause(concept)


def _player_hands(rnd: Section5Port) -> list[tuple[Area, Hand]]:
    return [(rnd.st.areas[n], h) for n in rnd.st.order for h in rnd.st.areas[n].hands]


# ---------------------------------------------------------------------- hooks
_ALWAYS = (Void, PowerFailure, Withdraw, Correction, Resolve)


def before_event(rnd: Section5Port, ev: Event) -> bool:
    """Run before the table handles ``ev``; True when this module consumed the event."""
    st = state(rnd)
    if st.held and not (isinstance(ev, CardDrawn) and ev.to is not None):
        _rule_held(rnd)
    if isinstance(ev, CardDrawn) and ev.to is None:
        st.snapshot = {id(cards): len(cards) for _, cards in _containers(rnd)}
    exp = pending_expectation(rnd)
    if exp is not None and exp.kind == "decision" and not st.held and not isinstance(ev, _ALWAYS):
        allowed = False
        if isinstance(ev, Pick):
            allowed = "pick" in exp.options
        elif isinstance(ev, Decision):
            allowed = ev.action in exp.options and ev.action != "pick"
        if not allowed:
            raise RuleRefusal(
                f"waiting for {exp.player or 'the dealer'} to choose "
                f"{' or '.join(exp.options)} on {exp.target or 'the hand'} first",
                exp.rule,
            )
    if isinstance(ev, CardDrawn | Multi) and not (isinstance(ev, CardDrawn) and rnd.st.phase == "settled"):
        st.withdraw_rule = None  # further cards dealt: the 5.25 / 5.29.1 window is closed
    if st.dealer_redraw and isinstance(ev, CardDrawn) and ev.to is None:
        return _dealer_redraw_card(rnd, ev.card)
    return False


def after_event(rnd: Section5Port, ev: Event) -> None:
    """Run after the table handled ``ev``: record where a card went, feed waiting cards."""
    st = state(rnd)
    if isinstance(ev, CardDrawn) and ev.to is None and rnd.st.event_index not in st.placed:
        for place, cards in _containers(rnd):
            if len(cards) == st.snapshot.get(id(cards), 0) + 1 and cards and cards[-1] == ev.card:
                st.placed[rnd.st.event_index] = place
                break
        st.snapshot = {}
    _feed(rnd)


def _feed(rnd: Section5Port) -> None:
    """Deal cards taken back (5.17) or drawn together (5.23) where the deal now wants a card."""
    st = state(rnd)
    if st.offered is not None and rnd.st.current_hand() is None and rnd.st.phase in ("play", "dealer"):
        # A card offered under 5.8 with no player hand left to take it (withdrawals): 5.10.
        index, card = st.offered
        st.offered = None
        target = rnd.expected_card_target()
        if target is not None and target[0] == 0:
            _ruling(rnd, "card_refused_all", "moved", f"{card}: no player takes it; it is the dealer's "
                    "next card", (CardMove(card, "shoe", "dealer"),))
            st.placed[index] = DEALER
            rnd.deliver(card, target)
        else:
            _ruling(rnd, "card_refused_all", "discarded", f"{card}: no player takes it and the dealer "
                    "draws no card: it is discarded", (CardMove(card, "shoe", "discard"),))
    while (st.undisclosed or st.pool) and rnd.st.phase in ("initial", "play", "dealer"):
        target = rnd.expected_card_target()
        if target is None:
            break
        if st.undisclosed:
            rnd.deliver(st.undisclosed.pop(0), target)
            continue
        if len(st.pool) == 1 and st.pool_mode == "none":
            rnd.deliver(st.pool.pop(), target)
            continue
        break
    if st.pool and st.pool_mode == "several" and rnd.st.phase in ("play", "dealer"):
        if rnd.st.current_hand() is None:
            # 5.23.3.1: nobody left to offer them to: the cards are burned.
            cards, st.pool = st.pool, []
            _ruling(rnd, "multi.offered_on", "burned",
                    "no player is left to take the cards drawn together: they are burned",
                    tuple(CardMove(c, "shoe", "discard") for c in cards))
    if not st.pool:
        st.pool_mode = ""
        st.pool_owner = None


# ---------------------------------------------------------------------- expectation
def pending_expectation(rnd: Section5Port) -> Expectation | None:
    """A choice a ruling has left open, which the round waits for before anything else."""
    st = rnd.st.irregular
    if st is None or rnd.st.phase not in ("initial", "offers", "play", "dealer"):
        return None
    if st.held and st.offered is None:  # a card on offer (5.8) is answered first
        cur = rnd.st.current_hand()
        if cur is not None:
            # 5.17 / 5.18 are ruled at the next event that is not another card dealt on.
            area, hand = cur
            return Expectation(
                "decision", target=_place_text(rnd, (area.number, hand)), area=area.number,
                hand=area.hands.index(hand) + 1, player=area.controller, options=rnd.options(area, hand),
                rule=rnd.st.clause("skipped.undisclosed"),
                text=f"area {area.number} was skipped: cards went to later hands",
                extra={"out_of_turn": [{"card": str(c), "at": str(t)} for _, c, t in st.held]},
            )
    if st.dealer_redraw:
        target = rnd.expected_card_target()
        if target is None or target[0] == 0 or not rnd.st.areas[target[0]].hands[target[1]].awaiting:
            return Expectation(
                "card", target="dealer", rule=rnd.st.clause("dealer_no_card.draw"),
                text="the dealer draws the missing card; the player in turn may first complete the hand",
                extra={"rule": rnd.st.clause("dealer_no_card.draw")},
            )
    if st.offered is not None:
        cur = rnd.st.current_hand()
        if cur is not None:
            area, hand = cur
            return Expectation(
                "decision", target=_place_text(rnd, (area.number, hand)), area=area.number,
                hand=area.hands.index(hand) + 1, player=area.controller, options=("accept", "refuse"),
                rule=rnd.st.clause("card_in_error"),
                text=f"{st.offered[1]} was dealt in error: accept it as the next card or refuse it",
                extra={"card": str(st.offered[1])} if not st.held else {
                    "card": str(st.offered[1]),
                    "out_of_turn": [{"card": str(c), "at": str(t)} for _, c, t in st.held],
                },
            )
    for number in st.one_card:
        area = rnd.st.areas[number]
        return Expectation(
            "decision", target=f"area:{number}/1", area=number, hand=1, player=area.controller,
            options=("act", "withdraw"), rule=rnd.st.clause("one_card.option"),
            text="only one card on the initial deal: act on the hand in turn or withdraw the wager",
        )
    if st.pool:
        target = rnd.expected_card_target()
        if target is not None and (len(st.pool) > 1 or st.pool_mode != "none"):
            place = _target_place(rnd, target)
            if target[0] == 0:
                concept = "multi.dealer_both" if st.pool_mode == "dealer_both" else "multi.dealer_none"
                return Expectation(
                    "decision", target="dealer", player="pit_manager", options=("pick",),
                    rule=rnd.st.clause(concept), text="the pit manager picks the dealer's card",
                    extra={"cards": [str(c) for c in st.pool], "by": "pit_manager"},
                )
            area = rnd.st.areas[target[0]]
            return _player_pick(rnd, area, place, ("pick",))
        if target is None and st.pool_mode == "several":
            cur = rnd.st.current_hand()
            if cur is not None and (cur[0].number, cur[1]) != st.pool_owner:
                return _player_pick(rnd, cur[0], (cur[0].number, cur[1]), ("pick", "refuse"))
    return None


def pick_unseen(rnd: Section5Port) -> bool:
    """Cards drawn together wait for a pick and none of their faces was disclosed (5.23: the
    pick is blind, the screen shows no face); disclosed ones (several, or both the dealer's)
    are chosen seen."""
    st = rnd.st.irregular
    return st is not None and bool(st.pool) and st.pool_mode not in ("several", "dealer_both")


def _player_pick(rnd: Section5Port, area: Area, place: Place, options: tuple[str, ...]) -> Expectation:
    st = state(rnd)
    concept = "multi.several_disclosed" if st.pool_mode == "several" else "multi.none_disclosed"
    if "refuse" in options:
        concept = "multi.offered_on"
    hand = place[1]
    assert hand is not None
    return Expectation(
        "decision", target=_place_text(rnd, place), area=area.number, hand=area.hands.index(hand) + 1,
        player=area.controller, options=options, rule=rnd.st.clause(concept),
        text="cards drawn together: the player picks the card to receive",
        extra={"cards": [str(c) for c in st.pool], "by": "player"},
    )


# ---------------------------------------------------------------------- a card placed elsewhere
def misplaced_card(rnd: Section5Port, ev: CardDrawn) -> None:
    """A ``card`` event with ``to``: the dealer put the card somewhere the deal did not expect."""
    to = ev.to
    assert to is not None
    _check_target(rnd, to)
    st = state(rnd)
    card = ev.card
    if rnd.st.phase == "settled":
        _after_outcome(rnd, card, to)
        return
    if rnd.st.phase not in ("initial", "offers", "play", "dealer"):
        raise rnd.st.refuse("no card is dealt now (bets are not closed)", "deal_order")
    if st.undisclosed or st.pool:
        raise RuleRefusal("the cards taken back or drawn together are dealt before the shoe's next card",
                          rnd.st.clause("multi"))
    target = rnd.expected_card_target()
    if target is None and rnd.st.phase == "offers" and rnd.st.current_hand() is None:
        rnd.close_offers()  # as for a card without ``to``: nobody has a decision to make
        target = rnd.expected_card_target()
    if not rnd.check_shoe(card):
        return  # 5.1: the round is void
    dest = _place_of_target(rnd, to)
    if target is not None:
        place = _target_place(rnd, target)
        if dest == place and to.kind != "discard":
            _deliver(rnd, card, target)  # it went where the deal expected
            return
        if rnd.st.interim_done and to.kind == "area" and to.area not in rnd.st.order:
            # 5.15: a card on an area with no wager is discarded; the hand still waits for its card.
            _ruling(rnd, "no_wager_cards.discard", "discarded",
                    f"{card} was dealt to area {to.area}, which has no wager: it is discarded and "
                    "play continues", (CardMove(card, str(to), "discard"),))
            _open_withdrawal(rnd, "withdraw_after_ruling")
            return
        concept = _reconstruct_concept(rnd, target)
        _ruling(rnd, concept, "reconstructed",
                f"{card} belongs to {_h(_place_text(rnd, place))} in the order the shoe dealt it: "
                f"move it there from {_h(to)}", (CardMove(card, str(to), _place_text(rnd, place)),))
        _deliver(rnd, card, target)
        return
    cur = rnd.st.current_hand()
    if cur is None:
        _refer(rnd, f"{card} was dealt to {_h(to)} when no card and no decision was due")
        return
    if not rnd.st.interim_done:
        # 5.6.1: before the subsequent deal, the card is put back in shoe order: it is the next card.
        st.undisclosed.append(card)
        _ruling(rnd, "misdeal.reconstruct", "reconstructed",
                f"{card} was dealt to {_h(to)} before the subsequent deal: it is taken back and is the "
                "next card dealt", (CardMove(card, str(to), "shoe"),))
        return
    area, hand = cur
    if to.kind == "area" and to.area not in rnd.st.order:
        _ruling(rnd, "no_wager_cards.discard", "discarded",
                f"{card} was dealt to area {to.area}, which has no wager: it is discarded and play "
                "continues", (CardMove(card, str(to), "discard"),))
        _open_withdrawal(rnd, "withdraw_after_ruling")
        return
    if dest is not None and dest[0] != 0 and _later_than(rnd, dest, (area.number, hand)):
        # The hand in turn was passed over (DESIGN.md "Passed-over player").
        held_areas = {t.area for _, _, t in st.held}
        if st.held and to.area not in held_areas:
            # A second area got a card: 5.18 is certain, ruled at once (the passed-over hand
            # has stood; play goes on from the last area that got a card).
            st.held.append((rnd.st.event_index, card, to))
            _rule_held(rnd)
            return
        if st.held or dest == _next_in_play(rnd, (area.number, hand)):
            # Cards on the next hand in play: held until the next event that is not a card,
            # then 5.17 (taken back undisclosed) unless a second area gets a card first.
            st.held.append((rnd.st.event_index, card, to))
            return
        # A single stray card on a later hand that is not the next in play: a card dealt in
        # error (5.8), offered to the hand in turn, then down the table.
    if to.kind == "dealer" and rnd.st.dealer_stands() and len(rnd.st.dealer) >= 2:
        _dealer_completed(rnd, card, to)
        return
    _offer(rnd, rnd.st.event_index, card, str(to))


def _deliver(rnd: Section5Port, card: Card, target: tuple[int, int]) -> None:
    state(rnd).placed[rnd.st.event_index] = _target_place(rnd, target)
    rnd.deliver(card, target)


def _reconstruct_concept(rnd: Section5Port, target: tuple[int, int]) -> str:
    if rnd.st.phase != "initial":
        return "misdeal.after_interim" if rnd.st.interim_done else "misdeal.reconstruct"
    if target[0] == 0 and rnd.st.rules.has("dealer_no_card.reconstruct"):
        return "dealer_no_card.reconstruct"  # 5.11: the dealer's card went elsewhere
    if target[0] != 0:
        return "one_card.reconstruct"  # 5.13 (5.11 in Dueling 8's): a player's card went elsewhere
    return "misdeal.reconstruct"


def _can_act(area: Area, hand: Hand) -> bool:
    """A hand that can still act: not done (blackjack, 21, bust, surrendered, stood)."""
    return not hand.done and not hand.busted and not hand.settled.issuperset(hand.stakes)


def _next_in_play(rnd: Section5Port, after: Place) -> Place | None:
    """The next hand in play after ``after``: hands that can no longer act are skipped."""
    found = False
    for n in rnd.st.order:
        area = rnd.st.areas[n]
        for h in area.hands:
            if found and _can_act(area, h):
                return (n, h)
            if (n, h) == after:
                found = True
    return None


def _later_than(rnd: Section5Port, a: Place, b: Place) -> bool:
    order = [(n, h) for n in rnd.st.order for h in rnd.st.areas[n].hands]
    return a in order and b in order and order.index(a) > order.index(b)


def _dealer_completed(rnd: Section5Port, card: Card, to: Target) -> None:
    """5.7: a card dealt to the dealer's completed hand is discarded; the outcome stands."""
    total, soft = rnd.st.dealer_value()
    if to.kind != "dealer" or not rnd.st.dealer_stands():
        raise rnd.st.refuse("the round is settled; no further events", "round_of_play")
    if not rnd.check_shoe(card):
        return
    kind = "soft" if soft else "hard"
    _ruling(rnd, "dealer_completed", "discarded",
            f"{card} was dealt to the dealer's completed hand of {kind} {total}: it is discarded and "
            "the outcome stands", (CardMove(card, "dealer", "discard"),))


def _after_outcome(rnd: Section5Port, card: Card, to: Target) -> None:
    """A card out of the shoe once the outcome is announced (the round concluded, 1.1.12):
    on the dealer's completed hand 5.7 as above; in the discard holder (or on the dealer's
    hand that drew no more, 3.35) it is removed from play likewise and the outcome stands.
    Counted for 5.1 either way. A player's hand takes no card now."""
    if to.kind == "dealer" and rnd.st.dealer_stands():
        _dealer_completed(rnd, card, to)
        return
    rule = rnd.st.clause("dealer_completed")
    if to.kind not in ("dealer", "discard"):
        raise RuleRefusal(f"the round is settled: {_h(to)} takes no card now; a card out of the shoe goes "
                          "to the discard holder", rule)
    if not rnd.check_shoe(card):
        return
    where = "" if to.kind == "discard" else " on the dealer's hand"
    _ruling(rnd, "dealer_completed", "discarded",
            f"{card} came out after the outcome{where}: it is removed from play and placed in the discard "
            "holder; the outcome stands",
            (CardMove(card, "shoe" if to.kind == "discard" else "dealer", "discard"),))


def after_outcome_text(rnd: Section5Port) -> str:
    """Why a card out of the shoe after the outcome fits no hand, and what the rules do with
    it (the dealer's screen shows this with its one place, the discard holder); the clause
    is the refusal's (``dealer_completed``)."""
    return ("the round is settled: a card out of the shoe now is removed from play and placed in the "
            "discard holder, the outcome stands")


# ---------------------------------------------------------------------- 5.8 - 5.10
def _offer(rnd: Section5Port, index: int, card: Card, source: str) -> None:
    """5.8: a card dealt in error goes to the hand in turn as though it were the next card."""
    st = state(rnd)
    cur = rnd.st.current_hand()
    assert cur is not None
    area, hand = cur
    place = _place_text(rnd, (area.number, hand))
    moves = (CardMove(card, source, place),) if source != place else ()
    st.offered = (index, card)
    _ruling(rnd, "card_in_error", "offered",
            f"{card} was dealt in error: it is offered to {_h(place)} as the next card", moves)
    if area.controller in st.refused_players:
        _refuse_offer(rnd, area, hand)


def irregular_decision(rnd: Section5Port, ev: Decision) -> None:
    """accept / refuse (5.8-5.10, 5.23.3.1), act (5.16.1)."""
    st = state(rnd)
    if ev.action == "act":
        if ev.area is None or ev.area not in st.one_card:
            raise RuleRefusal("no player holds a one-card choice on that area now",
                              rnd.st.clause("one_card.act") if rnd.st.rules.has("one_card.act") else None)
        area = rnd.st.areas[ev.area]
        _check_player(rnd, area, ev)
        st.one_card.remove(ev.area)
        _ruling(rnd, "one_card.act", "act", f"area {ev.area} acts on its one card in turn")
        return
    if ev.action == "refuse" and st.pool and st.pool_mode == "several":
        exp = pending_expectation(rnd)
        if exp is None or "refuse" not in exp.options or exp.area != ev.area:
            raise RuleRefusal("no cards are offered to that hand now", rnd.st.clause("multi.offered_on"))
        cur = rnd.st.current_hand()
        assert cur is not None
        _check_player(rnd, cur[0], ev)
        cards, st.pool = st.pool, []
        st.pool_mode, st.pool_owner = "", None
        cur[1].done = True
        cur[1].stood_by_rule = rnd.st.clause("refuse_stands")
        _ruling(rnd, "multi.offered_on", "burned",
                f"area {cur[0].number} declines the cards drawn together: they are burned and the "
                f"player stands ({rnd.st.clause('refuse_stands')})",
                tuple(CardMove(c, "shoe", "discard") for c in cards))
        rnd.advance()
        return
    cur = rnd.st.current_hand()
    if st.offered is None or cur is None:
        raise RuleRefusal(f"{ev.action}: no card is offered under {rnd.st.clause('card_in_error')} now",
                          rnd.st.clause("card_in_error"))
    area, hand = cur
    if ev.area != area.number or (ev.hand or 1) != area.hands.index(hand) + 1:
        raise RuleRefusal(f"the card is offered to area {area.number} hand {area.hands.index(hand) + 1}",
                          rnd.st.clause("card_in_error"))
    _check_player(rnd, area, ev)
    if rnd.st.offers_open:
        rnd.close_offers()
    if ev.action == "accept":
        index, card = st.offered
        st.offered = None
        st.placed[index] = (area.number, hand)
        rnd.place_card(area, hand, card, True)
        return
    _refuse_offer(rnd, area, hand)


def _refuse_offer(rnd: Section5Port, area: Area, hand: Hand) -> None:
    """5.9/5.24: the player stands and takes no more cards; the card goes on (5.10: the dealer)."""
    st = state(rnd)
    assert st.offered is not None
    index, card = st.offered
    place = _place_text(rnd, (area.number, hand))
    hand.done = True
    hand.stood_by_rule = rnd.st.clause("card_refused")
    if area.controller is not None:
        st.refused_players.add(area.controller)
    _ruling(rnd, "card_refused", "refused",
            f"area {area.number} refuses {card}: the player is deemed to stand "
            f"({rnd.st.clause('refuse_stands')}) and receives no more cards this round "
            f"({rnd.st.clause('card_refused')})")
    rnd.advance()
    target = rnd.expected_card_target()
    cur = rnd.st.current_hand()
    if target is not None:
        new_place = _target_place(rnd, target)
        st.offered = None
        concept = "card_refused_all" if target[0] == 0 else "card_in_error"
        what = "refused by every player, it is the dealer's next card" if target[0] == 0 else \
            "it is the next card"
        _ruling(rnd, concept, "moved", f"{card}: {what}",
                (CardMove(card, place, _place_text(rnd, new_place)),))
        st.placed[index] = new_place
        rnd.deliver(card, target)
        return
    if cur is not None:
        _ruling(rnd, "card_in_error", "offered",
                f"{card} is offered to {_h(_place_text(rnd, (cur[0].number, cur[1])))} as the next card",
                (CardMove(card, place, _place_text(rnd, (cur[0].number, cur[1]))),))
        if cur[0].controller in st.refused_players:
            _refuse_offer(rnd, cur[0], cur[1])
        return
    st.offered = None
    _ruling(rnd, "card_refused_all", "discarded",
            f"{card} was refused and the dealer draws no card: it is discarded",
            (CardMove(card, place, "discard"),))


def _check_player(rnd: Section5Port, area: Area, ev: Decision) -> None:
    player = ev.player or area.controller
    if player != area.controller:
        raise RuleRefusal(f"{player} does not control area {area.number}; {area.controller} decides",
                          rnd.st.clause("control_seated"))


# ---------------------------------------------------------------------- 5.17 / 5.18
def _rule_held(rnd: Section5Port) -> None:
    """The hand in turn was skipped and cards went to later hands."""
    st = state(rnd)
    held, st.held = st.held, []
    cur = rnd.st.current_hand()
    assert cur is not None
    area, hand = cur
    skipped = f"area {area.number}"
    order = _player_hands(rnd)
    pos = order.index((area, hand))
    places = [_place_of_target(rnd, t) for _, _, t in held]
    areas = {p[0] for p in places if p is not None}
    nxt = _next_in_play(rnd, (area.number, hand))
    if len(areas) == 1 and nxt is not None and all(p == nxt for p in places):
        # 5.17: only the next hand was acted upon: its cards are taken back, undisclosed.
        st.undisclosed.extend(c for _, c, _ in held)
        _ruling(rnd, "skipped.undisclosed", "undisclosed",
                f"{skipped} was not given the chance to draw: the cards dealt to the next hand are "
                "taken back and dealt as the next cards",
                tuple(CardMove(c, str(t), "shoe") for _, c, t in held))
        return
    # Cards are held only on the next hand in play (misplaced_card); a second area's card
    # brings the ruling below at once.
    # 5.18: more than one area received cards: the skipped player is deemed to have stood.
    hand.done = True
    hand.stood_by_rule = rnd.st.clause("skipped.stood")
    keys: list[Place] = [(a.number, h) for a, h in order]
    last = max((p for p in places if p is not None), key=keys.index)
    for (index, card, _), place in zip(held, places, strict=True):
        assert place is not None
        st.placed[index] = place
        n, h = place
        assert h is not None
        rnd.place_card(rnd.st.areas[n], h, card, False)
    for _, h in order[pos + 1:keys.index(last)]:
        h.done = True  # the dealer moved past these hands
    _ruling(rnd, "skipped.stood", "continued",
            f"cards went to more than one area after {skipped}: the player there is deemed to have "
            "stood and play continues")
    rnd.advance()


# ---------------------------------------------------------------------- other events
def supervisor_void(rnd: Section5Port, ev: Void) -> None:
    # 5.1, 5.2; and 6.1: the Gaming Shift Manager's decision on a round referred to them
    allowed = {rnd.st.clause("void.foreign_card"), rnd.st.clause("void.cannot_reconstruct"), rnd.st.clause("refer")}
    rule = ev.rule or rnd.st.clause("void.foreign_card")
    if rule not in allowed:
        raise rnd.st.refuse(f"a supervisor voids a round under {' or '.join(sorted(allowed))}, not {rule}",
                            "void.foreign_card")
    if rnd.st.phase in ("betting", "settled"):
        raise rnd.st.refuse("only a round in play may be voided", "void.foreign_card")  # "in the course of a round"
    rnd.void(rule, ev.reason or "voided by the supervisor")


def correction(rnd: Section5Port, ev: Correction) -> None:
    target_ev = card_event_at(rnd.st.events, ev.index)
    _check_target(rnd, ev.to)
    if rnd.st.phase not in ("initial", "offers", "play", "dealer", "settled"):
        raise rnd.st.refuse("the round is not in play", "misdeal")
    card = target_ev.card
    place = _current_place(rnd, ev.index, card)
    if place is None:
        raise rnd.st.refuse(f"{card} of event {ev.index} is no longer on the layout", "misdeal")
    here = _place_text(rnd, place)
    there = str(ev.to)
    if here == there:
        raise rnd.st.refuse(f"{card} already lies at {_h(here)}", "misdeal")
    if not rnd.st.interim_done:
        # 5.6.1 / 5.11 / 5.13: the layout in shoe order is the reconstruction; the card goes back.
        concept = "misdeal.reconstruct"
        if rnd.st.phase == "initial" or rnd.st.phase == "offers":
            concept = (
                "dealer_no_card.reconstruct" if place[0] == 0 and rnd.st.rules.has("dealer_no_card.reconstruct")
                else "one_card.reconstruct" if place[0] != 0 else "misdeal.reconstruct"
            )
        _ruling(rnd, concept, "reconstructed",
                f"{card} lies at {_h(there)} but belongs to {_h(here)} in the order the shoe dealt it: "
                "move it back", (CardMove(card, there, here),))
        return
    if ev.to.kind == "discard" or (ev.to.kind == "area" and ev.to.area not in rnd.st.order):
        _lost_card(rnd, place, card, ev.to)
        return
    _ruling(rnd, "misdeal.after_interim", "reconstructed",
            f"{card} lies at {_h(there)} but belongs to {_h(here)}: move it back", (CardMove(card, there, here),))


def _lost_card(rnd: Section5Port, place: Place, card: Card, to: Target) -> None:
    """After the interim settlement a card lies on an area with no wager or in the discards."""
    here = _place_text(rnd, place)
    st = state(rnd)
    moves = (CardMove(card, str(to), "discard"),) if to.kind != "discard" else ()
    if to.kind == "area":
        _ruling(rnd, "no_wager_cards.discard", "discarded",
                f"{card} lies on area {to.area}, which has no wager: it is discarded and play "
                "continues", moves)
        _open_withdrawal(rnd, "withdraw_after_ruling")
    number, hand = place
    if number == 0:
        if len(rnd.st.dealer) != 1 or not rnd.st.rules.has("dealer_no_card.draw"):
            _refer(rnd, f"{card} of the dealer's hand lies at {_h(to)}")
            return
        _remove_card(rnd, place, card)
        st.dealer_redraw = True
        _ruling(rnd, "dealer_no_card.draw", "dealer_draws",
                "the dealer received no card on the initial deal: the dealer draws a card (the player "
                f"in turn may first complete the hand, {rnd.st.clause('dealer_no_card.complete_hand')}); "
                f"then surrender and insurance are offered ({rnd.st.clause('dealer_no_card.offers')})")
        _open_withdrawal(rnd, "withdraw_after_ruling")
        return
    assert hand is not None
    area = rnd.st.areas[number]
    own = [c for c in hand.cards]
    if rnd.st.rules.permanent_eight and hand is area.hands[0]:
        own = own[1:]
    initial = 1 if rnd.st.rules.permanent_eight else 2  # cards an area receives in the initial deal
    if hand is not area.hands[0] or len(area.hands) > 1 or len(own) > initial or hand.settled or hand.done:
        # The hand was already played on (a card drawn, a decision made): no clause covers it.
        _refer(rnd, f"{card} of {_h(here)} lies at {_h(to)} after the hand was played on")
        return
    _remove_card(rnd, place, card)
    if len(own) == 2 and rnd.st.rules.has("one_card.option"):
        st.one_card.append(number)
        _ruling(rnd, "one_card.option", "one_card",
                f"area {number} received only one card on the initial deal: the player may act on it "
                f"in turn ({rnd.st.clause('one_card.act')}) or withdraw the wager and the card is "
                f"discarded ({rnd.st.clause('one_card.withdraw')})")
        _open_withdrawal(rnd, "withdraw_after_ruling")
        return
    if len(own) == 1:
        # 5.14 (5.12 in Dueling 8's): the area received no card: its wager is returned.
        if number in st.one_card:
            st.one_card.remove(number)
        undone = _return_area(rnd, area, rnd.st.clause("no_cards.returned"))
        text = f"area {number} received no card on the initial deal: its wagers are returned"
        if undone:
            text += (f", {' and '.join(undone)} too, though settled at the interim on cards that were not"
                     " the area's: a payout is taken back, a lost stake given back")
        _ruling(rnd, "no_cards.returned", "returned", text)
        rnd.advance()
        return
    _refer(rnd, f"{card} of {_h(here)} lies at {_h(to)}")


def _return_area(rnd: Section5Port, area: Area, rule: str) -> list[str]:
    """Every wager of an area that received no cards is returned (5.14; 5.12 in Dueling 8's).

    A side bet already settled at the interim was decided on cards that lay elsewhere (the
    area was dealt none: 3.15.1 and its like need the Player's own first two cards): its
    settlement is taken out and it is returned with the rest. Gives the side bets so undone."""
    undone: list[str] = []
    for hand in area.hands:
        for player, stake in hand.stakes.items():
            if player in hand.settled or player in area.surrendered:
                continue
            hand.settled.add(player)
            rnd.st.record_entry(player, "main", stake, "returned", ZERO, rule, area=area.number,
                       hand=area.hands.index(hand) + 1)
        hand.done = True
    for side in area.sides:
        stake = side.placed
        if side.settled:
            entries = rnd.st.settlements
            done = [s for s in entries if s.player == side.player and s.bet == side.bet
                    and s.area == area.number and s.result != "returned"]
            if not done:
                continue  # returned already (5.26)
            entries[:] = [s for s in entries if s not in done]
            stake = sum((s.stake for s in done), ZERO)  # 5.27's excess was returned already
            undone.append(f"{side.player}'s {rnd.st.rules.bet_name(side.bet)}")
        side.settled = True
        rnd.st.record_entry(side.player, side.bet, stake, "returned", ZERO, rule, area=area.number)
    # the area's insurance wagers go with it: its players' own and those claimed on it (3.27.3)
    for player, amount in area.insurance_wagers():
        rnd.st.record_entry(player, "insurance", amount, "returned", ZERO, rule, area=area.number)
    area.insured = {}
    area.claimed_insurance = []
    return undone


def _dealer_redraw_card(rnd: Section5Port, card: Card) -> bool:
    """5.12: the dealer's card, unless the player in turn is completing their hand (5.12.1)."""
    target = rnd.expected_card_target()
    if target is not None and target[0] != 0 and rnd.st.phase == "play":
        if rnd.st.areas[target[0]].hands[target[1]].awaiting:
            return False  # 5.12.1: the player in turn completes the hand first
    if not rnd.check_shoe(card):
        return True
    st = state(rnd)
    st.dealer_redraw = False
    st.placed[rnd.st.event_index] = DEALER
    rnd.st.dealer.append(card)
    rnd.reopen_offers()  # 5.12.2: surrender and insurance are offered once the dealer has the card
    return True


# ---------------------------------------------------------------------- 5.23
def multi(rnd: Section5Port, ev: Multi) -> None:
    st = state(rnd)
    if rnd.st.phase not in ("initial", "offers", "play", "dealer"):
        raise rnd.st.refuse("no card is dealt now", "deal_order")
    if st.pool or st.undisclosed:
        raise RuleRefusal("cards drawn together earlier are dealt first", rnd.st.clause("multi"))
    rest = list(ev.cards)
    for c in ev.disclosed:
        if c not in rest:
            raise EventFormatError(f"multi: disclosed card {c} is not among the cards drawn")
        rest.remove(c)
    target = rnd.expected_card_target()
    if target is None and rnd.st.phase == "offers" and rnd.st.current_hand() is None:
        rnd.close_offers()
        target = rnd.expected_card_target()
    if target is None:
        raise RuleRefusal("no card is expected now: the cards drawn together have no hand to go to",
                          rnd.st.clause("multi"))
    for c in ev.cards:
        if not rnd.check_shoe(c):
            return  # 5.1
    if ev.order_known:
        st.undisclosed.extend(ev.cards)  # the order is known: they are simply the next cards
        return
    dealer = target[0] == 0
    disclosed = list(ev.disclosed)
    place = _place_text(rnd, _target_place(rnd, target))
    if len(disclosed) == 1:
        concept = "multi.dealer_one" if dealer else "multi.one_disclosed"
        _ruling(rnd, concept, "dealt",
                f"{disclosed[0]} was seen: it is the next card, to {_h(place)}; the others follow as the "
                "next cards", (CardMove(disclosed[0], "shoe", place),))
        st.pool, st.pool_mode = rest, "none"
        _deliver(rnd, disclosed[0], target)
    elif not disclosed:
        concept = "multi.dealer_none" if dealer else "multi.none_disclosed"
        who = "the pit manager picks the dealer's card" if dealer else \
            "the player in turn picks the card to receive"
        _ruling(rnd, concept, "pick", f"{len(ev.cards)} cards came out together unseen: {who}")
        st.pool, st.pool_mode = list(ev.cards), "none"
    else:
        concept = "multi.dealer_both" if dealer else "multi.several_disclosed"
        who = ("the pit manager gives the dealer the card most detrimental to the dealer's hand; "
               "the other is discarded") if dealer else \
            "the player in turn picks; the others are offered to the next player, or burned"
        _ruling(rnd, concept, "pick", f"{len(ev.cards)} cards came out together, seen: {who}")
        st.pool, st.pool_mode = list(ev.cards), "dealer_both" if dealer else "several"
    _open_withdrawal(rnd, "withdraw_after_ruling")


def pick(rnd: Section5Port, ev: Pick) -> None:
    st = state(rnd)
    exp = pending_expectation(rnd)
    if not st.pool or exp is None or "pick" not in exp.options:
        raise RuleRefusal("no cards drawn together wait for a choice", rnd.st.clause("multi"))
    if ev.card not in st.pool:
        raise RuleRefusal(f"{ev.card} is not one of {', '.join(str(c) for c in st.pool)}",
                          exp.rule)
    if exp.player == "pit_manager":
        if ev.by != "pit_manager":
            raise RuleRefusal("the pit manager picks the dealer's card", exp.rule)
    elif ev.by != "player" or (ev.player is not None and ev.player != exp.player):
        raise RuleRefusal(f"{exp.player} picks the card for {exp.target}", exp.rule)
    target = rnd.expected_card_target()
    st.pool.remove(ev.card)
    if target is None:
        # A several-disclosed pool offered on: picking is taking the card as the next card.
        cur = rnd.st.current_hand()
        assert cur is not None
        if rnd.st.offers_open:
            rnd.close_offers()
        cur[1].awaiting = True
        target = (cur[0].number, cur[0].hands.index(cur[1]))
    place = _target_place(rnd, target)
    moves = [CardMove(ev.card, "shoe", _place_text(rnd, place))]
    if st.pool_mode == "dealer_both":
        moves += [CardMove(c, "shoe", "discard") for c in st.pool]  # 5.23.4.6
        st.pool = []
    elif st.pool_mode == "several":
        st.pool_owner = place
    _ruling(rnd, "multi", "picked", f"{ev.card} goes to {_h(_place_text(rnd, place))}", tuple(moves))
    _deliver(rnd, ev.card, target)


# ---------------------------------------------------------------------- withdrawals, power failure
def withdraw(rnd: Section5Port, ev: Withdraw) -> None:
    st = state(rnd)
    if ev.area is not None and ev.area in st.one_card:
        area = rnd.st.areas[ev.area]
        if area.wager_of(ev.player) is None:
            raise rnd.st.refuse(f"{ev.player} has no wager on area {ev.area}", "one_card.withdraw")
        st.one_card.remove(ev.area)
        hand = area.hands[0]
        moves = tuple(CardMove(c, f"area:{ev.area}/1", "discard") for c in hand.cards
                      if not (rnd.st.rules.permanent_eight and c is hand.cards[0]))
        rule = rnd.st.clause("one_card.withdraw")
        _withdraw_player(rnd, ev.player, rule, only_area=ev.area)
        if not any(p not in hand.settled for p in hand.stakes):
            hand.keep_first(1 if rnd.st.rules.permanent_eight else 0)  # the card is discarded
        _ruling(rnd, "one_card.withdraw", "withdrawn",
                f"{ev.player} withdraws the wager on area {ev.area}; the card is discarded", moves)
        rnd.advance()
        return
    if st.withdraw_rule is None:
        raise RuleRefusal(
            "no wager may be withdrawn after \"no more bets\" except after a ruling that allows it",
            rnd.st.clause("no_withdraw"),
        )
    if not any(a.wager_of(ev.player) or any(s.player == ev.player for s in a.sides)
               for a in rnd.st.areas.values()):
        raise RuleRefusal(f"{ev.player} has no wager in this round", st.withdraw_rule)
    rule = st.withdraw_rule
    if ev.area is not None:
        raise RuleRefusal(f"a player withdrawing under {rule} withdraws all of their wagers", rule)
    _withdraw_player(rnd, ev.player, rule, only_area=None)
    rnd.st.rulings.append(Ruling(rnd.st.event_index, rule, "withdrawn",
                              f"{ev.player} withdraws all remaining wagers; wagers already lost stay "
                              f"lost ({rule})"))
    _skip_emptied_areas(rnd)
    if _nothing_in_play(rnd):
        rnd.st.enter("settled")  # every wager withdrawn or decided: the round is concluded (5.29.1)
        return
    if rnd.st.phase == "play":
        rnd.advance()
    if rnd.st.phase == "dealer":
        rnd.dealer_step()


def _nothing_in_play(rnd: Section5Port) -> bool:
    """No stake, side bet or insurance is left to settle."""
    for number in rnd.st.order:
        area = rnd.st.areas[number]
        if area.insured or any(not s.settled for s in area.sides):
            return False
        if any(p not in h.settled for h in area.hands for p in h.stakes):
            return False
    return True


def _skip_emptied_areas(rnd: Section5Port) -> None:
    """During the initial deal an area whose every wager was withdrawn gets no more cards."""
    if rnd.st.phase != "initial":
        return
    emptied = {n for n in rnd.st.order
               if all(p in rnd.st.areas[n].hands[0].settled for p in rnd.st.areas[n].hands[0].stakes)}
    if not emptied:
        return
    rnd.skip_areas(emptied)


def _withdraw_player(rnd: Section5Port, player: str, rule: str, only_area: int | None) -> None:
    found = False
    for number in rnd.st.order:
        if only_area is not None and number != only_area:
            continue
        area = rnd.st.areas[number]
        for i, hand in enumerate(area.hands, start=1):
            stake = hand.stakes.get(player)
            if stake is None or player in hand.settled or player in area.surrendered:
                continue
            found = True
            hand.settled.add(player)
            rnd.st.record_entry(player, "main", stake, "returned", ZERO, rule, area=number, hand=i)
            if all(p in hand.settled for p in hand.stakes):
                hand.done = True
        for side in area.sides:
            if side.player == player and not side.settled:
                found = True
                side.settled = True
                rnd.st.record_entry(player, side.bet, side.placed, "returned", ZERO, rule, area=number)
        if player in area.insured:
            found = True
            rnd.st.record_entry(player, "insurance", area.insured.pop(player), "returned", ZERO, rule, area=number)
        if area.wager_of(player) is not None:
            area.surrendered.add(player)  # no longer in play on this area: control passes on
            if area.controller == player:
                rnd.st.update_controller(area, "control_front")
    if not found:
        raise RuleRefusal(f"{player} has no remaining wager to withdraw", rule)


def power_failure(rnd: Section5Port) -> None:
    """5.29 (5.26 in Dueling 8's): withdraw while no outcome is established, else continue."""
    if rnd.st.phase == "betting":
        raise rnd.st.refuse("bets are still open: wagers may simply be taken back", "power_failure")
    if rnd.st.outcome_established():  # by the cards dealt (DESIGN.md "Power failure")
        _ruling(rnd, "power_failure.continue", "continue",
                "power failure after an outcome was established: play continues and the round is "
                "concluded")
        return
    _ruling(rnd, "power_failure.withdraw", "withdraw_offered",
            "power failure before any outcome: each player may withdraw all of their wagers; the "
            "round is then concluded")
    state(rnd).withdraw_rule = rnd.st.clause("power_failure.withdraw")


# ---------------------------------------------------------------------- 5.21 late burn
def late_burn(rnd: Section5Port, ev: Burn) -> None:
    """The dealer forgot to burn the first card (5.21; 5.18 in Dueling 8's)."""
    first = next((e.card for e in rnd.st.events if isinstance(e, CardDrawn)), None)
    if first is None or ev.card != first:
        raise RuleRefusal(
            f"a burn after the deal began names the first card dealt this round ({first}), not {ev.card}",
            rnd.st.clause("burn.reconstruct"),
        )
    if rnd.st.interim_done:
        _ruling(rnd, "burn.stays", "continue",
                f"the first card {first} should have been burned; the subsequent deal has begun, so "
                "play continues with it in play")
        return
    if rnd.st.phase not in ("initial", "offers"):
        raise RuleRefusal("the round is not in its initial deal", rnd.st.clause("burn.reconstruct"))
    if rnd.st.settlements or any(a.insured or a.surrendered for a in rnd.st.areas.values()):
        # Offers were already taken on the cards as dealt: no clause says what becomes of them.
        _refer(rnd, f"the first card {first} should have been burned, and offers were already "
                    "taken on the cards as dealt")
        return
    # 5.21.1: every card moves one place back along the initial deal; the first is burned.
    queue = rnd.st.initial_queue[:rnd.st.queue_pos]
    base = 1 if rnd.st.rules.permanent_eight else 0
    taken: dict[int, int] = {}
    seq: list[tuple[Card, tuple[int, int]]] = []
    for slot in queue:
        n = slot[0]
        cards = rnd.st.dealer if n == 0 else rnd.st.areas[n].hands[0].cards
        k = taken.get(n, base)
        seq.append((cards[k], slot))
        taken[n] = k + 1
    if not seq:
        _refer(rnd, "the first card was not burned and the deal cannot be laid out again")
        return
    for n in rnd.st.order:
        area = rnd.st.areas[n]
        area.hands[0].keep_first(base)
        area.hands[0].done = False
        area.dealt.clear()
        area.run_open = True
    del rnd.st.dealer[base:]
    rnd.st.restart_initial_deal()
    moves = [CardMove(seq[0][0], _place_text(rnd, _target_place(rnd, seq[0][1])), "discard")]
    for (card, old), (_, new) in zip(seq[1:], seq[:-1], strict=True):
        if old != new:
            moves.append(CardMove(card, _place_text(rnd, _target_place(rnd, old)),
                                  _place_text(rnd, _target_place(rnd, new))))
        rnd.deliver(card, rnd.st.initial_queue[rnd.st.queue_pos])
    _ruling(rnd, "burn.reconstruct", "reconstructed",
            f"the first card {first} should have been burned: it is burned and each later card moves "
            "to the hand that should have received it", tuple(moves))


# ---------------------------------------------------------------------- 6.1
def _refer(rnd: Section5Port, text: str) -> None:
    """6.1: not covered by the rules: the Gaming Shift Manager decides; the round waits."""
    state(rnd).resume_phase = rnd.st.phase
    rnd.st.refer(text)


def resume_after_referral(rnd: Section5Port) -> bool:
    """On ``resolve continue``: resume a round referred from mid-play. False if not such a round."""
    st = rnd.st.irregular
    if st is None or st.resume_phase is None:
        return False
    resume, st.resume_phase = st.resume_phase, None
    rnd.st.enter(resume)
    if rnd.st.phase == "play":
        rnd.advance()
    elif rnd.st.phase == "dealer":
        rnd.dealer_step()
    return True


# ---------------------------------------------------------------------- 5.19 / 5.20: the shoe
def cards_needed(rnd: Round) -> int:
    """The fewest cards the round still needs from the shoe to be completed (5.19)."""
    return rnd.cards_needed()


def shoe_notices(rnd: Round) -> list[tuple[str, str]]:
    """What the dealer should be told about the shoe now: (clause, sentence) pairs.

    5.19 (5.16 in Dueling 8's) before the shoe runs out: too few cards for the rest of the
    round, or only a few more than the fewest the round needs; 5.20 (5.17) once the
    cutting card has come out. Electronic Blackjack has neither clause: nothing is said.
    """
    rules = rnd.rules
    out: list[tuple[str, str]] = []
    if not rules.has("insufficient_cards"):
        return out
    needed = rnd.cards_needed()
    left = rnd.shoe.remaining
    rule = rules.clause("insufficient_cards")
    if needed and left < needed:
        cutter = "the player next to act"
        nxt = rnd.next_to_act()
        if nxt is not None:
            cutter = f"{nxt[1]} (area {nxt[0]}, next to act)"
        out.append((rule, f"{left} cards remain and the round needs at least {needed}: riffle the "
                          f"discards once, have {cutter} cut them, complete the round, "
                          f"then shuffle and cut ({rule})"))
    elif needed and left < needed + 6:
        out.append((rule, f"only {left} cards remain; the round needs at least {needed} ({rule})"))
    if rnd.shoe.cut_card_seen:
        cut = rules.clause("cut_card")
        out.append((cut, f"the cutting card has come out: shuffle when this round is complete ({cut})"))
    return out
