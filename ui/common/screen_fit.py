"""A window that covers its screen and keeps that size whatever it shows (issue 24 item 1).

The dealer's screen, the review and the pit view take the screen's available geometry
(full screen at a station, maximised in development) and never grow for their content:
the window's layout does not set the window's minimum size, so a long settlement or a
ruling scrolls or condenses inside its panel instead of pushing the window past the screen.
"""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLayout, QWidget


def available_geometry(window: QWidget) -> QRect:
    """The available area (without panels and docks) of the screen the window is on."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


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
