"""A supervisor's authority, enforced where events are written (issue 15 item 8).

Some events change a round on a supervisor's word, not the dealer's, and the store
refuses to write them without a supervisor's approval:

=========================  ==========================  ==========================================
event                      approval kind(s)            why
=========================  ==========================  ==========================================
``void``                   ``void`` (6.1 also          a supervisor voids the round (5.1, 5.2), or
                           ``resolve``)                the shift manager on a referral (6.1)
``resolve``                ``resolve``,                the Gaming Shift Manager's decision on a
                           ``supervisor_decision``     referred round (6.1)
``correction``             ``correction``              a card of the record is said to lie
                                                       elsewhere; the ruling it starts may move the
                                                       card between players' hands (5.6, 5.13 ...)
``pick`` by pit_manager    ``override``                the pit manager decides which card goes
                                                       first (5.23): overrides the dealing order
=========================  ==========================  ==========================================

Every ``correction`` needs one, not only those that end up moving a card from one
player to another: which it is, is the engine's ruling at that moment, after the write.

An approval is the audit row :meth:`Store.authorise` wrote when the supervisor's PIN was
accepted. It authorises one event: of a kind in the table above, by a user who is still
an active supervisor, at most :data:`APPROVAL_SECONDS` old, for the same round (or made
before the round had an id), and not used before. Its use is an ``authority_used`` audit
row (chained) naming the approval, the supervisor, the round and the event's seq.

Accounts are changed with an approval of kind ``accounts`` (or the enrolment of the
first supervisor), usable for :data:`ACCOUNTS_SECONDS` and more than once.

A transcript recorded by ``settle --record`` carries no approval: one with such an
event is refused (:func:`unauthorised_events`).
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from dealer_assist.store.audit import insert_audit
from dealer_assist.store.common import StoreError, format_time

__all__ = [
    "ACCOUNTS_KINDS",
    "ACCOUNTS_SECONDS",
    "APPROVAL_SECONDS",
    "UNDO_KIND",
    "authority_needed",
    "check_accounts_approval",
    "first_unauthorised_event",
    "unauthorised_events",
    "use_approval",
    "use_undo_approval",
]

APPROVAL_SECONDS = 600
REFERRAL_CLAUSE = "6.1"
ACCOUNTS_SECONDS = 1800
ACCOUNTS_KINDS: tuple[str, ...] = ("accounts", "supervisor_enrolled")


def authority_needed(event: Mapping[str, Any]) -> tuple[str, ...]:
    """The approval kinds one of which ``event`` needs, or () when the dealer may write it."""
    kind = event.get("type")
    if kind == "void":
        # a void under 6.1 (all five games) is the shift manager's decision on a referred round
        return ("void", "resolve") if event.get("rule") == REFERRAL_CLAUSE else ("void",)
    if kind == "resolve":
        return ("resolve", "supervisor_decision")
    if kind == "correction":
        return ("correction",)
    if kind == "pick" and event.get("by") == "pit_manager":
        return ("override",)
    return ()


def _why(event: Mapping[str, Any]) -> str:
    kind = str(event.get("type"))
    if kind == "void":
        return f"a void ({event.get('rule') or '5.1'})"
    if kind == "resolve":
        return "the shift manager's decision (6.1)"
    if kind == "correction":
        return "a correction"
    return "the pit manager's choice (5.23)"


def unauthorised_events(events: Sequence[Any]) -> list[str]:
    """Each event of a transcript that needs a supervisor's authority, described."""
    return [
        f"event {i} ({_why(e)})"
        for i, e in enumerate(events)
        if isinstance(e, Mapping) and authority_needed(e)
    ]


def _approval_row(
    conn: sqlite3.Connection, approval: int, kinds: Sequence[str], now: _dt.datetime, seconds: int
) -> tuple[str, int | None]:
    row = conn.execute(
        "SELECT actor, kind, round_id, at FROM audit WHERE id = ?", (approval,)
    ).fetchone()
    if row is None or str(row[1]) not in kinds:
        raise StoreError(f"approval {approval} is not a supervisor's approval of {' or '.join(kinds)}")
    supervisor, _, round_id, at = str(row[0]), row[1], row[2], str(row[3])
    active = conn.execute(
        "SELECT 1 FROM users u JOIN user_roles r ON r.username = u.username "
        "WHERE u.username = ? AND r.role = 'supervisor' AND u.disabled = 0",
        (supervisor,),
    ).fetchone()
    if active is None:
        raise StoreError(f"approval {approval} was given by {supervisor!r}, who is not an active supervisor")
    if at < format_time(now - _dt.timedelta(seconds=seconds)):
        raise StoreError(f"approval {approval} has expired (older than {seconds // 60} minutes): ask again")
    return supervisor, None if round_id is None else int(round_id)


