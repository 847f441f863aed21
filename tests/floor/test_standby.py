"""The pit reads a hot standby (issue 35, item 6), on a real primary and a real standby
(``pg_basebackup -R``, streaming replication; tests/floor/pgserver.py) and a real (offscreen)
pit window started with ``read_url``:

- a station forwards to the primary; the pit, reading the standby, shows the round once the
  standby has replayed it — and not before: with the standby's replay paused the pit keeps
  showing what the standby has and says how far behind it is;
- an alert acknowledged from that pit lands on the primary (a standby refuses every write);
- ``history --db STANDBY verify`` reads the standby alone;
- ``review --read-url`` without a floor ``--db``, or with a password in it, is refused; the
  configuration's ``[floor] read_url`` (``review --config FILE``) is checked the same way.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import psycopg  # noqa: E402
import pytest  # noqa: E402

from dealer_assist.floor.forward import Forwarder  # noqa: E402
from dealer_assist.floor.reader import FloorReader  # noqa: E402
from dealer_assist.floor.schema import add_station, init_floor, review_role  # noqa: E402
from tests.floor.helpers import cli, query  # noqa: E402
from tests.floor.pgserver import Server  # noqa: E402
from tests.floor.stations import make_station, open_station, record_rounds  # noqa: E402


class Replicated:
    """A floor on the primary, its review URLs on the primary and on the standby."""

    def __init__(self, primary: Server, standby: Server) -> None:
        self.primary, self.standby = primary, standby
        self.dbname = primary.create_database()
        self.admin_url = primary.url(self.dbname)
        init_floor(self.admin_url)
        role = review_role(self.dbname)
        self.review_url = primary.url(self.dbname, user=role)
        self.standby_review_url = standby.url(self.dbname, user=role)  # roles are cluster-wide: replicated

    def station(self, table: str, pit: str) -> str:
        return self.primary.url(self.dbname, user=add_station(self.admin_url, table, pit).role)


@pytest.fixture
def replicated(servers: tuple[Server, Server]) -> Iterator[Replicated]:
    primary, standby = servers
    floor = Replicated(primary, standby)
    try:
        standby.wait_replayed(primary)
        yield floor
    finally:
        primary.drop_database(floor.dbname)


def _table(tables: Any, name: str) -> Any:
    return next(t for t in tables if t.table == name)


def _open(floor: Replicated, qtbot: Any) -> Any:
    from ui.review.pit_view import PitWindow

    window = PitWindow(floor.review_url, read_url=floor.standby_review_url, live_tick=0.5)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.live.listener.connected.is_set() and bool(window.live_tables.shown),
                    timeout=30000)
    return window


def _replay(floor: Replicated, action: str) -> None:
    with psycopg.connect(floor.standby.url(), autocommit=True) as conn:
        conn.execute(f"SELECT pg_wal_replay_{action}()")


@pytest.mark.gui
def test_a_pit_reading_the_standby_shows_a_forwarded_round_once_replayed(
        replicated: Replicated, tmp_path: Path, qtbot: Any) -> None:
    """BJ-07 forwards round 1 (Ace Race: the house -25) to the primary; the pit reads the
    standby. With the standby's replay paused, the station forwards round 2 (the Lucky 8 ruling
    round: the house -60): the primary has it, the pit still shows round 1 and says the standby
    is behind. Replay resumed: the pit shows round 2 and the standby caught up."""
    url = replicated.station("BJ-07", "PIT-2")
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=1, start=0)
    forwarder = Forwarder(db, url)
    window = None
    try:
        assert forwarder.forward().rounds == 1
        replicated.standby.wait_replayed(replicated.primary)
        window = _open(replicated, qtbot)
        qtbot.waitUntil(lambda: window.lag_text == "standby caught up", timeout=10000)
        bj07 = _table(window.live_tables.shown, "BJ-07")
        assert (bj07.last_round, bj07.last_house_net) == (1, Decimal(-25))
        # the window's reads are on the standby, as the review role; its listener on the primary
        on_standby = query(replicated.standby.url(), "SELECT count(*) FROM pg_stat_activity WHERE usename = %s",
                           (review_role(replicated.dbname),))
        assert on_standby[0][0] >= 1

        _replay(replicated, "pause")
        with open_station(db) as store:
            record_rounds(store, 1, start=1)
        assert forwarder.forward().rounds == 1
        assert query(replicated.admin_url, "SELECT max(round_id) FROM floor.rounds") == [(2,)]
        qtbot.waitUntil(lambda: window.lag_text.startswith("standby ") and " behind (" in window.lag_text,
                        timeout=15000)
        assert "not yet replayed)" in window.live_status.text()
        assert _table(window.live_tables.shown, "BJ-07").last_round == 1  # what the standby has

        _replay(replicated, "resume")
        qtbot.waitUntil(lambda: _table(window.live_tables.shown, "BJ-07").last_round == 2, timeout=15000)
        bj07 = _table(window.live_tables.shown, "BJ-07")
        assert (bj07.last_status, bj07.last_house_net) == ("settled", Decimal(-60))
        qtbot.waitUntil(lambda: window.lag_text == "standby caught up", timeout=10000)
    finally:
        _replay(replicated, "resume")
        if window is not None:
            window.close()
        forwarder.close()


@pytest.mark.gui
def test_an_alert_acknowledged_from_a_pit_reading_the_standby_lands_on_the_primary(
        replicated: Replicated, qtbot: Any) -> None:
    from PySide6.QtCore import Qt

    replicated.station("BJ-07", "PIT-2")
    with psycopg.connect(replicated.admin_url) as conn:
        conn.execute("INSERT INTO floor.alarms (table_name, reason) VALUES ('BJ-07', 'round 3 differs')")
    replicated.standby.wait_replayed(replicated.primary)
    from ui.review.pit_view import PitWindow

    window = PitWindow(replicated.review_url, read_url=replicated.standby_review_url)
    qtbot.addWidget(window)
    try:
        # the alarm is read on the standby, the alert raised on the primary, then read back
        # from the standby once replayed
        with qtbot.waitSignal(window.alerts_updated, timeout=30000,
                              check_params_cb=lambda rows: [a.kind for a in rows] == ["table_stopped"]):
            window.show()
        panel = window.alerts
        panel.list.selectRow(0)
        panel.supervisor.setText("sue")
        panel.note.setText("store restored from backup; IT called")
        with qtbot.waitSignal(window.alerts_updated, timeout=20000,
                              check_params_cb=lambda rows: rows[0].acked_by == "sue"):
            qtbot.mouseClick(panel.ack_button, Qt.MouseButton.LeftButton)
        assert panel.message.text().endswith("acknowledged by sue")
        assert query(replicated.admin_url, "SELECT supervisor, note, db_role FROM floor.alert_acks") == [
            ("sue", "store restored from backup; IT called", review_role(replicated.dbname))]
    finally:
        window.close()


def test_the_standby_refuses_writes_and_the_reader_sends_them_to_the_primary(
        replicated: Replicated, tmp_path: Path) -> None:
    """A reader on the standby alone could not write a note (read-only transaction, recovery);
    with ``read_url`` the note goes to the primary and is read back from the standby."""
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=1)
    with Forwarder(db, replicated.station("BJ-07", "PIT-2")) as forwarder:
        assert forwarder.forward().rounds == 1
    replicated.standby.wait_replayed(replicated.primary)
    with psycopg.connect(replicated.standby_review_url) as conn:
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("INSERT INTO floor.notes (table_name, round_id, kind, supervisor, text) "
                         "VALUES ('BJ-07', 1, 'note', 'sue', 'x')")
    with FloorReader(replicated.review_url, replicated.standby_review_url) as reader:
        assert reader.reads_standby
        reader.add_note("BJ-07", 1, "sue", "chips checked")
        assert [(n.supervisor, n.text) for n in reader.notes("BJ-07", 1)] == [("sue", "chips checked")]
        assert query(replicated.admin_url, "SELECT supervisor, text FROM floor.notes") == [("sue", "chips checked")]
        lag = reader.replica_lag()
        assert lag is not None and lag.standby
    with FloorReader(replicated.review_url) as reader:
        assert reader.replica_lag() is None  # it reads the primary
    # history only reads: its --db may be the standby (a long verify off the primary)
    done = cli("history", "--db", replicated.standby_review_url, "verify")
    assert done.returncode == 0 and done.stdout.startswith("ok: 1 tables, 1 rounds"), done.stdout + done.stderr


def test_review_read_url_needs_a_floor_and_no_password(replicated: Replicated) -> None:
    alone = cli("review", "--read-url", replicated.standby_review_url)
    assert alone.returncode == 2 and "--read-url" in alone.stderr and "needs --db" in alone.stderr
    secret = cli("review", "--db", replicated.review_url,
                 "--read-url", replicated.standby_review_url.replace("@/", ":hunter2@/"))
    assert secret.returncode == 2 and "carries a password" in secret.stderr and "hunter2" not in secret.stderr


def test_the_configurations_floor_read_url(tmp_path: Path, replicated: Replicated) -> None:
    from dealer_assist.service import station
    from dealer_assist.service.station import StationError

    path = tmp_path / "station.toml"
    path.write_text('[floor]\nurl = "postgresql://bj07@floor-db/floor"\n'
                    'read_url = "postgresql://floor_review@floor-replica/floor"\n')
    cfg = station.load_config(path)
    assert cfg.floor_read_url == "postgresql://floor_review@floor-replica/floor"
    assert station.parse_config(tomllib.loads(station.render_config(cfg))).floor_read_url == cfg.floor_read_url
    path.write_text('[floor]\nread_url = "service=floor-replica"\n')
    assert station.load_config(path).floor_read_url == "service=floor-replica"
    path.write_text('[floor]\nread_url = "floor-replica"\n')
    with pytest.raises(StationError, match="floor.read_url 'floor-replica' is not a postgresql:// URL"):
        station.load_config(path)
    path.write_text('[floor]\nread_url = "postgresql://floor_review:hunter2@floor-replica/floor"\n')
    with pytest.raises(StationError, match="floor.read_url carries a password"):
        station.load_config(path)
    # the pit reads it from the configuration it is given
    done = cli("review", "--config", str(path), "--db", replicated.review_url)
    assert done.returncode == 2 and "floor.read_url carries a password" in done.stderr
    assert "hunter2" not in done.stderr
