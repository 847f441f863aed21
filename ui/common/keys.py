"""Keys as a fast path beside touch: shortcuts that lose no press and never type into a field.

A button's own shortcut (``QAbstractButton.setShortcut``) animates a click for 100 ms and
ignores another press meanwhile: four quick F2 presses added two chips. :func:`bind`
gives a button a :class:`QShortcut` that calls its action on every press instead.

:class:`LetterKeys` lets single-letter shortcuts (H hit, S stand, D double, N no more
bets ...) work while an amount field has the focus: the field takes digits only, the
letter goes to the shortcut, never into the field ("600d").
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QComboBox, QLineEdit, QWidget


def bind(widget: QWidget, key: str, action: Callable[[], object]) -> QShortcut:
    """``key`` calls ``action`` on every press while ``widget`` is visible in the active window."""
    shortcut = QShortcut(QKeySequence(key), widget)
    shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
    shortcut.activated.connect(lambda: action())
    if isinstance(widget, QAbstractButton):
        widget.setToolTip(f"key: {key}")
    return shortcut


def is_letter_shortcut(event: QKeyEvent) -> bool:
    mods = event.modifiers() & ~(Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier)
    return mods == Qt.KeyboardModifier.NoModifier and Qt.Key.Key_A.value <= event.key() <= Qt.Key.Key_Z.value


class LetterKeys(QObject):
    """Installed on a window's number fields (line edits and spin boxes not marked
    ``letters=True``) and lists (combo boxes): there a letter is a shortcut, not text or a
    search. (On those widgets only: an application-wide filter costs every event.)"""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt name)
        if event.type() not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        if not isinstance(obj, (QLineEdit, QAbstractSpinBox, QComboBox)) or obj.window() is not self.window:
            return False
        if isinstance(obj, QComboBox) and obj.isEditable():
            return False
        if obj.property("letters") is True or not isinstance(event, QKeyEvent) or not is_letter_shortcut(event):
            return False
        # ShortcutOverride not accepted: the window's shortcut for the letter runs;
        # a key press that reaches the field anyway is dropped, never typed
        event.ignore()
        return True
