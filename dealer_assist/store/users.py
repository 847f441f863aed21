"""Users, their roles and their PINs (kept only as salted scrypt hashes); lockout; shifts.

PIN policy (issue 15 item 8, issue 17 item 3)
---------------------------------------------
- A new PIN is 6 to 12 digits, not one digit repeated and not a run (123456, 987654):
  :func:`new_pin_problem`.
- Hashes: scrypt with :data:`PIN_COST` (N=2**17, r=8, p=1: 128 MiB and about 0.3-0.4 s
  per guess on the station's machine class, measured by ``python -m
  dealer_assist.store.users``). The parameters are stored with each hash, so a hash made
  with weaker ones still verifies and is re-hashed at the current cost on its next
  successful check.
- Tests may pass :data:`TEST_PIN_COST` explicitly (``Store.open(..., pin_cost=...)``);
  the application never passes a cost, so it always uses :data:`PIN_COST`.
- Older stores: PINs of 4 or 5 digits (allowed before) still verify, but the check
  answers ``must_change``: the log-in or approval goes through only after a new PIN
  of 6+ digits is chosen (:meth:`Store.change_pin`). A PIN a supervisor set or reset
  (``must_change`` column) is changed the same way at its first use.
- Lockout: wrong PINs (and refusals of a known name's PIN for a role it lacks) are
  counted per name in ``pin_failures``, in the store, so the count survives a restart.
  From the :data:`FREE_FAILURES`-th consecutive failure on, the name is locked for
  :data:`FIRST_LOCK_SECONDS` doubling with each further failure up to
  :data:`MAX_LOCK_SECONDS`. A locked name's PIN is not even checked (``pin_locked``
  audited); a right PIN clears the count. Every failure is audited, and so is the start
  of each lock (``pin_lockout``).
- The last usable supervisor (enabled, and no other enabled supervisor unlocked) is never
  locked by wrong PINs: their failures are counted and audited without a lock, their PIN
  is checked even under an older lock, and the station service slows the guesser with a
  growing delay instead (dealer_assist/service/pins.py). So no sequence of wrong PINs leaves
  a station with no supervisor who can log in. An unknown name costs the same scrypt but
  writes no row; the service asks for no ``pin_locked`` row per refusal (it summarises them).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import secrets
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from dealer_assist.store.audit import insert_audit
from dealer_assist.store.common import ROLES, StoreError, format_time, utc_now
from dealer_assist.store.states import user_state

__all__ = [
    "FIRST_LOCK_SECONDS",
    "FREE_FAILURES",
    "MAX_LOCK_SECONDS",
    "MAX_PIN_DIGITS",
    "MIN_PIN_DIGITS",
    "PIN_COST",
    "SCRYPT_DKLEN",
    "SCRYPT_N",
    "SCRYPT_P",
    "SCRYPT_R",
    "TEST_PIN_COST",
    "PinCheck",
    "PinCost",
    "PinRecord",
    "audit_user",
    "checked_roles",
    "clear_failures",
    "has_active_supervisor",
    "hash_pin",
    "insert_user",
    "last_usable_supervisor",
    "list_users",
    "lock_seconds",
    "locked_until",
    "new_pin_hash",
    "new_pin_problem",
    "pin_record",
    "record_failure",
    "roles_of",
    "update_disabled",
    "update_pin",
]

MIN_PIN_DIGITS = 6
MAX_PIN_DIGITS = 12
SCRYPT_DKLEN = 32

FREE_FAILURES = 3
FIRST_LOCK_SECONDS = 30
MAX_LOCK_SECONDS = 900  # 15 minutes: a supervisor is never locked out for hours (issue 23 item 7)


@dataclass(frozen=True)
class PinCost:
    """scrypt's work factors for a PIN hash."""

    n: int
    r: int
    p: int

    @property
    def memory(self) -> int:
        """Bytes scrypt needs (128 * r * n), plus room for its own bookkeeping."""
        return 128 * self.r * self.n * self.p + 32 * 1024 * 1024

    def weaker_than(self, other: PinCost) -> bool:
        return self.n * self.r * self.p < other.n * other.r * other.p


