"""Electronic keeps each terminal's pending decision and works out again only the terminal
that acted (or those a new stream card reaches) -- issue 26.4. Over random rounds with
terminals acting in random order, offers, time-outs, power failures, cards dealt early
(5.2) and cards drawn together in a known order (5.7), the kept entries always equal
every terminal worked out afresh, and so do the cards the round waits for."""

from __future__ import annotations

import random

import pytest

from dealer_assist.base.errors import RuleRefusal
from dealer_assist.bench.simulate import Shoe, electronic_wagers
from dealer_assist.engine.electronic import ElectronicRound
from dealer_assist.engine.events import (
    CardDrawn,
    Decision,
    Event,
    Multi,
    NoMoreBets,
    PowerFailure,
    Target,
    Timeout,
)
from dealer_assist.engine.transcript import new_round


def _check(rnd: ElectronicRound) -> None:
    assert rnd.pending() == rnd.pending(recompute=True)
    exp = rnd.expectation()
    if rnd.phase == "decisions":
        fresh = [t.player for t in rnd.terminals.values()
                 if (h := t.current()) is not None and (h.awaiting or len(h.cards) < 2 or t.default_play)
                 and t.stream_pos >= len(rnd.stream)]
        if exp.kind == "card":
            assert exp.extra["waiting"] and set(exp.extra["waiting"]) <= set(fresh)
        else:
            assert exp.kind == "decisions" and exp.pending


def _next(rnd: ElectronicRound, shoe: Shoe, rng: random.Random) -> Event | None:
    exp = rnd.expectation()
    if exp.kind == "card":
        if rng.random() < 0.05:
            return Multi((next(shoe), next(shoe)), (), True)
        return CardDrawn(next(shoe))
    if exp.kind == "decisions":
        roll = rng.random()
        if roll < 0.03:
            return Timeout(rng.choice(list(rnd.terminals)))
        if roll < 0.04:
            return PowerFailure()
        if roll < 0.07:
            return CardDrawn(next(shoe), Target("dealer"))  # 5.2: the next card
        entry = rng.choice(exp.pending)
        return Decision(rng.choice(entry["options"]), None, entry["hand"], entry["player"])
    if exp.kind == "wagers":
        return NoMoreBets()
    return None


@pytest.mark.parametrize("seed", range(12))
def test_kept_pending_decisions_equal_every_terminal_worked_out_afresh(seed: int) -> None:
    rng = random.Random(seed)
    shoe = Shoe("electronic", 6, seed)
    template = new_round({"game": "electronic", "decks": 6})
    assert isinstance(template, ElectronicRound)
    for _ in range(40):
        shoe.round_start()
        rnd = template.fresh()
        for ev in electronic_wagers(rng.randint(1, 12), rng.random() < 0.5, rng):
            rnd.apply(ev)
        for _ in range(400):
            ev = _next(rnd, shoe, rng)
            if ev is None:
                break
            try:
                rnd.apply(ev)
            except RuleRefusal:
                pass  # a random choice the rules refuse leaves the round as it was
            _check(rnd)
        assert rnd.status() in ("settled", "void"), rnd.expectation()
