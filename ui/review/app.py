"""``dealer-assist review [--db FILE ...]``: the pit supervisor's review window.

Reads the table's store through its own read-only connection while the table keeps
playing (WAL readers never block the writer): the round list (filtered, sorted and
paged by the database, fast on a million rounds), one round step by step, its
settlements with their clauses, rulings with their card moves, who did what, re-decide
(the recorded events through the current rules, compared with what was paid),
integrity (hash chains), exports (transcript JSON, settlement CSV, one-page PDF),
notes (to the audit log, under a supervisor's PIN) and session summaries.

The dealer's screen opens it behind the supervisor PIN with :func:`open_review`.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import threading
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelection, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

import ui.common.qtfix  # noqa: F401  (before any Qt call: the guard against PySide6 6.12 on CPython 3.11)
from dealer_assist.cli.common import fail, no_display, whole_number
from dealer_assist.cli.history import parse_time
from dealer_assist.store import (
    ROUND_STATUSES,
    Store,
    StoreError,
    StoreReader,
    VerifyResult,
)
from dealer_assist.store.review_queries import (
    RoundFilter,
    count_rounds,
)
from ui.common.collector import start_gui_thread_collector
from ui.common.qtfix import GuiPost
from ui.common.screen_fit import (
    available_geometry,
    fill_screen,
    keep_size,
    screen_of,
    touch_header,
)
from ui.common.style import review_style
from ui.review.detail import BAD_STYLE, OK_STYLE, RoundDetailView
from ui.review.model import COLUMNS, GAME_NAMES, RoundListModel
from ui.review.note import NoteDialog, NoteWriter
from ui.review.station import StationEventsView
from ui.review.summary import SummaryView

REVIEW_STYLE = review_style()  # every touch control 48 px with 16 px type (issue 34 item 7)


class FilterBar(QWidget):
    """Date range, player, game, status, irregular, amount."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.since = QLineEdit()
        self.since.setPlaceholderText("from 2026-11-25")
        self.until = QLineEdit()
        self.until.setPlaceholderText("to (incl.)")
        self.player = QLineEdit()
        self.player.setPlaceholderText("player name\u2026")
        self.game = QComboBox()
        self.game.addItem("all games", None)
        for key, name in GAME_NAMES.items():
            self.game.addItem(name, key)
        self.status = QComboBox()
        self.status.addItem("any status", None)
        for status in ROUND_STATUSES:
            self.status.addItem(status.replace("_", " "), status)
        self.irregular = QCheckBox("irregular only")
        self.amount = QLineEdit()
        self.amount.setPlaceholderText("net \u2265 (either way)")
        self.apply_button = QPushButton("Filter")
        self.clear_button = QPushButton("Clear")
        for widget in (self.since, self.until, self.player, self.game, self.status, self.irregular,
                       self.amount, self.apply_button, self.clear_button):
            layout.addWidget(widget)
        for edit in (self.since, self.until, self.player, self.amount):
            edit.setMaximumWidth(190)

    def current(self) -> RoundFilter:
        """The filter the fields describe; ValueError with a readable message if one is wrong."""
        since = until = None
        try:
            if self.since.text().strip():
                since = parse_time(self.since.text().strip())
            if self.until.text().strip():
                until = parse_time(self.until.text().strip(), end=True)
        except argparse.ArgumentTypeError as exc:
            raise ValueError(str(exc)) from None
        amount = None
        if self.amount.text().strip():
            try:
                amount = Decimal(self.amount.text().strip())
            except InvalidOperation:
                raise ValueError(f"amount {self.amount.text().strip()!r} is not a number") from None
            if not amount.is_finite() or amount < 0:
                raise ValueError("the amount is a number of 0 or more")
        return RoundFilter(
            since=since, until=until, player=self.player.text().strip() or None,
            game=self.game.currentData(), status=self.status.currentData(),
            irregular=True if self.irregular.isChecked() else None, min_amount=amount,
        )

    def clear(self) -> None:
        for edit in (self.since, self.until, self.player, self.amount):
            edit.clear()
        self.game.setCurrentIndex(0)
        self.status.setCurrentIndex(0)
        self.irregular.setChecked(False)


