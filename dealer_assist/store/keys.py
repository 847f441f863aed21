"""The station key and the head record kept outside the store file.

The chains are keyed: ``hash = HMAC-SHA256(station key, previous hash + row content)``,
so rows edited in the file cannot be re-chained by anyone who cannot read the key. The
key is 32 random bytes in a file beside the store (``<store>.key``, mode 0600, created
with the store), or wherever ``key_file=`` / ``$DEALER_ASSIST_STORE_KEY`` says.

Every write transaction also records a *head*: the last id and hash of each chain and a
generation number, MACed with the key. It is written in the file (table ``head``, in the
same transaction) and, after the commit, beside the key (``<key file>.head``). Rows cut
off the end of a chain no longer reach the head in the file; a whole file rolled back to
an older copy is older than the head outside it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealer_assist.store.common import StoreError

__all__ = [
    "KEY_ENV",
    "KEY_BYTES",
    "Head",
    "KeyedConnection",
    "chain_key",
    "head_path_for",
    "key_id",
    "key_path_for",
    "load_key",
    "read_head_file",
    "write_head_file",
]

KEY_ENV = "DEALER_ASSIST_STORE_KEY"
KEY_BYTES = 32
CHAINS: tuple[str, ...] = ("events", "rounds", "audit")


class KeyedConnection(sqlite3.Connection):
    """A store connection that knows the station key its chains are keyed with."""

    chain_key: bytes = b""


def chain_key(conn: sqlite3.Connection) -> bytes:
    """The station key of ``conn``'s store (StoreError if it was opened without one)."""
    if isinstance(conn, KeyedConnection) and conn.chain_key:
        return conn.chain_key
    raise StoreError("the store was opened without its station key: its chains cannot be written")


def key_path_for(db_path: Path, key_file: str | os.PathLike[str] | None = None) -> Path:
    """Where the station key of the store at ``db_path`` lives."""
    if key_file is not None:
        return Path(key_file)
    env = os.environ.get(KEY_ENV)
    if env:
        return Path(env)
    return db_path.with_name(db_path.name + ".key")


def head_path_for(key_path: Path) -> Path:
    """The head record outside the store: beside the key."""
    return key_path.with_name(key_path.name + ".head")


def key_id(key: bytes) -> str:
    """A short public name of a key (recorded in the store, so a wrong key is named)."""
    return hashlib.sha256(b"dealer-assist station key\x00" + key).hexdigest()[:16]


def load_key(path: Path, *, create: bool) -> bytes | None:
    """The key at ``path``; a new one (mode 0600) when missing and ``create``; else None."""
    try:
        with open(path, "rb") as handle:
            key = handle.read()
    except FileNotFoundError:
        if not create:
            return None
        key = secrets.token_bytes(KEY_BYTES)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first: use theirs
            return load_key(path, create=False)
        except OSError as err:
            raise StoreError(f"cannot create the station key {path}: {err.strerror or err}") from err
        try:
            os.write(fd, key)
            os.fsync(fd)
        finally:
            os.close(fd)
        _fsync_dir(path.parent)
        return key
    except OSError as err:
        raise StoreError(f"cannot read the station key {path}: {err.strerror or err}") from err
    if len(key) != KEY_BYTES:
        raise StoreError(f"the station key {path} is not {KEY_BYTES} bytes")
    return key


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Head:
    """The newest row of each chain at one commit, MACed with the key."""

    generation: int
    tails: dict[str, tuple[int, str]]  # chain -> (last id, last hash hex); (0, "") when empty
    schema: str  # sha256 of the store's own records (meta, migrations): see schema_digest
    mac: str

    @staticmethod
    def content(generation: int, tails: dict[str, tuple[int, str]], schema: str) -> bytes:
        body = [generation, schema] + [[name, *tails.get(name, (0, ""))] for name in CHAINS]
        return json.dumps(body, separators=(",", ":")).encode("utf-8")

    @classmethod
    def make(cls, key: bytes, generation: int, tails: dict[str, tuple[int, str]], schema: str) -> Head:
        content = cls.content(generation, tails, schema)
        mac = hmac.new(key, b"head\x00" + content, hashlib.sha256).hexdigest()
        return cls(generation, dict(tails), schema, mac)

    def valid(self, key: bytes) -> bool:
        expected = Head.make(key, self.generation, self.tails, self.schema).mac
        return hmac.compare_digest(expected, self.mac)

    def as_json(self) -> dict[str, Any]:
        return {
            "generation": self.generation,
            "tails": {name: list(self.tails.get(name, (0, ""))) for name in CHAINS},
            "schema": self.schema,
            "mac": self.mac,
        }

    @classmethod
    def from_json(cls, data: Any) -> Head:
        try:
            tails = {name: (int(data["tails"][name][0]), str(data["tails"][name][1])) for name in CHAINS}
            return cls(int(data["generation"]), tails, str(data["schema"]), str(data["mac"]))
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise StoreError(f"the head record is damaged: {err}") from err


HEAD_SLOT = 512  # the head file holds two slots; commit n writes slot n % 2 in place


def write_head_file(path: Path, head: Head, *, sync: bool = True) -> None:
    """Write ``head`` into its slot of the head file (in place, fsynced unless ``sync`` is
    False: a killed process never loses the write, a power cut may leave the older slot).

    Two slots, written alternately, so a write torn by a power cut leaves the other
    (older) head intact; an older head is only a weaker lower bound, never a false alarm.
    """
    data = json.dumps(head.as_json()).encode("utf-8")
    if len(data) > HEAD_SLOT - 1:
        raise StoreError("the head record does not fit its slot")
    new = not path.exists()
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            os.pwrite(fd, data.ljust(HEAD_SLOT - 1) + b"\n", (head.generation % 2) * HEAD_SLOT)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as err:
        raise StoreError(f"cannot write the head record {path}: {err.strerror or err}") from err
    if new:
        _fsync_dir(path.parent)


def read_head_file(path: Path, key: bytes | None = None) -> Head | None:
    """The newest head in the head file outside the store (MAC-valid ones only, when
    ``key`` is given), or None if there is none."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(2 * HEAD_SLOT)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise StoreError(f"cannot read the head record {path}: {err.strerror or err}") from err
    heads: list[Head] = []
    for slot in (data[:HEAD_SLOT], data[HEAD_SLOT:]):
        try:
            head = Head.from_json(json.loads(slot.decode("utf-8").strip() or "null"))
        except (ValueError, StoreError):
            continue
        if key is None or head.valid(key):
            heads.append(head)
    return max(heads, key=lambda h: h.generation) if heads else None
