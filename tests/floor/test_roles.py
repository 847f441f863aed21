"""The floor's schema and roles: what a station may do is decided by the server (grants and
row-level security), not by the client. Every refusal here is PostgreSQL's own."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import psycopg
import pytest

from dealer_assist.floor.schema import add_station, init_floor, station_role
from tests.floor.conftest import Floor
from tests.floor.helpers import cli, cli_env, query

ROUND = (
    "INSERT INTO floor.rounds (table_name, round_id, pit, number, source, game, config_json, started_at, "
    "status, players_json, totals_json, irregular, wagered, house_net, station_link, floor_seq, floor_link) "
    "VALUES (%s, %s, %s, 1, 'live', 'lucky8', '{}', %s, 'settled', '[]', '{}', false, 0, 0, '\\x00', %s, '\\x00')"
)


def test_init_creates_the_schema_once_and_is_idempotent(admin_url: str) -> None:
    first = cli("floor", "init", "--url", admin_url)
    assert first.returncode == 0, first.stderr
    assert "applied 0001_initial" in first.stdout
    again = cli("floor", "init", "--url", admin_url)
    assert again.returncode == 0 and "up to date" in again.stdout
    names = query(admin_url, "SELECT name FROM floor.schema_migrations ORDER BY name")
    assert names == [("0001_initial",), ("0002_notes_alarms_versions",), ("0003_latest_views",),
                     ("0004_link_closed_writes",), ("0005_alerts",), ("0006_table_accounting",),
                     ("0007_one_station_policy",), ("0008_monthly_partitions",), ("0009_round_rows_monthly",),
                     ("0010_cage_rules",), ("0011_role_bounds",), ("0012_protection_alerts",),
                     ("0013_alert_subjects",)]
    # an online migration's record is its swap's step (the versions before 0014 read schema_migrations)
    assert query(admin_url, "SELECT migration FROM floor.migration_steps WHERE step = 'swap' AND done_at IS NOT NULL") \
        == [("0014_round_reach",), ("0015_chain_format",), ("0016_audit_format",)]


def test_init_brings_an_older_floor_up_to_the_latest_views(floor: Floor) -> None:
    """A floor of the previous version (no 0003): the reader asks for `floor init`, which adds
    the views the listings read; the review role can read them."""
    from dealer_assist.floor.connection import FloorError
    from dealer_assist.floor.reader import FloorReader

    with psycopg.connect(floor.admin_url) as conn:
        conn.execute("DROP VIEW floor.rounds_latest, floor.round_players_latest")
        conn.execute("DELETE FROM floor.schema_migrations WHERE name = '0003_latest_views'")
    with pytest.raises(FloorError, match="older than this version: run `dealer-assist floor init"):
        FloorReader(floor.review_url)
    done = cli("floor", "init", "--url", floor.admin_url)
    assert done.returncode == 0 and "applied 0003_latest_views" in done.stdout, done.stdout + done.stderr
    with FloorReader(floor.review_url) as reader:
        assert reader.list_rounds() == []
    assert query(floor.review_url, "SELECT count(*) FROM floor.round_players_latest") == [(0,)]


def test_a_floor_from_a_newer_version_is_refused(admin_url: str) -> None:
    init_floor(admin_url)
    with psycopg.connect(admin_url) as conn:
        conn.execute("INSERT INTO floor.schema_migrations (name) VALUES ('0099_future')")
    done = cli("floor", "init", "--url", admin_url)
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and "newer Dealer Assist (schema 0099_future)" in done.stderr


def test_a_password_on_the_command_line_is_refused_and_not_echoed(admin_url: str) -> None:
    url = admin_url.replace("da_admin@", "da_admin:s3cret-pw@")
    for args in (["floor", "init", "--url", url], ["forward", "--db", "x.db", "--to", url],
                 ["history", "--db", url, "list"]):
        done = cli(*args)
        assert done.returncode == 2, args
        assert "PGPASSFILE" in done.stderr and "s3cret-pw" not in done.stderr + done.stdout


def test_the_station_role_is_refused_update_delete_and_other_tables_by_the_server(floor: Floor) -> None:
    url7 = floor.station("BJ-07", "PIT-2")
    floor.station("BJ-08", "PIT-2")
    now = dt.datetime.now(dt.UTC)
    with psycopg.connect(url7) as conn:
        conn.execute(ROUND, ("BJ-07", 1, "PIT-2", now, 1))  # its own table: allowed
        conn.commit()
        assert conn.execute("SELECT current_user").fetchone() == (station_role(floor.dbname, "BJ-07"),)
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied for table rounds"):
            conn.execute("UPDATE floor.rounds SET status = 'void' WHERE table_name = 'BJ-07'")
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied for table rounds"):
            conn.execute("DELETE FROM floor.rounds WHERE table_name = 'BJ-07'")
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied for table events"):
            conn.execute("DELETE FROM floor.events")
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            conn.execute(ROUND, ("BJ-08", 1, "PIT-2", now, 1))  # another table's row
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            conn.execute(ROUND, ("BJ-07", 2, "PIT-9", now, 2))  # its own table in another pit
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
            conn.execute("INSERT INTO floor.tables (table_name, pit, station_role) VALUES ('X', 'P', 'x')")
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
            conn.execute("TRUNCATE floor.rounds")
        conn.rollback()
    # What the admin sees: the one row BJ-07 was allowed, unchanged.
    assert query(floor.admin_url, "SELECT table_name, round_id, status FROM floor.rounds") == [
        ("BJ-07", 1, "settled")
    ]
    # BJ-08's station does not even see BJ-07's rows.
    url8 = floor.server.url(floor.dbname, user=station_role(floor.dbname, "BJ-08"))
    assert query(url8, "SELECT count(*) FROM floor.rounds") == [(0,)]


def test_the_review_role_reads_everything_and_writes_nothing(floor: Floor) -> None:
    url7 = floor.station("BJ-07", "PIT-2")
    now = dt.datetime.now(dt.UTC)
    with psycopg.connect(url7) as conn:
        conn.execute(ROUND, ("BJ-07", 1, "PIT-2", now, 1))
    assert query(floor.review_url, "SELECT table_name FROM floor.rounds") == [("BJ-07",)]
    assert query(floor.review_url, "SELECT table_name, pit FROM floor.tables") == [("BJ-07", "PIT-2")]
    with psycopg.connect(floor.review_url) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(ROUND, ("BJ-07", 2, "PIT-2", now, 2))
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE floor.rounds SET status = 'void'")


def test_a_table_stays_in_its_pit(floor: Floor) -> None:
    floor.station("BJ-07", "PIT-2")
    from dealer_assist.floor.connection import FloorError

    with pytest.raises(FloorError, match="already registered in pit PIT-2, not PIT-3"):
        add_station(floor.admin_url, "BJ-07", "PIT-3")
    bad = cli("floor", "station", "--url", floor.admin_url, "--table", "BJ 07; drop", "--pit", "P")
    assert bad.returncode == 2 and "table name" in bad.stderr


def test_the_station_password_comes_from_pgpassfile_and_never_shows(floor: Floor, tmp_path: Path) -> None:
    import os

    from tests.floor.stations import make_station

    url = floor.station("BJ-07", "PIT-2")
    role = station_role(floor.dbname, "BJ-07")
    secret = "Tr0ub4dor-station-7"
    with psycopg.connect(floor.admin_url, autocommit=True) as conn:
        conn.execute(psycopg.sql.SQL("ALTER ROLE {} PASSWORD {}").format(
            psycopg.sql.Identifier(role), psycopg.sql.Literal(secret)))
    floor.server.require_password(role)
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=2)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    refused = cli_env(env | {"PGPASSFILE": str(tmp_path / "none")}, "forward", "--db", str(db), "--to", url)
    assert refused.returncode == 2
    assert refused.stderr.startswith("error: cannot connect to ") and "password" in refused.stderr
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"*:*:*:{role}:{secret}\n")
    passfile.chmod(0o600)  # libpq ignores a password file others can read
    done = cli_env(env | {"PGPASSFILE": str(passfile)}, "forward", "--db", str(db), "--to", url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("forwarded 2 rounds")
    assert secret not in refused.stderr + refused.stdout + done.stderr + done.stdout


def test_row_level_security_does_not_grow_with_stations_and_init_locks_no_table(floor: Floor) -> None:
    """One station policy per table whatever the number of stations (a group role holds the
    grants; the policy finds the station's table through floor.tables). Registering a station
    and running floor init again take no lock on the forwarded tables: a long reader holding
    every one of them (a verify, a report) holds up neither."""
    from tests.floor.helpers import cli as run

    for n in range(6):
        floor.station(f"BJ-{n:02d}", "PIT-2")
    policies = query(floor.admin_url, "SELECT count(*) FROM pg_policies WHERE schemaname = 'floor' "
                                      "AND tablename = 'rounds'")
    assert policies == [(4,)]  # station_sees, station_adds, the review role's, surveillance's
    with psycopg.connect(floor.review_url) as reader:
        reader.execute("SELECT 1 FROM floor.rounds, floor.events, floor.audit, floor.round_players, "
                       "floor.settlements, floor.sessions, floor.tables LIMIT 1")  # ACCESS SHARE on each, held
        added = run("floor", "station", "--url", floor.admin_url, "--table", "BJ-99", "--pit", "PIT-3")
        assert added.returncode == 0, added.stderr
        again = run("floor", "init", "--url", floor.admin_url)
        assert again.returncode == 0 and "up to date" in again.stdout, again.stderr
    assert query(floor.admin_url, "SELECT count(*) FROM pg_policies WHERE schemaname = 'floor' "
                                  "AND tablename = 'rounds'") == [(4,)]
    # and BJ-99's station sees only its own table's registration
    url99 = floor.server.url(floor.dbname, user=station_role(floor.dbname, "BJ-99"))
    assert query(url99, "SELECT table_name FROM floor.tables") == [("BJ-99",)]
