"""Theoretical win of a pit from the floor (PostgreSQL), the same as each station's own store."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path

from dealer_assist.floor.reader import FloorReader
from dealer_assist.floor.theo import pit_theo
from dealer_assist.odds.theo import stored_rounds, table_theo, total
from tests.floor.conftest import Floor
from tests.floor.helpers import cli
from tests.floor.stations import DOCUMENTS, make_station

BETS = ("main", "pair", "ace_race", "lucky8", "super_sevens", "three_stars", "bet_the_set", "royal_match",
        "kings_bounty", "superb8", "tie18", "plus21", "insurance")
# Edges chosen for the arithmetic: 1 % on the main wager, 10 % on every side bet.
EDGES = {b: Decimal("0.1") for b in BETS} | {"main": Decimal("0.01"), "bonus678": Decimal(0)}


def edges(game: str, decks: int) -> dict[str, Decimal]:
    return EDGES


def test_pit_theoretical_win_from_the_floor(floor: Floor, tmp_path: Path) -> None:
    stations = {"BJ-07": (tmp_path / "bj07.db", len(DOCUMENTS)), "BJ-08": (tmp_path / "bj08.db", 1)}
    for table, (db, rounds) in stations.items():
        url = floor.station(table, "PIT-2")
        make_station(db, table, "PIT-2", rounds=rounds)
        done = cli("forward", "--db", str(db), "--to", url)
        assert done.returncode == 0, done.stderr
    with FloorReader(floor.review_url) as reader:
        by_table = pit_theo(reader, pit="PIT-2", edges=edges)
        assert pit_theo(reader, pit="PIT-9", edges=edges) == {}
    # BJ-08 played the Ace Race round only: alice main 25 (1 %) and pair 5 (10 %); she won 30 on
    # the blackjack and lost the pair: the house lost 25.
    bj08 = by_table["BJ-08"]
    assert (bj08.rounds, bj08.theo, bj08.actual, bj08.wagered) == (1, Decimal("0.75"), Decimal(-25), Decimal(30))
    # Every table's figures on the floor are those of its own store.
    for table, (db, _) in stations.items():
        conn = sqlite3.connect(db)
        station = table_theo(stored_rounds(conn), edges)
        got = by_table[table]
        assert (got.rounds, got.theo, got.actual, got.wagered) == (
            station.rounds, station.theo, station.actual, station.wagered)
    pit = total(by_table.values())
    assert pit.theo == by_table["BJ-07"].theo + Decimal("0.75")
