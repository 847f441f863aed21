"""The full state of a session or a user, as the audit log records it after each change.

``sessions``, ``users`` and ``user_roles`` rows are not chained themselves: every write
that changes one records the row's whole new state in its chained audit entry
(``session_state`` / ``user_state`` in the detail), and ``verify`` folds those entries
and compares the tables with the result.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from typing import Any

__all__ = ["SESSION_COLUMNS", "pin_digest", "session_state", "user_state"]

SESSION_COLUMNS: tuple[str, ...] = (
    "id", "game", "decks", "areas", "limits_json", "dealer", "started_at", "ended_at", "table_name",
)


def pin_digest(pin_hash: bytes, salt: bytes, n: int, r: int, p: int) -> str:
    """sha256 of a stored PIN hash with its salt and scrypt parameters (not the hash itself)."""
    data = json.dumps([bytes(pin_hash).hex(), bytes(salt).hex(), n, r, p]).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def session_state(conn: sqlite3.Connection, session_id: int) -> dict[str, Any] | None:
    row = conn.execute(
        f"SELECT {', '.join(SESSION_COLUMNS)} FROM sessions WHERE id = ?", (session_id,)
    ).fetchone()
    return None if row is None else dict(zip(SESSION_COLUMNS, row, strict=True))


def user_state(conn: sqlite3.Connection, username: str) -> dict[str, Any] | None:
    row = conn.execute(
        "SELECT username, pin_hash, pin_salt, scrypt_n, scrypt_r, scrypt_p, created_at, disabled "
        "FROM users WHERE username = ?",
        (username,),
    ).fetchone()
    if row is None:
        return None
    roles = [
        r[0]
        for r in conn.execute(
            "SELECT role FROM user_roles WHERE username = ? ORDER BY role", (username,)
        )
    ]
    state: dict[str, Any] = {
        "username": row[0],
        "pin": pin_digest(row[1], row[2], int(row[3]), int(row[4]), int(row[5])),
        "created_at": row[6],
        "disabled": int(row[7]),
        "roles": roles,
    }
    # A PIN to be changed at its next use (migration 0006_accounts): part of the state, so
    # clearing it behind the store's back is found too. Absent before that migration.
    if any(c[1] == "must_change" for c in conn.execute("PRAGMA table_info(users)")):
        flag = conn.execute("SELECT must_change FROM users WHERE username = ?", (username,)).fetchone()
        state["must_change"] = int(flag[0])
    return state
