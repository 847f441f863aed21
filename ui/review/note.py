"""A supervisor's note on a round, in the audit log: the note dialog (name, PIN, text). The
dialog writes nothing itself: it hands them to the service of the store under review (op
``add_note``: ``ui.review.from_service.note_through_service``), which checks the PIN (its
throttle and lock-out) and writes the note; the station's review and ``review --db FILE``
(its review service) alike."""

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

from ui.common.login import message_line
from ui.common.screen_fit import ScreenDialog


class NoteRefused(Exception):
    """A note the service did not take (its words: a PIN refused, the store's error)."""


#: ``record(round_id, supervisor, pin, text) -> note id`` (NoteRefused when not taken)
NoteWriter = Callable[[int, str, str, str], int]


class NoteDialog(ScreenDialog):
    """A supervisor's note on a round: name, PIN (checked by the service), text -> audit log.

    Sized and placed within the screen when shown (ui.common.screen_fit); as wide as its
    refusal line needs from the start (it grew by a third when a PIN was refused), the
    note in 18 px type, the refusal line hidden while it has nothing to say (issue 34)."""

    def __init__(self, db_path: Path, round_id: int, supervisor: str | None, parent: QWidget | None = None,
                 record: NoteWriter | None = None) -> None:
        super().__init__(parent)
        self.db_path = db_path
        self.round_id = round_id
        # ``record(round_id, supervisor, pin, text) -> note id``, NoteRefused when not taken: the
        # service's (op add_note); None: a window with no service behind it takes no note
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
        if self.record is None:
            self._say("Not recorded: notes are written by the store's service; open the review with "
                      "dealer-assist review (a supervisor's PIN) to add one.")
            return False
        try:
            self.note_id = self.record(self.round_id, name, pin, text)
        except NoteRefused as exc:
            self._say(str(exc))
            return False
        self.accept()
        return True

    def _say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))
