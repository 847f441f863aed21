"""Qt's messages into the application's log, and the dealer's plain crash message.

``route_qt_messages()`` installs a Qt message handler (qInstallMessageHandler) that
writes Qt's debug/info/warning/critical/fatal messages to the ``qt`` logger, so a
warning printed by Qt (lost when the app is started from the menu) is in the log file
that dealer_assist/service/applog.py set up. ``show_crash(text)`` is the ``on_crash`` callback:
a plain message for the dealer, the traceback staying in the log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication, QMessageBox

qt_log = logging.getLogger("qt")
_shown: list[QMessageBox] = []

_LEVELS = {
    QtMsgType.QtDebugMsg: logging.DEBUG,
    QtMsgType.QtInfoMsg: logging.INFO,
    QtMsgType.QtWarningMsg: logging.WARNING,
    QtMsgType.QtCriticalMsg: logging.ERROR,
    QtMsgType.QtFatalMsg: logging.CRITICAL,
}


def _on_qt_message(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    where = f" ({context.category})" if context.category and context.category != "default" else ""
    qt_log.log(_LEVELS.get(kind, logging.WARNING), "%s%s", message, where)


def route_qt_messages() -> None:
    qInstallMessageHandler(_on_qt_message)


def stop_routing_qt_messages() -> None:
    qInstallMessageHandler(None)


def crash_message(log_path: Path) -> str:
    return (
        "Dealer Assist met an error it did not expect and wrote the details to its log:\n"
        f"{log_path}\n\n"
        "Every event of the round so far is saved in the table's store. Call the "
        "technician or the pit supervisor; restarting Dealer Assist brings the open round "
        "back where it was."
    )


def crash_reporter(log_path: Path) -> Callable[[str], None]:
    """The ``on_crash`` callback for dealer_assist.service.applog.start_logging."""

    def show_crash(_summary: str) -> None:
        app = QApplication.instance()
        if app is None:
            return
        box = QMessageBox(QMessageBox.Icon.Critical, "Dealer Assist: error", crash_message(log_path))
        box.setObjectName("crash_message")
        _shown.append(box)  # kept alive until closed (a local would be collected at once)
        box.finished.connect(lambda _result: _shown.remove(box))
        box.open()

    return show_crash
