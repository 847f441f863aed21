"""``dealer-assist odds GAME [--decks N] [--json] [--strategy] [--pdf FILE] [--theo-basis B] [--simulate N]
[--seed BASE] [--split-prune P]``, ``dealer-assist odds GAME [--decks N] --confirm [--simulate N] [--seed BASE]``
or ``dealer-assist odds --all DIR``: a game's par sheet.

Every side bet's pay-table rows with their exact probabilities, the 6-7-8 bonus, insurance
and the main wager's house edge, computed from the pay tables and decks the engine plays
by (docs/odds.md), the main wager under the optimal play and under the printed chart.
``--strategy`` prints the chart with its composition-dependent exceptions; ``--pdf FILE``
writes the printable par sheet, its chart's splits enumerated card by card with each row's
bound (sheet.SPLIT_PRUNE, or ``--split-prune P``; minutes of CPU); the text and JSON keep the
split model's rows, marked as estimates, unless ``--split-prune P`` is given. Dueling 8's Tie on 18 is exact (tie18.py). Without ``--decks`` the game's usual deck count (rulesets.usual_decks).
A game or deck count the rules do not allow prints ``error: ...`` (naming 2.1) and exits 2.

A sheet's confirming simulation is seeded by the sheet's own seed (sheet.simulation_seed: from
``--seed BASE``, the game and the deck count), printed on it; ``--confirm`` runs that
simulation alone (the chart, no split enumeration: seconds, not minutes) to check a sheet.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from dealer_assist.games import GAMES

if TYPE_CHECKING:
    from dealer_assist.odds.sheet import ParSheet, SimulationCheck, TheoBasis


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", help=f"one of {', '.join(GAMES)} (not with --all)")
    parser.add_argument("--all", metavar="DIR", help="write the PDF par sheet of every game at every deck count its "
                        "2.1 allows into DIR (GAME-N-decks.pdf)")
    parser.add_argument("--theo-basis", default="chart", metavar="BASIS",
                        help="the edge win per hour uses: chart (default), optimal, or a casino's house edge in per cent")
    parser.add_argument("--simulate", type=int, default=20000, metavar="ROUNDS",
                        help="rounds of the engine's simulator that confirm a PDF sheet (default 20000; 0: none)")
    parser.add_argument("--seed", type=int, default=None, metavar="BASE",
                        help="base seed of the confirming simulations; each sheet's own seed is drawn from it, "
                        "the game and the deck count (default 36)")
    parser.add_argument("--confirm", action="store_true",
                        help="run only the sheet's confirming simulation (its seed, --simulate rounds) and print "
                        "its result against the printed chart's edge, without the split enumeration")
    parser.add_argument("--split-prune", type=float, default=None, metavar="P",
                        help="enumerate the chart's splits card by card, carrying sequences less likely than P of "
                        "a round on with bounded chances (smaller: tighter bounds, slower); --pdf and --all: "
                        "default 1e-10; text and --json: the split model's estimates unless given")
    parser.add_argument("--decks", metavar="N", help="number of decks (2.1 of the game's rules; default: the "
                        "game's usual count, 6)")
    parser.add_argument("--json", action="store_true", help="print the par sheet as JSON")
    parser.add_argument("--strategy", action="store_true", help="print the strategy chart of the main wager")
    parser.add_argument("--pdf", metavar="FILE", help="write the par sheet as a printable PDF to FILE")


def run(args: argparse.Namespace) -> int:
    from dealer_assist.odds.sheet import (
        OddsError,
        check,
        par_sheet,
        parse_theo_basis,
        strategy_chart,
        to_json,
        to_text,
    )

    try:
        basis = parse_theo_basis(args.theo_basis)
    except OddsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.simulate < 0:
        print("error: --simulate must be 0 or more rounds", file=sys.stderr)
        return 2
    from dealer_assist.odds.sheet import SPLIT_PRUNE

    prune: float | None = args.split_prune
    if prune is not None and not 0 < prune < 1:
        print("error: --split-prune must lie between 0 and 1 (a chance of the round)", file=sys.stderr)
        return 2
    if args.seed is not None and args.seed < 0:
        print("error: --seed must be 0 or more", file=sys.stderr)
        return 2
    if args.all:
        return _write_all(args.all, basis, args.simulate, SPLIT_PRUNE if prune is None else prune, args.seed)
    if args.game is None:
        print("error: name a game (or --all DIR)", file=sys.stderr)
        return 2

    decks: int | None = None
    if args.decks is not None:
        try:
            decks = int(args.decks)
        except ValueError:
            print(f"error: --decks must be a whole number of decks (2.1), not {args.decks!r}", file=sys.stderr)
            return 2
    try:
        decks = check(args.game, decks)
    except OddsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.confirm:
        return _confirm(args.game, decks, args.simulate, args.seed)
    if args.pdf:
        import os

        folder = os.path.dirname(os.path.abspath(args.pdf))
        if not os.path.isdir(folder):  # said now, not after minutes of enumeration
            print(f"error: cannot write {args.pdf}: no folder {folder}", file=sys.stderr)
            return 2
    # The printed sheet enumerates the splits (issue 36); text and JSON only when asked; the
    # chart alone (--strategy) needs no distribution.
    if args.pdf and prune is None:
        prune = SPLIT_PRUNE
    elif args.strategy and not args.pdf:
        prune = None
    sheet = par_sheet(args.game, decks, split_prune=prune)
    if args.pdf:
        from dealer_assist.odds.pdf import write_pdf

        try:
            write_pdf(sheet, args.pdf, simulation=simulation_check(sheet, args.simulate, args.seed), basis=basis)
        except OSError as exc:
            print(f"error: cannot write {args.pdf}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(f"wrote {args.pdf}")
        return 0
    if args.strategy:
        sys.stdout.write(strategy_chart(sheet) + "\n")
        return 0
    if args.json:
        sys.stdout.write(json.dumps(to_json(sheet), indent=2) + "\n")
    else:
        sys.stdout.write(to_text(sheet) + "\n")
    return 0


def simulation_check(sheet: ParSheet, rounds: int, base_seed: int | None = None) -> SimulationCheck | None:
    """The engine's simulator played by the sheet's chart (bench/simulate.py; ``rounds`` 0: None),
    seeded by the sheet's own seed (sheet.simulation_seed: from ``base_seed``, the game and the
    deck count)."""
    from dealer_assist.bench.simulate import RESHUFFLE_BELOW, ChartRun, play_chart
    from dealer_assist.odds.sheet import BASE_SEED, SimulationCheck, simulation_seed

    if rounds <= 0 or sheet.chart is None:
        return None
    base = BASE_SEED if base_seed is None else base_seed
    seed = simulation_seed(sheet.game, sheet.decks, base)
    run = ChartRun(sheet.game, sheet.decks)
    play_chart(run, sheet.chart, rounds, seed)
    return SimulationCheck(run.rounds, run.wagers, seed, -run.edge, run.half_width, base, RESHUFFLE_BELOW)


def _confirm(game: str, decks: int, rounds: int, base_seed: int | None) -> int:
    """The sheet's confirming simulation alone, as its PDF states it (no split enumeration)."""
    from dealer_assist.odds.sheet import par_sheet

    if rounds <= 0:
        print("error: --confirm needs --simulate ROUNDS of 1 or more", file=sys.stderr)
        return 2
    sheet = par_sheet(game, decks)
    check = simulation_check(sheet, rounds, base_seed)
    assert check is not None and sheet.chart_main is not None  # a chart: par_sheet's default
    edge = sheet.chart_main.house_edge
    lo, hi = check.edge - check.half_width, check.edge + check.half_width
    print(f"{GAMES[game].name}, {decks} deck{'s' if decks != 1 else ''}: seed {check.seed}, {check.rounds:,} rounds ({check.wagers:,} main "
          f"wagers): house edge {check.edge * 100:.4f} %, 95 % interval {lo * 100:.4f} % to {hi * 100:.4f} %; the "
          f"sheet's chart-play edge {edge * 100:.4f} % is {'inside' if lo <= edge <= hi else 'OUTSIDE'} it")
    return 0


def _write_all(folder: str, basis: TheoBasis, rounds: int, prune: float, base_seed: int | None = None) -> int:
    """Every game at every deck count its 2.1 allows, one PDF each, with the time it took."""
    import os
    import time

    from dealer_assist.odds.pdf import write_pdf
    from dealer_assist.odds.sheet import par_sheet

    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        print(f"error: cannot make {folder}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    for game, rules in GAMES.items():
        lo, hi = rules.deck_range
        for decks in range(lo, hi + 1):
            start = time.perf_counter()
            sheet = par_sheet(game, decks, split_prune=prune)
            path = os.path.join(folder, f"{game}-{decks}-decks.pdf")
            try:
                write_pdf(sheet, path, simulation=simulation_check(sheet, rounds, base_seed), basis=basis)
            except OSError as exc:
                print(f"error: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
                return 2
            print(f"wrote {path} ({time.perf_counter() - start:.1f} s)", flush=True)
    return 0
