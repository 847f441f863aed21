"""verify of a range (`history verify --since --until`) proves what the whole verify proves for
the rows in it (a real PostgreSQL): a byte altered in any stored field of a round or event in the
range is named; the range's first row is checked against the stored link before it, so an altered
link there, or a missing first row, is named too; and a range before the alteration still passes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from dealer_assist.floor.reader import FloorReader, FloorVerify
from tests.floor.conftest import Floor
from tests.floor.helpers import LINK_TEXT, forward_as, query
from tests.floor.stations import DOCUMENTS, make_station, open_station, record_rounds
from tests.floor.test_partitions import recorded_at

SEPTEMBER = (dt.datetime(2026, 9, 1, tzinfo=dt.UTC), dt.datetime(2026, 10, 1, tzinfo=dt.UTC))
OCTOBER = (dt.datetime(2026, 10, 1, tzinfo=dt.UTC), dt.datetime(2026, 11, 1, tzinfo=dt.UTC))


@pytest.fixture(params=[1, 2], ids=["format1", "format2"])
def chain_format(request: pytest.FixtureRequest) -> int:
    """Each test on rounds in chain format 1 (older stations) and in format 2."""
    return int(request.param)


@pytest.fixture
def link(chain_format: int) -> str:
    return LINK_TEXT[chain_format]


@pytest.fixture
def two_months(floor: Floor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
               chain_format: int) -> Iterator[dict[int, int]]:
    """Rounds 1-2 started in September, 3-6 in October, forwarded in that order: {round id: floor seq}."""
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "BJ-07.db"
    with recorded_at(monkeypatch, dt.datetime(2026, 9, 20, 12, 0, tzinfo=dt.UTC)):
        make_station(db, "BJ-07", "PIT-2", rounds=2)
    with recorded_at(monkeypatch, dt.datetime(2026, 10, 5, 12, 0, tzinfo=dt.UTC)), open_station(db) as store:
        record_rounds(store, 4, start=3)  # Star Elements, Lucky 8, Dueling 8's, Electronic
    forward_as(db, url, chain_format)
    seqs = {int(r): int(s) for r, s in query(floor.admin_url, "SELECT round_id, floor_seq FROM floor.rounds")}
    assert sorted(seqs) == [1, 2, 3, 4, 5, 6], seqs
    yield seqs


def verify(floor: Floor, months: tuple[dt.datetime, dt.datetime]) -> FloorVerify:
    with FloorReader(floor.review_url) as reader:
        return reader.verify("BJ-07", since=months[0], until=months[1])


def alter(floor: Floor, sql: str) -> None:
    with psycopg.connect(floor.admin_url) as conn:
        assert conn.execute(sql).rowcount == 1, sql


def test_a_byte_altered_in_the_range_is_named(floor: Floor, two_months: dict[int, int], link: str) -> None:
    first = verify(floor, OCTOBER)
    assert first.ok and first.rounds == 4, first
    # (a field of a round or event in October, one character or byte changed, and changed back)
    for change, undo, rid in [
        ("UPDATE floor.events SET event_json = overlay(event_json PLACING '~' FROM 3 FOR 1) "
         "WHERE round_id = 5 AND seq = 1", None, 5),
        ("UPDATE floor.events SET station_link = set_byte(station_link, 31, get_byte(station_link, 31) # 1) "
         "WHERE round_id = 4 AND seq = 0",
         "UPDATE floor.events SET station_link = set_byte(station_link, 31, get_byte(station_link, 31) # 1) "
         "WHERE round_id = 4 AND seq = 0", 4),
        ("UPDATE floor.events SET actor = upper(actor) WHERE round_id = 6 AND seq = 2",
         "UPDATE floor.events SET actor = lower(actor) WHERE round_id = 6 AND seq = 2", 6),
        ("UPDATE floor.rounds SET config_json = replace(config_json, ':', ': ') WHERE round_id = 3",
         "UPDATE floor.rounds SET config_json = replace(config_json, ': ', ':') WHERE round_id = 3", 3),
    ]:
        before = query(floor.admin_url, "SELECT event_json FROM floor.events WHERE round_id = 5 AND seq = 1")[0][0]
        alter(floor, change)
        checked = verify(floor, OCTOBER)
        assert not checked.ok and checked.problem == (
            f"table BJ-07: round {rid} (floor seq {two_months[rid]}): {link}"), (change, checked)
        assert verify(floor, SEPTEMBER).ok  # the range before it does not read October
        if undo is None:  # put the JSON back as it was
            with psycopg.connect(floor.admin_url) as conn:
                conn.execute("UPDATE floor.events SET event_json = %s WHERE round_id = 5 AND seq = 1", (before,))
        else:
            alter(floor, undo)
        assert verify(floor, OCTOBER).ok, undo


def test_the_ranges_first_row_is_chained_on_from_the_stored_link_before_it(
        floor: Floor, two_months: dict[int, int], link: str) -> None:
    flip = ("UPDATE floor.rounds SET floor_link = set_byte(floor_link, 0, get_byte(floor_link, 0) # 1) "
            "WHERE round_id = {rid}")
    # the stored link of October's first round altered: named there
    alter(floor, flip.format(rid=3))
    checked = verify(floor, OCTOBER)
    assert not checked.ok and checked.problem == f"table BJ-07: round 3 (floor seq {two_months[3]}): {link}"
    alter(floor, flip.format(rid=3))
    assert verify(floor, OCTOBER).ok
    # the link October continues from (September's last round) altered: October's first row no
    # longer chains on from it, and September's own check names that round
    alter(floor, flip.format(rid=2))
    checked = verify(floor, OCTOBER)
    assert not checked.ok and checked.problem == f"table BJ-07: round 3 (floor seq {two_months[3]}): {link}"
    checked = verify(floor, SEPTEMBER)
    assert not checked.ok and checked.problem == f"table BJ-07: round 2 (floor seq {two_months[2]}): {link}"
    alter(floor, flip.format(rid=2))
    assert verify(floor, OCTOBER).ok and verify(floor, SEPTEMBER).ok
    # October's first round taken off the floor (its rows too): the range then starts at the next
    # one, whose link was made on the missing round's
    with psycopg.connect(floor.admin_url) as conn:
        for child in ("events", "settlements", "rulings", "round_players"):
            conn.execute(f"DELETE FROM floor.{child} WHERE round_id = 3")
        conn.execute("DELETE FROM floor.rounds WHERE round_id = 3")
    checked = verify(floor, OCTOBER)
    assert not checked.ok and checked.problem == f"table BJ-07: round 4 (floor seq {two_months[4]}): {link}"
    assert verify(floor, SEPTEMBER).ok


def test_a_rounds_row_under_another_start_is_named(floor: Floor, two_months: dict[int, int]) -> None:
    """A row added to an October round under another start lands in another month's partition,
    which the round's part does not read: the stray check compares each row's (round, start) with
    the round's, in every month, so a range and the whole verify name it."""
    with psycopg.connect(floor.admin_url) as conn:
        conn.execute("INSERT INTO floor.settlements SELECT table_name, round_id, idx + 10, player, area, hand, bet, "
                     "stake, result, net, rule, stage, timestamptz '2025-01-01 00:00Z' FROM floor.settlements "
                     "WHERE round_id = 5 AND idx = 0")
    named = "table BJ-07: rows of round 5 are on the floor under another start than the round's"
    checked = verify(floor, OCTOBER)
    assert not checked.ok and checked.problem == named, checked
    with FloorReader(floor.review_url) as reader:
        whole = reader.verify("BJ-07")
    assert not whole.ok and whole.problem == named, whole
    assert verify(floor, SEPTEMBER).ok
    with psycopg.connect(floor.admin_url) as conn:
        conn.execute("DELETE FROM floor.settlements WHERE round_id = 5 AND idx = 10")
    assert verify(floor, OCTOBER).ok


