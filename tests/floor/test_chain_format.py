"""Chain format 2 (issue 35, item 7; migration 0015_chain_format), on a real PostgreSQL: the server
writes amounts and derived rows as the forwarder hashed them; a floor holding rounds of both
formats (an older station's, then this version's, and a round whose text holds a separator)
verifies across the boundary, and an alteration is named in each format; the server checks a
format-2 round's derived rows against its settle output as it arrives, and refuses rows added
to it later."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from dealer_assist.floor import chain
from dealer_assist.floor.reader import FloorReader
from tests.floor.conftest import Floor
from tests.floor.helpers import LINK_TEXT, floor_version, forward_as, query
from tests.floor.stations import make_station, open_station, record_rounds


def test_amounts_and_derived_rows_are_written_as_the_server_writes_them(floor: Floor) -> None:
    # numeric keeps the scale given and writes no exponent; '-0' is 0 (worked out from the
    # numeric type's rules: 1E+1 is 10 of scale 0, 1.5E-3 is 0.0015, 0E-2 is 0.00)
    by_hand = {"10": "10", "10.50": "10.50", "-0": "0", "-0.00": "0.00", "1E+1": "10", "1.5E-3": "0.0015",
               "0E-2": "0.00", "-12.3400": "-12.3400", "1.50E+1": "15.0"}
    with psycopg.connect(floor.admin_url) as conn:
        for given, written in by_hand.items():
            row = conn.execute("SELECT %s::numeric::text", (given,)).fetchone()
            assert row is not None and row[0] == written == chain.num_text(Decimal(given)), given
        # a settlement, a ruling and two players (NULLs, non-ASCII): the server's text is field2's
        row = conn.execute(
            f"SELECT {chain.SETTLEMENT2_FIELDS_SQL}, {chain.RULING2_FIELDS_SQL}, "
            f"string_agg({chain.PLAYER2_FIELDS_SQL}, '' ORDER BY q.player COLLATE \"C\") "
            "FROM (VALUES (0, 'zoë ♠', NULL::int, 2, 'main', 10.50::numeric, 'win', -0.0::numeric, NULL, 'final')) "
            "s(idx, player, area, hand, bet, stake, result, net, rule, stage), "
            "(VALUES (1, NULL::int, '5.7', NULL, 'réclamation', '[]')) u(idx, event_index, rule, ruling, text, moves_json), "
            "(VALUES ('zoë', 5::numeric, 10::numeric), ('Zed', NULL, 0.00)) q(player, net, wagered) "
            "GROUP BY 1, 2").fetchone()
    assert row is not None
    us, rs = chain.US, chain.RS
    assert row[0] == f"0{us}zoë ♠{us}{rs}{us}2{us}main{us}10.50{us}win{us}0.0{us}{rs}{us}final{us}"
    assert row[1] == f"1{us}{rs}{us}5.7{us}{rs}{us}réclamation{us}[]{us}"
    # byte order: 'Z' (0x5a) before 'z' (0x7a)
    assert row[2] == f"Zed{us}{rs}{us}0.00{us}zoë{us}5{us}10{us}"


@pytest.fixture
def both(floor: Floor, tmp_path: Path) -> tuple[str, Path, list[int]]:
    """Rounds 1-3 forwarded by a station before 0015 (format 1), then 4-6 by this version's
    (format 2), then round 7, whose dealer's name holds a separator (U+001F): format 1."""
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "BJ-07.db"
    ids = make_station(db, "BJ-07", "PIT-2", rounds=3)  # Ace Race, Lucky 8 with its ruling, a void
    forward_as(db, url, 1)
    with open_station(db) as store:
        ids += record_rounds(store, 3)
        ids += record_rounds(store, 1, dealer="ann\x1fbob", start=1)  # Lucky 8 again
    forward_as(db, url, 2)
    return url, db, ids


def formats(floor: Floor) -> list[int | None]:
    return [r[0] for r in query(floor.admin_url, "SELECT chain_format FROM floor.rounds ORDER BY floor_seq")]


