"""Prints the par sheets' figures as markdown tables for docs/odds.md (issue 27). Asserts nothing.

    PYTHONPATH=. python scripts/edge_table.py [--sheets | --tie18] [GAME ...]

Default: the main wager's two edges for every game and deck count the rules allow, the
optimal (composition-dependent) play's and the printed chart's, with hit frequency, push,
standard deviation and element of risk. ``--sheets``: every bet's house edge per game and
deck count with the CPU seconds of the sheet without the chart (what theoretical win
computes). ``--tie18``: Dueling 8's exact Tie on 18 (tie18.py) at every deck count.
"""

from __future__ import annotations

import sys
import time

from dealer_assist.games import GAMES
from dealer_assist.odds.sheet import chart_result, exact_tie18, main_wager_result, par_sheet


def edges(games: list[str]) -> None:
    print("| game | decks | play | house edge | hit frequency | push | std dev | element of risk |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for game in games:
        lo, hi = GAMES[game].deck_range
        for n in range(lo, hi + 1):
            for name, (res, out) in (("optimal", main_wager_result(game, n)), ("chart", chart_result(game, n))):
                print(f"| {GAMES[game].name} | {n} | {name} | {res.house_edge * 100:.4f} % | "
                      f"{out.hit_frequency * 100:.4f} % | {out.push * 100:.4f} % | {out.std_dev:.4f} | "
                      f"{out.element_of_risk * 100:.4f} % |", flush=True)


def sheets(games: list[str]) -> None:
    for game in games:
        lo, hi = GAMES[game].deck_range
        print(f"\n**{GAMES[game].display_name}**\n")
        head = False
        for n in range(lo, hi + 1):
            start = time.process_time()
            sheet = par_sheet(game, n, with_chart=False)
            cpu = time.process_time() - start
            cols = [(name, b) for name, b in sheet.bets.items()]
            extra = [(f"{name}.{key}", e) for name, b in sheet.bets.items() for key, e in b.extra.items()]
            if not head:
                names = ["main", "main: hit freq, std dev"] + [c for c, _ in cols + extra] + ["CPU s"]
                print("| decks | " + " | ".join(names) + " |")
                print("|" + " --- |" * (len(names) + 1))
                head = True
            cells = [f"{sheet.main.house_edge * 100:.4f}",
                     f"{sheet.outcomes.hit_frequency * 100:.2f} %, {sheet.outcomes.std_dev:.4f}"]
            cells += [f"{b.house_edge * 100:.4f}" for _, b in cols + extra]
            print(f"| {n} | " + " | ".join(cells) + f" | {cpu:.2f} |", flush=True)


def tie18() -> None:
    lo, hi = GAMES["dueling8s"].deck_range
    print("| decks | first hand: P, edge | per split-hand wager: P, edge | P(tie) at position 2 / 3 / 4 "
          "| position 3 / 4 formed | CPU s |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in range(lo, hi + 1):
        main_wager_result("dueling8s", n)
        start = time.process_time()
        t = exact_tie18("dueling8s", n)
        cpu = time.process_time() - start
        print(f"| {n} | {t.first_hand * 100:.4f} %, {(1 - 9 * t.first_hand) * 100:.4f} % | "
              f"{t.split_hands * 100:.4f} %, {(1 - 9 * t.split_hands) * 100:.4f} % | "
              + " / ".join(f"{p * 100:.4f}" for p in t.by_hand) + " % | "
              + " / ".join(f"{f * 100:.2f}" for f in t.hands_expected[1:]) + f" % | {cpu:.2f} |", flush=True)


def main(argv: list[str]) -> int:
    games = [a for a in argv if not a.startswith("--")] or list(GAMES)
    if "--tie18" in argv:
        tie18()
    elif "--sheets" in argv:
        sheets(games)
    else:
        edges(games)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
