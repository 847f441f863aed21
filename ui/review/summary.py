"""Session summaries for the pit: per table session or per dealer, rounds played, wagered and
won/lost per bet kind, hold %, irregular rounds, and a bar chart of the table's result per
bet kind (painted with QPainter; QtCharts is not part of PySide6-Essentials)."""

from __future__ import annotations

import argparse
import datetime as _dt
from decimal import Decimal
from typing import Any

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from dealer_assist.cli.history import parse_time
from dealer_assist.store import StoreReader
from dealer_assist.store.review_queries import BetLine, Summary, summaries
from ui.common.style import money, signed
from ui.common.table_view import BET_NAMES
from ui.review.model import GAME_NAMES, short_time

#: The summaries start this many days back unless the supervisor clears the date (all
#: rounds: a full pass over the file, seconds on a million rounds).
DEFAULT_DAYS = 30


def pct_text(pct: Decimal | None) -> str:
    """A percentage to two places with a true minus sign; "-" when there is none."""
    if pct is None:
        return "-"
    pct = pct.quantize(Decimal("0.01"))
    return f"\u2212{-pct}%" if pct < 0 else f"{pct}%"


def hold_text(line: BetLine) -> str:
    pct = line.hold_pct
    if pct is None:
        return "-"
    return f"\u2212{-pct}%" if pct < 0 else f"{pct}%"


