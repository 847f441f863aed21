"""The pit review opened on the floor (offscreen, real window, real server): several tables."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from tests.floor.conftest import Floor  # noqa: E402
from tests.floor.helpers import ROOT, cli  # noqa: E402
from tests.floor.stations import DOCUMENTS, make_station  # noqa: E402

pytestmark = pytest.mark.gui


@pytest.fixture
def pit_floor(floor: Floor, tmp_path: Path) -> Floor:
    for table, pit, dealer in (("BJ-07", "PIT-2", "ann"), ("BJ-08", "PIT-2", "ben"), ("BJ-21", "PIT-3", "cat")):
        url = floor.station(table, pit)
        db = tmp_path / f"{table}.db"
        make_station(db, table, pit, rounds=len(DOCUMENTS), dealer=dealer)
        assert cli("forward", "--db", str(db), "--to", url).returncode == 0
    return floor


def _rows(widget: Any, column: int) -> list[str]:
    return [widget.item(r, column).text() for r in range(widget.rowCount())]


def test_the_pit_window_shows_every_table_of_the_pit(pit_floor: Floor, qtbot: Any) -> None:
    from ui.review.pit_view import PitWindow

    window = PitWindow(pit_floor.review_url)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.pit.count() == 3 and window.pending == 0 and bool(window.states), timeout=20000)
    # all pits: three tables, each open (a session started, not ended) with its dealer
    assert _rows(window.tables, 0) == ["BJ-07", "BJ-08", "BJ-21"]
    assert _rows(window.tables, 4) == ["open", "open", "open"]
    assert _rows(window.tables, 5) == ["ann", "ben", "cat"]
    assert _rows(window.tables, 6) == [str(len(DOCUMENTS))] * 3  # all played this hour
    assert len(window.rounds_shown) == 3 * len(DOCUMENTS)
    # one pit
    window.pit.setCurrentText("PIT-2")
    window.refresh()
    qtbot.waitUntil(lambda: window.pending == 0, timeout=20000)
    assert _rows(window.tables, 0) == ["BJ-07", "BJ-08"]
    assert {r.table for r in window.rounds_shown} == {"BJ-07", "BJ-08"}
    # a player across tables, any case, part of the name: "OB" finds bob at both tables
    window.player.setText("OB")
    window.refresh()
    qtbot.waitUntil(lambda: window.pending == 0, timeout=20000)
    assert window.rounds_shown and all("bob" in r.players for r in window.rounds_shown)
    assert {r.table for r in window.rounds_shown} == {"BJ-07", "BJ-08"}
    # the player's play chart follows them across the whole floor, other pits included
    assert set(window.charts.series["play"]) == {"bob at BJ-07", "bob at BJ-08", "bob at BJ-21"}
    # Charts: one hold line per table of the pit; one rounds-per-hour line per dealer.
    assert set(window.charts.series["net/wagered"]) == {"BJ-07", "BJ-08"}
    assert set(window.charts.series["dealers"]) == {"ann", "ben"}
    assert [y for _, y in window.charts.series["dealers"]["ann"]] == [float(len(DOCUMENTS))]
    # Ace Race at BJ-07 (first document): alice +25 on 30 wagered, so the house's net is -25.
    # The whole table's hour: house net over wagered, worked from the documents' nets below.
    window.player.setText("")
    window.day.setDate(window.day.date().addDays(-1))  # yesterday: nothing was played
    qtbot.waitUntil(lambda: window.pending == 0, timeout=20000)
    assert window.rounds_shown == [] and window.charts.series["net/wagered"] == {}
    window.close()


def test_a_round_opens_re_decided_from_the_floor(pit_floor: Floor, qtbot: Any) -> None:
    from ui.review.pit_view import PitWindow

    window = PitWindow(pit_floor.review_url)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.pending == 0 and bool(window.states), timeout=20000)
    opened: list[Any] = []
    window.open_round("BJ-08", 1, opened.append)
    qtbot.waitUntil(lambda: bool(opened), timeout=20000)
    dialog = opened[0]
    qtbot.addWidget(dialog)
    # Ace Race: alice main 25 Blackjack +30 (6 to 5), pair 5 lost -5.
    assert _rows(dialog.settlements, 0) == ["alice", "alice"]
    assert _rows(dialog.settlements, 6) == ["+30", "\u22125"]  # player, area, hand, bet, stake, result, net
    assert dialog.verdict.text() == "re-decided by the current rules: no difference"
    assert dialog.events.rowCount() == len(DOCUMENTS[0]["events"])
    # the replay slider: before the first event, then after each one (6 events in ACE_RACE)
    assert dialog.slider.maximum() == len(DOCUMENTS[0]["events"])
    dialog.slider.setValue(0)
    assert dialog.step_label.text().startswith("step 0 of 6 — before the first event")
    dialog.slider.setValue(4)
    assert dialog.step_label.text().startswith("step 4 of 6 — after event 3: ")
    assert not any(step.refusal for step in dialog.steps)
    # the round keeps the dealer's screen's felt (issue 24): an area is drawn on the layout's green
    from PySide6.QtGui import QColor

    dialog.resize(1280, 800)
    dialog.slider.setValue(dialog.slider.maximum())
    qtbot.wait(50)
    box = dialog.layout_view.area_boxes[1]
    image = box.grab().toImage()
    assert image.pixelColor(box.width() // 2, box.height() - 3) == QColor("#0b5d2a")
    window.close()


def test_review_command_on_the_floor_takes_a_screenshot(pit_floor: Floor, tmp_path: Path) -> None:
    import subprocess
    import sys

    shot = tmp_path / "pit.png"
    done = subprocess.run([sys.executable, "-m", "dealer_assist", "review", "--db", pit_floor.review_url,
                           "--screenshot", str(shot)], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    assert shot.stat().st_size > 10_000


def test_local_day_bounds_cover_one_local_day() -> None:
    from ui.review.pit_view import local_day_bounds

    since, until = local_day_bounds(dt.date(2026, 11, 26))
    local = since.astimezone()
    assert (local.year, local.month, local.day, local.hour, local.minute) == (2026, 11, 26, 0, 0)
    assert until.astimezone().date() == dt.date(2026, 11, 27)
