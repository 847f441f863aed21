"""``dealer-assist odds GAME [--decks N] [--json] [--strategy] [--pdf FILE]``: a game's par sheet.

Every side bet's pay-table rows with their exact probabilities, the 6-7-8 bonus, insurance
and the main wager's house edge, computed from the pay tables and decks the engine plays
by (docs/odds.md), the main wager under the optimal play and under the printed chart.
``--strategy`` prints the chart with its composition-dependent exceptions; ``--pdf FILE``
writes the printable par sheet. Dueling 8's Tie on 18 is exact (tie18.py). Without ``--decks`` the game's usual deck count (rulesets.usual_decks).
A game or deck count the rules do not allow prints ``error: ...`` (naming 2.1) and exits 2.
"""

from __future__ import annotations

import argparse
import json
import sys

from dealer_assist.games import GAMES


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help=f"one of {', '.join(GAMES)}")
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
        strategy_chart,
        to_json,
        to_text,
    )

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
    sheet = par_sheet(args.game, decks)
    if args.pdf:
        from dealer_assist.odds.pdf import write_pdf

        try:
            write_pdf(sheet, args.pdf)
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
