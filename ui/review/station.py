"""The review's *Station events* tab: the store's audit log, newest first, with the round each
entry belongs to (blank between rounds), filtered by kind and by who (issue 34 item 7).

Every kind the store, the station service and the dealer's screen write is offered (one
registry: :mod:`dealer_assist.store.audit_kinds`): by default GLI-24's significant events
(the shoe connected and lost, shoe faults, power failures and recoveries, voids and the other
approvals, referrals, refused PINs, configuration and set-up changes, log-ins, shifts and the
accounts' changes); each group or one kind on request (the routine ones too: every round's
record, each approval's use). A round's own entries are also in its *Who did what* tab."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from dealer_assist.store import AuditEntry, Store
from dealer_assist.store.audit_kinds import (
    AUDIT_KINDS,
    GROUPS,
    kinds_of,
    latest_audit,
    significant_kinds,
)
from ui.review.export import audit_text
from ui.review.model import short_time

LIMIT = 2000  # newest entries shown
SIGNIFICANT = "significant events"
EVERY = "every kind"


def kind_choices() -> list[tuple[str, tuple[str, ...]]]:
    """The kind filter's entries: (label, the kinds it lists), in the combo box's order."""
    choices = [(f"{SIGNIFICANT} (all but routine)", significant_kinds()),
               (EVERY, tuple(AUDIT_KINDS))]
    for group in GROUPS:
        choices.append((f"{group} (all)", kinds_of(group)))
        choices += [(f"    {name}: {AUDIT_KINDS[name].words}", (name,)) for name in kinds_of(group)]
    return choices


def station_events(store: Store, kinds: tuple[str, ...] | None = None, who: str | None = None,
                   limit: int = LIMIT) -> list[AuditEntry]:
    """The station's events of ``kinds`` (default: the significant ones), newest first;
    ``who``: only entries whose actor contains it (any case)."""
    chosen = significant_kinds() if kinds is None else kinds
    return store.read_with(lambda conn: latest_audit(conn, chosen, actor=who or None, limit=limit))


class StationEventsView(QWidget):
    COLUMNS = ("time (UTC)", "who", "what", "round", "detail")

    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.loaded = False
        self.entries: list[AuditEntry] = []
        layout = QVBoxLayout(self)
        bar = QHBoxLayout()
        self.kind = QComboBox()
        self.kind.setObjectName("station_events_kind")
        for label, kinds in kind_choices():
            self.kind.addItem(label, kinds)
        self.kind.setMaxVisibleItems(16)
        self.who = QLineEdit()
        self.who.setObjectName("station_events_who")
        self.who.setPlaceholderText("who: dealer, supervisor, shoe\u2026 (any part)")
        self.who.setMaximumWidth(360)
        self.show_button = QPushButton("Show")
        self.clear_button = QPushButton("All significant events")
        # two rows: at 1280 px the long kind names and the buttons on one row cut "All
        # significant events" to 60 px (the layout walk's check of button words)
        bar.addWidget(QLabel("Kind"))
        bar.addWidget(self.kind, 1)
        layout.addLayout(bar)
        second = QHBoxLayout()
        for widget in (QLabel("Who"), self.who, self.show_button, self.clear_button):
            second.addWidget(widget)
        second.addStretch(1)
        layout.addLayout(second)
        self.caption = QLabel("")
        layout.addWidget(self.caption)
        self.table = QTableWidget(0, len(self.COLUMNS))
        self.table.setObjectName("station_events")
        self.table.setHorizontalHeaderLabels(list(self.COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        for column, width in enumerate((190, 170, 190, 70)):
            self.table.setColumnWidth(column, width)
        layout.addWidget(self.table, 1)
        self.kind.currentIndexChanged.connect(lambda _i: self.refresh())
        self.who.returnPressed.connect(self.refresh)
        self.show_button.clicked.connect(self.refresh)
        self.clear_button.clicked.connect(self.clear_filter)

    def chosen_kinds(self) -> tuple[str, ...]:
        return tuple(self.kind.currentData())

    def choose(self, kinds: tuple[str, ...] | str) -> bool:
        """Set the kind filter to the entry listing ``kinds`` (one kind's name, or a group's
        kinds); True if there is one."""
        wanted = (kinds,) if isinstance(kinds, str) else tuple(kinds)
        for index in range(self.kind.count()):
            if tuple(self.kind.itemData(index)) == wanted:
                self.kind.setCurrentIndex(index)
                return True
        return False

    def clear_filter(self) -> None:
        self.who.clear()
        if self.kind.currentIndex() != 0:
            self.kind.setCurrentIndex(0)  # refreshes
        else:
            self.refresh()

    def refresh(self) -> None:
        who = self.who.text().strip()
        entries = self.entries = station_events(self.store, self.chosen_kinds(), who)
        self.table.setRowCount(len(entries))
        for row, entry in enumerate(entries):
            cells = (short_time(entry.at), entry.actor, entry.kind,
                     "" if entry.round_id is None else str(entry.round_id), audit_text(entry))
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                known = AUDIT_KINDS.get(entry.kind)
                if column == 2 and known is not None:
                    item.setToolTip(known.words)
                self.table.setItem(row, column, item)
        label = self.kind.currentText().strip().split(":")[0]
        self.caption.setText(f"{len(entries)} entries ({label}" + (f", who contains {who!r}" if who else "")
                             + "), newest first" + (f" (the latest {LIMIT})" if len(entries) == LIMIT else ""))
        self.loaded = True
