"""The shoe journal: every frame the service read from the shoe, written (``pwrite`` into a
ring of fixed slots, allocated when the file is made) before the frame is acted on, and
marked done once what it means is on record (issue 39 item 3). A SIGKILL cannot lose a
slot (the kernel keeps the page), and a full disk cannot refuse one (the slots were
allocated beforehand), so after any number of restarts, or once space returns, the service
knows every frame it read and has not recorded: a card frame no event and no in-flight
entry records is a card in flight, and the newest frame's sequence number tells whether the
next frame follows it (frames sent while the service was down: a card may be missing). A
power cut may lose the pages: the shoe's own gap then shows the loss."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

JOURNAL_NAME = "shoe-journal"
SLOT = 512
SLOTS = 1024  # frames not yet recorded that the ring holds (a full disk for 1,024 frames)
OLD_SLOT = 4096  # the one-frame journal of earlier versions: its frame is read as not done
SEQ_MODULO = 10000  # da1: four decimal digits, then it wraps (spec/shoe-protocol.md)


@dataclass
class Entry:
    number: int  # the journal's own count of frames (never wraps)
    frame: dict[str, Any]
    done: bool


class ShoeJournal:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        self.full = False  # the ring held only undone frames when one more came (logged by the caller)
        entries = self._scan()
        self.next = max((e.number for e in entries), default=0) + 1
        size = os.fstat(self.fd).st_size
        if size < SLOT * SLOTS:
            try:  # every slot's blocks now: a full disk later cannot refuse a frame
                if entries and size <= OLD_SLOT and entries[0].number == 0:
                    os.pwrite(self.fd, b" " * OLD_SLOT, 0)
                    self._put(0, entries[0].frame, False, slot=0)
                os.posix_fallocate(self.fd, 0, SLOT * SLOTS)
            except OSError:
                pass  # written slot by slot then (the caller's store refuses first on a full disk)

    def _scan(self) -> list[Entry]:
        data = os.pread(self.fd, SLOT * SLOTS, 0)
        out: list[Entry] = []
        if data[:1] == b"{" and len(data) <= OLD_SLOT:  # the old one-slot journal
            frame = _json(data.rstrip(b"\0 \n"))
            if frame is not None and "n" not in frame:
                return [Entry(0, frame, False)]
        for i in range(0, len(data), SLOT):
            raw = _json(data[i:i + SLOT].rstrip(b"\0 \n"))
            if raw is None or not isinstance(raw.get("f"), dict) or not isinstance(raw.get("n"), int):
                continue  # empty, or torn (then the next frame's gap tells the loss)
            out.append(Entry(int(raw["n"]), raw["f"], bool(raw.get("d"))))
        return sorted(out, key=lambda e: e.number)

    def entries(self) -> list[Entry]:
        """Every frame the journal holds, oldest first."""
        return self._scan()

    def undone(self) -> list[Entry]:
        """The frames read and not yet marked done, oldest first."""
        return [e for e in self._scan() if not e.done]

    def read(self) -> dict[str, Any] | None:
        """The newest frame read (None before the first)."""
        entries = self._scan()
        return entries[-1].frame if entries else None

    def write(self, frame: dict[str, Any]) -> int:
        """``frame`` into the next slot, not done; its number (for :meth:`done`)."""
        number = self.next
        self.next += 1
        slot = number % SLOTS
        old = _json(os.pread(self.fd, SLOT, slot * SLOT).rstrip(b"\0 \n"))
        if old is not None and not old.get("d") and isinstance(old.get("f"), dict):
            self.full = True  # 1,024 frames unrecorded: the oldest is overwritten (logged)
        self._put(number, frame, False, slot=slot)
        return number

    def done(self, number: int, frame: dict[str, Any]) -> None:
        """What frame ``number`` means is on record: not replayed after a restart."""
        self._put(number, frame, True, slot=number % SLOTS)

    def _put(self, number: int, frame: dict[str, Any], done: bool, *, slot: int) -> None:
        data = json.dumps({"n": number, "d": int(done), "f": frame}, separators=(",", ":")).encode()
        if len(data) >= SLOT:
            small = {k: frame.get(k) for k in ("event", "seq", "card", "cards", "count") if k in frame}
            data = json.dumps({"n": number, "d": int(done), "f": small}, separators=(",", ":")).encode()[:SLOT - 1]
        os.pwrite(self.fd, data.ljust(SLOT, b" "), slot * SLOT)

    def close(self) -> None:
        os.close(self.fd)


def _json(data: bytes) -> dict[str, Any] | None:
    if not data:
        return None
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def frames_between(last: int, seq: int) -> int:
    """Frames lost between ``last`` and ``seq`` (0 when ``seq`` follows ``last``)."""
    return (seq - last - 1) % SEQ_MODULO