class ReviewWindow(QWidget):
    """The review: the round list with its filters, or the chosen round over the whole page
    (*◀ Rounds list* goes back); session summaries; station events."""

    #: (VerifyResult or None, first round with altered settlement rows or None, error or None)
    verification_done = Signal(object)

    def __init__(self, db_path: str | Path, parent: QWidget | None = None, *, supervisor: str | None = None,
                 notes: NoteWriter | None = None) -> None:
        super().__init__(parent)
        self.db_path = Path(db_path)
        self.supervisor = supervisor
        self.notes = notes  # the store's service takes the notes (op add_note); None: no note is taken
        self.store = Store.open_readonly(self.db_path)
        self.reader = StoreReader(self.store)  # owns the store's read-only connection
        self.table_name = self.db_path.stem
        self.setWindowTitle(f"Dealer Assist review \u2014 table {self.table_name} ({self.db_path})")
        self.setStyleSheet(REVIEW_STYLE)
        font = QFont(self.font())
        font.setPixelSize(16)  # the window's text; the replayed layout's labels keep their own fonts
        self.setFont(font)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(2, 2, 2, 2)  # the round's replay takes what the frames leave (issue 34)
        self.tabs = QTabWidget()
        outer.addWidget(self.tabs)

        rounds_page = QWidget()
        rp = QVBoxLayout(rounds_page)
        rp.setContentsMargins(2, 4, 2, 2)
        rp.setSpacing(4)
        # the filters and the list fold away while a round is shown: at 1280×800 and 1366×768 they
        # left its replay 190–240 px (issue 34); *◀ Rounds list* on the round brings them back
        self.list_panel = QWidget()
        lp = QVBoxLayout(self.list_panel)
        lp.setContentsMargins(0, 0, 0, 0)
        self.filters = FilterBar()
        lp.addWidget(self.filters)
        self.status_line = QLabel("")
        self.count_button = QPushButton("Count all matching")
        self.count_button.clicked.connect(self.show_count_matching)
        status_row = QHBoxLayout()
        status_row.addWidget(self.status_line, 1)
        status_row.addWidget(self.count_button)
        # the file's check beside the list (in the tabs' corner its top edge was cut off)
        self.integrity_button = QPushButton("Verify the whole file")
        status_row.addWidget(self.integrity_button)
        lp.addLayout(status_row)
        rp.addWidget(self.list_panel)
        self.integrity_label = QLabel("")
        self.integrity_label.setWordWrap(True)
        self.integrity_label.hide()
        rp.addWidget(self.integrity_label)
        self.model = RoundListModel(self.reader, self.table_name, self)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.verticalHeader().setVisible(False)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.view.horizontalHeader().setStretchLastSection(True)
        # the indicator first: enabling sorting sorts by it (time, newest first)
        self.view.horizontalHeader().setSortIndicator(self.model.sort_column(), Qt.SortOrder.DescendingOrder)
        self.view.setSortingEnabled(True)
        self.view.horizontalHeader().sortIndicatorChanged.connect(self._sort_changed)
        touch_header(self.view.horizontalHeader())  # tapped to sort: 48 px (issue 34)
        for column, width in enumerate((64, 180, 70, 130, 90, 90, 120, 80, 180, 90, 80)):
            self.view.setColumnWidth(column, width)
        rp.addWidget(self.view, 1)
        self.detail = RoundDetailView(self.reader, self.table_name)
        self.detail.note_requested.connect(self.add_note)
        self.detail.list_requested.connect(self.show_list)
        self.detail.hide()  # one at a time: the list, or the chosen round (its replay 1240 px wide at least)
        rp.addWidget(self.detail, 1)
        self.tabs.addTab(rounds_page, "Rounds")

        self.summary = SummaryView(self.reader)
        self.tabs.addTab(self.summary, "Session summaries")
        self.station_events = StationEventsView(self.store)
        self.tabs.addTab(self.station_events, "Station events")
        self.tabs.currentChanged.connect(self._tab_changed)

        self.integrity_button.clicked.connect(self.verify_file_in_background)
        self.verification_done.connect(self._show_verification)
        self._post = GuiPost(self)  # the file check's thread hands its outcome over

        self.filters.apply_button.clicked.connect(self.apply_filter)
        self.filters.clear_button.clicked.connect(self.clear_filter)
        for edit in (self.filters.since, self.filters.until, self.filters.player, self.filters.amount):
            edit.returnPressed.connect(self.apply_filter)
        for combo in (self.filters.game, self.filters.status):
            combo.currentIndexChanged.connect(lambda _i: self.apply_filter())
        self.filters.irregular.toggled.connect(lambda _on: self.apply_filter())
        self.view.selectionModel().selectionChanged.connect(self._selected)
        self.view.clicked.connect(self._tapped)
        self._show_count()

    # ---- list

    def apply_filter(self) -> bool:
        try:
            flt = self.filters.current()
        except ValueError as exc:
            self.status_line.setText(f"Filter not applied: {exc}")
            self.status_line.setStyleSheet("color: #b00020; font-weight: bold;")
            return False
        self.model.set_filter(flt)
        self._show_count()
        return True

    def clear_filter(self) -> None:
        self.filters.blockSignals(True)
        for widget in (self.filters.game, self.filters.status, self.filters.irregular):
            widget.blockSignals(True)
        self.filters.clear()
        for widget in (self.filters.game, self.filters.status, self.filters.irregular):
            widget.blockSignals(False)
        self.filters.blockSignals(False)
        self.apply_filter()

    def _show_count(self) -> None:
        shown = self.model.rowCount()
        more = " (scroll for more)" if self.model.canFetchMore() else ""
        self.status_line.setText(f"{shown} rounds listed{more}. Sorted by {self.model.sort_key}, "
                                 f"{'newest/highest' if self.model.descending else 'oldest/lowest'} first.")
        self.status_line.setStyleSheet("color: #333;")

    def count_matching(self) -> int:
        """All rounds the filter matches (a full count: on demand, not on every filter)."""
        return count_rounds(self.reader, self.model.filter)

    def show_count_matching(self) -> int:
        count = self.count_matching()
        self._show_count()
        self.status_line.setText(f"{count:,} rounds match. " + self.status_line.text())
        return count

    def _sort_changed(self, column: int, order: Qt.SortOrder) -> None:
        if column != self.model.sort_column():
            if COLUMNS[column][1] is None:
                # not sortable in the database: keep the indicator on the current sort
                header = self.view.horizontalHeader()
                header.blockSignals(True)
                header.setSortIndicator(self.model.sort_column(),
                                        Qt.SortOrder.DescendingOrder if self.model.descending
                                        else Qt.SortOrder.AscendingOrder)
                header.blockSignals(False)
        self._show_count()

    def _selected(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        rows = self.view.selectionModel().selectedRows()
        if rows:
            self.open_round(self.model.round_at(rows[0].row()).id)

    def _tapped(self, index: Any) -> None:
        """A tap on the round already chosen (no selection change): the round again."""
        if self.detail.round_id is not None and self.model.round_at(index.row()).id == self.detail.round_id:
            self.show_round()

    def open_round(self, round_id: int) -> None:
        self.detail.load(round_id)
        if self.detail.round_id == round_id:
            self.show_round()

    @property
    def list_shown(self) -> bool:
        return not self.view.isHidden()

    def show_round(self) -> None:
        """The chosen round over the page's whole width and height: the list and its filters fold
        away (issue 34: beside them its replay had 190–240 px of a 768–800 px screen)."""
        self.list_panel.hide()
        self.view.hide()
        self.detail.show()

    def show_list(self) -> None:
        """The rounds list and its filters again, over the page (all its columns at 1280 px);
        the chosen round stays selected: a tap on it shows it again."""
        self.detail.hide()
        self.list_panel.show()
        self.view.show()
        rows = self.view.selectionModel().selectedRows()
        if rows:
            self.view.scrollTo(rows[0])
        self.view.setFocus()

    def copy_refreshed(self) -> None:
        """The file under this window was brought up to date (a station's copy fetched again):
        the list, the open round and the summaries are read again; the filter and the chosen
        round stay."""
        chosen = self.detail.round_id
        self.model.reload()
        self._show_count()
        self.summary.loaded = False
        self.station_events.loaded = False
        self._tab_changed(self.tabs.currentIndex())
        if chosen is not None:
            self.select_round(chosen)
            self.detail.load(chosen)

    def select_round(self, round_id: int) -> bool:
        """Select a round in the list (it must be among the rows loaded)."""
        for row, r in enumerate(self.model.rows):
            if r.id == round_id:
                self.view.selectRow(row)
                return True
        return False

    # ---- notes, integrity, summaries

    def add_note(self, round_id: int) -> NoteDialog:
        dialog = NoteDialog(self.db_path, round_id, self.supervisor, self, record=self.notes)
        dialog.accepted.connect(self.detail.refresh_audit)
        dialog.open()
        return dialog

    def verify_file(self) -> bool:
        """Every hash chain, finish record and derived settlement row (Store.verify).

        Runs here and now (minutes on a million rounds); the button runs it in a thread:
        :meth:`verify_file_in_background`.
        """
        return self._show_verification((self.store.verify(), None, None))

    def verify_file_in_background(self) -> threading.Thread:
        """The file check on its own read-only connection in a thread; the window stays usable."""
        self.integrity_button.setEnabled(False)
        self.integrity_label.show()
        self.integrity_label.setText("Checking every hash chain and settlement row of the file\u2026")
        self.integrity_label.setStyleSheet("font-size: 18px; color: #333; padding: 8px;")
        path = self.db_path

        def work() -> None:
            outcome: tuple[VerifyResult | None, int | None, str | None]
            try:
                with Store.open_readonly(path) as reader:
                    outcome = (reader.verify(), None, None)
            except (StoreError, sqlite3.Error) as exc:
                outcome = (None, None, str(exc))
            # on the window's thread; dropped if the window was closed meanwhile
            self._post.post(self.verification_done.emit, outcome)

        thread = threading.Thread(target=work, name="review-verify", daemon=True)
        thread.start()
        return thread

    def _show_verification(self, outcome: tuple[VerifyResult | None, int | None, str | None]) -> bool:
        result, altered, error = outcome
        self.integrity_button.setEnabled(True)
        self.integrity_label.show()
        if result is None:
            self.integrity_label.setText(f"The file could not be checked: {error}")
            self.integrity_label.setStyleSheet(BAD_STYLE)
            return False
        if result.ok and altered is None:
            self.integrity_label.setText(
                f"File INTACT: {result.events} events, {result.rounds} rounds and {result.audit} audit entries "
                "checked; every hash chain, round record and settlement row matches.")
            self.integrity_label.setStyleSheet(OK_STYLE)
            return True
        if not result.ok:
            self.integrity_label.setText(f"File ALTERED: {result.problem}")
        else:
            self.integrity_label.setText(
                f"File ALTERED: the settlement rows of round {altered} differ from its hashed settle output "
                "(the hash chains themselves match).")
        self.integrity_label.setStyleSheet(BAD_STYLE)
        return False

    def _tab_changed(self, index: int) -> None:
        if self.tabs.widget(index) is self.summary and not self.summary.loaded:
            self.summary.refresh()
        if self.tabs.widget(index) is self.station_events and not self.station_events.loaded:
            self.station_events.refresh()

    def closeEvent(self, event: Any) -> None:  # noqa: N802 (Qt name)
        self.store.close()
        super().closeEvent(event)


def open_review(db_path: str | Path, parent: QWidget | None = None, *, supervisor: str | None = None,
                notes: NoteWriter | None = None) -> QWidget:
    """The review window on ``db_path`` (the dealer's screen calls this behind the supervisor PIN).

    ``supervisor``: the name already checked, offered in the note dialog; ``notes``: the
    store's service taking the notes (``ui.review.from_service.note_through_service``; None:
    no note is taken). Returns the window (a top-level window even with a parent); the caller
    shows it. Raises StoreError (one-line message) if the file is not a readable store.
    """
    window = ReviewWindow(db_path, None, supervisor=supervisor, notes=notes)
    if parent is not None:
        window.setParent(parent, Qt.WindowType.Window)
        window.setScreen(screen_of(parent))  # on the dealer's screen, not the first one (layout walk)
    keep_size(window)  # the caller shows it over the screen (ui.common.screen_fit.fill_screen)
    window.setGeometry(available_geometry(window))
    return window


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="FILE|URL",
                        help="the table's store (default: the station's store, docs/station.md), or the floor "
                             "database (postgresql://... or service=NAME): every table of a pit")
    parser.add_argument("--config", metavar="FILE", help="the station configuration naming the store")
    parser.add_argument("--read-url", metavar="URL",
                        help="with a floor --db: a hot standby of the floor to read from (streaming "
                             "replication; default: the --config file's [floor] read_url); notes, "
                             "acknowledgements and accounting still go to --db")
    parser.add_argument("--round", type=whole_number(1), metavar="ID", help="open this round")
    parser.add_argument("--socket", metavar="PATH",
                        help="the station service's socket (default: $DEALER_ASSIST_SOCKET, else "
                             "/run/dealer-assist/station.sock on a configured station): its store's copy")
    parser.add_argument("--screenshot", metavar="PNG", help=argparse.SUPPRESS)