#: The cost every PIN hash is made with: one guess >= 250 ms (0.39 s measured, see docs/store.md).
PIN_COST = PinCost(2**17, 8, 1)
#: For tests only, always passed explicitly; never used by the application.
TEST_PIN_COST = PinCost(2**10, 8, 1)
# The names older code imported.
SCRYPT_N = PIN_COST.n
SCRYPT_R = PIN_COST.r
SCRYPT_P = PIN_COST.p


@dataclass(frozen=True)
class PinCheck:
    """The store's answer to a PIN.

    ``reason``: "" (accepted), ``wrong`` (wrong name or PIN, a role the name lacks, or a
    disabled account: one answer for all), ``locked`` (too many wrong PINs; until
    ``locked_until``, UTC), ``must_change`` (right PIN, but it must be replaced first),
    ``new_pin`` (a new PIN was not acceptable: ``message`` says why), ``error``.
    ``approval``: the audit id of a supervisor's approval, to pass with what it authorises.
    """

    ok: bool
    reason: str = ""
    locked_until: str | None = None
    approval: int | None = None
    message: str = ""
    known: bool = True  # False: no such name (never told to a client; the service's throttle)


@dataclass(frozen=True)
class PinRecord:
    """A user's stored PIN hash and state, as :func:`pin_record` reads it."""

    digest: bytes
    salt: bytes
    cost: PinCost
    disabled: bool
    must_change: bool
    has_role: bool


def hash_pin(pin: str, salt: bytes, cost: PinCost, dklen: int = SCRYPT_DKLEN) -> bytes:
    return hashlib.scrypt(
        pin.encode("utf-8", "surrogatepass"), salt=salt, n=cost.n, r=cost.r, p=cost.p, dklen=dklen,
        maxmem=cost.memory,
    )


def _is_run(pin: str) -> bool:
    steps = {(int(b) - int(a)) % 10 for a, b in zip(pin, pin[1:], strict=False)}
    return steps == {1} or steps == {9}


def new_pin_problem(pin: str) -> str:
    """Why ``pin`` may not be chosen as a new PIN, or "" when it may."""
    if not (isinstance(pin, str) and pin.isascii() and pin.isdigit()) or not (
        MIN_PIN_DIGITS <= len(pin) <= MAX_PIN_DIGITS
    ):
        return f"a PIN is {MIN_PIN_DIGITS} to {MAX_PIN_DIGITS} digits"
    if len(set(pin)) == 1:
        return "a PIN may not be one digit repeated"
    if _is_run(pin):
        return "a PIN may not be a run of digits (such as 123456)"
    return ""


def new_pin_hash(pin: str, cost: PinCost) -> tuple[bytes, bytes]:
    """A new PIN's (hash, salt); refuses a PIN that breaks the policy (StoreError)."""
    problem = new_pin_problem(pin)
    if problem:
        raise StoreError(problem)
    salt = secrets.token_bytes(16)
    return hash_pin(pin, salt, cost), salt


def checked_roles(username: str, roles: Iterable[str]) -> list[str]:
    role_list = sorted(set(roles))
    if not isinstance(username, str) or not username.strip():
        raise StoreError("a user needs a name")
    if username != username.strip() or any(not c.isprintable() for c in username) or len(username) > 64:
        raise StoreError("a user's name is up to 64 printable characters, without spaces around it")
    bad = [r for r in role_list if r not in ROLES]
    if bad or not role_list:
        raise StoreError(f"roles must be among {', '.join(ROLES)}")
    return role_list


