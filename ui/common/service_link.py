"""The station service seen from a Qt window: the service client's notifications as Qt
signals on the GUI thread, and requests run off the GUI thread (a PIN check takes a second).

The client (``dealer_assist.service.client``) has no Qt; its reader thread calls
:meth:`ServiceLink._notified`, which hands the notification to the GUI thread
(``ui.common.qtfix.GuiPost``: no Qt call on the client's thread), where
:attr:`ServiceLink.notified` is emitted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from dealer_assist.service.client import ServiceClient, ServiceError
from ui.common.qtfix import GuiPost
from ui.common.worker import Worker

__all__ = ["ServiceLink"]


class ServiceLink(QObject):
    notified = Signal(str, object)  # name, data: "round", "shoe", "floor"; "closed" when the service went away
    round_changed = Signal(object)  # the round's state (the "round" notification)
    shoe_changed = Signal(object)
    closed = Signal()

    def __init__(self, path: Path | str, kind: str = "screen", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._post = GuiPost(self)
        self.client = ServiceClient(path, kind, on_notify=self._notified)
        self.worker = Worker("service-requests", self)
        self.notified.connect(self._dispatch)

    def _notified(self, name: str, data: dict[str, Any]) -> None:
        self._post.post(self.notified.emit, name, data)  # from the client's thread

    def _dispatch(self, name: str, data: object) -> None:
        if name == "round":
            self.round_changed.emit(data)
        elif name == "shoe":
            self.shoe_changed.emit(data)
        elif name == "closed":
            self.closed.emit()

    def request(self, op: str, done: Callable[[Any, ServiceError | None], None] | None = None, **args: Any) -> None:
        """``op`` on the worker thread; ``done(result, error)`` back on the GUI thread."""

        def job() -> Any:
            return self.client.request(op, **args)

        def finished(result: Any, error: BaseException | None) -> None:
            if done is None:
                return
            if error is None or isinstance(error, ServiceError):
                done(result, error)
            else:
                done(None, ServiceError("internal", str(error)))

        self.worker.submit(job, finished)

    def close(self) -> None:
        self.client.close()
        self.worker.stop()
