"""Keying a store's chains with the station key, and the head record of each commit."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from functools import partial
from typing import Any

from dealer_assist.store.audit import insert_audit
from dealer_assist.store.chain import chain, last_link, verify_chain
from dealer_assist.store.common import ZERO_HASH, StoreError, canonical_json
from dealer_assist.store.keys import CHAINS, Head, key_id
from dealer_assist.store.seal import SEAL_FIELD, SEAL_FORMAT_FIELD
from dealer_assist.store.states import session_state, user_state

__all__ = ["CHAIN_SCHEME", "key_store", "meta_value", "read_head", "record_head", "schema_digest"]

CHAIN_SCHEME = "hmac-sha256"

_ROWS = {
    "events": "SELECT id, round_id, seq, at, actor, event_json, hash FROM events ORDER BY id",
    "rounds": "SELECT id, session_id, number, source, started_at, config_json, hash FROM rounds ORDER BY id",
    "audit": "SELECT id, at, actor, kind, round_id, detail_json, hash FROM audit ORDER BY id",
}


def _row_name(table: str, row: Any) -> str:
    return f"{table} row {row[0]}"


def _content(row: Any) -> list[Any]:
    """A chained row's content: its first six columns (see chain.py's *_content)."""
    return list(row[:6])

def meta_value(conn: sqlite3.Connection, name: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
    return None if row is None else str(row[0])

def key_store(conn: sqlite3.Connection, key: bytes) -> None:
    """Key the chains of a store written before they were keyed (inside a write transaction).

    The unkeyed chains are checked first and the outcome is recorded; each round's latest
    finish record is given its end time and its 5.26 history entries, unfinished rounds'
    player lists are put in order, every row is re-chained with the key, and the state of
    every session and user is recorded in the audit log, so that from here on every stored
    fact is chained or re-derived (docs/store.md).
    """
    if meta_value(conn, "chain_scheme") is not None:
        raise StoreError("the store's chains are keyed already")
    checked = {name: 0 for name in CHAINS}
    legacy_problem = None
    for name in CHAINS:
        problem = verify_chain(conn, name, _ROWS[name], _content, partial(_row_name, name), checked, None)
        if problem is not None and legacy_problem is None:
            legacy_problem = problem[2]
    has_rows = any(checked.values())
    if has_rows:
        stale = _stale_finish_records(conn)
        _rechain(conn, "events", key)
        _rechain(conn, "rounds", key)
        _enrich_finish_records(conn, stale)
        for row_id, players_json in conn.execute(
            "SELECT id, players_json FROM rounds WHERE result_json IS NULL"
        ).fetchall():
            conn.execute(
                "UPDATE rounds SET players_json = ? WHERE id = ?",
                (canonical_json(sorted(json.loads(players_json))), row_id),
            )
        _rechain(conn, "audit", key)
    conn.executemany(
        "INSERT INTO meta (name, value) VALUES (?, ?)",
        [("chain_scheme", CHAIN_SCHEME), ("key_id", key_id(key))],
    )
    if has_rows or conn.execute("SELECT 1 FROM sessions UNION SELECT 1 FROM users").fetchone():
        orphans = [
            [str(r[0]), r[1], r[2]]
            for r in conn.execute(
                "SELECT player, round_id, recorded_at FROM under_min_history u WHERE NOT EXISTS "
                "(SELECT 1 FROM audit a WHERE a.kind = 'round_finish' AND a.round_id = u.round_id) "
                "ORDER BY player"
            )
        ]
        insert_audit(
            conn,
            "store_keyed",
            "store",
            None,
            {
                "key_id": key_id(key),
                "unkeyed_chains": "intact" if legacy_problem is None else legacy_problem,
                "under_min_rows": orphans,
            },
        )
        for (session_id,) in conn.execute("SELECT id FROM sessions ORDER BY id").fetchall():
            insert_audit(
                conn,
                "session_snapshot",
                "store",
                None,
                {"session_id": session_id, "session_state": session_state(conn, int(session_id))},
            )
        for (username,) in conn.execute("SELECT username FROM users ORDER BY username").fetchall():
            insert_audit(
                conn,
                "user_snapshot",
                "store",
                None,
                {"username": username, "user_state": user_state(conn, str(username))},
            )

_LAST_EVENT = "SELECT hash FROM events WHERE round_id = ? AND seq = ?"


def _stale_finish_records(conn: sqlite3.Connection) -> set[int]:
    """Finish records whose last event hash does not name their round's last event."""
    stale: set[int] = set()
    for audit_id, round_id, detail_json in conn.execute(
        "SELECT id, round_id, detail_json FROM audit WHERE kind = 'round_finish' AND round_id IS NOT NULL"
    ).fetchall():
        detail = json.loads(detail_json)
        count = int(detail.get("events") or 0)
        if count:
            row = conn.execute(_LAST_EVENT, (round_id, count - 1)).fetchone()
            if row is None or bytes(row[0]).hex() != detail.get("last_event_hash"):
                stale.add(int(audit_id))
    return stale


