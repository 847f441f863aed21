"""The pit's Accounting tab at the table screens' sizes (issue 35's PINs made its form nine rows
of 48 px): shown as ``dealer-assist review --db postgresql://...`` shows the pit (the window the
screen's size, never its content's: ui.common.screen_fit.keep_size), every field of the form is a
whole touch target and the shift's figures keep room for a table's, its pit's and the floor's
rows — at 1366x768 the form had squeezed its fields to 41 px and the figures to one row."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QComboBox, QLineEdit

from ui.common.screen_fit import keep_size
from ui.common.style import TOUCH


@pytest.mark.parametrize("size", [(1280, 800), (1366, 768), (1920, 1080)])
def test_the_accounting_form_and_its_figures_fit(qtbot: Any, size: tuple[int, int]) -> None:
    from ui.review.pit_view import PitWindow

    # no floor behind it (a closed port): the layout is the window's own
    window = PitWindow("postgresql://nobody@127.0.0.1:9/none?connect_timeout=1", live_tick=0.5)
    qtbot.addWidget(window)
    keep_size(window)
    window.resize(*size)
    window.show()
    window.tabs.setCurrentWidget(window.accounts)
    qtbot.waitUntil(lambda: window.accounts.isVisible(), timeout=5000)
    qtbot.wait(50)
    assert (window.width(), window.height()) == size
    panel = window.accounts
    fields = [w for kind in (QLineEdit, QComboBox) for w in panel.findChildren(kind)
              if w.isVisibleTo(window) and w.parent() is panel]
    assert len(fields) == 10  # the shift, table, record, chips, cash, markers, two signers, two PINs
    assert all(f.height() >= TOUCH for f in fields), [(f.placeholderText() if isinstance(f, QLineEdit) else "record",
                                                       f.height()) for f in fields if f.height() < TOUCH]
    figures = panel.figures
    rows = figures.verticalHeader().defaultSectionSize()
    assert figures.viewport().height() >= 3 * rows, (figures.viewport().height(), rows)
    # each inside the window, and none over another
    assert all(window.rect().contains(f.mapTo(window, f.rect().bottomRight())) for f in fields)
    places = [f.geometry() for f in fields]
    assert not any(a.intersects(b) for i, a in enumerate(places) for b in places[i + 1:])
    window.close()