def test_a_floor_of_both_formats_verifies_across_the_boundary(floor: Floor, both: tuple[str, Path, list[int]]) -> None:
    _url, _db, ids = both
    assert ids == [1, 2, 3, 4, 5, 6, 7]
    assert formats(floor) == [None, None, None, 2, 2, 2, 1]
    with FloorReader(floor.review_url) as reader:
        whole = reader.verify("BJ-07")
        assert whole.ok and whole.rounds == 7, whole  # (two parts: seqs 1-4 and 5-7, the first of both formats)
        for rid, fmt in ((2, 1), (5, 2), (7, 1)):
            with psycopg.connect(floor.admin_url) as conn:
                assert conn.execute("UPDATE floor.settlements SET net = net + 1 WHERE round_id = %s AND idx = 0",
                                    (rid,)).rowcount == 1
            checked = reader.verify("BJ-07")
            said = "its settlement rows differ from its settle output" if fmt == 1 else LINK_TEXT[2]
            assert not checked.ok and checked.problem == f"table BJ-07: round {rid} (floor seq {rid}): {said}", checked
            with psycopg.connect(floor.admin_url) as conn:
                conn.execute("UPDATE floor.settlements SET net = net - 1 WHERE round_id = %s AND idx = 0", (rid,))
            assert reader.verify("BJ-07").ok
        # a round's recorded format changed: its content no longer gives its link, in either direction
        for rid, to, said in ((2, 2, LINK_TEXT[2]), (5, None, LINK_TEXT[1]), (5, 1, LINK_TEXT[1])):
            with psycopg.connect(floor.admin_url) as conn:
                before = conn.execute("SELECT chain_format FROM floor.rounds WHERE round_id = %s", (rid,)).fetchone()
                conn.execute("UPDATE floor.rounds SET chain_format = %s WHERE round_id = %s", (to, rid))
            checked = reader.verify("BJ-07")
            assert not checked.ok and checked.problem == f"table BJ-07: round {rid} (floor seq {rid}): {said}", checked
            with psycopg.connect(floor.admin_url) as conn:
                conn.execute("UPDATE floor.rounds SET chain_format = %s WHERE round_id = %s",
                             (before[0] if before else None, rid))
        assert reader.verify("BJ-07").ok


def copy_round(conn: psycopg.Connection[object], rid: int, *, stake: str = "stake", text: str = "text",
               wagered: str = "wagered", net: str = "net", chain_format: int | None = 2) -> None:
    """Round ``rid``'s rows written again as round 100 (seq 100), in format 2's order (settlements
    and rulings, the round, its players), with the columns given as changed."""
    conn.execute("CREATE TEMP TABLE r ON COMMIT DROP AS SELECT * FROM floor.rounds WHERE round_id = %s", (rid,))
    conn.execute(f"UPDATE r SET round_id = 100, floor_seq = 100, wagered = {wagered}, chain_format = %s",
                 (chain_format,))
    conn.execute(f"INSERT INTO floor.settlements SELECT table_name, 100, idx, player, area, hand, bet, {stake}, result, "
                 "net, rule, stage, started_at FROM floor.settlements WHERE round_id = %s", (rid,))
    conn.execute(f"INSERT INTO floor.rulings SELECT table_name, 100, idx, event_index, rule, ruling, {text}, moves_json, "
                 "started_at FROM floor.rulings WHERE round_id = %s", (rid,))
    conn.execute("INSERT INTO floor.rounds SELECT * FROM r")
    conn.execute(f"INSERT INTO floor.round_players SELECT player, started_at, table_name, 100, pit, {net}, wagered "
                 "FROM floor.round_players WHERE round_id = %s", (rid,))


def test_the_server_checks_a_format2_round_as_it_arrives(floor: Floor, tmp_path: Path) -> None:
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "BJ-07.db"
    ids = make_station(db, "BJ-07", "PIT-2", rounds=3)  # round 2: Lucky 8 with its ruling
    forward_as(db, url, 2)
    rid = ids[1]
    assert query(floor.admin_url, "SELECT count(*) FROM floor.rulings WHERE round_id = %s", (rid,)) == [(1,)]
    # (the station's own account: the checks are the server's, whoever writes)
    with psycopg.connect(url) as conn:
        copy_round(conn, rid)  # the same rows again: accepted
        found = conn.execute("SELECT count(*) FROM floor.settlements WHERE round_id = 100").fetchone()
        assert found is not None and found[0] > 0
        conn.rollback()
    for change, said in (({"stake": "stake + 1"}, "its settlement rows differ"),
                         ({"text": "text || '.'"}, "its ruling rows differ"),
                         ({"wagered": "wagered + 1"}, "its wagered, house net or totals differ")):
        with psycopg.connect(url) as conn, pytest.raises(psycopg.errors.CheckViolation) as refused:
            copy_round(conn, rid, **change)
        assert f"round 100 of table BJ-07: {said} from its settle output" in str(refused.value), change
    with psycopg.connect(url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege) as refused:
        copy_round(conn, rid, net="net + 1")  # a player's net: checked as the players' rows arrive
    assert "does not name the player" in str(refused.value) and "with another net" in str(refused.value)
    # a settlement added to a format-2 round already on the floor: refused
    with psycopg.connect(url) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege) as refused:
        conn.execute("INSERT INTO floor.settlements SELECT table_name, round_id, 10, player, area, hand, bet, stake, "
                     "result, net, rule, stage, started_at FROM floor.settlements WHERE round_id = %s AND idx = 0",
                     (rid,))
    assert f"round {rid} of table BJ-07 is on the floor in chain format 2" in str(refused.value)
    # a format-1 round (an older station's) is not checked as it arrives: verify compares its rows
    with psycopg.connect(url) as conn:
        copy_round(conn, rid, stake="stake + 1", chain_format=None)
        conn.rollback()
    with FloorReader(floor.review_url) as reader:
        assert reader.verify("BJ-07").ok


