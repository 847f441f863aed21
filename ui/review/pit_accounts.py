"""The pit window's **Accounting** tab (issue 25, item 5): a shift's win and hold per table, pit
and floor beside the rounds' net and theoretical win, and the forms that record an opener,
closer, fill or credit (chips per denomination, signed by the dealer and a supervisor: two
accounts, each with its PIN) or a drop. A fill or credit after the closer is shown beside the
closed shift ("after close"), never in its figures. "Save shift report" / "Save day report"
write the report a shift manager signs (PDF, or CSV for a .csv name; issue 35, Build 5). The arithmetic and checks are dealer_assist.floor.accounting's; this only asks and shows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

__all__ = ["AccountsPanel"]

KINDS = ("opener", "closer", "fill", "credit", "drop")


def _money(value: Any) -> str:
    return "-" if value is None else f"{value:,.2f}"


class AccountsPanel(QWidget):
    """``record(kind, fields)`` and ``report(shift)`` are the window's to run on its worker."""

    HEADERS = ["", "opener", "closer", "fills", "credits", "drop", "win", "hold %", "rounds", "rounds net", "theo win",
               "after close", "win with after close", "terminal buy-ins", "terminal cash-outs"]

    def __init__(self, record: Callable[[str, dict[str, str]], None], report: Callable[[str], None],
                 save: Callable[[str | None, str], None] | None = None) -> None:
        super().__init__()
        self._record, self._report, self._save = record, report, save
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.shift = QLineEdit("day")
        self.shift.setMaximumWidth(120)
        self.show_button = QPushButton("Show shift")
        self.show_button.clicked.connect(lambda: self._report(self.shift.text().strip()))
        self.save_shift_button = QPushButton("Save shift report…")
        self.save_shift_button.clicked.connect(lambda: self._ask_and_save("shift"))
        self.save_day_button = QPushButton("Save day report…")
        self.save_day_button.clicked.connect(lambda: self._ask_and_save("day"))
        for widget in (QLabel("Shift (of the chosen day)"), self.shift, self.show_button, self.save_shift_button,
                       self.save_day_button):
            top.addWidget(widget)
        top.addStretch(1)
        layout.addLayout(top)
        self.figures = QTableWidget()
        self.figures.setColumnCount(len(self.HEADERS))
        self.figures.setHorizontalHeaderLabels(self.HEADERS)
        self.figures.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.figures.verticalHeader().setVisible(False)
        layout.addWidget(self.figures, 1)  # the figures take the height the form leaves
        form = QGridLayout()
        self.table = QLineEdit()
        self.table.setPlaceholderText("e.g. BJ-07")
        self.kind = QComboBox()
        self.kind.addItems(KINDS)
        self.chips = QLineEdit()
        self.chips.setPlaceholderText("denomination x count, e.g. 1000x4, 100x100, 25x200")
        self.cash = QLineEdit()
        self.markers = QLineEdit()
        self.dealer = QLineEdit()
        self.dealer.setPlaceholderText("dealer (drop: counted by)")
        self.supervisor = QLineEdit()
        self.supervisor.setPlaceholderText("supervisor (drop: witness)")
        self.dealer_pin = QLineEdit()
        self.dealer_pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.dealer_pin.setPlaceholderText("their PIN")
        self.supervisor_pin = QLineEdit()
        self.supervisor_pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.supervisor_pin.setPlaceholderText("their PIN")
        # two fields a row, each signer beside their PIN: the form takes five rows of 48 px, not
        # nine, and the figures keep their rows at 1366x768 (one row showed, the pit's and the
        # floor's under a scroll bar)
        rows: tuple[tuple[tuple[str, QWidget], ...], ...] = (
            (("Table", self.table), ("Record", self.kind)), (("Chips", self.chips),),
            (("Drop: cash", self.cash), ("Drop: markers", self.markers)),
            (("Signed by", self.dealer), ("PIN", self.dealer_pin)), (("and", self.supervisor), ("PIN", self.supervisor_pin)))
        for r, pairs in enumerate(rows):
            for p, (label, field) in enumerate(pairs):
                words = QLabel(label)
                words.setBuddy(field)
                form.addWidget(words, r, 2 * p)
                form.addWidget(field, r, 2 * p + 1, 1, 1 if len(pairs) > 1 else 3)
        form.setColumnStretch(1, 1)
        form.setColumnStretch(3, 1)
        layout.addLayout(form)
        self.record_button = QPushButton("Record")
        self.record_button.clicked.connect(self.submit)
        layout.addWidget(self.record_button)
        self.message = QLabel("")
        layout.addWidget(self.message)
        self.kind.currentTextChanged.connect(self._kind_changed)
        self._kind_changed(self.kind.currentText())

    def _ask_and_save(self, scope: str) -> None:
        name = f"{scope}-report.pdf" if scope == "day" else f"shift-{self.shift.text().strip() or 'day'}-report.pdf"
        path, _ = QFileDialog.getSaveFileName(self, f"Save the {scope} report", name, "PDF (*.pdf);;CSV (*.csv)")
        if path:
            self.save_to(scope, path)

    def save_to(self, scope: str, path: str) -> None:
        """Write the shift's (``scope`` "shift") or the day's report to ``path``."""
        shift = self.shift.text().strip()
        if scope == "shift" and not shift:
            self.message.setText("name the shift")
            return
        if self._save is not None:
            self._save(shift if scope == "shift" else None, path)

    def _kind_changed(self, kind: str) -> None:
        drop = kind == "drop"
        self.chips.setEnabled(not drop)
        self.cash.setEnabled(drop)
        self.markers.setEnabled(drop)

    def submit(self) -> None:
        fields = {"table": self.table.text().strip(), "shift": self.shift.text().strip(), "chips": self.chips.text(),
                  "cash": self.cash.text().strip() or "0", "markers": self.markers.text().strip() or "0",
                  "dealer": self.dealer.text().strip(), "supervisor": self.supervisor.text().strip(),
                  "dealer_pin": self.dealer_pin.text(), "supervisor_pin": self.supervisor_pin.text()}
        self.dealer_pin.clear()  # each record confirmed again
        self.supervisor_pin.clear()
        if not fields["table"] or not fields["shift"]:
            self.message.setText("name the table and the shift")
            return
        self._record(self.kind.currentText(), fields)

    def show_report(self, report: Any) -> None:
        tables, pits, whole = report
        rows = [*tables, *pits, whole] if tables else []
        self.figures.setRowCount(len(rows))
        for r, f in enumerate(rows):
            cells = [f.key, _money(f.opener), _money(f.closer), _money(f.fills), _money(f.credits), _money(f.drop),
                     _money(f.win), "-" if f.hold_percent is None else f"{f.hold_percent} %", str(f.rounds),
                     _money(f.rounds_net), _money(f.theo),
                     f"{_money(f.adjustment)} ({f.adjustments})" if f.adjustments else "-",
                     _money(f.win_adjusted) if f.adjustments else "-",
                     _money(f.terminal_buy_ins), _money(f.terminal_cash_outs)]  # 1.1.10, beside the drop
            for c, text in enumerate(cells):
                self.figures.setItem(r, c, QTableWidgetItem(text))
        self.figures.resizeColumnsToContents()
