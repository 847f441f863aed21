"""The one helper that runs work off the GUI thread and hands results back.

``Worker`` owns a thread and a FIFO queue. ``submit(job, done)`` runs ``job()`` on
that thread, in submission order, and calls ``done(result, error)`` on the GUI
thread (through a posted event). The store writer and the simulated shoe each get
their own Worker, so a slow fsync never delays a simulated deal and neither ever
runs on the GUI thread.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from ui.common.qtfix import GuiPost

Done = Callable[[Any, BaseException | None], None]


class Worker(QObject):
    """A thread with a queue; results come back on the thread that created the Worker."""

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._queue: queue.Queue[tuple[Callable[[], Any], Done | None] | None] = queue.Queue()
        self._post = GuiPost(self)  # results go back by postEvent, never by a signal emitted here
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._idle = threading.Event()
        self._idle.set()
        self._pending = 0
        self._lock = threading.Lock()
        self._thread.start()

    def submit(self, job: Callable[[], Any], done: Done | None = None) -> None:
        """Queue ``job``; ``done(result, error)`` is called on the GUI thread afterwards."""
        with self._lock:
            self._pending += 1
            self._idle.clear()
        self._queue.put((job, done))

    @property
    def busy(self) -> bool:
        """Jobs are queued or running."""
        with self._lock:
            return self._pending > 0

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Block until every queued job has run (for shutdown and tests, never in a slot)."""
        return self._idle.wait(timeout)

    def stop(self, timeout: float = 5.0) -> None:
        """Finish the queued jobs, then end the thread."""
        self._queue.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            job, done = item
            result: Any = None
            error: BaseException | None = None
            try:
                result = job()
            except Exception as exc:  # reported to the GUI, never lost
                error = exc
            if done is not None:
                self._post.post(done, result, error)
            with self._lock:
                self._pending -= 1
                if self._pending == 0:
                    self._idle.set()