class HoldChart(QWidget):
    """Horizontal bars: the table's win (green) or loss (red) per bet kind, with hold %."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lines: list[BetLine] = []
        self.title = ""
        self.setMinimumHeight(220)

    def set_lines(self, title: str, lines: list[BetLine]) -> None:
        self.title = title
        self.lines = lines
        self.setMinimumHeight(70 + 40 * max(1, len(lines)))
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt name)
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor("#ffffff"))
        font = QFont()
        font.setPixelSize(18)
        font.setBold(True)
        p.setFont(font)
        p.setPen(QColor("#111111"))
        p.drawText(QRectF(10, 6, self.width() - 20, 28), Qt.AlignmentFlag.AlignLeft, self.title)
        if not self.lines:
            p.end()
            return
        font.setBold(False)
        font.setPixelSize(16)
        p.setFont(font)
        label_w = 150.0
        value_w = 190.0
        left = label_w + 10
        width = max(40.0, self.width() - left - value_w - 10)
        biggest = max((abs(line.house_net) for line in self.lines), default=Decimal(0)) or Decimal(1)
        zero_x = left + width / 2
        top = 44.0
        row_h = 40.0
        p.setPen(QPen(QColor("#888888"), 1))
        p.drawLine(int(zero_x), int(top - 4), int(zero_x), int(top + row_h * len(self.lines)))
        for i, line in enumerate(self.lines):
            y = top + i * row_h
            p.setPen(QColor("#111111"))
            p.drawText(QRectF(0, y, label_w, row_h - 8), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                       BET_NAMES.get(line.bet, line.bet))
            length = float(abs(line.house_net) / biggest) * (width / 2)
            colour = QColor("#2e7d32") if line.house_net >= 0 else QColor("#c62828")
            x = zero_x if line.house_net >= 0 else zero_x - length
            p.fillRect(QRectF(x, y + 4, max(length, 1.0), row_h - 16), colour)
            p.drawText(QRectF(left + width + 8, y, value_w, row_h - 8),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       f"{signed(line.house_net)}  hold {hold_text(line)}")
        p.end()


class SummaryView(QWidget):
    """Choose sessions or dealers; the list; the chosen one's bet kinds and chart."""

    def __init__(self, reader: StoreReader, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._reader = reader
        self.items: list[Summary] = []
        outer = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(QLabel("Summaries by"))
        self.by = QComboBox()
        self.by.addItem("table session", "session")
        self.by.addItem("dealer", "dealer")
        top.addWidget(self.by)
        top.addWidget(QLabel("rounds from"))
        self.since = QLineEdit((_dt.datetime.now(_dt.UTC) - _dt.timedelta(days=DEFAULT_DAYS)).strftime("%Y-%m-%d"))
        self.since.setPlaceholderText("all (a full pass)")
        self.since.setMaximumWidth(190)
        top.addWidget(self.since)
        self.refresh_button = QPushButton("Refresh")
        top.addWidget(self.refresh_button)
        self.message = QLabel("")
        top.addWidget(self.message)
        top.addStretch(1)
        outer.addLayout(top)
        note = QLabel("Wagered leaves out returned wagers (void rounds, under-minimum wagers settled once "
                      "returned, the excess over a maximum). "
                      "Table win = what the players lost; hold % = table win / wagered.")
        note.setWordWrap(True)
        note.setStyleSheet("font-size: 15px; color: #444;")
        outer.addWidget(note)
        split = QSplitter(Qt.Orientation.Vertical)
        self.list = self._table(["Session / dealer", "Dealer", "Game", "Started (UTC)", "Ended (UTC)", "Rounds",
                                 "Settled", "Void", "Referred", "Irregular", "Wagered", "Table win", "Hold"])
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        split.addWidget(self.list)
        lower = QWidget()
        lower_layout = QHBoxLayout(lower)
        self.bets = self._table(["Bet", "Wagers", "Wagered", "Table win", "Hold", "Theo win", "Theo hold"])
        bets_box = QVBoxLayout()
        bets_box.addWidget(self.bets, 1)
        # Theoretical win (issue 19): computed on request, it reads every round of the summary.
        theo_row = QHBoxLayout()
        self.theo_button = QPushButton("Theoretical win")
        self.theo_button.clicked.connect(self.show_theo)
        theo_row.addWidget(self.theo_button)
        self.table_theo_button = QPushButton("Whole table")
        self.table_theo_button.setToolTip("Theoretical vs actual hold over every settled round since the date")
        self.table_theo_button.clicked.connect(self.show_table_theo)
        theo_row.addWidget(self.table_theo_button)
        self.theo_label = QLabel("")
        self.theo_label.setWordWrap(True)
        theo_row.addWidget(self.theo_label, 1)
        bets_box.addLayout(theo_row)
        rating_row = QHBoxLayout()
        rating_row.addWidget(QLabel("Player"))
        self.rating_player = QLineEdit()
        self.rating_player.setMaximumWidth(190)
        rating_row.addWidget(self.rating_player)
        self.rating_button = QPushButton("Rating")
        self.rating_button.clicked.connect(self.show_rating)
        self.rating_player.returnPressed.connect(self.show_rating)
        rating_row.addWidget(self.rating_button)
        self.rating_label = QLabel("")
        self.rating_label.setWordWrap(True)
        rating_row.addWidget(self.rating_label, 1)
        bets_box.addLayout(rating_row)
        lower_layout.addLayout(bets_box, 1)
        self.chart = HoldChart()
        lower_layout.addWidget(self.chart, 1)
        split.addWidget(lower)
        outer.addWidget(split, 1)
        self.by.currentIndexChanged.connect(lambda _i: self.refresh())
        self.refresh_button.clicked.connect(self.refresh)
        self.since.returnPressed.connect(self.refresh)
        self.list.currentCellChanged.connect(lambda row, _c, _r, _pc: self.show_summary(row))
        self.loaded = False

    @staticmethod
    def _table(headers: list[str]) -> QTableWidget:
        table = QTableWidget(0, len(headers))
        table.setHorizontalHeaderLabels(headers)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.verticalHeader().setVisible(False)
        return table

    def refresh(self) -> bool:
        """Recompute for the chosen grouping and start date; False (and why) if the date is wrong."""
        since = None
        text = self.since.text().strip()
        if text:
            try:
                since = parse_time(text)
            except argparse.ArgumentTypeError as exc:
                self.message.setText(f"Not refreshed: {exc}")
                self.message.setStyleSheet("color: #b00020; font-weight: bold;")
                return False
        self.message.setText("")
        self.items = summaries(self._reader, self.by.currentData(), since)
        self.loaded = True
        self.list.setRowCount(len(self.items))
        for r, s in enumerate(self.items):
            total = s.total
            row = [s.label, s.dealer or "", GAME_NAMES.get(s.game or "", s.game or ""), short_time(s.started_at),
                   short_time(s.ended_at), str(s.rounds), str(s.statuses.get("settled", 0)),
                   str(s.statuses.get("void", 0)), str(s.statuses.get("referred", 0)), str(s.irregular),
                   money(total.wagered), signed(total.house_net), hold_text(total)]
            for c, text in enumerate(row):
                self.list.setItem(r, c, QTableWidgetItem(text))
        self.list.resizeColumnsToContents()
        if self.items:
            self.list.selectRow(0)
            self.show_summary(0)
        else:
            self.show_summary(-1)
        return True

    def _since(self) -> str | None:
        text = self.since.text().strip()
        try:
            return parse_time(text) if text else None
        except argparse.ArgumentTypeError:
            return None

    def show_theo(self) -> None:
        """Theoretical beside actual win per bet kind for the chosen summary, and the holds."""
        row = self.list.currentRow()
        if not 0 <= row < len(self.items):
            return
        from dealer_assist.odds.theo import stored_rounds, theo_by_bet, total

        s = self.items[row]
        since = self._since()
        if s.session_id is not None:
            which: dict[str, Any] = {"session_id": s.session_id}
        elif s.dealer is not None and self.by.currentData() == "dealer":
            which = {"dealer": s.dealer}
        else:
            which = {"transcripts": True}
        # the rounds are read and summed in one snapshot of the reader's connection
        by_bet = self._reader.read(lambda conn: theo_by_bet(stored_rounds(conn, since=since, **which)))
        for r in range(self.bets.rowCount()):
            item = self.bets.item(r, 0)
            bet = self._bet_of_row(r)
            line = total(by_bet.values()) if bet == "all" else by_bet.get(bet)
            if item is None or line is None:
                continue
            self.bets.setItem(r, 5, QTableWidgetItem(f"{line.theo:.2f}"))
            self.bets.setItem(r, 6, QTableWidgetItem(pct_text(line.theo_hold)))
        t = total(by_bet.values())
        self.theo_label.setText(
            f"Theoretical win {t.theo:.2f}, actual {signed(t.actual)}; theoretical hold "
            f"{pct_text(t.theo_hold)}, actual hold {pct_text(t.actual_hold)} (settled rounds)")

    def show_table_theo(self) -> None:
        """The table's theoretical and actual win and hold over every settled round since the date."""
        from dealer_assist.odds.theo import stored_rounds, table_theo

        since = self._since()
        # the rounds are read and summed in one snapshot of the reader's connection
        t = self._reader.read(lambda conn: table_theo(stored_rounds(conn, since=since)))
        self.theo_label.setText(
            f"Table: {t.rounds} settled rounds, wagered {money(t.wagered)}, theoretical win {t.theo:.2f}, "
            f"actual {signed(t.actual)}; theoretical hold {pct_text(t.theo_hold)}, "
            f"actual hold {pct_text(t.actual_hold)}")

    def _bet_of_row(self, r: int) -> str:
        row = self.list.currentRow()
        lines = [*self.items[row].bets, self.items[row].total] if 0 <= row < len(self.items) else []
        return lines[r].bet if r < len(lines) else ""

    def show_rating(self) -> None:
        """The player's rating: time played, rounds, average bet, total wagered, theoretical and actual win."""
        player = self.rating_player.text().strip()
        if not player:
            return
        from dealer_assist.odds.theo import player_rating

        since = self._since()
        rating = self._reader.read(lambda conn: player_rating(conn, player, since=since))
        f = rating.figures
        if not f.rounds:
            self.rating_label.setText(f"{player}: no settled rounds")
            return
        minutes = int(rating.seconds // 60)
        avg = rating.average_bet
        self.rating_label.setText(
            f"{player}: {minutes // 60} h {minutes % 60:02d} min, {f.rounds} rounds, average bet "
            f"{money(avg) if avg is not None else '-'}, wagered {money(f.wagered)}, theoretical win "
            f"{f.theo:.2f}, actual win {signed(f.actual)}")

    def show_summary(self, row: int) -> None:
        self.theo_label.setText("")
        if not 0 <= row < len(self.items):
            self.bets.setRowCount(0)
            self.chart.set_lines("", [])
            return
        s = self.items[row]
        lines = [*s.bets, s.total]
        self.bets.setRowCount(len(lines))
        for r, line in enumerate(lines):
            row_text = [BET_NAMES.get(line.bet, line.bet if line.bet != "all" else "All bets"), str(line.wagers),
                        money(line.wagered), signed(line.house_net), hold_text(line)]
            for c, text in enumerate(row_text):
                item = QTableWidgetItem(text)
                if line.bet == "all":
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.bets.setItem(r, c, item)
        self.bets.resizeColumnsToContents()
        self.chart.set_lines(f"Table win per bet \u2014 {s.label}", list(s.bets))