def _service_socket(args: argparse.Namespace, cfg: Any) -> Path | None:
    """The station service's socket (``--socket``, $DEALER_ASSIST_SOCKET, the station's), or None."""
    import os

    from dealer_assist.service.client import SOCKET_ENV, STATION_SOCKET

    given = getattr(args, "socket", None) or os.environ.get(SOCKET_ENV)
    if given:
        return Path(given)
    return STATION_SOCKET if cfg is not None else None


def _run_from_service(args: argparse.Namespace, socket_path: Path) -> int:
    """The review of a station's store, read from the copy its service hands a supervisor."""
    from PySide6.QtWidgets import QApplication

    from ui.review.from_service import review_from_service

    app = QApplication.instance() or QApplication(sys.argv[:1])
    start_gui_thread_collector(app)  # no collection on the pit's or the file check's workers
    shown: list[QWidget] = []

    def show(copy: Path, supervisor: str) -> QWidget:
        window = open_review(copy, supervisor=supervisor)
        window.setWindowTitle(f"Dealer Assist review \u2014 a copy of the station's store ({socket_path})")
        if getattr(args, "round", None) is not None:
            assert isinstance(window, ReviewWindow)
            window.open_round(int(args.round))
        fill_screen(window)
        shown.append(window)
        return window

    dialog, _copy = review_from_service(socket_path, show, app.quit)
    dialog.show()
    return int(app.exec())


