"""Taking back the last events of an open round (the dealer's or a supervisor's undo).

The transcript has no event for an undo (spec/round-script.md): the events leave the
round's list and the audit log keeps, chained, exactly what left (each event's seq, time,
author, JSON and hash), who took it back and under whose approval. Only the newest rows
of the events chain can leave, so the chain stays whole; a round that has ended (settled,
void, forwarded to the floor) keeps all its events. Which events may be taken back is the
engine's rule (:mod:`dealer_assist.engine.retraction`); the store checks that they are
the round's and the chain's last and that a supervisor's take-back is approved.
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
from typing import Any

from dealer_assist.store.audit import insert_audit
from dealer_assist.store.authority import use_undo_approval
from dealer_assist.store.common import StoreError

__all__ = ["WITHDRAWN_KIND", "withdraw_last"]

WITHDRAWN_KIND = "event_withdrawn"


def withdraw_last(
    conn: sqlite3.Connection,
    round_id: int,
    count: int,
    actor: str,
    approval: int | None,
    reason: str,
    now: _dt.datetime,
) -> int:
    """Remove the round's last ``count`` events (inside a write transaction) and audit them;
    returns the audit row's id. StoreError, nothing changed, when they are not the round's
    and the chain's newest, the round has ended, or an approval given is not valid."""
    if count < 1:
        raise StoreError("nothing to take back")
    status = conn.execute("SELECT status FROM rounds WHERE id = ?", (round_id,)).fetchone()
    if status is None:
        raise StoreError(f"no round {round_id}")
    if str(status[0]) != "in_progress":
        raise StoreError(f"round {round_id} has ended ({status[0]}): its events stay as recorded")
    rows = conn.execute(
        "SELECT id, seq, at, actor, event_json, hash FROM events WHERE round_id = ? ORDER BY seq DESC LIMIT ?",
        (round_id, count),
    ).fetchall()
    newest = [int(r[0]) for r in conn.execute("SELECT id FROM events ORDER BY id DESC LIMIT ?", (count,))]
    if len(rows) < count or sorted(int(r[0]) for r in rows) != sorted(newest):
        raise StoreError(f"the last {count} event(s) of round {round_id} are not the newest recorded: "
                         "they stay as recorded")
    supervisor = use_undo_approval(conn, approval, round_id, now) if approval is not None else None
    taken: list[dict[str, Any]] = [
        {"seq": int(r[1]), "at": str(r[2]), "actor": str(r[3]), "event": json.loads(r[4]),
         "hash": bytes(r[5]).hex()}
        for r in reversed(rows)
    ]
    conn.execute(f"DELETE FROM events WHERE id IN ({', '.join('?' * len(newest))})", newest)
    detail: dict[str, Any] = {"events": taken, "reason": reason}
    if approval is not None:
        detail["approval"] = approval
        detail["supervisor"] = supervisor
    return insert_audit(conn, WITHDRAWN_KIND, actor, round_id, detail)
