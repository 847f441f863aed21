"""Online migrations (issue 35, item 6): migration 0014_round_reach (each round's reach, the
largest amount any player won or lost in it) runs in steps — create, backfill in batches, swap —
while a station forwards. A real PostgreSQL; the floor of the previous version (0013) is made by
that version's own (frozen) migrations, as in test_partitions.

Each round's reach worked by hand from its settle output (tests/floor/stations.py): Ace Race
alice +25 -> 25; Lucky 8 ruling alice +20, bob +40 -> 40; Lucky 8 void (5.1.1, every wager
returned) -> 0; Star Elements bob +50 -> 50; and as tests/floor/test_review_tools.py works
them, Lucky 8 pair and double bob 150 -> 150, Dueling 8s alice 75 -> 75, Electronic t2 105 -> 105."""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg
import pytest

from dealer_assist.floor.connection import FloorError
from dealer_assist.floor.forward import Forwarder
from dealer_assist.floor.online import Change, Index, Online, OnlineOptions, run_online
from dealer_assist.floor.reader import FloorReader
from dealer_assist.floor.schema import add_station, init_floor, review_role
from tests.floor.conftest import Floor
from tests.floor.helpers import ROOT, cli, floor_version, query
from tests.floor.pgserver import Server
from tests.floor.stations import bulk_station

HAND_REACH = {0: 25, 1: 40, 2: 0, 3: 50, 4: 150, 5: 75, 6: 105}


def reach_of_document(index: int) -> Decimal:
    return Decimal(HAND_REACH[index])


def record(db: Path, count: int, start: int, *, table: str = "BJ-07") -> dict[int, int]:
    """``count`` whole rounds (cycling the documents from ``start``); round id -> document."""
    return bulk_station(db, table, "PIT-2", count, start=start)


