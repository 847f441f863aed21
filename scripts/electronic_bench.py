#!/usr/bin/env python3
"""Electronic Blackjack's cost against the number of terminals (issue 26: linear in terminals).

    python scripts/electronic_bench.py [--terminals 1 6 12 24] [--runs 5] [--tree DIR ...]

For each ``--tree`` (a source tree: pure Python from it, compiled from its build/compiled
when that exists) and each terminal count: rounds of Electronic Blackjack, every terminal a
main wager (``--side-bets``: and every side bet), basic strategy, driven by
``bench.simulate.play`` as the engine bench does, in a fresh process; CPU time
(``time.process_time``). The runs alternate tree and build so that load on the shared
machine falls on all alike; prints every run, then per terminal count the median of
``--runs`` in rounds per CPU-second, the fit exponent of CPU per round over the terminal
counts and the slope between the last two, and how many times per round the expectation,
asked after every event, was worked out from the state (the event's handler left none:
``next_expected()`` is None; counted in an untimed pass of 100 rounds).
Measures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_OURS = """
import json, random, sys, time
from dealer_assist.bench.simulate import Shoe, basic_strategy, electronic_wagers, next_event, play
import dealer_assist.engine.electronic as el
from dealer_assist.engine.transcript import new_round
compiled = el.__file__.endswith((".so", ".pyd"))
if compiled != (sys.argv[1] == "compiled"):
    sys.exit("wrong engine: " + el.__file__)
out = {}
side_bets = sys.argv[3] == "side-bets"
for terminals in map(int, sys.argv[4:]):
    rounds = max(150, int(sys.argv[2]) // terminals)
    template = new_round({"game": "electronic", "decks": 6})
    rng = random.Random(26)
    shoe = Shoe("electronic", 6, 26)
    wagers = [electronic_wagers(terminals, side_bets, rng) for _ in range(rounds)]
    c0 = time.process_time()
    for w in wagers:
        shoe.round_start()
        rnd = template.fresh()
        rnd.apply_all(w)
        play(rnd, shoe, basic_strategy, rng)
    cpu = time.process_time() - c0
    # Untimed: how often the expectation asked after an event is worked out from the state
    # (the event's handler left none: next_expected() is None), asked after every event.
    searches = events = 0
    for w in wagers[:100]:
        shoe.round_start()
        rnd = template.fresh()
        rnd.apply_all(w)
        searches += rnd.next_expected() is None
        while (ev := next_event(rnd, rnd.expectation(), shoe, basic_strategy, rng)) is not None:
            rnd.apply(ev)
            events += 1
            searches += rnd.next_expected() is None
    n = min(100, rounds)
    out[terminals] = {"rounds": rounds, "cpu": cpu, "searches": searches / n, "events": events / n}
print(json.dumps(out))
"""


def _run(build: str, tree: Path, budget: int, side_bets: bool, terminals: list[int]) -> dict[str, dict[str, float]]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree / "build" / "compiled") if build == "compiled" else str(tree)
    out = subprocess.run([sys.executable, "-c", _OURS, build, str(budget), "side-bets" if side_bets else "main",
                          *map(str, terminals)], env=env,
                         cwd="/", check=True, capture_output=True, text=True).stdout
    result: dict[str, dict[str, float]] = json.loads(out.strip().splitlines()[-1])
    return result


def _fit(xs: list[int], ys: list[float]) -> float:
    """The exponent b of y = a x^b, least squares in logs."""
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum((a - mx) ** 2 for a in lx)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", action="append", default=[], help="a source tree (default: this one)")
    ap.add_argument("--terminals", type=int, nargs="+", default=[1, 6, 12, 24])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--budget", type=int, default=3000, help="rounds at 1 terminal (budget / T at T)")
    ap.add_argument("--side-bets", action="store_true", help="every terminal also takes every side bet")
    args = ap.parse_args()
    trees = [Path(t).resolve() for t in args.tree] or [ROOT]
    plan = [(tree, build) for tree in trees for build in ("pure", "compiled")
            if build == "pure" or (tree / "build" / "compiled").is_dir()]
    print(f"load average before: {os.getloadavg()[0]:.1f}; {time.strftime('%H:%M UTC', time.gmtime())}")
    results: dict[tuple[Path, str], list[dict[str, dict[str, float]]]] = {p: [] for p in plan}
    for i in range(args.runs):
        for tree, build in plan:
            r = _run(build, tree, args.budget, args.side_bets, args.terminals)
            results[(tree, build)].append(r)
            line = ", ".join(f"{t}: {v['rounds'] / v['cpu']:,.0f}" for t, v in r.items())
            print(f"run {i + 1} {tree.name} {build}: rounds per CPU-s {line}", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    for (tree, build), runs in results.items():
        per_round = []
        cells = []
        for t in args.terminals:
            rate = statistics.median(r[str(t)]["rounds"] / r[str(t)]["cpu"] for r in runs)
            per_round.append(1e6 / rate)
            searches = runs[0][str(t)]["searches"]
            events = runs[0][str(t)]["events"]
            cells.append(f"{t}: {rate:,.0f}/s ({1e6 / rate:,.0f} us, {searches:.1f} searches in {events:.1f} events)")
        ts = args.terminals
        slope = math.log(per_round[-1] / per_round[-2]) / math.log(ts[-1] / ts[-2]) if len(ts) > 1 else 0.0
        print(f"{tree.name} {build}: " + "; ".join(cells)
              + f"; fit exponent {_fit(ts, per_round):.2f}, slope {ts[-2]}->{ts[-1]} {slope:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
