"""The floor at scale (issue 18): a benchmark that prints figures (not a test).

    python scripts/floor_bench.py [--tables 50] [--days 30] [--per-hour 60] [--keep]

Starts a throwaway PostgreSQL server (tests/floor/pgserver.py), creates the floor, and fills
it with ``tables x days x 24 x per-hour`` rounds: one table's month goes through the real
forwarder from a real station store (that is the catch-up figure, and the table ``verify``
checks; a reused ``--store`` is forwarded as its own table, which must be one of the bench's);
the other tables' rounds, players, settlements and events are generated in the
server (the same row shapes and sizes as forwarded rows). Then it times the pit's latest
page, a player's rounds across all tables, a pit's day sorted by the house's net and filtered
by "net >= 200", a pit's hourly win/hold for one day, a player's
play across tables, and verify of the forwarded table's month. Every listing and figure reads
each round's latest finish (floor.rounds_latest), so some generated rounds have later versions
(``--refinished-every``). The forwarded table's audit entries are placed as if forwarded as
written (spread over its days), so a range verify reads its share; verify of a day and a week
is timed 5 times, with the server's CPU (not inflated by other work on the cores).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from dealer_assist.floor import schema  # noqa: E402
from dealer_assist.floor.forward import Forwarder  # noqa: E402
from dealer_assist.floor.reader import FloorReader  # noqa: E402
from dealer_assist.floor.schema import add_station, init_floor  # noqa: E402
from tests.floor.pgserver import Server  # noqa: E402
from tests.floor.stations import DOCUMENTS, approval_for, open_station, result_of  # noqa: E402

START = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)


def station_store(path: Path, table: str, pit: str, rounds: int, per_hour: int) -> None:
    """A real station store: ``rounds`` whole rounds, one every 60/per_hour minutes from START."""
    from dealer_assist.store.common import format_time

    with open_station(path) as store:
        store.claim_table(table, pit)
        store.db.execute("PRAGMA synchronous = OFF")  # building test data only
        step = dt.timedelta(minutes=60 / per_hour)
        session = store.start_session(game="mixed", decks=6, areas=7, limits={}, dealer="dealer-5-1")
        moments = []
        for n in range(rounds):
            index = n % len(DOCUMENTS)
            document = DOCUMENTS[index]
            approval = None
            for event in document["events"]:  # a void with its supervisor's approval
                approval = approval or approval_for(store, event, None)
            rid = store.start_round({k: v for k, v in document.items() if k != "events"}, document["events"],
                                    session_id=session, result=result_of(index), approval=approval)
            moment = format_time(START + n * step)
            moments.append((moment, moment, session, rid))
        # Spread the rounds over the month (this rewrites chained start times: the station
        # store's own verify fails afterwards; the floor's copy is what this bench checks).
        conn = store.db.conn
        conn.executemany("UPDATE rounds SET started_at = ?, ended_at = ?, session_id = ?, source = 'live' "
                         "WHERE id = ?", moments)
        conn.commit()


def generate(admin: str, tables: list[tuple[str, str]], rounds: int, per_hour: int, refinished_every: int,
             child_start: bool = True, start: dt.datetime = START) -> None:
    """The other tables' rounds, generated in the server with the forwarded rows' shapes; one
    round in ``refinished_every`` was finished again at its station after it was forwarded (a
    version in floor.round_versions: void, the house's net 0), one in five of those twice."""
    sample = 4  # the Lucky 8 example: 2 players, settlements, typical sizes
    config = json.dumps({k: v for k, v in DOCUMENTS[sample].items() if k != "events"}, separators=(",", ":"))
    result = json.dumps(result_of(sample), separators=(",", ":"))
    events = [json.dumps(e, separators=(",", ":")) for e in DOCUMENTS[sample]["events"]]
    minutes = 60 / per_hour
    # the round's start on its rows (migration 0009); without: a floor of 0008, to time the migration
    child = {"start": ", started_at", "r_start": ", r.started_at"} if child_start else {"start": "", "r_start": ""}
    with psycopg.connect(admin, autocommit=True) as conn:
        for t, (table, pit) in enumerate(tables, start=1):
            began = time.perf_counter()
            conn.execute(
                "INSERT INTO floor.rounds (table_name, round_id, pit, session_id, number, source, game, dealer, "
                "config_json, started_at, ended_at, status, players_json, totals_json, irregular, result_json, "
                "wagered, house_net, station_link, finish_audit_id, floor_seq, floor_link, theo, theo_initial, theo_wagered) "
                "SELECT %(table)s, k, %(pit)s, 1 + (k - 1) / 480, k, 'live', "
                "(ARRAY['ace_race','lucky8','star_elements','dueling8s','electronic'])[1 + %(t)s %% 5], "
                "'dealer-' || %(pit)s || '-' || (1 + ((k - 1) / (%(per_hour)s * 2) + %(t)s) %% 8), %(config)s, "
                "%(start)s + (k - 1) * make_interval(secs => %(minutes)s * 60), "
                "%(start)s + (k - 1) * make_interval(secs => %(minutes)s * 60) + interval '50 seconds', "
                "'settled', json_build_array(p1, p2)::text, '{}', k %% 50 = 0, %(result)s, "
                "10 + (k * 37 + %(t)s) %% 200, ((k * 53 + %(t)s * 7) %% 121) - 50, "
                "'\\x00'::bytea, k, k, '\\x00'::bytea, "
                # the theoretical win stored at forwarding (a stand-in figure: 1 % of the wagers)
                "(10 + (k * 37 + %(t)s) %% 200) / 100.0, 10 + (k * 37 + %(t)s) %% 200, 10 + (k * 37 + %(t)s) %% 200 "
                "FROM generate_series(1, %(rounds)s) k, "
                "LATERAL (SELECT 'player-' || lpad(((%(t)s * 97 + k / 90) %% 5000)::text, 4, '0') p1, "
                "'player-' || lpad(((%(t)s * 389 + k / 45 + 2500) %% 5000)::text, 4, '0') p2) names",
                {"table": table, "pit": pit, "t": t, "per_hour": per_hour, "config": config,
                 "result": result, "start": start, "minutes": minutes, "rounds": rounds},
            )
            conn.execute(
                "INSERT INTO floor.round_players (player, started_at, table_name, round_id, pit, net, wagered) "
                "SELECT p.value, r.started_at, r.table_name, r.round_id, r.pit, -r.house_net / 2, r.wagered / 2 "
                "FROM floor.rounds r, json_array_elements_text(r.players_json::json) p "
                "WHERE r.table_name = %s ON CONFLICT DO NOTHING",
                (table,),
            )
            conn.execute(
                "INSERT INTO floor.settlements (table_name, round_id, idx, player, area, hand, bet, stake, "
                "result, net, rule, stage{start}) SELECT r.table_name, r.round_id, i, "
                "(r.players_json::json ->> (i %% 2)), 1 + i %% 2, 1, CASE WHEN i < 2 THEN 'main' ELSE 'pair' END, "
                "r.wagered / 4, 'lost', -r.house_net / 4, '4.1', 'final'{r_start} "
                "FROM floor.rounds r, generate_series(0, 3) i WHERE r.table_name = %s".format(**child),
                (table,),
            )
            conn.execute(
                "INSERT INTO floor.events (table_name, round_id, seq, station_event_id, at, actor, event_json, "
                "station_link{start}) SELECT r.table_name, r.round_id, e.seq - 1, r.round_id * 20 + e.seq, "
                "to_char(r.started_at, 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), 'dealer:x', e.text, '\\x00'::bytea{r_start} "
                "FROM floor.rounds r, unnest(%s::text[]) WITH ORDINALITY e(text, seq) WHERE r.table_name = %s".format(**child),
                (events, table),
            )
            # a month of audit: each round's finish entry and each session's end (session of 480 rounds),
            # forwarded as the round was played (so in its month's partition)
            conn.execute(
                "INSERT INTO floor.audit (table_name, audit_id, at, actor, kind, round_id, detail_json, station_link, "
                "floor_link, forwarded_at) SELECT r.table_name, r.round_id + (r.round_id - 1) / 480, "
                "to_char(r.ended_at, 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), 'dealer:x', 'round_finish', r.round_id, "
                "json_build_object('status', 'settled', 'ended_at', r.ended_at, 'events', 12, 'result_sha256', "
                "md5(r.round_id::text) || md5(r.table_name), 'last_event_hash', md5(r.round_id::text))::text, "
                "'\\x00'::bytea, '\\x00'::bytea, r.ended_at FROM floor.rounds r WHERE r.table_name = %(table)s "
                "UNION ALL SELECT r.table_name, r.round_id + r.round_id / 480, "
                "to_char(r.ended_at, 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), 'dealer:x', 'session_end', NULL, "
                "json_build_object('session_id', r.session_id)::text, '\\x00'::bytea, '\\x00'::bytea, r.ended_at "
                "FROM floor.rounds r WHERE r.table_name = %(table)s AND r.round_id %% 480 = 0",
                {"table": table},
            )
            if refinished_every:
                conn.execute(
                    "INSERT INTO floor.round_versions (table_name, round_id, finish_audit_id, status, ended_at, "
                    "players_json, totals_json, irregular, result_json, wagered, house_net, events_json) "
                    "SELECT r.table_name, r.round_id, r.round_id * 10 + n, 'void', r.ended_at + interval '5 minutes', "
                    "r.players_json, r.totals_json, r.irregular, r.result_json, r.wagered, 0, '[]' "
                    "FROM floor.rounds r, generate_series(1, 2) n WHERE r.table_name = %(table)s "
                    "AND r.round_id %% %(every)s = 0 AND (n = 1 OR r.round_id %% (%(every)s * 5) = 0)",
                    {"table": table, "every": refinished_every},
                )
            print(f"  generated {table} ({pit}): {rounds:,} rounds in {time.perf_counter() - began:.1f} s",
                  flush=True)
        conn.execute("INSERT INTO floor.players (player) SELECT DISTINCT player FROM floor.round_players "
                     "ON CONFLICT DO NOTHING")


def load() -> str:
    """The machine's load average now (the figures depend on it: cores shared with other work)."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def server_cpu(server: Server) -> float:
    """CPU milliseconds the server's processes (the postmaster's children) have used so far:
    a figure that does not grow with the other work sharing the cores, as wall time does."""
    postmaster = int((server.data / "postmaster.pid").read_text().split()[0])
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == postmaster:
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks * 1000 / os.sysconf("SC_CLK_TCK")


def timed(label: str, fn: object, repeat: int = 15) -> None:
    times = []
    result = None
    for _ in range(repeat):
        began = time.perf_counter()
        result = fn()  # type: ignore[operator]
        times.append((time.perf_counter() - began) * 1000)
    size = len(result) if hasattr(result, "__len__") else result  # type: ignore[arg-type]
    print(f"{label}: first {times[0]:.1f} ms, median {statistics.median(times):.1f} ms, "
          f"max {max(times):.1f} ms ({size} rows); {load()}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--per-hour", type=int, default=60)
    parser.add_argument("--pit-size", type=int, default=10, help="tables per pit")
    parser.add_argument("--refinished-every", type=int, default=200,
                        help="one generated round in N was finished again after forwarding (0: none)")
    parser.add_argument("--keep", action="store_true", help="leave the server running (prints its URL)")
    parser.add_argument("--migrate", action="store_true", help="generate the other tables on a floor of migration "
                        "0008 and time migration 0009 (their rows into months) before forwarding")
    parser.add_argument("--store", type=Path, help="the forwarded table's station store: reused if it exists "
                        "(built there otherwise, for the next run)")
    args = parser.parse_args()
    per_table = args.days * 24 * args.per_hour
    total = per_table * args.tables
    print(f"floor bench: {args.tables} tables x {args.days} days x 24 h x {args.per_hour}/h = {total:,} rounds",
          flush=True)
    server = Server(shared_buffers="128MB", extra=["-c", "maintenance_work_mem=128MB",
                                                   "-c", "max_wal_size=4GB", "-c", "checkpoint_timeout=30min"])
    try:
        dbname = server.create_database("bench")
        admin = server.url(dbname)
        full = (schema.MIGRATIONS, schema.KNOWN, schema.PARTITIONED)
        if args.migrate:  # the floor as version 0008 made it
            schema.MIGRATIONS = schema.MIGRATIONS[:8]
            schema.KNOWN = frozenset(name for name, _ in schema.MIGRATIONS)
            schema.PARTITIONED = {k: v for k, v in schema.PARTITIONED.items() if k in ("rounds", "audit",
                                                                                        "round_versions")}
        init_floor(admin)
        with psycopg.connect(admin, autocommit=True) as conn:  # the bench's months (as the migration makes them)
            for parent in schema.PARTITIONED:
                conn.execute("SELECT floor.add_month(%s, m::date) FROM generate_series(date_trunc('month', %s::timestamptz "
                             "AT TIME ZONE 'UTC'), %s::timestamptz AT TIME ZONE 'UTC', interval '1 month') m",
                             (parent, START, START + dt.timedelta(days=args.days)))
        tables = [(f"BJ-{t:02d}", f"PIT-{(t - 1) // args.pit_size + 1}") for t in range(1, args.tables + 1)]
        roles = {table: add_station(admin, table, pit).role for table, pit in tables}
        real_table, real_pit = tables[-1]
        with tempfile.TemporaryDirectory() as tmp:
            store = args.store or Path(tmp) / "station.db"
            if store.exists():  # a reused store is forwarded as its own table (one of the bench's)
                from dealer_assist.store import Store

                with Store.open_readonly(store) as reused:
                    identity = reused.table_identity()
                named = [t for t in tables if identity is not None and t[0] == identity[0]]
                if not named:
                    raise SystemExit(f"{store} is the store of {identity[0] if identity else 'no table'}, "
                                     f"not one of BJ-01..BJ-{args.tables:02d}")
                real_table, real_pit = named[0]
                print(f"station store of {real_table}: reusing {store}", flush=True)
            else:
                began = time.perf_counter()
                station_store(store, real_table, real_pit, per_table, args.per_hour)
                print(f"station store of {real_table}: {per_table:,} rounds built in "
                      f"{time.perf_counter() - began:.1f} s ({store.stat().st_size / 1e6:.0f} MB)", flush=True)
            began = time.perf_counter()
            generate(admin, [t for t in tables if t[0] != real_table], per_table, args.per_hour, args.refinished_every, child_start=not args.migrate)
            print(f"generated {len(tables) - 1} tables in {time.perf_counter() - began:.0f} s", flush=True)
            if args.migrate:
                schema.MIGRATIONS, schema.KNOWN, schema.PARTITIONED = full
                with psycopg.connect(admin, autocommit=True) as conn:
                    rows = {t: conn.execute(f"SELECT count(*) FROM floor.{t}").fetchone()[0]  # type: ignore[index]
                            for t in ("events", "settlements", "rulings", "round_players")}
                began = time.perf_counter()
                applied = init_floor(admin)
                print(f"migration {', '.join(applied)} (floor init): " + ", ".join(f"{t} {n:,}" for t, n in rows.items())
                      + f" rows copied into their months in {time.perf_counter() - began:.0f} s; {load()}", flush=True)
            with psycopg.connect(admin, autocommit=True) as conn:
                began = time.perf_counter()
                conn.execute("VACUUM ANALYZE")
                print(f"vacuum analyze: {time.perf_counter() - began:.0f} s", flush=True)
            url = server.url(dbname, user=roles[real_table])
            from dealer_assist.floor.edges import cached_edges
            began = time.perf_counter()
            for game in ("ace_race", "lucky8", "star_elements", "dueling8s", "electronic"):
                cached_edges(game, 6)  # the par sheets for the stored theo: once per station, then on disk
            print(f"par sheets of the five games (worked out, or read from disk): {time.perf_counter() - began:.1f} s",
                  flush=True)
            with Forwarder(store, url) as forwarder:
                began = time.perf_counter()
                done = forwarder.forward()
                spent = time.perf_counter() - began
            print(f"forwarding catch-up of {real_table}: {done.rounds:,} rounds + {done.audit:,} audit entries "
                  f"in {spent:.1f} s = {done.rounds / spent:,.0f} rounds/s (target >= 2,000); {load()}", flush=True)
        with psycopg.connect(admin, autocommit=True) as conn:
            # The forwarded table's audit entries as if forwarded as they were written (spread over
            # its rounds' days, so a range verify reads its share of them); forwarded_at is not
            # chained. Then what autovacuum does to rows a day old (the visibility map).
            conn.execute("UPDATE floor.audit SET forwarded_at = %s + (audit_id - 1) * (%s / "
                         "(SELECT max(audit_id) FROM floor.audit WHERE table_name = %s)) WHERE table_name = %s",
                         (START, dt.timedelta(days=args.days), real_table, real_table))
            conn.execute("VACUUM ANALYZE")
            counts = {t: conn.execute(f"SELECT count(*) FROM floor.{t}").fetchone()[0]  # type: ignore[index]
                      for t in ("rounds", "events", "settlements", "round_players", "audit", "round_versions")}
            size = conn.execute("SELECT pg_size_pretty(pg_database_size(current_database()))").fetchone()
        print("rows: " + ", ".join(f"{k} {v:,}" for k, v in counts.items()) + f"; database {size[0] if size else '?'}",
              flush=True)
        reader = FloorReader(server.url(dbname))
        pit = tables[0][1]
        day = START + dt.timedelta(days=args.days // 2)
        timed(f"latest page (50) of {pit}'s rounds (target <= 100 ms)",
              lambda: reader.list_rounds(pit=pit, limit=50))
        last = reader.list_rounds(pit=pit, limit=50)[-1]
        timed("the next page of it (keyset)", lambda: reader.list_rounds(
            pit=pit, limit=50, before=(dt.datetime.fromisoformat(last.started_at.replace("Z", "+00:00")),
                                       last.table, last.id)))
        timed("a player's latest 100 rounds across all tables, exact name (target <= 300 ms)",
              lambda: reader.list_rounds(player="player-0123", limit=100))
        timed("a player's rounds, all of them, exact name", lambda: reader.list_rounds(player="player-0123",
                                                                                       limit=None))
        timed("a player's latest 100, partial any-case name 'PLAYER-012' (10 names)",
              lambda: reader.list_rounds(player="PLAYER-012", player_partial=True, limit=100))
        timed(f"{pit}'s latest page (50) by the house's net, one day (target <= 200 ms)",
              lambda: reader.list_rounds(pit=pit, limit=50, sort="house", since=day, until=day + dt.timedelta(days=1)))
        timed(f"{pit}'s 'net >= 200' filter over one day, latest 100 (target <= 200 ms)",
              lambda: reader.list_rounds(pit=pit, since=day, until=day + dt.timedelta(days=1),
                                         min_net=Decimal(200), limit=100))
        timed(f"{pit}'s hourly win/hold for one day (target <= 200 ms)",
              lambda: reader.hourly(pit=pit, since=day, until=day + dt.timedelta(days=1)))
        timed(f"{pit}'s rounds per hour per dealer for one day",
              lambda: reader.hourly(pit=pit, since=day, until=day + dt.timedelta(days=1), by="dealer"))
        timed("a player's play across tables per hour, whole month",
              lambda: reader.player_play("player-0123"))
        timed(f"{pit}'s table states (the Tables tab; target <= 200 ms)", lambda: reader.table_states(pit, now=day))
        from dealer_assist.floor.theo import pit_theo
        timed(f"{pit}'s theoretical win for one day (stored per round)",
              lambda: pit_theo(reader, pit=pit, since=day, until=day + dt.timedelta(days=1)), repeat=5)
        for span in (1, 7):
            walls, cpus = [], []
            for _ in range(5):
                cpu, began = server_cpu(server), time.perf_counter()
                result = reader.verify(real_table, since=day, until=day + dt.timedelta(days=span))
                walls.append((time.perf_counter() - began) * 1000)
                cpus.append(server_cpu(server) - cpu)
            print(f"verify of {real_table}, {span} day(s) from {day:%Y-%m-%d}: {result.rounds:,} rounds, "
                  f"{result.events:,} events, {result.audit:,} audit entries, ok={result.ok}: first "
                  f"{walls[0]:.0f} ms, median {statistics.median(walls):.0f} ms, max {max(walls):.0f} ms "
                  f"(target <= 200 ms), the server's CPU median {statistics.median(cpus):.0f} ms; {load()}", flush=True)
        cpu, began = server_cpu(server), time.perf_counter()
        result = reader.verify(real_table)
        print(f"verify of {real_table}'s month: {result.rounds:,} rounds, {result.events:,} events, "
              f"{result.audit:,} audit entries, ok={result.ok} in {time.perf_counter() - began:.1f} s "
              f"(target <= 10 s), the server's CPU {(server_cpu(server) - cpu) / 1000:.1f} s; {load()}", flush=True)
        began = time.perf_counter()
        result = reader.verify(real_table)
        print(f"verify again (warm): ok={result.ok} in {time.perf_counter() - began:.1f} s; {load()}", flush=True)
        reader.close()
        if args.keep:
            print(f"server kept: {admin}")
    finally:
        if not args.keep:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
