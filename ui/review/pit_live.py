"""The pit view's live part (issue 25, item 3): a listener for the floor's notifications and
the **Live** tab that shows each table as it stands.

``PitLive`` runs :class:`dealer_assist.floor.live.LiveListener` (``LISTEN floor_live``, a
connection and thread of its own, reconnecting by itself) and hands each wake-up to the GUI
thread as the ``changed`` signal; the window then reads the tables' live state on its worker
and shows it in ``LiveTables``. Nothing here decides anything: the conditions (live, idle,
link down, not connected, stopped) are worked out in ``dealer_assist.floor.live``.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem

from dealer_assist.floor.live import LiveListener, LiveTable
from ui.common.qtfix import GuiPost
from ui.common.style import signed
from ui.review.model import GAME_NAMES

__all__ = ["LiveTables", "PitLive"]

_COLOURS = {"live": "#1b7f3a", "idle": "#555555", "catching up": "#a86400", "link down": "#b00020",
            "not connected": "#b00020", "stopped": "#b00020"}


class PitLive(QObject):
    """Wakes the pit view when the floor changes: ``changed(tables)`` (an empty set is a tick),
    ``link(text)`` the listener's own state."""

    changed = Signal(object)
    link = Signal(str)

    def __init__(self, url: str, parent: QObject | None = None, *, tick: float = 5.0,
                 replica_url: str | None = None) -> None:
        super().__init__(parent)
        self._post = GuiPost(self)
        self.listener = LiveListener(
            url, lambda tables: self._post.post(self.changed.emit, tables),
            lambda text: self._post.post(self.link.emit, text), tick=tick, replica_url=replica_url)

    def start(self) -> None:
        self.listener.start()

    def stop(self) -> None:
        self.listener.stop()


class LiveTables(QTableWidget):
    """One row a table: game, dealer, round in play, last round and its result, rounds in the
    last hour, the link (coloured by condition)."""

    HEADERS = ["table", "pit", "game", "dealer", "round in play", "last round", "result", "rounds/hour", "link"]

    def __init__(self) -> None:
        super().__init__()
        self.setColumnCount(len(self.HEADERS))
        self.setHorizontalHeaderLabels(self.HEADERS)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.verticalHeader().setVisible(False)
        self.shown: list[LiveTable] = []
        self.no_contact: str | None = None  # the words shown while the floor cannot be read
        # the link's words take the width the other columns leave, on more lines where they need
        # them ("not connected: never heard from (check ...)" ran past the window at 1280x800)
        self.horizontalHeader().setStretchLastSection(True)
        self.setWordWrap(True)
        rows = self.verticalHeader()
        rows.setMinimumSectionSize(rows.defaultSectionSize())  # a row of one line as before, never less

    def _fit_columns(self) -> None:
        """Each column as wide as its words, the link's what is left; each row as high as its link's lines."""
        for column in range(self.columnCount() - 1):
            self.resizeColumnToContents(column)
        self.resizeRowsToContents()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        self.resizeRowsToContents()  # the link's column wider or narrower: its lines again

    def show_no_contact(self, since: _dt.datetime | None) -> None:
        """The floor does not answer (issue 35): every row grey, "no contact since ..." — what
        was last read is not what the tables do now."""
        self.no_contact = (f"no contact since {since.astimezone():%H:%M:%S}" if since is not None
                           else "no contact with the floor yet")
        grey = QColor("#9e9e9e")
        for row in range(self.rowCount()):
            for column in range(self.columnCount()):
                item = self.item(row, column)
                if item is None:
                    item = QTableWidgetItem("")
                    self.setItem(row, column, item)
                if column == len(self.HEADERS) - 1:
                    item.setText(self.no_contact)
                item.setForeground(grey)
        self._fit_columns()

    def show_tables(self, tables: list[LiveTable]) -> None:
        self.shown = tables
        self.no_contact = None
        self.setRowCount(len(tables))
        for row, t in enumerate(tables):
            result = ""
            if t.last_status is not None:
                result = t.last_status + (f", house {signed(t.last_house_net)}" if t.last_house_net is not None else "")
            cells = [t.table, t.pit, GAME_NAMES.get(t.game or "", t.game or ""), t.dealer or "",
                     "" if t.in_play is None else str(t.in_play), "" if t.last_round is None else str(t.last_round),
                     result, str(t.rounds_last_hour), t.note]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == len(cells) - 1:
                    item.setForeground(QColor(_COLOURS.get(t.condition, "#000000")))
                self.setItem(row, column, item)
        self._fit_columns()
