"""``dealer-assist floor init|station``: set up the floor database (issue 18).

::

    dealer-assist floor init --url URL                       # create / migrate the schema, roles
    dealer-assist floor upgrade --url URL [--batch N] [--lock-timeout S] [--attempts N] [--pause S] [--no-swap]
                              # the same, online migrations' steps tuned (progress per batch; resumable)
    dealer-assist floor station --url URL --table BJ-07 --pit PIT-2   # a station's role
    dealer-assist floor clear-alarm --url URL --table BJ-07 --why TEXT  # after investigating
    dealer-assist floor alerts --url URL [--pit P] [--check] [--open]  # the alerts (--check: raise);
        one a line: id, raised, table, kind, subject (player, shoe or -), detail, state
    dealer-assist floor ack --url URL --alert N --supervisor NAME --note TEXT
    dealer-assist floor chips --url URL --table T --day D --shift S --kind opener|closer|fill|credit
                              --chips 100x20,25x40 --dealer NAME --supervisor NAME
    dealer-assist floor drop --url URL --table T --day D --shift S --cash N [--markers N]
                             --counted-by NAME --witness NAME
    dealer-assist floor buy-in --url URL --table T --player P --amount N [--marker] --supervisor NAME
    dealer-assist floor shift --url URL --day D --shift S [--pit P] [--csv FILE] [--pdf FILE]
                              # win and hold % (win / drop); the signed shift report as CSV / PDF
    dealer-assist floor day --url URL --day D [--pit P] [--csv FILE] [--pdf FILE]  # every shift of a day
    dealer-assist floor signer --url URL --name NAME                  # an account that signs, its PIN
    dealer-assist floor denominations --url URL --table T --chips 1000,100,25,5
    dealer-assist floor edges [--game G] [--decks N]   # par sheets' edges kept on disk, once (install)
    dealer-assist floor serve --url URL [--read-url STANDBY] --state PATH [--log PATH] [--interval S] [--stale-after S]
                              # the floor service: every alert, continuously (systemd: dealer-assist-floor)

Signers are accounts (``floor signer``, the administrator's): each signature is confirmed with
the account's PIN, read from the terminal (or one a line on standard input: the first signer's,
then the second's) — never from the command line.
    dealer-assist floor rating --url URL --player P --since D --until D [--csv FILE] [--pdf FILE]

Run as the floor's administrator. URL is a libpq URL or ``service=NAME``; passwords come from
``PGPASSFILE``, ``PGSERVICEFILE`` or the environment, never from the command line (a URL
carrying one is refused). Exit 0 done, 2 with one line ``error: ...``.
"""

from __future__ import annotations

