"""The pit supervisor's review on the floor database (``dealer-assist review --db URL``, issue 18).

One window over every table of a pit, read through the floor's read-only review role:

- **Tables**: each table's state — game, limits, open or closed, dealer, rounds this hour,
  last round's time (local), forwarding lag, and a stopped link's reason.
- **Rounds**: every round of the pit on the chosen day (local time, from a date picker), newest
  first, paged by keyset; a player search across tables (case-insensitive, partial names).
  Opening a round shows its events, settlements and rulings, re-decides it through the current
  rules, and exports its transcript.
- **Charts** (pyqtgraph): net/wagered % per table per hour through the day, rounds per hour
  per dealer, and the searched player's play across tables (time, total wagered, net).

Queries run on a worker thread (``ui.common.worker.Worker``): the window never waits on the network.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from PySide6.QtCore import QDate, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateEdit,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QSlider,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from dealer_assist.floor.connection import FloorError, FloorUnreachable
from dealer_assist.floor.reader import (
    FloorNote,
    FloorReader,
    FloorRound,
    FloorRoundDetail,
    HourFigure,
    TableState,
    sort_key,
)
from ui.common.screen_fit import fill_screen, keep_size, touch_header
from ui.common.style import money, review_style, signed
from ui.common.terminals_panel import show_terminals
from ui.common.worker import Worker
from ui.review.model import GAME_NAMES
from ui.review.pit_accounts import AccountsPanel
from ui.review.pit_alerts import AlertsPanel
from ui.review.pit_live import LiveTables, PitLive

__all__ = ["PitCharts", "PitWindow", "local_day_bounds"]

PAGE = 200
ALL_PITS = "all pits"
PLAY_TITLE = "player's play across tables: net per hour (size = wagered)"
CONNECT_AGAIN_MS = 5000  # the floor out of reach when the window opened: tried again this often


def local_day_bounds(day: _dt.date) -> tuple[_dt.datetime, _dt.datetime]:
    """The UTC bounds of a local calendar day (the supervisor thinks in local time)."""
    start = _dt.datetime(day.year, day.month, day.day).astimezone()
    end = (_dt.datetime(day.year, day.month, day.day) + _dt.timedelta(days=1)).astimezone()
    return start.astimezone(_dt.UTC), end.astimezone(_dt.UTC)


def _local(moment: _dt.datetime | str | None) -> str:
    if moment is None:
        return ""
    if isinstance(moment, str):
        moment = _dt.datetime.fromisoformat(moment.replace("Z", "+00:00"))
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _item(text: str, data: Any = None) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
    if data is not None:
        item.setData(Qt.ItemDataRole.UserRole, data)
    return item


def _fill(table: QTableWidget, headers: list[str], rows: list[list[str]], data: list[Any] | None = None) -> None:
    table.clear()
    table.setColumnCount(len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            table.setItem(r, c, _item(text, data[r] if data is not None and c == 0 else None))
    table.resizeColumnsToContents()


class RoundDialog(QDialog):
    """One floor round: replayed step by step on the dealer screen's layout (a slider), its
    events, settlements and rulings, re-decided by the current rules (every difference listed),
    its supervisors' notes and disputes, and exports (transcript JSON, settlement CSV, a one-page
    PDF report), as the store review offers them."""

    def __init__(self, detail: FloorRoundDetail, document: dict[str, Any], parent: QWidget | None = None,
                 notes: list[FloorNote] | None = None,
                 write_note: Callable[[str, str, bool, Callable[[str | None], None]], None] | None = None) -> None:
        super().__init__(parent)
        from dealer_assist.store.review_queries import redecide_record, replay
        from ui.common.table_view import TableView
        from ui.common.terminals_panel import replay_terminals
        from ui.review.export import event_text
        from ui.review.replay import ReplayPane

        s = detail.summary
        self.detail = detail
        self.setWindowTitle(f"{s.table} round {s.id} — {GAME_NAMES.get(s.game, s.game)}")
        self.document = document
        self._write_note = write_note
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"{s.table} ({s.pit}) · round {s.id} · {_local(s.started_at)} · "
                                f"dealer {s.dealer or '?'} · {s.status}"))
        self.steps = replay(detail.config, [ev for _, _, _, ev in detail.events])
        self.layout_view = TableView()
        self.terminals = replay_terminals(self.layout_view)  # Electronic: each terminal's wagers and hands
        # the dealer's screen's look: the felt, the areas' frames, the amounts' colours on them
        from ui.common.style import review_style

        self.setStyleSheet(review_style())
        # the replay is the first of the round's tabs, as in the review (issue 34: above the lists
        # it had 330-349 px at 1280×800 and 1366×768, and its layout scrolled): built for the
        # size it is shown at, whole (ui.review.replay.ReplayPane)
        replay_page = QWidget()
        replay_layout = QVBoxLayout(replay_page)
        replay_layout.addWidget(ReplayPane(self.layout_view, lambda: self.show_step(self.slider.value())), 1)
        self.step_label = QLabel()
        self.step_label.setWordWrap(True)
        replay_layout.addWidget(self.step_label)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setMaximum(max(0, len(self.steps) - 1))
        self.slider.valueChanged.connect(self.show_step)
        replay_layout.addWidget(self.slider)
        self._event_words = [event_text(ev) for _, _, _, ev in detail.events]
        tabs = QTabWidget()
        self.tabs = tabs
        tabs.addTab(replay_page, "Replay")
        self.events = QTableWidget()
        _fill(self.events, ["#", "time", "actor", "event"],
              [[str(seq), _local(at), actor, words]
               for (seq, at, actor, _ev), words in zip(detail.events, self._event_words, strict=True)])
        tabs.addTab(self.events, "Events")
        self.settlements = QTableWidget()
        _fill(self.settlements, ["player", "area", "hand", "bet", "stake", "result", "net", "clause", "stage"],
              [[x["player"], _text(x.get("area")), _text(x.get("hand")), x["bet"], money(x["stake"]), x["result"],
                signed(x["net"]), x["rule"] or "", x.get("stage") or ""] for x in detail.settlements])
        tabs.addTab(self.settlements, "Settlements")
        self.rulings = QTableWidget()
        _fill(self.rulings, ["event", "clause", "ruling", "text", "card moves"],
              [[_text(r.get("index")), r.get("rule") or "", r.get("ruling") or "", r.get("text") or "",
                ", ".join(f"{m.get('card')} {m.get('from')}\u2192{m.get('to')}" for m in r.get("moves") or [])]
               for r in detail.rulings])
        tabs.addTab(self.rulings, "Rulings")
        # Each finish of the round: the first forwarded copy, then any later one (a 5.7 card after
        # the end finished it again at the station); the tabs above show the latest.
        self.versions = QTableWidget()
        _fill(self.versions, ["finish", "status", "ended", "events", "net", "wagered", "house", "on the floor since"],
              [["first copy" if i == 0 else f"again ({i + 1})", v.status, _local(v.ended_at), str(v.events),
                ", ".join(f"{p} {signed(Decimal(str(n)))}" for p, n in v.net.items()), money(v.wagered),
                signed(v.house_net), _local(v.forwarded_at)] for i, v in enumerate(detail.versions)])
        tabs.addTab(self.versions, f"Finishes ({len(detail.versions)})")
        # Re-decide: the transcript through the current rules, compared with the record.
        self.redecision = redecide_record(document, detail.settlements, s.status, s.net, detail.rulings)
        self.differences = QTableWidget()
        _fill(self.differences, ["what", "which", "recorded", "re-decided"],
              [[d.what, d.key, d.recorded, d.redecided] for d in self.redecision.differences])
        redecide_page = QWidget()
        redecide_layout = QVBoxLayout(redecide_page)
        if self.redecision.error is not None:
            verdict = f"re-decided by the current rules: refused ({self.redecision.error})"
        elif self.redecision.same:
            verdict = "re-decided by the current rules: no difference"
        else:
            verdict = (f"re-decided by the current rules: {len(self.redecision.differences)} "
                       "difference(s) — a dispute to look into")
        self.verdict = QLabel(verdict)
        redecide_layout.addWidget(self.verdict)
        redecide_layout.addWidget(self.differences)
        tabs.addTab(redecide_page, "Re-decide")
        # Notes and disputes (floor.notes: the review role's only write).
        notes_page = QWidget()
        notes_layout = QVBoxLayout(notes_page)
        self.notes = QTableWidget()
        notes_layout.addWidget(self.notes)
        self.note_kind = QComboBox()
        self.note_kind.addItems(["note", "dispute"])
        self.note_author = QLineEdit()
        self.note_author.setPlaceholderText("supervisor's name")
        self.note_text = QLineEdit()
        self.note_text.setPlaceholderText("the note, or what is disputed and why")
        self.note_button = QPushButton("Add to the floor")
        self.note_button.setEnabled(write_note is not None)
        self.note_status = QLabel("")
        row = QHBoxLayout()
        for widget in (self.note_kind, self.note_author, self.note_text, self.note_button):
            row.addWidget(widget)
        notes_layout.addLayout(row)
        notes_layout.addWidget(self.note_status)
        self.note_button.clicked.connect(self.submit_note)
        self.show_notes(notes or [])
        tabs.addTab(notes_page, "Notes and disputes")
        layout.addWidget(tabs, 1)
        exports = QHBoxLayout()
        for kind, label in (("json", "Export transcript…"), ("csv", "Export settlements (CSV)…"),
                            ("pdf", "Printable report (PDF)…")):
            button = QPushButton(label)
            button.clicked.connect(lambda _=False, k=kind: self._export(k))
            exports.addWidget(button)
        layout.addLayout(exports)
        self.export_status = QLabel("")
        self.export_status.hide()  # shown with an export's outcome: no empty line under the replay
        layout.addWidget(self.export_status)
        self.events.cellClicked.connect(self._event_tapped)
        self.slider.setValue(self.slider.maximum())
        self.show_step(self.slider.value())
        keep_size(self)  # shown over the screen by its opener (ui.common.screen_fit)

    def _event_tapped(self, row: int, _column: int) -> None:
        """A tap on an event: the layout after it, on the Replay tab."""
        self.slider.setValue(row + 1)
        self.tabs.setCurrentIndex(0)

    def show_step(self, position: int) -> None:
        """The layout after ``position`` events (0: before the first), as the review shows it."""
        if not self.steps:
            return
        step = self.steps[max(0, min(position, len(self.steps) - 1))]
        self.layout_view.refresh(step.round, step.output, step.round.expectation())
        show_terminals(self.terminals, step.round, step.output)
        words = "before the first event" if position == 0 else \
            f"after event {position - 1}: {self._event_words[position - 1]}"
        line = f"step {position} of {len(self.steps) - 1} — {words}"
        if step.refusal:
            line += f" — REFUSED by the current rules: {step.refusal}"
        self.step_label.setText(line)

    def show_notes(self, notes: list[FloorNote]) -> None:
        self.note_rows = notes
        _fill(self.notes, ["written", "kind", "supervisor", "text", "floor account"],
              [[_local(n.written_at), n.kind, n.supervisor, n.text, n.db_role] for n in notes])

    def submit_note(self) -> None:
        """Hands the note to the window's worker (the network never blocks the dialog)."""
        if self._write_note is None:
            return
        author, text = self.note_author.text().strip(), self.note_text.text().strip()
        if not author or not text:
            self.note_status.setText("Give the supervisor's name and the text first.")
            return
        self.note_button.setEnabled(False)
        self.note_status.setText("writing to the floor…")

        def done(error: str | None) -> None:
            self.note_button.setEnabled(True)
            if error is not None:
                self.note_status.setText(f"Not recorded: {error}")
                return
            self.note_text.clear()
            self.note_status.setText("Recorded on the floor.")

        self._write_note(author, text, self.note_kind.currentText() == "dispute", done)

    # ---- exports

    def _export(self, kind: str) -> None:
        s = self.detail.summary
        title, name, pattern = {
            "json": ("Export transcript", f"{s.table}-round-{s.id}.json", "JSON (*.json)"),
            "csv": ("Export settlements", f"{s.table}-round-{s.id}-settlements.csv", "CSV (*.csv)"),
            "pdf": ("Printable report", f"{s.table}-round-{s.id}.pdf", "PDF (*.pdf)"),
        }[kind]
        path, _ = QFileDialog.getSaveFileName(self, title, name, pattern)
        if not path:
            return
        try:
            self.export_to(kind, path)
        except (OSError, ValueError) as exc:
            self.export_status.setText(f"Could not export: {exc}")
            self.export_status.show()
            return
        self.export_status.setText(f"Exported to {path}")
        self.export_status.show()

    def export_to(self, kind: str, path: str) -> None:
        """Write the round: ``json`` (the transcript ``settle`` reproduces), ``csv`` (one row per
        recorded settlement), ``pdf`` (the store review's one-page report)."""
        from dealer_assist.store.review_queries import settlement_csv_text
        from ui.review.export import export_pdf

        s = self.detail.summary
        if kind == "json":
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(self.document, indent=1, ensure_ascii=False) + "\n")
        elif kind == "csv":
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(settlement_csv_text(s.id, self.detail.settlements))
        elif kind == "pdf":
            title = f"Dealer Assist \u2014 {s.table} round {s.id} ({GAME_NAMES.get(s.game, s.game)})"
            export_pdf(path, title, self.report_sections(), self.layout_view.grab().toImage())
        else:
            raise ValueError(f"unknown export {kind!r}")

    def report_sections(self) -> list[tuple[str, list[str]]]:
        """The store review's report sections, from the floor's copy of the round."""
        from dealer_assist.store.review_queries import decimal
        from ui.review.export import (
            card_numbers,
            event_text,
            layout_lines,
            ruling_line,
            settlement_line,
        )

        d, s = self.detail, self.detail.summary
        head = [
            f"Table {s.table}   Pit {s.pit}   Game {GAME_NAMES.get(s.game, s.game)}   Status {s.status}   "
            f"Decks {d.config.get('decks', '-')}   Areas {d.config.get('areas', '-')}",
            f"Session {s.session_id or '-'}   Dealer {s.dealer or '-'}   Started {_local(s.started_at)}   "
            f"Ended {_local(s.ended_at) or '-'} (local time)",
            "Net: " + (", ".join(f"{p} {signed(decimal(v))}" for p, v in s.net.items()) or "-"),
            "Re-decided by the current rules: " + (
                f"refused ({self.redecision.error})" if self.redecision.error is not None
                else "no difference" if self.redecision.same
                else "; ".join(f"{x.what} {x.key}: {x.recorded} -> {x.redecided}" for x in self.redecision.differences)),
        ]
        raw = [ev for _, _, _, ev in d.events]
        numbers = card_numbers(raw)
        events = [f"{seq:>3} {_local(at)[11:]} {actor}: {event_text(ev)}"
                  + (f"  [card {numbers[i]}]" if i in numbers else "")
                  for i, (seq, at, actor, ev) in enumerate(d.events)]
        sections = [
            ("", head),
            ("Layout at the end of the round", layout_lines(d.result)),
            (f"Events ({len(events)})", events),
            (f"Settlements ({len(d.settlements)})", [settlement_line(e) for e in d.settlements] or ["none"]),
            (f"Rulings ({len(d.rulings)})", [ruling_line(r) for r in d.rulings] or ["none"]),
        ]
        if self.note_rows:
            sections.append(("Notes and disputes", [f"{_local(n.written_at)} {n.kind} by {n.supervisor}: {n.text}"
                                                    for n in self.note_rows]))
        return sections


