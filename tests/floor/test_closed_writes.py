"""Closed writes (issue 25, item 2): a station role may insert only rows the floor can check
against its chain. One test per hole found in issue 25, each showing the exploit refused by
the server itself (a real PostgreSQL; the station's own role and credentials).

The round is the Dueling 8's example (tests/floor/test_latest_versions.py): settled, alice +75,
stakes 65, the house -75. A 10H dealt after the end voids it (2.1: the 10s are out of the
decks; 5.1, 5.1.1): every wager returned, the house 0."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from dealer_assist.engine.transcript import settle_document
from dealer_assist.floor.forward import Forwarder
from dealer_assist.floor.reader import FloorReader
from tests.floor.conftest import Floor
from tests.floor.helpers import query
from tests.floor.stations import DOCUMENTS, make_station, open_station
from tests.floor.test_latest_versions import DUELING, NOT_IN_THE_DECKS


def _forwarded(floor: Floor, tmp_path: Path) -> tuple[str, Path, int]:
    url = floor.station("BJ-07", "PIT-2")
    floor.station("BJ-08", "PIT-2")
    db = tmp_path / "bj07.db"
    (rid,) = make_station(db, "BJ-07", "PIT-2", rounds=1, start=DUELING)
    with Forwarder(db, url) as forwarder:
        assert forwarder.forward().rounds == 1
    return url, db, rid


def _latest(floor: Floor) -> list[tuple[object, ...]]:
    return query(floor.admin_url, "SELECT round_id, status, wagered, house_net FROM floor.rounds_latest")


def _void_version(rid: int, finish: int) -> str:
    """A forged later finish: the settled round made void, alice's net gone."""
    result = json.dumps({"status": "void", "settlements": [], "net": {"alice": 0}})
    return json.dumps([[rid, finish, "void", "2026-01-01T00:00:00Z", '["alice"]', "{}", False, result, []]])


def test_a_station_cannot_insert_a_round_version_directly(floor: Floor, tmp_path: Path) -> None:
    url, _, rid = _forwarded(floor, tmp_path)
    with psycopg.connect(url) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied for table round_versions"):
            conn.execute(
                "INSERT INTO floor.round_versions (table_name, round_id, finish_audit_id, status, players_json, "
                "totals_json, irregular, wagered, house_net, events_json) "
                "VALUES ('BJ-07', %s, 999, 'void', '[]', '{}', false, 0, 0, '[]')", (rid,))
    assert _latest(floor) == [(rid, "settled", Decimal(65), Decimal(-75))]


def test_a_version_without_its_chained_finish_entry_is_refused(floor: Floor, tmp_path: Path) -> None:
    url, _, rid = _forwarded(floor, tmp_path)
    (last_audit,) = query(floor.admin_url, "SELECT max(audit_id) FROM floor.audit")[0]
    with psycopg.connect(url) as conn:
        # a finish entry that is not on the floor
        with pytest.raises(psycopg.errors.InsufficientPrivilege,
                           match="needs its round_finish audit entry .* on the floor first"):
            conn.execute("SELECT floor.add_round_versions('BJ-07', %s::jsonb)", (_void_version(rid, last_audit + 1),))
        conn.rollback()
        # an entry on the floor that is not a round_finish of this round (the table's last one)
        (other,) = query(floor.admin_url, "SELECT max(audit_id) FROM floor.audit WHERE kind <> 'round_finish'")[0]
        if other < query(floor.admin_url, "SELECT finish_audit_id FROM floor.rounds")[0][0]:
            other = last_audit + 1
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT floor.add_round_versions('BJ-07', %s::jsonb)", (_void_version(rid, other),))
        conn.rollback()
        # another table's round
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="is not the station of table BJ-08"):
            conn.execute("SELECT floor.add_round_versions('BJ-08', %s::jsonb)", (_void_version(rid, last_audit),))
    assert _latest(floor) == [(rid, "settled", Decimal(65), Decimal(-75))]


