"""The round's replay in the review window at the table screens' sizes (issue 34: at 1280×800 and
1366×768 the rounds list, the filters and the round's headings left the replay 190–240 px).

A real store (tests/ui_review/conftest.py: a settled round of each of the five games), the real
window offscreen at the screen's size, each round chosen as a tap on its row does: the replay's
pane has at least half the window's height, and every button shown lies wholly inside the
screen, unclipped (not under another panel's edge), at least 48 px high.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QApplication

from tests.ui_review.conftest import Recorded
from ui.review.app import ReviewWindow

# the five games' settled rounds in the recorded store (tests/ui_review/rounds.py, the examples)
ROUNDS = ("lucky8_example", "ace_race", "star_elements", "dueling8s_example", "electronic_example")
REPLAY_SHARE = 0.5  # the replay's pane: at least half the window's height (the "about half")
TOUCH_PX = 48


def _settle(qtbot: Any) -> None:
    QApplication.sendPostedEvents()
    qtbot.wait(30)


def _button_problems(win: ReviewWindow, screen: QRect) -> list[str]:
    out: list[str] = []
    for button in win.findChildren(QAbstractButton):
        if not button.isVisible() or button.window() is not win:
            continue
        parent = button.parentWidget()
        while parent is not None and parent is not win and not isinstance(parent, QAbstractItemView):
            parent = parent.parentWidget()
        if isinstance(parent, QAbstractItemView):
            continue  # a list's own parts (its corner button)
        placed = QRect(button.mapToGlobal(QPoint(0, 0)), button.size())
        name = f"{type(button).__name__} {button.text()!r}"
        if not screen.contains(placed):
            out.append(f"{name} at {placed.getRect()} outside the screen {screen.getRect()}")
        shown = button.visibleRegion().boundingRect()
        if shown != button.rect():
            out.append(f"{name} shows only {shown.getRect()} of {button.rect().getRect()}")
        if button.height() < TOUCH_PX:
            out.append(f"{name} is {button.height()} px high")
    return out


@pytest.mark.parametrize("size", [(1280, 800), (1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_replay_has_half_the_window(recorded: Recorded, qtbot: Any, size: tuple[int, int]) -> None:
    width, height = size
    screen = QRect(0, 0, width, height)  # the window covers the screen, as fill_screen places it
    win = ReviewWindow(recorded.path)
    qtbot.addWidget(win)
    win.setGeometry(screen)
    win.show()
    _settle(qtbot)
    assert _button_problems(win, screen) == []  # the list before a round is chosen
    for name in ROUNDS:
        assert win.select_round(recorded.ids[name])  # as a tap on the round's row
        _settle(qtbot)
        detail = win.detail
        assert detail.round_id == recorded.ids[name]
        assert detail.detail is not None and detail.detail.summary.status == "settled"
        pane = detail.replay_pane
        assert pane.isVisible()
        share = pane.height() / win.height()
        assert share >= REPLAY_SHARE, f"{name} at {width}x{height}: the replay has {pane.height()} px " \
                                      f"of {win.height()} ({share:.0%})"
        # the layout's width shown whole: the pane scrolls at most downwards (its areas' rows)
        assert pane.viewport().width() >= detail.layout_view.width(), name
        assert _button_problems(win, screen) == [], name
