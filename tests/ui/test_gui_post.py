"""Handing calls to the GUI thread (ui/common/qtfix.py ``GuiPost``): in order, from any thread,
and never into a receiver that has been deleted (a worker outliving its window)."""

from __future__ import annotations

import os
import threading
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import shiboken6  # noqa: E402
from PySide6.QtWidgets import QWidget  # noqa: E402

from ui.common.qtfix import GuiPost  # noqa: E402
from ui.common.worker import Worker  # noqa: E402


def test_calls_from_several_threads_arrive_on_the_gui_thread_in_each_threads_order(qtbot: Any) -> None:
    post = GuiPost()
    got: list[tuple[str, int, bool]] = []
    main = threading.main_thread()

    def record(name: str, i: int) -> None:
        got.append((name, i, threading.current_thread() is main))

    def send(name: str) -> None:
        for i in range(2000):
            post.post(record, name, i)

    threads = [threading.Thread(target=send, args=(name,)) for name in ("a", "b", "c")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    qtbot.waitUntil(lambda: len(got) == 6000, timeout=10000)
    assert all(on_gui for _, _, on_gui in got)
    for name in ("a", "b", "c"):
        assert [i for n, i, _ in got if n == name] == list(range(2000))


def test_a_result_for_a_deleted_window_is_dropped_not_delivered(qtbot: Any) -> None:
    window = QWidget()
    worker = Worker("outlives-its-window", window)
    release = threading.Event()
    delivered: list[Any] = []
    worker.submit(lambda: release.wait(10) and "late result", lambda result, error: delivered.append(result))
    worker.stop(timeout=0.01)  # the job is still running: stop gives up waiting, as closeEvent does
    window.deleteLater()
    qtbot.waitUntil(lambda: not shiboken6.isValid(window), timeout=5000)
    release.set()  # the job ends after its window is gone and hands its result over
    later = GuiPost()
    marker: list[str] = []
    later.post(marker.append, "after")  # queued behind the worker's result
    qtbot.waitUntil(lambda: marker == ["after"], timeout=5000)
    assert delivered == []


def test_a_failing_call_does_not_lose_the_calls_behind_it(qtbot: Any) -> None:
    post = GuiPost()
    seen: list[int] = []
    errors: list[BaseException] = []

    def boom() -> None:
        raise ValueError("a slot's bug")

    import sys

    previous = sys.excepthook
    sys.excepthook = lambda kind, value, tb: errors.append(value)
    try:
        post.post(seen.append, 1)
        post.post(boom)
        post.post(seen.append, 2)
        qtbot.waitUntil(lambda: seen == [1, 2], timeout=5000)
    finally:
        sys.excepthook = previous
    assert [str(e) for e in errors] == ["a slot's bug"]
