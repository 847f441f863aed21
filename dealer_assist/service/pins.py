"""PIN checks off the table's path (docs/station.md, "PINs").

A PIN check costs a scrypt (dealer_assist/store/users.py: 128 MiB, 0.3-0.4 s, seconds under
load). It never runs under the table's lock: :class:`PinWorker` runs the checks one at a
time on its own thread, behind a queue of :data:`QUEUE_DEPTH`; a full queue is refused at
once ("busy: try again"), never waited for. The table's lock is taken only after the PIN
was found right, for the op's own short work (the approval's audit row, the log-in).

:class:`Throttle` slows a guesser without locking anyone out: a refused PIN's answer comes
after a delay that grows with the wrong PINs of the name (in memory, unknown names alike,
so a delay tells nothing about a name) and of the peer's OS account in the last minute.
A right PIN is answered at once. :class:`RefusalSummary` writes the refusals that change
nothing in the store (a locked name) as one ``pin_refusals`` row per name and minute.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from dealer_assist.service.protocol import ProtocolError

T = TypeVar("T")

QUEUE_DEPTH = 8  # PIN checks waiting; beyond: "busy", at once
WORKER_NICE = 10  # the PIN worker's thread runs below the table's
WAIT_S = 60.0  # a check not done by then is answered "busy" (the worker is stuck)
NAME_FREE = 3  # wrong PINs of a name answered without delay (FREE_FAILURES of the store's lock)
PEER_FREE = 10  # wrong PINs of one OS account in a minute answered without delay
MAX_DELAY_S = 30.0
PEER_WINDOW_S = 60.0
NAMES_KEPT = 10_000  # names whose wrong PINs are remembered (the oldest forgotten beyond)
SUMMARY_S = 60.0  # one pin_refusals row per name and minute

__all__ = ["PinWorker", "RefusalSummary", "Throttle", "Verified", "busy"]


@dataclass(frozen=True)
class Verified:
    """A PIN the worker found right for ``user`` (put in the request's args in place of the
    PIN: a client's JSON can never make one)."""

    user: str


def busy(text: str = "the station is busy checking PINs: try again in a moment") -> ProtocolError:
    return ProtocolError("busy", text)


@dataclass
class _Job:
    run: Callable[[], Any]
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None


def _stop() -> None:
    """The job that ends the worker (PinWorker.stop)."""


class PinWorker:
    """One thread that runs PIN checks in turn, behind a bounded queue."""

    def __init__(self, depth: int = QUEUE_DEPTH) -> None:
        self.jobs: queue.Queue[_Job] = queue.Queue(maxsize=depth)
        self.thread = threading.Thread(target=self._work, name="station-pins", daemon=True)
        self.thread.start()

    def run(self, fn: Callable[[], T]) -> T:
        """``fn()`` on the worker; ProtocolError(busy) when the queue is full (at once)."""
        job = _Job(fn)
        try:
            self.jobs.put_nowait(job)
        except queue.Full:
            raise busy() from None
        if not job.done.wait(WAIT_S):
            raise busy("no PIN check finished in time: try again")
        if job.error is not None:
            raise job.error
        return job.result  # type: ignore[no-any-return]

    def stop(self) -> None:
        """The worker ends after the checks queued before (the service stops)."""
        self.jobs.put(_Job(_stop))

    def _work(self) -> None:
        # Linux: a thread's own nice value (setpriority on its tid): the scrypt yields the CPU
        # to the table's threads (the shoe, the screens) rather than competing with them
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WORKER_NICE)
        except OSError:
            pass
        while True:
            job = self.jobs.get()
            if job.run is _stop:
                job.done.set()
                return
            try:
                job.result = job.run()
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting request
                job.error = exc
            job.done.set()


class Throttle:
    """Wrong PINs counted by name and by peer (OS account); the delay before a refusal."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_name: OrderedDict[str, int] = OrderedDict()
        self.by_peer: dict[int, deque[float]] = {}
        self.ghosts: dict[str, str] = {}  # an unknown name -> "locked" until (as the store locks a known one)

    def failed(self, name: str, uid: int, *, by_name: bool = True) -> float:
        """Count one refusal (of the name too, unless ``by_name`` is False: a locked name's,
        which guessed nothing); the seconds its answer waits."""
        now = time.monotonic()
        with self.lock:
            count = self.by_name.pop(name, 0) + (1 if by_name else 0)
            self.by_name[name] = count
            while len(self.by_name) > NAMES_KEPT:
                dropped, _ = self.by_name.popitem(last=False)
                self.ghosts.pop(dropped, None)
            recent = self.by_peer.setdefault(uid, deque())
            recent.append(now)
            while recent and now - recent[0] > PEER_WINDOW_S:
                recent.popleft()
            peer = len(recent)
        named = 0.0 if not by_name or count <= NAME_FREE else 2.0 ** min(count - NAME_FREE - 1, 8)
        by_peer = 0.0 if peer <= PEER_FREE else 0.5 * (peer - PEER_FREE)
        return min(max(named, by_peer), MAX_DELAY_S)

    def passed(self, name: str) -> None:
        with self.lock:
            self.by_name.pop(name, None)
            self.ghosts.pop(name, None)


class RefusalSummary:
    """Refusals of a name counted, written as one row per name and :data:`SUMMARY_S`."""

    def __init__(self, write: Callable[[str, dict[str, Any]], object]) -> None:
        self.write = write
        self.lock = threading.Lock()
        self.open: dict[str, tuple[float, str, dict[str, int]]] = {}  # name -> (since, since as text, counts)

    def note(self, name: str, reason: str, when: str) -> None:
        with self.lock:
            since, text, counts = self.open.get(name, (time.monotonic(), when, {}))
            counts[reason] = counts.get(reason, 0) + 1
            self.open[name] = (since, text, counts)

    def flush(self, *, everything: bool = False) -> None:
        now = time.monotonic()
        with self.lock:
            due = [(n, v) for n, v in self.open.items() if everything or now - v[0] >= SUMMARY_S]
            for name, _ in due:
                del self.open[name]
        for name, (_, since, counts) in due:
            self.write(name, {"username": name, "count": sum(counts.values()), "reasons": counts, "since": since})
