"""Users, their roles and their PINs (kept only as salted scrypt hashes)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
from collections.abc import Iterable
from typing import Any

from dealer_assist.store.audit import insert_audit
from dealer_assist.store.common import ROLES, StoreError, utc_now
from dealer_assist.store.states import user_state

__all__ = [
    "SCRYPT_DKLEN",
    "SCRYPT_N",
    "SCRYPT_P",
    "SCRYPT_R",
    "check_pin_format",
    "checked_roles",
    "hash_pin",
    "insert_user",
    "list_users",
    "new_pin_hash",
    "pin_matches",
    "roles_of",
    "update_disabled",
    "update_pin",
    "user_pin_record",
]

# scrypt parameters for PIN hashes (stored with each hash, so they can be raised later).
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
SCRYPT_DKLEN = 32


def hash_pin(pin: str, salt: bytes, n: int, r: int, p: int, dklen: int) -> bytes:
    return hashlib.scrypt(
        pin.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=dklen, maxmem=64 * 1024 * 1024
    )


def check_pin_format(pin: str) -> None:
    if not (isinstance(pin, str) and pin.isdigit() and pin.isascii() and 4 <= len(pin) <= 12):
        raise StoreError("a PIN is 4 to 12 digits")


def new_pin_hash(pin: str) -> tuple[bytes, bytes]:
    """A checked PIN's (hash, salt) with the current scrypt parameters."""
    check_pin_format(pin)
    salt = secrets.token_bytes(16)
    return hash_pin(pin, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_DKLEN), salt


def checked_roles(username: str, roles: Iterable[str]) -> list[str]:
    role_list = sorted(set(roles))
    if not username or not isinstance(username, str):
        raise StoreError("a user needs a name")
    bad = [r for r in role_list if r not in ROLES]
    if bad or not role_list:
        raise StoreError(f"roles must be among {', '.join(ROLES)}")
    return role_list


def insert_user(
    conn: sqlite3.Connection,
    username: str,
    digest: bytes,
    salt: bytes,
    role_list: list[str],
    actor: str,
) -> None:
    if conn.execute("SELECT 1 FROM users WHERE username = ?", (username,)).fetchone():
        raise StoreError(f"user {username!r} exists")
    conn.execute(
        "INSERT INTO users (username, pin_hash, pin_salt, scrypt_n, scrypt_r, scrypt_p, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (username, digest, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, utc_now()),
    )
    conn.executemany(
        "INSERT INTO user_roles (username, role) VALUES (?, ?)",
        [(username, r) for r in role_list],
    )
    insert_audit(
        conn,
        "user_created",
        actor,
        None,
        {"username": username, "roles": role_list, "user_state": user_state(conn, username)},
    )


def update_pin(
    conn: sqlite3.Connection, username: str, digest: bytes, salt: bytes, actor: str
) -> None:
    cur = conn.execute(
        "UPDATE users SET pin_hash = ?, pin_salt = ?, scrypt_n = ?, scrypt_r = ?, scrypt_p = ? "
        "WHERE username = ?",
        (digest, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, username),
    )
    if cur.rowcount != 1:
        raise StoreError(f"no user {username!r}")
    insert_audit(
        conn, "pin_changed", actor, None, {"username": username, "user_state": user_state(conn, username)}
    )


def update_disabled(conn: sqlite3.Connection, username: str, disabled: bool, actor: str) -> None:
    cur = conn.execute("UPDATE users SET disabled = ? WHERE username = ?", (int(disabled), username))
    if cur.rowcount != 1:
        raise StoreError(f"no user {username!r}")
    insert_audit(
        conn,
        "user_disabled" if disabled else "user_enabled",
        actor,
        None,
        {"username": username, "user_state": user_state(conn, username)},
    )


def roles_of(conn: sqlite3.Connection, username: str) -> list[str]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT role FROM user_roles WHERE username = ? ORDER BY role", (username,)
        )
    ]


def list_users(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    rows = conn.execute("SELECT username, disabled FROM users ORDER BY username").fetchall()
    return [
        {"username": name, "disabled": bool(disabled), "roles": roles_of(conn, name)}
        for name, disabled in rows
    ]


def user_pin_record(
    conn: sqlite3.Connection, username: str, role: str | None
) -> tuple[Any, bool]:
    """The user's stored PIN row (or None) and whether they hold ``role`` (True if None)."""
    row = conn.execute(
        "SELECT pin_hash, pin_salt, scrypt_n, scrypt_r, scrypt_p, disabled FROM users WHERE username = ?",
        (username,),
    ).fetchone()
    has_role = role is None or (
        conn.execute(
            "SELECT 1 FROM user_roles WHERE username = ? AND role = ?", (username, role)
        ).fetchone()
        is not None
    )
    return row, has_role


def pin_matches(pin: str, row: Any, has_role: bool) -> bool:
    """Constant-time check of ``pin`` against a stored PIN row; unknown users cost the same."""
    if row is None:
        hash_pin(str(pin), bytes(16), SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_DKLEN)
        return False
    stored, salt, n, r, p, disabled = (
        bytes(row[0]),
        bytes(row[1]),
        int(row[2]),
        int(row[3]),
        int(row[4]),
        row[5],
    )
    candidate = hash_pin(str(pin), salt, n, r, p, len(stored))
    match = hmac.compare_digest(candidate, stored)
    return match and has_role and not disabled