def test_a_version_that_is_not_the_finish_its_entry_records_is_refused(floor: Floor, tmp_path: Path) -> None:
    """The station really finishes the round again (the 10H: void) and forwards it: its
    round_finish entry and the version, in one transaction. With that entry on the floor and
    the version taken away (by the administrator, to make the state), a forged version keyed by
    the entry (settled, alice +500) is refused: its settle output is not the one the entry's
    result_sha256 records. The genuine one, sent again, passes."""
    url, db, rid = _forwarded(floor, tmp_path)
    document = copy.deepcopy(DOCUMENTS[DUELING])
    document["events"].append(NOT_IN_THE_DECKS)
    with open_station(db) as store:
        store.append_event(rid, NOT_IN_THE_DECKS, actor="dealer:ann")
        store.finish_round(rid, settle_document(document), actor="dealer:ann")
    with Forwarder(db, url) as forwarder:
        assert forwarder.forward().versions == 1
    ((finish, genuine, ended, events),) = query(
        floor.admin_url, "SELECT finish_audit_id, result_json, ended_at, events_json FROM floor.round_versions")
    with psycopg.connect(floor.admin_url) as conn:
        conn.execute("DELETE FROM floor.round_versions")
    assert _latest(floor) == [(rid, "settled", Decimal(65), Decimal(-75))]
    forged = json.dumps({"status": "settled", "settlements": [
        {"player": "alice", "stake": "65", "net": "500"}], "net": {"alice": 500}})
    with open_station(db) as store:
        all_events = [[int(q), int(i), a, b, t, bytes(h).hex()] for q, i, a, b, t, h in store.db.execute(
            "SELECT seq, id, at, actor, event_json, hash FROM events WHERE round_id = ? ORDER BY seq", (rid,))]

    def version(result: str, status: str) -> str:
        return json.dumps([[rid, finish, status, ended.isoformat(), '["alice"]', "{}", False, result, all_events]])

    with psycopg.connect(url) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege,
                           match=f"the version of round {rid} is not the finish its audit entry {finish} records"):
            conn.execute("SELECT floor.add_round_versions('BJ-07', %s::jsonb)", (version(forged, "settled"),))
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="is not the finish"):
            conn.execute("SELECT floor.add_round_versions('BJ-07', %s::jsonb)", (version(genuine, "settled"),))
        conn.rollback()
        assert conn.execute("SELECT floor.add_round_versions('BJ-07', %s::jsonb)",
                            (version(genuine, "void"),)).fetchone() == (1,)
    # void: every wager returned (main 20 + Superb 8 5 = 25 wagered), the house 0 — worked out
    # by the server from the settle output, not taken from the station
    assert _latest(floor) == [(rid, "void", Decimal(25), Decimal(0))]
    assert json.loads(query(floor.admin_url, "SELECT events_json FROM floor.round_versions")[0][0]) == json.loads(events)
    with FloorReader(floor.review_url) as reader:
        assert reader.verify().ok


