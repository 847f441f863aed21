"""``dealer-assist review`` on a station: a client of the station service (issue 23 item 2).

The supervisor's account cannot open the station's store (it is the service's, 0600): the
supervisor's PIN goes to the service (op ``snapshot``, audited as a ``review`` approval),
which hands back a consistent read-only copy of the store as an open file
(dealer_assist/service/snapshot.py). The review reads that copy, kept in a private
temporary directory while the window is open (PIN hashes blanked; no key, so *Verify*
cannot check the chain's signatures: ``dealer-assist station check`` does that as the
service). Notes are not taken here: they would go to the copy.

While the window is open the review stays a client of the service (:func:`watch_station`):
when the service restarts, the link connects again by itself and the window says so
meanwhile; when the service announces a round ended (settled or void) that the copy does
not hold as ended, the review fetches a new copy with its review token (no PIN: the token
the PIN gave, good for that OS account for an hour, ended when the review closes:
dealer_assist/service/review_token.py), writes it into the open copy (SQLite's backup, so
the window's read-only connection reads the new pages) and reloads its lists. A refused
token (expired) leaves the copy as it was and says to open the review again with the PIN.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QMessageBox, QWidget

from dealer_assist.service.client import ServiceClient, ServiceError
from dealer_assist.service.ops import Op
from dealer_assist.service.protocol import ProtocolError
from dealer_assist.service.snapshot import fetch_snapshot, refresh_snapshot
from dealer_assist.store import PinCheck, StoreError
from dealer_assist.store.review_queries import IntegrityCheck
from ui.common.login import PinDialog, ask_supervisor
from ui.common.service_link import ServiceJobs, ServiceLink
from ui.common.style import review_style
from ui.common.worker import Worker
from ui.review.note import NoteDialog, NoteRefused

COPY_NAME = "table-copy.db"
COPY_PREFIX = "dealer-assist-review-copy-"  # + the process's id: a copy left by a process gone is removed


def remove_stale_copies(directory: Path | None = None) -> list[Path]:
    """This account's review copies whose process is gone (killed, or the machine's power
    lost while a review was open): each a whole copy of a table's rounds and players, never
    left behind. The directories removed."""
    gone = []
    top = Path(directory or tempfile.gettempdir())
    for path in top.glob(f"{COPY_PREFIX}*"):
        try:
            pid = int(path.name[len(COPY_PREFIX):].split("-", 1)[0])
            if path.stat().st_uid != os.getuid():
                continue
        except (ValueError, OSError):
            continue
        try:
            os.kill(pid, 0)
            continue  # its process is alive: its copy is in use
        except ProcessLookupError:
            pass
        except PermissionError:
            continue  # another account's process of that id: alive
        shutil.rmtree(path, ignore_errors=True)
        gone.append(path)
    return gone


class _CloseWatch(QObject):
    """Calls ``then()`` once ``window`` has closed (after its own close handler ran)."""

    def __init__(self, window: QWidget, then: Callable[[], None]) -> None:
        super().__init__(window)
        self._then = then
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt name)
        if event.type() == QEvent.Type.Close:
            QTimer.singleShot(0, self._then)
        return False


class ServiceCopy:
    """The PIN check (``approve``) of :func:`ask_supervisor`, done by fetching the copy."""

    def __init__(self, socket_path: Path) -> None:
        self.socket_path = socket_path
        remove_stale_copies()
        self.directory = Path(tempfile.mkdtemp(prefix=f"{COPY_PREFIX}{os.getpid()}-"))  # 0700
        self.path = self.directory / COPY_NAME
        self.worker = Worker("review-copy")
        self.token = ""  # the review token the PIN gave (refreshes with no PIN)
        self.expires = ""

    def approve(self, supervisor: str, pin: str, kind: str, done: Callable[[Any], None],
                detail: dict[str, Any] | None = None) -> None:
        def job() -> Any:
            return fetch_snapshot(self.socket_path, {"user": supervisor, "pin": pin}, self.path)

        def finished(result: Any, error: BaseException | None) -> None:
            if error is None:
                self.token, self.expires = result.token, result.expires
                done(PinCheck(True))
            elif isinstance(error, ProtocolError) and error.code == "pin":
                reason = error.reason or "wrong"
                done(PinCheck(False, reason, message="" if reason == "wrong" else error.message))
            else:
                done(PinCheck(False, "error", message=str(getattr(error, "message", error))))

        self.worker.submit(job, finished)

    def change_pin(self, name: str, old_pin: str, new_pin: str, done: Callable[[PinCheck], None]) -> None:
        done(PinCheck(False, "new_pin", message="change the PIN on the dealer's screen first"))

    def refresh(self, done: Callable[[str], None]) -> None:
        """A new copy with the review token, written into the open copy; ``done("")`` or the
        reason it was not (the copy is then as it was)."""
        token = self.token
        if not token:
            done("no review token: open the review again with the supervisor's PIN")
            return

        def job() -> None:
            refresh_snapshot(self.socket_path, token, self.path)  # the window's connection sees the new pages

        def finished(_result: Any, error: BaseException | None) -> None:
            if error is None:
                done("")
                return
            if isinstance(error, ProtocolError) and error.code == "auth":
                self.token = ""  # expired or ended: the PIN opens the review again
            done(str(getattr(error, "message", error)))

        self.worker.submit(job, finished)

    def integrity(self, round_id: int, done: Callable[[list[IntegrityCheck]], None]) -> None:
        """The round's integrity checked by the service with the station key the copy is made
        without (op round_integrity, the review token); ``done(checks)`` on the GUI thread,
        a "not checked" line saying why when the service gives none."""
        token = self.token

        def job() -> list[IntegrityCheck]:
            client = ServiceClient(self.socket_path, "review", timeout_s=10.0)
            try:
                reply = client.request(Op.ROUND_INTEGRITY, token=token, round_id=round_id)
            finally:
                client.close()
            return [IntegrityCheck(str(c["name"]), bool(c["ok"]), str(c["detail"]), bool(c["checked"]))
                    for c in reply["checks"]]

        def finished(result: Any, error: BaseException | None) -> None:
            if error is None:
                done(result)
                return
            why = str(getattr(error, "message", error))
            done([IntegrityCheck("station key", False, f"the station's service did not check it: {why}",
                                 checked=False)])

        self.worker.submit(job, finished)

    def close(self) -> None:
        """The review is over: its token ended at the service and the copy removed (when its
        window closes, its PIN is cancelled, or the program ends; twice is once)."""
        self.worker.stop()
        if self.token:  # the review session ends: its token gives no copy any more
            with contextlib.suppress(ServiceError, OSError):
                client = ServiceClient(self.socket_path, "review", timeout_s=5.0)
                try:
                    client.request(Op.END_REVIEW, token=self.token)
                finally:
                    client.close()
            self.token = ""
        shutil.rmtree(self.directory, ignore_errors=True)


def review_gate(socket_path: Path, then: Callable[[str], None], on_cancel: Callable[[], None]) -> PinDialog:
    """``dealer-assist review --db FILE``: the supervisor's PIN before anything of the store is
    shown, checked by the store's review service at ``socket_path`` (audited ``review``, with
    the service's lock-out); ``then(supervisor)`` once it is accepted."""
    link = ServiceLink(socket_path, "review", reconnect=False)
    approvals = ServiceJobs(link)  # the PIN checks the dealer's screen makes, through this service

    def approved(name: str, _approval: int | None) -> None:
        then(name)

    dialog = ask_supervisor(None, approvals, "review", "Dealer Assist review",
                            "Supervisor PIN required to open the review", approved)
    dialog.setStyleSheet(review_style())  # the review's touch type, as at the station's gate
    dialog.rejected.connect(on_cancel)
    app = QApplication.instance()
    if app is not None:  # its thread ended on the GUI thread when the review ends, as the copy's
        app.aboutToQuit.connect(link.close)
    return dialog


