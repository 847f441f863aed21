"""Electronic Blackjack's decision time, counted by the station service (3.17, 3.18).

Each seat whose decision the round waits on has a clock of the table's
``decision_seconds``; when it runs out the service records that seat's ``timeout`` and the
engine plays the default strategy (3.18.1). A seat whose terminal dropped (5.9.1) has a
clock of no time at all: the default decision applies as soon as its turn comes.

The clock knows no rule and takes no table lock of its own accord: the service gives it,
under the table's lock, the seats pending now (:meth:`DecisionClock.set`), each with the
key of its decision (a decision made starts the next one's clock); its one thread waits
for the earliest end without any lock held and calls ``run_out(seat, key)``, which takes
the table's lock and records the time-out only if that same decision is still pending (a
decision that arrived first wins; the time-out then does nothing).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Clock", "DecisionClock"]

TURN_S = 1.0  # the thread wakes at least this often (a stop is seen)


@dataclass
class Clock:
    """One seat's decision time: ``ends`` (monotonic) and ``deadline`` (wall time, ISO UTC)."""

    key: Any
    ends: float
    deadline: str
    fired: bool = False  # run_out was called for it (once per clock)

    def seconds_left(self, now: float | None = None) -> int:
        """Whole seconds left, rounded up (a terminal shows 1 until it runs out), never below 0."""
        left = self.ends - (time.monotonic() if now is None else now)
        return max(0, int(-(-left // 1)))


def wall_deadline(seconds: float) -> str:
    """The wall time ``seconds`` from now, ISO 8601 UTC to the millisecond."""
    at = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds)
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class DecisionClock:
    """The pending seats' clocks and the thread that runs them out."""

    def __init__(self, run_out: Callable[[str, Any], None], log: logging.Logger | None = None) -> None:
        self.run_out = run_out
        self.log = log or logging.getLogger("dealer_assist.service")
        self.cond = threading.Condition()
        self.clocks: dict[str, Clock] = {}
        self.stopping = False
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name="decision-clock", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        with self.cond:
            self.stopping = True
            self.cond.notify_all()
        if self.thread is not None:
            self.thread.join(timeout=5)

    def set(self, pending: dict[str, Any], seconds: float, at_once: set[str] | frozenset[str] = frozenset()) -> None:
        """The seats pending now, each with its decision's key: a seat pending at the same
        decision keeps its clock; a new decision gets ``seconds`` (``at_once``: none, 5.9.1);
        a seat no longer pending has none. A clock that ran out and whose decision is still
        pending (the time-out was not taken, e.g. during a referral, 6.1) starts again."""
        now = time.monotonic()
        with self.cond:
            clocks: dict[str, Clock] = {}
            for seat, key in pending.items():
                old = self.clocks.get(seat)
                term = 0.0 if seat in at_once else float(seconds)
                if old is not None and old.key == key and not old.fired and (old.ends <= now + term):
                    clocks[seat] = old
                else:
                    clocks[seat] = Clock(key, now + term, wall_deadline(term))
            self.clocks = clocks
            self.cond.notify_all()

    def get(self, seat: str) -> Clock | None:
        with self.cond:
            return self.clocks.get(seat)

    def counting(self, seat: str) -> bool:
        """The clock of ``seat`` is counting: its thread runs and its time has not run out."""
        with self.cond:
            c = self.clocks.get(seat)
            running = self.thread is not None and self.thread.is_alive() and not self.stopping
            return running and c is not None and not c.fired and c.ends > time.monotonic()

    def _run(self) -> None:
        while True:
            with self.cond:
                if self.stopping:
                    return
                now = time.monotonic()
                due = [(seat, c) for seat, c in self.clocks.items() if not c.fired and c.ends <= now]
                for _, c in due:
                    c.fired = True
                if not due:
                    ends = [c.ends for c in self.clocks.values() if not c.fired]
                    wait = min([TURN_S, *(e - now for e in ends)])
                    self.cond.wait(timeout=max(wait, 0.0))
                    continue
            for seat, c in due:  # no lock of the clock held: run_out takes the table's
                try:
                    self.run_out(seat, c.key)
                except Exception:  # never a dead clock for one seat
                    self.log.exception("the decision clock of seat %s failed", seat)