def test_a_version_of_a_round_not_on_the_floor_is_named(floor: Floor, two_months: dict[int, int]) -> None:
    """A later finish (floor.round_versions, partitioned by its forwarding) of a round the floor
    does not hold is named by the stray check of the whole verify (a probe per version for its
    round); a range whose round ids it is not among is not concerned. Made a version of a round
    that is there, it is checked against the audit entry it names (entry 1 is no round_finish)."""
    with psycopg.connect(floor.admin_url) as conn:  # the administrator adds a version of round 40
        conn.execute("INSERT INTO floor.round_versions (table_name, round_id, finish_audit_id, status, players_json, "
                     "totals_json, irregular, wagered, house_net, events_json) "
                     "VALUES ('BJ-07', 40, 1, 'void', '[]', '{}', false, 0, 0, '[]')")
    with FloorReader(floor.review_url) as reader:
        whole = reader.verify("BJ-07")
    assert not whole.ok and whole.problem == "table BJ-07: rows of round 40 are on the floor without the round", whole
    assert verify(floor, OCTOBER).ok  # October's rounds are 3-6
    with psycopg.connect(floor.admin_url) as conn:  # now of round 5, which is there: not stray
        assert conn.execute("UPDATE floor.round_versions SET round_id = 5 WHERE round_id = 40").rowcount == 1
    with FloorReader(floor.review_url) as reader:
        whole = reader.verify("BJ-07")
    assert not whole.ok and whole.problem == (
        "table BJ-07: round 5's version of audit entry 1: its settle output is not the one its round_finish "
        "entry records (result_sha256 differs)"), whole