def use_approval(
    conn: sqlite3.Connection,
    approval: int | None,
    event: Mapping[str, Any],
    round_id: int,
    seq: int,
    now: _dt.datetime,
) -> str | None:
    """Check and spend ``approval`` for ``event`` (inside the write); returns the supervisor.

    None (nothing spent) for an event the dealer may write alone; StoreError when the
    event needs an approval and ``approval`` is missing or not valid for it.
    """
    kinds = authority_needed(event)
    if not kinds:
        return None
    if approval is None:
        raise StoreError(f"{_why(event)} needs a supervisor's approval (PIN): not recorded")
    supervisor, for_round = _approval_row(conn, approval, kinds, now, APPROVAL_SECONDS)
    if for_round is not None and for_round != round_id:
        raise StoreError(f"approval {approval} was given for round {for_round}, not round {round_id}")
    used = conn.execute(
        "SELECT 1 FROM audit WHERE kind = 'authority_used' AND json_extract(detail_json, '$.approval') = ?",
        (approval,),
    ).fetchone()
    if used is not None:
        raise StoreError(f"approval {approval} was already used: each approval authorises one event")
    insert_audit(
        conn,
        "authority_used",
        supervisor,
        round_id,
        {"approval": approval, "seq": seq, "event": str(event.get("type"))},
        format_time(now),
    )
    return supervisor


UNDO_KIND = "undo"


def use_undo_approval(conn: sqlite3.Connection, approval: int, round_id: int, now: _dt.datetime) -> str:
    """The supervisor whose ``undo`` approval covers taking back events of ``round_id``
    (once: its use is the ``event_withdrawn`` row that names it)."""
    supervisor, for_round = _approval_row(conn, approval, (UNDO_KIND,), now, APPROVAL_SECONDS)
    if for_round is not None and for_round != round_id:
        raise StoreError(f"approval {approval} was given for round {for_round}, not round {round_id}")
    used = conn.execute(
        "SELECT 1 FROM audit WHERE kind = 'event_withdrawn' AND json_extract(detail_json, '$.approval') = ?",
        (approval,),
    ).fetchone()
    if used is not None:
        raise StoreError(f"approval {approval} was already used: each approval takes back once")
    return supervisor


def check_accounts_approval(conn: sqlite3.Connection, approval: int | None, now: _dt.datetime) -> str:
    """The supervisor whose ``accounts`` approval (or enrolment) covers an account change."""
    if approval is None:
        raise StoreError("changing accounts needs a supervisor's approval (PIN)")
    supervisor, _ = _approval_row(conn, approval, ACCOUNTS_KINDS, now, ACCOUNTS_SECONDS)
    return supervisor


def first_unauthorised_event(
    conn: sqlite3.Connection, round_ids: Sequence[int] | None = None
) -> tuple[int, int, int] | None:
    """(events row id, round, seq) of the first event that needed an approval and has no
    ``authority_used`` record, among the events written since the store began asking
    (``authority_since``, set by migration 0006_accounts); None when there is none.
    ``round_ids``: look only at the events of these rounds (verify knows the others have none)."""
    sql = (
        "SELECT e.id, e.round_id, e.seq FROM events e WHERE e.id >= "
        "(SELECT COALESCE(MAX(first_event_id), 1) FROM authority_since) "
        "AND (json_extract(e.event_json, '$.type') IN ('void', 'resolve', 'correction') "
        "     OR (json_extract(e.event_json, '$.type') = 'pick' "
        "         AND json_extract(e.event_json, '$.by') = 'pit_manager')) "
        "AND NOT EXISTS (SELECT 1 FROM audit a WHERE a.kind = 'authority_used' AND a.round_id = e.round_id "
        "                AND json_extract(a.detail_json, '$.seq') = e.seq) "
    )
    if round_ids is None:
        row = conn.execute(sql + "ORDER BY e.id LIMIT 1").fetchone()
        return None if row is None else (int(row[0]), int(row[1]), int(row[2]))
    found: list[tuple[int, int, int]] = []
    ids = list(round_ids)
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        row = conn.execute(
            sql + f"AND e.round_id IN ({', '.join('?' * len(part))}) ORDER BY e.id LIMIT 1", part
        ).fetchone()
        if row is not None:
            found.append((int(row[0]), int(row[1]), int(row[2])))
    return min(found) if found else None


def detail_of(conn: sqlite3.Connection, approval: int) -> dict[str, Any]:
    row = conn.execute("SELECT detail_json FROM audit WHERE id = ?", (approval,)).fetchone()
    return dict(json.loads(row[0])) if row else {}
