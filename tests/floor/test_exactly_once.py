"""Exactly once: a forwarder SIGKILLed at random moments, run again and again while the table
keeps playing, leaves every finished round on the floor once, none missing; and a station
offline for a long stretch catches up by itself (``forward --follow``)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from dealer_assist.floor.schema import station_role
from tests.floor.conftest import Floor
from tests.floor.helpers import ROOT, cli, query, store_rows
from tests.floor.stations import DOCUMENTS, bulk_station, open_station, record_rounds

KILLS = 60
ROUNDS_BETWEEN = 100  # the table plays on between two forwarders


def _check_floor_matches_store(admin: str, db: Path, table: str, *, complete: bool) -> int:
    """Every round on the floor is whole and the station's; with ``complete`` every finished one
    is there. Returns the number of rounds on the floor."""
    station_rounds = {
        rid: (n_events, n_settlements)
        for rid, n_events, n_settlements in store_rows(
            db, "SELECT r.id, (SELECT count(*) FROM events e WHERE e.round_id = r.id), "
                "(SELECT count(*) FROM settlements s WHERE s.round_id = r.id) FROM rounds r "
                "WHERE r.ended_at IS NOT NULL")
    }
    floor_rounds = {
        rid: (n_events, n_settlements)
        for rid, n_events, n_settlements in query(
            admin, "SELECT r.round_id, (SELECT count(*) FROM floor.events e WHERE e.table_name = r.table_name "
                   "AND e.round_id = r.round_id), (SELECT count(*) FROM floor.settlements s WHERE "
                   "s.table_name = r.table_name AND s.round_id = r.round_id) FROM floor.rounds r "
                   "WHERE r.table_name = %s", (table,))
    }
    for rid, counts in floor_rounds.items():
        assert station_rounds.get(rid) == counts, f"round {rid} on the floor is not whole"
    seqs = [r[0] for r in query(admin, "SELECT floor_seq FROM floor.rounds WHERE table_name = %s "
                                       "ORDER BY floor_seq", (table,))]
    assert seqs == list(range(1, len(seqs) + 1))
    audit = [r[0] for r in query(admin, "SELECT audit_id FROM floor.audit WHERE table_name = %s "
                                        "ORDER BY audit_id", (table,))]
    assert audit == list(range(1, len(audit) + 1))  # a prefix of the station's audit log, no gaps
    if complete:
        assert set(floor_rounds) == set(station_rounds)
        assert len(audit) == store_rows(db, "SELECT count(*) FROM audit")[0][0]
    return len(floor_rounds)


@pytest.mark.slow
def test_a_forwarder_killed_at_random_moments_leaves_every_round_once(floor: Floor, tmp_path: Path) -> None:
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "bj07.db"
    bulk_station(db, "BJ-07", "PIT-2", rounds=5000)
    rng = random.Random(18)
    killed_running = 0
    played = 0
    watcher = psycopg.connect(floor.admin_url, autocommit=True)
    for kill in range(KILLS):
        before = _count_on(watcher)
        proc = subprocess.Popen(
            [sys.executable, "-m", "dealer_assist", "forward", "--db", str(db), "--to", url, "--batch", "1"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        if kill % 2:
            # while it starts, connects, takes the table's lock and reads the floor's tail
            time.sleep(rng.uniform(0.05, 0.6))
        else:
            # while it forwards: once its first round is on the floor, a few ms later. (A fixed
            # delay missed: forwarding the table's new rounds now takes a few ms.)
            deadline = time.monotonic() + 30
            while proc.poll() is None and _count_on(watcher) == before and time.monotonic() < deadline:
                time.sleep(0.002)
            time.sleep(rng.uniform(0, 0.03))
        if proc.poll() is None:
            killed_running += 1
            os.kill(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        assert proc.returncode in (-signal.SIGKILL, 0), err
        _check_floor_matches_store(floor.admin_url, db, "BJ-07", complete=False)
        bulk_station(db, "BJ-07", "PIT-2", rounds=ROUNDS_BETWEEN, start=played)  # the table plays on
        played += ROUNDS_BETWEEN
    watcher.close()
    assert killed_running >= KILLS * 2 // 3, f"only {killed_running} of {KILLS} kills hit a running forwarder"
    done = cli("forward", "--db", str(db), "--to", url)
    assert done.returncode == 0, done.stderr
    total = _check_floor_matches_store(floor.admin_url, db, "BJ-07", complete=True)
    assert total == 5000 + played
    assert cli("history", "--db", floor.review_url, "verify").stdout.startswith(f"ok: 1 tables, {total} rounds")


@pytest.mark.slow
def test_a_long_offline_stretch_catches_up_by_itself(floor: Floor, tmp_path: Path) -> None:
    url = floor.station("BJ-07", "PIT-2")
    role = station_role(floor.dbname, "BJ-07")
    db = tmp_path / "bj07.db"
    with open_station(db) as store:
        store.claim_table("BJ-07", "PIT-2")
        record_rounds(store, 3)
    follower = subprocess.Popen(
        [sys.executable, "-m", "dealer_assist", "forward", "--db", str(db), "--to", url, "--follow",
         "--interval", "0.3"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        _wait_for(lambda: _count(floor.admin_url) == 3)
        # The floor goes away for this station: its logins are refused and its session cut.
        with psycopg.connect(floor.admin_url, autocommit=True) as conn:
            conn.execute(f'ALTER ROLE "{role}" NOLOGIN')
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s", (role,))
        # A long stretch of play while offline (a shift's worth of rounds, recorded as the table does).
        bulk_station(db, "BJ-07", "PIT-2", rounds=1500, start=3)
        with open_station(db) as store:
            record_rounds(store, len(DOCUMENTS), start=1)
        time.sleep(1.0)
        assert _count(floor.admin_url) == 3
        with psycopg.connect(floor.admin_url, autocommit=True) as conn:
            conn.execute(f'ALTER ROLE "{role}" LOGIN')
        _wait_for(lambda: _count(floor.admin_url) == 3 + 1500 + len(DOCUMENTS), timeout=120)
    finally:
        follower.send_signal(signal.SIGTERM)
        out, err = follower.communicate(timeout=30)
    assert follower.returncode == 0, err
    assert "floor: offline since " in out
    assert "rounds waiting" in out
    assert f"floor: forwarded up to round {3 + 1500 + len(DOCUMENTS)}" in out
    _check_floor_matches_store(floor.admin_url, db, "BJ-07", complete=True)


def _count(url: str) -> int:
    return int(query(url, "SELECT count(*) FROM floor.rounds")[0][0])


def _count_on(conn: psycopg.Connection[tuple[object, ...]]) -> int:
    row = conn.execute("SELECT count(*) FROM floor.rounds").fetchone()
    return int(row[0]) if row is not None else 0


def _wait_for(condition: object, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.2)
    raise AssertionError("timed out waiting for the floor")
