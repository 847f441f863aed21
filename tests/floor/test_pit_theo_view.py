"""The pit window's theoretical win (issue 19): each table's and the pit's, from the floor."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from tests.floor.conftest import Floor  # noqa: E402
from tests.floor.helpers import cli  # noqa: E402
from tests.floor.stations import make_station  # noqa: E402

pytestmark = pytest.mark.gui


def test_pit_window_theoretical_win(floor: Floor, qtbot: Any, tmp_path: Path) -> None:
    from dealer_assist.floor.reader import FloorReader
    from dealer_assist.floor.theo import pit_theo
    from dealer_assist.odds.theo import house_edges
    from ui.review.pit_view import PitWindow

    # BJ-07: the Ace Race round and Lucky 8 with the ruling; BJ-08: Ace Race only.
    for table, rounds in (("BJ-07", 2), ("BJ-08", 1)):
        url = floor.station(table, "PIT-2")
        db = tmp_path / f"{table}.db"
        make_station(db, table, "PIT-2", rounds=rounds)
        assert cli("forward", "--db", str(db), "--to", url).returncode == 0
    window = PitWindow(floor.review_url)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.pit.count() == 2 and window.pending == 0 and bool(window.states), timeout=20000)
    window.pit.setCurrentText("PIT-2")
    window.theo_button.click()
    qtbot.waitUntil(lambda: window.pending == 0 and window.theo_table.rowCount() == 3, timeout=120000)
    rows = [[window.theo_table.item(r, c).text() for c in range(5)] for r in range(3)]
    ace, lucky = house_edges("ace_race", 6), house_edges("lucky8", 6)
    ace_theo = 25 * ace["main"] + 5 * ace["pair"]  # alice: main 25, pair 5
    lucky_theo = (20 + 40) * lucky["main"]  # alice main 20, bob main 40
    # Ace Race: the house lost 25 (blackjack 6:5 on 25, pair won by the house); Lucky 8: both
    # players won 1 to 1: the house lost 60.
    assert rows[0] == ["BJ-07", "2", "90", f"{ace_theo + lucky_theo:.2f}", "-85"]
    assert rows[1] == ["BJ-08", "1", "30", f"{ace_theo:.2f}", "-25"]
    assert rows[2] == ["pit", "3", "120", f"{2 * ace_theo + lucky_theo:.2f}", "-110"]
    with FloorReader(floor.review_url) as reader:
        assert set(pit_theo(reader, pit="PIT-2")) == {"BJ-07", "BJ-08"}
    window.close()
