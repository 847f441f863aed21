"""PySide6 6.12 on CPython 3.11 drops references to None/True/False (ui/common/qtfix.py): the
dealer's screen must survive a long session anyway."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel

import ui.common.qtfix


class _Source(QObject):
    changed = Signal(object)


def test_a_long_session_of_qt_calls_does_not_drain_none_or_true(qapp: object) -> None:
    # A session makes millions of Qt calls; with the bug each void call takes a reference
    # from None and each emit one from True. 20,000 of each would abort CPython 3.11
    # (the counts start in the thousands); with ui.common.qtfix installed the counts stay far above 0.
    assert ui.common.qtfix.INSTALLED == ui.common.qtfix.binding_drops_references() or sys.version_info >= (3, 12)
    source = _Source()
    received: list[int] = []
    source.changed.connect(received.append)
    label = QLabel()
    for i in range(20000):
        source.changed.emit(i)
        label.setText("x")
    assert len(received) == 20000
    assert sys.getrefcount(None) > 1_000_000 or not ui.common.qtfix.INSTALLED
    assert sys.getrefcount(True) > 1_000_000 or not ui.common.qtfix.INSTALLED
