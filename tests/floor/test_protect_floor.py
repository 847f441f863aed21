"""``dealer-assist protect --db URL`` (issue 36, Build 3): the protect report over the floor's
rounds, every table's, through the real CLI on a real PostgreSQL server, read with the pit's
(supervisors') role.

BJ-01 (Lucky 8, 6 decks): six shoes, each round A (true count 0) then round B after A's seven
cards 2 3 4 5 6 10 10 (tests/protect/test_protect_cli.py): p1 bets 10 then 50 (with the count),
p2 10 flat. Running count +3 (2-6 +1, 10 -1) with 305 of 312 cards left: true count
3 / (305 / 52); p1's twelve points lie on one line: correlation +1, slope 40 per unit of count,
p-value 0: flagged. BJ-02: p3 and p4 bet 10 flat over three rounds of one shoe: not flagged."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import psycopg
import pytest

from dealer_assist.floor.forward import Forwarder
from tests.floor.conftest import Floor
from tests.floor.helpers import cli
from tests.floor.test_protection_alerts import fives_round, recorded
from tests.protect.test_protect_cli import lucky8_round

TRUE_COUNT = 3 / (305 / 52)


@pytest.fixture
def forwarded(floor: Floor, tmp_path: Path) -> Floor:
    urls = {t: floor.station(t, "PIT-1") for t in ("BJ-01", "BJ-02")}
    one, two = tmp_path / "bj01.db", tmp_path / "bj02.db"
    for n in range(6):
        recorded(one, "BJ-01", lucky8_round({"id": f"S-{n + 1}", "dealt": 0}, 10, 10), {"p1": 10, "p2": 10})
        recorded(one, "BJ-01", lucky8_round({"id": f"S-{n + 1}", "dealt": 7}, 50, 10), {"p1": 50, "p2": 10})
    for k in range(3):
        recorded(two, "BJ-02", fives_round(8 * k), {"p3": -10, "p4": -10})
    for table, db in (("BJ-01", one), ("BJ-02", two)):
        Forwarder(db, urls[table]).forward()
    return floor


def rows(*args: str) -> dict[str, dict[str, Any]]:
    done = cli("protect", *args, "--json")
    assert done.returncode == 0, done.stderr
    return {r["player"]: r for r in map(json.loads, done.stdout.splitlines())}


def test_the_floors_rounds_of_every_table_and_of_one(forwarded: Floor) -> None:
    url = forwarded.review_url
    every = rows("--db", url)
    assert sorted(every) == ["p1", "p2", "p3", "p4"]
    p1 = every["p1"]
    assert (p1["rounds"], p1["total_wager"], p1["flagged"]) == (12, 360, True)
    assert p1["correlation"] == pytest.approx(1.0) and p1["p_value"] == 0.0
    assert p1["slope"] == pytest.approx(40 / TRUE_COUNT)
    assert "rises with the true count" in p1["reasons"][0]
    assert (every["p2"]["rounds"], every["p2"]["flagged"], every["p2"]["slope"]) == (12, False, 0)
    assert [(every[p]["rounds"], every[p]["total_wager"], every[p]["flagged"]) for p in ("p3", "p4")] == [
        (3, 30, False), (3, 30, False)]
    # the same figures as the table's own store gives (tests/protect/test_protect_cli.py)
    assert sorted(rows("--db", url, "--table", "BJ-02")) == ["p3", "p4"]
    assert list(rows("--db", url, "--player", "p1", "--since", "2000-01-01")) == ["p1"]
    text = cli("protect", "--db", url)
    assert text.returncode == 0 and "FLAGGED" in text.stdout and "p3" in text.stdout


def test_no_rounds_in_the_window_is_an_error(forwarded: Floor) -> None:
    done = cli("protect", "--db", forwarded.review_url, "--until", "2000-01-01")
    assert done.returncode == 2 and done.stdout == "" and done.stderr.startswith("error: no rounds")
    assert "Traceback" not in done.stderr


def test_a_floor_without_shoe_records_is_refused(floor: Floor, tmp_path: Path) -> None:
    url = floor.station("BJ-09", "PIT-1")
    db = tmp_path / "old.db"
    recorded(db, "BJ-09", lucky8_round(None, 10, 10), {"p1": 10, "p2": 10})
    Forwarder(db, url).forward()
    done = cli("protect", "--db", floor.review_url, "--json")
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: the floor (") and "no shoe records" in done.stderr


def test_the_floor_reads_a_rounds_shuffles_and_splits_its_cards_by_them(floor: Floor, tmp_path: Path) -> None:
    """Round 1 of BJ-03 (shoe S-A) was shuffled twice while dealt, as a station records it
    (audit shoe_loaded {replaces, shoe, at}): after its 3rd card (S-B) and its 5th (S-C). Round
    2 is S-C's, 2 cards out before it. Forwarded, the floor's reading (protect/live.py
    floor_rounds) splits round 1's cards 2S 3S 4S | 5S 6S | 10S 10H by them and starts round 2
    from S-C's two."""
    from dealer_assist.protect.live import floor_rounds
    from dealer_assist.protect.report import rebuild_counts, shoe_spans
    from dealer_assist.store import Store

    url = floor.station("BJ-03", "PIT-1")
    db = tmp_path / "bj03.db"
    recorded(db, "BJ-03", lucky8_round({"id": "S-A", "dealt": 0}, 10, 10), {"p1": 10, "p2": 10})
    with Store.open(db, table="BJ-03") as store:
        store.add_audit("shoe_loaded", actor="shoe", round_id=1, detail={"replaces": "S-A", "shoe": "S-B", "at": 3})
        store.add_audit("shoe_loaded", actor="shoe", round_id=1, detail={"replaces": "S-B", "shoe": "S-C", "at": 5})
    recorded(db, "BJ-03", lucky8_round({"id": "S-C", "dealt": 2}, 10, 10), {"p1": 10, "p2": 10})
    Forwarder(db, url).forward()
    with psycopg.connect(floor.review_url) as conn:
        rows = floor_rounds(conn, dt.datetime(2000, 1, 1, tzinfo=dt.UTC), dt.datetime(9999, 1, 1, tzinfo=dt.UTC))
    one, two = sorted(rows, key=lambda r: r.round_id)
    assert one.shuffles == [("S-B", 3), ("S-C", 5)] and two.shuffles == []
    assert [(s, " ".join(map(str, cards))) for s, cards in shoe_spans(one)] == [
        ("S-A", "2S 3S 4S"), ("S-B", "5S 6S"), ("S-C", "10S 10H")]
    rebuild_counts(rows)
    assert [str(c) for c in two.seen] == ["10S", "10H"]
