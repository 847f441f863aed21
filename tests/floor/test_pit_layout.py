"""The pit by touch at every table size (issue 34 item 7 and its layout test): ``dealer-assist
review --db postgresql://...`` as a pit supervisor starts it, on a real floor with three tables,
on 1280×800, 1366×768 and 1920×1080 in turn, every tab shown and a round opened: every window
inside its screen, every touch control inside its window, at least 48 px high with 16 px type.
See tests/ui_review/review_pit_walk.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.floor.conftest import Floor
from tests.floor.helpers import cli
from tests.floor.stations import DOCUMENTS, make_station
from tests.ui_review.review_pit_walk import run_walk

pytestmark = pytest.mark.gui


def test_the_pit_fits_every_screen_and_a_finger(floor: Floor, tmp_path: Path) -> None:
    first: list[int] = []
    for table, pit, dealer in (("BJ-07", "PIT-2", "ann"), ("BJ-08", "PIT-2", "ben"), ("BJ-21", "PIT-3", "cat")):
        url = floor.station(table, pit)
        db = tmp_path / f"{table}.db"
        first += make_station(db, table, pit, rounds=len(DOCUMENTS), dealer=dealer)[:1]
        assert cli("forward", "--db", str(db), "--to", url).returncode == 0
    result = run_walk(["pit", floor.review_url, "BJ-07", str(first[0])], tmp_path)
    assert "error" not in result, (result.get("error"), result.get("problems"), result.get("stderr"))
    assert "pit: PitWindow" in result["opened"]
    assert sum("RoundDialog" in o for o in result["opened"]) == 3  # a round on each screen
    # each screen: the pit's seven tabs and the round's five
    assert int(result["checks"]) >= 3 * (7 + 1 + 5)
    problems = list(result["problems"])
    assert problems == [], f"{len(problems)} problems:\n" + "\n".join(problems[:80])
