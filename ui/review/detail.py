"""One recorded round in the review window: the layout step by step, events, settlements,
rulings, who did what, re-decide, integrity, notes and exports.

The layout is the dealer screen's own :class:`ui.common.table_view.TableView`, fed with the
round rebuilt from the recorded events up to the slider's position (a replay through
the engine; nothing here decides a rule). Re-decide runs every recorded event through
the current rules and lists any difference from what was recorded; it writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QImage, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from dealer_assist.base.errors import TranscriptError
from dealer_assist.store import AuditEntry, RoundDetail, StoreReader
from dealer_assist.store.review_queries import (
    IntegrityCheck,
    Redecision,
    ReplayStep,
    dealer_of,
    decimal,
    integrity_verdict,
    redecide,
    replay,
    round_integrity,
)
from ui.common.screen_fit import available_geometry
from ui.common.style import money, signed
from ui.common.table_view import BET_NAMES, TableView
from ui.common.terminals_panel import replay_terminals, show_terminals
from ui.review.export import (
    audit_text,
    card_numbers,
    event_text,
    export_csv,
    export_json,
    export_pdf,
    report_sections,
)
from ui.review.model import GAME_NAMES, short_time
from ui.review.replay import ReplayPane, ReplayWindow

OK_STYLE = "font-size: 20px; font-weight: bold; color: #1b5e20; background: #e8f5e9; padding: 8px;"
BAD_STYLE = "font-size: 20px; font-weight: bold; color: #b00020; background: #fde0e0; padding: 8px;"
# the round's integrity beside its export buttons: one row, the words as well as the colour
BANNER_OK = "font-size: 16px; font-weight: bold; color: #1b5e20; background: #e8f5e9; padding: 2px 6px;"
BANNER_BAD = "font-size: 16px; font-weight: bold; color: #b00020; background: #fde0e0; padding: 2px 6px;"
BANNER_UNCHECKED = "font-size: 16px; font-weight: bold; color: #6d4c00; background: #fff3e0; padding: 2px 6px;"
CHECK_WORDS = {(True, True): "intact", (False, True): "ALTERED", (False, False): "not checked",
               (True, False): "not checked"}  # (ok, checked)


# the export's file dialog by touch: 48 px controls and rows, 16-18 px type (issue 34)
FILE_DIALOG_STYLE = """
QFileDialog, QFileDialog QLabel { font-size: 16px; }
QFileDialog QAbstractItemView { font-size: 18px; }
QFileDialog QTreeView::item, QFileDialog QListView::item { min-height: 40px; }
QFileDialog QToolButton { font-size: 16px; min-width: 48px; min-height: 48px; }
QFileDialog QPushButton { font-size: 16px; min-height: 44px; padding: 2px 12px; }
QFileDialog QLineEdit, QFileDialog QComboBox { font-size: 16px; min-height: 46px; }
QFileDialog QHeaderView::section { font-size: 16px; min-height: 48px; }
"""


def _removable_media() -> list[Path]:
    """Mounted USB sticks and disks (/media/USER/*, /run/media/USER/*): where an export goes."""
    import getpass

    user = getpass.getuser()
    found: list[Path] = []
    for base in (Path("/media") / user, Path("/run/media") / user):
        try:
            found += sorted(p for p in base.iterdir() if p.is_dir())
        except OSError:
            continue
    return found


def _table(headers: Sequence[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(list(headers))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setStretchLastSection(True)
    table.setWordWrap(False)
    return table


def _fill(table: QTableWidget, rows: Sequence[Sequence[str]]) -> None:
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            table.setItem(r, c, QTableWidgetItem(text))
    table.resizeColumnsToContents()


def expectation_text(output: Mapping[str, Any]) -> str:
    """What the round waited for at this step, in words."""
    status = output.get("status")
    nxt = output.get("next")
    if status in ("settled", "void"):
        return f"round {status}"
    if not nxt:
        return str(status)
    kind = nxt.get("expect")
    if kind == "wagers":
        return "waiting for wagers"
    if kind == "card":
        return f"next card to {nxt.get('for')}"
    if kind == "decision":
        where = f"area {nxt.get('area')} hand {nxt.get('hand')}" if nxt.get("area") else f"hand {nxt.get('hand')}"
        return f"decision: {nxt.get('player')} on {where} ({', '.join(nxt.get('options') or [])})"
    if kind == "decisions":
        return "decisions from " + ", ".join(str(p.get("player")) for p in nxt.get("pending") or [])
    if kind == "ruling":
        return f"referred to the shift manager ({nxt.get('rule')})"
    return str(kind)


class RoundDetailView(QWidget):
    """Everything about one round. ``note_requested(round_id)`` asks the window for a note."""

    note_requested = Signal(int)
    list_requested = Signal()  # *◀ Rounds list*: the window shows its list again

    def __init__(self, reader: StoreReader, table: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.reader = reader
        self.store = reader.store  # the round details, exports
        self.table_name = table
        self.detail: RoundDetail | None = None
        self.steps: list[ReplayStep] = []
        self.redecision: Redecision | None = None
        self.integrity: list[IntegrityCheck] = []
        # Where a round this file cannot check is checked (a station's copy: its service keeps
        # the key, op round_integrity): ``checker(round_id, done)``, done(checks) on this thread.
        self.integrity_checker: Callable[[int, Callable[[list[IntegrityCheck]], None]], None] | None = None
        self.audit: list[AuditEntry] = []
        self.dealer: str | None = None
        self.save_path: Callable[[str, str, str], str | None] = self._ask_path

        # Three rows above the tabs (issue 34: the replay's height at 1280×800 and 1366×768):
        # [◀ Rounds list] title / integrity + exports / the round's tabs.
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(4)
        head = QHBoxLayout()
        self.back_button = QPushButton("\u25c0 Rounds list")
        self.back_button.setToolTip("The rounds list and its filters again")
        self.back_button.clicked.connect(self.list_requested.emit)
        head.addWidget(self.back_button, 0, Qt.AlignmentFlag.AlignTop)
        self.title = QLabel("Choose a round in the list")
        self.title.setProperty("role", "title")
        self.title.setWordWrap(True)
        head.addWidget(self.title, 1)
        outer.addLayout(head)

        buttons = QHBoxLayout()
        self.integrity_banner = QLabel("")
        self.integrity_banner.setWordWrap(True)
        buttons.addWidget(self.integrity_banner, 1)
        # short words: the four share the pane's width at 1280 px (the tooltips say the rest)
        self.export_json_button = QPushButton("Transcript (JSON)")
        self.export_json_button.setToolTip("Export the round's transcript (JSON), as `history export` writes it")
        self.export_csv_button = QPushButton("Settlements (CSV)")
        self.export_csv_button.setToolTip("Export the round's settlements (CSV)")
        self.export_pdf_button = QPushButton("Report (PDF)")
        self.export_pdf_button.setToolTip("A printable report of the round (PDF)")
        self.note_button = QPushButton("Note\u2026")
        self.note_button.setToolTip("Add a supervisor's note to the round")
        for b in (self.export_json_button, self.export_csv_button, self.export_pdf_button, self.note_button):
            b.setEnabled(False)
            buttons.addWidget(b)
        outer.addLayout(buttons)
        self.export_json_button.clicked.connect(lambda: self._export("json"))
        self.export_csv_button.clicked.connect(lambda: self._export("csv"))
        self.export_pdf_button.clicked.connect(lambda: self._export("pdf"))
        self.note_button.clicked.connect(lambda: self.note_requested.emit(self.round_id or 0))
        self.export_status = QLabel("")
        self.export_status.hide()  # shown with an export's outcome: no empty line over the replay
        outer.addWidget(self.export_status)

        self.tabs = QTabWidget()
        outer.addWidget(self.tabs, 1)

        # --- replay: step controls + layout (the event list is the next tab: a tap there shows its step)
        replay_page = QWidget()
        self.replay_page = replay_page
        rp = QVBoxLayout(replay_page)
        rp.setContentsMargins(2, 4, 2, 2)
        rp.setSpacing(4)
        controls = QHBoxLayout()
        self.first_button = QPushButton("|\u25c0 First")
        self.prev_button = QPushButton("\u25c0 Step back")
        self.next_button = QPushButton("Step \u25b6")
        self.last_button = QPushButton("Last \u25b6|")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setMinimum(0)
        self.slider.setMaximum(0)
        self.step_label = QLabel("")
        for b in (self.first_button, self.prev_button):
            controls.addWidget(b)
        controls.addWidget(self.slider, 1)
        for b in (self.next_button, self.last_button):
            controls.addWidget(b)
        # the whole screen for a big round: the pane's layout scrolls, this one fits
        self.full_button = QPushButton("Full screen (F11)")
        self.full_button.setEnabled(False)
        self.full_button.clicked.connect(self.open_full_replay)
        QShortcut(QKeySequence("F11"), self, self.open_full_replay)
        self.full_replay: ReplayWindow | None = None
        controls.addWidget(self.full_button)
        rp.addLayout(controls)
        rp.addWidget(self.step_label)
        self.first_button.clicked.connect(lambda: self.slider.setValue(0))
        self.prev_button.clicked.connect(lambda: self.slider.setValue(self.slider.value() - 1))
        self.next_button.clicked.connect(lambda: self.slider.setValue(self.slider.value() + 1))
        self.last_button.clicked.connect(lambda: self.slider.setValue(self.slider.maximum()))
        self.slider.valueChanged.connect(self.show_step)

        self.layout_view = TableView()
        self.terminals = replay_terminals(self.layout_view)  # Electronic: each terminal's wagers and hands
        self.replay_pane = ReplayPane(self.layout_view, lambda: self.show_step(self.slider.value()))
        rp.addWidget(self.replay_pane, 1)
        self.tabs.addTab(replay_page, "Replay")
        # the recorded events, one a row: a tap shows the layout after that event (issue 34: under
        # the layout they left it 190-240 px at 1280×800 and 1366×768)
        self.events_table = _table(["#", "Time (UTC)", "Who", "Event", "Shoe card"])
        self.events_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.events_table.cellClicked.connect(self._event_tapped)
        self.tabs.addTab(self.events_table, "Events")

        # --- settlements and rulings as recorded
        self.settlements_table = _table(
            ["Player", "Area", "Hand", "Bet", "Stake", "Result", "Net", "Clause", "Stage", "Pay-table row"])
        self.tabs.addTab(self.settlements_table, "Settlements")
        # --- theoretical win (issue 19): stake x house edge of each wager, beside the actual win
        theo_page = QWidget()
        tp = QVBoxLayout(theo_page)
        self.theo_button = QPushButton("Compute theoretical win")
        self.theo_button.setEnabled(False)
        self.theo_button.clicked.connect(self.show_theo)
        tp.addWidget(self.theo_button)
        self.theo_note = QLabel("Theoretical win = each wager's stake \u00d7 its bet's house edge in this game at "
                                "this deck count (dealer-assist odds); the main wager by its original amount.")
        self.theo_note.setWordWrap(True)
        tp.addWidget(self.theo_note)
        self.theo_table = _table(["Player", "Bets", "Wagered", "Theoretical win", "Actual win"])
        tp.addWidget(self.theo_table, 1)
        self.tabs.addTab(theo_page, "Theoretical win")
        self.rulings_table = _table(["Event", "Clause", "Ruling", "Card moves", "Text"])
        self.tabs.addTab(self.rulings_table, "Rulings")
        self.people_table = _table(["Time (UTC)", "Who", "What", "Detail"])
        self.tabs.addTab(self.people_table, "Who did what")

        # --- re-decide
        redecide_page = QWidget()
        rd = QVBoxLayout(redecide_page)
        intro = QLabel("Re-decide runs the recorded events through the current rules and compares the result "
                       "with what was recorded and paid. It changes nothing that is recorded.")
        intro.setWordWrap(True)
        rd.addWidget(intro)
        self.redecide_button = QPushButton("Re-decide with the current rules")
        self.redecide_button.setEnabled(False)
        self.redecide_button.clicked.connect(self.run_redecide)
        rd.addWidget(self.redecide_button, 0, Qt.AlignmentFlag.AlignLeft)
        self.redecide_result = QLabel("")
        self.redecide_result.setWordWrap(True)
        rd.addWidget(self.redecide_result)
        self.diff_table = _table(["What", "Wager", "Recorded (paid)", "Current rules"])
        rd.addWidget(self.diff_table, 1)
        self.tabs.addTab(redecide_page, "Re-decide")

        # --- integrity
        self.integrity_table = _table(["Check", "Result", "Detail"])
        integrity_page = QWidget()
        ip = QVBoxLayout(integrity_page)
        ip.addWidget(self.integrity_table, 1)
        self.tabs.addTab(integrity_page, "Integrity")

    def _event_tapped(self, row: int, _column: int) -> None:
        self.slider.setValue(row + 1)
        self.tabs.setCurrentWidget(self.replay_page)

    # ------------------------------------------------------------------ loading

    @property
    def round_id(self) -> int | None:
        return self.detail.summary.id if self.detail else None

    def load(self, round_id: int) -> None:
        detail = self.store.get_round(round_id)
        if detail is None:
            self.title.setText(f"Round {round_id} is not in this store")
            return
        self.detail = detail
        self.theo_button.setEnabled(True)
        self.theo_table.setRowCount(0)
        s = detail.summary
        self.dealer = dealer_of(self.reader, s.session_id)
        self.title.setText(
            f"Round {s.id} \u2014 {GAME_NAMES.get(s.game, s.game)} \u2014 table {self.table_name} \u2014 "
            f"{s.status.replace('_', ' ')} \u2014 dealer {self.dealer or ('transcript' if s.source == 'transcript' else '-')}"
            f" \u2014 started {short_time(s.started_at)} UTC"
        )
        self.audit = self.store.audit_entries(round_id=round_id)
        try:
            self.steps = replay(detail.config, [e.event for e in detail.events])
            replay_error = ""
        except TranscriptError as exc:  # a header the current rules cannot set up
            self.steps = []
            replay_error = f"Cannot replay: {exc.message}"
        numbers = card_numbers([e.event for e in detail.events])
        _fill(self.events_table, [
            [str(e.seq), short_time(e.at)[11:], e.actor, event_text(e.event), numbers.get(e.seq, "")]
            for e in detail.events
        ])
        # the pay-table row that won ("Two 8's") is kept only in the settle output, entry by entry
        recorded = list((detail.result or {}).get("settlements") or [])
        rows = recorded if len(recorded) == len(detail.settlements) else [{}] * len(detail.settlements)
        _fill(self.settlements_table, [
            [str(x["player"]), "" if x["area"] is None else str(x["area"]),
             "" if x["hand"] is None else str(x["hand"]), BET_NAMES.get(str(x["bet"]), str(x["bet"])),
             money(decimal(x["stake"])), str(x["result"]), signed(decimal(x["net"])), str(x["rule"] or ""),
             str(x["stage"] or ""), str(row.get("row") or "")]
            for x, row in zip(detail.settlements, rows, strict=True)
        ])
        _fill(self.rulings_table, [
            [str(r["index"]), str(r["rule"]), str(r["ruling"]),
             ", ".join(f"{m.get('card')} {m.get('from')}\u2192{m.get('to')}" for m in r["moves"]),
             str(r["text"] or "")]
            for r in detail.rulings
        ])
        people = [[short_time(e.at)[11:], e.actor, "event", event_text(e.event)] for e in detail.events]
        people += [[short_time(a.at)[11:], a.actor, a.kind, audit_text(a)] for a in self.audit]
        people.sort(key=lambda row: row[0])
        _fill(self.people_table, people)
        self.show_integrity(round_id, round_integrity(self.reader, round_id))
        if self.integrity_checker is not None and integrity_verdict(self.integrity) == "not checked":
            self.integrity_checker(round_id, lambda checks: self.show_integrity(round_id, checks))
        self.redecision = None
        self.redecide_result.setText("")
        self.redecide_result.setStyleSheet("")
        self.diff_table.setRowCount(0)
        for b in (self.export_json_button, self.export_csv_button, self.export_pdf_button, self.note_button,
                  self.redecide_button, self.full_button):
            b.setEnabled(True)
        self.slider.blockSignals(True)
        self.slider.setMaximum(max(0, len(self.steps) - 1))
        self.slider.setValue(max(0, len(self.steps) - 1))
        self.slider.blockSignals(False)
        if replay_error:
            self.step_label.setText(replay_error)
            self.step_label.setStyleSheet(BAD_STYLE)
            for b in (self.first_button, self.prev_button, self.next_button, self.last_button):
                b.setEnabled(False)
        else:
            self.show_step(len(self.steps) - 1)


    def show_integrity(self, round_id: int, checks: list[IntegrityCheck]) -> None:
        """The Integrity tab and the banner for ``checks`` of ``round_id`` (if it is still the
        round shown): intact, not checked here (no key), or altered."""
        if round_id != self.round_id:
            return
        self.integrity = checks
        _fill(self.integrity_table, [[c.name, CHECK_WORDS[c.ok, c.checked], c.detail] for c in checks])
        verdict = integrity_verdict(checks)
        if verdict == "intact":
            self.integrity_banner.setText("Integrity: INTACT \u2014 every hash link and record of this round checks.")
            self.integrity_banner.setStyleSheet(BANNER_OK)
        elif verdict == "not checked":
            # short, beside the export buttons: the Integrity tab says why and where to check
            self.integrity_banner.setText("Integrity: NOT CHECKED here \u2014 no station key with this file "
                                          "(the Integrity tab says where to check)")
            self.integrity_banner.setStyleSheet(BANNER_UNCHECKED)
        else:
            bad = "; ".join(f"{c.name}: {c.detail}" for c in checks if c.checked and not c.ok)
            self.integrity_banner.setText(f"Integrity: ALTERED \u2014 {bad}")
            self.integrity_banner.setStyleSheet(BANNER_BAD)

    def show_theo(self) -> None:
        """Each player's theoretical and actual win on this round (the house's view)."""
        if self.detail is None:
            return
        from dealer_assist.odds.theo import from_detail, round_theo, total

        lines = round_theo(from_detail(self.detail))
        rows = [[player, money(t.initial), money(t.wagered), f"{t.theo:.2f}", signed(t.actual)]
                for player, t in sorted(lines.items())]
        if lines:
            t = total(lines.values())
            rows.append(["table", money(t.initial), money(t.wagered), f"{t.theo:.2f}", signed(t.actual)])
        _fill(self.theo_table, rows)

    def show_step(self, position: int) -> None:
        """The layout after ``position`` events (0: before the first)."""
        if not self.steps:
            return
        position = max(0, min(position, len(self.steps) - 1))
        step = self.steps[position]
        rnd = step.round
        self.layout_view.refresh(rnd, step.output, rnd.expectation())
        show_terminals(self.terminals, rnd, step.output)
        total = len(self.steps) - 1
        if position == 0:
            words = "before the first event"
        else:
            raw = self.detail.events[position - 1] if self.detail else None
            words = f"after event {position - 1}: {event_text(raw.event)}" if raw else ""
        settled = step.output.get("settlements") or []
        line = f"Step {position} of {total} \u2014 {words} \u2014 {expectation_text(step.output)}"
        if settled:
            line += f" \u2014 {len(settled)} wager(s) settled so far"
        for ruling in step.output.get("rulings") or []:
            if position > 0 and ruling.get("index") == position - 1:
                line += f"\n\u26a0 RULING {ruling.get('rule')}: {ruling.get('text')}"
        if step.refusal:
            line += f" \u2014 REFUSED by the current rules: {step.refusal}"
        self.step_label.setText(line)
        self.step_label.setStyleSheet(BAD_STYLE if step.refusal else "font-size: 18px;")
        self.step_label.setWordWrap(True)
        self.prev_button.setEnabled(position > 0)
        self.first_button.setEnabled(position > 0)
        self.next_button.setEnabled(position < total)
        self.last_button.setEnabled(position < total)
        if position > 0:
            self.events_table.selectRow(position - 1)
        else:
            self.events_table.clearSelection()

    def open_full_replay(self) -> ReplayWindow | None:
        """The replay on the whole screen (ui.review.replay), at the pane's step."""
        if not self.steps:
            return None
        if self.full_replay is not None:
            self.full_replay.close()
            self.full_replay.deleteLater()
        self.full_replay = ReplayWindow(self)
        self.full_replay.open_on_screen()
        return self.full_replay

    def current_step(self) -> ReplayStep | None:
        return self.steps[self.slider.value()] if self.steps else None

    # ------------------------------------------------------------------ re-decide

    def run_redecide(self) -> Redecision | None:
        if self.round_id is None:
            return None
        result = redecide(self.reader, self.round_id)
        self.redecision = result
        if result.error:
            self.redecide_result.setText(f"The current rules refuse the recorded events: {result.error}")
            self.redecide_result.setStyleSheet(BAD_STYLE)
        elif result.same:
            count = len(result.output.get("settlements") or []) if result.output else 0
            self.redecide_result.setText(
                f"No difference: the current rules settle all {count} wagers exactly as recorded.")
            self.redecide_result.setStyleSheet(OK_STYLE)
        else:
            self.redecide_result.setText(
                f"{len(result.differences)} difference(s) between what was recorded and the current rules:")
            self.redecide_result.setStyleSheet(BAD_STYLE)
        _fill(self.diff_table, [[d.what, d.key, d.recorded, d.redecided] for d in result.differences])
        return result

    # ------------------------------------------------------------------ exports

    def export_dialog(self, kind: str, suggested: str, pattern: str) -> QFileDialog:
        """Where to save an export: Qt's own file dialog on every desktop, by touch (issue 34: its
        13 px rows and 24 px tool buttons), within the screen, the home folder and any mounted
        USB stick in its side bar."""
        dialog = QFileDialog(self, f"Export round as {kind}")
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog)  # a native one may not fit a touch screen
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter(pattern)
        dialog.selectFile(suggested)
        dialog.setStyleSheet(FILE_DIALOG_STYLE)
        places = [Path.home(), *_removable_media()]
        dialog.setSidebarUrls([QUrl.fromLocalFile(str(place)) for place in places])
        area = available_geometry(self)
        dialog.resize(min(1100, area.width() * 9 // 10), min(720, area.height() * 9 // 10))
        dialog.move(area.center() - dialog.rect().center())
        listing = dialog.findChild(QTreeView, "treeView")  # its detail view: names and dates whole
        if listing is not None:
            for column, width in enumerate((dialog.width() // 2, 110, 110, 230)):
                listing.header().resizeSection(column, width)
        return dialog

    def _ask_path(self, kind: str, suggested: str, pattern: str) -> str | None:
        dialog = self.export_dialog(kind, suggested, pattern)
        if dialog.exec() != QFileDialog.DialogCode.Accepted:
            return None
        chosen = dialog.selectedFiles()
        return chosen[0] if chosen else None

    def _export(self, kind: str) -> str | None:
        if self.round_id is None:
            return None
        rid = self.round_id
        suffix = {"json": ("transcript (JSON)", f"round-{rid}.json", "JSON (*.json)"),
                  "csv": ("settlements (CSV)", f"round-{rid}-settlements.csv", "CSV (*.csv)"),
                  "pdf": ("report (PDF)", f"round-{rid}.pdf", "PDF (*.pdf)")}[kind]
        path = self.save_path(*suffix)
        if not path:
            return None
        try:
            self.export_to(kind, path)
        except (OSError, ValueError) as exc:
            self.export_status.setText(f"Could not export: {exc}")
            self.export_status.setStyleSheet(BAD_STYLE)
            self.export_status.show()
            return None
        self.export_status.setText(f"Exported {suffix[0]} to {path}")
        self.export_status.setStyleSheet("font-size: 16px; color: #1b5e20;")
        self.export_status.show()
        return path

    def export_to(self, kind: str, path: str) -> None:
        if self.round_id is None or self.detail is None:
            raise ValueError("no round chosen")
        if kind == "json":
            export_json(self.store, self.round_id, path)
        elif kind == "csv":
            export_csv(self.store, self.round_id, path)
        elif kind == "pdf":
            sections = report_sections(self.detail, self.table_name, self.dealer, self.integrity, self.audit)
            title = (f"Dealer Assist \u2014 round {self.round_id} "
                     f"({GAME_NAMES.get(self.detail.summary.game, self.detail.summary.game)})")
            export_pdf(path, title, sections, self.layout_picture())
        else:
            raise ValueError(f"unknown export {kind!r}")

    def layout_picture(self) -> QImage | None:
        """The layout as the round ended, as painted on screen (for the report)."""
        if not self.steps:
            return None
        position = self.slider.value()
        self.slider.setValue(self.slider.maximum())
        # a layout just rebuilt is laid out by the event loop: do it now, outside-in
        QApplication.sendPostedEvents()
        for widget in [self.layout_view, *self.layout_view.findChildren(QWidget)]:
            layout = widget.layout()
            if layout is not None:
                layout.activate()
        image = self.layout_view.grab().toImage()
        self.slider.setValue(position)
        return image

    def refresh_audit(self) -> None:
        """After a note was added: reload who-did-what and the integrity checks."""
        if self.round_id is not None:
            position = self.slider.value()
            self.load(self.round_id)
            self.slider.setValue(position)


__all__ = ["RoundDetailView", "expectation_text"]
