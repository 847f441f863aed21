"""An on-screen PIN keypad for the log-in and PIN dialogs (issue 16, item 7).

Touch first: every key is at least :data:`KEY_SIZE` px square (the 48 px floor of the
screen's touch targets). The keys never take the keyboard focus, so a PIN typed on a
keyboard still goes into the field that has it, and the keypad types into the PIN field
last focused (a dialog with "PIN" and "PIN again" fills whichever the dealer touched).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLineEdit, QPushButton, QWidget

#: Smallest side of a key, px (touch targets are at least 48 px, issue 16 item 7).
KEY_SIZE = 64

#: Key layout: a phone keypad, with erase-one and clear on the bottom row.
KEYS: tuple[tuple[str, ...], ...] = (
    ("1", "2", "3"),
    ("4", "5", "6"),
    ("7", "8", "9"),
    ("clear", "0", "erase"),
)
LABELS = {"clear": "Clear", "erase": "\u232b"}


#: The width PIN dialogs are laid out at (their wrapped text is measured at it).
DIALOG_WIDTH = 480


def fit_dialog(dialog: QWidget) -> None:
    """Give ``dialog`` the height its wrapped text and keypad need at :data:`DIALOG_WIDTH`.

    Qt does not apply a layout's height-for-width to a top-level window by itself: without
    this, a wrapped question makes the dialog too short and the keys overlap its buttons.
    """
    dialog.ensurePolished()
    layout = dialog.layout()
    dialog.setMinimumWidth(DIALOG_WIDTH)
    if layout is not None:
        layout.activate()
        dialog.setMinimumHeight(layout.totalHeightForWidth(DIALOG_WIDTH))


class PinKeypad(QWidget):
    """Digit keys that type into one of ``fields`` (the one most recently focused)."""

    def __init__(self, fields: list[QLineEdit], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        if not fields:
            raise ValueError("a keypad types into at least one field")
        self.fields = list(fields)
        self.target = self.fields[0]
        for f in self.fields:
            f.installEventFilter(self)
        grid = QGridLayout(self)
        grid.setSpacing(8)
        self.keys: dict[str, QPushButton] = {}
        for row, keys in enumerate(KEYS):
            for col, key in enumerate(keys):
                button = QPushButton(LABELS.get(key, key))
                button.setObjectName(f"key_{key}")
                button.setMinimumSize(KEY_SIZE, KEY_SIZE)
                button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the field keeps the keyboard
                button.setAutoRepeat(key == "erase")
                button.setStyleSheet("font-size: 24px; font-weight: bold;")
                button.clicked.connect(lambda _=False, k=key: self.press(k))
                grid.addWidget(button, row, col)
                self.keys[key] = button
        # A word-wrapped label above can make a dialog hand the keypad less than its keys
        # need: hold the grid's own minimum, with the keys' style (padding) applied.
        self.ensurePolished()
        for button in self.keys.values():
            button.ensurePolished()
        self.setMinimumSize(grid.minimumSize())

    def showEvent(self, event: object) -> None:  # noqa: N802 (Qt's name)
        """A PIN dialog acts on its fields' Enter (submit): no button of it is pressed by Enter
        (the Cancel of the log-in closed the program, issue 24 item 4)."""
        from PySide6.QtWidgets import QDialog

        from ui.common.dialog_keys import enter_submits

        window = self.window()
        if isinstance(window, QDialog):
            enter_submits(window, None)
        super().showEvent(event)  # type: ignore[arg-type]

    def eventFilter(self, watched: object, event: object) -> bool:  # noqa: N802 (Qt's name)
        from PySide6.QtCore import QEvent

        if isinstance(event, QEvent) and event.type() == QEvent.Type.FocusIn and watched in self.fields:
            assert isinstance(watched, QLineEdit)
            self.target = watched
        return False

    def press(self, key: str) -> None:
        """What touching ``key`` does to the target field."""
        field = self.target
        if key == "clear":
            field.clear()
        elif key == "erase":
            field.backspace()
        elif key.isdigit() and (field.maxLength() <= 0 or len(field.text()) < field.maxLength()):
            field.insert(key)
