"""Keep PySide6 6.12 from aborting CPython 3.11, and hand calls to the GUI thread.

PySide6 6.12.0 returns ``None``, ``True`` and ``False`` from its functions without a new
reference (on CPython 3.12+ these objects are immortal, so it does not matter there).
On CPython 3.11 every ``label.setText()``, ``QTimer.singleShot()``, ``signal.emit()``
... takes one reference from them; after some thousands of calls CPython aborts with
"Fatal Python error: none_dealloc" (or "bool_dealloc"): the dealer's screen would die
after minutes at a table. Three lines show it::

    before = sys.getrefcount(None)
    for _ in range(200): label.setText("x")
    sys.getrefcount(None) - before   # -200 with the bug

:func:`install` (run at import) checks for the bug and, only if it is there, makes the
three objects as good as immortal by adding 2**40 to their reference counts, which is
what CPython 3.12 does for them. The real fix is in the environment, and pyproject.toml
makes it: PySide6-Essentials < 6.12. This guard stays for an environment that installs
6.12 anyway (it does nothing where the bug is absent).

:class:`GuiPost` hands a call from any thread to the GUI thread without a Qt call on the
calling thread: the call goes into a queue and one byte into a socket pair whose read end a
``QSocketNotifier`` watches on the GUI thread. A worker thread that outlives its window (a
par sheet still being worked out when the pit view closes) so never touches a Qt object
that is being deleted; a posted event or a queued signal from that thread could (a hang of
the whole test run in CI, the worker waiting on Qt's event queue, the GUI thread on the GIL).
A call whose receiver has been deleted meanwhile is dropped.
"""

from __future__ import annotations

import collections
import ctypes
import socket
import sys
import threading
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSocketNotifier, QThread

PIN = 1 << 40


def binding_drops_references() -> bool:
    """True if a void PySide6 call takes a reference from ``None`` (the 6.12 / 3.11 bug)."""
    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(16):
        probe.setObjectName("probe")
    return before - sys.getrefcount(None) >= 16


def install() -> bool:
    """Pin None, True and False if the binding needs it; True when pinned (idempotent)."""
    global INSTALLED
    if INSTALLED or sys.version_info >= (3, 12) or not binding_drops_references():
        return INSTALLED
    for obj in (None, True, False):
        # ob_refcnt is the first field of every object in CPython's non-debug build
        ctypes.c_ssize_t.from_address(id(obj)).value += PIN
    INSTALLED = True
    return True


INSTALLED = False
install()


_CALL_EVENT = QEvent.Type(QEvent.registerEventType())


class _CallEvent(QEvent):
    def __init__(self, call: Callable[..., Any], args: tuple[Any, ...]) -> None:
        super().__init__(_CALL_EVENT)
        self.call = call
        self.args = args


class _Inbox:
    """Calls for the GUI thread: a queue, and a socket pair whose read end a QSocketNotifier
    (a child of the application) watches. ``put`` makes no Qt call: any thread may use it."""

    def __init__(self, app: QCoreApplication) -> None:
        self._calls: collections.deque[tuple[QObject, Callable[..., Any], tuple[Any, ...]]] = collections.deque()
        self._read, self._write = socket.socketpair()
        self._read.setblocking(False)
        self._write.setblocking(False)
        self.app = app
        self._notifier = QSocketNotifier(self._read.fileno(), QSocketNotifier.Type.Read, app)
        self._notifier.activated.connect(self._deliver)

    def put(self, receiver: QObject, call: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self._calls.append((receiver, call, args))
        try:
            self._write.send(b"\0")
        except BlockingIOError:
            pass  # the socket is full of wake-ups already: the GUI thread is due to read it

    def _deliver(self) -> None:
        try:
            while self._read.recv(4096):
                pass
        except BlockingIOError:
            pass
        # a call put after the wake-ups were read has written its own
        for _ in range(len(self._calls)):
            receiver, call, args = self._calls.popleft()
            if not shiboken6.isValid(receiver):
                continue  # its window has gone: nobody is left to show the result
            try:
                call(*args)
            except Exception:  # one failing call must not lose the others queued behind it
                sys.excepthook(*sys.exc_info())


_INBOX: _Inbox | None = None
_INBOX_LOCK = threading.Lock()


def _gui_inbox() -> _Inbox | None:
    """The GUI thread's inbox (made on the GUI thread, once per application); None elsewhere."""
    global _INBOX
    app = QCoreApplication.instance()
    if app is None or QThread.currentThread() is not app.thread():
        return None
    with _INBOX_LOCK:
        if _INBOX is None or _INBOX.app is not app or not shiboken6.isValid(_INBOX.app):
            _INBOX = _Inbox(app)
        return _INBOX


class GuiPost(QObject):
    """``post(fn, *args)`` from any thread runs ``fn(*args)`` on the thread owning this object
    (the GUI thread: through the inbox, no Qt call on the posting thread), unless this object
    has been deleted by then."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._inbox = _gui_inbox()

    def post(self, call: Callable[..., Any], *args: Any) -> None:
        if self._inbox is not None:
            self._inbox.put(self, call, args)
        else:  # made off the GUI thread (no such use in the program): Qt's own queue
            QCoreApplication.postEvent(self, _CallEvent(call, args))

    def event(self, event: QEvent) -> bool:
        if isinstance(event, _CallEvent):
            event.call(*event.args)
            return True
        return super().event(event)


# Qt posts a window's paint request (QEvent.UpdateRequest) at Qt.LowEventPriority (-1);
# an event posted at a lower priority runs after the paint already requested.
AFTER_PAINT_PRIORITY = -2


class AfterPaint(QObject):
    """``later(key, fn)`` runs ``fn()`` on this object's thread after the paint that is
    pending (the event loop's next turn, below the paint request's priority); a key already
    waiting is not posted twice (its newest ``fn`` runs). The dealer's screen shows the card
    first and fills what can wait (the settlement table) one paint later."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._waiting: dict[str, Callable[[], Any]] = {}

    def later(self, key: str, call: Callable[[], Any]) -> None:
        if key not in self._waiting:
            QCoreApplication.postEvent(self, _CallEvent(self._run, (key,)), AFTER_PAINT_PRIORITY)
        self._waiting[key] = call

    def run_now(self, key: str) -> None:
        """Run ``key``'s call now if it is waiting (a reader needs its result at once)."""
        call = self._waiting.pop(key, None)
        if call is not None:
            call()

    def _run(self, key: str) -> None:
        # Qt does not always deliver the paint request first (a request posted while an
        # earlier one is delivered can land behind this event): deliver what is pending of
        # the layout and the paint now, then run the call
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.UpdateRequest)
        self.run_now(key)

    def event(self, event: QEvent) -> bool:
        if isinstance(event, _CallEvent):
            event.call(*event.args)
            return True
        return super().event(event)
