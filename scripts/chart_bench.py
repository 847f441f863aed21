"""Plays the printed strategy chart through the engine and prints each game's simulated edge
with its 95 % interval beside the par sheet's chart edge (issue 27). Prints figures; asserts nothing.

    PYTHONPATH=. python scripts/chart_bench.py --wagers 10000000 [--games ...] [--until HH:MM] [--out FILE]

Main wagers of one unit on 7 areas a round (Electronic: one terminal, its Player hand is
shared), at each game's usual deck count. The games are played in turns, a chunk at a time,
so that a run stopped by ``--until`` (UTC) has played every game about equally; every chunk's
running figures are printed (and appended to ``--out``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time

from dealer_assist.bench.simulate import ChartRun, play_chart
from dealer_assist.games import GAMES
from dealer_assist.odds.rulesets import usual_decks
from dealer_assist.odds.sheet import chart_of, chart_result


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--wagers", type=int, default=1_000_000, help="main wagers a game")
    ap.add_argument("--chunk", type=int, default=200_000, help="wagers a game per turn")
    ap.add_argument("--games", nargs="*", default=list(GAMES))
    ap.add_argument("--until", help="stop after the chunk that ends past this UTC time (HH:MM)")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--out", help="append the figures to this file too")
    args = ap.parse_args(argv)
    deadline = None
    if args.until:
        now = dt.datetime.now(dt.UTC)
        h, m = map(int, args.until.split(":"))
        deadline = now.replace(hour=h, minute=m, second=0, microsecond=0)
        if deadline < now:
            deadline += dt.timedelta(days=1)
    runs = {g: ChartRun(g, usual_decks(g)) for g in args.games}
    sheet = {g: chart_result(g, usual_decks(g))[0].expected_return for g in args.games}
    charts = {g: chart_of(g, usual_decks(g)) for g in args.games}
    start = time.perf_counter()
    turn = 0

    def report(final: bool) -> None:
        lines = [f"{'final' if final else 'running'} after {time.perf_counter() - start:.0f} s"]
        for g, r in runs.items():
            lines.append(f"  {g:<14} {r.decks} decks  wagers {r.wagers:>10}  simulated {r.edge * 100:+.4f} % "
                         f"± {r.half_width * 100:.4f}  sheet's chart {sheet[g] * 100:+.4f} %")
        text = "\n".join(lines)
        print(text, flush=True)
        if args.out:
            with open(args.out, "a") as f:
                f.write(text + "\n")

    while any(r.wagers < args.wagers for r in runs.values()):
        for g, r in runs.items():
            if r.wagers >= args.wagers:
                continue
            areas = 1 if g == "electronic" else 7
            n = min(args.chunk, args.wagers - r.wagers) // areas
            play_chart(r, charts[g], max(n, 1), args.seed * 1000 + turn, areas=areas)
        turn += 1
        report(False)
        if deadline is not None and dt.datetime.now(dt.UTC) >= deadline:
            break
    report(True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
