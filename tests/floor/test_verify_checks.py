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
