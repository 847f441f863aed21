"""The review's replay of a round on the whole screen (issue 16).

The round's pane in the review window is too small for a big round (seven areas of three
players, four split hands): there the layout scrolls. *Full screen (F11)* on the Replay
tab opens this window over the whole screen: the same layout widget as the dealer's screen
(``ui.common.table_view.TableView``), sized and scaled the way the dealer's window is
(``ui.common.style.set_scale``), so it fits without scrolling, with the step controls and the
step's description above it. It follows the pane's slider both ways: a step here moves
the pane's replay too. Keys: ← / → a step, Home / End, Esc closes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QKeySequence, QResizeEvent, QScreen, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from ui.common.screen_fit import fill_screen
from ui.common.style import app_style, base_font_px, px, scale, scale_for, set_scale
from ui.common.table_view import TableView

# the pane's layout at least as large as the full-screen replay's on the smallest table
# screen (1280×800 less its step controls): the dealer's layout is readable there (tests/ui/
# test_fits.py); narrower, seven areas of three players cut their figures and cover their tiles
REPLAY_LEAST_W = 1240
REPLAY_LEAST_H = 720
REPLAY_ASPECT = 0.6  # its height for a wider width (about a table screen's)


class ReplayPane(QScrollArea):
    """The round's layout in the review's pane and the pit's round: as wide as the pane and at least
    :data:`REPLAY_LEAST_W`, as high as that width needs (at least :data:`REPLAY_LEAST_H`),
    scrolling where the pane is smaller (*Full screen* shows it whole). Its boxes are built
    for that size (issue 34: built for one size and shown at another, the second row of
    areas lay over the first); a new width builds them again."""

    def __init__(self, view: TableView, redraw: Callable[[], None]) -> None:
        super().__init__()
        self.view = view
        self.redraw = redraw
        self.setWidgetResizable(False)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)  # its width stays put
        self.setWidget(view)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        self.fit()

    def fit(self) -> None:
        """The layout's size for the pane's width, built again when it changed."""
        # at the type's scale: the review opened from the dealer's screen at 1920×1080 has its
        # larger type (ui.common.style.set_scale), and its layout needs that much more room
        width = max(int(REPLAY_LEAST_W * scale()), self.viewport().width())
        height = max(int(REPLAY_LEAST_H * scale()), int(width * REPLAY_ASPECT))
        if (self.view.width(), self.view.height()) != (width, height):
            self.view.setFixedSize(width, height)
            self.view.reset()
            self.redraw()


class RoundDetailView(Protocol):
    """What the replay window follows: the review pane's round (ui.review.detail)."""

    title: QLabel
    slider: QSlider
    step_label: QLabel
    layout_view: TableView

    @property
    def steps(self) -> Sequence[Any]: ...

    def show_step(self, index: int) -> None: ...

    def screen(self) -> QScreen: ...


class ReplayWindow(QWidget):
    """The replay of the detail view's round, on a window of its own (the whole screen)."""

    def __init__(self, detail: RoundDetailView) -> None:
        super().__init__(None, Qt.WindowType.Window)
        self.detail = detail
        self._scale_before = scale()
        self.setWindowTitle(f"Replay \u2014 {detail.title.text()}")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(px(6), px(4), px(6), px(4))
        outer.setSpacing(px(4))
        controls = QHBoxLayout()
        slider = detail.slider
        self.buttons: dict[str, QPushButton] = {}
        for key, text, action, keys in (
            ("first", "|\u25c0 First", lambda: slider.setValue(0), "Home"),
            ("back", "\u25c0 Step back", lambda: slider.setValue(slider.value() - 1), "Left"),
            ("next", "Step \u25b6", lambda: slider.setValue(slider.value() + 1), "Right"),
            ("last", "Last \u25b6|", lambda: slider.setValue(slider.maximum()), "End"),
            ("close", "Close (Esc)", self.close, "Escape"),
        ):
            b = QPushButton(text)
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            b.clicked.connect(action)
            QShortcut(QKeySequence(keys), self, action)
            controls.addWidget(b)
            self.buttons[key] = b
        self.step_label = QLabel("")
        self.step_label.setWordWrap(True)
        self.step_label.setObjectName("step")
        controls.insertWidget(4, self.step_label, 1)
        outer.addLayout(controls)
        self.view = TableView()
        outer.addWidget(self.view, 1)
        slider.valueChanged.connect(self.show_step)
        self._apply_style()

    def _apply_style(self) -> None:
        """The dealer's screen's look (the felt, the areas' frames, the type) at this scale."""
        font = QFont(self.font())
        font.setPixelSize(base_font_px())
        self.setFont(font)
        self.setStyleSheet(app_style() + f"QLabel#step {{ font-size: {px(17)}px; }}")

    def open_on_screen(self) -> None:
        """Cover the screen the review window is on (its available area)."""
        screen = self.detail.screen()
        if screen is not None:
            self.setScreen(screen)
        fill_screen(self)  # maximised: its frame too inside the screen (issue 34)
        self.raise_()
        self.activateWindow()  # its keys (← → Home End Esc) are the window's shortcuts
        self.show_step(self.detail.slider.value())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt name)
        """A larger screen: larger type and cards, as on the dealer's screen."""
        super().resizeEvent(event)
        set_scale(scale_for(event.size().width(), event.size().height()))
        self._apply_style()
        self.view.reset()
        self.show_step(self.detail.slider.value())

    def show_step(self, position: int) -> None:
        steps = self.detail.steps
        if not steps or not self.isVisible():
            return
        position = max(0, min(position, len(steps) - 1))
        step = steps[position]
        rnd: Any = step.round
        self.view.refresh(rnd, step.output, rnd.expectation())
        self.step_label.setText(self.detail.step_label.text())
        last = len(steps) - 1
        self.buttons["first"].setEnabled(position > 0)
        self.buttons["back"].setEnabled(position > 0)
        self.buttons["next"].setEnabled(position < last)
        self.buttons["last"].setEnabled(position < last)

    def closeEvent(self, event: Any) -> None:  # noqa: N802 (Qt name)
        """Back to the review window's own sizes; its pane draws the layout again."""
        set_scale(self._scale_before)
        self.detail.layout_view.reset()
        self.detail.show_step(self.detail.slider.value())
        super().closeEvent(event)
