"""The pit's charts' time axes (issue 34 item 7: "the pit's hour axis unreadable"): over a
shift, and over a whole day, at the smallest table screen (1280×800) and the largest, every
label is a local ``HH:MM`` on the clock's marks, in 16 px type, the labels stand apart (none
overlaps the next, as pyqtgraph lays them out to draw), and there are enough of them to read
the hour (one at least every two hours over a shift). The charts themselves, offscreen."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

import pytest
from PySide6.QtGui import QImage, QPainter

from dealer_assist.floor.reader import HourFigure
from ui.review.pit_axis import AXIS_PX, HourAxis
from ui.review.pit_view import PitCharts


def figures(start: dt.datetime, hours: int) -> list[HourFigure]:
    return [HourFigure(key, start + dt.timedelta(hours=h), 30 + h, Decimal(1000 + 10 * h), Decimal(h - 5))
            for key in ("BJ-07", "BJ-08") for h in range(hours)]


def labels(axis: HourAxis) -> list[tuple[Any, str]]:
    """The axis's labels as it would draw them: (rectangle, text)."""
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        painter.setFont(axis.style["tickFont"])
        _axis, _ticks, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(rect, text) for rect, _flags, text in texts]


@pytest.mark.parametrize(("size", "hours", "most_apart"), [
    ((1280, 800), 8, 2 * 3600),  # an evening shift, 18:00 to 02:00
    ((1280, 800), 24, 4 * 3600),  # the whole day
    ((1920, 1080), 8, 3600),
])
def test_the_time_axes_are_readable(qtbot: Any, size: tuple[int, int], hours: int, most_apart: int) -> None:
    charts = PitCharts()
    qtbot.addWidget(charts)
    charts.resize(*size)
    charts.show()
    start = dt.datetime(2026, 11, 27, 18, tzinfo=dt.UTC).astimezone().replace(minute=0).astimezone(dt.UTC)
    play = [("bob", "BJ-07", start + dt.timedelta(hours=h), 12, Decimal(600), Decimal(-40)) for h in range(hours)]
    charts.show_figures(figures(start, hours), figures(start, hours), play)
    qtbot.wait(50)
    for plot in (charts.hold, charts.dealers, charts.play):
        axis = plot.getAxis("bottom")
        assert isinstance(axis, HourAxis)
        assert axis.style["tickFont"].pixelSize() >= AXIS_PX
        drawn = labels(axis)
        texts = [text for _, text in drawn]
        assert all(re.fullmatch(r"[0-2]\d:[0-5]\d", t) for t in texts), texts
        # on the clock's marks: whole hours over a shift (the figures are hourly)
        assert all(t.endswith(":00") for t in texts), texts
        # apart: each label ends before the next begins (left to right)
        rects = sorted((r for r, _ in drawn), key=lambda r: r.left())
        for left, right in zip(rects, rects[1:], strict=False):
            assert left.right() < right.left(), (texts, left.getRect(), right.getRect())
        # enough to read: over the data's span, a label at least every ``most_apart`` seconds
        low, high = plot.getViewBox().viewRange()[0]
        ticks = [v for v in axis.tickValues(low, high, axis.geometry().width())[0][1]]
        assert len(texts) == len(ticks) >= (hours - 1) * 3600 // most_apart, (texts, ticks)
        assert all(b - a <= most_apart for a, b in zip(ticks, ticks[1:], strict=False))
    charts.close()


def test_the_step_is_the_shortest_that_stands_apart(qtbot: Any) -> None:
    axis = HourAxis()
    need = axis.label_px + 24
    # 8 hours over 1200 px: 150 px an hour; a label needs ``need`` px: the shortest step that gives it
    step = axis.step_for(8 * 3600, 1200)
    assert step * 1200 / (8 * 3600) >= need
    shorter = [s for s in (3600, 7200) if s < step]  # over a shift: never under an hour (hourly figures)
    assert all(s * 1200 / (8 * 3600) < need for s in shorter) and step >= 3600
    assert axis.step_for(2 * 3600, 1200) < 3600  # two hours wide: quarter or half hours
    # local midnight and the hours: labels fall on the clock (a 2-hour step over 07:13–15:40)
    day = dt.datetime(2026, 11, 27, 7, 13).astimezone()
    values = axis.tickValues(day.timestamp(), (day + dt.timedelta(hours=8, minutes=27)).timestamp(), 300)[0][1]
    strings = axis.tickStrings(values, 1, 0)
    assert strings and all(s.endswith(":00") for s in strings)


@pytest.mark.parametrize("size", [(1250, 560), (1336, 530), (1890, 780)])  # the Charts tab at 1280x800, 1366x768, 1920x1080
def test_every_legend_is_beside_its_data_and_whole(qtbot: Any, size: tuple[int, int]) -> None:
    # A pit of ten tables and nine dealers over a shift, and a player at three tables: each
    # chart's legend lies beside its data (no line runs under it: issue 35's "10 overlapping
    # lines under the legend"), inside the chart (every name in view, in as many columns as
    # its height needs) and the time axis stays in view under the data.
    charts = PitCharts()
    qtbot.addWidget(charts)
    charts.resize(*size)
    charts.show()
    start = dt.datetime(2026, 11, 27, 18, tzinfo=dt.UTC)
    tables = [HourFigure(f"BJ-{n:02d}", start + dt.timedelta(hours=h), 30, Decimal(1000 + n), Decimal(n - 5))
              for n in range(1, 11) for h in range(8)]
    dealers = [HourFigure(f"dealer-{n}", start + dt.timedelta(hours=h), 30, Decimal(1000), Decimal(5))
               for n in range(1, 10) for h in range(8)]
    play = [("bob", f"BJ-0{t}", start + dt.timedelta(hours=h), 12, Decimal(600), Decimal(-40))
            for t in (1, 2, 3) for h in range(8)]
    charts.show_figures(tables, dealers, play, "bob")
    qtbot.wait(100)
    assert all(charts.play.getAxis(side).style["showValues"] for side in ("left", "bottom"))
    for plot, name, count in ((charts.hold, "net/wagered", 10), (charts.dealers, "dealers", 9), (charts.play, "play", 3)):
        legend = charts.legends[name]
        assert len(legend.items) == count
        box = plot.getPlotItem().getViewBox().sceneBoundingRect()
        drawn = legend.sceneBoundingRect()
        assert not drawn.intersects(box), (name, drawn, box)
        area = plot.sceneRect() if plot.sceneRect().isValid() else plot.scene().sceneRect()
        for _sample, label in legend.items:
            assert area.contains(label.sceneBoundingRect()), (name, label.text, label.sceneBoundingRect(), area)
        axis = plot.getAxis("bottom").sceneBoundingRect()
        assert area.contains(axis) and axis.height() > 0, (name, axis, area)
    assert charts.play.getPlotItem().titleLabel.text.startswith("player's play across tables")
    charts.close()


def test_the_players_chart_says_what_it_needs(qtbot: Any) -> None:
    # No player searched: the chart asks for one; one searched with no rounds that day: it says so.
    charts = PitCharts()
    qtbot.addWidget(charts)
    charts.resize(1336, 530)
    charts.show()
    charts.show_figures([], [], [])
    assert charts.play.getPlotItem().titleLabel.text.endswith("type a player's name above and Refresh")
    assert not any(charts.play.getAxis(side).style["showValues"] for side in ("left", "bottom"))
    charts.show_figures([], [], [], "zed")
    assert charts.play.getPlotItem().titleLabel.text.endswith("no rounds of \u201czed\u201d this day")
    charts.close()
