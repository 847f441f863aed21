"""Interim and final settlement: per wager pay, collect or return and how much, grouped by
area in paying order (the highest-numbered area first); per-player totals as a table.

Reads ``round_output(rnd)["settlements"]`` and ``["net"]``. The amount column never
scrolls out of view: the wager column takes what is left and elides a long bet name
(the whole name, the result and the clause are in the row's tooltip; *Clauses* shows
the clause and stage columns).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ui.round_view import paying_order
from ui.style import pay_words, px, signed
from ui.table_view import BET_NAMES

TOTAL_PAIRS = 2
COLUMNS = ("Area", "Player", "Wager", "Result", "Pay / collect", "Rule", "Stage")
_GROUP_COLOURS = ("#ffffff", "#eef3ee")
_ACTION_COLOURS = {"PAY": "#1b5e20", "COLLECT": "#b00020"}


class SettlementPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(px(3))
        head = QHBoxLayout()
        self.title = QLabel("Settlement")
        self.title.setProperty("role", "title")
        head.addWidget(self.title, 1)
        self.clauses_button = QPushButton("Clauses")
        self.clauses_button.setCheckable(True)
        self.clauses_button.toggled.connect(self._show_clauses)
        head.addWidget(self.clauses_button)
        layout.addLayout(head)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = self.table.horizontalHeader()
        for col, name in enumerate(COLUMNS):
            mode = QHeaderView.ResizeMode.Stretch if name == "Wager" else QHeaderView.ResizeMode.ResizeToContents
            header.setSectionResizeMode(col, mode)
        self.table.setMinimumHeight(px(90))
        layout.addWidget(self.table, 3)
        self.totals_title = QLabel("Per player")
        self.totals_title.setProperty("role", "title")
        layout.addWidget(self.totals_title)
        self.totals = QTableWidget(0, 2 * TOTAL_PAIRS)  # two players a row
        self.totals.setHorizontalHeaderLabels(["Player", "Total"] * TOTAL_PAIRS)
        self.totals.verticalHeader().setVisible(False)
        self.totals.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.totals.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.totals.horizontalHeader().setStretchLastSection(True)
        self.totals.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.totals.setMinimumHeight(px(80))
        layout.addWidget(self.totals, 2)
        self.rows: list[dict[str, Any]] = []
        self.net: dict[str, Any] = {}
        self._show_clauses(False)

    def _show_clauses(self, on: bool) -> None:
        for name in ("Result", "Rule", "Stage"):
            self.table.setColumnHidden(COLUMNS.index(name), not on)

    def show_output(self, output: dict[str, Any], heading: str | None = None) -> None:
        settlements = list(output.get("settlements", []))
        ordered = [s for _, group in paying_order(settlements) for s in group]
        self.rows = ordered
        self.net = dict(output.get("net", {}))
        status = output.get("status")
        stages = {s.get("stage") for s in settlements}
        if heading is None:
            heading = ("Final settlement" if status in ("settled", "void") or output.get("next") is None
                       else "Interim settlement" if "interim" in stages else "Settlement")
        self.title.setText(heading)
        self.table.setColumnHidden(0, not any(s.get("area") is not None or s.get("hand") is not None
                                              for s in ordered))
        self.table.setRowCount(len(ordered))
        bold = QFont(self.table.font())
        bold.setBold(True)
        group = -1
        last_area: Any = object()
        for row, s in enumerate(ordered):
            if s.get("area") != last_area:
                group += 1
                last_area = s.get("area")
            where = ""
            if s.get("area") is not None:
                where = f"{s['area']}" + (f"/{s['hand']}" if s.get("hand") is not None else "")
            elif s.get("hand") is not None:
                where = f"hand {s['hand']}"
            bet = BET_NAMES.get(s["bet"], s["bet"])
            if s.get("row") and s["row"] != bet:
                bet += f" ({s['row']})"
            pay = pay_words(s["net"], s["result"])
            values = (where, s["player"], bet, s["result"], pay, s["rule"], s.get("stage", ""))
            tip = f"{s['player']}: {bet}, stake {s['stake']}, {s['result']}: {pay} ({s['rule']}, {s.get('stage', '')})"
            background = QBrush(QColor(_GROUP_COLOURS[group % 2]))
            for col, value in enumerate(values):
                item = QTableWidgetItem(str(value))
                item.setToolTip(tip)
                item.setBackground(background)
                if COLUMNS[col] == "Pay / collect":
                    item.setFont(bold)
                    item.setForeground(QBrush(QColor(_ACTION_COLOURS.get(pay.split(" ")[0], "#333333"))))
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, col, item)
        self.totals.clearContents()
        self.totals.setRowCount((len(self.net) + TOTAL_PAIRS - 1) // TOTAL_PAIRS)
        for n, (player, net) in enumerate(self.net.items()):
            row, col = n // TOTAL_PAIRS, 2 * (n % TOTAL_PAIRS)
            amount = Decimal(str(net))
            words = pay_words(amount, "push") if amount else "even"
            self.totals.setItem(row, col, QTableWidgetItem(str(player)))
            total = QTableWidgetItem(words)
            total.setToolTip(f"{player}: {signed(net)}")
            total.setFont(bold)
            total.setForeground(QBrush(QColor(_ACTION_COLOURS.get(words.split(" ")[0], "#333333"))))
            self.totals.setItem(row, col + 1, total)
        self.totals.setVisible(bool(self.net))
        self.totals_title.setVisible(bool(self.net))

    def cell(self, row: int, column: str) -> str:
        item = self.table.item(row, COLUMNS.index(column))
        return item.text() if item is not None else ""

    def total_of(self, player: str) -> str:
        for row in range(self.totals.rowCount()):
            for col in range(0, 2 * TOTAL_PAIRS, 2):
                name = self.totals.item(row, col)
                if name is not None and name.text() == player:
                    value = self.totals.item(row, col + 1)
                    return value.text() if value is not None else ""
        return ""
