"""Electronic keeps what it waits for (issue 26 item 3): every event's handler leaves the
next expectation (``next_expected``), read from the state it keeps per terminal, so the
round is never searched when asked after an event -- 0 searches per round however many
terminals play. What it keeps must equal the full search (``expectation_from_state``: every
terminal worked out afresh from its hands). Checked after every event of every captured
Electronic transcript and example, and of rounds played at random at 1 to 24 terminals
with splits, doubles, insurance, even money, surrender, time-outs, a power failure, cards
dealt early (5.2), cards drawn together in a known order (5.7) and refused decisions."""

from __future__ import annotations

import gzip
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.base.errors import EventFormatError, RuleRefusal, TranscriptError
from dealer_assist.bench.simulate import Shoe, electronic_wagers
from dealer_assist.engine.electronic import ElectronicRound
from dealer_assist.engine.events import (
    Burn,
    CardDrawn,
    CloseOffers,
    Decision,
    Event,
    Multi,
    NoMoreBets,
    PowerFailure,
    Target,
    Timeout,
)
from dealer_assist.engine.transcript import load_transcript, new_round, parse_event

DATA = Path(__file__).parent / "data" / "settle_before.jsonl.gz"


def _electronic_transcripts() -> list[Any]:
    docs = []
    with gzip.open(DATA, "rt", encoding="utf-8") as f:
        for line in f:
            try:
                doc = load_transcript(json.loads(line)["transcript"])
            except TranscriptError:
                continue
            if isinstance(doc, dict) and doc.get("game") == "electronic" and isinstance(doc.get("events"), list):
                docs.append(doc)
    return docs


def _kept(rnd: ElectronicRound, where: object) -> None:
    """After an accepted event: its handler left the expectation, and it is the full search's."""
    kept = rnd.next_expected()
    assert kept is not None, ("searched, not kept", where)
    assert kept == rnd.expectation_from_state(), where
    assert rnd.expectation() is kept  # asked: no search


def test_every_captured_electronic_transcript_keeps_its_expectation() -> None:
    docs = _electronic_transcripts()
    assert len(docs) > 40
    checked = 0
    for doc in docs:
        try:
            rnd = new_round(doc)
        except TranscriptError:
            continue
        assert isinstance(rnd, ElectronicRound)
        for i, raw in enumerate(doc["events"]):
            try:
                rnd.apply(parse_event(raw))
            except (EventFormatError, RuleRefusal):
                break
            _kept(rnd, (i, raw))
            checked += 1
    assert checked > 500


def _decide(rnd: ElectronicRound, pending: tuple[dict[str, Any], ...], rng: random.Random,
            seen: Counter[str]) -> Event:
    entry = rng.choice(pending)
    options = entry["options"]
    roll = rng.random()
    if roll < 0.04:  # a decision the rules refuse (a hand not in turn, an option not offered)
        return Decision(rng.choice(("split", "double", "insurance", "surrender")), None, entry["hand"] + 1,
                        entry["player"])
    for wanted in ("insurance", "even_money", "split", "double", "surrender"):
        if wanted in options and rng.random() < 0.4:
            action = wanted
            break
    else:
        action = rng.choice(options)
    seen[action] += 1
    return Decision(action, None, entry["hand"], entry["player"])


def _next(rnd: ElectronicRound, shoe: Shoe, rng: random.Random, seen: Counter[str]) -> Event | None:
    exp = rnd.expectation()
    roll = rng.random()
    if exp.kind == "card":
        if roll < 0.03:
            seen["multi"] += 1
            return Multi((next(shoe), next(shoe)), (), True)  # 5.7
        if roll < 0.04:
            return Burn(next(shoe))  # refused once the deal began (else a burn before it)
        return CardDrawn(next(shoe))
    if exp.kind == "decisions":
        if roll < 0.02:
            seen["timeout"] += 1
            return Timeout(rng.choice(list(rnd.terminals)))
        if roll < 0.025:
            seen["power_failure"] += 1
            return PowerFailure()
        if roll < 0.04:
            seen["early card"] += 1
            return CardDrawn(next(shoe), Target("dealer"))  # 5.2: the next card
        if roll < 0.05:
            return CloseOffers()
        return _decide(rnd, exp.pending, rng, seen)
    if exp.kind == "wagers":
        return CardDrawn(next(shoe)) if roll < 0.1 else None  # refused: bets are open
    return None


@pytest.mark.parametrize("terminals", range(1, 25))
def test_rounds_at_random_keep_the_expectation_the_full_search_gives(terminals: int) -> None:
    rng = random.Random(2600 + terminals)
    shoe = Shoe("electronic", 6, terminals)
    template = new_round({"game": "electronic", "decks": 6})
    assert isinstance(template, ElectronicRound)
    seen: Counter[str] = Counter()
    events = 0
    rounds = max(40, 360 // terminals)
    for r in range(rounds):
        shoe.round_start()
        rnd = template.fresh()
        for ev in electronic_wagers(terminals, r % 2 == 0, rng):
            rnd.apply(ev)
            _kept(rnd, ev)
        step: Event | None = NoMoreBets()
        for _ in range(600):
            if step is None:
                break
            before = rnd.expectation()
            try:
                rnd.apply(step)
            except RuleRefusal:
                seen["refused"] += 1
                assert rnd.expectation() == before == rnd.expectation_from_state()  # unchanged
            else:
                _kept(rnd, (r, step))
                events += 1
            step = _next(rnd, shoe, rng, seen)
        assert rnd.status() in ("settled", "void"), rnd.expectation()
    assert events > 5 * rounds
    assert seen["split"] and seen["double"] and seen["stand"] and seen["hit"] and seen["refused"], seen
    if terminals >= 3:
        assert seen["insurance"] or seen["even_money"], seen
        assert seen["surrender"], seen