def _text(value: Any) -> str:
    return "" if value is None else str(value)


class PitWindow(QMainWindow):
    """The review on the floor: a pit's tables, rounds, players and charts; the **Live** tab
    follows the tables as rounds land (``live_updated(tables)`` once it shows them)."""

    live_updated = Signal(object)
    alerts_updated = Signal(object)
    accounting_updated = Signal(object)
    report_saved = Signal(object)  # the message once a shift or day report is written (issue 35, Build 5)

    def __init__(self, url: str, *, today: _dt.date | None = None, live_tick: float = 5.0,
                 read_url: str | None = None) -> None:
        super().__init__()
        self.url = url  # the primary: the pit's writes (notes, acknowledgements, accounting)
        self.read_url = read_url  # a hot standby the pit reads (None: the primary)
        self._link_text = ""
        self.lag_text = ""  # how far the standby is behind, on the Live status line
        self.setWindowTitle("Dealer Assist — pit review (floor)")
        self.setStyleSheet(review_style())  # every touch control 48 px with 16 px type (issue 34 item 7)
        self._worker = Worker("floor-review", self)
        self._reader: FloorReader | None = None  # set once the floor has answered (_connect)
        self._last: FloorRound | None = None
        self.rounds_shown: list[FloorRound] = []
        self.states: list[TableState] = []

        central = QWidget()
        layout = QVBoxLayout(central)
        bar = QHBoxLayout()
        self.pit = QComboBox()
        self.pit.addItem(ALL_PITS)
        self.day = QDateEdit()
        self.day.setCalendarPopup(True)
        self.day.setDisplayFormat("yyyy-MM-dd")
        chosen = today or _dt.date.today()
        self.day.setDate(QDate(chosen.year, chosen.month, chosen.day))
        self.player = QLineEdit()
        self.player.setPlaceholderText("player (any part of the name)")
        # amount filters, as the store review: some player won or lost at least this much;
        # the round's wagers at least this much
        self.min_net = QLineEdit()
        self.min_net.setPlaceholderText("any")
        self.min_net.setMaximumWidth(90)
        self.min_wagered = QLineEdit()
        self.min_wagered.setPlaceholderText("any")
        self.min_wagered.setMaximumWidth(90)
        self.disputed = QCheckBox("disputed only")
        self.refresh_button = QPushButton("Refresh")
        for label, widget in (("Pit", self.pit), ("Day", self.day), ("Player", self.player),
                              ("net \u2265", self.min_net), ("wagered \u2265", self.min_wagered)):
            bar.addWidget(QLabel(label))
            bar.addWidget(widget)
        bar.addWidget(self.disputed)
        bar.addWidget(self.refresh_button)
        self.sort = "started"
        self.ascending = False
        layout.addLayout(bar)
        self.status = QLabel("connecting to the floor…")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.tabs = QTabWidget()
        self.live_tables = LiveTables()
        self.tabs.addTab(self.live_tables, "Live")
        self.alerts = AlertsPanel(self.acknowledge_alert)
        self.tabs.addTab(self.alerts, "Alerts")
        self.accounts = AccountsPanel(self.record_accounting, self.show_shift, self.save_report)
        self.live_status = QLabel("")
        self.live_status.setWordWrap(True)  # a server's error is long: on more lines, never cut
        self.tables = QTableWidget()
        self.rounds = QTableWidget()
        self.more = QPushButton("More rounds")
        rounds_page = QWidget()
        rounds_layout = QVBoxLayout(rounds_page)
        rounds_layout.addWidget(self.rounds)
        rounds_layout.addWidget(self.more)
        self.tabs.addTab(self.tables, "Tables")
        self.tabs.addTab(rounds_page, "Rounds")
        self.charts = PitCharts()
        self.tabs.addTab(self.charts, "Charts")
        # Theoretical win (issue 19): computed on request, it reads every round of the day.
        theo_page = QWidget()
        theo_layout = QVBoxLayout(theo_page)
        self.theo_button = QPushButton("Compute theoretical win")
        theo_layout.addWidget(self.theo_button)
        self.theo_table = QTableWidget()
        theo_layout.addWidget(self.theo_table)
        self.tabs.addTab(theo_page, "Theoretical win")
        self.tabs.addTab(self.accounts, "Accounting")
        layout.addWidget(self.tabs)
        layout.addWidget(self.live_status)
        self.setCentralWidget(central)
        # live: the floor's notifications wake the Live tab (one query a wake-up, never two at once)
        self.live = PitLive(url, self, tick=live_tick, replica_url=read_url)
        self.live.changed.connect(self.refresh_live)
        self.live.link.connect(self._live_link)
        self._live_contact: _dt.datetime | None = None  # the last time the Live tab read the floor
        self._live_running = False
        self._live_again = False
        self._live_debounce = QTimer(self)
        self._live_debounce.setSingleShot(True)
        self._live_debounce.setInterval(50)
        self._live_debounce.timeout.connect(self._query_live)
        # alerts: the conditions checked (and new alerts raised) every half minute and on opening
        self._alert_worker = Worker("floor-alerts", self)
        self._alerts_reader: FloorReader | None = None
        self._alert_timer = QTimer(self)
        self._alert_timer.setInterval(30000)
        self._alert_timer.timeout.connect(self.check_alerts)

        self.refresh_button.clicked.connect(self.refresh)
        self.pit.activated.connect(lambda _: self.refresh())
        self.day.dateChanged.connect(lambda _: self.refresh())
        self.player.returnPressed.connect(self.refresh)
        self.min_net.returnPressed.connect(self.refresh)
        self.min_wagered.returnPressed.connect(self.refresh)
        self.disputed.toggled.connect(lambda _: self.refresh())
        self.rounds.horizontalHeader().sectionClicked.connect(self.sort_by_column)
        touch_header(self.rounds.horizontalHeader())  # tapped to sort: 48 px (issue 34)
        self.more.clicked.connect(self.load_more)
        self.theo_button.clicked.connect(self.compute_theo)
        self.rounds.cellDoubleClicked.connect(self._open_row)
        self.pending = 0
        self._connect_again = QTimer(self)  # the floor out of reach at the start: tried again
        self._connect_again.setSingleShot(True)
        self._connect_again.setInterval(CONNECT_AGAIN_MS)
        self._connect_again.timeout.connect(self._start)
        self._start()

    # ---- worker plumbing

    def _submit(self, job: Callable[[], Any], done: Callable[[Any], None],
                failed: Callable[[BaseException], None] | None = None) -> None:
        self.pending += 1

        def finished(result: Any, error: BaseException | None) -> None:
            self.pending -= 1
            if error is not None:
                if failed is not None:
                    failed(error)
                else:
                    self.status.setText(f"floor: {error}")
                return
            done(result)

        self._worker.submit(job, finished)

    def reader(self) -> FloorReader:
        """The floor's reader (a worker's job), or a clear error while the floor has not answered yet."""
        reader = self._reader
        if reader is None:
            raise FloorError("no contact with the floor yet (trying again every few seconds)")
        return reader

    def _connect(self) -> list[str]:
        reader = FloorReader(self.url, self.read_url)
        try:
            pits = reader.pits()
        except BaseException:
            reader.close()
            raise
        self._reader = reader
        return pits

    def _start(self) -> None:
        """Reach the floor: its pits, then the tabs; out of reach, tried again (_not_connected)."""
        self._submit(self._connect, self._connected, failed=self._not_connected)

    def _not_connected(self, error: BaseException) -> None:
        """The floor out of reach when the window opened (issue 35): said on the status line and
        on the Live tab (grey), and tried again every few seconds, not left dead until reopened.
        A floor that answers and refuses (credentials, database: FloorMisconfigured), or a URL
        that is none, is not asked again by itself — that would not help — but on Refresh."""
        self.live_tables.show_no_contact(None)
        if isinstance(error, FloorError) and not isinstance(error, FloorUnreachable):
            self.status.setText(f"floor: {error} (check the floor's URL and this account; then Refresh)")
            return
        self.status.setText(f"floor: {error} (trying again)")
        self._connect_again.start()

    @property
    def retrying(self) -> bool:
        """Whether the window will try the floor again by itself (it has not answered yet)."""
        return self._connect_again.isActive()

    def _connected(self, pits: list[str]) -> None:
        # (once: no connect is tried again once the floor has answered)
        self._connect_again.stop()
        for pit in pits:
            self.pit.addItem(pit)
        if len(pits) == 1:
            self.pit.setCurrentIndex(1)
        self.refresh()
        self.live.start()
        self.check_alerts()
        self._alert_timer.start()

    # ---- table accounting

    def _day(self) -> _dt.date:
        qdate = self.day.date()
        return _dt.date(qdate.year(), qdate.month(), qdate.day())

    def show_shift(self, shift: str) -> None:
        day, pit = self._day(), self._filters()["pit"]

        def job() -> Any:
            reader = self.reader()
            return reader.shift_report(day, shift, pit)

        def done(report: Any, error: BaseException | None) -> None:
            if error is not None:
                self.accounts.message.setText(str(error))
            else:
                self.accounts.show_report(report)
                self.accounting_updated.emit(report)

        self._worker.submit(job, done)

    def save_report(self, shift: str | None, path: str) -> None:
        """The shift's report (the day's when ``shift`` is None) of the chosen day and pit, signed
        on paper: a CSV when ``path`` ends in .csv, else a PDF (dealer_assist.floor.reports)."""
        day, pit = self._day(), self._filters()["pit"]

        def job() -> str:
            from dealer_assist.floor import reports

            reader = self.reader()
            report = reader.report(day, shift, pit)
            data = reports.report_csv(report) if path.lower().endswith(".csv") else reports.report_pdf(report)
            reports.write_files([(path, data)])
            return f"saved the {report.kind} report {report.document} to {path}"

        def done(text: Any, error: BaseException | None) -> None:
            self.accounts.message.setText(str(error) if error is not None else str(text))
            self.report_saved.emit(self.accounts.message.text())

        self._worker.submit(job, done)

    def record_accounting(self, kind: str, fields: dict[str, str]) -> None:
        from dealer_assist.floor import accounting as acc

        day = self._day()

        def job() -> str:
            reader = self.reader()
            if kind == "drop":
                cash, markers = acc.amount(fields["cash"], "cash"), acc.amount(fields["markers"], "markers")
                reader.write(lambda conn: acc.record_drop(
                    conn, fields["table"], day, fields["shift"], cash, markers, fields["dealer"], fields["dealer_pin"],
                    fields["supervisor"], fields["supervisor_pin"]))
                return f"drop of {fields['table']}: {cash + markers:,.2f}"
            chips = acc.parse_chips(fields["chips"])
            done = reader.write(lambda conn: acc.record_chips(
                conn, fields["table"], day, fields["shift"], kind, chips, fields["dealer"], fields["dealer_pin"],
                fields["supervisor"], fields["supervisor_pin"]))
            after = " (after the closer: an adjustment beside the closed shift)" if done.adjustment else ""
            return (f"{kind} of {fields['table']}: {done.total:,.2f}, signed by {fields['dealer'].lower()} and "
                    f"{fields['supervisor'].lower()}{after}")

        def done(text: Any, error: BaseException | None) -> None:
            self.accounts.message.setText(str(error) if error is not None else f"recorded: {text}")
            if error is None:
                self.show_shift(fields["shift"])

        self._worker.submit(job, done)

    # ---- alerts

    def _alert_reader(self) -> FloorReader:
        # the alerts' own connection and thread: the first check works out the par sheets
        # (seconds), which must not hold up the window's other queries
        if self._alerts_reader is None:
            self._alerts_reader = FloorReader(self.url, self.read_url)
        return self._alerts_reader

    def check_alerts(self) -> None:
        pit = self._filters()["pit"]

        def job() -> Any:
            reader = self._alert_reader()
            reader.check_alerts(pit)
            return reader.alerts(pit)

        def done(rows: Any, error: BaseException | None) -> None:
            if error is not None:
                self.alerts.message.setText(f"floor: {error}")
            else:
                self.alerts.show_alerts(rows)
                self.alerts_updated.emit(rows)

        self._alert_worker.submit(job, done)

    def acknowledge_alert(self, alert_id: int, supervisor: str, note: str) -> None:
        pit = self._filters()["pit"]

        def job() -> Any:
            reader = self._alert_reader()
            reader.acknowledge(alert_id, supervisor, note)
            return reader.alerts(pit)

        def done(rows: Any, error: BaseException | None) -> None:
            if error is not None:
                self.alerts.message.setText(str(error))
                return
            self.alerts.message.setText(f"alert {alert_id} acknowledged by {supervisor}")
            self.alerts.note.clear()
            self.alerts.show_alerts(rows)
            self.alerts_updated.emit(rows)

        self._alert_worker.submit(job, done)

    # ---- live

    def refresh_live(self, _tables: object = None) -> None:
        """The floor changed (or a tick): read the tables' live state again, soon."""
        if self._live_running:
            self._live_again = True
            return
        self._live_debounce.start()

    def _live_link(self, text: str) -> None:
        """The listener's own link: lost, the Live tab greys (what it shows is no longer live)."""
        self._link_text = text
        self._show_live_status()
        if text != "floor: live":
            self.live_tables.show_no_contact(self._live_contact)

    def _query_live(self) -> None:
        pit = self._filters()["pit"]
        self._live_running = True

        def job() -> Any:
            reader = self.reader()
            tables = reader.live(pit)
            try:
                lag = reader.replica_lag()
            except FloorError as err:  # the primary out of reach: the standby still reads
                return tables, f"standby lag unknown ({err})"
            return tables, lag.text() if lag is not None else ""

        def done(result: Any, error: BaseException | None) -> None:
            self._live_running = False
            if error is not None:
                self.live_status.setText(f"floor: {error}")
                self.live_tables.show_no_contact(self._live_contact)
            else:
                tables, self.lag_text = result
                self._show_live_status()
                self._live_contact = _dt.datetime.now(_dt.UTC)
                self.live_tables.show_tables(tables)
                self.live_updated.emit(tables)
            if self._live_again:
                self._live_again = False
                self.refresh_live()

        self._worker.submit(job, done)

    def _show_live_status(self) -> None:
        self.live_status.setText(" \u00b7 ".join(t for t in (self._link_text, self.lag_text) if t))

    def closeEvent(self, event: Any) -> None:  # noqa: N802 - Qt's name
        reader = self._reader

        def close_reader() -> None:
            if reader is not None:
                reader.close()

        self.live.stop()
        self._connect_again.stop()
        self._alert_timer.stop()
        alerts_reader = self._alerts_reader
        self._alert_worker.submit(lambda: alerts_reader.close() if alerts_reader is not None else None)
        self._alert_worker.stop()
        self._worker.submit(close_reader)
        self._worker.stop()
        super().closeEvent(event)

    # ---- queries

    def _filters(self) -> dict[str, Any]:
        pit = self.pit.currentText()
        qdate = self.day.date()
        since, until = local_day_bounds(_dt.date(qdate.year(), qdate.month(), qdate.day()))
        player = self.player.text().strip() or None
        return {"pit": None if pit == ALL_PITS else pit, "since": since, "until": until, "player": player}

    def _round_filters(self) -> dict[str, Any] | None:
        """The listing's filters, or None (and the reason on the status line) for a wrong amount."""
        flt = self._filters()
        amounts: dict[str, Decimal | None] = {}
        for key, field_, words in (("min_net", self.min_net, "net"), ("min_wagered", self.min_wagered, "wagered")):
            text = field_.text().strip()
            try:
                amounts[key] = Decimal(text) if text else None
            except InvalidOperation:
                amounts[key] = None
                self.status.setText(f"{words} \u2265: {text!r} is not an amount (e.g. 100 or 37.50)")
                return None
            if amounts[key] is not None and not amounts[key].is_finite():  # type: ignore[union-attr]
                self.status.setText(f"{words} \u2265: {text!r} is not an amount (e.g. 100 or 37.50)")
                return None
        return {"pit": flt["pit"], "since": flt["since"], "until": flt["until"], "player": flt["player"],
                "player_partial": True, "min_net": amounts["min_net"], "min_wagered": amounts["min_wagered"],
                "disputed": self.disputed.isChecked(), "sort": self.sort, "ascending": self.ascending}

    #: the rounds list's columns the floor sorts by (the others keep the current order)
    SORT_COLUMNS = {0: "table", 1: "round", 2: "started", 5: "status", 7: "wagered", 8: "house"}

    def sort_by_column(self, column: int) -> None:
        """A click on a column title: sort by it in the database (again: the other way round)."""
        sort = self.SORT_COLUMNS.get(column)
        if sort is None:
            self.status.setText("that column is not sorted by the floor; the list keeps its order")
            return
        self.ascending = (not self.ascending) if sort == self.sort else False
        self.sort = sort
        self.refresh()

    def refresh(self) -> None:
        if self._reader is None:  # the floor has not answered yet: reach it first (then this)
            if not self.pending:
                self._connect_again.stop()
                self._start()
            return
        flt = self._filters()
        listing = self._round_filters()
        if listing is None:
            return

        def job() -> tuple[list[TableState], list[FloorRound], list[HourFigure], list[HourFigure], list[Any],
                           str | None]:
            reader = self.reader()
            states = reader.table_states(flt["pit"])
            rounds = reader.list_rounds(limit=PAGE, **listing)
            by_table = reader.hourly(pit=flt["pit"], since=flt["since"], until=flt["until"])
            by_dealer = reader.hourly(pit=flt["pit"], since=flt["since"], until=flt["until"], by="dealer")
            play = reader.player_play(flt["player"], since=flt["since"], until=flt["until"]) if flt["player"] else []
            return states, rounds, by_table, by_dealer, play, flt["player"]

        self._submit(job, self._show)
        self.refresh_live()

    def compute_theo(self) -> None:
        """Each table's and the pit's theoretical vs actual win and net/wagered for the chosen day."""
        flt = self._filters()

        def job() -> dict[str, Any]:
            from dealer_assist.floor.theo import pit_theo

            return pit_theo(self.reader(), pit=flt["pit"], since=flt["since"], until=flt["until"])

        self._submit(job, self._show_theo)

    def _show_theo(self, by_table: dict[str, Any]) -> None:
        from dealer_assist.odds.theo import total

        def pct(value: Decimal | None) -> str:
            return "-" if value is None else f"{value:.2f}%"

        lines = sorted(by_table.items())
        if lines:
            lines.append(("pit" if self._filters()["pit"] else "floor", total(t for _, t in lines)))
        _fill(self.theo_table, ["table", "rounds", "wagered", "theoretical win", "actual win", "theoretical net/wagered",
                                "actual net/wagered"],
              [[name, str(t.rounds), money(t.wagered), f"{t.theo:.2f}", money(t.actual), pct(t.theo_hold),
                pct(t.actual_hold)] for name, t in lines])

    def load_more(self) -> None:
        if self._last is None:
            return
        listing = self._round_filters()
        if listing is None:
            return
        before = sort_key(self._last, self.sort)

        def job() -> list[FloorRound]:
            reader = self.reader()
            return reader.list_rounds(limit=PAGE, before=before, **listing)

        self._submit(job, self._append_rounds)

    def _show(self, result: tuple[list[TableState], list[FloorRound], list[HourFigure], list[HourFigure],
                                  list[Any], str | None]) -> None:
        states, rounds, by_table, by_dealer, play, player = result
        self.states = states
        now = _dt.datetime.now(_dt.UTC)
        rows = []
        for s in states:
            limits = ", ".join(f"{bet} {money(lo)}–{money(hi)}" for bet, (lo, hi) in s.limits.items()
                               if isinstance(s.limits.get(bet), list) and len(s.limits[bet]) == 2)
            lag = ""
            if s.last_forwarded_at is not None and s.last_round_at is not None:
                lag = f"{max(0, int((s.last_forwarded_at - s.last_round_at).total_seconds()))} s"
            rows.append([s.table, s.pit, GAME_NAMES.get(s.game or "", s.game or ""), limits,
                         "open" if s.open else "closed", s.dealer or "", str(s.rounds_this_hour),
                         _local(s.last_round_at), lag,
                         f"last forwarded {int((now - s.last_forwarded_at).total_seconds() // 60)} min ago"
                         if s.last_forwarded_at else "", s.stopped or ""])
        _fill(self.tables, ["table", "pit", "game", "limits", "state", "dealer", "rounds this hour",
                            "last round", "forwarding lag", "link", "stopped"], rows)
        self.rounds_shown = []
        self._append_rounds(rounds)
        self.charts.show_figures(by_table, by_dealer, play, player)
        self.status.setText(f"{len(states)} tables · {len(rounds)} rounds shown")

    def _append_rounds(self, rounds: list[FloorRound]) -> None:
        self.rounds_shown.extend(rounds)
        self._last = self.rounds_shown[-1] if self.rounds_shown else None
        self.more.setEnabled(len(rounds) == PAGE)
        rows = [[r.table, str(r.id), _local(r.started_at), GAME_NAMES.get(r.game, r.game), r.dealer or "",
                 r.status, ", ".join(f"{p} {signed(r.net[p])}" if p in r.net else p for p in r.players),
                 money(r.wagered), signed(r.house_net), str(r.notes) if r.notes else ""] for r in self.rounds_shown]
        _fill(self.rounds, ["table", "round", "started", "game", "dealer", "status", "players (net)",
                            "wagered", "house", "notes"], rows, [(r.table, r.id) for r in self.rounds_shown])
        arrow = "\u2191" if self.ascending else "\u2193"
        column = next(c for c, key in self.SORT_COLUMNS.items() if key == self.sort)
        header = self.rounds.horizontalHeaderItem(column)
        if header is not None:
            header.setText(f"{header.text()} {arrow}")

    def _open_row(self, row: int, _column: int) -> None:
        item = self.rounds.item(row, 0)
        if item is None:
            return
        table, round_id = item.data(Qt.ItemDataRole.UserRole)
        self.open_round(str(table), int(round_id))

    def open_round(self, table: str, round_id: int, done: Callable[[RoundDialog], None] | None = None) -> None:
        def job() -> tuple[FloorRoundDetail | None, dict[str, Any], list[FloorNote]]:
            reader = self.reader()
            detail = reader.get_round(table, round_id)
            if detail is None:
                return None, {}, []
            return detail, reader.export_round(table, round_id), reader.notes(table, round_id)

        def show(result: tuple[FloorRoundDetail | None, dict[str, Any], list[FloorNote]]) -> None:
            detail, document, notes = result
            if detail is None:
                return
            dialog: RoundDialog | None = None

            def write_note(author: str, text: str, dispute: bool, finished: Callable[[str | None], None]) -> None:
                def note_job() -> list[FloorNote]:
                    reader = self.reader()
                    reader.add_note(table, round_id, author, text, dispute=dispute)
                    return reader.notes(table, round_id)

                def written(rows: Any, error: BaseException | None) -> None:
                    if error is None and dialog is not None:
                        dialog.show_notes(rows)
                    finished(None if error is None else str(error))

                self._worker.submit(note_job, written)

            dialog = RoundDialog(detail, document, self, notes=notes, write_note=write_note)
            fill_screen(dialog)  # the round over the screen, as the review shows it
            if done is not None:
                done(dialog)

        self._submit(job, show)


