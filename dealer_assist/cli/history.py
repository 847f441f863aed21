"""``dealer-assist history [--db FILE] list|export|verify``: read a table's round store.

``--db`` may come before or after the action; without it, the station's store
(dealer_assist/service/station.py: ``--config``, the configuration file, or a development run's).

- ``list [--json] [--player P] [--since T] [--until T] [--status S] [--irregular] [--limit N]``
  rounds, latest first (default the latest 100; ``--limit 0`` for all). ``--json``
  prints a JSON array of rounds, each with its ``id`` (spec/round-script.md; on the floor
  also its ``table``).
- ``export ID`` prints the round as a transcript (game, decks, areas, limits, seated,
  under_min_history as recorded, then the events in order) that ``settle`` reproduces.
- ``verify [--resettle] [--jobs N]`` recomputes the hash chains, checks each round against
  the seal in its finish record (re-settling the rounds without one; ``--resettle``: every
  round) and the head: exit 0 when intact, 1 naming the first row that does not match.
  ``--jobs``: worker processes for a large store (default: the cores, at most 4).

``--db`` may also be the floor database (a PostgreSQL URL or ``service=NAME``, issue 18):
the same actions on every table's forwarded rounds. ``list`` then also filters by
``--table``, ``--pit``, ``--game`` and ``--dealer``, and its rows name their table;
``export ID --table NAME`` names the table; ``verify [--table NAME]`` checks the floor's
chain of each table and the rows derived from each round's settle output.

The file is opened read-only (SQLite ``mode=ro``) and never created or changed. Bad
arguments, a missing file, or a file that is not a Dealer Assist store print one line
``error: ...`` on standard error and exit 2.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import sqlite3
import sys
from typing import Any

from dealer_assist.cli.common import OneLineParser, fail, whole_number
from dealer_assist.service.station import StationError
from dealer_assist.store import ROUND_STATUSES, RoundSummary, Store, StoreError, format_time


def parse_time(text: str, *, end: bool = False) -> str:
    """A --since/--until value as stored time text.

    Accepts ISO 8601 dates (``2026-11-25``) and times (``2026-11-25T23:00``,
    ``...Z``, ``...+01:00``); times without an offset are UTC. A bare date given as
    ``--until`` (``end=True``) includes that whole day.
    """
    try:
        if len(text) == 10:
            day = _dt.date.fromisoformat(text)
            moment = _dt.datetime(day.year, day.month, day.day, tzinfo=_dt.UTC)
            if end:
                moment += _dt.timedelta(days=1)
        else:
            moment = _dt.datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an ISO 8601 date or time (e.g. 2026-11-25 or 2026-11-25T23:00Z)"
        ) from None
    return format_time(moment)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the history options and its list/export/verify subcommands to ``parser``."""
    parser.description = "List, export and verify the rounds recorded in a table's store."
    db_help = ("the table's store file, or the floor database (postgresql://... or service=NAME); "
               "default: the station's store (docs/station.md)")
    parser.add_argument("--db", metavar="FILE|URL", help=db_help)
    parser.add_argument("--config", metavar="FILE", help="the station configuration naming the store")
    actions = parser.add_subparsers(
        dest="action", metavar="ACTION", required=True, parser_class=OneLineParser
    )
    # --db and --config may also follow the action (``history list --db F``): SUPPRESS keeps
    # an action's parser from overwriting a value given before the action with None.
    common = OneLineParser(add_help=False)
    common.add_argument("--db", metavar="FILE|URL", default=argparse.SUPPRESS, help=db_help)
    common.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help=argparse.SUPPRESS)

    listing = actions.add_parser("list", help="list rounds, latest first", parents=[common])
    listing.add_argument("--json", action="store_true", help="a JSON array of rounds (spec/round-script.md)")
    listing.add_argument("--player", help="only rounds this player took part in")
    listing.add_argument("--since", type=str, metavar="TIME", help="started at or after TIME (UTC)")
    listing.add_argument("--until", type=str, metavar="TIME", help="started before TIME (UTC)")
    listing.add_argument("--status", choices=ROUND_STATUSES, help="only rounds with this status")
    listing.add_argument(
        "--irregular", action="store_true", help="only rounds with rulings, voids or referrals"
    )
    listing.add_argument(
        "--limit", type=whole_number(0, bound="0 (all) or more"), default=100, help="at most N rounds (default 100, 0 = all)"
    )
    listing.add_argument("--table", help="floor only: rounds of this table")
    listing.add_argument("--pit", help="floor only: rounds of the tables of this pit")
    listing.add_argument("--game", help="floor only: rounds of this game (e.g. lucky8)")
    listing.add_argument("--dealer", help="floor only: rounds dealt by this dealer")

    export = actions.add_parser("export", help="print a round as a transcript (JSON)", parents=[common])
    export.add_argument("id", type=whole_number(1, what="round id", bound="positive"), metavar="ID", help="the round's id (from list)")
    export.add_argument("--table", help="floor only: the round's table (from list)")

    verify = actions.add_parser(
        "verify",
        help="check the keyed chains, each round against its seal (or re-settled), the head; "
        "exit 1 naming the first problem",
        parents=[common],
    )
    verify.add_argument(
        "--resettle",
        action="store_true",
        help="re-settle every round through the engine, sealed or not (the slow audit of the results)",
    )
    verify.add_argument(
        "--jobs",
        type=whole_number(1, 64),
        default=min(4, os.cpu_count() or 1),
        metavar="N",
        help="worker processes for a large store (default: the cores, at most 4)",
    )
    verify.add_argument(
        "--key",
        metavar="FILE",
        help="the station key (default: the store's name + .key, or $DEALER_ASSIST_STORE_KEY)",
    )
    verify.add_argument("--table", help="floor only: check this table only")
    verify.add_argument("--since", metavar="TIME", help="floor only: rounds started (audit entries forwarded) "
                        "at or after TIME (UTC); the chains continue from the row before")
    verify.add_argument("--until", metavar="TIME", help="floor only: ... before TIME (a date: that whole day)")


