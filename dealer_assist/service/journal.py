"""The shoe journal: the last frame the service read from the shoe, written (``pwrite``, one
fixed slot) before the frame is acted on. A SIGKILL cannot lose it (the kernel keeps the
page), so after any restart the service knows the last frame it read: a card frame that no
event and no in-flight entry records is a card in flight, and a first frame whose sequence
number does not follow it shows frames sent while the service was down (a card may be
missing). A power cut may lose the page: the shoe's own gap then shows the loss."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

JOURNAL_NAME = "shoe-journal"
SLOT = 4096
SEQ_MODULO = 10000  # da1: four decimal digits, then it wraps (spec/shoe-protocol.md)


class ShoeJournal:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)

    def read(self) -> dict[str, Any] | None:
        data = os.pread(self.fd, SLOT, 0).rstrip(b"\0 \n")
        if not data:
            return None
        try:
            value = json.loads(data)
        except ValueError:
            return None  # a torn slot: no frame known (the next frame's gap tells nothing)
        return value if isinstance(value, dict) else None

    def write(self, frame: dict[str, Any]) -> None:
        data = json.dumps(frame, separators=(",", ":")).encode()
        if len(data) >= SLOT:
            data = json.dumps({"event": frame.get("event"), "seq": frame.get("seq")}).encode()
        os.pwrite(self.fd, data.ljust(SLOT, b" "), 0)

    def close(self) -> None:
        os.close(self.fd)


def frames_between(last: int, seq: int) -> int:
    """Frames lost between ``last`` and ``seq`` (0 when ``seq`` follows ``last``)."""
    return (seq - last - 1) % SEQ_MODULO
