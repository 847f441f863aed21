"""At no moment may ``next`` offer a choice that the round would refuse, and a card the
shoe read is never absent from the record (DESIGN.md,
"Passed-over player"; issue 14).

Random rounds of every game, with the irregular events a real table sees mixed in (cards
put on a random area, the dealer or the discard holder; absent players, terminal
time-outs, power failures). Before every event, each choice the round offers — every
option of the decision it waits for, every open offer, every terminal's options, both
rulings of a referral, a pick among cards drawn together — is applied to a copy of the
round: none may be refused.
"""

from __future__ import annotations

import random
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from dealer_assist.base.cards import Card
from dealer_assist.base.errors import RuleRefusal
from dealer_assist.bench.simulate import (
    Shoe,
    electronic_wagers,
    next_event,
    random_strategy,
    table_wagers,
)
from dealer_assist.engine.events import (
    Absent,
    CardDrawn,
    Decision,
    Event,
    Pick,
    PowerFailure,
    Resolve,
    Target,
    Timeout,
    Withdraw,
)
from dealer_assist.engine.outcome import Expectation
from dealer_assist.engine.round_api import Round
from dealer_assist.engine.transcript import new_round
from dealer_assist.games import GAMES


def offered_choices(exp: Expectation) -> list[Event]:
    """Every event that answers one of the choices ``exp`` offers."""
    out: list[Event] = []
    if exp.kind == "decision":
        for option in exp.options:
            if option == "withdraw":
                assert exp.player is not None
                out.append(Withdraw(exp.player, exp.area))
            elif option == "pick":
                cards = exp.extra["cards"]
                by = exp.extra["by"]
                out.append(Pick(_card(cards[0]), by, None if by == "pit_manager" else exp.player))
            else:
                out.append(Decision(option, exp.area, exp.hand, exp.player))
        for offer in exp.offers:
            for option in offer["options"]:
                out.append(Decision(option, offer["area"], 1, offer["player"]))
    elif exp.kind == "decisions":
        for pending in exp.pending:
            for option in pending["options"]:
                out.append(Decision(option, None, pending["hand"], pending["player"]))
    elif exp.kind == "ruling":
        out += [Resolve("continue", ""), Resolve("void", "")]
    return out


def _card(text: str) -> Card:
    from dealer_assist.base.cards import parse_card

    return parse_card(text)


def _refused(rnd: Round, ev: Event) -> RuleRefusal | None:
    copy = rnd.fresh()
    copy.apply_all(rnd.events)
    try:
        copy.apply(ev)
    except RuleRefusal as refusal:
        return refusal
    return None


def _irregular(rnd: Round, rng: random.Random, shoe: Shoe, players: list[str], electronic: bool) -> Event:
    roll = rng.random()
    if electronic:
        if roll < 0.5:
            return CardDrawn(next(shoe), Target(rng.choice(("player", "dealer"))))
        if roll < 0.8:
            return Timeout(rng.choice(players))
        return PowerFailure()
    if roll < 0.75:
        where = rng.choice(("area", "area", "area", "dealer", "discard"))
        target = Target("area", rng.randint(1, 7), rng.choice((1, 1, 1, 2))) if where == "area" else Target(where)
        return CardDrawn(next(shoe), target)
    if roll < 0.9:
        return Absent(rng.choice(players))
    return PowerFailure()


