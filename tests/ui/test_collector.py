"""ui/common/collector.py: the windows collect garbage on the GUI thread only."""

from __future__ import annotations

import gc
import threading
from typing import Any

from PySide6.QtCore import QObject

from ui.common.collector import collect_due, start_gui_thread_collector


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_collect_due_collects_the_generation_the_thresholds_name() -> None:
    gc.disable()
    gc.collect()
    threshold0 = gc.get_threshold()[0]
    assert collect_due() is None  # nothing allocated since the full pass
    for _ in range(threshold0 + 10):
        _Cycle()
    assert gc.get_count()[0] > threshold0
    assert collect_due() == 0
    assert gc.get_count()[0] < threshold0


def test_a_worker_thread_never_collects_once_the_window_collects(qapp: Any, qtbot: Any) -> None:
    """Allocations on a worker far past the thresholds trigger no collection there; the
    GUI thread's timer collects them."""
    parent = QObject()
    timer = start_gui_thread_collector(parent, interval_ms=20)
    assert not gc.isenabled()
    collected_on: list[str] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop":
            collected_on.append(threading.current_thread().name)

    gc.callbacks.append(note)
    try:
        worker = threading.Thread(target=lambda: [_Cycle() for _ in range(50 * gc.get_threshold()[0])],
                                  name="worker")
        worker.start()
        worker.join()
        assert "worker" not in collected_on
        qtbot.waitUntil(lambda: threading.main_thread().name in collected_on, timeout=2000)
    finally:
        gc.callbacks.remove(note)
        timer.stop()
        parent.deleteLater()
