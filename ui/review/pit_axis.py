"""The pit's charts' time axis (issue 34 item 7: "the pit's hour axis unreadable"): local
``HH:MM`` labels in 16 px type, one every 15 or 30 minutes (a span of three hours or less) or 1, 2, 3,
4, 6, 12 or 24 hours — the shortest step whose labels stand apart at the chart's width — on
the clock's own marks
(a 2-hour step labels 08:00, 10:00 ..., never 07:13)."""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetrics

__all__ = ["AXIS_PX", "STEPS", "HourAxis", "axis_font"]

AXIS_PX = 16  # the axes' type, as the review's smallest text
STEPS = tuple(m * 60 for m in (15, 30, 60, 120, 180, 240, 360, 720, 1440))  # seconds
GAP_PX = 24  # the least room between two labels


def axis_font() -> QFont:
    font = QFont()
    font.setPixelSize(AXIS_PX)
    return font


def _offset(moment: float) -> float:
    """The local clock's offset from UTC at ``moment`` (a timestamp), in seconds."""
    local = _dt.datetime.fromtimestamp(moment, _dt.UTC).astimezone()
    offset = local.utcoffset()
    return offset.total_seconds() if offset is not None else 0.0


class HourAxis(pg.AxisItem):  # type: ignore[misc]
    """A bottom axis over UTC timestamps, labelled in local ``HH:MM``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(orientation="bottom", **kwargs)
        self.setTickFont(axis_font())
        self.setStyle(tickTextOffset=6, autoExpandTextSpace=True)
        self.label_px = QFontMetrics(axis_font()).horizontalAdvance("00:00")
        # a mark at either end keeps its label, half of it past the axis's ends (the charts keep
        # that room beside them: PitCharts); pyqtgraph drops a label outside the bounds below
        self.spill = self.label_px // 2 + 2

    def boundingRect(self) -> Any:  # noqa: N802 (Qt name)
        return super().boundingRect().adjusted(-self.spill, 0, self.spill, 0)

    def step_for(self, span: float, size: float) -> int:
        """The shortest step (seconds) whose labels are at least a label and a gap apart (an
        hour at least over more than three hours: the figures are per hour)."""
        if span <= 0 or size <= 0:
            return STEPS[-1]
        per_second = size / span
        least = 3600 if span > 3 * 3600 else 0  # the figures are hourly: no half hours over a shift
        return next((s for s in STEPS if s >= least and s * per_second >= self.label_px + GAP_PX), STEPS[-1])

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, list[float]]]:  # noqa: N802, N803
        if not (math.isfinite(minVal) and math.isfinite(maxVal)) or maxVal <= minVal:
            return []
        step = self.step_for(maxVal - minVal, size)
        offset = _offset(minVal)  # on the local clock's marks (a day step: local midnight)
        first = math.ceil((minVal + offset) / step) * step - offset
        count = int((maxVal - first) // step) + 1
        return [(float(step), [first + i * step for i in range(max(0, count))])]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        return [_dt.datetime.fromtimestamp(v, _dt.UTC).astimezone().strftime("%H:%M") for v in values]