def insert_user(
    conn: sqlite3.Connection,
    username: str,
    digest: bytes,
    salt: bytes,
    cost: PinCost,
    role_list: list[str],
    actor: str,
    *,
    must_change: bool = False,
    kind: str = "user_created",
) -> int:
    if conn.execute("SELECT 1 FROM users WHERE username = ?", (username,)).fetchone():
        raise StoreError(f"user {username!r} exists")
    conn.execute(
        "INSERT INTO users (username, pin_hash, pin_salt, scrypt_n, scrypt_r, scrypt_p, created_at, must_change) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (username, digest, salt, cost.n, cost.r, cost.p, utc_now(), int(must_change)),
    )
    conn.executemany(
        "INSERT INTO user_roles (username, role) VALUES (?, ?)",
        [(username, r) for r in role_list],
    )
    return audit_user(conn, kind, actor, username, {"roles": role_list})


def update_pin(
    conn: sqlite3.Connection,
    username: str,
    digest: bytes,
    salt: bytes,
    cost: PinCost,
    actor: str,
    *,
    must_change: bool = False,
    kind: str = "pin_changed",
) -> None:
    cur = conn.execute(
        "UPDATE users SET pin_hash = ?, pin_salt = ?, scrypt_n = ?, scrypt_r = ?, scrypt_p = ?, "
        "must_change = ? WHERE username = ?",
        (digest, salt, cost.n, cost.r, cost.p, int(must_change), username),
    )
    if cur.rowcount != 1:
        raise StoreError(f"no user {username!r}")
    clear_failures(conn, username)
    audit_user(conn, kind, actor, username)


def update_disabled(conn: sqlite3.Connection, username: str, disabled: bool, actor: str) -> None:
    if disabled and "supervisor" in roles_of(conn, username):
        others = conn.execute(
            "SELECT COUNT(*) FROM users u JOIN user_roles r ON r.username = u.username "
            "WHERE r.role = 'supervisor' AND u.disabled = 0 AND u.username != ?",
            (username,),
        ).fetchone()[0]
        if not others:
            raise StoreError(f"{username} is the last active supervisor: enrol another before disabling them")
    cur = conn.execute("UPDATE users SET disabled = ? WHERE username = ?", (int(disabled), username))
    if cur.rowcount != 1:
        raise StoreError(f"no user {username!r}")
    audit_user(conn, "user_disabled" if disabled else "user_enabled", actor, username)


def audit_user(
    conn: sqlite3.Connection, kind: str, actor: str, username: str, extra: dict[str, Any] | None = None
) -> int:
    """The chained audit row of a change to ``username``'s account (every such write makes one),
    with the account's whole new state (``user_state``), which ``verify`` folds."""
    detail = {"username": username, **(extra or {}), "user_state": user_state(conn, username)}
    return insert_audit(conn, kind, actor, None, detail)


def roles_of(conn: sqlite3.Connection, username: str) -> list[str]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT role FROM user_roles WHERE username = ? ORDER BY role", (username,)
        )
    ]


def list_users(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT u.username, u.disabled, u.must_change, f.locked_until FROM users u "
        "LEFT JOIN pin_failures f ON f.username = u.username ORDER BY u.username"
    ).fetchall()
    return [
        {
            "username": name,
            "disabled": bool(disabled),
            "roles": roles_of(conn, name),
            "must_change": bool(must_change),
            "locked_until": locked,
        }
        for name, disabled, must_change, locked in rows
    ]


def has_active_supervisor(conn: sqlite3.Connection) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM users u JOIN user_roles r ON r.username = u.username "
            "WHERE r.role = 'supervisor' AND u.disabled = 0 LIMIT 1"
        ).fetchone()
        is not None
    )


def last_usable_supervisor(conn: sqlite3.Connection, username: str, now: _dt.datetime) -> bool:
    """True when ``username`` is an enabled supervisor and no other enabled supervisor is
    free of a lock at ``now``: the one whose lock would leave nobody to log in."""
    if "supervisor" not in roles_of(conn, username):
        return False
    row = conn.execute("SELECT disabled FROM users WHERE username = ?", (username,)).fetchone()
    if row is None or row[0]:
        return False
    others = conn.execute(
        "SELECT COUNT(*) FROM users u JOIN user_roles r ON r.username = u.username "
        "WHERE r.role = 'supervisor' AND u.disabled = 0 AND u.username != ? AND NOT EXISTS ("
        "SELECT 1 FROM pin_failures f WHERE f.username = u.username AND f.locked_until > ?)",
        (username, format_time(now)),
    ).fetchone()[0]
    return not others


