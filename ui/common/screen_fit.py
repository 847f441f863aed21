"""A window that covers its screen and keeps that size whatever it shows (issue 24 item 1).

The dealer's screen, the review and the pit view take the screen's available geometry
(full screen at a station, maximised in development) and never grow for their content:
the window's layout does not set the window's minimum size, so a long settlement or a
ruling scrolls or condenses inside its panel instead of pushing the window past the screen.
"""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtGui import QGuiApplication, QScreen, QShowEvent
from PySide6.QtWidgets import QDialog, QHeaderView, QLayout, QWidget

from ui.common.style import TOUCH

_HOLDER: list[QWidget] = []  # one hidden widget for the process: the screens' keeper (screen_of)


def screen_of(widget: QWidget) -> QScreen:
    """The screen ``widget`` is on (the primary one if none).

    PySide6 makes the QScreen that ``QWidget.screen()`` returns a child of that widget in its
    own bookkeeping (its return-value heuristic), and when the widget is collected with the
    screen's wrapper still its child, the screen itself is deleted: the next window crashes
    in QScreen (a review's PIN dialog cancelled after an earlier review, in one process). The
    screen is asked once more of a hidden widget that lives as long as the process, which
    makes that widget its keeper."""
    screen = widget.screen() or QGuiApplication.primaryScreen()
    if not _HOLDER:
        _HOLDER.append(QWidget())
    _HOLDER[0].setScreen(screen)
    return _HOLDER[0].screen()


def available_geometry(window: QWidget) -> QRect:
    """The available area (without panels and docks) of the screen the window is on."""
    return screen_of(window).availableGeometry()


def keep_size(window: QWidget) -> None:
    """The window's size is the screen's, never its content's."""
    layout = window.layout()
    if layout is not None:
        layout.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
    window.setMinimumSize(0, 0)


def fill_screen(window: QWidget, *, kiosk: bool = False) -> None:
    """Show ``window`` over the screen's available geometry: full screen (``kiosk``, a
    station) or maximised (development), and keep that size."""
    keep_size(window)
    window.setGeometry(available_geometry(window))
    if kiosk:
        window.showFullScreen()
    else:
        window.showMaximized()


def fit_to_screen(window: QWidget) -> None:
    """A dialog never larger than the screen's available geometry and wholly on it (issue 34):
    at most the available size (less its frame), at its size hint within that, over its parent
    when it has one, moved inside the available area."""
    area = available_geometry(window)
    frame, inner = window.frameGeometry(), window.geometry()
    left, top = inner.x() - frame.x(), inner.y() - frame.y()
    extra_w, extra_h = max(0, frame.width() - inner.width()), max(0, frame.height() - inner.height())
    # never below what its layout needs (a screen smaller than the table's, e.g. a test's
    # 800×600: the dialog stays whole, and the layout walk reports it at the table's sizes)
    least = window.minimumSizeHint().expandedTo(window.minimumSize())
    most_w = max(area.width() - extra_w, least.width())
    most_h = max(area.height() - extra_h, least.height())
    window.setMaximumSize(most_w, most_h)
    hint = window.sizeHint().expandedTo(window.minimumSize())
    width = min(most_w, max(window.width(), hint.width()))
    height = min(most_h, max(window.height(), hint.height()))
    parent = window.parentWidget()
    centre = parent.window().frameGeometry().center() if parent is not None else area.center()
    x = max(area.left(), min(centre.x() - (width + extra_w) // 2, area.right() + 1 - width - extra_w))
    y = max(area.top(), min(centre.y() - (height + extra_h) // 2, area.bottom() + 1 - height - extra_h))
    window.setGeometry(x + left, y + top, width, height)


def touch_header(header: QHeaderView) -> None:
    """A list's header that is tapped to sort: its sections a touch target, at least
    :data:`~ui.common.style.TOUCH` px high (issue 34: the review's were 24 px)."""
    header.setMinimumHeight(TOUCH)


class ScreenDialog(QDialog):
    """A dialog sized and placed within the screen each time it is shown (:func:`fit_to_screen`)."""

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        fit_to_screen(self)
