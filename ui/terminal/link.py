"""The station seen from a player terminal's window (issue 38, build 2): the seat's view
(op ``seat``) as a Qt signal on the GUI thread, and the player's ops run off it.

The terminal's client (``dealer_assist.service.terminal_client``) has no Qt and one socket
read by whoever asks, so the link holds two connections of the seat (a seat may hold
four, terminal_server.PER_SEAT): one that a reader thread holds to hear ``changed`` and
read the view, one that the requests' :class:`ui.common.worker.Worker` holds. Results come
back through ``ui.common.qtfix.GuiPost``, as ``ui.common.service_link`` does for screens.
When the station goes away the reader connects again with a back-off and says so.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from dealer_assist.service.ops import Op
from dealer_assist.service.terminal_client import TerminalConnection, TerminalError
from ui.common.qtfix import GuiPost
from ui.common.worker import Worker

__all__ = ["RECONNECTING", "TerminalLink"]

RECONNECTING = "connection to the table lost: reconnecting\u2026"
NOTE_WAIT_S = 1.0  # the reader looks at its stop flag this often
FIRST_DELAY_S, MAX_DELAY_S = 0.25, 5.0

Connect = Callable[[], TerminalConnection]
Done = Callable[[Any, TerminalError | None], None]


class TerminalLink(QObject):
    view_changed = Signal(object)  # the seat's view (dict), newest first shown
    link_state = Signal(str)  # "connected" or RECONNECTING

    def __init__(self, first: TerminalConnection, connect: Connect, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.new_connection = connect
        self.hello = dict(first.hello)
        self.seat = first.seat
        self.shown = -1  # the version of the view shown last (a reply older than it is not shown)
        self._post = GuiPost(self)
        self._stop = threading.Event()
        self._reader_conn: TerminalConnection | None = first
        self._actor: TerminalConnection | None = None  # the worker's connection, made on its thread
        # set when the reader connected again (the station went away): the worker's connection
        # is then made anew before its next op, not found closed by the player's next touch
        self._renew_actor = threading.Event()
        self.worker = Worker("terminal-requests", self)
        self._reader = threading.Thread(target=self._read, name="terminal-reader", daemon=True)

    @property
    def table_name(self) -> str:
        station = self.hello.get("station")
        return str(station.get("table") or "") if isinstance(station, dict) else ""

    def start(self) -> None:
        self._reader.start()

    # ------------------------------------------------------------------ the reader's thread
    def _read(self) -> None:
        delay = FIRST_DELAY_S
        while not self._stop.is_set():
            conn = self._reader_conn
            try:
                if conn is None:
                    conn = self._reader_conn = self.new_connection()
                    self._renew_actor.set()
                    self._post.post(self._reconnected)
                self._post.post(self._show, conn.request(Op.SEAT))
                delay = FIRST_DELAY_S
                while not self._stop.is_set():
                    note = conn.wait_note(NOTE_WAIT_S)
                    if note is None:
                        continue
                    if "error" in note:  # e.g. the terminal was removed: said, then closed
                        raise TerminalError(str(note["error"].get("code")), str(note["error"].get("message")))
                    if note.get("notify") == "changed":
                        self._post.post(self._show, conn.request(Op.SEAT))
            except Exception as exc:  # noqa: BLE001 - any failure: the connection is made again
                if conn is not None:
                    conn.close()
                self._reader_conn = None
                if self._stop.is_set():
                    return
                self._post.post(self._lost, getattr(exc, "message", str(exc)))
                self._stop.wait(delay)
                delay = min(delay * 2, MAX_DELAY_S)

    # ------------------------------------------------------------------ on the GUI thread
    def _show(self, view: Any) -> None:
        if not isinstance(view, dict) or int(view.get("version", -1)) < self.shown:
            return  # older than the view shown (a reply overtaken by a notification)
        self.shown = int(view["version"])
        self.view_changed.emit(view)

    def _lost(self, why: str) -> None:
        self.link_state.emit(f"{RECONNECTING} ({why})" if why else RECONNECTING)

    def _reconnected(self) -> None:
        self.shown = -1  # a restarted service counts its versions from the start again
        self.link_state.emit("connected")

    def request(self, op: str, done: Done | None = None, **args: Any) -> None:
        """``op`` as this seat on the worker's connection, then the seat's view read on it
        (shown if newer); ``done(result, error)`` on the GUI thread."""

        def job() -> tuple[Any, Any]:
            try:
                if self._renew_actor.is_set():
                    self._renew_actor.clear()
                    if self._actor is not None:
                        self._actor.close()
                        self._actor = None
                if self._actor is None:
                    self._actor = self.new_connection()
                result = self._actor.request(op, **args)
                return result, self._actor.request(Op.SEAT)
            except TerminalError as exc:
                if exc.code == "internal" and self._actor is not None:  # the connection, not the op
                    self._actor.close()
                    self._actor = None
                raise

        def finished(result: Any, error: BaseException | None) -> None:
            if error is None:
                self._show(result[1])
            if done is None:
                return
            if error is None:
                done(result[0], None)
            elif isinstance(error, TerminalError):
                done(None, error)
            else:
                done(None, TerminalError("internal", str(error)))

        self.worker.submit(job, finished)

    def close(self) -> None:
        self._stop.set()
        self.worker.stop()
        for conn in (self._reader_conn, self._actor):
            if conn is not None:
                conn.close()
        self._reader.join(timeout=NOTE_WAIT_S * 3)
