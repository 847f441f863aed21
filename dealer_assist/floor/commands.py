"""``dealer-assist floor init|station`` and ``dealer-assist forward`` (issue 18).

::

    dealer-assist floor init --url URL                       # create / migrate the schema, roles
    dealer-assist floor station --url URL --table BJ-07 --pit PIT-2   # a station's role
    dealer-assist forward --db TABLE.db --to URL [--follow] [--interval S]

URL is a libpq URL or ``service=NAME``; passwords come from ``PGPASSFILE``,
``PGSERVICEFILE`` or the environment, never from the command line (a URL carrying one is
refused). ``floor`` runs as the floor's administrator; ``forward`` as the station's role.

Exit status: 0 done; 1 forwarding stopped for this table (its store no longer extends the
floor's copy); 2 bad input or the floor/store cannot be used (one line ``error: ...``).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from types import FrameType
from typing import NoReturn

from dealer_assist.floor.connection import FloorError, safe_url
from dealer_assist.store import StoreError

__all__ = ["floor", "forward"]


class _OneLineParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"error: {message}\n")
        raise SystemExit(2)


def _one_line(parser: argparse.ArgumentParser) -> None:
    parser.__class__ = _OneLineParser


def _fail(text: str) -> int:
    sys.stderr.write(f"error: {text}\n")
    return 2


class FloorCommand:
    def configure(self, parser: argparse.ArgumentParser) -> None:
        _one_line(parser)
        parser.description = "Set up the floor database: its schema, migrations and roles."
        actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True,
                                        parser_class=_OneLineParser)
        init = actions.add_parser("init", help="create or migrate the floor schema and its review role")
        init.add_argument("--url", required=True, help="the floor database (libpq URL or service=NAME)")
        station = actions.add_parser("station", help="register a table and create its station role")
        station.add_argument("--url", required=True, help="the floor database (libpq URL or service=NAME)")
        station.add_argument("--table", required=True, help="the table's name, e.g. BJ-07")
        station.add_argument("--pit", required=True, help="the table's pit, e.g. PIT-2")

    def run(self, args: argparse.Namespace) -> int:
        from dealer_assist.floor.schema import add_station, init_floor

        try:
            if args.action == "init":
                done = init_floor(args.url)
                if done:
                    print(f"floor: applied {', '.join(done)} on {safe_url(args.url)}")
                else:
                    print(f"floor: {safe_url(args.url)} is up to date")
                return 0
            role = add_station(args.url, args.table, args.pit)
            verb = "registered" if role.created else "already registered;"
            print(f"floor: table {role.table} (pit {role.pit}) {verb} station role {role.role}; "
                  "give it its credentials (e.g. ALTER ROLE ... PASSWORD in psql, or a certificate)")
            return 0
        except FloorError as err:
            return _fail(str(err))


class ForwardCommand:
    def configure(self, parser: argparse.ArgumentParser) -> None:
        _one_line(parser)
        parser.description = "Copy a table's finished rounds to the floor database, exactly once."
        parser.add_argument("--db", required=True, metavar="FILE", help="the table's store file")
        parser.add_argument("--to", required=True, metavar="URL",
                            help="the floor database (libpq URL or service=NAME)")
        parser.add_argument("--follow", action="store_true",
                            help="keep forwarding as rounds finish (until interrupted)")
        parser.add_argument("--interval", type=float, default=2.0, metavar="S",
                            help="with --follow: seconds between passes (default 2)")
        parser.add_argument("--batch", type=int, default=500, metavar="N",
                            help="rounds per transaction on the floor (default 500)")

    def run(self, args: argparse.Namespace) -> int:
        from dealer_assist.floor.connection import parse_url
        from dealer_assist.floor.forward import Forwarder, ForwardResult, ForwardStopped, LinkState

        try:
            parse_url(args.to)
        except FloorError as err:
            return _fail(str(err))
        if args.interval <= 0:
            return _fail("--interval must be more than 0")
        if args.batch < 1:
            return _fail("--batch must be 1 or more")
        try:
            with Forwarder(args.db, args.to, batch=args.batch) as forwarder:
                if not args.follow:
                    result = forwarder.forward()
                    last = "" if result.last_round is None else f"; the floor has rounds up to {result.last_round}"
                    print(f"forwarded {result.rounds} rounds, {result.audit} audit entries, "
                          f"{result.sessions} sessions of table {forwarder.table}{last}")
                    return 0
                stop = threading.Event()

                def _on_signal(signum: int, frame: FrameType | None) -> None:
                    stop.set()

                signal.signal(signal.SIGTERM, _on_signal)
                signal.signal(signal.SIGINT, _on_signal)
                shown = [""]

                def report(state: LinkState, done: ForwardResult | None) -> None:
                    if done is not None and (done.rounds or done.audit):
                        print(f"forwarded {done.rounds} rounds, {done.audit} audit entries", flush=True)
                    text = state.describe()
                    if state.error and state.offline_since is not None:
                        text += f" ({state.error})"
                    if text != shown[0]:
                        print(text, flush=True)
                        shown[0] = text

                state = forwarder.follow(interval=args.interval, report=report, should_stop=stop.is_set)
                if state.stopped:
                    sys.stderr.write(f"error: {state.stopped}\n")
                    return 1
                return 0
        except ForwardStopped as err:
            sys.stderr.write(f"error: {err}\n")
            return 1
        except (FloorError, StoreError) as err:
            return _fail(str(err))


floor = FloorCommand()
forward = ForwardCommand()
