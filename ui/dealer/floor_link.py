"""The dealer's app forwarding to the floor in the background, and the link's status widget.

``FloorLink(db_path, url)`` runs :meth:`dealer_assist.floor.forward.Forwarder.follow` on a
QThread of its own: it reads the store through its own read-only connection and talks to
PostgreSQL there, so a slow or absent network never blocks or slows the dealer's screen.
Each state (forwarded up to round N / offline since HH:MM, N waiting / stopped, why) comes
back to the GUI thread by a posted event and is shown by ``FloorLink.widget``, a small
label the dealer's window places where it likes (the status bar by default).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtCore import QObject, QThread
from PySide6.QtWidgets import QLabel, QWidget

from dealer_assist.floor.forward import Forwarder, ForwardResult, LinkState
from ui.common.qtfix import GuiPost

__all__ = ["FloorLink", "FloorLinkStatus"]


class FloorLinkStatus(QLabel):
    """One line: the state of the link to the floor (green forwarded, amber offline, red stopped)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("floor: connecting…", parent)
        self.setObjectName("floorLinkStatus")
        self.state: LinkState | None = None

    def show_state(self, state: LinkState) -> None:
        self.state = state
        self.setText(state.describe())
        colour = "#1b7f3a"
        if state.stopped:
            colour = "#b00020"
        elif state.offline_since is not None:
            colour = "#a86400"
        self.setStyleSheet(f"color: {colour};")
        self.setToolTip(state.error or state.stopped or "")


class _FollowThread(QThread):
    def __init__(self, db_path: Path, url: str, interval: float, post: GuiPost, status: FloorLinkStatus) -> None:
        super().__init__()
        self._db_path = db_path
        self._url = url
        self._interval = interval
        self._post = post
        self._status = status

    def run(self) -> None:
        def report(state: LinkState, done: ForwardResult | None) -> None:
            # a copy: the forwarder goes on changing its own
            self._post.post(self._status.show_state, dataclasses.replace(state))

        with Forwarder(self._db_path, self._url) as forwarder:
            forwarder.follow(interval=self._interval, report=report,
                             should_stop=self.isInterruptionRequested)


class FloorLink(QObject):
    """Background forwarding of one station store to the floor, with its status widget."""

    def __init__(self, db_path: str | Path, url: str, *, interval: float = 5.0,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.widget = FloorLinkStatus()
        self._post = GuiPost(self)
        self._thread = _FollowThread(Path(db_path), url, interval, self._post, self.widget)

    def start(self) -> None:
        self._thread.start(QThread.Priority.LowPriority)

    def stop(self, timeout_ms: int = 10000) -> None:
        """Ask the forwarder to stop after its current step and wait for it."""
        self._thread.requestInterruption()
        self._thread.wait(timeout_ms)

    def is_running(self) -> bool:
        return self._thread.isRunning()
