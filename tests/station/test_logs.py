"""The application's log (dealer_assist/service/applog.py, ui/common/applog.py): a real file, rotated at
its size cap, crashes with their traceback, hard faults, Qt's own messages."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.service import applog

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def started(tmp_path: Path) -> Iterator[tuple[applog.AppLog, list[str]]]:
    crashes: list[str] = []
    app_log = applog.start_logging(tmp_path / "log", on_crash=crashes.append, max_bytes=2_000, backups=2)
    yield app_log, crashes
    app_log.stop()


def test_written_and_rotated_at_the_cap(started: tuple[applog.AppLog, list[str]], tmp_path: Path) -> None:
    app_log, _ = started
    log = logging.getLogger("dealer_assist.test")
    for n in range(200):  # ~100 bytes a line: about ten files' worth through a cap of 2,000 bytes
        log.info("line %03d of the rotation test", n)
    app_log.handler.flush()
    names = sorted(p.name for p in (tmp_path / "log").iterdir())
    assert names == ["dealer-assist-faults.log", "dealer-assist.log", "dealer-assist.log.1", "dealer-assist.log.2"]
    for name in names[1:]:
        assert (tmp_path / "log" / name).stat().st_size <= 2_000
    newest = (tmp_path / "log" / "dealer-assist.log").read_text()
    assert "line 199 of the rotation test" in newest
    oldest_kept = (tmp_path / "log" / "dealer-assist.log.2").read_text()
    assert "line 000" not in oldest_kept + newest  # the first lines rotated out: the directory stays small


def test_uncaught_exception_logged_with_traceback(started: tuple[applog.AppLog, list[str]]) -> None:
    app_log, crashes = started

    def deal_from_an_empty_shoe() -> None:
        raise RuntimeError("the shoe is empty")

    try:
        deal_from_an_empty_shoe()
    except RuntimeError:
        sys.excepthook(*sys.exc_info())  # type: ignore[arg-type]  (what Python calls for an uncaught error)
    app_log.handler.flush()
    text = app_log.path.read_text()
    assert "CRITICAL" in text and "crash: RuntimeError: the shoe is empty" in text
    assert "Traceback (most recent call last)" in text and "deal_from_an_empty_shoe" in text
    assert crashes == ["RuntimeError: the shoe is empty"]  # the dealer's plain message is shown from this


def test_exception_in_a_thread_logged(started: tuple[applog.AppLog, list[str]]) -> None:
    app_log, _ = started

    def reader() -> None:
        raise OSError("port vanished")

    thread = threading.Thread(target=reader, name="shoe-reader test")
    thread.start()
    thread.join()
    app_log.handler.flush()
    text = app_log.path.read_text()
    assert "crash in thread shoe-reader test: port vanished" in text and "Traceback" in text


def test_hooks_restored_on_stop(tmp_path: Path) -> None:
    before = sys.excepthook
    app_log = applog.start_logging(tmp_path / "log")
    assert sys.excepthook is not before
    app_log.stop()
    assert sys.excepthook is before


def test_hard_crash_leaves_its_stack_in_the_log_directory(tmp_path: Path) -> None:
    code = ("import sys, faulthandler; from pathlib import Path; from dealer_assist.service import applog;"
            "applog.start_logging(Path(sys.argv[1])); faulthandler._sigsegv()")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "log")], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    faults = (tmp_path / "log" / applog.FAULT_NAME).read_text()
    assert "Fatal Python error: Segmentation fault" in faults
    assert "<string>" in faults  # the Python stack of the crash


def test_qt_messages_go_to_the_log(started: tuple[applog.AppLog, list[str]], qtbot: Any) -> None:
    from PySide6.QtCore import qWarning

    from ui.common.applog import route_qt_messages, stop_routing_qt_messages

    app_log, _ = started
    route_qt_messages()
    try:
        qWarning("xcb cursor theme not found (test)")
    finally:
        stop_routing_qt_messages()
    app_log.handler.flush()
    text = app_log.path.read_text()
    assert "WARNING qt [MainThread] xcb cursor theme not found (test)" in text


def test_dealer_sees_a_plain_message(qtbot: Any, tmp_path: Path) -> None:
    from PySide6.QtWidgets import QApplication, QMessageBox

    from ui.common.applog import crash_reporter

    show = crash_reporter(tmp_path / "dealer-assist.log")
    show("KeyError: 'x'")
    boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
    assert len(boxes) == 1
    text = boxes[0].text()
    assert str(tmp_path / "dealer-assist.log") in text and "saved in the table's store" in text
    assert "KeyError" not in text and "Traceback" not in text  # no programmer's words for the dealer
    boxes[0].close()
