"""Read a store file ahead of ``history verify`` (Linux: ``posix_fadvise(WILLNEED)``).

``verify`` reads every page of the file once. From a cold page cache SQLite's 4 KiB reads,
spread over several tables and two or more worker processes, look random to the kernel and
get little read-ahead: a million real rounds (14 GB) took 81 s with two workers on the
development machine against 45 s from the page cache, while the disk reads the file in
order at more than 1 GB/s. This asks the kernel to read the file in order, a chunk at a time,
into the page cache the workers then find it in (no copy through any process: 14 GB asked
for in a few seconds there; the cold verify then took 50–53 s).

It runs on a thread: each call releases the interpreter's lock while the kernel queues
the reads, so it costs the verifying process almost nothing (a process of its own, tried
first, cost 18 MB more and was no faster: 54–56 s). Only when the file fits in four fifths of the
memory available, so that it does not push out what it prefetched (or much else) before it
is used; nothing where ``posix_fadvise`` or ``/proc/meminfo`` are missing. It changes no
verdict: a page not prefetched is read as before.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = ["CHUNK", "Prefetch", "available_memory"]

#: Bytes asked for at a time: each call returns once its reads are queued, and Linux reads
#: at most its read-ahead window a call (128 KiB by default), so a larger chunk would skip.
CHUNK = 128 << 10


def available_memory() -> int | None:
    """The kernel's estimate of memory available without swapping (bytes), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


class Prefetch:
    """``with Prefetch(path):`` the file is read ahead while the block runs (see the module)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.requested = 0  # bytes asked for so far
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def wanted(self) -> bool:
        if self.path is None or not hasattr(os, "posix_fadvise"):
            return False
        try:
            size = self.path.stat().st_size
        except OSError:
            return False
        memory = available_memory()
        return memory is not None and 0 < size <= memory * 4 // 5

    def __enter__(self) -> Prefetch:
        if self.wanted():
            self._thread = threading.Thread(target=self._advise, name="store-prefetch", daemon=True)
            self._thread.start()
        return self

    def wait(self) -> None:
        """Until every chunk has been asked for (at once when nothing is prefetched)."""
        if self._thread is not None:
            self._thread.join()

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self.wait()

    def _advise(self) -> None:
        assert self.path is not None
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            return
        try:
            size = os.fstat(fd).st_size
            offset = 0
            while offset < size and not self._stop.is_set():
                os.posix_fadvise(fd, offset, min(CHUNK, size - offset), os.POSIX_FADV_WILLNEED)
                offset += CHUNK
                self.requested = min(offset, size)
        except OSError:
            pass  # a hint only: verify reads what it needs either way
        finally:
            os.close(fd)
