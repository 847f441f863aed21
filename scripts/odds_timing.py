"""Prints how long the odds take (issue 27), per game, each in a fresh process. Asserts nothing.

    PYTHONPATH=. python scripts/odds_timing.py [--decks N] [GAME ...]

``house_edges``: what theoretical win (the review, the floor, the pit window) computes once a
process per game and deck count: the optimal play's edge and the side bets, Dueling 8's exact
Tie on 18, not the printed chart. ``tie18``: the exact Tie on 18 alone (Dueling 8's, every deck
count). ``par sheet``: the whole sheet with the printed chart's edge and distribution.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from dealer_assist.games import GAMES

_CHILD = """
import sys, time
game, decks, what = sys.argv[1], int(sys.argv[2]), sys.argv[3]
start = time.process_time()
if what == "house_edges":
    from dealer_assist.odds.theo import house_edges
    house_edges(game, decks)
elif what == "tie18":
    from dealer_assist.odds.sheet import chart_of, exact_tie18
    chart_of(game, decks)
    start = time.process_time()
    t = exact_tie18(game, decks)
else:
    from dealer_assist.odds.sheet import par_sheet
    par_sheet(game, decks)
print(f"{time.process_time() - start:.2f}")
"""


def run(game: str, decks: int, what: str) -> str:
    out = subprocess.run([sys.executable, "-c", _CHILD, game, str(decks), what], capture_output=True, text=True,
                         check=True)
    return out.stdout.strip()


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--decks", type=int, help="default: each game's usual deck count")
    ap.add_argument("games", nargs="*", default=list(GAMES))
    args = ap.parse_args(argv)
    print("CPU seconds, each in a fresh process")
    print("| game | decks | house_edges (theo) | whole par sheet |")
    print("|---|---:|---:|---:|")
    for game in args.games:
        decks = args.decks or GAMES[game].decks_usual
        print(f"| {GAMES[game].name} | {decks} | {run(game, decks, 'house_edges')} | "
              f"{run(game, decks, 'sheet')} |", flush=True)
    if "dueling8s" in args.games:
        lo, hi = GAMES["dueling8s"].deck_range
        print("\nDueling 8's Tie on 18, exact (tie18.py), CPU seconds by deck count:")
        print(", ".join(f"{n}: {run('dueling8s', n, 'tie18')}" for n in range(lo, hi + 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
