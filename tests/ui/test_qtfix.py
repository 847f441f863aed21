"""The PySide6 6.12 emit reference bug (ui/qtfix.py) must not take the process down."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal

from ui.qtfix import emit


class _Source(QObject):
    changed = Signal(object)


def test_many_emits_keep_the_reference_count_of_true(qapp: object) -> None:
    # The dealer's screen emits a signal for every event; a long session emits hundreds of
    # thousands. Unpatched, 6.12's emit takes one reference from True each time: 5,000 emits
    # would drive it below zero and abort CPython. Through ui.qtfix.emit it stays put.
    source = _Source()
    received: list[int] = []
    source.changed.connect(received.append)
    before = sys.getrefcount(True)
    for i in range(5000):
        emit(source.changed, i)
    assert received == list(range(5000))
    assert sys.getrefcount(True) >= before