def watch_station(window: QWidget, socket_path: Path, newest_copied: int,
                  copy: ServiceCopy | None = None) -> ServiceLink | None:
    """The review's link to the service while ``window`` is open (None if the service cannot be
    reached now: the copy is still read). At the window's foot: the link's state while the service
    restarts ("reconnecting…", then nothing), and the copy's state: when the service announces a
    round ended that the copy does not hold ended, ``copy`` (with its review token) is fetched
    again and the window reads it (``copy_refreshed``); without a copy, or with its token
    refused, the foot says the station has newer rounds than the copy."""
    try:
        link = ServiceLink(socket_path, "review", window)
    except ServiceError:
        return None
    connection = QLabel("")
    connection.setObjectName("station_link")
    connection.setStyleSheet("font-weight: bold; color: #b00020;")
    newer = QLabel("")
    newer.setObjectName("station_newer")
    if isinstance(window, QMainWindow):
        window.statusBar().addPermanentWidget(newer)
        window.statusBar().addPermanentWidget(connection)
    elif (layout := window.layout()) is not None:
        layout.addWidget(newer)
        layout.addWidget(connection)
    # shown only with something to say (issue 34: two empty lines at the window's foot took
    # 50 px from the round's replay)
    for label in (connection, newer):
        label.hide()
    link.link_state.connect(lambda text: _say(connection, "" if text == "connected" else text))
    ended = {"copied": newest_copied, "wanted": 0, "busy": False}  # rounds ended in the copy / announced

    def refreshed(problem: str) -> None:
        ended["busy"] = False
        if problem:
            _say(newer, f"the station has recorded round {ended['wanted']} since this copy ({problem})")
            return
        ended["copied"] = max(ended["copied"], ended["wanted"])
        refresh = getattr(window, "copy_refreshed", None)
        if callable(refresh):
            refresh()
        _say(newer, f"copy brought up to round {ended['copied']} (review token until {copy.expires if copy else ''})")
        if ended["wanted"] > ended["copied"]:  # another round ended meanwhile
            fetch()

    def fetch() -> None:
        if copy is None or ended["busy"]:
            return
        ended["busy"] = True
        _say(newer, f"fetching round {ended['wanted']} from the station…")
        copy.refresh(refreshed)

    def round_changed(state: object) -> None:
        if not isinstance(state, dict):
            return
        rid = state.get("round_id")
        if not isinstance(rid, int) or rid <= 0:
            return
        status = (state.get("output") or {}).get("status") if isinstance(state.get("output"), dict) else None
        if status in ("settled", "void") and rid > ended["copied"]:
            ended["wanted"] = max(ended["wanted"], rid)
            if copy is not None and copy.token:
                fetch()
                return
        if rid > ended["copied"] and not ended["busy"]:
            _say(newer, f"the station has recorded round {rid} since this copy"
                          + (": it is fetched when it ends" if copy is not None and copy.token else
                             ": open the review again to read it"))

    link.round_changed.connect(round_changed)
    app = QApplication.instance()
    if app is not None:
        app.aboutToQuit.connect(link.close)
    return link


