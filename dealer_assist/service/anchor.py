"""The rollback anchor: a monotonic record of the store's progress kept outside the store
file, in the service's own directory (issue 23 item 5).

After every round the service starts or finishes it writes ``round-anchor`` (0600, two
slots written alternately in place, fsynced, MACed with the station key): the newest round id and the store's commit generation (the
head record inside the file). At start a store whose newest round or generation is below
the anchor's, or below the store's own head file beside the key, was replaced by an older
copy: it is refused with a significant event and never written to, so no number of later
writes can make it pass.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from dataclasses import dataclass
from pathlib import Path

ANCHOR_NAME = "round-anchor"

__all__ = ["ANCHOR_NAME", "Anchor", "read_anchor", "write_anchor", "rollback_problem"]


@dataclass(frozen=True)
class Anchor:
    round_id: int  # the newest round the service recorded
    generation: int  # the store's commit generation then

    def mac(self, key: bytes) -> str:
        body = f"anchor\x00{self.round_id}\x00{self.generation}".encode()
        return hmac.new(key, body, hashlib.sha256).hexdigest()


SLOT = 256  # two slots written alternately in place: a torn write leaves the other one


def write_anchor(path: Path, anchor: Anchor, key: bytes, slot: int) -> None:
    """Write the anchor into ``slot`` (0 or 1; the caller alternates) in place, fsynced."""
    data = json.dumps({"round": anchor.round_id, "generation": anchor.generation,
                       "mac": anchor.mac(key)}).encode()
    new = not path.exists()
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.pwrite(fd, data.ljust(SLOT - 1) + b"\n", (slot % 2) * SLOT)
        os.fsync(fd)
    finally:
        os.close(fd)
    if new:
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def read_anchor(path: Path, key: bytes) -> Anchor | None:
    """The newest valid anchor, or None when there is none yet. A file whose slots are all
    damaged or forged (bad MAC) is a problem (ValueError), never taken as 'none'."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ValueError(f"the rollback anchor {path} cannot be read: {exc}") from None
    found: list[Anchor] = []
    for part in (data[:SLOT], data[SLOT:2 * SLOT]):
        try:
            raw = json.loads(part.decode().strip() or "null")
            anchor = Anchor(int(raw["round"]), int(raw["generation"]))
            if hmac.compare_digest(str(raw["mac"]), anchor.mac(key)):
                found.append(anchor)
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            continue
    if not found:
        if data.strip():
            raise ValueError(f"the rollback anchor {path} does not match the station key")
        return None
    return max(found, key=lambda a: (a.round_id, a.generation))


def rollback_problem(anchor: Anchor | None, newest_round: int, generation: int,
                     head_generation: int | None) -> str:
    """Why the store is older than what the service saw, or "" when it is not."""
    if anchor is not None and newest_round < anchor.round_id:
        return (f"the store's newest round is {newest_round}, but the service recorded round "
                f"{anchor.round_id}: the store was replaced by an older copy")
    if anchor is not None and generation < anchor.generation:
        return (f"the store is at commit {generation}, but the service saw commit {anchor.generation}: "
                "the store was replaced by an older copy")
    if head_generation is not None and generation < head_generation:
        return (f"the store is at commit {generation}, older than its head record "
                f"(commit {head_generation}): rolled back or replaced by an older copy")
    return ""
