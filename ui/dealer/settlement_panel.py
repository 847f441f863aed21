"""Interim and final settlement: what to pay or collect, grouped by area in paying order
(the highest-numbered area first, the dealer's right).

The list the dealer reads has one row per player and area: each hand's and each side
bet's amount (``H1 +100  H2 −100  Pair +55``) and the player's total there; its rows
shrink to fit the panel (7 areas × 3 players × 4 hands without scrolling, issue 24 item 3).
*Details* shows instead a row per wager with its result, clause and stage, and the
per-player totals.

Reads the service's settle output's ``["settlements"]`` and ``["net"]``. The amount column never
scrolls out of view: the wager column takes what is left and elides a long bet name
(the whole name, the result and the clause are in the row's tooltip; *Clauses* shows
the clause and stage columns).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontInfo, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ui.common.qtfix import AfterPaint
from ui.common.round_view import paying_order, settled_cell
from ui.common.style import pay_words, px, signed
from ui.common.table_view import BET_NAMES, SHORT_BET_NAMES

TOTAL_PAIRS = 2
TOTALS_HEADS = ("Player", "Total")  # the per-player totals' columns, a pair for each player of a row
SUMMARY = ("Area", "Player", "By hand and bet", "Total")
LIST_NAMES = {"insurance": "Ins", "even_money": "EvM"}  # shorter than the layout's row names
MIN_ROW_PX = 13  # the list's lines shrink to fit its panel, never below this (type >= 10 px)
MIN_FULL_PX = 12  # a row per player while it fits in type this size; else a row per area
MIN_WAGER_PX = 70  # the details' wager column at least this wide (a long name wrapped) ...
LEAST_DETAILS_PX = 10  # ... while the details' type can step down to this to leave it that
WRAP_SLACK_PX = 8  # a cell's text lies inside its frame's margins (a wrapped name's width)
COLUMNS = ("Area", "Player", "Wager", "Result", "Pay / collect", "Rule", "Stage")
_GROUP_BRUSHES = (QBrush(QColor("#ffffff")), QBrush(QColor("#eef3ee")))
_ACTION_BRUSHES = {"PAY": QBrush(QColor("#1b5e20")), "COLLECT": QBrush(QColor("#b00020"))}
_OTHER_BRUSH = QBrush(QColor("#333333"))


def _brush(value: str) -> QBrush:
    """Green to pay, red to collect (``PAY 80`` / ``+80``, ``COLLECT 5`` / ``−5``), else grey."""
    if value.startswith("+"):
        return _ACTION_BRUSHES["PAY"]
    if value.startswith("\u2212"):
        return _ACTION_BRUSHES["COLLECT"]
    return _ACTION_BRUSHES.get(value.split(" ")[0], _OTHER_BRUSH)


def _fill(table: QTableWidget, rows: list[tuple[tuple[str, ...], str, int]],
          shown: list[tuple[tuple[str, ...], str, int]], bold: QFont, amounts: Any = None) -> None:
    """Show ``rows`` ((cell texts, tooltip, background group) each) in ``table``, reusing its
    items and touching only what differs from ``shown`` (updated to ``rows``); the columns in
    ``amounts`` (default: "Pay / collect") are bold, right-aligned, green to pay, red to collect."""
    amount_cols = set(amounts) if amounts is not None else {COLUMNS.index("Pay / collect")}
    header = table.horizontalHeader()
    modes = [header.sectionResizeMode(col) for col in range(table.columnCount())]
    header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # sized once, at the end
    try:
        _fill_rows(table, rows, shown, bold, amount_cols)
    finally:
        for col, mode in enumerate(modes):
            header.setSectionResizeMode(col, mode)


def _fill_rows(table: QTableWidget, rows: list[tuple[tuple[str, ...], str, int]],
               shown: list[tuple[tuple[str, ...], str, int]], bold: QFont, amount_cols: set[int]) -> None:
    # rows are never removed, only hidden: the next round reuses their items
    if table.rowCount() < len(rows):
        table.setRowCount(len(rows))
    for row in range(table.rowCount()):
        hide = row >= len(rows)
        if table.isRowHidden(row) != hide:
            table.setRowHidden(row, hide)
    for row, entry in enumerate(rows):
        if row < len(shown) and shown[row] == entry:
            continue
        old = shown[row] if row < len(shown) else None
        values, tip, group = entry
        for col in range(table.columnCount()):
            value = values[col] if col < len(values) else ""
            item = table.item(row, col)
            if item is None:
                item = QTableWidgetItem(value)
                if col in amount_cols:
                    item.setFont(bold)
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                item.setToolTip(tip)
                item.setBackground(_GROUP_BRUSHES[group])
                if col in amount_cols:
                    item.setForeground(_brush(value))
                table.setItem(row, col, item)
                continue
            if old is None or old[0][col:col + 1] != values[col:col + 1]:
                item.setText(value)
                if col in amount_cols:
                    item.setForeground(_brush(value))
            if old is None or old[1] != tip:
                item.setToolTip(tip)
            if old is None or old[2] != group:
                item.setBackground(_GROUP_BRUSHES[group])
        if row < len(shown):
            shown[row] = entry
        else:
            shown.append(entry)


def _set_type(table: QTableWidget, sizes: tuple[int, int, int], rows: int,
              fonts: tuple[QFont, QFont, set[int]]) -> int:
    """The type ``size`` of ``sizes`` (size, the view's own, the size set now: 0 for the view's
    own) on ``table``'s first ``rows`` rows and its header's sections, its columns fixed (sized
    by the caller); ``fonts``: (regular, bold, the bold columns). The size set now is returned."""
    size, most, now = sizes
    font, bold, bold_cols = fonts
    header = table.horizontalHeader()
    for col in range(table.columnCount()):
        header.setSectionResizeMode(col, QHeaderView.ResizeMode.Fixed)
    if size != (now or most):
        # on the header's sections through a style sheet (the style sheet's type is the
        # view's: a font set on the view itself would not show)
        now = size if size != most else 0
        header.setStyleSheet(f"QHeaderView::section {{ font-size: {size}px; font-weight: bold; }}"
                             if size != most else "")
    for row in range(rows):
        for col in range(table.columnCount()):
            item = table.item(row, col)
            if item is not None and item.font().pixelSize() != size:
                item.setFont(bold if col in bold_cols else font)
    return now


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
        self.clauses_button = QPushButton("Details")
        self.clauses_button.setCheckable(True)
        self.clauses_button.toggled.connect(self._show_clauses)
        head.addWidget(self.clauses_button)
        layout.addLayout(head)
        self.summary = QTableWidget(0, len(SUMMARY))
        self.summary.setObjectName("settlement_summary")
        self.summary.setHorizontalHeaderLabels([""] * len(SUMMARY))  # hidden: its words would widen the columns
        self.summary.verticalHeader().setVisible(False)
        self.summary.horizontalHeader().setVisible(False)  # its room goes to the rows
        self.summary.verticalHeader().setMinimumSectionSize(MIN_ROW_PX)
        self.summary.horizontalHeader().setMinimumSectionSize(px(14))  # "7": no wider than it needs
        self._summary_px = 0  # the list's type size now
        self._row_px: dict[int, int] = {}  # the type size each row's items were given
        self._measured: dict[tuple[int, int], tuple[int, list[int], int]] = {}  # _measure's, this round
        # the list a row per player, and condensed to a row per area (when the first does not fit)
        self._summary_sets: tuple[list[tuple[tuple[str, ...], str, int]], ...] = ([], [])
        self._summary_grouped = False
        self.summary.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.summary.setWordWrap(True)
        self.summary.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.summary.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        sheader = self.summary.horizontalHeader()
        for col, name in enumerate(SUMMARY):
            mode = (QHeaderView.ResizeMode.Stretch if name == "By hand and bet"
                    else QHeaderView.ResizeMode.ResizeToContents)
            sheader.setSectionResizeMode(col, mode)
        self.summary.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        layout.addWidget(self.summary, 1)
        self._summary_shown: list[tuple[tuple[str, ...], str, int]] = []
        self._summary_lines: list[int] = []
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # a wager's name wraps onto more lines where its column is narrow (its row as high as
        # that, _fit_details): "Royal Match" was "Royal Matc…" at 1366x768
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # rows grown by wrapped names can bring the scroll bar, and a narrower view: fitted again
        self.table.verticalScrollBar().rangeChanged.connect(self._refit_details)
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
        self.totals.setHorizontalHeaderLabels(list(TOTALS_HEADS) * TOTAL_PAIRS)
        self.totals.verticalHeader().setVisible(False)
        self.totals.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.totals.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.totals.horizontalHeader().setStretchLastSection(True)
        self.totals.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.totals.setMinimumHeight(px(80))
        self.totals.verticalScrollBar().rangeChanged.connect(self._refit_details)
        layout.addWidget(self.totals, 2)
        self.rows: list[dict[str, Any]] = []
        self.net: dict[str, Any] = {}
        self._pending = False  # an output not yet in the tables
        # the details (a row per wager, the per-player totals) not yet filled with the rows
        # shown: they are filled when shown or read, not at every settlement (at the heavy
        # layout ~5 ms of the GUI thread after each settlement card, for two hidden tables)
        self._details_stale = False
        self._detail_count = 0  # the details' rows shown (the rows past them are hidden)
        self._details_px_now = 0  # the details' type's size now (0: the view's own)
        self._totals_count = 0  # the per-player rows shown (two players a row)
        self._totals_px_now = 0  # their type's size now (0: the view's own)
        self._after_paint = AfterPaint(self)
        self._shown: list[tuple[tuple[str, ...], str, int]] = []  # what each table row shows
        self._totals_shown: list[tuple[tuple[str, ...], str, int]] = []
        self._bold = QFont(self.table.font())
        self._bold.setBold(True)
        self._summary_count = 0
        self._show_clauses(False)

    def _show_clauses(self, on: bool) -> None:
        """Details: a row per wager with result, clause and stage, and the per-player totals."""
        if on:
            self._fill_details()  # filled when shown (or read), not at every settlement
        for name in ("Result", "Rule", "Stage"):
            self.table.setColumnHidden(COLUMNS.index(name), not on)
        self.summary.setVisible(not on)
        for w in (self.table, self.totals_title, self.totals):
            w.setVisible(on)
        if on:
            self._fit_details()
            self._after_paint.later("details", self._fit_details)  # again once laid out

    def _refit_details(self) -> None:
        if self.table.isVisibleTo(self):
            self._after_paint.later("details", self._fit_details)

    def _fit_details(self) -> None:
        """The details' columns within the panel's width, the amount always in view: each
        column as wide as its words, the wager what is left (a long name wrapped onto more
        lines, its row as high: :meth:`_wager_lines`); where that is under ``MIN_WAGER_PX``
        the type steps down, to ``LEAST_DETAILS_PX`` at most. (Sized to contents by the header, the seven columns
        overflowed the panel: at 1280x800 the amounts were out of view.)"""
        table = self.table
        room = table.viewport().width()
        if not table.isVisibleTo(self) or room <= 0:
            return
        rows = [values for values, _, _ in self._shown[:self._detail_count]]
        columns = [c for c in range(len(COLUMNS)) if not table.isColumnHidden(c)]
        wager, amount = COLUMNS.index("Wager"), COLUMNS.index("Pay / collect")
        most = size = QFontInfo(table.font()).pixelSize()  # the view's type (its style sheet's)
        while True:
            font, bold = QFont(table.font()), QFont(self._bold)
            font.setPixelSize(size)
            bold.setPixelSize(size)
            metrics, bold_metrics = QFontMetrics(font), QFontMetrics(bold)
            # the wager's longest word whole (a name wraps at its words, never inside one)
            need = max([px(MIN_WAGER_PX), *(metrics.horizontalAdvance(word) + WRAP_SLACK_PX
                                             for r in rows if wager < len(r) for word in r[wager].split())])
            for pad in (px(12), px(10)):  # each column's room beside its words; less where the wager needs it
                widths = {}
                for col in columns:
                    if col == wager:
                        continue
                    fm = bold_metrics if col == amount else metrics
                    words = [fm.horizontalAdvance(r[col]) for r in rows if col < len(r)]
                    widths[col] = max([*words, bold_metrics.horizontalAdvance(COLUMNS[col])]) + pad
                left = room - sum(widths.values())
                if left >= need:
                    break
            if left >= need or size <= LEAST_DETAILS_PX:
                break
            size -= 1
        header = table.horizontalHeader()
        self._details_px_now = _set_type(table, (size, most, self._details_px_now), self._detail_count,
                                         (font, bold, {amount}))
        for col, width in widths.items():
            header.resizeSection(col, width)
        header.resizeSection(wager, max(px(24), left))
        self._wager_lines(metrics, max(px(24), left))
        self._fit_totals()

    def _fit_totals(self) -> None:
        """The per-player totals' columns (two players a row) within the panel's width, every
        name and amount whole: their type steps down, to ``LEAST_DETAILS_PX`` at most (sized
        to contents, twelve terminals' "COLLECT 220" were "COLLECT …" at 1280x800)."""
        table = self.totals
        room = table.viewport().width()
        if not table.isVisibleTo(self) or room <= 0:
            return
        rows = [values for values, _, _ in self._totals_shown[:self._totals_count]]
        amounts = set(range(1, 2 * TOTAL_PAIRS, 2))
        heads = list(TOTALS_HEADS) * TOTAL_PAIRS
        most = size = QFontInfo(table.font()).pixelSize()
        while True:
            font, bold = QFont(table.font()), QFont(self._bold)
            font.setPixelSize(size)
            bold.setPixelSize(size)
            metrics, bold_metrics = QFontMetrics(font), QFontMetrics(bold)
            widths = [max([*((bold_metrics if c in amounts else metrics).horizontalAdvance(r[c])
                             for r in rows if c < len(r)), bold_metrics.horizontalAdvance(heads[c])]) + px(12)
                      for c in range(len(heads))]
            if sum(widths) <= room or size <= LEAST_DETAILS_PX:
                break
            size -= 1
        header = table.horizontalHeader()
        self._totals_px_now = _set_type(table, (size, most, self._totals_px_now), self._totals_count,
                                        (font, bold, amounts))
        for col, width in enumerate(widths[:-1]):  # (the last: what is left)
            header.resizeSection(col, width)

    def _wager_lines(self, metrics: QFontMetrics, width: int) -> None:
        """Each row as high as its wager's name takes, wrapped at its words in ``width`` (one
        line where it fits): every name whole, none elided."""
        table, wager = self.table, COLUMNS.index("Wager")
        rows = table.verticalHeader()
        one = rows.defaultSectionSize()
        room = QRect(0, 0, max(1, width - WRAP_SLACK_PX), 10_000)
        for row in range(self._detail_count):
            item = table.item(row, wager)
            text = item.text() if item is not None else ""
            high = metrics.boundingRect(room, Qt.TextFlag.TextWordWrap, text).height() + (one - metrics.height())
            want = max(one, high)
            if rows.sectionSize(row) != want:
                rows.resizeSection(row, want)

    def summary_rows(self) -> list[tuple[str, ...]]:
        """The dealer's list as shown: (area, player, by hand and bet, total) a row."""
        self.flush()
        return [row[0] for row in self._summary_shown[:self._summary_count]]

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        # after the card is painted: the prompt's change at a settlement resizes this panel in
        # the card's redraw, and the fit (a style sheet when the type changes) cost ~10 ms there
        self._after_paint.later("fit", self._fit_summary)
        if self.table.isVisibleTo(self):
            self._after_paint.later("details", self._fit_details)

    def _fit_summary(self) -> None:
        """Rows as high as the panel allows for all of them (a two-line row counts twice).

        A row per player while they all fit in type of at least ``MIN_FULL_PX``; else the list
        condenses to a row per area, each player's total in it (the bets' amounts stay on the
        layout's wager cells), so 7 areas × 3 players × 4 hands never scroll (issue 24 item 3).
        The type goes on the rows' items (a style sheet of its own restyled the whole list,
        ~3 ms, and the panel's height changes with the prompt on most cards of a settled
        round); the words are measured once a size and round (``_measured``)."""
        if not self._summary_sets[0]:
            return
        viewport = self.summary.viewport()
        room = viewport.height()
        scroll_w = self.summary.verticalScrollBar().sizeHint().width()
        for grouped, chosen in enumerate(self._summary_sets):
            size, lines, line, fits = self._fit_size(grouped, chosen, room, viewport.width() - scroll_w)
            if fits:
                break
        if self._summary_shown[:self._summary_count] != chosen or self._summary_count != len(chosen):
            _fill(self.summary, chosen, self._summary_shown, self._bold, amounts=[SUMMARY.index("Total")])
            self._summary_count = len(chosen)
        count = self._summary_count
        self._summary_grouped = bool(grouped)
        font, bold = QFont(self.summary.font()), QFont(self._bold)
        font.setPixelSize(size)
        bold.setPixelSize(size)
        self._summary_lines = lines
        line = max(MIN_ROW_PX, min(px(30), line))
        self._summary_px = size
        amount = SUMMARY.index("Total")
        stale = [row for row in range(count) if self._row_px.get(row) != size]  # new rows, or another size
        if stale:
            header = self.summary.horizontalHeader()
            modes = [header.sectionResizeMode(col) for col in range(len(SUMMARY))]
            header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # the columns sized once, after
            try:
                for row in stale:
                    self._row_px[row] = size
                    for col in range(len(SUMMARY)):
                        item = self.summary.item(row, col)
                        if item is not None:
                            item.setFont(bold if col == amount else font)
            finally:
                for col, mode in enumerate(modes):
                    header.setSectionResizeMode(col, mode)
        for row in range(count):
            height = line * lines[row] + 1
            if self.summary.rowHeight(row) != height:
                self.summary.setRowHeight(row, height)

    def _fit_size(self, grouped: int, entries: list[tuple[tuple[str, ...], str, int]], room: int,
                  width: int) -> tuple[int, list[int], int, bool]:
        """The largest type at which every row's lines fit ``room``: (type px, each row's
        lines, line height, whether they fit at a readable size)."""
        rows = [values for values, _, _ in entries]
        count = len(rows)
        floor = MIN_FULL_PX if not grouped else MIN_ROW_PX - 3
        font, bold = QFont(self.summary.font()), QFont(self._bold)
        size = px(17)
        while True:
            font.setPixelSize(size)
            bold.setPixelSize(size)
            others, words, spacing = self._measure((grouped, size), rows, font, bold)
            # the other columns as wide as their words at this size (they size to contents)
            usable = max(1, width - others - 14)
            lines = [min(3, -(-w // usable)) for w in words]
            line = (room - count) // max(1, sum(lines))  # 1 px a row: the grid line
            if line >= spacing + 1:
                return size, lines, line, True
            if size <= floor:
                return size, lines, line, False
            size -= 1

    def _measure(self, size: tuple[int, int], rows: list[tuple[str, ...]], font: QFont,
                 bold: QFont) -> tuple[int, list[int], int]:
        """(the other columns' width, each row's words' width, the line spacing) at ``size``
        (the list's form: 0 a row per player, 1 a row per area; the type's size)."""
        known = self._measured.get(size)
        if known is None:
            metrics, bold_metrics = QFontMetrics(font), QFontMetrics(bold)
            others = (max(metrics.horizontalAdvance(r[0]) for r in rows) + max(metrics.horizontalAdvance(r[1]) for r in rows)
                      + max(bold_metrics.horizontalAdvance(r[3]) for r in rows) + 3 * 14)
            known = (others, [metrics.horizontalAdvance(r[2]) for r in rows], metrics.lineSpacing())
            self._measured[size] = known
        return known

    def show_output(self, output: dict[str, Any], heading: str | None = None, *, defer: bool = False) -> None:
        """Show ``output``'s settlements and per-player totals.

        ``defer``: fill the tables after the next paint (the dealer's screen: the card that
        brings a settlement is painted first, with the amounts on the areas' wager cells;
        the tables follow one event-loop turn later). Reading the panel (:meth:`cell`,
        :meth:`total_of`, :attr:`rows`) always sees ``output``."""
        settlements = list(output.get("settlements", []))
        ordered = [s for _, group in paying_order(settlements) for s in group]
        self.rows = ordered
        self.net = dict(output.get("net", {}))
        status = output.get("status")
        stages = {s.get("stage") for s in settlements}
        if heading is None:
            heading = ("Final settlement" if status in ("settled", "void") or output.get("next") is None
                       else "Interim settlement" if "interim" in stages else "Settlement")
        if self.title.text() != heading:
            self.title.setText(heading)
        self._pending = True
        if defer:
            self._after_paint.later("fill", self.flush)
        else:
            self.flush()

    def flush(self) -> None:
        """Fill the tables now with what :meth:`show_output` was last given (if not yet)."""
        if not self._pending:
            return
        self._pending = False
        ordered = self.rows
        summary = self._summary(ordered)
        self._summary_sets = (summary, self._summary_by_area(ordered))
        self._summary_count = len(summary)
        self._summary_lines = [1] * len(summary)
        self._measured = {}
        _fill(self.summary, summary, self._summary_shown, self._bold, amounts=[SUMMARY.index("Total")])
        self._fit_summary()
        self._after_paint.later("fit", self._fit_summary)  # again once the columns are laid out
        self._details_stale = True
        if self.table.isVisibleTo(self):
            self._fill_details()
            self._after_paint.later("details", self._fit_details)

    def _fill_details(self) -> None:
        """The details' tables with the rows of the output shown (if not yet)."""
        stale, self._details_stale = self._details_stale, False
        if not stale:
            return
        ordered = self.rows
        areas = any(s.get("area") is not None for s in ordered)
        hands = any(s.get("hand") is not None for s in ordered)
        self.table.setColumnHidden(0, not (areas or hands))
        # Electronic's entries name a hand of the shared hand, never an area
        header = self.table.horizontalHeaderItem(0)  # (set with the labels at the start)
        if header is not None:
            header.setText(COLUMNS[0] if areas or not hands else "Hand")
        rows: list[tuple[tuple[str, ...], str, int]] = []
        group = -1
        last_area: Any = object()
        for s in ordered:
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
            values = (where, str(s["player"]), bet, str(s["result"]), pay, str(s["rule"]), str(s.get("stage", "")))
            tip = f"{s['player']}: {bet}, stake {s['stake']}, {s['result']}: {pay} ({s['rule']}, {s.get('stage', '')})"
            rows.append((values, tip, group % 2))
        self._detail_count = len(rows)
        self.table.setUpdatesEnabled(False)  # one repaint for the whole table
        try:
            _fill(self.table, rows, self._shown, self._bold)
            totals: list[tuple[tuple[str, ...], str, int]] = []
            for player, net in self.net.items():
                amount = Decimal(str(net))
                words = pay_words(amount, "push") if amount else "even"
                totals.append(((str(player), words), f"{player}: {signed(net)}", 0))
            paired = [(tuple(v for t in totals[i:i + TOTAL_PAIRS] for v in t[0]),
                       " / ".join(t[1] for t in totals[i:i + TOTAL_PAIRS]), 0)
                      for i in range(0, len(totals), TOTAL_PAIRS)]
            _fill(self.totals, paired, self._totals_shown, self._bold, amounts=range(1, 2 * TOTAL_PAIRS, 2))
            self._totals_count = len(paired)
        finally:
            self.table.setUpdatesEnabled(True)

    @staticmethod
    def _summary(ordered: list[dict[str, Any]]) -> list[tuple[tuple[str, ...], str, int]]:
        """A row per (area, player) in paying order: each hand's and side bet's amount, the total."""
        groups: dict[tuple[Any, str], list[dict[str, Any]]] = {}
        for s in ordered:
            groups.setdefault((s.get("area"), str(s["player"])), []).append(s)
        rows: list[tuple[tuple[str, ...], str, int]] = []
        area_index = -1
        last_area: Any = object()
        seen: set[Any] = set()
        for (area, player), entries in groups.items():
            if area != last_area:
                area_index += 1
                last_area = area
            parts: dict[str, list[dict[str, Any]]] = {}
            hands = {e.get("hand") for e in entries if e["bet"] == "main"}
            for e in sorted(entries, key=lambda e: (e["bet"] != "main", e.get("hand") or 0)):  # hands first
                if e["bet"] == "main" and e.get("hand") is not None:
                    key = f"H{e['hand']}" if len(hands) > 1 else ""  # one hand: its amount alone
                else:
                    key = LIST_NAMES.get(e["bet"]) or SHORT_BET_NAMES.get(e["bet"], e["bet"])
                parts.setdefault(key, []).append(e)
            text = "  ".join(f"{k} {settled_cell(v).text}".strip() for k, v in parts.items())
            net = sum((Decimal(str(e["net"])) for e in entries), Decimal(0))
            total = settled_cell(entries).text if net else "="
            tip = "; ".join(f"{BET_NAMES.get(e['bet'], e['bet'])} {e['result']} {signed(e['net'])} ({e['rule']})"
                            for e in entries)
            shown_area = str(area) if area is not None and area not in seen else ""  # once a group
            seen.add(area)
            rows.append(((shown_area, player, text, total.strip()), tip, area_index % 2))
        return rows

    @staticmethod
    def _summary_by_area(ordered: list[dict[str, Any]]) -> list[tuple[tuple[str, ...], str, int]]:
        """The list condensed: a row per area in paying order, each player's total there."""
        areas: dict[Any, dict[str, list[dict[str, Any]]]] = {}
        for s in ordered:
            areas.setdefault(s.get("area"), {}).setdefault(str(s["player"]), []).append(s)
        rows: list[tuple[tuple[str, ...], str, int]] = []
        for index, (area, players) in enumerate(areas.items()):
            parts = []
            for player, entries in players.items():
                net = sum((Decimal(str(e["net"])) for e in entries), Decimal(0))
                parts.append(f"{player} {settled_cell(entries).text.strip() if net else '='}")
            tip = "; ".join(f"{e['player']} {BET_NAMES.get(e['bet'], e['bet'])} {e['result']} {signed(e['net'])} "
                            f"({e['rule']})" for entries in players.values() for e in entries)
            rows.append(((str(area) if area is not None else "", "", "   ".join(parts), ""), tip, index % 2))
        return rows

    def row_count(self) -> int:
        """The rows the table shows (its rows past them are hidden, kept for the next round)."""
        self.flush()
        self._fill_details()
        return sum(1 for row in range(self.table.rowCount()) if not self.table.isRowHidden(row))

    def cell(self, row: int, column: str) -> str:
        self.flush()
        self._fill_details()
        item = self.table.item(row, COLUMNS.index(column))
        return item.text() if item is not None else ""

    def total_of(self, player: str) -> str:
        self.flush()
        self._fill_details()
        for row in range(self.totals.rowCount()):
            if self.totals.isRowHidden(row):
                continue
            for col in range(0, 2 * TOTAL_PAIRS, 2):
                name = self.totals.item(row, col)
                if name is not None and name.text() == player:
                    value = self.totals.item(row, col + 1)
                    return value.text() if value is not None else ""
        return ""
