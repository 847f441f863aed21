"""Surveillance's floor role (issue 36; DESIGN.md "surveillance / game protection"), on a real
server: ``<db>_surveillance`` (made by ``floor init``) reads what the review role reads —
rounds, the protection alerts and their acknowledgements, the accounting — and writes
nothing: no fill, credit, drop or buy-in (not even with both signers' PINs right), no alert
raised or acknowledged (an acknowledgement is the pit's answer and quiets the alert for half
an hour), no note, no round.

The floor played is tests/floor/test_protection_alerts.py's: BJ-01 p1 follows the count (12
rounds, flagged), p2 flat; BJ-02's shoe H-1 favours the players after its 24 fives."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from dealer_assist.floor.accounting import set_signer
from dealer_assist.floor.schema import review_role, surveillance_role
from dealer_assist.protect.live import advantage_conditions, floor_rounds
from dealer_assist.protect.report import rebuild_counts
from tests.floor import test_protection_alerts as protection
from tests.floor.conftest import Floor
from tests.floor.helpers import cli, query
from tests.floor.test_roles import ROUND

DAY = "2026-11-26"
played = protection.played  # the fixture: BJ-01 and BJ-02 forwarded
serve_once = protection.serve_once


def surveillance(floor: Floor) -> str:
    return floor.server.url(floor.dbname, user=surveillance_role(floor.dbname))


def test_surveillance_reads_the_alerts_the_rounds_and_the_players_counts(played: Floor, tmp_path: Path) -> None:
    serve_once(played, tmp_path)
    url = surveillance(played)
    listed = cli("floor", "alerts", "--url", url)
    assert listed.returncode == 0, listed.stderr
    rows = sorted((f[2], f[3], f[4], f[6]) for f in (line.split("\t") for line in listed.stdout.splitlines()))
    assert rows == [("BJ-01", "advantage_play", "p1", "open"), ("BJ-02", "shoe_favours_players", "H-1", "open")]
    # every round the stations forwarded: 12 of BJ-01 and 3 of BJ-02
    history = cli("history", "--db", url, "list", "--json")
    assert history.returncode == 0, history.stderr
    listing = json.loads(history.stdout)  # a JSON array (spec/round-script.md)
    assert sorted(r["table"] for r in listing) == ["BJ-01"] * 12 + ["BJ-02"] * 3
    # the players' bets against the count, as the floor service reads them: p1 flagged, p2 not
    with psycopg.connect(url) as conn:
        now = dt.datetime.now(dt.UTC)
        rounds = floor_rounds(conn, now - dt.timedelta(hours=2), now + dt.timedelta(minutes=1))
    rebuild_counts(rounds)
    assert [(c.table, c.subject) for c in advantage_conditions(rounds, "")] == [("BJ-01", "p1")]
    # the accounting is readable (none recorded here); the signers' PIN hashes are not
    for table in ("chip_movements", "drops", "buy_ins", "alert_acks", "notes"):
        assert query(url, f"SELECT count(*) FROM floor.{table}") == [(0,)]
    with psycopg.connect(url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("SELECT * FROM floor.signers")


def test_surveillance_writes_nothing_not_money_not_alerts(floor: Floor) -> None:
    """Every write probed as the review role's are (tests/floor/test_accounting.py), and the
    review role's own few writes too: each refused by the server, nothing changed."""
    station = floor.station("BJ-07", "PIT-2")
    with psycopg.connect(floor.admin_url) as conn:
        for name, pin in (("ann", "1111"), ("sue", "3333")):
            set_signer(conn, name, pin)
        (alert,) = conn.execute("SELECT floor.raise_alert('BJ-07', 'pace', 'x', interval '1 minute')").fetchone()
    with psycopg.connect(station) as conn:
        conn.execute(ROUND, ("BJ-07", 1, "PIT-2", dt.datetime.now(dt.UTC), 1))
    opener = cli("floor", "chips", "--url", floor.review_url, "--table", "BJ-07", "--day", DAY, "--shift", "day",
                 "--kind", "opener", "--chips", "100x10", "--dealer", "ann", "--supervisor", "sue",
                 stdin="1111\n3333\n")
    assert opener.returncode == 0, opener.stderr
    url = surveillance(floor)
    writes = (
        # money: fills, credits, drops, buy-ins, directly or through the functions with both PINs right
        "INSERT INTO floor.chip_movements (table_name, gaming_day, shift, kind, chips, dealer, supervisor) "
        "VALUES ('BJ-07', '2026-11-26', 'day', 'fill', '{\"100\": 1}', 'ann', 'sue')",
        "UPDATE floor.chip_movements SET chips = '{\"100\": 99}'",
        "DELETE FROM floor.chip_movements",
        "TRUNCATE floor.chip_movements",
        "SELECT floor.record_chips('BJ-07', '2026-11-26', 'day', 'fill', '{\"100\": 1}', 'ann', '1111', 'sue', '3333')",
        "SELECT floor.record_chips('BJ-07', '2026-11-26', 'day', 'credit', '{\"100\": 1}', 'ann', '1111', 'sue', "
        "'3333')",
        "INSERT INTO floor.drops (table_name, gaming_day, shift, cash, markers, counted_by, witness) "
        "VALUES ('BJ-07', '2026-11-26', 'day', 1, 0, 'a', 'b')",
        "SELECT floor.record_drop('BJ-07', '2026-11-26', 'day', 100, 0, 'ann', '1111', 'sue', '3333')",
        "INSERT INTO floor.buy_ins (table_name, player, amount, kind, supervisor) VALUES ('BJ-07', 'p', 1, 'cash', 's')",
        "SELECT floor.record_buy_in('BJ-07', 'alice', 500, 'cash', 'sue', '3333')",
        "SELECT floor.set_signer('mal', '1234')",
        "INSERT INTO floor.table_chips (table_name, denominations) VALUES ('BJ-07', '{1}')",
        # alerts: neither raised nor acknowledged nor changed
        "SELECT floor.raise_alert('BJ-07', 'pace', 'y', interval '1 minute')",
        "SELECT floor.raise_alert('BJ-07', 'advantage_play', 'p9', 'y', interval '1 minute')",
        f"INSERT INTO floor.alert_acks (alert_id, supervisor, note) VALUES ({alert}, 'sue', 'seen')",
        "DELETE FROM floor.alerts",
        "UPDATE floor.alerts SET detail = 'nothing'",
        # notes and the stations' records
        "INSERT INTO floor.notes (table_name, round_id, kind, supervisor, text) VALUES ('BJ-07', 1, 'note', 's', 'x')",
        "UPDATE floor.rounds SET status = 'void'",
        "DELETE FROM floor.rounds",
    )
    for statement in writes:
        with psycopg.connect(url) as conn:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
    with psycopg.connect(url) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(ROUND, ("BJ-07", 2, "PIT-2", dt.datetime.now(dt.UTC), 2))
    # through the CLI: a clear one-line error, never a traceback
    for args in (("floor", "ack", "--url", url, "--alert", str(alert), "--supervisor", "sue", "--note", "seen"),
                 ("floor", "drop", "--url", url, "--table", "BJ-07", "--day", DAY, "--shift", "day", "--cash", "100",
                  "--counted-by", "ann", "--witness", "sue")):
        done = cli(*args, stdin="1111\n3333\n")
        assert done.returncode == 2 and done.stderr.startswith("error: "), done.stdout + done.stderr
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    # nothing changed: the review role's opener, the open alert, the station's round
    assert query(floor.admin_url, "SELECT kind, total, db_role FROM floor.chip_movements") == [
        ("opener", Decimal(1000), review_role(floor.dbname))]
    for table in ("drops", "buy_ins", "alert_acks", "notes", "table_chips"):
        assert query(floor.admin_url, f"SELECT count(*) FROM floor.{table}") == [(0,)]
    assert query(floor.admin_url, "SELECT alert_id, kind, subject, detail FROM floor.alerts") == [
        (alert, "pace", "", "x")]
    assert query(floor.admin_url, "SELECT round_id, status FROM floor.rounds") == [(1, "settled")]
    assert query(floor.admin_url, "SELECT signer FROM floor.signers ORDER BY signer") == [("ann",), ("sue",)]
