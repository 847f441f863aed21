"""The audit log: logins, approvals, shoe faults, notes, session and round records; chained."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dealer_assist.store.chain import audit_content, chain, last_link
from dealer_assist.store.common import canonical_json, utc_now
from dealer_assist.store.keys import chain_key

__all__ = ["AuditEntry", "audit_entries", "insert_audit"]


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: str
    actor: str
    kind: str
    round_id: int | None
    detail: dict[str, Any]


def insert_audit(
    conn: sqlite3.Connection,
    kind: str,
    actor: str,
    round_id: int | None,
    detail: Mapping[str, Any] | None,
    at: str | None = None,
) -> int:
    """Append one chained audit row (inside a write transaction); returns its id."""
    last_id, prev = last_link(conn, "audit")
    row_id = last_id + 1
    when = at or utc_now()
    detail_json = canonical_json(dict(detail or {}))
    digest = chain(prev, audit_content(row_id, when, actor, kind, round_id, detail_json), chain_key(conn))
    conn.execute(
        "INSERT INTO audit (id, at, actor, kind, round_id, detail_json, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (row_id, when, actor, kind, round_id, detail_json, digest),
    )
    return row_id


def audit_entries(
    conn: sqlite3.Connection,
    *,
    round_id: int | None = None,
    kind: str | None = None,
    limit: int | None = None,
    actor: str | None = None,
    newest_first: bool = False,
) -> list[AuditEntry]:
    """Audit entries, oldest first (or ``newest_first``), filtered by round and/or kind and/or
    an ``actor`` that contains the given text (any case)."""
    where: list[str] = []
    params: list[Any] = []
    if round_id is not None:
        where.append("round_id = ?")
        params.append(round_id)
    if kind is not None:
        where.append("kind = ?")
        params.append(kind)
    if actor:
        where.append("instr(lower(actor), ?) > 0")
        params.append(actor.lower())
    sql = "SELECT id, at, actor, kind, round_id, detail_json FROM audit"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY id DESC" if newest_first else " ORDER BY id"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [
        AuditEntry(int(r[0]), str(r[1]), str(r[2]), str(r[3]), r[4], json.loads(r[5]))
        for r in conn.execute(sql, params)
    ]