def test_a_forged_finish_entry_and_version_stop_the_tables_forwarding(floor: Floor, tmp_path: Path) -> None:
    """The station role can append an audit entry of its own (it forwards them), so a forged
    round_finish with a matching forged version gets in — but it is then the floor's last
    audit entry, which the station's store does not hold: the real forwarder's next pass stops
    the table with an alarm (the chain check), so the floor's copy is flagged at once."""
    url, db, rid = _forwarded(floor, tmp_path)
    result = json.dumps({"status": "void", "settlements": [], "net": {"alice": 0}})
    import hashlib

    (last_id, last_link) = query(floor.admin_url, "SELECT audit_id, floor_link FROM floor.audit "
                                 "ORDER BY audit_id DESC LIMIT 1")[0]
    detail = json.dumps({"status": "void", "result_sha256": hashlib.sha256(result.encode()).hexdigest(),
                         "events": 0, "last_event_hash": None, "ended_at": "2026-01-01T00:00:00Z"})
    with psycopg.connect(url) as conn:
        conn.execute("INSERT INTO floor.audit (table_name, audit_id, at, actor, kind, round_id, detail_json, "
                     "station_link, floor_link) VALUES ('BJ-07', %s, 'x', 'x', 'round_finish', %s, %s, '\\x00', %s)",
                     (last_id + 1, rid, detail, bytes(last_link)))
        assert conn.execute("SELECT floor.add_round_versions('BJ-07', %s::jsonb)", (json.dumps(
            [[rid, last_id + 1, "void", "2026-01-01T00:00:00Z", '["alice"]', "{}", False, result, []]]),)
        ).fetchone() == (1,)
    from dealer_assist.floor.forward import ForwardStopped

    with Forwarder(db, url) as forwarder, pytest.raises(ForwardStopped, match=f"audit entry {last_id + 1}"):
        forwarder.forward()
    assert query(floor.admin_url, "SELECT count(*) FROM floor.alarms WHERE table_name = 'BJ-07'") == [(1,)]


def test_players_only_with_the_rounds_that_name_them(floor: Floor, tmp_path: Path) -> None:
    url, _, rid = _forwarded(floor, tmp_path)
    assert query(floor.admin_url, "SELECT player FROM floor.players") == [("alice",)]
    (started,) = query(floor.admin_url, "SELECT started_at FROM floor.rounds")[0]
    with psycopg.connect(url) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied for table players"):
            conn.execute("INSERT INTO floor.players (player) VALUES ('mallory')")
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match=f"round {rid} of table BJ-07 on the floor "
                                                                       "does not name the player mallory"):
            conn.execute("INSERT INTO floor.round_players (player, started_at, table_name, round_id, pit, net, "
                         "wagered) VALUES ('mallory', %s, 'BJ-07', %s, 'PIT-2', 1000, 10)", (started, rid))
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="does not name the player"):
            conn.execute("INSERT INTO floor.round_players (player, started_at, table_name, round_id, pit, net, "
                         "wagered) VALUES ('mallory', %s, 'BJ-07', 424242, 'PIT-2', 1000, 10)", (started,))
    assert query(floor.admin_url, "SELECT player FROM floor.players") == [("alice",)]
    assert query(floor.admin_url, "SELECT player FROM floor.round_players") == [("alice",)]


def test_a_round_finished_again_while_its_batch_is_built_reaches_the_floor(floor: Floor, tmp_path: Path) -> None:
    """The race of issue 25, forced: the round is finished again (the 10H: void) at the moment
    the forwarder has read the round and is about to read its finish entries. The batch reads
    one snapshot of the store, so the first copy is the settled round with its first finish,
    and the next pass brings the void finish as a version."""
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "bj07.db"
    (rid,) = make_station(db, "BJ-07", "PIT-2", rounds=1, start=DUELING)
    document = copy.deepcopy(DOCUMENTS[DUELING])
    document["events"].append(NOT_IN_THE_DECKS)
    fired: list[str] = []

    def refinish(statement: str) -> None:
        if not fired and "kind = 'round_finish' AND round_id BETWEEN" in statement:
            fired.append(statement)
            with open_station(db) as writer:
                writer.append_event(rid, NOT_IN_THE_DECKS, actor="dealer:ann")
                writer.finish_round(rid, settle_document(document), actor="dealer:ann")

    with Forwarder(db, url) as forwarder:
        forwarder.store().db.conn.set_trace_callback(refinish)
        first = forwarder.forward()
        assert fired and first.rounds == 1
        assert query(floor.admin_url, "SELECT status, house_net FROM floor.rounds") == [("settled", Decimal(-75))]
        forwarder.store().db.conn.set_trace_callback(None)
        again = forwarder.forward()
    assert again.versions == 1
    assert _latest(floor) == [(rid, "void", Decimal(25), Decimal(0))]
    with FloorReader(floor.review_url) as reader:
        assert reader.verify().ok
