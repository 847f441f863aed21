"""The review's *Station events* tab: the significant events of GLI-24 from the store's audit
log, newest first, with the round each belongs to (blank between rounds): the shoe connected
and lost, shoe faults, power failures and recoveries, voids, the shift manager's decisions,
referrals, refused approvals, configuration and table-setup changes, log-ins and the
supervisors' account changes. A round's own entries are also in its *Who did what* tab."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from dealer_assist.store import AuditEntry, Store
from ui.review.export import audit_text
from ui.review.model import short_time

#: The audit kinds shown (round_finish and notes are per round: see the round's tabs).
STATION_KINDS = (
    "shoe_connected", "shoe_lost", "shoe_fault", "power_failure", "recovered", "void",
    "supervisor_decision", "referral", "approval_refused", "station_setup", "station_config",
    "table_setup", "review", "login", "login_failed", "user_created", "user_disabled",
    "user_enabled",
)
LIMIT = 2000  # newest entries shown


def station_events(store: Store, limit: int = LIMIT) -> list[AuditEntry]:
    """The station's significant events, newest first."""
    entries: list[AuditEntry] = []
    for kind in STATION_KINDS:
        entries += store.audit_entries(kind=kind)
    entries.sort(key=lambda e: e.id, reverse=True)
    return entries[:limit]


class StationEventsView(QWidget):
    COLUMNS = ("time (UTC)", "who", "what", "round", "detail")

    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.loaded = False
        layout = QVBoxLayout(self)
        self.caption = QLabel("")
        layout.addWidget(self.caption)
        self.table = QTableWidget(0, len(self.COLUMNS))
        self.table.setObjectName("station_events")
        self.table.setHorizontalHeaderLabels(list(self.COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        for column, width in enumerate((170, 150, 150, 70)):
            self.table.setColumnWidth(column, width)
        layout.addWidget(self.table, 1)

    def refresh(self) -> None:
        entries = station_events(self.store)
        self.table.setRowCount(len(entries))
        for row, entry in enumerate(entries):
            cells = (short_time(entry.at), entry.actor, entry.kind,
                     "" if entry.round_id is None else str(entry.round_id), audit_text(entry))
            for column, text in enumerate(cells):
                self.table.setItem(row, column, QTableWidgetItem(text))
        self.caption.setText(f"{len(entries)} station events, newest first"
                             + (f" (the latest {LIMIT})" if len(entries) == LIMIT else ""))
        self.loaded = True