def floor_at_0013(server: Server, dbname: str, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """A floor of version 0013 with station BJ-07 registered; (admin URL, station URL)."""
    admin = server.url(dbname)
    with monkeypatch.context() as m:
        floor_version(m, "0013_alert_subjects")
        assert init_floor(admin)[-1] == "0013_alert_subjects"
        station = server.url(dbname, user=add_station(admin, "BJ-07", "PIT-2").role)
    assert query(admin, "SELECT to_regclass('floor.migration_steps')") == [(None,)]
    return admin, station


def forward_all(db: Path, url: str) -> int:
    with Forwarder(db, url) as forwarder:
        return forwarder.forward().rounds


def reaches(url: str) -> list[tuple[Any, ...]]:
    return query(url, "SELECT table_name, round_id, started_at, reach FROM floor.rounds ORDER BY table_name, round_id")


def big_rounds(review: str) -> set[int]:
    with FloorReader(review) as reader:
        return {r.id for r in reader.list_rounds(min_net=Decimal(45), limit=None)}


def upgrade(url: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "dealer_assist", "floor", "upgrade", "--url", url, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)


def test_a_station_forwards_every_round_once_while_the_floor_upgrades(
        pg_server: Server, floor_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "BJ-07.db"
    admin, station = floor_at_0013(pg_server, floor_db, monkeypatch)
    documents = record(db, 300, 0)
    assert forward_all(db, station) == 300

    # the station: one round recorded and forwarded after another, each pass timed
    passes: list[tuple[float, float, int]] = []  # (finished at, seconds, rounds forwarded)
    stop = threading.Event()
    failures: list[BaseException] = []

    def station_loop() -> None:
        try:
            with Forwarder(db, station) as forwarder:
                k = 0
                while not stop.is_set():
                    documents.update(record(db, 1, k))
                    k += 1
                    began = time.monotonic()
                    sent = forwarder.forward().rounds
                    passes.append((time.monotonic(), time.monotonic() - began, sent))
        except BaseException as err:  # reported by the test below
            failures.append(err)

    worker = threading.Thread(target=station_loop)
    worker.start()
    try:
        while len(passes) < 3 and worker.is_alive():
            time.sleep(0.05)
        began = time.monotonic()
        run = upgrade(admin, "--batch", "20", "--pause", "0.2")
        lines: list[tuple[float, str]] = []
        assert run.stdout is not None
        for line in run.stdout:
            lines.append((time.monotonic(), line.rstrip("\n")))
        assert run.wait(timeout=300) == 0, run.stderr.read() if run.stderr else ""
        ended = time.monotonic()
    finally:
        stop.set()
        worker.join(timeout=120)
    assert not failures, failures
    text = "\n".join(line for _, line in lines)
    assert "floor: applied 0014_round_reach" in text, text
    batches = [at for at, line in lines if "0014_round_reach: backfill: batch " in line]
    # the 300 rounds there before, 20 a batch (and the rounds forwarded meanwhile ahead of it)
    assert len(batches) >= 15, text
    during = [p for p in passes if batches[0] < p[0] < batches[-1] and p[2] > 0]
    upgrading = [p[1] for p in passes if began < p[0] and p[0] - p[1] < ended]
    before = [p[1] for p in passes if p[0] < began]
    print(f"\nupgrade {ended - began:.2f} s, backfill {len(batches)} batches; the station's passes (one round "
          f"each): {len(upgrading)} during the upgrade, {len(during)} landed between the first and last batch; "
          f"a pass during the upgrade took median {1000 * statistics.median(upgrading):.0f} ms, longest "
          f"{1000 * max(upgrading):.0f} ms (before it: median {1000 * statistics.median(before):.0f} ms, "
          f"longest {1000 * max(before):.0f} ms)")
    assert during, "no round reached the floor while the backfill was under way"

    assert forward_all(db, station) >= 0  # whatever the last pass left
    # every round once: the store's rounds are the floor's, none twice
    on_floor = query(admin, "SELECT round_id, count(*) FROM floor.rounds WHERE table_name = 'BJ-07' GROUP BY 1")
    assert {int(r) for r, _ in on_floor} == set(documents) and all(n == 1 for _, n in on_floor)
    # each round's reach, those backfilled and those filled as they arrived
    got = {int(r): v for r, v in query(admin, "SELECT round_id, reach FROM floor.rounds")}
    assert got == {rid: reach_of_document(index) for rid, index in documents.items()}
    with FloorReader(pg_server.url(floor_db, user=review_role(floor_db))) as reader:
        checked = reader.verify("BJ-07")
        assert checked.ok and checked.rounds == len(documents), checked


def test_an_upgrade_killed_mid_backfill_resumes_and_ends_as_an_uninterrupted_one(
        pg_server: Server, floor_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "BJ-07.db"
    documents = record(db, 200, 0)
    killed, station = floor_at_0013(pg_server, floor_db, monkeypatch)
    other_db = pg_server.create_database()
    try:
        straight, other_station = floor_at_0013(pg_server, other_db, monkeypatch)
        assert forward_all(db, station) == 200 and forward_all(db, other_station) == 200
        review = pg_server.url(floor_db, user=review_role(floor_db))
        # "net >= 45" before the upgrade (the filter through each player's row): Star Elements
        # (bob +50) and the three documents whose largest net is 75, 105, 150
        wanted = {rid for rid, index in documents.items() if reach_of_document(index) >= 45}
        assert {documents[rid] for rid in wanted} == {3, 4, 5, 6}
        assert big_rounds(review) == wanted

        done = cli("floor", "upgrade", "--url", pg_server.url(other_db), "--batch", "20")
        assert done.returncode == 0 and "applied 0014_round_reach" in done.stdout, done.stdout + done.stderr

        # Ctrl-C after the first batch: one line, nothing lost (a 2 s pause between batches: a
        # test process that a loaded machine holds back 5 s must not find the upgrade finished)
        run = upgrade(killed, "--batch", "20", "--pause", "2")
        assert run.stdout is not None and run.stderr is not None
        for line in run.stdout:
            if "backfill: batch 1:" in line:
                os.kill(run.pid, signal.SIGINT)
                break
        assert run.wait(timeout=60) == 130
        said = run.stderr.read()
        assert said == "floor: interrupted: what was done is kept; `dealer-assist floor upgrade` again resumes\n"
        interrupted = query(killed, "SELECT rows FROM floor.migration_steps WHERE step = 'backfill'")[0][0]
        assert interrupted in (20, 40)
        # then killed outright at its third batch (the batches count on from the first run's)
        run = upgrade(killed, "--batch", "20", "--pause", "2")
        assert run.stdout is not None
        seen = []
        for line in run.stdout:
            seen.append(line)
            if "backfill: batch 3:" in line:
                os.kill(run.pid, signal.SIGKILL)  # mid-backfill, as a power cut or kill -9 would
                break
        run.wait(timeout=60)
        assert run.returncode == -signal.SIGKILL, "".join(seen)
        assert f"resuming after [\"BJ-07\", {interrupted}]" in "".join(seen)
        # what the killed run left: the create done, the backfill part way (whole batches only:
        # the one in flight, if any, rolled back by the server), nothing swapped
        steps = dict((str(s), (d is not None, int(n))) for s, d, n in query(
            killed, "SELECT step, done_at, rows FROM floor.migration_steps WHERE migration = '0014_round_reach'"))
        assert steps["create"] == (True, 0)
        assert steps["backfill"][0] is False and steps["backfill"][1] in (60, 80), steps
        assert "swap" not in steps
        assert query(killed, "SELECT count(*) FROM floor.schema_migrations WHERE name = '0014_round_reach'") == [(0,)]
        left = query(killed, "SELECT count(*) FILTER (WHERE reach IS NULL) FROM floor.rounds")[0][0]
        assert left == 200 - steps["backfill"][1]
        # the floor is served meanwhile: forwarding, and the filter (the old way, until the swap)
        more = record(db, 7, 0)
        documents.update(more)
        assert forward_all(db, station) == 7
        wanted |= {rid for rid, index in more.items() if index in (3, 4, 5, 6)}
        assert big_rounds(review) == wanted

        again = cli("floor", "upgrade", "--url", killed, "--batch", "20")
        assert again.returncode == 0, again.stdout + again.stderr
        assert f"resuming after [\"BJ-07\", {steps['backfill'][1]}]" in again.stdout, again.stdout
        assert "floor: 0014_round_reach: create done earlier" in again.stdout
        assert "applied 0014_round_reach" in again.stdout
        assert forward_all(db, other_station) == 7
        # the same rows as the uninterrupted upgrade, each reach worked out by hand
        assert reaches(killed) == reaches(pg_server.url(other_db))
        assert {int(r[1]): r[3] for r in reaches(killed)} == {
            rid: reach_of_document(index) for rid, index in documents.items()}
        assert big_rounds(review) == wanted  # now by each round's reach
        with FloorReader(review) as reader:
            checked = reader.verify("BJ-07")
            assert checked.ok and checked.rounds == 207, checked
    finally:
        pg_server.drop_database(other_db)


def test_the_swap_gives_up_behind_a_long_reader_and_succeeds_on_retry(
        pg_server: Server, floor_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "BJ-07.db"
    admin, station = floor_at_0013(pg_server, floor_db, monkeypatch)
    record(db, 30, 0)
    assert forward_all(db, station) == 30
    first = cli("floor", "upgrade", "--url", admin, "--batch", "20", "--no-swap")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "stopped before swap (--no-swap)" in first.stdout and "applied" not in first.stdout, first.stdout
    reach_column = "SELECT count(*) FROM pg_attribute WHERE attrelid = 'floor.rounds_latest'::regclass " \
                   "AND attname = 'reach'"
    assert query(admin, reach_column) == [(0,)]

    # a pit supervisor's long report: a transaction reading the rounds as they stand
    review = pg_server.url(floor_db, user=review_role(floor_db))
    with psycopg.connect(review) as reader:
        assert reader.execute("SELECT count(*) FROM floor.rounds_latest").fetchone() == (30,)
        pid = reader.info.backend_pid
        time.sleep(0.5)  # older than the swap's lock timeout
        blocked = cli("floor", "upgrade", "--url", admin, "--lock-timeout", "0.3", "--attempts", "2")
        assert blocked.returncode == 2, blocked.stdout + blocked.stderr
        error = blocked.stderr.strip()
        assert len(error.splitlines()) == 1 and "Traceback" not in blocked.stderr, blocked.stderr
        assert error.startswith("error: 0014_round_reach: swap gave up: its locks were not free within 0.3 s, 2 times")
        assert f"pid {pid} " in error and "nothing of swap was done" in error, error
        assert "attempt 1 of 2" in blocked.stdout, blocked.stdout
        # nothing half-done: the view as it was, the migration not recorded, the swap still to do
        assert query(admin, reach_column) == [(0,)]
        assert query(admin, "SELECT count(*) FROM floor.schema_migrations WHERE name = '0014_round_reach'") == [(0,)]
        assert query(admin, "SELECT step, done_at IS NOT NULL FROM floor.migration_steps ORDER BY started_at") == [
            ("create", True), ("backfill", True), ("swap", False)]
        # and nothing left locked: the station forwards while the report is still open
        record(db, 1, 3)
        assert forward_all(db, station) == 1
        reader.rollback()
    done = cli("floor", "upgrade", "--url", admin, "--lock-timeout", "0.3", "--attempts", "2")
    assert done.returncode == 0 and "applied 0014_round_reach" in done.stdout, done.stdout + done.stderr
    assert "floor: 0014_round_reach: backfill done earlier" in done.stdout
    assert query(admin, reach_column) == [(1,)]
    # the round forwarded behind the report (Star Elements, bob +50) was filled as it arrived
    assert query(admin, "SELECT round_id, reach FROM floor.rounds_latest ORDER BY round_id DESC LIMIT 1") == [
        (31, Decimal(50))]
    assert query(admin, "SELECT count(*) FROM floor.rounds_latest WHERE reach IS NULL") == [(0,)]


def test_upgrade_options_out_of_range_are_refused_in_one_line(admin_url: str) -> None:
    for option, value in (("--batch", "0"), ("--lock-timeout", "0"), ("--attempts", "0"), ("--pause", "-1")):
        done = cli("floor", "upgrade", "--url", admin_url, option, value)
        assert done.returncode == 2 and done.stderr == (
            "error: floor upgrade: --batch and --attempts at least 1, --lock-timeout above 0, --pause 0 or more\n"), (
            option, done.stderr)
    assert query(admin_url, "SELECT to_regclass('floor.schema_migrations')") == [(None,)]  # nothing done


def test_a_newer_versions_online_migration_leaves_the_floor_served(floor: Floor, tmp_path: Path) -> None:
    """A floor carrying a newer version's online migration (it only adds, by its rules) is still
    served by this version — its station forwards, its pit reads — but not migrated by it; a
    newer migration of statements is refused as before."""
    db = tmp_path / "BJ-07.db"
    station = floor.station("BJ-07", "PIT-2")
    record(db, 3, 0)
    with psycopg.connect(floor.admin_url) as conn:
        conn.execute("INSERT INTO floor.migration_steps (migration, step, done_at) VALUES "
                     "('0099_future', 'create', now()), ('0099_future', 'swap', now())")
        conn.execute("INSERT INTO floor.schema_migrations (name) VALUES ('0099_future')")
    assert forward_all(db, station) == 3
    with FloorReader(floor.review_url) as reader:
        assert len(reader.list_rounds(table="BJ-07")) == 3
    done = cli("floor", "init", "--url", floor.admin_url)
    assert done.returncode == 2 and "newer Dealer Assist (schema 0099_future)" in done.stderr, done.stderr
    with psycopg.connect(floor.admin_url) as conn:
        conn.execute("INSERT INTO floor.schema_migrations (name) VALUES ('0100_statements')")
    with pytest.raises(FloorError, match=r"newer Dealer Assist \(schema 0100_statements\)"):
        FloorReader(floor.review_url)


def test_an_index_step_builds_each_partitions_index_and_rebuilds_one_left_invalid(
        floor: Floor, tmp_path: Path) -> None:
    """The index step of the mechanism on the partitioned rounds (an index 0014 does not need:
    a migration of this test's own, run by the same runner): each month's index built
    concurrently and attached, the parent's valid; an invalid index an interrupted build left is
    dropped and built again; a month made afterwards gets its index when it is attached."""
    db = tmp_path / "BJ-07.db"
    station = floor.station("BJ-07", "PIT-2")
    record(db, 10, 0)
    assert forward_all(db, station) == 10
    admin = floor.admin_url
    partitions = {str(r[0]) for r in query(admin, "SELECT inhrelid::regclass::text FROM pg_inherits "
                                                  "WHERE inhparent = 'floor.rounds'::regclass")}
    month = query(admin, "SELECT tableoid::regclass::text FROM floor.rounds LIMIT 1")[0][0]
    assert month in partitions and len(partitions) == 4  # this month, the next two, the default
    # what an interrupted build leaves: the index of the month, invalid (here a unique build that
    # failed on the ten rounds' one pit)
    with psycopg.connect(admin, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(f"CREATE UNIQUE INDEX CONCURRENTLY {month.removeprefix('floor.')}_pit_reach ON {month} (pit)")
    assert query(admin, "SELECT indisvalid FROM pg_index WHERE indexrelid = %s::regclass",
                 (f"{month}_pit_reach",)) == [(False,)]

    migration = Online((Index("index", "rounds", "rounds_pit_reach", "(pit, reach)"),
                        Change("swap", ("COMMENT ON INDEX floor.rounds_pit_reach IS 'a pit''s rounds by reach'",))))
    lines: list[str] = []
    with psycopg.connect(admin) as conn:
        assert run_online(conn, "0900_index_test", migration, OnlineOptions(), lines.append)
    assert f"0900_index_test: index: dropped the invalid {month.removeprefix('floor.')}_pit_reach an interrupted " \
           "run left" in lines, lines
    assert len([line for line in lines if " built in " in line]) == 4, lines
    attached = {str(r[0]) for r in query(
        admin, "SELECT x.indrelid::regclass::text FROM pg_inherits i JOIN pg_index x ON x.indexrelid = i.inhrelid "
               "WHERE i.inhparent = 'floor.rounds_pit_reach'::regclass AND x.indisvalid")}
    assert attached == partitions
    assert query(admin, "SELECT indisvalid FROM pg_index WHERE indexrelid = 'floor.rounds_pit_reach'::regclass") == [
        (True,)]
    # a month made later (floor.add_month attaches it) has its index at once
    with psycopg.connect(admin) as conn:
        assert conn.execute("SELECT floor.add_month('rounds', (now() + interval '9 months')::date)").fetchone() == (
            True,)
    assert query(admin, "SELECT count(*) FROM pg_inherits WHERE inhparent = 'floor.rounds_pit_reach'::regclass") == [
        (5,)]
    # and a second run has nothing to do
    again: list[str] = []
    with psycopg.connect(admin) as conn:
        assert run_online(conn, "0900_index_test", migration, OnlineOptions(), again.append)
    assert again == ["0900_index_test: index done earlier", "0900_index_test: swap done earlier"]


def test_a_forwarder_queued_behind_a_waiting_create_waits_no_longer_than_its_lock_timeout(
        pg_server: Server, floor_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worst case for a station: the create step (ALTER TABLE, ACCESS EXCLUSIVE) waits behind
    a long reader of the rounds, and a forwarder's pass queues behind the waiting create. The
    create gives up at its lock timeout, and the pass goes through then."""
    db = tmp_path / "BJ-07.db"
    admin, station = floor_at_0013(pg_server, floor_db, monkeypatch)
    record(db, 5, 0)
    assert forward_all(db, station) == 5
    review = pg_server.url(floor_db, user=review_role(floor_db))
    waiting = ("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
               "AND query LIKE 'ALTER TABLE floor.rounds ADD COLUMN reach%%'")
    with psycopg.connect(review) as reader:
        assert reader.execute("SELECT count(*) FROM floor.rounds").fetchone() == (5,)  # a report, left open
        run = upgrade(admin, "--lock-timeout", "1", "--attempts", "2")
        while query(admin, waiting) != [(1,)]:
            assert run.poll() is None, run.communicate()
            time.sleep(0.02)
        record(db, 1, 3)
        began = time.monotonic()
        assert forward_all(db, station) == 1  # queued behind the create, then through
        waited = time.monotonic() - began
        out, err = run.communicate(timeout=60)
        print(f"\na forwarder's pass queued behind the waiting create took {1000 * waited:.0f} ms "
              "(the create's lock timeout: 1000 ms)")
        assert run.returncode == 2 and "0014_round_reach: create gave up" in err, out + err
        assert query(admin, "SELECT count(*) FROM pg_attribute WHERE attrelid = 'floor.rounds'::regclass "
                            "AND attname = 'reach'") == [(0,)]  # nothing of it done
        reader.rollback()
    done = cli("floor", "upgrade", "--url", admin)
    assert done.returncode == 0 and "applied 0014_round_reach" in done.stdout, done.stdout + done.stderr
    assert query(admin, "SELECT reach FROM floor.rounds ORDER BY round_id") == [
        (Decimal(n),) for n in (25, 40, 0, 50, 150, 50)]


# The schema check of the version before 0014 (0013_alert_subjects), as released (commit cc06239,
# dealer_assist/floor/schema.py check_schema and _applied), word for word but for its KNOWN: that
# version's migrations. A station of that version runs it at each connection to the floor.
PREVIOUS_KNOWN = frozenset(("0001_initial", "0002_notes_alarms_versions", "0003_latest_views",
                            "0004_link_closed_writes", "0005_alerts", "0006_table_accounting",
                            "0007_one_station_policy", "0008_monthly_partitions", "0009_round_rows_monthly",
                            "0010_cage_rules", "0011_role_bounds", "0012_protection_alerts",
                            "0013_alert_subjects"))


def previous_check_schema(conn: psycopg.Connection[Any]) -> None:
    from dealer_assist.floor.connection import FloorMisconfigured

    row = conn.execute("SELECT to_regclass('floor.schema_migrations')").fetchone()
    applied = [] if row is None or row[0] is None else [
        str(r[0]) for r in conn.execute("SELECT name FROM floor.schema_migrations ORDER BY name")]
    if not applied:
        raise FloorMisconfigured("this database has no floor schema: run `dealer-assist floor init --url URL`")
    unknown = [n for n in applied if n not in PREVIOUS_KNOWN]
    if unknown:
        raise FloorMisconfigured(f"the floor was migrated by a newer Dealer Assist (schema {unknown[0]}); upgrade first")
    if len(applied) < len(PREVIOUS_KNOWN):
        raise FloorMisconfigured("the floor's schema is older than this version: run `dealer-assist floor init --url URL`")


def forward_fresh(db: Path, url: str) -> int:
    """One pass on a new connection (the station restarted: its schema check runs again)."""
    with Forwarder(db, url) as forwarder:
        return forwarder.forward().rounds


def test_a_station_of_the_previous_version_forwards_through_the_swap_and_after_it(
        pg_server: Server, floor_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A station that still runs the version before 0014 (its schema check: a name in
    floor.schema_migrations it does not know is refused) connects anew for every pass while
    the floor upgrades to 0014 (create, backfill, swap) and after: every pass goes through,
    every round once, each round's reach filled by the trigger from its own settle output
    (HAND_REACH, worked by hand). The same check refuses a floor naming a newer migration of
    statements (it is live), and refused 0014 where the swap wrote its name into
    floor.schema_migrations (as the version before this rule did) until `floor init` moved it."""
    db = tmp_path / "BJ-07.db"
    admin, station = floor_at_0013(pg_server, floor_db, monkeypatch)
    monkeypatch.setattr("dealer_assist.floor.forward.check_schema", previous_check_schema)
    documents = record(db, 60, 0)
    assert forward_fresh(db, station) == 60

    passes: list[tuple[float, int]] = []  # (finished at, rounds forwarded)
    stop = threading.Event()
    failures: list[BaseException] = []

    def station_loop() -> None:
        k = 0
        while not stop.is_set():
            try:
                documents.update(record(db, 1, k))
                k += 1
                passes.append((time.monotonic(), forward_fresh(db, station)))
            except BaseException as err:  # reported below
                failures.append(err)
                return

    worker = threading.Thread(target=station_loop)
    worker.start()
    try:
        run = upgrade(admin, "--batch", "10", "--pause", "0.1")
        out, err = run.communicate(timeout=300)
        swapped = time.monotonic()
        assert run.returncode == 0, out + err
        # passes after the swap (each a new connection: the old check against the new floor)
        while len([p for p in passes if p[0] > swapped]) < 3 and worker.is_alive():
            time.sleep(0.05)
    finally:
        stop.set()
        worker.join(timeout=120)
    assert not failures, failures
    assert "floor: applied 0014_round_reach" in out and " backfill: batch 6:" in out, out
    assert len([p for p in passes if p[0] > swapped and p[1] == 1]) >= 3
    # the swap recorded as its step, not in schema_migrations (the previous version reads that)
    assert query(admin, "SELECT count(*) FROM floor.schema_migrations WHERE name = '0014_round_reach'") == [(0,)]
    assert query(admin, "SELECT step FROM floor.migration_steps WHERE migration = '0014_round_reach' "
                        "AND done_at IS NOT NULL ORDER BY started_at") == [("create",), ("backfill",), ("swap",)]
    documents.update(record(db, 2, 3))  # Star Elements (bob +50), then Lucky 8 pair and double (bob 150)
    assert forward_fresh(db, station) == 2
    on_floor = query(admin, "SELECT round_id, count(*) FROM floor.rounds WHERE table_name = 'BJ-07' GROUP BY 1")
    assert {int(r) for r, _ in on_floor} == set(documents) and all(n == 1 for _, n in on_floor)
    got = {int(r): v for r, v in query(admin, "SELECT round_id, reach FROM floor.rounds_latest")}
    assert got == {rid: reach_of_document(index) for rid, index in documents.items()}
    # this version reads the swap from its step: the "net >=" filter by each round's reach
    review = pg_server.url(floor_db, user=review_role(floor_db))
    assert big_rounds(review) == {rid for rid, index in documents.items() if index in (3, 4, 5, 6)}

    # the check is live: a floor naming a migration of statements it does not know is refused
    with psycopg.connect(admin) as conn:
        conn.execute("INSERT INTO floor.schema_migrations (name) VALUES ('0015_statements')")
    with pytest.raises(FloorError, match=r"newer Dealer Assist \(schema 0015_statements\)"):
        forward_fresh(db, station)
    # a floor whose swap was recorded by name (the version before this rule): refused, until
    # this version's floor init moves the record to the swap's step
    with psycopg.connect(admin) as conn:
        conn.execute("UPDATE floor.schema_migrations SET name = '0014_round_reach' WHERE name = '0015_statements'")
    with pytest.raises(FloorError, match=r"newer Dealer Assist \(schema 0014_round_reach\)"):
        forward_fresh(db, station)
    done = cli("floor", "init", "--url", admin)
    assert done.returncode == 0 and "up to date" in done.stdout, done.stdout + done.stderr
    assert query(admin, "SELECT count(*) FROM floor.schema_migrations WHERE name = '0014_round_reach'") == [(0,)]
    documents.update(record(db, 1, 0))
    assert forward_fresh(db, station) == 1
    with FloorReader(review) as reader:
        checked = reader.verify("BJ-07")
        assert checked.ok and checked.rounds == len(documents), checked
