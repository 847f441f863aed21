"""``history verify``: every chain recomputed, every finish record and derived row checked."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from dealer_assist.store.chain import audit_content, event_content, round_content, verify_chain

__all__ = ["CENTS_SQL", "VerifyResult", "first_altered_settlements", "verify"]

# SQL for an amount in whole cents (amounts are TEXT decimals with at most two places).
CENTS_SQL = "CAST(round(CAST({} AS REAL) * 100) AS INTEGER)"


def _settlement_fingerprint(value: str) -> str:
    return (f"{{0}}.player||'|'||{{0}}.bet||'|'||{{0}}.result||'|'||"
            f"{CENTS_SQL.format('{0}.stake')}||'|'||{CENTS_SQL.format('{0}.net')}").format(value)


def first_altered_settlements(conn: sqlite3.Connection) -> int | None:
    """The first round whose derived settlement rows differ from its stored settle output.

    The hash chains cover the events, the round headers and the audit log, and each
    round's finish record hashes its settle output; the ``settlements`` rows are derived
    from that output and not chained themselves. This compares them, for every round, in
    SQLite (player, bet, result, stake and net of each entry in order); a full pass.
    """
    row = conn.execute(
        "SELECT r.id FROM rounds r WHERE r.result_json IS NOT NULL AND "
        "(SELECT group_concat(f, ';') FROM (SELECT " + _settlement_fingerprint("s") + " AS f FROM settlements s "
        "WHERE s.round_id = r.id ORDER BY s.id)) IS NOT "
        "(SELECT group_concat(f, ';') FROM (SELECT " + _settlement_fingerprint("j") + " AS f FROM "
        "(SELECT json_extract(value, '$.player') AS player, json_extract(value, '$.bet') AS bet, "
        "json_extract(value, '$.result') AS result, json_extract(value, '$.stake') AS stake, "
        "json_extract(value, '$.net') AS net, key FROM json_each(r.result_json, '$.settlements')) j "
        "ORDER BY j.key)) ORDER BY r.id LIMIT 1"
    ).fetchone()
    return None if row is None else int(row[0])


@dataclass(frozen=True)
class VerifyResult:
    """Outcome of :meth:`Store.verify`: ``ok``, counts, and the first bad row if any."""

    ok: bool
    events: int
    rounds: int
    audit: int
    problem: str | None = None
    table: str | None = None
    row_id: int | None = None



def verify(conn: sqlite3.Connection) -> VerifyResult:
    """Recompute every chain; the first row that does not match is named."""
    checked = {"events": 0, "rounds": 0, "audit": 0}
    problem = (
        verify_chain(
            conn,
            "events",
            "SELECT id, round_id, seq, at, actor, event_json, hash FROM events ORDER BY id",
            lambda r: event_content(r[0], r[1], r[2], r[3], r[4], r[5]),
            lambda r: f"events row {r[0]} (round {r[1]}, seq {r[2]})",
            checked,
        )
        or verify_chain(
            conn,
            "rounds",
            "SELECT id, session_id, number, source, started_at, config_json, hash FROM rounds ORDER BY id",
            lambda r: round_content(r[0], r[1], r[2], r[3], r[4], r[5]),
            lambda r: f"rounds row {r[0]}",
            checked,
        )
        or verify_chain(
            conn,
            "audit",
            "SELECT id, at, actor, kind, round_id, detail_json, hash FROM audit ORDER BY id",
            lambda r: audit_content(r[0], r[1], r[2], r[3], r[4], r[5]),
            lambda r: f"audit row {r[0]} ({r[3]})",
            checked,
        )
        or _verify_finishes(conn)
        or _verify_settlements(conn)
    )
    if problem is None:
        return VerifyResult(True, checked["events"], checked["rounds"], checked["audit"])
    table, row_id, text = problem
    return VerifyResult(
        False, checked["events"], checked["rounds"], checked["audit"], text, table, row_id
    )


def _verify_settlements(conn: sqlite3.Connection) -> tuple[str, int, str] | None:
    """The derived settlement rows must match each round's hashed settle output."""
    round_id = first_altered_settlements(conn)
    if round_id is None:
        return None
    return ("settlements", round_id,
            f"round {round_id}: its settlement rows differ from its recorded settle output")

def _verify_finishes(conn: sqlite3.Connection) -> tuple[str, int, str] | None:
    latest: dict[int, dict[str, Any]] = {}
    for round_id, detail_json in conn.execute(
        "SELECT round_id, detail_json FROM audit WHERE kind = 'round_finish' AND round_id IS NOT NULL ORDER BY id"
    ):
        latest[int(round_id)] = json.loads(detail_json)
    for round_id, status, result_json in conn.execute(
        "SELECT id, status, result_json FROM rounds ORDER BY id"
    ):
        record = latest.get(int(round_id))
        if record is None:
            if result_json is not None or status != "in_progress":
                return (
                    "rounds",
                    int(round_id),
                    f"rounds row {round_id}: result recorded without an audit record",
                )
            continue
        digest = hashlib.sha256((result_json or "").encode("utf-8")).hexdigest()
        if status != record.get("status") or digest != record.get("result_sha256"):
            return (
                "rounds",
                int(round_id),
                f"rounds row {round_id}: status or result differs from its audit record",
            )
        count = int(record.get("events") or 0)
        if count:
            row = conn.execute(
                "SELECT id, hash FROM events WHERE round_id = ? AND seq = ?",
                (round_id, count - 1),
            ).fetchone()
            if row is None or bytes(row[1]).hex() != record.get("last_event_hash"):
                return (
                    "rounds",
                    int(round_id),
                    f"rounds row {round_id}: events missing (audit recorded {count})",
                )
    return None

