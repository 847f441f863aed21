"""The pit's Tables tab (``FloorReader.table_states``): every table of a pit in one query, each
table's state as its forwarded sessions, rounds and alarms tell it (a real PostgreSQL)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import psycopg

from dealer_assist.floor.reader import FloorReader
from tests.floor.conftest import Floor
from tests.floor.helpers import cli
from tests.floor.stations import DOCUMENTS, make_station, open_station


def _limits(index: int) -> dict[str, object]:
    limits = DOCUMENTS[index].get("limits")
    return limits if isinstance(limits, dict) else {}


def test_the_tables_tab_shows_each_table_of_the_pit(floor: Floor, tmp_path: Path) -> None:
    # BJ-07: a session still open, three rounds (Ace Race, Lucky 8, the Lucky 8 void: the last is Lucky 8)
    make_station(tmp_path / "BJ-07.db", "BJ-07", "PIT-2", rounds=3, dealer="ann")
    # BJ-08: one Star Elements round, then the dealer ends the session (closed)
    make_station(tmp_path / "BJ-08.db", "BJ-08", "PIT-2", rounds=1, dealer="ben", start=3)
    with open_station(tmp_path / "BJ-08.db") as store:
        session = store.current_session()
        assert session is not None
        store.end_session(int(session["id"]), actor="ben")
    # BJ-21 in another pit: two rounds, then its forwarding stopped by an alarm
    make_station(tmp_path / "BJ-21.db", "BJ-21", "PIT-3", rounds=2, dealer="cat", start=5)
    for table, pit in (("BJ-07", "PIT-2"), ("BJ-08", "PIT-2"), ("BJ-21", "PIT-3")):
        url = floor.station(table, pit)
        done = cli("forward", "--db", str(tmp_path / f"{table}.db"), "--to", url)
        assert done.returncode == 0, done.stdout + done.stderr
    floor.station("BJ-09", "PIT-2")  # registered, nothing forwarded yet
    with psycopg.connect(floor.admin_url) as conn:
        conn.execute("INSERT INTO floor.alarms (table_name, reason) VALUES ('BJ-21', 'store does not extend')")

    now = dt.datetime.now(dt.UTC)
    with FloorReader(floor.review_url) as reader:
        pit2 = reader.table_states("PIT-2", now=now)
        everything = reader.table_states(now=now)
        later = reader.table_states("PIT-2", now=now + dt.timedelta(hours=2))
    assert [(s.table, s.pit) for s in pit2] == [("BJ-07", "PIT-2"), ("BJ-08", "PIT-2"), ("BJ-09", "PIT-2")]
    bj07, bj08, bj09 = pit2
    # a "mixed" session shows its last round's game; the session's limits are empty: the round's
    assert (bj07.game, bj07.open, bj07.dealer, bj07.rounds_this_hour, bj07.stopped) == (
        "lucky8", True, "ann", 3, None)
    assert bj07.limits == _limits(2)
    assert (bj08.game, bj08.open, bj08.dealer, bj08.rounds_this_hour) == ("star_elements", False, "ben", 1)
    assert bj07.last_round_at is not None and abs(bj07.last_round_at - now) < dt.timedelta(minutes=5)
    assert (bj09.game, bj09.open, bj09.dealer, bj09.rounds_this_hour, bj09.last_round_at, bj09.limits) == (
        None, False, None, 0, None, {})
    assert [s.table for s in everything] == ["BJ-07", "BJ-08", "BJ-09", "BJ-21"]
    bj21 = everything[-1]
    assert (bj21.pit, bj21.open, bj21.dealer, bj21.rounds_this_hour, bj21.stopped) == (
        "PIT-3", True, "cat", 2, "store does not extend")
    assert bj21.game == "electronic"  # documents 5 and 6: Dueling 8's, then Electronic
    assert [s.rounds_this_hour for s in later] == [0, 0, 0]  # two hours on: nothing played this hour