def _enrich_finish_records(conn: sqlite3.Connection, stale: set[int]) -> None:
    """Each finish record names its round's last event by its keyed hash; the latest one
    of each round also gets the round's end time and its 5.26 history entries."""
    latest = {
        int(r[0])
        for r in conn.execute(
            "SELECT MAX(id) FROM audit WHERE kind = 'round_finish' AND round_id IS NOT NULL GROUP BY round_id"
        )
    }
    for audit_id, round_id, detail_json in conn.execute(
        "SELECT id, round_id, detail_json FROM audit WHERE kind = 'round_finish' AND round_id IS NOT NULL"
    ).fetchall():
        detail: dict[str, Any] = json.loads(detail_json)
        # a seal names the events' old hashes: such a round is re-settled by verify instead
        detail.pop(SEAL_FIELD, None)
        detail.pop(SEAL_FORMAT_FIELD, None)
        count = int(detail.get("events") or 0)
        if count and int(audit_id) not in stale:
            row = conn.execute(_LAST_EVENT, (round_id, count - 1)).fetchone()
            detail["last_event_hash"] = bytes(row[0]).hex()
        if int(audit_id) in latest:
            ended = conn.execute("SELECT ended_at FROM rounds WHERE id = ?", (round_id,)).fetchone()
            detail["ended_at"] = ended[0] if ended else None
            detail["under_min"] = [
                [str(r[0]), r[1]]
                for r in conn.execute(
                    "SELECT player, recorded_at FROM under_min_history WHERE round_id = ? ORDER BY player",
                    (round_id,),
                )
            ]
        conn.execute(
            "UPDATE audit SET detail_json = ? WHERE id = ?", (canonical_json(detail), audit_id)
        )


def _rechain(conn: sqlite3.Connection, name: str, key: bytes) -> None:
    prev = ZERO_HASH
    updates: list[tuple[bytes, int]] = []
    for row in conn.execute(_ROWS[name]).fetchall():
        digest = chain(prev, _content(row), key)
        updates.append((digest, int(row[0])))
        prev = digest
        if len(updates) >= 10000:
            conn.executemany(f"UPDATE {name} SET hash = ? WHERE id = ?", updates)
            updates.clear()
    conn.executemany(f"UPDATE {name} SET hash = ? WHERE id = ?", updates)

def record_head(conn: sqlite3.Connection, key: bytes) -> Head:
    """Write this commit's head record into the store (inside the write transaction)."""
    row = conn.execute("SELECT generation FROM head WHERE id = 1").fetchone()
    generation = (int(row[0]) if row else 0) + 1
    tails: dict[str, tuple[int, str]] = {}
    for name in CHAINS:
        last_id, last_hash = last_link(conn, name)
        tails[name] = (last_id, last_hash.hex() if last_id else "")
    head = Head.make(key, generation, tails, schema_digest(conn))
    conn.execute(
        "INSERT OR REPLACE INTO head (id, generation, events_id, events_hash, rounds_id, rounds_hash, "
        "audit_id, audit_hash, schema_digest, mac) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            generation,
            *tails["events"],
            *tails["rounds"],
            *tails["audit"],
            head.schema,
            head.mac,
        ),
    )
    return head


def schema_digest(conn: sqlite3.Connection) -> str:
    """sha256 of the store's records about itself: the ``meta`` rows and the migrations
    applied (``_sqlite_migrations``); the head record carries it under its MAC."""
    rows = [
        ["meta", *r] for r in conn.execute("SELECT name, value FROM meta ORDER BY name")
    ] + [
        ["migration", *r]
        for r in conn.execute(
            "SELECT id, migration_set, name, applied_at FROM _sqlite_migrations ORDER BY id"
        )
    ]
    try:  # migration 0006_accounts: the first event that needs a supervisor's approval
        rows += [["authority_since", *r] for r in conn.execute("SELECT * FROM authority_since")]
    except sqlite3.OperationalError:
        pass
    return hashlib.sha256(json.dumps(rows, separators=(",", ":")).encode("utf-8")).hexdigest()

def read_head(conn: sqlite3.Connection) -> Head | None:
    """The head record in the store, or None."""
    row = conn.execute(
        "SELECT generation, events_id, events_hash, rounds_id, rounds_hash, audit_id, audit_hash, mac, "
        "schema_digest FROM head WHERE id = 1"
    ).fetchone()
    if row is None:
        return None
    tails = {
        "events": (int(row[1]), str(row[2])),
        "rounds": (int(row[3]), str(row[4])),
        "audit": (int(row[5]), str(row[6])),
    }
    return Head(int(row[0]), tails, str(row[8]), str(row[7]))
