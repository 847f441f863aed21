"""The review's replay of a round on the whole screen (issue 16).

The round's pane in the review window is smaller than the dealer's screen: there the layout
of a big round (seven areas of three players, four split hands) is shown whole, scaled down
(:class:`ReplayPane`). *Full screen (F11)* on the Replay tab opens this window over the whole screen: the same layout widget as the dealer's screen
(``ui.common.table_view.TableView``), sized and scaled the way the dealer's window is
(``ui.common.style.set_scale``), so it fits without scrolling, with the step controls and the
step's description above it. It follows the pane's slider both ways: a step here moves
the pane's replay too. Keys: ← / → a step, Home / End, Esc closes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRect, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import (
    QFont,
    QKeySequence,
    QPainter,
    QResizeEvent,
    QScreen,
    QShortcut,
    QShowEvent,
    QTransform,
)
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from ui.common.screen_fit import fill_screen
from ui.common.style import app_style, base_font_px, px, scale, scale_for, set_scale
from ui.common.table_view import TableView
from ui.common.terminals_panel import replay_terminals, show_terminals

# the layout is built at least this large (at the type's scale): the heaviest rounds' layout
# (seven areas of three players, area 1 split to four hands) is readable there, every card
# uncovered and every pay tag whole (tests/ui_review/test_review_layout.py); lower or narrower,
# their figures are cut and their tiles covered
REPLAY_LEAST_W = 1240
REPLAY_LEAST_H = 640
# a pane smaller than that shows the layout scaled down, never below this (its 17 px figures
# 12 px or more)
REPLAY_LEAST_FACTOR = 0.7


class ReplayPane(QGraphicsView):
    """The round's layout in the review's pane and the pit's round, whole, without scrolling
    (issue 34: the big round's second row of areas was under the pane's edge at 1280×800 and
    1366×768): built for the pane's shape, at least :data:`REPLAY_LEAST_W` ×
    :data:`REPLAY_LEAST_H`, and shown scaled to the pane where the pane is smaller (*Full
    screen* shows it at the dealer's size). Its boxes are built for that size (built for one
    size and shown at another, the second row of areas lay over the first); a new size builds
    them again."""

    def __init__(self, view: TableView, redraw: Callable[[], None]) -> None:
        super().__init__()
        self.view = view
        self.redraw = redraw
        self.factor = 1.0  # the layout's size on the pane: 1 = as built
        self.setScene(QGraphicsScene(self))
        self.proxy = self.scene().addWidget(view)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing
                            | QPainter.RenderHint.SmoothPixmapTransform)
        self.setBackgroundBrush(self.palette().window())
        # the layout's own repaints reach the pane's screen through this (under X11 a box
        # rebuilt or a pay tag placed was not drawn until the pane itself repainted)
        view.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt name)
        if watched is self.view and event.type() in (QEvent.Type.UpdateRequest, QEvent.Type.LayoutRequest):
            self.viewport().update()
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        self.fit()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt name)
        super().showEvent(event)
        self.fit()

    def fit(self) -> None:
        """The layout's size for the pane's, built again when it changed, and its scale."""
        # the window's look and type (an embedded widget takes neither from the pane)
        window = self.window()
        if self.view.styleSheet() != window.styleSheet():
            self.view.setStyleSheet(window.styleSheet())
        if self.view.font() != window.font():
            self.view.setFont(window.font())
        # at the type's scale: the review opened from the dealer's screen at 1920×1080 has its
        # larger type (ui.common.style.set_scale), and its layout needs that much more room
        room = self.viewport().size()
        least_w, least_h = REPLAY_LEAST_W * scale(), REPLAY_LEAST_H * scale()
        factor = max(REPLAY_LEAST_FACTOR, min(1.0, room.width() / least_w, room.height() / least_h))
        # (a pane too small for it even at the least factor scrolls, down to the layout's foot)
        width, height = int(room.width() / factor), max(int(room.height() / factor), int(least_h))
        if (self.view.width(), self.view.height()) != (width, height):
            self.view.setFixedSize(width, height)
            self.view.reset()
            self.redraw()
        if self.proxy.size().toSize() != QSize(width, height):
            # the proxy's own size, not its widget's hints (the boxes of the size before are
            # still in the layout, to be deleted, and would hold it wider)
            self.proxy.setMinimumSize(width, height)
            self.proxy.setMaximumSize(width, height)
            self.proxy.resize(width, height)
        self.scene().setSceneRect(0, 0, width, height)
        if factor != self.factor or self.transform().m11() != factor:
            self.factor = factor
            self.setTransform(QTransform.fromScale(factor, factor))

    def placed(self, widget: QWidget) -> QRect:
        """Where ``widget`` (the layout or a box of it) is seen on the pane's viewport."""
        corner = widget.mapTo(self.view, QPoint(0, 0)) if widget is not self.view else QPoint(0, 0)
        shown = self.viewportTransform().mapRect(QRectF(self.proxy.mapToScene(QPointF(corner)),
                                                        QSizeF(widget.size())))
        return shown.toRect()


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
        self.terminals = replay_terminals(self.view)  # Electronic: each terminal's wagers and hands
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
        show_terminals(self.terminals, rnd, step.output)
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
