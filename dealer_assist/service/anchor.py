"""The rollback anchor: a monotonic record of the store's progress kept outside the store
file, in the service's own directory (issue 23 item 5).

After every round the service starts or finishes it writes ``round-anchor`` (0600, fsynced,
MACed with the station key): the newest round id and the store's commit generation (the
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


def write_anchor(path: Path, anchor: Anchor, key: bytes) -> None:
    """Replace the anchor atomically (temp file, fsync, rename, fsync of the directory)."""
    data = json.dumps({"round": anchor.round_id, "generation": anchor.generation,
                       "mac": anchor.mac(key)}).encode()
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def read_anchor(path: Path, key: bytes) -> Anchor | None:
    """The anchor, or None when there is none yet. A damaged or forged anchor (bad MAC) is
    reported as a problem by :func:`rollback_problem`, never taken as 'none'."""
    try:
        raw = json.loads(path.read_bytes())
        anchor = Anchor(int(raw["round"]), int(raw["generation"]))
        mac = str(raw["mac"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"the rollback anchor {path} cannot be read: {exc}") from None
    if not hmac.compare_digest(mac, anchor.mac(key)):
        raise ValueError(f"the rollback anchor {path} does not match the station key")
    return anchor


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
