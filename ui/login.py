"""Log in as dealer; the supervisor's PIN for supervisor actions (void, resolve).

PINs are checked by the store (salted scrypt) on the store's worker thread; the
dialogs never block the GUI thread and never keep a PIN after the check.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class PinDialog(QDialog):
    """Ask for a name and PIN; ``check(name, pin, done)`` answers through ``done(ok)``."""

    def __init__(self, title: str, why: str, check: Callable[[str, str, Callable[[bool], None]], None],
                 on_ok: Callable[[str], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self._check = check
        self._on_ok = on_ok
        layout = QVBoxLayout(self)
        reason = QLabel(why)
        reason.setWordWrap(True)
        reason.setStyleSheet("font-size: 20px; font-weight: bold;")
        layout.addWidget(reason)
        form = QFormLayout()
        self.name = QLineEdit()
        self.pin = QLineEdit()
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        form.addRow("Name", self.name)
        form.addRow("PIN", self.pin)
        layout.addLayout(form)
        self.message = QLabel("")
        self.message.setProperty("role", "refusal")
        layout.addWidget(self.message)
        self.ok_button = QPushButton("OK")
        self.ok_button.setProperty("role", "confirm")
        self.ok_button.clicked.connect(self.submit)
        self.pin.returnPressed.connect(self.submit)
        layout.addWidget(self.ok_button)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        layout.addWidget(cancel)

    def submit(self) -> None:
        name, pin = self.name.text().strip(), self.pin.text()
        self.pin.clear()
        self.ok_button.setEnabled(False)
        self.message.setText("checking\u2026")

        def done(ok: bool) -> None:
            self.ok_button.setEnabled(True)
            if ok:
                self.message.setText("")
                self.accept()
                self._on_ok(name)
            else:
                self.message.setText("Wrong name or PIN, or not allowed")

        self._check(name, pin, done)
