"""The link to the floor (issue 25, item 1): every floor connection is bounded (connect,
statement, lock and idle-in-transaction timeouts, keepalives, and this side's deadline for a
link that black-holes), the table's forwarding lock is the station's own, and the forwarder
tells a link that is down from a station that is misconfigured. A real server; the link is
black-holed by a TCP proxy that stops forwarding (tests/floor/blackhole.py)."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from dealer_assist.floor.connection import (
    FloorMisconfigured,
    FloorUnreachable,
    Timeouts,
    Watchdog,
    connect,
)
from dealer_assist.floor.forward import Forwarder, ForwardResult, LinkState
from dealer_assist.floor.schema import station_role
from tests.floor.blackhole import BlackHole
from tests.floor.conftest import Floor
from tests.floor.helpers import query
from tests.floor.pgserver import Server
from tests.floor.stations import make_station, open_station, record_rounds

# short bounds so that the test does not wait the production ones (15 s idle, 45 s deadline)
QUICK = Timeouts(connect=3, statement=3.0, lock=2.0, idle_in_transaction=2.0, client=3.0,
                 keepalive_idle=1, keepalive_interval=1, keepalive_count=2, tcp_user_timeout=3.0)


@pytest.fixture
def hole(pg_server: Server) -> Iterator[BlackHole]:
    proxy = BlackHole(pg_server.socket_dir)
    try:
        yield proxy
    finally:
        proxy.close()


def _in_thread(job: Any) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["result"] = job()
        except BaseException as err:  # handed to the test
            out["error"] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def test_every_connection_carries_the_server_bounds(floor: Floor) -> None:
    with connect(floor.station("BJ-07", "PIT-2"), timeouts=QUICK) as conn:
        got = [conn.execute(f"SHOW {name}").fetchone() for name in (
            "statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout")]
    assert got == [("3s",), ("2s",), ("2s",)]


def test_a_black_holed_link_returns_within_the_deadline_and_frees_the_lock(
        floor: Floor, hole: BlackHole, tmp_path: Path) -> None:
    """A forwarder whose link goes silent in the middle of a transaction holding BJ-07's lock:
    it gets FloorUnreachable after its deadline instead of hanging, the server ends its stuck
    transaction (idle_in_transaction_session_timeout) and a second forwarder takes the lock."""
    floor.station("BJ-07", "PIT-2")
    role = station_role(floor.dbname, "BJ-07")
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=4)
    stuck = connect(hole.url(floor.dbname, role), timeouts=QUICK)
    stuck.execute("SELECT floor.take_forward_lock('BJ-07', NULL, NULL)")  # holds the lock, in a transaction
    hole.hold()

    def stuck_step() -> Any:
        with Watchdog(stuck, QUICK.client):  # as every step of the forwarder
            return stuck.execute("SELECT 1").fetchone()

    thread, out = _in_thread(stuck_step)
    # the second forwarder connects directly (its own link is fine): it waits for the lock
    # until the server has ended the silent session, then forwards everything
    with Forwarder(db, floor.server.url(floor.dbname, user=role), timeouts=QUICK) as second:
        done = second.forward()
    assert (done.rounds, done.last_round) == (4, 4)
    assert query(floor.admin_url, "SELECT count(*) FROM floor.rounds") == [(4,)]
    assert query(floor.admin_url, "SELECT count(*) FROM pg_stat_activity WHERE usename = %s "
                 "AND state = 'idle in transaction'", (role,)) == [(0,)]
    stuck_thread_ended = thread.join(60) or not thread.is_alive()
    assert stuck_thread_ended  # the blocked statement came back (its socket dead) instead of hanging
    assert isinstance(out.get("error"), FloorUnreachable), out
    assert "did not answer within 3 s" in str(out["error"])


def test_a_forward_pass_over_a_black_holed_link_fails_as_link_down(
        floor: Floor, hole: BlackHole, tmp_path: Path) -> None:
    floor.station("BJ-07", "PIT-2")
    role = station_role(floor.dbname, "BJ-07")
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=2)
    forwarder = Forwarder(db, hole.url(floor.dbname, role), timeouts=QUICK)
    assert forwarder.forward().rounds == 2  # the link works
    with open_station(db) as store:
        record_rounds(store, 3)
    hole.hold()
    thread, out = _in_thread(forwarder.forward)
    thread.join(60)
    assert not thread.is_alive()
    assert isinstance(out.get("error"), FloorUnreachable), out
    assert "did not answer within 3 s" in str(out["error"])
    # what the dealer's screen says: exactly the three rounds recorded since, not every round
    assert forwarder.waiting_now() == (3, True)
    hole.release()
    forwarder.close()
    # a connection that cannot even be set up is bounded by connect_timeout
    hole.hold()
    thread, out = _in_thread(lambda: Forwarder(db, hole.url(floor.dbname, role), timeouts=QUICK).forward())
    thread.join(60)
    assert not thread.is_alive() and isinstance(out.get("error"), FloorUnreachable), out


def test_only_the_tables_own_station_can_take_its_forwarding_lock(floor: Floor, tmp_path: Path) -> None:
    url07, url08 = floor.station("BJ-07", "PIT-2"), floor.station("BJ-08", "PIT-2")
    for url in (url08, floor.review_url):
        with psycopg.connect(url) as conn:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("SELECT floor.take_forward_lock('BJ-07', NULL, NULL)")
        with psycopg.connect(url) as conn:
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
                conn.execute("SELECT * FROM floor.forward_locks FOR UPDATE")
    with psycopg.connect(url08) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="is not the station of table BJ-07"):
            conn.execute("SELECT floor.take_forward_lock('BJ-07', NULL, NULL)")
    # the old advisory lock key, taken by another station, no longer stalls BJ-07's forwarding
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=2)
    with psycopg.connect(url08) as other:
        other.execute("SELECT pg_advisory_lock(17, hashtext('BJ-07'))")
        with Forwarder(db, url07, timeouts=QUICK) as forwarder:
            assert forwarder.forward().rounds == 2
    # and its own station may: the lock is held until its transaction ends
    with psycopg.connect(url07) as own:
        own.execute("SELECT floor.take_forward_lock('BJ-07', 2, NULL)")
        with Forwarder(db, url07, timeouts=QUICK) as forwarder:
            with open_station(db) as store:
                record_rounds(store, 1)
            with pytest.raises(FloorUnreachable, match="lock timeout"):
                forwarder.forward()


def _states(forwarder: Forwarder, passes: int) -> list[LinkState]:
    import dataclasses

    seen: list[LinkState] = []

    def report(state: LinkState, done: ForwardResult | None) -> None:
        seen.append(dataclasses.replace(state))

    forwarder.follow(interval=0.05, report=report, should_stop=lambda: len(seen) >= passes)
    return seen


def test_the_forwarder_tells_link_down_from_misconfigured(
        floor: Floor, hole: BlackHole, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    floor.station("BJ-07", "PIT-2")
    role = station_role(floor.dbname, "BJ-07")
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=2)
    # an unregistered table: the floor answers, this station is not known there
    unknown = tmp_path / "bj09.db"
    make_station(unknown, "BJ-09", "PIT-2", rounds=1)
    (state,) = _states(Forwarder(unknown, floor.server.url(floor.dbname, user=role), timeouts=QUICK), 1)
    assert (state.condition, state.offline_since) == ("misconfigured", None)
    assert state.describe().startswith("floor: misconfigured — table BJ-09 is not registered")
    # wrong credentials
    floor.server.require_password(role)
    monkeypatch.setenv("PGPASSWORD", "not-the-password")
    (state,) = _states(Forwarder(db, floor.server.url(floor.dbname, user=role), timeouts=QUICK), 1)
    assert state.condition == "misconfigured" and "password authentication failed" in (state.error or "")
    with psycopg.connect(floor.admin_url, autocommit=True) as conn:
        conn.execute(f"ALTER ROLE \"{role}\" PASSWORD 'right'")
    monkeypatch.setenv("PGPASSWORD", "right")
    # the link down: through the proxy, held; offline since the failing pass began
    forwarder = Forwarder(db, hole.url(floor.dbname, role), timeouts=QUICK)
    (up,) = _states(forwarder, 1)
    assert (up.condition, up.forwarded_up_to, up.waiting) == ("up", 2, 0)
    assert query(floor.admin_url, "SELECT state, waiting, forwarded_up_to FROM floor.station_links") == [
        ("up", 0, 2)]
    with open_station(db) as store:
        record_rounds(store, 1)
    hole.hold()
    before = dt.datetime.now(dt.UTC)
    (down,) = _states(forwarder, 1)
    assert down.condition == "down" and down.offline_since is not None
    assert before <= down.offline_since <= before + dt.timedelta(seconds=1)
    assert down.describe() == f"floor: offline since {down.offline_since.astimezone():%H:%M}, 1 rounds waiting"
    hole.release()
    forwarder.close()


def test_a_floor_never_reached_says_so_instead_of_a_count(floor: Floor, hole: BlackHole, tmp_path: Path) -> None:
    floor.station("BJ-07", "PIT-2")
    role = station_role(floor.dbname, "BJ-07")
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=3)
    hole.hold()
    (state,) = _states(Forwarder(db, hole.url(floor.dbname, role), timeouts=QUICK), 1)
    assert state.condition == "down" and not state.waiting_known
    assert state.describe().endswith("never reached; 3 finished rounds in the store")
    hole.release()


def test_misconfigured_is_a_refusal_not_an_absence(floor: Floor) -> None:
    role = station_role(floor.dbname, "BJ-07")
    with pytest.raises(FloorMisconfigured):
        connect(floor.server.url("no_such_floor", user=role), timeouts=QUICK)


def test_forwarding_on_demand_holds_no_connection_between_passes(floor: Floor, tmp_path: Path) -> None:
    """The connection budget without a pooler: a following forwarder that connects per pass."""
    url = floor.station("BJ-07", "PIT-2")
    role = station_role(floor.dbname, "BJ-07")
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=2)
    held: list[int] = []
    passes: list[LinkState] = []

    def between_passes() -> bool:  # called while the forwarder waits for its next pass
        if passes:
            (count,) = query(floor.admin_url, "SELECT count(*) FROM pg_stat_activity WHERE usename = %s",
                             (role,))[0]
            held.append(int(count))
        return len(held) >= 3

    with Forwarder(db, url, timeouts=QUICK) as forwarder:
        state = forwarder.follow(interval=0.05, report=lambda s, d: passes.append(s), should_stop=between_passes,
                                 hold_connection=False)
    assert state.condition == "up" and state.forwarded_up_to == 2
    assert len(held) >= 3 and set(held) == {0}
    # the default (the dealer's app) keeps its one connection between passes
    held.clear()
    passes.clear()
    with Forwarder(db, url, timeouts=QUICK) as forwarder:
        forwarder.follow(interval=0.05, report=lambda s, d: passes.append(s), should_stop=between_passes)
    assert len(held) >= 3 and set(held) == {1}
