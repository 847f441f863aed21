"""Online migration 0014_round_reach at scale (issue 35, item 6): a benchmark that prints figures.

    python scripts/online_migration_bench.py [--tables 10] [--days 7] [--per-hour 60] [--batch 1000]

A throwaway PostgreSQL server; a floor of version 0013 filled with ``tables x days x 24 x
per-hour`` generated rounds (scripts/floor_bench.generate: the forwarded rows' shapes, one round
in 200 finished again). Times the pit's "net >=" filter over one pit-day before the upgrade
(each player's row, the old way), the upgrade (create, backfill in batches, swap: its rate and
its longest batch), and the same filter after it (each round's reach). The generated players'
nets are not their rounds' settle output, so the filter is timed with an amount no round
reaches either way (200: the whole pit-day read, nothing found), where both answer the same.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import statistics
import sys
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import psycopg  # noqa: E402
from floor_bench import START, generate, load  # noqa: E402

from dealer_assist.floor import schema  # noqa: E402
from dealer_assist.floor.online import OnlineOptions  # noqa: E402
from dealer_assist.floor.reader import FloorReader  # noqa: E402
from dealer_assist.floor.schema import add_station, init_floor  # noqa: E402
from tests.floor.pgserver import Server  # noqa: E402


def timed_filter(url: str, pit: str, day: dt.datetime, repeat: int = 7) -> tuple[float, float, int]:
    with FloorReader(url) as reader:
        walls = []
        found = 0
        for _ in range(repeat):
            began = time.perf_counter()
            found = len(reader.list_rounds(pit=pit, since=day, until=day + dt.timedelta(days=1),
                                           min_net=Decimal(200), limit=100))
            walls.append((time.perf_counter() - began) * 1000)
    return statistics.median(walls), max(walls), found


def catch_up(rounds: int, per_hour: int) -> int:
    """Forwarding catch-up of one station store into a floor of 0013 and one of 0014, alternately."""
    import tempfile

    from floor_bench import station_store

    from dealer_assist.floor.edges import cached_edges
    from dealer_assist.floor.forward import Forwarder

    server = Server(shared_buffers="128MB")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            store = Path(tmp) / "station.db"
            station_store(store, "BJ-01", "PIT-1", rounds, per_hour)
            for game in ("ace_race", "lucky8", "star_elements", "dueling8s", "electronic"):
                cached_edges(game, 6)
            full = (schema.MIGRATIONS, schema.KNOWN)
            rates: dict[str, list[float]] = {"0013": [], "0014": []}
            for run in range(3):
                for version in ("0013", "0014"):
                    dbname = server.create_database(f"catchup{version}x{run}")
                    admin = server.url(dbname)
                    if version == "0013":
                        schema.MIGRATIONS = full[0][:13]
                        schema.KNOWN = frozenset(name for name, _ in schema.MIGRATIONS)
                    init_floor(admin)
                    with psycopg.connect(admin, autocommit=True) as conn:
                        conn.execute("SELECT floor.add_month('rounds', %s::date)", (START,))
                    url = server.url(dbname, user=add_station(admin, "BJ-01", "PIT-1").role)
                    schema.MIGRATIONS, schema.KNOWN = full
                    with Forwarder(store, url) as forwarder:
                        began = time.perf_counter()
                        done = forwarder.forward()
                        rates[version].append(done.rounds / (time.perf_counter() - began))
                    server.drop_database(dbname)
            for version, got in rates.items():
                print(f"catch-up of {rounds:,} rounds into a floor of {version}: "
                      + ", ".join(f"{r:,.0f}" for r in got) + f" rounds/s (median {statistics.median(got):,.0f}); "
                      f"{load()}", flush=True)
    finally:
        server.stop()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--per-hour", type=int, default=60)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--catch-up", type=int, default=0, metavar="N",
                        help="also forward a real station store of N rounds into a floor of 0013 and one of 0014 "
                             "(the cost of the trigger that fills each round's reach), then stop")
    args = parser.parse_args()
    if args.catch_up:
        return catch_up(args.catch_up, args.per_hour)
    per_table = args.days * 24 * args.per_hour
    print(f"online migration bench: {args.tables} tables x {args.days} days x 24 h x {args.per_hour}/h = "
          f"{per_table * args.tables:,} rounds", flush=True)
    server = Server(shared_buffers="128MB", extra=["-c", "maintenance_work_mem=128MB", "-c", "max_wal_size=4GB"])
    try:
        dbname = server.create_database("bench")
        admin = server.url(dbname)
        full = (schema.MIGRATIONS, schema.KNOWN)
        schema.MIGRATIONS = schema.MIGRATIONS[:13]
        schema.KNOWN = frozenset(name for name, _ in schema.MIGRATIONS)
        init_floor(admin)
        with psycopg.connect(admin, autocommit=True) as conn:
            for parent in schema.PARTITIONED:
                conn.execute("SELECT floor.add_month(%s, m::date) FROM generate_series(date_trunc('month', "
                             "%s::timestamptz AT TIME ZONE 'UTC'), %s::timestamptz AT TIME ZONE 'UTC', "
                             "interval '1 month') m", (parent, START, START + dt.timedelta(days=args.days)))
        tables = [(f"BJ-{t:02d}", f"PIT-{(t - 1) // 10 + 1}") for t in range(1, args.tables + 1)]
        for table, pit in tables:
            add_station(admin, table, pit)
        began = time.perf_counter()
        generate(admin, tables, per_table, args.per_hour, 200)
        print(f"generated in {time.perf_counter() - began:.0f} s", flush=True)
        schema.MIGRATIONS, schema.KNOWN = full
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
        pit, day = tables[0][1], START + dt.timedelta(days=args.days // 2)
        median, worst, found = timed_filter(admin, pit, day)
        print(f"before: {pit}'s 'net >= 200' over one day (each player's row): median {median:.0f} ms, "
              f"max {worst:.0f} ms, {found} rounds; {load()}", flush=True)

        lines: list[tuple[float, str]] = []
        began = time.perf_counter()
        init_floor(admin, OnlineOptions(batch=args.batch),
                   progress=lambda line: lines.append((time.perf_counter(), line)))
        spent = time.perf_counter() - began
        batch_ms = [int(m.group(1)) for _, line in lines if (m := re.search(r"batch \d+: \d+ rows in (\d+) ms", line))]
        steps = [line for _, line in lines if " done in " in line or "backfill done" in line]
        rows = per_table * args.tables
        print(f"upgrade (floor init): {spent:.1f} s; {'; '.join(steps)}; {len(batch_ms)} batches of {args.batch}: "
              f"median {statistics.median(batch_ms):.0f} ms, longest {max(batch_ms)} ms; "
              f"{rows / spent:,.0f} rounds/s; {load()}", flush=True)
        with psycopg.connect(admin, autocommit=True) as conn:
            began = time.perf_counter()
            conn.execute("VACUUM ANALYZE floor.rounds")
            print(f"vacuum analyze of the rounds after the backfill (one dead version a round): "
                  f"{time.perf_counter() - began:.1f} s", flush=True)
        median, worst, found = timed_filter(admin, pit, day)
        print(f"after: {pit}'s 'net >= 200' over one day (each round's reach): median {median:.0f} ms, "
              f"max {worst:.0f} ms, {found} rounds; {load()}", flush=True)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
