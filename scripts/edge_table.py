"""Prints the main wager's two edges for every game and deck count the rules allow (issue 27):
the optimal (composition-dependent) play's and the printed chart's, with hit frequency, push,
standard deviation and element of risk. A markdown table for docs/odds.md. Asserts nothing.

    PYTHONPATH=. python scripts/edge_table.py [GAME ...]
"""

from __future__ import annotations

import sys

from dealer_assist.games import GAMES
from dealer_assist.odds.sheet import chart_result, main_wager_result


def main(games: list[str]) -> int:
    print("| game | decks | play | house edge | hit frequency | push | std dev | element of risk |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for game in games or list(GAMES):
        lo, hi = GAMES[game].deck_range
        for n in range(lo, hi + 1):
            for name, (res, out) in (("optimal", main_wager_result(game, n)), ("chart", chart_result(game, n))):
                print(f"| {GAMES[game].name} | {n} | {name} | {res.house_edge * 100:.4f} % | "
                      f"{out.hit_frequency * 100:.4f} % | {out.push * 100:.4f} % | {out.std_dev:.4f} | "
                      f"{out.element_of_risk * 100:.4f} % |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
