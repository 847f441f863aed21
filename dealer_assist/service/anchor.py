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

__all__ = ["ACK_NAME", "ANCHOR_NAME", "REFUSED_NAME", "Anchor", "acknowledge", "acknowledgement", "clear_acknowledgement",
           "copy_name", "note_refusal", "read_anchor", "refusal", "rollback_problem", "write_anchor"]


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


# ---------------------------------------------------------------- trust at start (issue 39 item 5)
REFUSED_NAME = "start-refused"  # why the service refused the store (for `station acknowledge`)
ACK_NAME = "start-acknowledged"  # a technician's acknowledgement of that very problem


def copy_name(key: bytes) -> str:
    """The anchor's copy outside the state directory (the log directory), one per station key:
    a state directory rolled back whole (store, head file, anchor) is still older than it."""
    return f"{ANCHOR_NAME}.{hashlib.sha256(b'anchor-copy' + key).hexdigest()[:16]}"


def note_refusal(state_dir: Path, problem: str) -> None:
    """The problem the service refused the store for, where `station acknowledge` reads it."""
    try:
        fd = os.open(state_dir / REFUSED_NAME, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, json.dumps({"problem": problem}).encode())
        finally:
            os.close(fd)
    except OSError:
        pass  # the log names it too


def refusal(state_dir: Path) -> str:
    """The problem noted by the last refused start ("" when none)."""
    try:
        return str(json.loads((state_dir / REFUSED_NAME).read_text(encoding="utf-8")).get("problem", ""))
    except (OSError, ValueError, AttributeError):
        return ""


def acknowledge(state_dir: Path, by: str, at: str) -> str:
    """A technician acknowledges the refused start's problem (the service opens the table at
    its next start, audited); the problem, or "" when no start was refused."""
    problem = refusal(state_dir)
    if not problem:
        return ""
    path = state_dir / ACK_NAME
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, json.dumps({"problem": problem, "by": by, "at": at}).encode())
        owner = os.stat(state_dir)
        if os.geteuid() == 0 and owner.st_uid != 0:  # the service's file, never root's
            os.fchown(fd, owner.st_uid, owner.st_gid)
        os.fsync(fd)
    finally:
        os.close(fd)
    return problem


def acknowledgement(state_dir: Path, problem: str) -> dict[str, str] | None:
    """The acknowledgement of exactly ``problem`` (None when there is none, or of another)."""
    try:
        raw = json.loads((state_dir / ACK_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or raw.get("problem") != problem:
        return None
    return {"by": str(raw.get("by", "")), "at": str(raw.get("at", ""))}


def clear_acknowledgement(state_dir: Path) -> None:
    for name in (ACK_NAME, REFUSED_NAME):
        try:
            (state_dir / name).unlink()
        except OSError:
            pass