def _format_amount(value: Any) -> str:
    text = str(value)
    return text if text.startswith("-") else f"+{text}"


def _print_table(rounds: list[RoundSummary]) -> None:
    header = ("id", "started (UTC)", "game", "status", "irr", "players (net)")
    rows = []
    for r in rounds:
        people = ", ".join(
            f"{p} {_format_amount(r.net[p])}" if p in r.net else p for p in r.players
        )
        rows.append(
            (
                str(r.id),
                r.started_at[:19].replace("T", " "),
                r.game,
                r.status,
                "yes" if r.irregular else "",
                people,
            )
        )
    if not rows:
        print("(no rounds)")  # a fresh store, or no round matches the filters
        return
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    for line in [header, *rows]:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line)).rstrip())


def _store_path(args: argparse.Namespace) -> str:
    if args.db:
        return str(args.db)
    from dealer_assist.service.station import find_config, store_path

    path = store_path(find_config(args.config))
    if not path.exists():
        raise StoreError(f"no store at {path}, the station's (name one with --db FILE)")
    return str(path)


def _floor_only(args: argparse.Namespace) -> None:
    used = [f"--{name}" for name in ("table", "pit", "game", "dealer") if getattr(args, name, None)]
    if used:
        raise StoreError(f"{', '.join(used)} work on the floor database (--db postgresql://...), not a store file")


