"""The service's health: systemd's notify socket (READY=1, WATCHDOG=1; no library, the
``socket`` module only) and a log of repeated refusals that writes one line per burst
(a flood is logged, never a line per connection).

The watchdog's ping is sent only when a check proves the service alive (server.py: the
accept loop turned within the last few seconds and the table's lock was taken), so a
deaf or stalled service stops pinging and systemd restarts it (``WatchdogSec`` in
packaging/systemd/dealer-assist.service)."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time

NOTIFY_ENV = "NOTIFY_SOCKET"
WATCHDOG_ENV = "WATCHDOG_USEC"

__all__ = ["BurstLog", "notify_systemd", "watchdog_interval"]


def notify_systemd(state: str) -> bool:
    """Send ``state`` (e.g. ``READY=1``, ``WATCHDOG=1``) to $NOTIFY_SOCKET; False when there
    is none (not started by systemd) or it cannot be reached."""
    where = os.environ.get(NOTIFY_ENV, "")
    if not where:
        return False
    address = "\0" + where[1:] if where.startswith("@") else where  # '@': the abstract namespace
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.sendto(state.encode("utf-8"), address)
    except OSError:
        return False
    return True


def watchdog_interval() -> float | None:
    """Seconds between two pings (half of systemd's ``WatchdogSec``), None without a watchdog."""
    raw = os.environ.get(WATCHDOG_ENV, "")
    pid = os.environ.get("WATCHDOG_PID", "")
    if not raw.isdigit() or int(raw) <= 0 or (pid.isdigit() and int(pid) != os.getpid()):
        return None
    return int(raw) / 1e6 / 2


class BurstLog:
    """Refusals of one kind and key (an account, a peer): the first is logged at once, the
    rest counted and logged as one line per ``interval`` seconds (:meth:`flush`)."""

    def __init__(self, log: logging.Logger, interval: float = 10.0) -> None:
        self.log = log
        self.interval = interval
        self.lock = threading.Lock()
        self.counts: dict[tuple[str, str], tuple[int, float, str]] = {}  # -> (uncounted, since, text)

    def note(self, kind: str, key: str, text: str) -> None:
        now = time.monotonic()
        with self.lock:
            held = self.counts.get((kind, key))
            if held is None:
                self.counts[(kind, key)] = (0, now, text)
                first = True
            else:
                self.counts[(kind, key)] = (held[0] + 1, held[1], text)
                first = False
        if first:
            self.log.warning("%s (%s); more of these are counted, one line each %.0f s", text, key, self.interval)
        self.flush(now)

    def flush(self, now: float | None = None) -> None:
        """Log the counts whose interval is over (and forget quiet keys)."""
        now = time.monotonic() if now is None else now
        lines = []
        with self.lock:
            for (kind, key), (count, since, text) in list(self.counts.items()):
                if now - since < self.interval:
                    continue
                if count:
                    lines.append(f"{count} more in {now - since:.0f} s: {text} ({key})")
                    self.counts[(kind, key)] = (0, now, text)
                else:
                    del self.counts[(kind, key)]
        for line in lines:
            self.log.warning("%s", line)