def _say(label: QLabel, text: str) -> None:
    """A line at the window's foot: shown while it says something."""
    label.setText(text)
    label.setVisible(bool(text))


def _newest_ended(store: Any) -> int:
    """The newest round the copy holds ended (settled or void); an unfinished one is fetched again."""
    rounds = store.list_rounds(limit=5)
    unfinished = min((r.id for r in rounds if r.status not in ("settled", "void")), default=None)
    return unfinished - 1 if unfinished is not None else max((r.id for r in rounds), default=0)


def note_through_service(socket_path: Path) -> Callable[[int, str, str, str], int]:
    """A note's writer for the review of the station's copy: op ``add_note`` on the station's
    store, the supervisor's PIN checked by the service (its throttle and lock-out)."""

    def record(round_id: int, supervisor: str, pin: str, text: str) -> int:
        try:
            client = ServiceClient(socket_path, "review")
            try:
                reply = client.request(Op.ADD_NOTE, round_id=round_id or None, text=text,
                                       pin={"user": supervisor, "pin": pin})
            finally:
                client.close()
        except ServiceError as exc:
            if exc.code == "pin":
                raise NoteRefused(f"Name or PIN not accepted for a supervisor: {exc.message}.") from None
            raise NoteRefused(f"Not recorded: {exc.message}") from None
        return int(reply["note"])

    return record


def _note_dialog(window: QWidget, copy: ServiceCopy, round_id: int, supervisor: str) -> QWidget:
    """The note dialog over the review of the station's copy: the note goes to the station."""
    dialog = NoteDialog(copy.path, round_id, supervisor, window, record=note_through_service(copy.socket_path))
    dialog.open()
    return dialog


def review_from_service(socket_path: Path, show: Callable[[Path, str], QWidget | None],
                        on_cancel: Callable[[], None]) -> tuple[PinDialog, ServiceCopy]:
    """The supervisor's PIN, then ``show(copy, supervisor)`` on the service's copy."""
    copy = ServiceCopy(socket_path)

    def approved(name: str, approval: int | None) -> None:
        try:
            window = show(copy.path, name)
        except StoreError as exc:
            QMessageBox.critical(None, "Dealer Assist review", f"the copy of the store cannot be read: {exc}")
            copy.close()
            on_cancel()
            return
        if window is None:
            copy.close()
            return
        # the copy (every round and player of the table) goes with the window: from the dealer's
        # screen the program goes on, and each review left its copy until the screen ended
        _CloseWatch(window, copy.close)
        store = getattr(window, "store", None)
        newest = _newest_ended(store) if store is not None else 0
        window.station_link = watch_station(window, socket_path, newest, copy)  # type: ignore[attr-defined]
        detail = getattr(window, "detail", None)
        if detail is not None:
            detail.integrity_checker = copy.integrity  # the service checks the integrity: the copy has no key
            # notes go to the station's store (op add_note), not to this copy
            detail.note_requested.disconnect()
            detail.note_requested.connect(lambda round_id: _note_dialog(window, copy, round_id, name))

    dialog = ask_supervisor(None, copy, "review", "Dealer Assist review",
                            "Supervisor PIN required to open the review", approved)
    dialog.setStyleSheet(review_style())  # the review's touch type, as at its gate on a file
    dialog.rejected.connect(copy.close)
    dialog.rejected.connect(on_cancel)
    app = QApplication.instance()
    if app is not None:
        app.aboutToQuit.connect(copy.close)
    return dialog, copy
