"""The tap counter of scripts/taps_per_round.py counts a real path (issue 34, taps per round):
its driver, touching only buttons a finger can reach, places exactly the wagers asked for, and
the round's wagers on disk are those; the number of taps is the one worked out from the
betting panel by hand. No timings."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from dealer_assist.engine.table_setup import TableSetup
from dealer_assist.store import Store
from scripts.taps_per_round import TapRefused, Taps, chips_for
from tests.ui.driving import TableDriver

MakeTable = Callable[..., TableDriver]


def _stored_wagers(db: Path) -> list[tuple[str, str, int, int | None]]:
    store = Store.open_readonly(db)
    try:
        rid = store.list_rounds(limit=1)[0].id
        events = store.events(rid)
    finally:
        store.close()
    stop = next(i for i, e in enumerate(events) if e["type"] == "no_more_bets")
    return [(str(e["player"]), str(e["bet"]), int(e["amount"]), e.get("area"))
            for e in events[:stop] if e["type"] == "wager"]


def test_taps_place_exactly_the_wagers_asked_for(make_table: MakeTable, tmp_path: Path) -> None:
    # Lucky 8, alice seated on area 1, bob on area 2; the table's chips 5 25 100 500 1000.
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1, "bob": 2}),
                   "8H 6D 9S 10C 7C")
    taps = Taps(t.table)
    # nothing to repeat before a first round: the button is there but off, and a tap on it is refused
    with pytest.raises(TapRefused):
        taps.repeat_all()
    with pytest.raises(TapRefused):
        taps.tap(t.window.terminals, "the terminals' panel")  # hidden at a table game
    assert taps.count.taps == 0
    bets: list[tuple[str, str, int, int | None]] = [
        ("alice", "main", 100, 1),  # area 1, alice and Main already chosen: +100, Place = 2
        ("alice", "pair", 10, 1),  # Pair, +5 +5, Place = 4
        ("bob", "main", 50, 2),  # area 2 (bob, its seated player, chosen), Main, +25 +25, Place = 5
        ("carl", "main", 30, 2),  # New player, "carl", OK, +25 +5, Place = 5 (and 4 keys)
        ("carl", "lucky8", 5, 2),  # Lucky 8, +5, Place = 3
    ]
    for bet in bets:
        taps.bet(*bet)
    taps.prompt("no_more_bets")  # 1
    assert taps.count.taps == 2 + 4 + 5 + 5 + 3 + 1
    assert taps.count.keys == len("carl")
    assert taps.recorded_wagers() == bets
    assert _stored_wagers(tmp_path / "table.db") == bets  # the round on disk holds exactly these
    assert chips_for(30, (5, 25, 100)) == [25, 5]
