"""Work-arounds for Qt binding bugs, and the thread-safe hand-over to the GUI thread.

PySide6 6.12.0 on CPython 3.11: ``SignalInstance.emit()`` returns ``True`` without a new
reference, so every ``signal.emit(...)`` called from Python takes one reference from
``True``; after a few hundred emits CPython aborts ("bool_dealloc: deallocating True
or False"). :func:`emit` emits and gives the reference back when (and only when) a
self-test at import shows the binding has the bug. Signals emitted by Qt itself
(``clicked``, ``timeout``) are not affected.

:class:`GuiPost` hands a call to the GUI thread with ``QCoreApplication.postEvent``
(thread-safe, returns nothing), so no Python code emits a signal off the GUI thread.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Signal

_incref = ctypes.pythonapi.Py_IncRef
_incref.argtypes = [ctypes.py_object]
_incref.restype = None


class _Probe(QObject):
    ping = Signal()


def _emit_steals_a_reference() -> bool:
    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(8):
        probe.ping.emit()
    after = sys.getrefcount(True)
    lost = before - after
    for _ in range(max(0, lost)):
        _incref(True)  # give back what the probe took
    return lost >= 8


EMIT_STEALS = _emit_steals_a_reference()


def emit(signal: Any, *args: Any) -> None:
    """``signal.emit(*args)``, compensating the PySide6 6.12 reference bug if present."""
    result = signal.emit(*args)
    if EMIT_STEALS and result is not None:
        _incref(result)


_CALL_EVENT = QEvent.Type(QEvent.registerEventType())


class _CallEvent(QEvent):
    def __init__(self, call: Callable[..., Any], args: tuple[Any, ...]) -> None:
        super().__init__(_CALL_EVENT)
        self.call = call
        self.args = args


class GuiPost(QObject):
    """``post(fn, *args)`` from any thread runs ``fn(*args)`` on the thread owning this object."""

    def post(self, call: Callable[..., Any], *args: Any) -> None:
        QCoreApplication.postEvent(self, _CallEvent(call, args))

    def event(self, event: QEvent) -> bool:
        if isinstance(event, _CallEvent):
            event.call(*event.args)
            return True
        return super().event(event)
