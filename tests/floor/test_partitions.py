"""The floor's big tables partitioned by month (issue 25, item 6; migration 0008) and the
theoretical win worked out once per round at forwarding. A real PostgreSQL; the floor of the
previous version is made by that version's own (frozen) migrations."""

from __future__ import annotations

import datetime as dt
import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from dealer_assist.floor import forward, schema
from dealer_assist.floor.forward import Forwarder
from dealer_assist.floor.reader import FloorReader
from dealer_assist.floor.schema import add_station, init_floor, review_role
from dealer_assist.odds.theo import house_edges
from dealer_assist.store import format_time
from tests.floor.helpers import cli, floor_version, query
from tests.floor.pgserver import Server
from tests.floor.stations import DOCUMENTS, make_station, open_station, record_rounds

_STORE_MODULES = ("core", "audit", "identity", "log")


@contextmanager
def recorded_at(monkeypatch: pytest.MonkeyPatch, moment: dt.datetime) -> Iterator[None]:
    """The station's clock reads ``moment`` (rounds recorded in another month)."""
    with monkeypatch.context() as m:
        for name in _STORE_MODULES:
            module = importlib.import_module(f"dealer_assist.store.{name}")
            if hasattr(module, "utc_now"):
                m.setattr(module, "utc_now", lambda: format_time(moment))
        yield


