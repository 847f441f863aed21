"""Interim and final settlement: per wager pay or collect and how much, per player totals.

Reads ``round_output(rnd)["settlements"]`` and ``["net"]``; the clause of every entry
is shown beside it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ui.style import money, signed
from ui.table_view import BET_NAMES

COLUMNS = ("Player", "Area", "Wager", "Stake", "Result", "Pay / collect", "Rule", "Stage")


def pay_words(net: Any, result: str) -> str:
    """What the dealer does with the chips: ``PAY 150``, ``COLLECT 100``, ``RETURN``."""
    amount = Decimal(str(net))
    if amount > 0:
        return f"PAY {money(amount)}"
    if amount < 0:
        return f"COLLECT {money(-amount)}"
    return "RETURN" if result in ("returned", "push") else "—"


class SettlementPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("Settlement")
        self.title.setProperty("role", "title")
        layout.addWidget(self.title)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(self.table)
        self.totals = QLabel("")
        self.totals.setStyleSheet("font-size: 22px; font-weight: bold;")
        self.totals.setWordWrap(True)
        layout.addWidget(self.totals)
        self.rows: list[dict[str, Any]] = []
        self.net: dict[str, Any] = {}

    def show_output(self, output: dict[str, Any], heading: str | None = None) -> None:
        settlements = list(output.get("settlements", []))
        self.rows = settlements
        self.net = dict(output.get("net", {}))
        status = output.get("status")
        stages = {s.get("stage") for s in settlements}
        if heading is None:
            heading = ("Final settlement" if status in ("settled", "void") or output.get("next") is None
                       else "Interim settlement" if "interim" in stages else "Settlement")
        self.title.setText(heading)
        self.table.setRowCount(len(settlements))
        for row, s in enumerate(settlements):
            where = ""
            if s.get("area") is not None:
                where = f"{s['area']}" + (f"/{s['hand']}" if s.get("hand") is not None else "")
            elif s.get("hand") is not None:
                where = f"hand {s['hand']}"
            bet = BET_NAMES.get(s["bet"], s["bet"])
            if s.get("row") and s["row"] != bet:
                bet += f" ({s['row']})"
            values = (s["player"], where, bet, money(s["stake"]), s["result"],
                      pay_words(s["net"], s["result"]), s["rule"], s.get("stage", ""))
            for col, value in enumerate(values):
                self.table.setItem(row, col, QTableWidgetItem(str(value)))
        parts = []
        for player, net in self.net.items():
            amount = Decimal(str(net))
            verb = "pay" if amount > 0 else "collect" if amount < 0 else "even"
            parts.append(f"{player}: {signed(net)} ({verb} {money(abs(amount))})" if amount else f"{player}: 0")
        self.totals.setText("Per player: " + ";  ".join(parts) if parts else "")

    def cell(self, row: int, column: str) -> str:
        item = self.table.item(row, COLUMNS.index(column))
        return item.text() if item is not None else ""