import argparse
import sys

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
        upgrade = actions.add_parser("upgrade", help="migrate the floor, online migrations step by step "
                                     "(forwarding goes on; killed, a second run resumes)")
        upgrade.add_argument("--url", required=True, help="the floor database (libpq URL or service=NAME)")
        upgrade.add_argument("--batch", type=int, default=1000, help="rows per backfill transaction (default 1000)")
        upgrade.add_argument("--lock-timeout", type=float, default=2.0,
                             help="seconds a create or swap waits for its locks before it gives up and tries "
                                  "again (default 2: forwarders wait at most that long)")
        upgrade.add_argument("--attempts", type=int, default=5, help="tries of a create or swap (default 5)")
        upgrade.add_argument("--pause", type=float, default=0.0, help="seconds of rest between batches (default 0)")
        upgrade.add_argument("--no-swap", action="store_true",
                             help="create and backfill now, leave the swap (a short lock) for a later run")
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
        # table accounting (issue 25, item 5)
        chips = actions.add_parser("chips", help="record an opener, closer, fill or credit (two signatures)")
        drop = actions.add_parser("drop", help="record a table's drop for a shift (cash and markers)")
        buy = actions.add_parser("buy-in", help="record a player's buy-in at a table")
        shift = actions.add_parser("shift", help="a shift's win and hold per table, pit and floor")
        whole_day = actions.add_parser("day", help="every shift of a gaming day per table, with the day's totals")
        rating = actions.add_parser("rating", help="a player's rating: rounds, wagered, net, buy-in, time played")
        signer = actions.add_parser("signer", help="add a signing account or give it a new PIN (PIN on stdin)")
        signer.add_argument("--name", required=True, help="the account's name (one account whatever its case)")
        denominations = actions.add_parser("denominations", help="a table's chip denominations (fills, counts)")
        denominations.add_argument("--table", required=True, help="the table, e.g. BJ-07")
        denominations.add_argument("--chips", required=True, help="its denominations, e.g. 1000,100,25,5")
        edges = actions.add_parser("edges", help="work out and keep every par sheet's edges once (at install)")
        edges.add_argument("--game", action="append", help="only this game (again for more)")
        edges.add_argument("--decks", type=int, action="append", help="only this deck count (again for more)")
        edges.add_argument("--background", action="store_true",
                           help="at a low priority (as the forwarder starts it for a par sheet not kept)")
        serve = actions.add_parser("serve", help="the floor service: evaluate every alert continuously")
        serve.add_argument("--url", required=True, help="the floor database, as the floor service's role")
        serve.add_argument("--read-url", metavar="URL",
                           help="the hot standby the pits read (default: the --config file's [floor] read_url): "
                                "only watched, its lag in the state file and log; every alert is judged and "
                                "raised on --url, the primary")
        serve.add_argument("--config", metavar="FILE",
                           help="a configuration whose [floor] read_url names that standby (as the pit's "
                                "review --config; --read-url overrides it)")
        serve.add_argument("--state", required=True, help="its state file (JSON: reachable or not, since when)")
        serve.add_argument("--log", help="its log file (default: standard output, e.g. the journal)")
        serve.add_argument("--interval", type=float, default=10.0, help="seconds between passes (default 10)")
        serve.add_argument("--stale-after", type=float, default=30.0,
                           help="link down after this many seconds without a heartbeat (default 30)")
        serve.add_argument("--min-pace", type=int, default=30, help="rounds an hour under which pace alerts")
        serve.add_argument("--no-win-band", action="store_true",
                           help="no win-band alerts (no par sheets worked out: a floor that watches only links)")
        serve.add_argument("--verify-every", type=float, default=300.0,
                           help="seconds between verifies of the last day's chains (default 300; 0: never)")
        serve.add_argument("--once", action="store_true", help="one pass, then exit")
        serve.add_argument("--protect-hours", type=float, default=8.0,
                           help="advantage play judged over the rounds of the last HOURS (default 8)")
        serve.add_argument("--shoe-edge", type=float, default=1.0,
                           help="a shoe favours the players above this expected return, in %% (default 1)")
        serve.add_argument("--no-protect", action="store_true", help="no game-protection alerts (issue 36)")
        for sub in (chips, drop, buy, shift, whole_day, rating, signer, denominations):
            sub.add_argument("--url", required=True, help="the floor database (libpq URL or service=NAME)")
        for sub in (chips, drop, shift, whole_day):
            sub.add_argument("--day", required=True, help="the gaming day, YYYY-MM-DD")
        for sub in (chips, drop, shift):
            sub.add_argument("--shift", required=True, help="the shift's name, e.g. day, swing, grave")
        for sub in (chips, drop, buy):
            sub.add_argument("--table", required=True, help="the table, e.g. BJ-07")
        chips.add_argument("--kind", required=True, choices=("opener", "closer", "fill", "credit"))
        chips.add_argument("--chips", required=True, help="denomination x count, e.g. 1000x4,100x100,25x200")
        chips.add_argument("--dealer", required=True, help="the dealer who signs")
        chips.add_argument("--supervisor", required=True, help="the supervisor who signs (not the dealer)")
        drop.add_argument("--cash", required=True, help="cash in the drop box")
        drop.add_argument("--markers", default="0", help="markers issued at the table")
        drop.add_argument("--counted-by", required=True, help="who counted")
        drop.add_argument("--witness", required=True, help="who witnessed the count (another person)")
        buy.add_argument("--player", required=True)
        buy.add_argument("--amount", required=True)
        buy.add_argument("--marker", action="store_true", help="a marker (credit), not cash")
        buy.add_argument("--supervisor", required=True)
        for sub in (shift, whole_day):
            sub.add_argument("--pit", help="one pit's tables only")
        for sub in (shift, whole_day, rating):  # issue 35, Build 5: reports a shift manager signs
            sub.add_argument("--csv", metavar="FILE", help="write the report as CSV (exact decimals) to FILE")
            sub.add_argument("--pdf", metavar="FILE", help="write the report as a PDF with a signature block to FILE")
        rating.add_argument("--player", required=True, help="the player's name as recorded")
        rating.add_argument("--since", required=True, help="from this day (YYYY-MM-DD, UTC)")
        rating.add_argument("--until", required=True, help="to this day, not included (YYYY-MM-DD, UTC)")

    def run(self, args: argparse.Namespace) -> int:
        from dealer_assist.floor.schema import add_station, clear_alarm, init_floor

        try:
            if args.action in ("init", "upgrade"):
                from dealer_assist.floor.online import OnlineOptions

                options = OnlineOptions()
                if args.action == "upgrade":
                    options = OnlineOptions(batch=args.batch, lock_timeout=args.lock_timeout, attempts=args.attempts,
                                            pause=args.pause, swap=not args.no_swap)
                try:
                    done = init_floor(args.url, options, progress=lambda line: print(f"floor: {line}", flush=True))
                except KeyboardInterrupt:
                    # the batch in flight is rolled back by the server; every step and batch done is kept
                    print("floor: interrupted: what was done is kept; `dealer-assist floor upgrade` again resumes",
                          file=sys.stderr)
                    return 130
                if done:
                    print(f"floor: applied {', '.join(done)} on {safe_url(args.url)}")
                elif options.swap:
                    print(f"floor: {safe_url(args.url)} is up to date")
                return 0
            if args.action == "edges":
                import os

                from dealer_assist.floor.edges import build_edges, every_sheet

                if args.background:
                    os.nice(10)

                sheets = [(g, d) for g, d in every_sheet()
                          if (not args.game or g in args.game) and (not args.decks or d in args.decks)]
                if not sheets:
                    raise FloorError("no game and deck count matches --game/--decks (games: "
                                     + ", ".join(sorted({g for g, _ in every_sheet()})) + ")")
                for game, decks in build_edges(sheets):
                    print(f"floor: edges of {game} at {decks} decks kept")
                return 0
            if args.action == "serve":
                return self._serve(args)
            if args.action in ("alerts", "ack"):
                return self._alerts(args)
            if args.action in ("chips", "drop", "buy-in", "shift", "day", "rating", "signer", "denominations"):
                return self._accounting(args)
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
                # the subject (the player, the shoe; "-" for a table's own kinds) tells apart the
                # alerts of one table and kind (migration 0013: one open alert per table, kind, subject)
                print(f"{a.alert_id}\t{a.raised_at:%Y-%m-%d %H:%M} UTC\t{a.table}\t{a.kind}\t{a.subject or '-'}"
                      f"\t{a.detail}\t{state}")
        return 0

    def _serve(self, args: argparse.Namespace) -> int:
        import datetime as dt
        import signal
        import threading
        from pathlib import Path

        from dealer_assist.floor.service import FloorService, ServiceSettings

        if args.interval <= 0 or args.stale_after <= 0 or args.min_pace < 0 or args.verify_every < 0:
            raise FloorError("--interval and --stale-after must be more than 0, --min-pace and --verify-every "
                             "0 or more")
        if not args.protect_hours > 0 or not -100 < args.shoe_edge < 100:
            raise FloorError("--protect-hours must be more than 0 and --shoe-edge a percentage (-100 to 100)")
        if not args.read_url and args.config:
            # the named configuration's [floor] read_url, as the pit reads it (review --config)
            from dealer_assist.service.station import StationError, find_config

            try:
                cfg = find_config(args.config)
            except StationError as exc:
                raise FloorError(str(exc)) from None
            args.read_url = (cfg.floor_read_url if cfg is not None else "") or None
        if args.read_url:
            from dealer_assist.floor.connection import parse_url

            parse_url(args.read_url)  # a malformed one, or one carrying a password: refused now
        checks = []
        if not args.no_protect:  # issue 36, Build 4: advantage play, a shoe favouring the players
            from dealer_assist.protect.live import LiveSettings, ProtectionCheck

            checks.append(ProtectionCheck(LiveSettings(window=dt.timedelta(hours=args.protect_hours),
                                                       level=args.shoe_edge / 100), background=not args.once))
        service = FloorService(args.url, Path(args.state), log_path=Path(args.log) if args.log else None,
                               settings=ServiceSettings(interval=args.interval,
                                                        stale_after=dt.timedelta(seconds=args.stale_after),
                                                        min_pace=args.min_pace, win_band=not args.no_win_band,
                                                        verify_every=args.verify_every), checks=checks,
                               standby_url=args.read_url)
        for check in checks:
            check.log = service.log
        if args.once:
            done = service.pass_once()
            return 0 if done.reachable else 1
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        service.run(stop)
        return 0

    def _accounting(self, args: argparse.Namespace) -> int:
        import datetime as dt

        from dealer_assist.floor import accounting as acc
        from dealer_assist.floor import reports
        from dealer_assist.floor.connection import REVIEW, connect

        def day(text: str, what: str = "--day") -> dt.date:
            try:
                return dt.date.fromisoformat(text)
            except ValueError:
                raise FloorError(f"{what}: {text!r} is not a day (YYYY-MM-DD)") from None

        def money(value: object) -> str:
            return "-" if value is None else f"{value:,.2f}"

        with connect(args.url, timeouts=REVIEW) as conn:
            if args.action == "signer":
                (pin,) = _pins([args.name], confirm=True)
                print(f"floor: signer {acc.set_signer(conn, args.name, pin)} has its PIN")
            elif args.action == "denominations":
                values = [acc.amount(part.strip(), "--chips") for part in args.chips.split(",") if part.strip()]
                acc.set_denominations(conn, args.table, values)
                print(f"floor: {args.table} uses chips of {', '.join(format(v, 'f') for v in sorted(values, reverse=True))}")
            elif args.action == "chips":
                chips = acc.parse_chips(args.chips)
                shift_day = day(args.day)
                dealer_pin, supervisor_pin = _pins([args.dealer, args.supervisor])
                done = acc.record_chips(conn, args.table, shift_day, args.shift, args.kind, chips,
                                        args.dealer, dealer_pin, args.supervisor, supervisor_pin)
                after = (" (after the closer: kept as an adjustment beside the closed shift, not in its figures)"
                         if done.adjustment else "")
                print(f"floor: {args.kind} of {args.table} ({args.day} {args.shift.strip().lower()}) "
                      f"{money(done.total)}, signed by {args.dealer.strip().lower()} and "
                      f"{args.supervisor.strip().lower()}{after}")
            elif args.action == "drop":
                cash, markers = acc.amount(args.cash, "--cash"), acc.amount(args.markers, "--markers")
                shift_day = day(args.day)
                counted_pin, witness_pin = _pins([args.counted_by, args.witness])
                acc.record_drop(conn, args.table, shift_day, args.shift, cash, markers, args.counted_by, counted_pin,
                                args.witness, witness_pin)
                print(f"floor: drop of {args.table} ({args.day} {args.shift.strip().lower()}) {money(cash + markers)} "
                      f"(cash {money(cash)}, markers {money(markers)})")
            elif args.action == "buy-in":
                value = acc.amount(args.amount, "--amount")
                (pin,) = _pins([args.supervisor])
                acc.record_buy_in(conn, args.table, args.player, value, "marker" if args.marker else "cash",
                                  args.supervisor, pin)
                print(f"floor: buy-in of {args.player} at {args.table}: {money(value)}")
            elif args.action in ("shift", "day"):
                if args.action == "shift":
                    report = reports.shift_document(conn, day(args.day), args.shift, pit=args.pit,
                                                    database=safe_url(args.url))
                else:
                    report = reports.day_document(conn, day(args.day), pit=args.pit, database=safe_url(args.url))
                if args.csv or args.pdf:
                    reports.write_files([(args.csv, reports.report_csv(report))] * bool(args.csv)
                                        + [(args.pdf, reports.report_pdf(report))] * bool(args.pdf))
                    f = report.total
                    print(f"floor: {args.action} report {report.document}: drop {money(f.drop)}, win {money(f.win)}, "
                          f"hold {'-' if f.hold_percent is None else f'{f.hold_percent} %'}; written to "
                          + ", ".join(p for p in (args.csv, args.pdf) if p))
                    return 0
                print("\t".join(("", "opener", "closer", "fills", "credits", "drop", "win", "hold %", "rounds",
                                 "rounds net", "theo win", "after close", "win with after close",
                                 "terminal buy-ins", "terminal cash-outs")))
                for row in report.rows:
                    f = row.figures
                    key = f.key if args.action == "shift" else f"{row.shift} {f.key}"
                    print("\t".join((key, money(f.opener), money(f.closer), money(f.fills), money(f.credits),
                                     money(f.drop), money(f.win),
                                     "-" if f.hold_percent is None else f"{f.hold_percent}", str(f.rounds),
                                     money(f.rounds_net), money(f.theo),
                                     f"{money(f.adjustment)} ({f.adjustments})" if f.adjustments else "-",
                                     money(f.win_adjusted) if f.adjustments else "-",
                                     money(f.terminal_buy_ins), money(f.terminal_cash_outs))))
            else:
                rated = reports.rating_document(conn, args.player, day(args.since, "--since"),
                                                day(args.until, "--until"), database=safe_url(args.url))
                if args.csv or args.pdf:
                    reports.write_files([(args.csv, reports.rating_csv(rated))] * bool(args.csv)
                                        + [(args.pdf, reports.rating_pdf(rated))] * bool(args.pdf))
                    print(f"floor: rating {rated.document} of {rated.rating.player} written to "
                          + ", ".join(p for p in (args.csv, args.pdf) if p))
                    return 0
                r = rated.rating
                minutes = int(r.time_played.total_seconds() // 60)
                print(f"{r.player}: {r.rounds} rounds, wagered {money(r.wagered)}, average bet {money(r.average_bet)}, "
                      f"net {money(r.net)}, theo {money(rated.theo)}, buy-in {money(r.buy_in)} "
                      f"(markers {money(r.markers)}), time played {minutes // 60} h {minutes % 60:02d} min")
        return 0


def _pins(names: list[str], *, confirm: bool = False) -> list[str]:
    """Each signer's PIN: asked on the terminal, else one a line on standard input."""
    import getpass
    import sys

    pins: list[str] = []
    for name in names:
        if sys.stdin.isatty():
            pin = getpass.getpass(f"PIN of {name.strip()}: ")
            if confirm and getpass.getpass(f"PIN of {name.strip()} again: ") != pin:
                raise FloorError("the two PINs differ")
        else:
            line = sys.stdin.readline()
            if not line:
                raise FloorError(f"no PIN for {name.strip()} on standard input (one a line, in the signers' order)")
            pin = line.rstrip("\r\n")
        pins.append(pin)
    return pins


_COMMAND = FloorCommand()
configure = _COMMAND.configure
run = _COMMAND.run
