"""Forwarding a station's finished rounds to the floor: everything, once, and refusing a store
that no longer extends the floor's copy."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import psycopg

from tests.floor.conftest import Floor
from tests.floor.helpers import LINK_TEXT, cli, forward_as, query, store_rows
from tests.floor.stations import DOCUMENTS, make_station, open_station, record_rounds


def _floor_copy(url: str, table: str) -> list[tuple[object, ...]]:
    return query(url, "SELECT round_id, floor_seq, floor_link, station_link FROM floor.rounds "
                      "WHERE table_name = %s ORDER BY round_id", (table,))


def test_forward_copies_every_finished_round_once_with_everything(floor: Floor, tmp_path: Path) -> None:
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "bj07.db"
    ids = make_station(db, "BJ-07", "PIT-2", rounds=len(DOCUMENTS))
    with open_station(db) as store:  # an unfinished round is not forwarded
        open_id = store.begin_round({"game": "lucky8", "decks": 6, "areas": 7})
        store.append_event(open_id, {"type": "no_more_bets"})
    done = cli("forward", "--db", str(db), "--to", url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"forwarded {len(ids)} rounds, ")
    again = cli("forward", "--db", str(db), "--to", url)
    assert again.returncode == 0 and again.stdout.startswith("forwarded 0 rounds, 0 audit entries")

    admin = floor.admin_url
    assert [r[0] for r in query(admin, "SELECT round_id FROM floor.rounds ORDER BY round_id")] == ids
    # Events exactly as in the store (text, time, actor, link), in order.
    for rid in ids:
        station = store_rows(db, "SELECT seq, id, at, actor, event_json, hash FROM events WHERE round_id = ? "
                                 "ORDER BY seq", (rid,))
        copied = query(admin, "SELECT seq, station_event_id, at, actor, event_json, station_link FROM floor.events "
                              "WHERE table_name = 'BJ-07' AND round_id = %s ORDER BY seq", (rid,))
        assert [(a, b, c, d, e, bytes(f)) for a, b, c, d, e, f in copied] == station
    # Every audit entry, with its station link.
    station_audit = store_rows(db, "SELECT id, kind, hash FROM audit ORDER BY id")
    floor_audit = query(admin, "SELECT audit_id, kind, station_link FROM floor.audit ORDER BY audit_id")
    assert [(a, k, bytes(h)) for a, k, h in floor_audit] == station_audit
    # Ace Race (the first round): alice main 25 Blackjack 6 to 5 = +30, pair 5 lost = -5 (4.1, 3.15.1).
    rows = query(admin, "SELECT player, bet, stake, result, net FROM floor.settlements WHERE round_id = %s "
                        "ORDER BY idx", (ids[0],))
    assert [(p, b, s, n) for p, b, s, _, n in rows] == [
        ("alice", "main", Decimal(25), Decimal(30)), ("alice", "pair", Decimal(5), Decimal(-5))]
    assert query(admin, "SELECT wagered, house_net, dealer, pit FROM floor.rounds WHERE round_id = %s",
                 (ids[0],)) == [(Decimal(30), Decimal(-25), "ann", "PIT-2")]
    # The void (5.1.1): irregular, every wager returned, net 0.
    void_id = ids[2]
    assert query(admin, "SELECT status, irregular, house_net FROM floor.rounds WHERE round_id = %s",
                 (void_id,)) == [("void", True, Decimal(0))]
    # The 5.13 reconstruction ruling of LUCKY8_RULING is on the floor.
    assert query(admin, "SELECT rule FROM floor.rulings WHERE round_id = %s", (ids[1],))[0][0].endswith("5.13")


def test_a_store_of_another_table_or_without_a_name_is_refused(floor: Floor, tmp_path: Path) -> None:
    url = floor.station("BJ-07", "PIT-2")
    other = tmp_path / "bj09.db"
    make_station(other, "BJ-09", "PIT-2", rounds=1)
    done = cli("forward", "--db", str(other), "--to", url)
    assert done.returncode == 2
    assert "table BJ-09 is not registered" in done.stderr
    unnamed = tmp_path / "old.db"
    with open_station(unnamed) as store:
        record_rounds(store, 1)
    done = cli("forward", "--db", str(unnamed), "--to", url)
    assert done.returncode == 2 and "has no table identity" in done.stderr
    assert query(floor.admin_url, "SELECT count(*) FROM floor.rounds") == [(0,)]


def test_a_rolled_back_store_is_detected_and_the_floor_copy_stays(floor: Floor, tmp_path: Path) -> None:
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=3)
    backup = tmp_path / "backup.db"
    with open_station(db) as store:  # a consistent copy, as an operator would restore it
        store.db.execute(f"VACUUM INTO '{backup}'")
        record_rounds(store, 2, start=3)
    assert cli("forward", "--db", str(db), "--to", url).returncode == 0
    before = _floor_copy(floor.admin_url, "BJ-07")
    assert len(before) == 5
    # The station's file is rolled back to the copy and play goes on: rounds 4 and 5 are new ones.
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    shutil.copy(backup, db)
    with open_station(db) as store:
        record_rounds(store, 3, start=5)
    done = cli("forward", "--db", str(db), "--to", url)
    assert done.returncode == 1
    assert "forwarding stopped for table BJ-07" in done.stderr
    assert "round 5 in the store is not the round forwarded" in done.stderr
    assert _floor_copy(floor.admin_url, "BJ-07") == before
    # It stays stopped (the alarm is on the floor), and says why.
    again = cli("forward", "--db", str(db), "--to", url)
    assert again.returncode == 1 and "forwarding is stopped for table BJ-07" in again.stderr
    assert _floor_copy(floor.admin_url, "BJ-07") == before
    # The administrator clears the alarm by command (not SQL), saying why; it is kept with who did it.
    refused = cli("floor", "clear-alarm", "--url", floor.admin_url, "--table", "BJ-07", "--why", "  ")
    assert refused.returncode == 2 and refused.stderr.startswith("error: say why the alarm is cleared")
    assert cli("floor", "clear-alarm", "--url", floor.admin_url, "--table", "BJ-99",
               "--why", "x").stderr.startswith("error: no table BJ-99 on the floor")
    cleared = cli("floor", "clear-alarm", "--url", floor.admin_url, "--table", "BJ-07",
                  "--why", "backup restored by mistake; station to be re-imaged")
    assert cleared.returncode == 0, cleared.stderr
    assert cleared.stdout.startswith("floor: cleared the alarm of BJ-07 raised ")
    assert "round 5 in the store is not the round forwarded" in cleared.stdout
    assert query(floor.admin_url, "SELECT table_name, why, cleared_by FROM floor.alarm_clearings") == [
        ("BJ-07", "backup restored by mistake; station to be re-imaged", "da_admin")]
    assert query(floor.admin_url, "SELECT count(*) FROM floor.alarms")[0][0] == 0
    assert cli("floor", "clear-alarm", "--url", floor.admin_url, "--table", "BJ-07",
               "--why", "x").stderr.startswith("error: table BJ-07 has no alarm")
    # The store still does not extend the floor's copy: the next pass stops it again.
    third = cli("forward", "--db", str(db), "--to", url)
    assert third.returncode == 1 and "forwarding stopped for table BJ-07" in third.stderr
    assert query(floor.admin_url, "SELECT count(*) FROM floor.alarms")[0][0] == 1
    assert _floor_copy(floor.admin_url, "BJ-07") == before


def test_a_rebuilt_store_with_fewer_rounds_is_detected(floor: Floor, tmp_path: Path) -> None:
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=4)
    assert cli("forward", "--db", str(db), "--to", url).returncode == 0
    before = _floor_copy(floor.admin_url, "BJ-07")
    rebuilt = tmp_path / "rebuilt.db"
    make_station(rebuilt, "BJ-07", "PIT-2", rounds=2)
    done = cli("forward", "--db", str(rebuilt), "--to", url)
    assert done.returncode == 1 and "round 4 is on the floor but no longer in the store" in done.stderr
    assert _floor_copy(floor.admin_url, "BJ-07") == before


def test_floor_listing_and_export_round_trip_through_settle(floor: Floor, tmp_path: Path) -> None:
    stations = {"BJ-07": ("PIT-2", "ann"), "BJ-08": ("PIT-2", "ben"), "BJ-21": ("PIT-3", "cat")}
    ids: dict[str, list[int]] = {}
    for table, (pit, dealer) in stations.items():
        url = floor.station(table, pit)
        db = tmp_path / f"{table}.db"
        ids[table] = make_station(db, table, pit, rounds=len(DOCUMENTS), dealer=dealer)
        assert cli("forward", "--db", str(db), "--to", url).returncode == 0
    review = floor.review_url
    listing = cli("history", "--db", review, "list", "--json", "--limit", "0")
    assert listing.returncode == 0, listing.stderr
    rows = json.loads(listing.stdout)  # a JSON array (spec/round-script.md)
    assert len(rows) == 3 * len(DOCUMENTS)
    assert {r["table"] for r in rows} == set(stations)
    pit2 = json.loads(cli("history", "--db", review, "list", "--json", "--pit", "PIT-2", "--limit", "0").stdout)
    assert {r["table"] for r in pit2} == {"BJ-07", "BJ-08"} and len(pit2) == 2 * len(DOCUMENTS)
    by_dealer = json.loads(cli("history", "--db", review, "list", "--json", "--dealer", "cat",
                               "--game", "lucky8").stdout)
    # Three lucky8 documents per table (ruling, void, the example): at BJ-21 only.
    assert {(r["table"], r["game"]) for r in by_dealer} == {("BJ-21", "lucky8")} and len(by_dealer) == 3
    bob = json.loads(cli("history", "--db", review, "list", "--json", "--player", "bob", "--table", "BJ-08").stdout)
    assert bob and all(r["table"] == "BJ-08" and "bob" in r["players"] for r in bob)
    # Export every round of one table and settle it again: the same bytes as recorded.
    for rid in ids["BJ-08"]:
        exported = cli("history", "--db", review, "export", str(rid), "--table", "BJ-08")
        assert exported.returncode == 0, exported.stderr
        settled = cli("settle", "-", stdin=exported.stdout)
        assert settled.returncode == 0, settled.stderr
        recorded = query(floor.admin_url, "SELECT result_json FROM floor.rounds WHERE table_name = 'BJ-08' "
                                          "AND round_id = %s", (rid,))[0][0]
        assert json.loads(settled.stdout) == json.loads(recorded)
        from_store = cli("history", "--db", str(tmp_path / "BJ-08.db"), "export", str(rid))
        assert exported.stdout == from_store.stdout
    # time range (UTC; a bare --until date includes that day): all rounds were played today
    import datetime as dt

    today = dt.datetime.now(dt.UTC).date()
    tomorrow = (today + dt.timedelta(days=1)).isoformat()
    later = cli("history", "--db", review, "list", "--json", "--since", tomorrow)
    assert later.returncode == 0 and json.loads(later.stdout) == []
    upto = cli("history", "--db", review, "list", "--json", "--until", today.isoformat(), "--limit", "0")
    assert len(json.loads(upto.stdout)) == 3 * len(DOCUMENTS)
    bad = cli("history", "--db", review, "list", "--since", "yesterday")
    assert bad.returncode == 2 and bad.stderr.startswith("error: 'yesterday' is not an ISO 8601 date")
    file_only = cli("history", "--db", str(tmp_path / "BJ-08.db"), "list", "--pit", "PIT-2")
    assert file_only.returncode == 2 and "work on the floor database" in file_only.stderr
    ambiguous = cli("history", "--db", review, "export", "1")
    assert ambiguous.returncode == 2 and "name one with --table" in ambiguous.stderr
    assert cli("history", "--db", review, "verify").stdout.startswith(
        f"ok: 3 tables, {3 * len(DOCUMENTS)} rounds")


def test_verify_names_the_first_altered_row(floor: Floor, tmp_path: Path) -> None:
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "bj07.db"
    ids = make_station(db, "BJ-07", "PIT-2", rounds=5)
    assert cli("forward", "--db", str(db), "--to", url).returncode == 0
    assert cli("history", "--db", floor.review_url, "verify").returncode == 0
    admin = floor.admin_url
    with psycopg.connect(admin) as conn:  # someone with the admin's rights edits a card
        conn.execute("UPDATE floor.events SET event_json = replace(event_json, '9D', '9C') "
                     "WHERE table_name = 'BJ-07' AND round_id = %s", (ids[0],))
    done = cli("history", "--db", floor.review_url, "verify")
    assert done.returncode == 1
    assert done.stdout.startswith(f"FAILED: table BJ-07: round {ids[0]} (floor seq 1):")
    with psycopg.connect(admin) as conn:
        conn.execute("UPDATE floor.events SET event_json = replace(event_json, '9C', '9D') "
                     "WHERE table_name = 'BJ-07' AND round_id = %s", (ids[0],))
        conn.execute("UPDATE floor.settlements SET net = 500 WHERE table_name = 'BJ-07' AND round_id = %s "
                      "AND idx = 0", (ids[3],))
    done = cli("history", "--db", floor.review_url, "verify", "--table", "BJ-07")
    assert done.returncode == 1
    # (this version's station: chain format 2, the settlements chained with their round)
    assert done.stdout.strip() == f"FAILED: table BJ-07: round {ids[3]} (floor seq 4): {LINK_TEXT[2]}"
    with psycopg.connect(admin) as conn:
        conn.execute("UPDATE floor.settlements SET net = 0 WHERE table_name = 'BJ-07' AND round_id = %s "
                     "AND idx = 0", (ids[3],))
        conn.execute("DELETE FROM floor.rulings WHERE table_name = 'BJ-07' AND round_id = %s", (ids[1],))
        conn.execute("DELETE FROM floor.settlements WHERE table_name = 'BJ-07' AND round_id = %s", (ids[1],))
        conn.execute("DELETE FROM floor.round_players WHERE table_name = 'BJ-07' AND round_id = %s", (ids[1],))
        conn.execute("DELETE FROM floor.events WHERE table_name = 'BJ-07' AND round_id = %s", (ids[1],))
        conn.execute("DELETE FROM floor.rounds WHERE table_name = 'BJ-07' AND round_id = %s", (ids[1],))
    done = cli("history", "--db", floor.review_url, "verify")
    assert done.returncode == 1
    assert f"round {ids[2]} (floor seq 3): a forwarded round before it is missing" in done.stdout
    # A ruling removed from the floor's copy (LUCKY8_RULING, the second document, has the 5.13 one),
    # forwarded by a station before 0015 (chain format 1: its rows compared with the settle output).
    more = tmp_path / "bj08.db"
    ids8 = make_station(more, "BJ-08", "PIT-2", rounds=2)
    forward_as(more, floor.station("BJ-08", "PIT-2"), 1)
    with psycopg.connect(admin) as conn:
        conn.execute("DELETE FROM floor.rulings WHERE table_name = 'BJ-08' AND round_id = %s", (ids8[1],))
    done = cli("history", "--db", floor.review_url, "verify", "--table", "BJ-08")
    assert done.stdout.strip() == (f"FAILED: table BJ-08: round {ids8[1]} (floor seq 2): its ruling rows "
                                   "differ from its settle output")


def test_a_round_finished_later_is_forwarded_by_the_next_pass(floor: Floor, tmp_path: Path) -> None:
    from dealer_assist.floor.forward import Forwarder
    from tests.floor.stations import result_of

    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=3)
    with open_station(db) as store:  # round 4 stays open (e.g. referred) while round 5 is played
        config = {k: v for k, v in DOCUMENTS[0].items() if k != "events"}
        held = store.begin_round(config)
        for event in DOCUMENTS[0]["events"]:
            store.append_event(held, event)
        record_rounds(store, 1, start=3)
    with Forwarder(db, url) as forwarder:  # one forwarder, as --follow and the app keep it
        first = forwarder.forward()
        assert (first.rounds, first.last_round) == (4, 5)
        with open_station(db) as store:
            store.finish_round(held, result_of(0))
        second = forwarder.forward()
        assert (second.rounds, second.last_round) == (1, held)
        assert forwarder.forward().rounds == 0
    assert [r[0] for r in query(floor.admin_url, "SELECT round_id FROM floor.rounds ORDER BY floor_seq")] == [
        1, 2, 3, 5, 4]
    assert cli("history", "--db", floor.review_url, "verify").stdout.startswith("ok: 1 tables, 5 rounds")


def test_a_round_finished_again_after_forwarding_is_a_new_version(floor: Floor, tmp_path: Path) -> None:
    """A 5.7 card after the end: the station appends it and records the round's result again.
    The floor keeps its first copy (chained) and adds the new finish as a version; the review
    reads the latest, with its history."""
    import copy

    from dealer_assist.engine.transcript import settle_document
    from dealer_assist.floor.reader import FloorReader

    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=len(DOCUMENTS))
    assert cli("forward", "--db", str(db), "--to", url).returncode == 0
    # Round 5 is Lucky 8 pair and double: the dealer stands on 18; a 9C dealt to the dealer's
    # completed hand is discarded and the outcome stands (5.7): alice +30, bob +150 still.
    extra = {"type": "card", "card": "9C", "to": "dealer"}
    document = copy.deepcopy(DOCUMENTS[4])
    document["events"].append(extra)
    with open_station(db) as store:
        store.append_event(5, extra, actor="dealer:ann")
        store.finish_round(5, settle_document(copy.deepcopy(document)), actor="dealer:ann")
    done = cli("forward", "--db", str(db), "--to", url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("forwarded 0 rounds, 1 audit entries, 0 sessions of table BJ-07, "
                                  "1 rounds finished again")
    again = cli("forward", "--db", str(db), "--to", url)  # exactly once
    assert again.stdout.startswith("forwarded 0 rounds, 0 audit entries, 0 sessions of table BJ-07;")
    # the first copy is untouched: its events and its settle output without the 5.7 ruling
    first = query(floor.admin_url, "SELECT result_json, (SELECT count(*) FROM floor.events e WHERE "
                                   "e.table_name = r.table_name AND e.round_id = r.round_id) FROM floor.rounds r "
                                   "WHERE table_name = 'BJ-07' AND round_id = 5")[0]
    assert "5.7" not in first[0] and first[1] == len(DOCUMENTS[4]["events"])
    with FloorReader(floor.review_url) as reader:
        detail = reader.get_round("BJ-07", 5)
        assert detail is not None
        assert len(detail.events) == len(DOCUMENTS[4]["events"]) + 1 and detail.events[-1][3] == extra
        assert [(r["rule"], r["ruling"], r["index"]) for r in detail.rulings] == [
            ("5.7", "discarded", len(DOCUMENTS[4]["events"]))]
        assert detail.summary.net == {"alice": 30, "bob": 150}
        assert [v.events for v in detail.versions] == [len(DOCUMENTS[4]["events"]), len(DOCUMENTS[4]["events"]) + 1]
        listed = {r.id: r for r in reader.list_rounds(table="BJ-07")}
        assert listed[5].net == {"alice": 30, "bob": 150}
        # the export is the latest: settle gives the 5.7 ruling
        output = settle_document(reader.export_round("BJ-07", 5))
        assert [r["rule"] for r in output["rulings"]] == ["5.7"]
        assert reader.verify("BJ-07").ok
    # a version altered on the floor no longer matches the chained round_finish entry
    with psycopg.connect(floor.admin_url) as conn:
        conn.execute("UPDATE floor.round_versions SET result_json = replace(result_json, '150', '160')")
    bad = cli("history", "--db", floor.review_url, "verify")
    assert bad.returncode == 1
    assert "round 5's version of audit entry" in bad.stdout + bad.stderr
    assert "result_sha256 differs" in bad.stdout + bad.stderr