def _run_floor(args: argparse.Namespace) -> int:
    """``review --db URL``: the pit review on the floor (ui/review/pit_view.py)."""
    from PySide6.QtWidgets import QApplication

    from dealer_assist.floor.connection import FloorError, parse_url

    read_url = getattr(args, "read_url", None)
    try:
        parse_url(args.db)
        if read_url:
            parse_url(read_url)
    except FloorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from ui.review.pit_view import PitWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    start_gui_thread_collector(app)  # no collection on the pit's or the file check's workers
    window = PitWindow(args.db, read_url=read_url or None)
    fill_screen(window)
    if getattr(args, "screenshot", None):
        import time

        deadline = time.monotonic() + 30
        while (window.pending or not window.states) and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.02)
        app.processEvents()
        window.grab().save(args.screenshot)
        for index in range(1, window.tabs.count()):  # the other tabs beside it: NAME-rounds.png ...
            window.tabs.setCurrentIndex(index)
            app.processEvents()
            stem = Path(args.screenshot)
            window.grab().save(str(stem.with_name(f"{stem.stem}-{window.tabs.tabText(index).lower()}{stem.suffix}")))
        window.close()
        return 0
    return int(app.exec())


def run(args: argparse.Namespace) -> int:
    from dealer_assist.floor.connection import is_floor_url
    from dealer_assist.service.station import StationError, find_config, store_path

    reason = no_display()
    if reason:
        return fail(reason)  # before Qt: without a display Qt aborts the process
    if args.db and is_floor_url(args.db):
        if not getattr(args, "read_url", None) and args.config:
            try:  # the named configuration's [floor] read_url, beside the floor's URL
                cfg = find_config(args.config)
            except StationError as exc:
                return fail(str(exc))
            args.read_url = cfg.floor_read_url if cfg is not None else None
        return _run_floor(args)
    if getattr(args, "read_url", None):
        return fail("--read-url is a standby of the floor: it needs --db postgresql://... (the floor's primary)")
    try:
        cfg = find_config(args.config)
        path = store_path(cfg, args.db)  # --db, else the station's store
    except StationError as exc:
        return fail(str(exc))
    socket_path = _service_socket(args, cfg)
    screenshot = getattr(args, "screenshot", None)
    if socket_path is None and not args.db and cfg is None and not screenshot:
        from dealer_assist.service.launch import answering, private_socket

        if answering(private_socket()):  # this account's table runs: its service holds the store
            socket_path = private_socket()
    if socket_path is not None and not args.db and not screenshot:
        return _run_from_service(args, socket_path)
    if screenshot:
        return _screenshot(args, path, screenshot)
    # On a station the review shows nothing before a supervisor's PIN (issue 17 item 2).
    if not path.is_file():
        return fail(f"{path}: no such file")
    return _run_on_file(args, path)