def swap_recorded(floor: Floor, migration: str, done: bool) -> None:
    """Record ``migration``'s swap step as done (now) or not done (floor upgrade --no-swap)."""
    with psycopg.connect(floor.admin_url) as conn:
        conn.execute("UPDATE floor.migration_steps SET done_at = CASE WHEN %s THEN now() END "
                     "WHERE migration = %s AND step = 'swap'", (done, migration))


def test_this_versions_station_writes_format_2_once_the_swap_is_recorded(floor: Floor, tmp_path: Path) -> None:
    """Before 0015's swap (floor upgrade --no-swap: its swap step not done) this version's
    forwarder writes format 1; once recorded, format 2; the floor verifies across them."""
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "BJ-07.db"
    swap_recorded(floor, "0015_chain_format", False)
    make_station(db, "BJ-07", "PIT-2", rounds=2)
    forward_as(db, url, 2)
    swap_recorded(floor, "0015_chain_format", True)
    with open_station(db) as store:
        record_rounds(store, 2, start=2)
    forward_as(db, url, 2)
    assert formats(floor) == [None, None, 2, 2]
    with FloorReader(floor.review_url) as reader:
        checked = reader.verify("BJ-07")
    assert checked.ok and checked.rounds == 4, checked


def audit_formats(floor: Floor) -> list[int | None]:
    return [r[0] for r in query(floor.admin_url, "SELECT chain_format FROM floor.audit ORDER BY audit_id")]


def test_a_floor_of_both_audit_formats_verifies_and_an_altered_entry_is_named(
        floor: Floor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Audit format 2 (0016): a station of the version before (migrations up to 0015: rounds in
    format 2, its audit in format 1; 0016 is a newer online migration to it) forwards to a floor at
    0016, then this version's station; the floor verifies across the boundary, an entry altered in
    either format is named, and so is an entry whose recorded format was changed."""
    from dealer_assist.floor.forward import Forwarder

    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "BJ-07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=2)
    with monkeypatch.context() as m:
        floor_version(m, "0015_chain_format")
        with Forwarder(db, url) as older:
            assert older.forward().rounds == 2
    assert formats(floor) == [2, 2]
    old_entries = len(audit_formats(floor))
    with open_station(db) as store:
        record_rounds(store, 2, start=3)
    forward_as(db, url, 2)
    seen = audit_formats(floor)
    assert old_entries >= 2 and seen[:old_entries] == [None] * old_entries, seen
    assert len(seen) > old_entries + 1 and set(seen[old_entries:]) == {2}, seen
    first_new, last_old = old_entries + 1, old_entries  # audit ids from 1, forwarded in order
    named = ("table BJ-07: audit entry {aid} ({kind}): its content or the entry before it differ from what was "
             "forwarded (floor link does not match)")
    with FloorReader(floor.review_url) as reader:
        whole = reader.verify("BJ-07")
        assert whole.ok and whole.audit == len(seen), whole
        for aid, change, undo in (
                (last_old, "actor = actor || 'x'", "actor = left(actor, -1)"),
                (first_new, "actor = actor || 'x'", "actor = left(actor, -1)"),
                (first_new, "detail_json = detail_json || ' '", "detail_json = rtrim(detail_json)"),
                (first_new, "chain_format = NULL", "chain_format = 2"),  # the recorded format changed
                (last_old, "chain_format = 2", "chain_format = NULL")):
            with psycopg.connect(floor.admin_url) as conn:
                kind = conn.execute("SELECT kind FROM floor.audit WHERE audit_id = %s", (aid,)).fetchone()
                assert conn.execute(f"UPDATE floor.audit SET {change} WHERE audit_id = %s", (aid,)).rowcount == 1
            checked = reader.verify("BJ-07")
            assert kind is not None and not checked.ok and checked.problem == named.format(aid=aid, kind=kind[0]), (
                change, checked)
            with psycopg.connect(floor.admin_url) as conn:
                conn.execute(f"UPDATE floor.audit SET {undo} WHERE audit_id = %s", (aid,))
            assert reader.verify("BJ-07").ok, undo


def test_this_versions_station_writes_audit_format_2_once_its_swap_is_recorded(floor: Floor, tmp_path: Path) -> None:
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "BJ-07.db"
    swap_recorded(floor, "0016_audit_format", False)
    make_station(db, "BJ-07", "PIT-2", rounds=1)
    forward_as(db, url, 2)
    before = len(audit_formats(floor))
    swap_recorded(floor, "0016_audit_format", True)
    with open_station(db) as store:
        record_rounds(store, 1, start=2)
    forward_as(db, url, 2)
    seen = audit_formats(floor)
    assert before >= 1 and seen[:before] == [None] * before and set(seen[before:]) == {2}, seen
    assert formats(floor) == [2, 2]  # the rounds' own format: 0015's, swapped
    with FloorReader(floor.review_url) as reader:
        checked = reader.verify("BJ-07")
    assert checked.ok and checked.audit == len(seen), checked
