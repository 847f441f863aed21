"""The hash chains: ``hash = HMAC-SHA256(station key, previous row's hash + row content)``.

Three tables are chained, each in id order from :data:`ZERO_HASH`: ``events``,
``rounds`` (the immutable header) and ``audit``. This module says what a row's
content is and how a chain is extended and checked. ``key=None`` is the unkeyed
``sha256`` form of stores written before the chains were keyed (read when migrating).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from dealer_assist.store.common import ZERO_HASH

__all__ = [
    "audit_content",
    "chain",
    "event_content",
    "last_link",
    "link_ok",
    "previous_hash",
    "round_content",
    "verify_chain",
]

_CHAIN_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def chain(prev: bytes, content: Sequence[Any], key: bytes | None) -> bytes:
    """The hash of a row with ``content`` after a row hashed ``prev``."""
    data = prev + _CHAIN_ENCODER.encode(list(content)).encode("utf-8")
    if key is None:
        return hashlib.sha256(data).digest()
    return hmac.new(key, data, hashlib.sha256).digest()


def event_content(
    row_id: int, round_id: int, seq: int, at: str, actor: str, event_json: str
) -> list[Any]:
    return [row_id, round_id, seq, at, actor, event_json]


def round_content(
    row_id: int, session_id: int | None, number: int, source: str, started_at: str, config_json: str
) -> list[Any]:
    return [row_id, session_id, number, source, started_at, config_json]


def audit_content(
    row_id: int, at: str, actor: str, kind: str, round_id: int | None, detail_json: str
) -> list[Any]:
    return [row_id, at, actor, kind, round_id, detail_json]


def last_link(conn: sqlite3.Connection, table: str) -> tuple[int, bytes]:
    """The id and hash of the chain's last row (0 and :data:`ZERO_HASH` when empty)."""
    row = conn.execute(f"SELECT id, hash FROM {table} ORDER BY id DESC LIMIT 1").fetchone()
    if row is None:
        return 0, ZERO_HASH
    return int(row[0]), bytes(row[1])


def previous_hash(conn: sqlite3.Connection, table: str, row_id: int) -> bytes:
    """The hash of the row before ``row_id`` in ``table``'s chain."""
    prev = conn.execute(
        f"SELECT hash FROM {table} WHERE id < ? ORDER BY id DESC LIMIT 1", (row_id,)
    ).fetchone()
    return ZERO_HASH if prev is None else bytes(prev[0])


def link_ok(prev: bytes, content: Sequence[Any], stored: Any, key: bytes | None) -> bool:
    """Whether ``stored`` is the chain hash of ``content`` after ``prev``."""
    return isinstance(stored, bytes) and hmac.compare_digest(chain(prev, content, key), stored)


def verify_chain(
    conn: sqlite3.Connection,
    table: str,
    sql: str,
    content: Callable[[Any], Sequence[Any]],
    name: Callable[[Any], str],
    counters: dict[str, int],
    key: bytes | None,
    tails: dict[str, tuple[int, str]] | None = None,
) -> tuple[str, int, str] | None:
    """Walk one chain (streaming); the first row whose hash does not match, or None.
    ``tails`` receives the chain's last (id, hash hex)."""
    prev = ZERO_HASH
    last_id = 0
    for row in conn.execute(sql):
        stored = row[-1]
        expected = chain(prev, content(row), key)
        if not isinstance(stored, bytes) or not hmac.compare_digest(expected, stored):
            return (
                table,
                int(row[0]),
                f"{name(row)}: hash does not match its content or the row before it",
            )
        prev = stored
        last_id = int(row[0])
        counters[table] += 1
    if tails is not None:
        tails[table] = (last_id, prev.hex() if last_id else "")
    return None
