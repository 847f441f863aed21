#!/usr/bin/env python3
"""The engine against a peer simulator, interleaved (issue 26: compiled >= 2x, pure >= 0.5x).

    python scripts/peer_bench.py --peer /work/peer/blackjack [--runs 7] [--tree DIR ...]

The peer is 1andDone/blackjack (pure Python), checked out OUTSIDE this repository and
never imported by the product: 5 flat-betting basic-strategy players, 6 decks, 75 %
penetration, ``--shoes`` shoes. Ours: ``dealer-assist bench``'s set-up (a) (5 areas, one
player each, main wager, Ace Race), the untimed pass of ``bench.engine.run_setup``, for
each ``--tree`` (a source tree: pure Python from it, compiled from its build/compiled when
that exists). Each run is a fresh process; the runs alternate peer, tree 1 pure, tree 1
compiled, tree 2 pure, ... so that load on the shared machine falls on all alike. Prints
every run (wall-clock rounds/s and rounds per CPU-second) and the medians and ratios,
with the load average before and after. Measures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_PEER = """
import sys, time, json
sys.path.insert(0, sys.argv[1])
import blackjack.blackjack as bjmod
from blackjack.blackjack import Blackjack
from blackjack.player import Player
count = 0
_play = bjmod.play_round
def counted(**kw):
    global count
    count += 1
    return _play(**kw)
bjmod.play_round = counted
game = Blackjack(min_bet=10, max_bet=500, s17=False)
for i in range(5):
    game.add_player(Player(name=f"p{i}", bankroll=10**12, min_bet=10))
w0, c0 = time.perf_counter(), time.process_time()
game.simulate(penetration=0.75, number_of_shoes=int(sys.argv[2]), shoe_size=6, seed=1, progress_bar=False)
w, c = time.perf_counter() - w0, time.process_time() - c0
print(json.dumps({"rounds": count, "wall": w, "cpu": c}))
"""

_OURS = """
import sys, time, json
from dealer_assist.bench.engine import run_setup
import dealer_assist.engine.table as t
compiled = t.__file__.endswith((".so", ".pyd"))
if compiled != (sys.argv[2] == "compiled"):
    sys.exit("wrong engine: " + t.__file__)
w0, c0 = time.perf_counter(), time.process_time()
run_setup("ace_race", False, int(sys.argv[1]), 7, False)
w, c = time.perf_counter() - w0, time.process_time() - c0
print(json.dumps({"rounds": int(sys.argv[1]), "wall": w, "cpu": c}))
"""


def _run(code: str, args: list[str], pythonpath: str | None) -> dict[str, float]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd="/", check=True,
                         capture_output=True, text=True).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer", required=True, help="the peer's checkout (holds the blackjack package)")
    ap.add_argument("--tree", action="append", default=[], help="a source tree of ours (default: this one)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--shoes", type=int, default=1000, help="the peer's shoes per run (about 14.8 rounds each)")
    ap.add_argument("--pure-rounds", type=int, default=6000)
    ap.add_argument("--compiled-rounds", type=int, default=30000)
    ap.add_argument("--no-compiled", action="store_true", help="pure Python only")
    ap.add_argument("--no-peer", action="store_true", help="our trees only (ratios to the first entry)")
    a = ap.parse_args()
    trees = [Path(t).resolve() for t in a.tree] or [ROOT]
    entries: list[tuple[str, str, list[str], str | None]] = [("peer", _PEER, [a.peer, str(a.shoes)], None)]
    for i, tree in enumerate(trees, start=1):
        label = f"tree{i}" if len(trees) > 1 else "ours"
        entries.append((f"{label} pure", _OURS, [str(a.pure_rounds), "pure"], str(tree)))
        if not a.no_compiled and (tree / "build" / "compiled").is_dir():
            entries.append((f"{label} compiled", _OURS, [str(a.compiled_rounds), "compiled"],
                            str(tree / "build" / "compiled")))
    if a.no_peer:
        entries.pop(0)
    for i, tree in enumerate(trees, start=1):
        print(f"tree{i}: {tree}")
    print(f"{time.strftime('%H:%M:%S', time.gmtime())} UTC, load average {os.getloadavg()[0]:.1f}")
    wall: dict[str, list[float]] = {name: [] for name, *_ in entries}
    cpu: dict[str, list[float]] = {name: [] for name, *_ in entries}
    for run in range(1, a.runs + 1):
        for name, code, args, path in entries:
            r = _run(code, args, path)
            wall[name].append(r["rounds"] / r["wall"])
            cpu[name].append(r["rounds"] / r["cpu"])
            print(f"run {run} {name:16} {wall[name][-1]:9.0f} rounds/s  {cpu[name][-1]:9.0f} per CPU-s", flush=True)
    print(f"{time.strftime('%H:%M:%S', time.gmtime())} UTC, load average {os.getloadavg()[0]:.1f}")
    first = entries[0][0]
    peer_w, peer_c = statistics.median(wall[first]), statistics.median(cpu[first])
    print(f"medians of {a.runs} (ratios to {first}): rounds/s (ratio)     per CPU-s (ratio)")
    for name, *_ in entries:
        mw, mc = statistics.median(wall[name]), statistics.median(cpu[name])
        print(f"  {name:16} {mw:9.0f} ({mw / peer_w:4.2f}x)   {mc:9.0f} ({mc / peer_c:4.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
