"""Waiting helpers for tests over a real pseudo-terminal: wait for an outcome, never for a time."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

from hardware.events import ShoeEvent

E = TypeVar("E", bound=ShoeEvent)

WAIT_S = 5.0  # generous: an event normally arrives within milliseconds


class EventLog:
    """Collects driver events from the reader thread; tests wait on it."""

    def __init__(self) -> None:
        self.events: list[ShoeEvent] = []
        self._cond = threading.Condition()

    def __call__(self, event: ShoeEvent) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def snapshot(self) -> list[ShoeEvent]:
        with self._cond:
            return list(self.events)

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.snapshot() if isinstance(e, kind)]

    def mark(self) -> int:
        """Position to wait from: only events after it count."""
        with self._cond:
            return len(self.events)

    def wait_for(
        self,
        kind: type[E],
        where: Callable[[E], bool] = lambda e: True,
        *,
        since: int = 0,
        timeout: float = WAIT_S,
    ) -> E:
        """The first event of ``kind`` after ``since`` matching ``where``; fails after ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for e in self.events[since:]:
                    if isinstance(e, kind) and where(e):
                        return e
                left = deadline - time.monotonic()
                if left <= 0:
                    names = [type(e).__name__ for e in self.events[since:]]
                    raise AssertionError(f"no {kind.__name__} within {timeout} s; got {names}")
                self._cond.wait(left)

    def after(self, index: int) -> list[ShoeEvent]:
        with self._cond:
            return list(self.events[index:])


def wait_until(condition: Callable[[], bool], timeout: float = WAIT_S, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within {timeout} s")
        time.sleep(0.01)
