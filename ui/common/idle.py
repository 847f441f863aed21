"""Wait for Qt to be idle instead of a fixed pause (the heavy round's and the geometry
checks' waits before they look at the window, issue 37).

A resize, a new card or an opened dialog is laid out by events Qt posts (the resize itself,
layout requests, zero-interval timers such as a hand's pay tag placed after its cards, the
update requests that paint): none of the dealer's screens waits on a timer longer than 0 ms
(their periodic clocks do not move widgets). So once a pass of the event loop handles no
event for ``quiet`` seconds, the layout is what it will be; a fixed 150 ms pause waited that
long after every event even on an idle machine, and could still be too short on a loaded one.

Each pass also deletes what was deleted later (``deleteLater``), as the event loop does when
a handler returns to it: a caller waiting here from inside one handler (the heavy round, the
layout walk) otherwise kept every box the screen replaced, hidden, until it returned — 1,426
widgets in Lucky 8's window at betting instead of 410, every one restyled at a change of scale.
"""

from __future__ import annotations

import time

QUIET = 0.03  # longer than an update request's frame (16 ms at 60 Hz): painting is done too
MOST = 3.0  # a machine too loaded to settle in 3 s: the check runs anyway (and reports)
FALLBACK = 0.15


def wait_idle(quiet: float = QUIET, most: float = MOST) -> None:
    """Process events until none came for ``quiet`` seconds (at most ``most`` seconds)."""
    from PySide6.QtCore import QAbstractEventDispatcher, QCoreApplication, QEvent, QEventLoop

    def deleted_later() -> None:
        QCoreApplication.sendPostedEvents(None, int(QEvent.Type.DeferredDelete))

    dispatcher = QAbstractEventDispatcher.instance()
    start = time.monotonic()
    if dispatcher is None or "Glib" not in dispatcher.metaObject().className():
        # GLib's dispatcher says whether a pass handled anything, posted events included;
        # the plain Unix one (QT_NO_GLIB) leaves those out: the old fixed pause instead
        while time.monotonic() - start < FALLBACK:
            QCoreApplication.processEvents()
            deleted_later()
            time.sleep(0.005)
        return
    last = start
    while True:
        busy = dispatcher.processEvents(QEventLoop.ProcessEventsFlag.AllEvents)
        deleted_later()
        now = time.monotonic()
        if now - start >= most:
            return
        if busy:
            last = now
        elif now - last >= quiet:
            return
        else:
            time.sleep(0.002)
