"""Garbage collection on the GUI thread only, and on the dealer's screen between rounds.

Python's automatic collection runs in whichever thread allocates when its count is
reached. On a worker thread (the shoe's reader, the service link, a pit window's alerts
working out a par sheet) it freed the Qt objects of windows gone earlier, and PySide's
``QObject::~QObject`` there waited for the GIL while holding Qt's lock, against the GUI
thread holding the GIL and waiting for that lock: the program hung (native stacks in the
note of 2026-11-27). So every window process turns automatic collection off as soon as
its QApplication exists (:func:`collect_on_gui_thread_only`) and collects on the GUI
thread: by a timer with the same thresholds (:func:`start_gui_thread_collector`; the review and
the pit), or between rounds (the dealer's screen, :func:`collect_now`).

On the card that brings a settlement (63 settlement entries and their cells with the
heaviest layout) a collection took 6-19 ms in ``ui.dealer.bench``, destroying the Qt
objects of the cycles it found, and a full pass over everything the program holds took
45-95 ms: the dealer's screen collects after it has painted a new round's betting.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtCore import QObject, QTimer


def collect_on_gui_thread_only() -> None:
    """Automatic collection off: from now on only the GUI thread collects. Call it on the
    GUI thread before any worker thread starts. Reference counting still frees at once
    everything not in a cycle."""
    gc.disable()


def collect_between_rounds() -> None:
    """Once the dealer's screen is built: what exists (modules, Qt's wrappers, the window;
    it lives as long as the screen) is frozen out of every pass and automatic collection is
    off; the window collects (:func:`collect_now`) after it has painted a new round's
    betting, when no card is due. (No collection first: it would delay the first window by
    tens of milliseconds.)"""
    gc.freeze()
    gc.disable()


def collect_now() -> None:
    """A full collection, if automatic collection was turned off."""
    if not gc.isenabled():
        gc.collect()


def collect_due() -> int | None:
    """One collection of the generation the automatic collector would have collected by
    now (its thresholds, :func:`gc.get_threshold`), or none; returns the generation."""
    counts = gc.get_count()
    thresholds = gc.get_threshold()
    for generation in (2, 1, 0):
        if thresholds[generation] and counts[generation] > thresholds[generation]:
            gc.collect(generation)
            return generation
    return None


def start_gui_thread_collector(parent: QObject, interval_ms: int = 500) -> QTimer:
    """For the review and the pit windows: automatic collection off, and a timer on the GUI
    thread (a child of ``parent``, the QApplication) collects what is due
    (:func:`collect_due`) every ``interval_ms``."""
    from PySide6.QtCore import QTimer  # Qt only once a window is wanted (ui.dealer.app's checks)

    collect_on_gui_thread_only()
    timer = QTimer(parent)
    timer.setInterval(interval_ms)
    timer.timeout.connect(collect_due)
    timer.start()
    return timer
