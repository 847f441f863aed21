"""The application's log: a size-capped rotating file, crashes and hard faults included.

``start_logging(directory)`` sends the standard library's ``logging`` (every module logs
to ``logging.getLogger(__name__)``) to ``directory/dealer-assist.log``, rotated at
``max_bytes`` with ``backups`` old files kept; installs a ``sys.excepthook`` (and
``threading.excepthook``) that writes an uncaught exception with its traceback to the log
and then calls ``on_crash`` (the dealer's screen shows a plain message there); and points
``faulthandler`` at a second file beside it, so a hard crash (a segmentation fault in a
library) leaves its Python stack in the log directory.

No Qt here: ui/common/applog.py routes Qt's own messages into this log.
"""

from __future__ import annotations

import faulthandler
import io
import logging
import logging.handlers
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import IO

LOG_NAME = "dealer-assist.log"
FAULT_NAME = "dealer-assist-faults.log"
MAX_BYTES = 1_000_000  # about a week of a busy table's log lines
BACKUPS = 5  # so the log directory never holds more than ~6 MB
FORMAT = "%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s"
LOG_MODE = 0o640  # the service's group may read, never write; others nothing (docs/station.md)

log = logging.getLogger("dealer_assist")

CrashCallback = Callable[[str], None]


class _LogFile(logging.handlers.RotatingFileHandler):
    """A rotating log whose every file (the rotated ones' successors too) is :data:`LOG_MODE`."""

    def _open(self) -> io.TextIOWrapper:
        stream = super()._open()
        os.fchmod(stream.fileno(), LOG_MODE)
        return stream


class AppLog:
    """What :func:`start_logging` set up (``stop()`` undoes it; tests call that)."""

    def __init__(self, path: Path, handler: logging.Handler, fault_file: IO[str] | None,
                 previous_hooks: tuple[object, object]) -> None:
        self.path = path
        self.handler = handler
        self.fault_file = fault_file
        self._previous_hooks = previous_hooks

    def stop(self) -> None:
        logging.getLogger().removeHandler(self.handler)
        self.handler.close()
        if self.fault_file is not None:
            faulthandler.disable()
            self.fault_file.close()
        sys.excepthook, threading.excepthook = self._previous_hooks  # type: ignore[assignment]


def start_logging(directory: Path, *, on_crash: CrashCallback | None = None, max_bytes: int = MAX_BYTES,
                  backups: int = BACKUPS, level: int = logging.INFO) -> AppLog:
    """Log to ``directory/dealer-assist.log`` (created 0770 if missing). Raises OSError if
    the directory cannot be made or written."""
    directory.mkdir(mode=0o770, parents=True, exist_ok=True)
    path = directory / LOG_NAME
    handler = _LogFile(path, maxBytes=max_bytes, backupCount=backups,
                                                   encoding="utf-8", delay=False)
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > level:
        root.setLevel(level)
    fault_file: IO[str] | None = None
    try:
        fault_file = open(directory / FAULT_NAME, "a", encoding="utf-8")  # noqa: SIM115 - open while the app runs
        os.fchmod(fault_file.fileno(), LOG_MODE)
        faulthandler.enable(fault_file, all_threads=True)
    except OSError as exc:
        log.warning("faulthandler not enabled: %s", exc)
    previous = (sys.excepthook, threading.excepthook)

    def excepthook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            previous[0](kind, value, tb)
            return
        log.critical("crash: %s: %s", kind.__name__, value, exc_info=(kind, value, tb))
        if on_crash is not None:
            try:
                on_crash(f"{kind.__name__}: {value}")
            except Exception:  # noqa: BLE001 - never let the crash report crash
                log.exception("could not show the crash message")

    def thread_hook(hook_args: threading.ExceptHookArgs) -> None:
        if hook_args.exc_value is None:
            return
        name = hook_args.thread.name if hook_args.thread is not None else "?"
        log.critical("crash in thread %s: %s", name, hook_args.exc_value,
                     exc_info=(hook_args.exc_type, hook_args.exc_value, hook_args.exc_traceback))

    sys.excepthook = excepthook
    threading.excepthook = thread_hook
    log.info("dealer-assist started: pid %d, log %s", os.getpid(), path)
    return AppLog(path, handler, fault_file, previous)
