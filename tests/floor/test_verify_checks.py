"""verify checks each round's derived rows against its chained settle output (a real PostgreSQL):
every kind of alteration an administrator could make is named, and undoing it passes again."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from dealer_assist.floor.reader import FloorReader
from tests.floor.conftest import Floor
from tests.floor.helpers import LINK_TEXT, forward_as, query
from tests.floor.stations import make_station

# (the alteration, its undoing, the round it touches (index into the station's ids), what verify says)
ALTERATIONS = [
    ("UPDATE floor.round_players SET net = net + 1 WHERE round_id = {rid} AND player = 'bob'",
     "UPDATE floor.round_players SET net = net - 1 WHERE round_id = {rid} AND player = 'bob'",
     1, "a player's net differs from its settle output"),
    ("UPDATE floor.rounds SET wagered = wagered + 5 WHERE round_id = {rid}",
     "UPDATE floor.rounds SET wagered = wagered - 5 WHERE round_id = {rid}",
     0, "its wagered or house net differs from its settle output"),
    ("UPDATE floor.rounds SET house_net = -house_net WHERE round_id = {rid}",
     "UPDATE floor.rounds SET house_net = -house_net WHERE round_id = {rid}",
     0, "its wagered or house net differs from its settle output"),
    # (its text put back as it was: format 2 chains the text itself)
    ("UPDATE floor.rounds SET totals_json = replace(totals_json, '25', '26') WHERE round_id = {rid}",
     "UPDATE floor.rounds SET totals_json = replace(totals_json, '26', '25') WHERE round_id = {rid}",
     0, "its totals differ from its settle output"),
    # a settlement row moved to another index, one taken away, a player's name changed
    ("UPDATE floor.settlements SET idx = idx + 10 WHERE round_id = {rid} AND idx = 1",
     "UPDATE floor.settlements SET idx = idx - 10 WHERE round_id = {rid} AND idx = 11",
     0, "its settlement rows differ from its settle output"),
    ("UPDATE floor.settlements SET player = 'mallory' WHERE round_id = {rid} AND idx = 0",
     "UPDATE floor.settlements SET player = 'alice' WHERE round_id = {rid} AND idx = 0",
     0, "its settlement rows differ from its settle output"),
    ("UPDATE floor.settlements SET stake = stake + 1 WHERE round_id = {rid} AND idx = 1",
     "UPDATE floor.settlements SET stake = stake - 1 WHERE round_id = {rid} AND idx = 1",
     0, "its settlement rows differ from its settle output"),
    # a ruling moved to another index (one missing where the settle output has it, one extra)
    ("UPDATE floor.rulings SET idx = idx + 5 WHERE round_id = {rid}",
     "UPDATE floor.rulings SET idx = idx - 5 WHERE round_id = {rid}",
     1, "its ruling rows differ from its settle output"),
    ("UPDATE floor.rulings SET text = text || '.' WHERE round_id = {rid}",
     "UPDATE floor.rulings SET text = left(text, -1) WHERE round_id = {rid}",
     1, "its ruling rows differ from its settle output"),
]


@pytest.fixture(params=[1, 2], ids=["format1", "format2"])
def chain_format(request: pytest.FixtureRequest) -> int:
    """Each test on a floor of rounds in chain format 1 (older stations) and in format 2."""
    return int(request.param)


@pytest.fixture
def forwarded(floor: Floor, tmp_path: Path, chain_format: int) -> list[int]:
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "BJ-07.db"
    ids = make_station(db, "BJ-07", "PIT-2", rounds=3)  # Ace Race (alice +25), Lucky 8 with its ruling, a void
    forward_as(db, url, chain_format)
    formats = query(floor.admin_url, "SELECT DISTINCT chain_format FROM floor.rounds")
    assert formats == [(2 if chain_format == 2 else None,)], formats
    return ids


def test_each_derived_row_is_checked_against_the_settle_output(
        floor: Floor, forwarded: list[int], chain_format: int) -> None:
    """Format 1: each derived row compared with the settle output, its check named; format 2: the
    same alterations change what was chained with the round (its link named)."""
    with FloorReader(floor.review_url) as reader:
        assert reader.verify("BJ-07").ok
        for alter, undo, index, text in ALTERATIONS:
            rid = forwarded[index]
            with psycopg.connect(floor.admin_url) as conn:
                assert conn.execute(alter.format(rid=rid)).rowcount == 1, alter
            checked = reader.verify("BJ-07")
            said = text if chain_format == 1 else LINK_TEXT[2]
            assert not checked.ok and checked.problem == (
                f"table BJ-07: round {rid} (floor seq {index + 1}): {said}"), (alter, checked)
            with psycopg.connect(floor.admin_url) as conn:
                conn.execute(undo.format(rid=rid))
            assert reader.verify("BJ-07").ok, undo


def test_an_altered_audit_entry_is_named(floor: Floor, forwarded: list[int]) -> None:
    with FloorReader(floor.review_url) as reader:
        first = reader.verify("BJ-07")
        assert first.ok and first.audit > 3
        with psycopg.connect(floor.admin_url) as conn:
            conn.execute("UPDATE floor.audit SET actor = 'dealer:bob' WHERE audit_id = 3")
            kind = conn.execute("SELECT kind FROM floor.audit WHERE audit_id = 3").fetchone()
        checked = reader.verify("BJ-07")
        assert kind is not None and not checked.ok and checked.problem == (
            f"table BJ-07: audit entry 3 ({kind[0]}): its content or the entry before it differ from what was "
            "forwarded (floor link does not match)"), checked


def test_a_row_moved_under_another_start_within_the_parts_reach_is_named(
        floor: Floor, forwarded: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """The stray check counts a round's rows under its own start in the parts and compares them one
    by one only when the counts say so: a settlement of the first round moved to the second
    round's start (same month, inside the start range the first part reads, its content and index
    unchanged, so the first round's digest and derived rows still match) is still named."""
    from dealer_assist.floor import reader as floor_reader

    # the parts as halves, the first holding both rounds (else it held the first alone, leaving
    # room for the audit chain, and the moved row was outside its starts: a digest that differs)
    monkeypatch.setattr(floor_reader, "AUDIT_ENTRY_WEIGHT", 0.0)
    first, second = forwarded[0], forwarded[1]
    move = ("UPDATE floor.settlements SET started_at = (SELECT started_at FROM floor.rounds WHERE round_id = {to}) "
            "WHERE round_id = {rid} AND idx = 0")
    with FloorReader(floor.review_url) as reader:
        assert reader.verify("BJ-07").ok
        with psycopg.connect(floor.admin_url) as conn:
            assert conn.execute(move.format(to=second, rid=first)).rowcount == 1
        checked = reader.verify("BJ-07")
        assert not checked.ok and checked.problem == (
            f"table BJ-07: rows of round {first} are on the floor under another start than the round's"), checked
        with psycopg.connect(floor.admin_url) as conn:
            assert conn.execute(move.format(to=first, rid=first)).rowcount == 1
        assert reader.verify("BJ-07").ok


@pytest.mark.parametrize("parts", [1, 2])
def test_a_round_taken_off_the_floor_is_named_at_the_next(
        floor: Floor, forwarded: list[int], parts: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server checks each part's seqs and links: the second round (floor seq 2) taken away with
    its rows, the third (seq 3) is named as following a missing one — inside one part (1 part:
    seqs 1-3) and across two (seqs 1-2 and 3)."""
    from dealer_assist.floor import reader as floor_reader

    monkeypatch.setattr(floor_reader, "VERIFY_PARTS", parts)
    with psycopg.connect(floor.admin_url) as conn:
        for child in ("events", "settlements", "rulings", "round_players"):
            conn.execute(f"DELETE FROM floor.{child} WHERE round_id = %s", (forwarded[1],))
        assert conn.execute("DELETE FROM floor.rounds WHERE round_id = %s", (forwarded[1],)).rowcount == 1
    with FloorReader(floor.review_url) as reader:
        checked = reader.verify("BJ-07")
    assert not checked.ok and checked.problem == (
        f"table BJ-07: round {forwarded[2]} (floor seq 3): a forwarded round before it is missing "
        "(expected floor seq 2)"), checked
