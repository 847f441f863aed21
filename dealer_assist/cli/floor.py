"""``dealer-assist floor init|station``: set up the floor database (issue 18).

::

    dealer-assist floor init --url URL                       # create / migrate the schema, roles
    dealer-assist floor station --url URL --table BJ-07 --pit PIT-2   # a station's role
    dealer-assist floor clear-alarm --url URL --table BJ-07 --why TEXT  # after investigating
    dealer-assist floor alerts --url URL [--pit P] [--check] [--open]  # the alerts (--check: raise)
    dealer-assist floor ack --url URL --alert N --supervisor NAME --note TEXT

Run as the floor's administrator. URL is a libpq URL or ``service=NAME``; passwords come from
``PGPASSFILE``, ``PGSERVICEFILE`` or the environment, never from the command line (a URL
carrying one is refused). Exit 0 done, 2 with one line ``error: ...``.
"""

from __future__ import annotations

import argparse

from dealer_assist.cli.common import OneLineParser, fail
from dealer_assist.floor.connection import FloorError, safe_url

__all__ = ["configure", "run"]




class FloorCommand:
    def configure(self, parser: argparse.ArgumentParser) -> None:
        parser.description = "Set up the floor database: its schema, migrations and roles."
        actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True,
                                        parser_class=OneLineParser)
        init = actions.add_parser("init", help="create or migrate the floor schema and its review role")
        init.add_argument("--url", required=True, help="the floor database (libpq URL or service=NAME)")
        station = actions.add_parser("station", help="register a table and create its station role")
        station.add_argument("--url", required=True, help="the floor database (libpq URL or service=NAME)")
        station.add_argument("--table", required=True, help="the table's name, e.g. BJ-07")
        station.add_argument("--pit", required=True, help="the table's pit, e.g. PIT-2")
        clear = actions.add_parser("clear-alarm", help="clear a table's alarm (kept, with who and why)")
        clear.add_argument("--url", required=True, help="the floor database (libpq URL or service=NAME)")
        clear.add_argument("--table", required=True, help="the table whose forwarding stopped, e.g. BJ-07")
        clear.add_argument("--why", required=True, help="what was investigated and decided (kept with the alarm)")
        alerts = actions.add_parser("alerts", help="list the floor's alerts (--check: raise what is wrong now)")
        alerts.add_argument("--url", required=True, help="the floor database (libpq URL or service=NAME)")
        alerts.add_argument("--pit", help="one pit's tables only")
        alerts.add_argument("--check", action="store_true",
                            help="first raise the alerts of what is wrong now (link, stopped, win band, pace)")
        alerts.add_argument("--open", action="store_true", help="only the alerts not yet acknowledged")
        ack = actions.add_parser("ack", help="acknowledge an alert (kept with the supervisor, note, account, time)")
        ack.add_argument("--url", required=True, help="the floor database (libpq URL or service=NAME)")
        ack.add_argument("--alert", required=True, type=int, help="the alert's number (floor alerts lists them)")
        ack.add_argument("--supervisor", required=True, help="the supervisor's name")
        ack.add_argument("--note", required=True, help="what was found and done")

    def run(self, args: argparse.Namespace) -> int:
        from dealer_assist.floor.schema import add_station, clear_alarm, init_floor

        try:
            if args.action == "init":
                done = init_floor(args.url)
                if done:
                    print(f"floor: applied {', '.join(done)} on {safe_url(args.url)}")
                else:
                    print(f"floor: {safe_url(args.url)} is up to date")
                return 0
            if args.action in ("alerts", "ack"):
                return self._alerts(args)
            if args.action == "clear-alarm":
                for alarm in clear_alarm(args.url, args.table, args.why):
                    print(f"floor: cleared the alarm of {alarm.table} raised {alarm.raised_at:%Y-%m-%d %H:%M} UTC: "
                          f"{alarm.reason}")
                return 0
            role = add_station(args.url, args.table, args.pit)
            verb = "registered" if role.created else "already registered;"
            print(f"floor: table {role.table} (pit {role.pit}) {verb} station role {role.role}; "
                  "give it its credentials (e.g. ALTER ROLE ... PASSWORD in psql, or a certificate)")
            return 0
        except FloorError as err:
            return fail(str(err))


    def _alerts(self, args: argparse.Namespace) -> int:
        from dealer_assist.floor.reader import FloorReader

        with FloorReader(args.url) as reader:
            if args.action == "ack":
                reader.acknowledge(args.alert, args.supervisor, args.note)
                print(f"floor: alert {args.alert} acknowledged by {args.supervisor.strip()}")
                return 0
            if args.check:
                made = reader.check_alerts(args.pit)
                print(f"floor: {len(made)} new alerts")
            for a in reader.alerts(args.pit, open_only=args.open):
                state = "open" if a.acked_at is None else (
                    f"acknowledged by {a.acked_by} ({a.ack_account}) {a.acked_at:%Y-%m-%d %H:%M} UTC: {a.ack_note}")
                print(f"{a.alert_id}\t{a.raised_at:%Y-%m-%d %H:%M} UTC\t{a.table}\t{a.kind}\t{a.detail}\t{state}")
        return 0


_COMMAND = FloorCommand()
configure = _COMMAND.configure
run = _COMMAND.run
