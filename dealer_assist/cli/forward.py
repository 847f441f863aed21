"""``dealer-assist forward --db TABLE.db --to URL [--follow]`` (issue 18).

Copies the table's finished rounds not yet on the floor, exactly once, and prints how many;
``--follow`` keeps forwarding as rounds finish and prints the link's state when it changes.
Runs as the station's role; credentials through libpq (``PGPASSFILE``, ``PGSERVICEFILE``).

Exit status: 0 done; 1 forwarding stopped for this table (its store no longer extends the
floor's copy); 2 bad input or the floor/store cannot be used (one line ``error: ...``).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from types import FrameType

from dealer_assist.cli.common import fail
from dealer_assist.floor.connection import FloorError
from dealer_assist.store import StoreError

__all__ = ["configure", "run"]




class ForwardCommand:
    def configure(self, parser: argparse.ArgumentParser) -> None:
        parser.description = "Copy a table's finished rounds to the floor database, exactly once."
        parser.add_argument("--db", required=True, metavar="FILE", help="the table's store file")
        parser.add_argument("--to", required=True, metavar="URL",
                            help="the floor database (libpq URL or service=NAME)")
        parser.add_argument("--follow", action="store_true",
                            help="keep forwarding as rounds finish (until interrupted)")
        parser.add_argument("--interval", type=float, default=2.0, metavar="S",
                            help="with --follow: seconds between passes (default 2)")
        parser.add_argument("--on-demand", action="store_true",
                            help="with --follow: connect for each pass only (no connection held while idle)")
        parser.add_argument("--batch", type=int, default=500, metavar="N",
                            help="rounds per transaction on the floor (default 500)")

    def run(self, args: argparse.Namespace) -> int:
        from dealer_assist.floor.connection import parse_url
        from dealer_assist.floor.forward import Forwarder, ForwardResult, ForwardStopped, LinkState

        try:
            parse_url(args.to)
        except FloorError as err:
            return fail(str(err))
        if args.interval <= 0:
            return fail("--interval must be more than 0")
        if args.batch < 1:
            return fail("--batch must be 1 or more")
        try:
            with Forwarder(args.db, args.to, batch=args.batch) as forwarder:
                if not args.follow:
                    result = forwarder.forward()
                    last = "" if result.last_round is None else f"; the floor has rounds up to {result.last_round}"
                    again = f", {result.versions} rounds finished again" if result.versions else ""
                    print(f"forwarded {result.rounds} rounds, {result.audit} audit entries, "
                          f"{result.sessions} sessions of table {forwarder.table}{again}{last}")
                    return 0
                stop = threading.Event()

                def _on_signal(signum: int, frame: FrameType | None) -> None:
                    stop.set()

                signal.signal(signal.SIGTERM, _on_signal)
                signal.signal(signal.SIGINT, _on_signal)
                shown = [""]

                def report(state: LinkState, done: ForwardResult | None) -> None:
                    if done is not None and (done.rounds or done.audit or done.versions):
                        again = f", {done.versions} rounds finished again" if done.versions else ""
                        print(f"forwarded {done.rounds} rounds, {done.audit} audit entries{again}", flush=True)
                    text = state.describe()
                    if state.error and state.offline_since is not None:
                        text += f" ({state.error})"
                    if text != shown[0]:
                        print(text, flush=True)
                        shown[0] = text

                state = forwarder.follow(interval=args.interval, report=report, should_stop=stop.is_set,
                                         hold_connection=not args.on_demand)
                if state.stopped:
                    sys.stderr.write(f"error: {state.stopped}\n")
                    return 1
                return 0
        except ForwardStopped as err:
            sys.stderr.write(f"error: {err}\n")
            return 1
        except (FloorError, StoreError) as err:
            return fail(str(err))



_COMMAND = ForwardCommand()
configure = _COMMAND.configure
run = _COMMAND.run