@pytest.mark.parametrize("after", [3, 2], ids=["gap-inside-a-part", "gap-between-parts"])
def test_a_row_of_a_round_id_no_round_has_between_the_ranges_rounds_is_named(
        floor: Floor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chain_format: int, after: int) -> None:
    """The parts prove the stray check when each part's round ids are one run and the runs follow
    each other: a round the station began and never finished (round 3: never forwarded) leaves an
    id no round on the floor has, inside the first part's ids (3 rounds after it: the parts hold
    rounds 1, 2, 4 and 5, 6) or between the parts' (2 after: 1, 2 and 4, 5). A settlement row
    the administrator adds under that id, in the range's month, is named (its group joins no round
    of a part: without the runs' check it would be dropped unseen)."""
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "BJ-07.db"
    with recorded_at(monkeypatch, dt.datetime(2026, 10, 5, 12, 0, tzinfo=dt.UTC)), open_station(db) as store:
        store.claim_table("BJ-07", "PIT-2")
        record_rounds(store, 2)
        config = {k: v for k, v in DOCUMENTS[2].items() if k != "events"}
        assert store.begin_round(config) == 3  # begun, never finished
        record_rounds(store, after, start=3)
    forward_as(db, url, chain_format)
    ids = sorted(int(r) for (r,) in query(floor.admin_url, "SELECT round_id FROM floor.rounds"))
    assert ids == [1, 2, *range(4, 4 + after)], ids
    assert verify(floor, OCTOBER).ok
    with psycopg.connect(floor.admin_url) as conn:
        assert conn.execute("INSERT INTO floor.settlements SELECT table_name, 3, idx, player, area, hand, bet, "
                            "stake, result, net, rule, stage, started_at FROM floor.settlements "
                            "WHERE round_id = 2 AND idx = 0").rowcount == 1
    checked = verify(floor, OCTOBER)
    assert not checked.ok and checked.problem == "table BJ-07: rows of round 3 are on the floor without the round", (
        checked)
    with FloorReader(floor.review_url) as reader:
        whole = reader.verify("BJ-07")
    assert not whole.ok and whole.problem == checked.problem, whole
