"""An on-screen amount keypad (touch): digits, point, back, clear; OK and Cancel (wagers, doubles, insurance)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ui.common.dialog_keys import enter_submits
from ui.common.screen_fit import ScreenDialog
from ui.common.style import px


class AmountKeypad(ScreenDialog):
    """Ask for an amount by touch. ``amount()`` after ``accept``: the Decimal, or None if empty."""

    def __init__(self, question: str, parent: QWidget | None = None, start: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("Amount")
        layout = QVBoxLayout(self)
        ask = QLabel(question)
        ask.setWordWrap(True)
        ask.setProperty("role", "title")
        layout.addWidget(ask)
        self.display = QLabel(start or "0")
        self.display.setStyleSheet(f"font-size: {px(34)}px; font-weight: bold; background: white; padding: 4px;")
        layout.addWidget(self.display)
        self.text = start
        grid = QGridLayout()
        keys = ["7", "8", "9", "4", "5", "6", "1", "2", "3", ".", "0", "\u232b"]
        self.keys: dict[str, QPushButton] = {}
        for i, key in enumerate(keys):
            b = QPushButton(key)
            b.setMinimumSize(px(72), px(60))
            b.clicked.connect(lambda _=False, k=key: self.press(k))
            grid.addWidget(b, i // 3, i % 3)
            self.keys[key] = b
        layout.addLayout(grid)
        row = QGridLayout()
        clear = QPushButton("Clear")
        clear.clicked.connect(lambda: self.press("clear"))
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        self.ok = QPushButton("OK")
        self.ok.setProperty("role", "confirm")
        self.ok.clicked.connect(self.accept)
        row.addWidget(clear, 0, 0)
        row.addWidget(cancel, 0, 1)
        row.addWidget(self.ok, 0, 2)
        enter_submits(self, self.ok)  # Enter: OK with the amount typed (issue 24 item 4)
        layout.addLayout(row)

    def press(self, key: str) -> None:
        if key == "clear":
            self.text = ""
        elif key == "\u232b":
            self.text = self.text[:-1]
        elif key == "." and "." in self.text:
            return
        else:
            self.text += key
        self.display.setText(self.text or "0")

    def amount(self) -> Decimal | None:
        try:
            value = Decimal(self.text) if self.text else None
        except InvalidOperation:
            return None
        return value if value is None or value > 0 else None