class PitCharts(QWidget):
    """Net/wagered % per table per hour, rounds per hour per dealer, a player's play across
    tables; each over local ``HH:MM`` (ui.review.pit_axis), in 16 px type."""

    def __init__(self) -> None:
        super().__init__()
        import pyqtgraph as pg

        from ui.review.pit_axis import AXIS_PX, HourAxis, axis_font

        spill = HourAxis().spill

        self._pg = pg
        layout = QVBoxLayout(self)
        self.hold = pg.PlotWidget(axisItems={"bottom": HourAxis()})
        self.dealers = pg.PlotWidget(axisItems={"bottom": HourAxis()})
        self.play = pg.PlotWidget(axisItems={"bottom": HourAxis()})
        self._axis_px = AXIS_PX
        self.legends: dict[str, Any] = {}
        for plot, name, title in (
                (self.hold, "net/wagered", "net/wagered % per table per hour (house net / wagered; hold % is win / drop)"),
                (self.dealers, "dealers", "rounds per hour per dealer"),
                (self.play, "play", PLAY_TITLE)):
            plot.setTitle(title, size=f"{AXIS_PX}px")
            # the legend beside the data, never over it (ten tables' lines ran under it, issue 35)
            legend = pg.LegendItem(labelTextSize=f"{AXIS_PX}px")
            item_layout = plot.getPlotItem().layout
            item_layout.addItem(legend, 2, 3)
            # between the data and the legend: room for half the last hour's label (HourAxis)
            item_layout.setColumnMinimumWidth(2, spill + 6)
            plot.getPlotItem().legend = legend  # (each named line is added to it)
            self.legends[name] = legend
            plot.getAxis("left").setTickFont(axis_font())
            plot.showGrid(x=True, y=True, alpha=0.3)
            layout.addWidget(plot)
        self.series: dict[str, dict[str, list[tuple[float, float]]]] = {}

    @staticmethod
    def _group(figures: list[HourFigure], value: Callable[[HourFigure], Decimal | None]) -> dict[str, list[tuple[float, float]]]:
        out: dict[str, list[tuple[float, float]]] = {}
        for f in figures:
            v = value(f)
            if v is not None:
                # a chart's coordinates (not money): the hour as a timestamp, the figure as a float
                out.setdefault(f.key, []).append((f.hour.timestamp(), float(v)))
        return out

    def _fit_legends(self) -> None:
        """Each legend in as many columns as its chart's height needs: every name in view."""
        from PySide6.QtGui import QFontMetrics

        from ui.review.pit_axis import axis_font

        row = QFontMetrics(axis_font()).height() + 6
        for name, legend in self.legends.items():
            plot = {"net/wagered": self.hold, "dealers": self.dealers, "play": self.play}[name]
            # the chart's height less its title's and its time axis's lines (not the data's box,
            # which a legend taller than the chart stretches, the time axis pushed out of view)
            room = max(row, plot.height() - 3 * row - 12)
            count = len(self.series.get(name, {}))
            columns = max(1, -(-count // max(1, int(room // row))))
            if legend.columnCount != columns:
                legend.setColumnCount(columns)

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        self._fit_legends()

    def show_figures(self, by_table: list[HourFigure], by_dealer: list[HourFigure], play: list[Any],
                     player: str | None = None) -> None:
        """The charts of a day; ``player``: the name searched (the third chart's, else it says
        to search one)."""
        pg = self._pg
        self.series = {
            "net/wagered": self._group(by_table, lambda f: f.net_wagered_percent),
            "dealers": self._group(by_dealer, lambda f: Decimal(f.rounds)),
        }
        player_series: dict[str, list[tuple[float, float]]] = {}
        sizes: dict[str, list[float]] = {}
        for player, table, hour, _rounds, wagered, net in play:
            key = f"{player} at {table}"
            player_series.setdefault(key, []).append((hour.timestamp(), float(net)))
            sizes.setdefault(key, []).append(6 + min(24.0, float(wagered) / 50))
        self.series["play"] = player_series
        for plot, name in ((self.hold, "net/wagered"), (self.dealers, "dealers"), (self.play, "play")):
            plot.clear()
            for index, (key, points) in enumerate(sorted(self.series[name].items())):
                xs = [p[0] for p in points]
                ys = [p[1] for p in points]
                pen = pg.intColor(index, hues=max(8, len(self.series[name])))
                if name == "play":
                    plot.plot(xs, ys, pen=None, symbol="o", symbolBrush=pen, symbolSize=sizes[key], name=key)
                else:
                    plot.plot(xs, ys, pen=pg.mkPen(pen, width=2), symbol="o", symbolSize=5,
                              symbolBrush=pen, name=key)
        if player and not player_series:
            title = f"{PLAY_TITLE}: no rounds of \u201c{player}\u201d this day"
        else:
            title = PLAY_TITLE if player else f"{PLAY_TITLE}: type a player's name above and Refresh"
        self.play.setTitle(title, size=f"{self._axis_px}px")
        for side in ("left", "bottom"):  # an empty chart: no numbers of no data (0.2 ... 0.8, 00:00)
            self.play.getAxis(side).setStyle(showValues=bool(player_series))
        self._fit_legends()
