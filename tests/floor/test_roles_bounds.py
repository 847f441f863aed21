"""Roles and channels (issue 35, item 4) on a real server.

PostgreSQL lets every role change its own session defaults (``ALTER ROLE CURRENT_USER RESET
ALL`` / ``SET``: shown here, it is the server's rule) and any session its own settings, so a
role's settings are never the guarantee: the floor keeps each role's bounds in
``floor.role_bounds``, the forwarding lock refuses a session whose bounds are off, and
``floor.enforce_bounds`` (the floor service, each pass) puts a role's settings back and ends a
session idle in a transaction beyond its bound. A role cannot change its group's settings."""

from __future__ import annotations

import time
from pathlib import Path

import psycopg
import pytest

from dealer_assist.floor.connection import STATION
from dealer_assist.floor.forward import Forwarder
from dealer_assist.floor.schema import review_role, stations_group
from tests.floor.conftest import Floor
from tests.floor.helpers import query
from tests.floor.stations import make_station

WANTED = ["idle_in_transaction_session_timeout=15000ms", "lock_timeout=5000ms", "statement_timeout=30000ms"]


def _settings(floor: Floor, role: str) -> list[str]:
    rows = query(floor.admin_url, "SELECT coalesce(array_agg(c ORDER BY c), '{}') FROM pg_db_role_setting s "
                 "JOIN pg_roles r ON r.oid = s.setrole, unnest(s.setconfig) c WHERE r.rolname = %s "
                 "AND s.setdatabase = 0", (role,))
    return list(rows[0][0])


def test_a_role_that_drops_its_settings_cannot_lock_its_table_and_gets_them_back(floor: Floor, tmp_path: Path) -> None:
    url = floor.station("BJ-07", "PIT-2")
    role = url.split("://", 1)[1].split("@", 1)[0]
    assert _settings(floor, role) == WANTED
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("ALTER ROLE CURRENT_USER RESET ALL")  # PostgreSQL allows it (its own defaults)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # not its group's
            conn.execute(f'ALTER ROLE "{stations_group(floor.dbname)}" SET statement_timeout = 0')
    assert _settings(floor, role) == []
    # a session without its bounds (the role's defaults gone) cannot take the table's lock ...
    with psycopg.connect(url) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="bounds .* are off or above the floor's"):
            conn.execute("SELECT floor.take_forward_lock('BJ-07', NULL, NULL)")
    # ... nor one that SETs a bound off itself (the forwarder's own options are not enough)
    with psycopg.connect(url, options=STATION.options()) as conn:
        conn.execute("SET idle_in_transaction_session_timeout = 0")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="idle in transaction 0 ms"):
            conn.execute("SELECT floor.take_forward_lock('BJ-07', NULL, NULL)")
    # the real forwarder gives its bounds and forwards
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=1)
    with Forwarder(db, url) as forwarder:
        assert forwarder.forward().rounds == 1
    # the review role resets its own too
    review_url = floor.review_url
    with psycopg.connect(review_url, autocommit=True) as conn:
        conn.execute("ALTER ROLE CURRENT_USER SET statement_timeout = 0")
        conn.execute(f'ALTER ROLE CURRENT_USER IN DATABASE "{floor.dbname}" SET lock_timeout = 0')
    # the floor service's pass puts both back
    with psycopg.connect(floor.admin_url) as conn:
        done = conn.execute("SELECT account, action FROM floor.enforce_bounds()").fetchall()
    review = review_role(floor.dbname)
    assert [(a, x.split(" (")[0]) for a, x in done] == [
        (review, "its settings were changed"), (review, "its per-database settings were removed"),
        (role, "its settings were changed")]
    assert _settings(floor, role) == WANTED
    assert _settings(floor, review) == ["idle_in_transaction_session_timeout=60000ms", "lock_timeout=5000ms",
                                        "statement_timeout=300000ms"]
    with psycopg.connect(floor.admin_url) as conn:
        assert conn.execute("SELECT * FROM floor.enforce_bounds()").fetchall() == []  # nothing more to do
    # no floor role reads the bounds or runs the enforcement
    with psycopg.connect(url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("SELECT count(*) FROM floor.role_bounds")
    with psycopg.connect(review_url) as conn:  # row-level security, no policy: no row
        assert conn.execute("SELECT count(*) FROM floor.role_bounds").fetchone() == (0,)
    for who in (url, review_url):
        with psycopg.connect(who) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT * FROM floor.enforce_bounds()")


def test_a_session_holding_its_tables_lock_past_its_bound_is_ended(floor: Floor) -> None:
    """A station takes its lock with its bounds, then SETs its idle bound off inside the
    transaction and sits there: the floor service's pass ends the session (the bound here 1 s,
    for the test), and the lock is free again."""
    url = floor.station("BJ-07", "PIT-2")
    role = url.split("://", 1)[1].split("@", 1)[0]
    with psycopg.connect(floor.admin_url) as conn:
        conn.execute("UPDATE floor.role_bounds SET idle_ms = 1000 WHERE account = %s", (role,))
    held = psycopg.connect(url, options="-c idle_in_transaction_session_timeout=1000")
    held.execute("SELECT floor.take_forward_lock('BJ-07', NULL, NULL)")
    held.execute("SET LOCAL idle_in_transaction_session_timeout = 0")
    time.sleep(2.5)
    with psycopg.connect(floor.admin_url) as conn:
        done = conn.execute("SELECT account, action FROM floor.enforce_bounds()").fetchall()
    # (its settings follow the bound changed for the test; then the session goes)
    assert [a for a, _ in done] == [role, role] and done[0][1].startswith("its settings were changed"), done
    assert done[1][1].endswith("ended (idle in transaction beyond its bound)"), done
    with pytest.raises(psycopg.OperationalError):
        held.execute("SELECT 1")
    held.close()
    with psycopg.connect(url, options="-c lock_timeout=1000 -c idle_in_transaction_session_timeout=1000") as conn:
        conn.execute("SELECT floor.take_forward_lock('BJ-07', NULL, NULL)")  # free again