def pin_record(conn: sqlite3.Connection, username: str, role: str | None) -> PinRecord | None:
    """The user's stored PIN hash and state (None for an unknown name)."""
    row = conn.execute(
        "SELECT pin_hash, pin_salt, scrypt_n, scrypt_r, scrypt_p, disabled, must_change FROM users "
        "WHERE username = ?",
        (username,),
    ).fetchone()
    if row is None:
        return None
    has_role = role is None or (
        conn.execute(
            "SELECT 1 FROM user_roles WHERE username = ? AND role = ?", (username, role)
        ).fetchone()
        is not None
    )
    return PinRecord(
        bytes(row[0]), bytes(row[1]), PinCost(int(row[2]), int(row[3]), int(row[4])),
        bool(row[5]), bool(row[6]), has_role,
    )


def pin_matches(pin: str, record: PinRecord | None, cost: PinCost) -> bool:
    """Constant-time check of ``pin`` against a stored hash; an unknown name costs the same."""
    if record is None:
        hash_pin(str(pin), bytes(16), cost)
        return False
    candidate = hash_pin(str(pin), record.salt, record.cost, len(record.digest))
    return hmac.compare_digest(candidate, record.digest)


# ------------------------------------------------------------------------ lockout


def lock_seconds(failures: int) -> int:
    """How long a name is locked after ``failures`` consecutive wrong PINs."""
    if failures < FREE_FAILURES:
        return 0
    return int(min(FIRST_LOCK_SECONDS * 2 ** min(failures - FREE_FAILURES, 16), MAX_LOCK_SECONDS))


def locked_until(conn: sqlite3.Connection, username: str, now: _dt.datetime) -> str | None:
    """The end of the name's lock (stored time text), or None when it is not locked now."""
    row = conn.execute("SELECT locked_until FROM pin_failures WHERE username = ?", (username,)).fetchone()
    if row is None or row[0] is None:
        return None
    return str(row[0]) if str(row[0]) > format_time(now) else None


def record_failure(
    conn: sqlite3.Connection, username: str, now: _dt.datetime, *, lock: bool = True
) -> tuple[int, str | None]:
    """Count one more failure for ``username``; returns (failures, locked until or None).
    ``lock=False``: counted, never locked (the last usable supervisor)."""
    row = conn.execute("SELECT failures FROM pin_failures WHERE username = ?", (username,)).fetchone()
    failures = (int(row[0]) if row else 0) + 1
    seconds = lock_seconds(failures) if lock else 0
    until = format_time(now + _dt.timedelta(seconds=seconds)) if seconds else None
    conn.execute(
        "INSERT INTO pin_failures (username, failures, last_failure, locked_until) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (username) DO UPDATE SET failures = excluded.failures, "
        "last_failure = excluded.last_failure, locked_until = excluded.locked_until",
        (username, failures, format_time(now), until),
    )
    return failures, until


def clear_failures(conn: sqlite3.Connection, username: str) -> bool:
    """Forget the name's wrong PINs; True when there were some."""
    return conn.execute("DELETE FROM pin_failures WHERE username = ?", (username,)).rowcount > 0


def _measure() -> None:  # pragma: no cover - a figure for the docs, not a test
    import time

    for cost in (PinCost(2**14, 8, 1), PinCost(2**16, 8, 1), PIN_COST):
        start = time.perf_counter()
        for _ in range(3):
            hash_pin("482913", secrets.token_bytes(16), cost)
        per = (time.perf_counter() - start) / 3
        print(f"scrypt N=2**{cost.n.bit_length() - 1} r={cost.r} p={cost.p}: {per * 1000:.0f} ms per guess; "
              f"a 6-digit PIN space: {per * 10**6 / 86400:.1f} core-days")


if __name__ == "__main__":  # pragma: no cover
    _measure()