@settings(max_examples=120, deadline=None)
@given(game=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32))
def test_every_choice_next_offers_is_accepted(game: str, seed: int) -> None:
    rng = random.Random(seed)
    rules = GAMES[game]
    decks = rules.deck_range[1]
    shoe = Shoe(game, decks, seed)
    shoe.round_start()
    electronic = rules.shared_hand
    header: dict[str, object] = {"game": game, "decks": decks, "limits": {"main": [10, 100]}}
    if electronic:
        wagers = electronic_wagers(rng.randint(1, 5), rng.random() < 0.5, rng)
    else:
        header["areas"] = 7
        wagers = table_wagers(game, rng.randint(2, 7), rng.randint(1, 2), rng.random() < 0.5, rng,
                              amounts=(10, 25, 50, 100, 150))
    rnd = new_round(header)
    for w in wagers:
        rnd.apply(w)
    players = sorted({w.player for w in wagers})  # type: ignore[attr-defined]
    checked = 0
    for _ in range(120):
        exp = rnd.expectation()
        for choice in offered_choices(exp):
            refusal = _refused(rnd, choice)
            assert refusal is None, (exp, choice, refusal and (refusal.message, refusal.clause))
            checked += 1
        if rnd.status() in ("settled", "void"):
            break
        if exp.kind != "wagers" and rng.random() < 0.12:
            ev = _irregular(rnd, rng, shoe, players, electronic)
            try:
                rnd.apply(ev)
            except RuleRefusal:
                pass  # a refused irregular event leaves the round as it was
            continue
        if exp.kind == "ruling":
            step: Event | None = Resolve(rng.choice(("continue", "continue", "void")), "")
        elif exp.kind == "decision" and exp.options and not set(exp.options) <= {"hit", "stand", "double",
                                                                                 "split", "surrender"}:
            choices = offered_choices(exp)
            step = rng.choice(choices)
        else:
            step = next_event(rnd, exp, iter(shoe), random_strategy, rng, take_offers=True)
        if step is None:
            break
        if isinstance(step, Decision) and step.action == "double" and rng.random() < 0.3:
            step = Decision("double", step.area, step.hand, step.player, Decimal(rng.choice((5, 10, 25))))
        try:
            rnd.apply(step)
        except RuleRefusal as refusal:
            # Only a double for a random amount may be refused (1.1.2 / 1.1.3: at most the wager).
            assert isinstance(step, Decision) and step.amount is not None, (exp, step, refusal.message)


def _on_record(out: dict[str, object]) -> set[str]:
    """Every card the settle output shows somewhere: hands, the dealer, a ruling's moves, or
    what ``next`` still holds (cards out of turn, a card on offer, cards drawn together)."""
    seen: set[str] = set()
    for area in out.get("areas", []):  # type: ignore[attr-defined]
        for hand in area["hands"]:
            seen.update(hand["cards"])
    seen.update(out["dealer"]["cards"])  # type: ignore[index]
    for ruling in out["rulings"]:  # type: ignore[attr-defined]
        seen.update(m["card"] for m in ruling["moves"])
        seen.update(w for w in ruling["text"].split() if w[:1].isalnum())  # a 5.1 void names its card
    nxt = out.get("next") or {}
    assert isinstance(nxt, dict)
    seen.update(c["card"] for c in nxt.get("out_of_turn", []))
    if "card" in nxt:
        seen.add(nxt["card"])
    seen.update(nxt.get("cards", []))
    return seen


@settings(max_examples=80, deadline=None)
@given(game=st.sampled_from(sorted(g for g in GAMES if not GAMES[g].shared_hand)), seed=st.integers(0, 2**32))
def test_a_card_the_shoe_read_is_never_absent_from_the_record(game: str, seed: int) -> None:
    from dealer_assist.engine.transcript import round_output

    rng = random.Random(seed)
    decks = GAMES[game].deck_range[1]
    shoe = Shoe(game, decks, seed)
    shoe.round_start()
    rnd = new_round({"game": game, "decks": decks, "areas": 7})
    wagers = table_wagers(game, rng.randint(2, 7), 1, False, rng)
    for w in wagers:
        rnd.apply(w)
    players = sorted({w.player for w in wagers})  # type: ignore[attr-defined]
    dealt: list[str] = []
    for _ in range(120):
        exp = rnd.expectation()
        if rnd.status() in ("settled", "void"):
            break
        if exp.kind == "ruling":
            step: Event | None = Resolve("continue", "")
        elif rng.random() < 0.15:
            step = _irregular(rnd, rng, shoe, players, False)
        elif exp.kind == "decision" and exp.options and not set(exp.options) <= {"hit", "stand", "double", "split",
                                                                                 "surrender"}:
            step = rng.choice(offered_choices(exp))
        else:
            step = next_event(rnd, exp, iter(shoe), random_strategy, rng, take_offers=True)
        if step is None:
            break
        try:
            rnd.apply(step)
        except RuleRefusal:
            continue
        if isinstance(step, CardDrawn):
            dealt.append(str(step.card))
        missing = [c for c in dealt if c not in _on_record(round_output(rnd))]
        assert missing == [], (step, missing)
