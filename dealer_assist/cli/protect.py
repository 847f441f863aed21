"""``dealer-assist protect --db FILE|URL [--table T] [--since T] [--until T] [--player P] [--json]
[--pdf FILE] [--csv FILE]``: each player's main wager against the true count of the shoe at
each round's start and their play against the printed chart and the count's index plays
(issue 36; dealer_assist/protect, docs/protect.md). ``--json``: one object a line.
``--pdf``/``--csv`` (with ``--player``): that player's report (protect/export.py). ``--db`` a
floor URL (postgresql://... or service=NAME, as ``history``): every table's rounds on the floor
(protect/live.py ``floor_report``)."""

from __future__ import annotations

import argparse
import json
import sqlite3
from typing import TYPE_CHECKING

from dealer_assist.cli.common import fail

if TYPE_CHECKING:
    from dealer_assist.protect.report import PlayerReport


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", required=True, metavar="FILE|URL",
                        help="the table's store file, or the floor database (postgresql://... or service=NAME): "
                             "every table's rounds on the floor")
    parser.add_argument("--table", metavar="NAME", help="only this table's rounds")
    parser.add_argument("--since", metavar="TIME", help="rounds started at or after TIME (UTC)")
    parser.add_argument("--until", metavar="TIME", help="rounds started before TIME (a date: that whole day)")
    parser.add_argument("--player", metavar="NAME", help="only this player")
    parser.add_argument("--json", action="store_true", help="one JSON object a line")
    parser.add_argument("--pdf", metavar="FILE", help="write the player's report as a PDF (needs --player)")
    parser.add_argument("--csv", metavar="FILE", help="write the player's rounds as a CSV (needs --player)")


def _line(r: object) -> str:
    from dealer_assist.protect.report import PlayerReport

    assert isinstance(r, PlayerReport)
    corr = "-" if r.correlation is None else f"{r.correlation:+.2f}"
    edge = "-" if r.estimated_edge is None else f"{r.estimated_edge * 100:+.2f}%"
    win = "-" if r.win_per_hour is None else f"{r.win_per_hour:+.2f}"
    flag = "FLAGGED: " + "; ".join(r.reasons) if r.flagged else ""
    share = r.precision.share if r.precision else None
    chart = "-" if share is None else f"{share * 100:.1f}%"
    index = r.precision.index_plays if r.precision else 0
    return (f"{r.player:<16} {r.rounds:>6} {r.total_wager:>12} {r.average_wager:>10.2f} {corr:>6} "
            f"{r.slope:>8.2f} {r.p_value:>9.2g} {edge:>8} {win:>10} {chart:>7} {index:>5}  {flag}").rstrip()


def _floor(args: argparse.Namespace, since: str | None, until: str | None) -> list[PlayerReport]:
    """The report over the floor's rounds (``--db URL``): read through the pit's reader role."""
    from dealer_assist.floor.connection import FloorError, safe_url
    from dealer_assist.floor.forward import parse_time as moment
    from dealer_assist.floor.reader import FloorReader
    from dealer_assist.protect.live import floor_report
    from dealer_assist.store import StoreError

    try:
        with FloorReader(args.db) as reader:
            return floor_report(reader.conn, f"the floor ({safe_url(args.db)})", table=args.table,
                                     since=moment(since) if since else None, until=moment(until) if until else None,
                                     player=args.player)
    except FloorError as err:
        raise StoreError(str(err)) from None


def run(args: argparse.Namespace) -> int:
    from dealer_assist.cli.history import parse_time
    from dealer_assist.floor.connection import is_floor_url, safe_url
    from dealer_assist.protect.report import ProtectError, report
    from dealer_assist.store import Store, StoreError

    if (args.pdf or args.csv) and not args.player:
        return fail("--pdf and --csv write one player's report: name the player (--player NAME)")
    try:
        try:
            since = parse_time(args.since) if args.since is not None else None
            until = parse_time(args.until, end=True) if args.until is not None else None
        except argparse.ArgumentTypeError as err:
            raise StoreError(str(err)) from None
        if is_floor_url(args.db):
            reports = _floor(args, since, until)
        else:
            with Store.open_readonly(args.db) as store:
                reports = report(store, table=args.table, since=since, until=until, player=args.player)
    except (StoreError, ProtectError) as err:
        return fail(str(err))
    except sqlite3.Error as err:
        return fail(f"{args.db}: {err}")
    if args.pdf or args.csv:
        if not reports:
            return fail(f"no rounds of player {args.player} in that time")
        from pathlib import Path

        from dealer_assist.protect.export import write_csv, write_pdf

        window = ", ".join(part for part in (
            f"table {args.table}" if args.table else "every table",
            f"from {since}" if since else "", f"before {until}" if until else "") if part)
        try:
            if args.csv:
                write_csv(reports[0], Path(args.csv))
            if args.pdf:
                source = safe_url(args.db) if is_floor_url(args.db) else args.db
                write_pdf(reports[0], Path(args.pdf), store=source, window=window)
        except OSError as err:
            return fail(f"cannot write the report: {err.strerror or err} ({err.filename or ''})")
    if args.json:
        for r in reports:
            print(json.dumps(r.as_json(), ensure_ascii=False))
        return 0
    if reports:
        print(f"count: {reports[0].count}")
    print(f"{'player':<16} {'rounds':>6} {'total':>12} {'average':>10} {'corr':>6} {'slope':>8} {'p':>9} "
          f"{'edge':>8} {'win/hour':>10} {'chart':>7} {'index':>5}")
    for r in reports:
        print(_line(r))
    return 0
