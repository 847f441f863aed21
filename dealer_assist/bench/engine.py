"""The engine benchmark: rounds per second and time per event through the rules engine.

`dealer-assist bench` (dealer_assist/cli/bench.py) runs it.

Two set-ups (issue 2): (a) 5 areas, one player each, main wager only; (b) the full table,
7 areas, 3 players each, every side bet. Rounds come from a shuffled shoe with
basic-strategy decisions. Prints figures; asserts nothing.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from dealer_assist.bench.simulate import (
    Shoe,
    basic_strategy,
    electronic_wagers,
    next_event,
    play,
    table_wagers,
)
from dealer_assist.engine.events import Event
from dealer_assist.engine.transcript import new_round
from dealer_assist.games import GAMES


def _header(game: str, areas: int) -> dict[str, object]:
    decks = GAMES[game].decks_usual
    return {"game": game, "decks": decks, "areas": 0 if GAMES[game].shared_hand else max(areas, 1)}


def _setup(game: str, full: bool) -> tuple[dict[str, object], Callable[[random.Random], list[Event]]]:
    if GAMES[game].shared_hand:
        return _header(game, 0), lambda rng: electronic_wagers(12 if full else 5, full, rng)
    areas = 7 if full else 5
    per_area = 3 if full else 1
    return _header(game, areas), lambda rng: table_wagers(game, areas, per_area, full, rng)


def run_setup(game: str, full: bool, rounds: int, seed: int, timed: bool) -> dict[str, float]:
    header, wagers = _setup(game, full)
    template = new_round(header)  # the table's configuration, parsed once as at a live table
    rng = random.Random(seed)
    shoe = Shoe(game, GAMES[game].decks_usual, seed)
    events = 0
    samples: list[int] = []
    clock = time.perf_counter_ns
    start = time.perf_counter()
    for _ in range(rounds):
        shoe.round_start()
        rnd = template.fresh()
        for ev in wagers(rng):
            if timed:
                t0 = clock()
                rnd.apply(ev)
                samples.append(clock() - t0)
            else:
                rnd.apply(ev)
            events += 1
        if not timed:
            events += play(rnd, shoe, basic_strategy, rng)
            continue
        while True:
            step = next_event(rnd, rnd.expectation(), shoe, basic_strategy, rng)
            if step is None:
                break
            t0 = clock()
            rnd.apply(step)
            samples.append(clock() - t0)
            events += 1
    elapsed = time.perf_counter() - start
    out = {"rounds_per_s": rounds / elapsed, "events_per_s": events / elapsed, "events_per_round": events / rounds}
    if samples:
        samples.sort()
        out["median_us"] = statistics.median(samples) / 1000
        out["p99_us"] = samples[int(len(samples) * 0.99)] / 1000
    return out