def _screenshot(args: argparse.Namespace, path: Path, screenshot: str) -> int:
    """``--screenshot PNG``: the window on the file with no PIN (a development run's only)."""
    from PySide6.QtWidgets import QApplication

    from dealer_assist.cli.common import DEV_MODE_VARIABLE
    from ui.common.accounts import development_mode
    from ui.common.idle import wait_idle

    if not development_mode():
        return fail(f"--screenshot skips the supervisor's PIN: development runs only ({DEV_MODE_VARIABLE}=1)")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    start_gui_thread_collector(app)  # no collection on the pit's or the file check's workers
    try:
        window = open_review(path)
    except StoreError as exc:
        return fail(str(exc))
    if getattr(args, "round", None) is not None:
        assert isinstance(window, ReviewWindow)
        window.open_round(int(args.round))
    fill_screen(window)
    wait_idle()  # laid out and painted (the replay pane builds its layout once it is shown)
    window.grab().save(screenshot)
    window.close()
    return 0


def _run_on_file(args: argparse.Namespace, path: Path) -> int:
    """``review --db FILE``: a review service on the file (``station serve --review``,
    dealer_assist/service/launch.py) and the window its client: the supervisor's PIN checked by
    the service (its lock-out; audited ``review``), the notes written by it (op add_note). The
    window reads the file on its own read-only connection; the service is stopped (by its PID)
    when the review ends."""
    from PySide6.QtWidgets import QApplication

    from dealer_assist.service.launch import LaunchError, start_review_service
    from ui.review.from_service import note_through_service, review_gate

    apps: list[Any] = []

    def load_qt() -> None:  # while the service starts (kept: the application lives to the end)
        apps.append(QApplication.instance() or QApplication(sys.argv[:1]))

    try:
        service = start_review_service(path, meanwhile=load_qt)
    except LaunchError as exc:
        return fail(str(exc))
    try:
        app = apps[0] if apps else (QApplication.instance() or QApplication(sys.argv[:1]))
        start_gui_thread_collector(app)  # no collection on the pit's or the file check's workers
        notes = note_through_service(service.socket)
        shown: list[QWidget] = []

        def show(supervisor: str) -> None:
            try:
                window = open_review(path, supervisor=supervisor, notes=notes)
            except StoreError as exc:
                fail(str(exc))
                app.exit(2)
                return
            if getattr(args, "round", None) is not None:
                assert isinstance(window, ReviewWindow)
                window.open_round(int(args.round))
            fill_screen(window)
            shown.append(window)

        gate = review_gate(service.socket, show, app.quit)
        gate.show()
        return int(app.exec())
    finally:
        service.stop()