def month_start(moment: dt.datetime, months: int = 0) -> dt.datetime:
    index = moment.year * 12 + moment.month - 1 + months
    return dt.datetime(index // 12, index % 12 + 1, 1, tzinfo=dt.UTC)


def partitions_of(url: str, table: str) -> dict[str, int]:
    return {str(name): int(n) for name, n in query(
        url, f"SELECT tableoid::regclass::text, count(*) FROM floor.{table} GROUP BY 1")}


def test_a_floor_of_the_previous_version_moves_into_monthly_partitions(
        pg_server: Server, floor_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    admin = pg_server.url(floor_db)
    db = tmp_path / "BJ-07.db"
    # the floor as version 0007 made it, forwarded to by that version (rounds without theo)
    with monkeypatch.context() as m:
        floor_version(m, "0007_one_station_policy")
        m.setattr(forward, "_ROUND_COLUMNS", forward._ROUND_COLUMNS[:22])
        for name in ("_EVENT_COLUMNS", "_SETTLEMENT_COLUMNS", "_RULING_COLUMNS"):  # without their round's start
            m.setattr(forward, name, getattr(forward, name)[:-1])
        m.setattr(forward, "_QUERIES", {})
        assert init_floor(admin)[-1] == "0007_one_station_policy"
        url = pg_server.url(floor_db, user=add_station(admin, "BJ-07", "PIT-2").role)
        with recorded_at(monkeypatch, dt.datetime(2026, 9, 14, 22, 30, tzinfo=dt.UTC)):
            make_station(db, "BJ-07", "PIT-2", rounds=2)  # no void: its approval ages by the real clock
        with recorded_at(monkeypatch, dt.datetime(2026, 10, 2, 1, 15, tzinfo=dt.UTC)), open_station(db) as store:
            record_rounds(store, 4, start=3)
        with Forwarder(db, url) as forwarder:
            assert forwarder.forward().rounds == 6
    assert query(admin, "SELECT to_regclass('floor.rounds_2026_09')") == [(None,)]
    assert query(admin, "SELECT count(*), count(DISTINCT date_trunc('month', started_at AT TIME ZONE 'UTC')) "
                        "FROM floor.rounds") == [(6, 2)]
    # audit entries that reached the floor in September (the time they arrived is not chained)
    with psycopg.connect(admin) as conn:
        conn.execute("UPDATE floor.audit SET forwarded_at = '2026-09-30 23:59:59.999+00' WHERE audit_id <= 5")
    audit_total = query(admin, "SELECT count(*) FROM floor.audit")[0][0]
    assert audit_total > 5

    done = cli("floor", "init", "--url", admin)
    assert done.returncode == 0 and "applied 0008_monthly_partitions" in done.stdout, done.stdout + done.stderr
    assert partitions_of(admin, "rounds") == {"floor.rounds_2026_09": 2, "floor.rounds_2026_10": 4}
    now = dt.datetime.now(dt.UTC)
    this_month = f"floor.audit_{now:%Y_%m}"
    assert partitions_of(admin, "audit") == {"floor.audit_2026_09": 5, this_month: audit_total - 5}
    assert query(admin, "SELECT to_regclass('floor.rounds_0007'), to_regclass('floor.audit_0007')") == [(None, None)]
    # the months ahead are made (this one and the next two), with a default partition beside them
    made = {str(r[0]) for r in query(admin, "SELECT inhrelid::regclass::text FROM pg_inherits "
                                            "WHERE inhparent = 'floor.rounds'::regclass")}
    ahead = {f"floor.rounds_{month_start(now, k):%Y_%m}" for k in range(3)}
    assert made == {"floor.rounds_2026_09", "floor.rounds_2026_10", "floor.rounds_default"} | ahead
    review = pg_server.url(floor_db, user=review_role(floor_db))
    with FloorReader(review) as reader:
        checked = reader.verify("BJ-07")
        assert checked.ok and checked.rounds == 6 and checked.audit == audit_total, checked

    # forwarding goes on into a new month: the first instant of next month lands in its partition,
    # a month beyond those made lands in the default one and moves to its month when it is made
    nxt, far = month_start(now, 1), month_start(now, 7) + dt.timedelta(days=9)
    with recorded_at(monkeypatch, nxt), open_station(db) as store:
        record_rounds(store, 1, start=0)
    with recorded_at(monkeypatch, far), open_station(db) as store:
        record_rounds(store, 2, start=3)
    sent = cli("forward", "--db", str(db), "--to", url)
    assert sent.returncode == 0 and sent.stdout.startswith("forwarded 3 rounds"), sent.stdout + sent.stderr
    rounds = partitions_of(admin, "rounds")
    assert rounds[f"floor.rounds_{nxt:%Y_%m}"] == 1 and rounds["floor.rounds_default"] == 2
    assert query(admin, "SELECT max(floor_seq) FROM floor.rounds") == [(9,)]
    with psycopg.connect(admin) as conn:
        assert conn.execute("SELECT floor.add_month('rounds', %s)", (far.date(),)).fetchone() == (True,)
    rounds = partitions_of(admin, "rounds")
    assert rounds[f"floor.rounds_{far:%Y_%m}"] == 2 and "floor.rounds_default" not in rounds
    with FloorReader(review) as reader:
        checked = reader.verify("BJ-07")
        assert checked.ok and checked.rounds == 9, checked
    # an init on the migrated floor has nothing to do
    again = cli("floor", "init", "--url", admin)
    assert again.returncode == 0 and "up to date" in again.stdout, again.stdout + again.stderr


def test_a_round_or_audit_entry_is_on_the_floor_once_whatever_its_month(floor, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The partitions' keys hold the month: a station sending a round again under another start
    (or an audit entry again) is refused by the server all the same."""
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "BJ-07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=2)
    assert cli("forward", "--db", str(db), "--to", url).returncode == 0
    copy_round = ("INSERT INTO floor.rounds (table_name, round_id, pit, number, source, game, config_json, "
                  "started_at, status, players_json, totals_json, irregular, wagered, house_net, station_link, "
                  "floor_seq, floor_link) SELECT table_name, round_id, pit, number, source, game, config_json, "
                  "started_at - interval '40 days', status, players_json, totals_json, irregular, wagered, "
                  "house_net, station_link, {seq}, floor_link FROM floor.rounds WHERE round_id = 1")
    for seq in ("floor_seq", "99"):  # the same round; the same floor seq under another round
        statement = copy_round.format(seq=seq) if seq != "99" else copy_round.format(seq="2").replace(
            "round_id = 1", "round_id = 1").replace("SELECT table_name, round_id,", "SELECT table_name, 77,")
        with psycopg.connect(url) as conn, pytest.raises(psycopg.errors.UniqueViolation,
                                                         match="already on the floor"):
            conn.execute(statement)
    with psycopg.connect(url) as conn, pytest.raises(psycopg.errors.UniqueViolation, match="already on the floor"):
        conn.execute("INSERT INTO floor.audit (table_name, audit_id, at, actor, kind, round_id, detail_json, "
                     "station_link, floor_link, forwarded_at) SELECT table_name, audit_id, at, actor, kind, round_id, "
                     "detail_json, station_link, floor_link, forwarded_at - interval '40 days' FROM floor.audit "
                     "WHERE audit_id = 1")
    assert query(floor.admin_url, "SELECT count(*) FROM floor.rounds") == [(2,)]
    with FloorReader(floor.review_url) as reader:
        assert reader.verify("BJ-07").ok


def test_the_theoretical_win_is_worked_out_once_at_forwarding(floor, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Each settled round's theoretical win is stored with it as it is forwarded: the par sheets'
    edges x the wagers (worked out here by hand); the pit's tab sums it without reading a round."""
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "BJ-07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=3)  # Ace Race, Lucky 8 with the ruling, a Lucky 8 void
    # the edges kept once (issue 35: `floor edges` at install; the forwarder never works them out)
    kept = cli("floor", "edges", "--game", "ace_race", "--game", "lucky8", "--decks", "6")
    assert kept.returncode == 0, kept.stderr
    assert cli("forward", "--db", str(db), "--to", url).returncode == 0
    ace, lucky = house_edges("ace_race", 6), house_edges("lucky8", 6)
    ace_theo = 25 * ace["main"] + 5 * ace["pair"]  # alice: main 25, pair 5
    lucky_theo = (20 + 40) * lucky["main"]  # alice main 20, bob main 40
    rows = query(floor.admin_url, "SELECT round_id, status, theo, theo_initial FROM floor.rounds ORDER BY round_id")
    assert rows == [(1, "settled", ace_theo, Decimal(30)), (2, "settled", lucky_theo, Decimal(60)),
                    (3, "void", None, None)]
    with FloorReader(floor.review_url) as reader:
        sums, missing = reader.stored_theo(pit="PIT-2")
    assert missing == []
    assert [(s.table, s.rounds, s.initial, s.theo, s.actual) for s in sums] == [
        ("BJ-07", 2, Decimal(90), ace_theo + lucky_theo, Decimal(-85))]  # the house lost 25 and 60


def test_verify_of_a_range_reads_that_range_and_continues_the_chain(  # type: ignore[no-untyped-def]
        floor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`history verify --since --until` checks the rounds started in that time (and the audit
    entries forwarded then), chained on from the stored link before them: a round altered in
    September fails September's check and not October's; one altered in October fails October's."""
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "BJ-07.db"
    with recorded_at(monkeypatch, dt.datetime(2026, 9, 20, 12, 0, tzinfo=dt.UTC)):
        make_station(db, "BJ-07", "PIT-2", rounds=2)
    with recorded_at(monkeypatch, dt.datetime(2026, 10, 5, 12, 0, tzinfo=dt.UTC)), open_station(db) as store:
        record_rounds(store, 3, start=3)  # rounds 3-5
    assert cli("forward", "--db", str(db), "--to", url).returncode == 0

    def check(since: str, until: str) -> tuple[int, str]:
        done = cli("history", "--db", floor.review_url, "verify", "--table", "BJ-07", "--since", since,
                   "--until", until)
        return done.returncode, done.stdout + done.stderr

    code, text = check("2026-09-01", "2026-09-30")
    assert code == 0 and "2 rounds" in text, text
    code, text = check("2026-10-01", "2026-10-31")
    assert code == 0 and "3 rounds" in text, text
    with FloorReader(floor.review_url) as reader:
        september = reader.verify("BJ-07", since=dt.datetime(2026, 9, 1, tzinfo=dt.UTC),
                                  until=dt.datetime(2026, 10, 1, tzinfo=dt.UTC))
        assert september.ok and september.rounds == 2, september
    with psycopg.connect(floor.admin_url) as conn:  # the administrator alters a September round
        conn.execute("UPDATE floor.rounds SET house_net = house_net + 1 WHERE round_id = 2")
    code, text = check("2026-09-01", "2026-09-30")
    assert code == 1 and "round 2" in text, text
    assert check("2026-10-01", "2026-10-31")[0] == 0
    with psycopg.connect(floor.admin_url) as conn:
        conn.execute("UPDATE floor.rounds SET status = 'void' WHERE round_id = 4")
    code, text = check("2026-10-01", "2026-10-31")
    assert code == 1 and "round 4" in text, text
    with psycopg.connect(floor.admin_url) as conn:  # rows of a round that is not on the floor
        conn.execute("UPDATE floor.rounds SET status = 'settled' WHERE round_id = 4")  # both put back
        conn.execute("UPDATE floor.rounds SET house_net = house_net - 1 WHERE round_id = 2")
        conn.execute("INSERT INTO floor.settlements SELECT table_name, 40, idx, player, area, hand, bet, stake, "
                     "result, net, rule, stage, started_at FROM floor.settlements WHERE round_id = 3")
    whole = cli("history", "--db", floor.review_url, "verify", "--table", "BJ-07")
    assert whole.returncode == 1 and "rows of round 40 are on the floor without the round" in whole.stdout, (
        whole.stdout + whole.stderr)
    refused = cli("history", "--db", str(db), "verify", "--since", "2026-10-01")
    assert refused.returncode == 2 and "the floor only" in refused.stderr, refused.stderr


def test_the_par_sheet_edges_kept_on_disk_are_the_par_sheets(tmp_path: Path) -> None:
    """The forwarder's edges (worked out once, then read from the disk cache by the next process)
    are house_edges' exactly; a cache file named for other odds sources is not read."""
    import json
    import os
    import subprocess
    import sys

    code = ("import json, sys; from dealer_assist.floor.edges import cached_edges; "
            "print(json.dumps({k: str(v) for k, v in cached_edges('dueling8s', 6).items()}))")
    env = os.environ | {"XDG_CACHE_HOME": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
            for _ in range(2)]
    files = list((tmp_path / "dealer-assist").glob("house-edges-*.json"))
    assert len(files) == 1
    expected = {k: str(v) for k, v in house_edges("dueling8s", 6).items()}
    assert json.loads(runs[0].stdout) == expected and json.loads(runs[1].stdout) == expected
    assert json.loads(files[0].read_text())["dueling8s/6"] == expected
    files[0].write_text(json.dumps({"dueling8s/6": {"main": "0.5"}}))  # the second run read the file:
    third = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert json.loads(third.stdout) == {"main": "0.5"}  # (a planted figure shows it is read, by name)
    (tmp_path / "dealer-assist" / files[0].name).rename(tmp_path / "dealer-assist" / "house-edges-other.json")
    fourth = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert json.loads(fourth.stdout) == expected


def test_a_floor_of_0008_moves_each_rounds_rows_into_its_month(
        pg_server: Server, floor_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Migration 0009: events, settlements, rulings and players of a 0008 floor move into their
    round's month (a row without its round stays, in the default partition, for verify to name);
    rounds stay verifiable and forwarding goes on exactly once."""
    admin = pg_server.url(floor_db)
    db = tmp_path / "BJ-07.db"
    with monkeypatch.context() as m:  # the floor and the forwarder of version 0008
        floor_version(m, "0008_monthly_partitions")
        m.setattr(schema, "PARTITIONED", {"rounds": "started_at", "audit": "forwarded_at",
                                          "round_versions": "forwarded_at"})
        for name in ("_EVENT_COLUMNS", "_SETTLEMENT_COLUMNS", "_RULING_COLUMNS"):
            m.setattr(forward, name, getattr(forward, name)[:-1])
        m.setattr(forward, "_QUERIES", {})
        assert init_floor(admin)[-1] == "0008_monthly_partitions"
        url = pg_server.url(floor_db, user=add_station(admin, "BJ-07", "PIT-2").role)
        with recorded_at(monkeypatch, dt.datetime(2026, 9, 14, 22, 30, tzinfo=dt.UTC)):
            make_station(db, "BJ-07", "PIT-2", rounds=2)  # Ace Race, Lucky 8 with its 5.13 ruling
        with recorded_at(monkeypatch, dt.datetime(2026, 10, 2, 1, 15, tzinfo=dt.UTC)), open_station(db) as store:
            record_rounds(store, 4, start=3)  # Star Elements, Lucky 8, Dueling 8's, Electronic
        with Forwarder(db, url) as forwarder:
            assert forwarder.forward().rounds == 6
    assert query(admin, "SELECT to_regclass('floor.events_2026_09')") == [(None,)]
    children = ("events", "settlements", "rulings", "round_players")
    # each child's rows by its round's month, before the migration
    before = {t: dict(query(admin, f"SELECT to_char(r.started_at AT TIME ZONE 'UTC', 'YYYY_MM'), count(*) "
                                   f"FROM floor.{t} c JOIN floor.rounds r USING (table_name, round_id) GROUP BY 1"))
              for t in children}
    assert before["rulings"] == {"2026_09": 1}  # the one ruling of the Lucky 8 round
    assert set(before["events"]) == set(before["settlements"]) == set(before["round_players"]) == {"2026_09", "2026_10"}
    with psycopg.connect(admin) as conn:  # a settlement row whose round is not on the floor
        conn.execute("INSERT INTO floor.settlements SELECT table_name, 40, idx, player, area, hand, bet, stake, "
                     "result, net, rule, stage FROM floor.settlements WHERE round_id = 1 AND idx = 0")

    done = cli("floor", "init", "--url", admin)
    assert done.returncode == 0 and "applied 0009_round_rows_monthly" in done.stdout, done.stdout + done.stderr
    for t in children:
        moved = partitions_of(admin, t)
        expected = {f"floor.{t}_{month}": n for month, n in before[t].items()}
        if t == "settlements":
            expected["floor.settlements_default"] = 1  # kept: verify names it
        assert moved == expected, (t, moved)
        assert query(admin, f"SELECT to_regclass('floor.{t}_0008')") == [(None,)]
    # the months ahead are made for the round's rows too
    now = dt.datetime.now(dt.UTC)
    assert query(admin, f"SELECT to_regclass('floor.events_{month_start(now, 2):%Y_%m}') IS NOT NULL") == [(True,)]
    review = pg_server.url(floor_db, user=review_role(floor_db))
    with FloorReader(review) as reader:
        checked = reader.verify("BJ-07")
        assert not checked.ok and checked.problem == (
            "table BJ-07: rows of round 40 are on the floor without the round"), checked
    with psycopg.connect(admin) as conn:
        conn.execute("DELETE FROM floor.settlements WHERE round_id = 40")
    with FloorReader(review) as reader:
        checked = reader.verify("BJ-07")
        assert checked.ok and checked.rounds == 6, checked
        # the round as it was: its events, settlement rows and the Lucky 8 round's ruling
        lucky = reader.get_round("BJ-07", 2)
        assert lucky is not None and [r["rule"] for r in lucky.rulings] == ["5.13"]
        assert len(lucky.events) == len(DOCUMENTS[1]["events"])

    # forwarding goes on (the new forwarder: each row with its round's start), exactly once
    with open_station(db) as store:
        record_rounds(store, 2, start=1)  # now: another Lucky 8 with its ruling, a void
    with Forwarder(db, url) as forwarder:
        assert forwarder.forward().rounds == 2
        assert forwarder.forward().rounds == 0
    sent = cli("forward", "--db", str(db), "--to", url)
    assert sent.returncode == 0 and sent.stdout.startswith("forwarded 0 rounds"), sent.stdout + sent.stderr
    this_month = f"{now:%Y_%m}"
    # this month: the Lucky 8 round's 5.13 and the void's 5.1 (as its void event names it)
    assert sorted(query(admin, "SELECT tableoid::regclass::text, rule FROM floor.rulings")) == [
        ("floor.rulings_2026_09", "5.13"), (f"floor.rulings_{this_month}", "5.1"),
        (f"floor.rulings_{this_month}", "5.13")]
    assert query(admin, "SELECT count(*), count(DISTINCT (round_id, seq)) FROM floor.events") == [
        (sum(before["events"].values()) + len(DOCUMENTS[1]["events"]) + len(DOCUMENTS[2]["events"]),) * 2]
    assert query(admin, "SELECT count(*) FROM floor.events e JOIN floor.rounds r USING (table_name, round_id) "
                        "WHERE e.started_at <> r.started_at") == [(0,)]
    with FloorReader(review) as reader:
        checked = reader.verify("BJ-07")
        assert checked.ok and checked.rounds == 8, checked