def _run(args: argparse.Namespace) -> int:
    args.db = _store_path(args)
    from dealer_assist.floor.connection import is_floor_url

    if is_floor_url(args.db):
        return _run_floor(args)
    _floor_only(args)
    if args.action == "list":
        try:
            since = parse_time(args.since) if args.since is not None else None
            until = parse_time(args.until, end=True) if args.until is not None else None
        except argparse.ArgumentTypeError as err:
            raise StoreError(str(err)) from None
    with Store.open_readonly(args.db, key_file=getattr(args, "key", None)) as store:
        if args.action == "list":
            rounds = store.list_rounds(
                player=args.player,
                since=since,
                until=until,
                status=args.status,
                irregular=True if args.irregular else None,
                limit=args.limit or None,
            )
            if args.json:  # spec/round-script.md: a JSON array of rounds
                print(json.dumps([r.as_json() for r in rounds], ensure_ascii=False))
            else:
                _print_table(rounds)
            return 0
        if args.action == "export":
            document = store.export_round(args.id)
            print(json.dumps(document, indent=1, ensure_ascii=False))
            return 0
        if args.since is not None or args.until is not None:
            raise StoreError("verify --since/--until: the floor only (a store is verified whole)")
        result = store.verify(jobs=args.jobs, resettle=args.resettle)
        if result.ok:
            checked = "every round re-settled" if args.resettle else "rounds sealed or re-settled"
            print(
                f"ok: {result.events} events, {result.rounds} rounds, "
                f"{result.audit} audit entries; keyed chains, {checked}, head record intact"
            )
            return 0
        print(f"FAILED: {result.problem}")
        return 1


def _print_floor_table(rounds: list[Any]) -> None:
    header = ("table", "id", "started (UTC)", "game", "dealer", "status", "irr", "players (net)")
    rows = []
    for r in rounds:
        people = ", ".join(
            f"{p} {_format_amount(r.net[p])}" if p in r.net else p for p in r.players
        )
        rows.append((r.table, str(r.id), r.started_at[:19].replace("T", " "), r.game, r.dealer or "",
                     r.status, "yes" if r.irregular else "", people))
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    for line in [header, *rows]:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line)).rstrip())
    if not rounds:
        print("(no rounds)")


def _run_floor(args: argparse.Namespace) -> int:
    from dealer_assist.floor.connection import FloorError
    from dealer_assist.floor.forward import parse_time as parse_store_time
    from dealer_assist.floor.reader import FloorReader

    try:
        since = until = None
        if args.action in ("list", "verify"):
            try:
                if args.since is not None:
                    since = parse_store_time(parse_time(args.since))
                if args.until is not None:
                    until = parse_store_time(parse_time(args.until, end=True))
            except argparse.ArgumentTypeError as err:
                raise StoreError(str(err)) from None
        with FloorReader(args.db) as reader:
            if args.action == "list":
                rounds = reader.list_rounds(
                    table=args.table, pit=args.pit, game=args.game, dealer=args.dealer,
                    player=args.player, since=since, until=until, status=args.status,
                    irregular=True if args.irregular else None, limit=args.limit or None,
                )
                if args.json:  # spec/round-script.md: a JSON array of rounds, each naming its table
                    print(json.dumps([r.as_json() for r in rounds], ensure_ascii=False))
                else:
                    _print_floor_table(rounds)
                return 0
            if args.action == "export":
                table = args.table
                if table is None:
                    tables = reader.tables_of_round(args.id)
                    if len(tables) != 1:
                        raise StoreError(
                            f"round {args.id} is on the floor for {len(tables)} tables: name one with --table"
                            if tables else f"no round {args.id} on the floor"
                        )
                    table = tables[0]
                document = reader.export_round(table, args.id)
                print(json.dumps(document, indent=1, ensure_ascii=False))
                return 0
            result = reader.verify(args.table, since=since, until=until)
            if result.ok:
                print(
                    f"ok: {result.tables} tables, {result.rounds} rounds, {result.events} events, "
                    f"{result.audit} audit entries; the floor's chains intact"
                )
                return 0
            print(f"FAILED: {result.problem}")
            return 1
    except FloorError as err:
        raise StoreError(str(err)) from None


def run(args: argparse.Namespace) -> int:
    """Run ``history``; returns the exit status (0, 1 for a failed verify, 2 for errors)."""
    try:
        return _run(args)
    except (StoreError, StationError) as err:
        return fail(str(err))
    except sqlite3.Error as err:
        return fail(f"{args.db}: {err}")
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); don't complain when Python flushes stdout.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
