"""The pit window's **Alerts** tab (issue 25, item 4): the floor's alerts, newest first, and a
supervisor's acknowledgement (name and note; the floor records the account and the time).
The conditions are evaluated in dealer_assist.floor.alerts; this only shows and asks."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from dealer_assist.floor.alerts import Alert

__all__ = ["AlertsPanel"]

_KIND_WORDS = {"link_down": "link down", "table_stopped": "forwarding stopped", "win_band": "win outside band",
               "pace": "slow pace"}


class AlertsPanel(QWidget):
    """The alerts list; ``acknowledge(alert_id, supervisor, note)`` is the window's to run."""

    HEADERS = ["#", "raised", "table", "alert", "detail", "acknowledged"]

    def __init__(self, acknowledge: Callable[[int, str, str], None]) -> None:
        super().__init__()
        self._acknowledge = acknowledge
        layout = QVBoxLayout(self)
        self.list = QTableWidget()
        self.list.setColumnCount(len(self.HEADERS))
        self.list.setHorizontalHeaderLabels(self.HEADERS)
        self.list.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.list.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.list.verticalHeader().setVisible(False)
        layout.addWidget(self.list)
        form = QHBoxLayout()
        self.supervisor = QLineEdit()
        self.supervisor.setPlaceholderText("supervisor")
        self.note = QLineEdit()
        self.note.setPlaceholderText("what was found and done")
        self.ack_button = QPushButton("Acknowledge")
        self.ack_button.clicked.connect(self.submit)
        for widget in (QLabel("Supervisor"), self.supervisor, QLabel("Note"), self.note, self.ack_button):
            form.addWidget(widget)
        layout.addLayout(form)
        self.message = QLabel("")
        layout.addWidget(self.message)
        self.shown: list[Alert] = []

    def show_alerts(self, rows: list[Alert]) -> None:
        self.shown = rows
        self.list.setRowCount(len(rows))
        for r, a in enumerate(rows):
            acked = "" if a.acked_at is None else (
                f"{a.acked_by} ({a.ack_account}) {a.acked_at.astimezone():%H:%M}: {a.ack_note}")
            cells = [str(a.alert_id), f"{a.raised_at.astimezone():%Y-%m-%d %H:%M}", a.table,
                     _KIND_WORDS.get(a.kind, a.kind) + (f": {a.subject}" if a.subject else ""), a.detail, acked]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if a.acked_at is None:
                    item.setForeground(QColor("#b00020"))
                self.list.setItem(r, c, item)
        self.list.resizeColumnsToContents()

    def submit(self) -> None:
        row = self.list.currentRow()
        if row < 0 or row >= len(self.shown):
            self.message.setText("choose the alert to acknowledge")
            return
        supervisor, note = self.supervisor.text().strip(), self.note.text().strip()
        if not supervisor or not note:
            self.message.setText("an acknowledgement needs the supervisor's name and a note")
            return
        self._acknowledge(self.shown[row].alert_id, supervisor, note)
