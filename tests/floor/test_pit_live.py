"""The live pit (issue 25, item 3): an open pit view shows a round forwarded by a station
within 2 s (waiting on the window's signal, not sleeping), tells a dead link from an idle table
and a table never heard from, and reconnects by itself after a server restart."""

from __future__ import annotations

import datetime as dt
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from dealer_assist.floor.forward import Forwarder  # noqa: E402
from dealer_assist.floor.live import link_condition  # noqa: E402
from tests.floor.conftest import Floor  # noqa: E402
from tests.floor.helpers import query  # noqa: E402
from tests.floor.stations import make_station, open_station, record_rounds  # noqa: E402

pytestmark = pytest.mark.gui


def _table(tables: Any, name: str) -> Any:
    return next(t for t in tables if t.table == name)


def _open(floor: Floor, qtbot: Any) -> Any:
    from ui.review.pit_view import PitWindow

    window = PitWindow(floor.review_url, live_tick=0.5)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.live.listener.connected.is_set() and window.pending == 0, timeout=20000)
    return window


def test_a_forwarded_round_appears_in_an_open_pit_view_within_two_seconds(
        floor: Floor, tmp_path: Path, qtbot: Any) -> None:
    """BJ-07 forwards round 1 (Ace Race: alice +25, the house -25); the pit window is open. The
    station plays round 2 (the Lucky 8 ruling round: alice +20, bob +40, the house -60) and
    forwards it: the Live tab shows round 2 and its result within 2 s of the forward."""
    url = floor.station("BJ-07", "PIT-2")
    floor.station("BJ-08", "PIT-2")  # registered, never connected
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=1, start=0)
    forwarder = Forwarder(db, url)
    forwarder.forward()
    forwarder.heartbeat(0, 1, "up")
    window = _open(floor, qtbot)
    try:
        qtbot.waitUntil(lambda: bool(window.live_tables.shown), timeout=10000)
        assert _table(window.live_tables.shown, "BJ-07").last_round == 1
        with open_station(db) as store:
            record_rounds(store, 1, start=1)
        with qtbot.waitSignal(window.live_updated, timeout=2000,
                              check_params_cb=lambda tables: _table(tables, "BJ-07").last_round == 2):
            assert forwarder.forward().rounds == 1
        bj07 = _table(window.live_tables.shown, "BJ-07")
        assert (bj07.last_status, bj07.last_house_net, bj07.rounds_last_hour) == ("settled", Decimal(-60), 2)
        assert (bj07.game, bj07.dealer, bj07.condition) == ("lucky8", "ann", "live")
        bj08 = _table(window.live_tables.shown, "BJ-08")
        assert bj08.condition == "not connected" and bj08.last_round is None
        row = [window.live_tables.item(0, c).text() for c in range(window.live_tables.columnCount())]
        assert row[:8] == ["BJ-07", "PIT-2", "Lucky 8", "ann", "", "2", "settled, house \u221260", "2"]
        assert row[8].startswith("live: link up")
    finally:
        window.close()
        forwarder.close()


def test_the_pit_view_reconnects_after_a_server_restart(floor: Floor, tmp_path: Path, qtbot: Any) -> None:
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=1)
    with Forwarder(db, url) as forwarder:
        forwarder.forward()
    window = _open(floor, qtbot)
    try:
        qtbot.waitUntil(lambda: bool(window.live_tables.shown), timeout=10000)
        floor.server.restart()
        # the listener notices, reconnects by itself and says so
        qtbot.waitUntil(lambda: window.live_status.text() == "floor: live"
                        and window.live.listener.connected.is_set(), timeout=30000)
        with open_station(db) as store:
            record_rounds(store, 1, start=1)
        with qtbot.waitSignal(window.live_updated, timeout=10000,
                              check_params_cb=lambda tables: _table(tables, "BJ-07").last_round == 2):
            with Forwarder(db, url) as forwarder:
                assert forwarder.forward().rounds == 1
    finally:
        window.close()


def test_a_dead_link_an_idle_table_and_a_silent_station_are_told_apart() -> None:
    now = dt.datetime(2026, 11, 26, 22, 0, tzinfo=dt.UTC)
    beat_fresh, beat_old = now - dt.timedelta(seconds=5), now - dt.timedelta(seconds=31)
    recent, long_ago = now - dt.timedelta(minutes=1), now - dt.timedelta(minutes=6)
    assert link_condition(beat_fresh, "up", 0, None, recent, now)[0] == "live"
    assert link_condition(beat_fresh, "up", 0, None, long_ago, now)[0] == "idle"
    assert link_condition(beat_old, "up", 0, None, recent, now)[0] == "link down"
    assert link_condition(None, None, 0, None, None, now)[0] == "not connected"
    assert link_condition(beat_fresh, "up", 3, None, recent, now)[0] == "catching up"
    assert link_condition(beat_fresh, "stopped", 0, "rolled back", recent, now)[0] == "stopped"


def test_a_heartbeat_is_the_stations_own(floor: Floor) -> None:
    import psycopg

    floor.station("BJ-07", "PIT-2")
    url8 = floor.station("BJ-08", "PIT-2")
    with psycopg.connect(url8) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="is not the station of table BJ-07"):
            conn.execute("SELECT floor.heartbeat('BJ-07', 0, 1, NULL, 'up', NULL)")
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO floor.station_links VALUES ('BJ-08', now(), 0, 1, NULL, 'up', NULL)")
    assert query(floor.admin_url, "SELECT count(*) FROM floor.station_links") == [(0,)]
