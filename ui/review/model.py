"""The round list of the review window: a lazily paged Qt table model over the store.

Rows arrive a page at a time (``fetchMore``) by keyset queries
(:func:`dealer_assist.store.review_queries.page_rounds`), so the list opens and filters as
fast on a million rounds as on ten. Sorting is done by the database, not the view.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from dealer_assist.games import names
from dealer_assist.store import StoreReader
from dealer_assist.store.review_queries import RoundFilter, RoundRow, page_rounds
from ui.common.style import money, signed

GAME_NAMES = names.GAME_NAMES  # from the games themselves: a sixth game is listed and named
STATUS_COLOURS = {"void": "#fde0e0", "referred": "#fff3c4", "in_progress": "#e3f2fd"}
PAGE = 200

# (title, sort key or None)
COLUMNS: list[tuple[str, str | None]] = [
    ("Round", "round"),
    ("Started (UTC)", "time"),
    ("Table", None),
    ("Game", None),  # no index on the game: sorting a million rounds by it takes seconds
    ("Dealer", None),
    ("Status", "status"),
    ("Players", None),
    ("Wagered", None),
    ("Players' net", None),
    ("Table win", None),
    ("Irregular", None),
]

Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()  # the (invalid) root index: the list has no children


def short_time(text: str | None) -> str:
    """``2026-11-25T23:27:30.924132Z`` -> ``2026-11-25 23:27:30``."""
    if not text:
        return ""
    return text[:19].replace("T", " ")


class RoundListModel(QAbstractTableModel):
    """Rounds of one store, filtered and sorted in SQL, fetched a page at a time."""

    def __init__(self, reader: StoreReader, table: str, parent: Any = None) -> None:
        super().__init__(parent)
        self._reader = reader
        self.table = table
        self.rows: list[RoundRow] = []
        self.filter = RoundFilter()
        self.sort_key = "time"
        self.descending = True
        self._more = True
        self.reload()

    # ---- loading

    def set_filter(self, flt: RoundFilter) -> None:
        self.filter = flt
        self.reload()

    def reload(self) -> None:
        self.beginResetModel()
        self.rows = page_rounds(self._reader, self.filter, sort=self.sort_key,
                                descending=self.descending, limit=PAGE)
        self._more = len(self.rows) == PAGE
        self.endResetModel()

    def canFetchMore(self, parent: Index = _ROOT) -> bool:  # noqa: N802 (Qt name)
        return not parent.isValid() and self._more

    def fetchMore(self, parent: Index = _ROOT) -> None:  # noqa: N802 (Qt name)
        if parent.isValid() or not self._more or not self.rows:
            return
        after = self.rows[-1].key(self.sort_key)
        page = page_rounds(self._reader, self.filter, sort=self.sort_key, descending=self.descending,
                           after=after, limit=PAGE)
        self._more = len(page) == PAGE
        if not page:
            return
        first = len(self.rows)
        self.beginInsertRows(QModelIndex(), first, first + len(page) - 1)
        self.rows.extend(page)
        self.endInsertRows()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        key = COLUMNS[column][1] if 0 <= column < len(COLUMNS) else None
        if key is None:
            return  # only the columns the database can order quickly
        self.sort_key = key
        self.descending = order == Qt.SortOrder.DescendingOrder
        self.reload()

    def sort_column(self) -> int:
        return next(i for i, (_, key) in enumerate(COLUMNS) if key == self.sort_key)

    # ---- the table

    def rowCount(self, parent: Index = _ROOT) -> int:  # noqa: N802 (Qt name)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = _ROOT) -> int:  # noqa: N802 (Qt name)
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 (Qt name)
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][0]
        return None

    def round_at(self, row: int) -> RoundRow:
        return self.rows[row]

    def cell_text(self, r: RoundRow, column: int) -> str:
        if column == 0:
            return str(r.id)
        if column == 1:
            return short_time(r.started_at)
        if column == 2:
            return self.table
        if column == 3:
            return GAME_NAMES.get(r.game, r.game)
        if column == 4:
            return r.dealer or ("transcript" if r.source == "transcript" else "")
        if column == 5:
            return r.status.replace("_", " ")
        if column == 6:
            return ", ".join(r.players)
        if column == 7:
            return money(r.wagered)
        if column == 8:
            return ", ".join(f"{p} {signed(v)}" for p, v in r.net.items())
        if column == 9:
            return signed(r.house_net)
        if column == 10:
            return "\u26a0 yes" if r.irregular else ""
        return ""

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        r = self.rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell_text(r, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (0, 7, 9):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and r.status in STATUS_COLOURS:
            return QBrush(QColor(STATUS_COLOURS[r.status]))
        if role == Qt.ItemDataRole.ForegroundRole and column == 9 and r.house_net < Decimal(0):
            return QBrush(QColor("#b00020"))
        if role == Qt.ItemDataRole.ToolTipRole and column == 10 and r.irregular:
            return "rulings on irregularities, or the round was voided or referred"
        return None
