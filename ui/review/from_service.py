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
meanwhile; when the station records a round the copy does not hold, the window says
that the copy is older (the review is opened again, with the PIN, to read it).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QMessageBox, QWidget

from dealer_assist.service.client import ServiceError
from dealer_assist.service.protocol import ProtocolError
from dealer_assist.service.snapshot import fetch_snapshot
from dealer_assist.store import PinCheck, StoreError
from ui.common.login import PinDialog, ask_supervisor
from ui.common.service_link import ServiceLink
from ui.common.worker import Worker

COPY_NAME = "table-copy.db"


class ServiceCopy:
    """The PIN check (``approve``) of :func:`ask_supervisor`, done by fetching the copy."""

    def __init__(self, socket_path: Path) -> None:
        self.socket_path = socket_path
        self.directory = Path(tempfile.mkdtemp(prefix="dealer-assist-review-"))  # 0700
        self.path = self.directory / COPY_NAME
        self.worker = Worker("review-copy")

    def approve(self, supervisor: str, pin: str, kind: str, done: Callable[[Any], None],
                detail: dict[str, Any] | None = None) -> None:
        def job() -> str:
            return fetch_snapshot(self.socket_path, {"user": supervisor, "pin": pin}, self.path)

        def finished(_result: Any, error: BaseException | None) -> None:
            if error is None:
                done(PinCheck(True))
            elif isinstance(error, ProtocolError) and error.code == "pin":
                reason = error.reason or "wrong"
                done(PinCheck(False, reason, message="" if reason == "wrong" else error.message))
            else:
                done(PinCheck(False, "error", message=str(getattr(error, "message", error))))

        self.worker.submit(job, finished)

    def change_pin(self, name: str, old_pin: str, new_pin: str, done: Callable[[PinCheck], None]) -> None:
        done(PinCheck(False, "new_pin", message="change the PIN on the dealer's screen first"))

    def close(self) -> None:
        self.worker.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


def watch_station(window: QWidget, socket_path: Path, newest_copied: int) -> ServiceLink | None:
    """The review's link to the service while ``window`` is open (None if the service cannot be
    reached now: the copy is still read). At the window's foot: the link's state while the service
    restarts ("reconnecting…", then nothing), and "the copy is older" once the station has a
    round after ``newest_copied``."""
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
    link.link_state.connect(lambda text: connection.setText("" if text == "connected" else text))

    def round_changed(state: object) -> None:
        rid = state.get("round_id") if isinstance(state, dict) else None
        if isinstance(rid, int) and rid > newest_copied:
            newer.setText(f"the station has recorded round {rid} since this copy: open the review again "
                          "to read it")

    link.round_changed.connect(round_changed)
    app = QApplication.instance()
    if app is not None:
        app.aboutToQuit.connect(link.close)
    return link


def review_from_service(socket_path: Path, show: Callable[[Path, str], QWidget | None],
                        on_cancel: Callable[[], None]) -> tuple[PinDialog, ServiceCopy]:
    """The supervisor's PIN, then ``show(copy, supervisor)`` on the service's copy."""
    copy = ServiceCopy(socket_path)

    def approved(name: str, approval: int | None) -> None:
        try:
            window = show(copy.path, name)
        except StoreError as exc:
            QMessageBox.critical(None, "Dealer Assist review", f"the copy of the store cannot be read: {exc}")
            on_cancel()
            return
        if window is not None:
            store = getattr(window, "store", None)
            newest = max((r.id for r in store.list_rounds(limit=1)), default=0) if store is not None else 0
            window.station_link = watch_station(window, socket_path, newest)  # type: ignore[attr-defined]
        if window is not None:
            detail = getattr(window, "detail", None)
            if detail is not None:  # notes go to the station's store, not to this copy
                detail.note_requested.disconnect()
                detail.note_requested.connect(lambda _round: QMessageBox.information(
                    window, "Notes", "A note is added on the dealer's screen of the station (the review "
                                     "here reads a copy of its store)."))

    dialog = ask_supervisor(None, copy, "review", "Dealer Assist review",
                            "Supervisor PIN required to open the review", approved)
    dialog.rejected.connect(on_cancel)
    app = QApplication.instance()
    if app is not None:
        app.aboutToQuit.connect(copy.close)
    return dialog, copy
