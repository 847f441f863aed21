"""A supervisor's note on a round, in the audit log: the note dialog (name, PIN, text). On a
store file the dialog checks the PIN and writes the note itself; on the review of a
station's copy it hands them to the station service (op ``add_note``:
ui/review/from_service.py), which checks the PIN and writes to the station's store."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from dealer_assist.store import Store, StoreError
from ui.common.login import message_line
from ui.common.screen_fit import ScreenDialog


class NoteRefused(Exception):
    """A note the station service did not take (its words: a PIN refused, the store's error)."""


class NoteDialog(ScreenDialog):
    """A supervisor's note on a round: name, PIN (checked by the store), text -> audit log.

    Sized and placed within the screen when shown (ui.common.screen_fit); as wide as its
    refusal line needs from the start (it grew by a third when a PIN was refused), the
    note in 18 px type, the refusal line hidden while it has nothing to say (issue 34)."""

    def __init__(self, db_path: Path, round_id: int, supervisor: str | None, parent: QWidget | None = None,
                 record: Callable[[int, str, str, str], int] | None = None) -> None:
        super().__init__(parent)
        self.db_path = db_path
        self.round_id = round_id
        # ``record(round_id, supervisor, pin, text) -> note id``, NoteRefused when not taken:
        # the station service's (op add_note) for the review of its copy; None: this store file
        self.record = record
        self.note_id: int | None = None
        self.setWindowTitle(f"Note on round {round_id}")
        self.setMinimumWidth(560)
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.name = QLineEdit(supervisor or "")
        self.pin = QLineEdit()
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.text = QPlainTextEdit()
        self.text.setStyleSheet("font-size: 18px;")
        self.text.setMinimumHeight(96)  # three lines of the note
        form.addRow("Supervisor", self.name)
        form.addRow("PIN", self.pin)
        form.addRow("Note", self.text)
        layout.addLayout(form)
        from ui.common.keypad import PinKeypad

        self.keypad = PinKeypad([self.pin])  # on a touch screen too (issue 16 item 7)
        layout.addWidget(self.keypad)
        self.message = message_line()
        layout.addWidget(self.message)
        row = QHBoxLayout()
        self.ok_button = QPushButton("Add note to the audit log")
        self.ok_button.clicked.connect(self.submit)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        row.addWidget(self.ok_button)
        row.addWidget(cancel)
        layout.addLayout(row)

    def submit(self) -> bool:
        name, pin, text = self.name.text().strip(), self.pin.text(), self.text.toPlainText().strip()
        self.pin.clear()
        if not text:
            self._say("Write the note first.")
            return False
        if self.record is not None:
            try:
                self.note_id = self.record(self.round_id, name, pin, text)
            except NoteRefused as exc:
                self._say(str(exc))
                return False
            self.accept()
            return True
        try:
            # A short write through the store's own writer (it waits its turn behind the table).
            with Store.open(self.db_path) as store:
                check = store.check_pin(name, pin, role="supervisor", purpose="approval")
                if not check.ok:
                    # wrong, locked (the lockout), or a PIN to change first (at a log-in)
                    self._say("Name or PIN not accepted for a supervisor."
                              + (f" Locked until {check.locked_until} UTC." if check.locked_until else "")
                              + (f" {check.message}." if check.reason == "must_change" else ""))
                    return False
                self.note_id = store.add_note(self.round_id, author=f"supervisor:{name}", text=text)
        except StoreError as exc:
            self._say(f"Not recorded: {exc}")
            return False
        self.accept()
        return True

    def _say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))
