"""A round's result: the settle output and the records derived from it.

The derived rows (settlements, rulings, nets, totals, the irregular flag, the
under-minimum history) are made here by the functions :mod:`verify` uses to re-derive
them from a re-settlement, so the two can never disagree about what a row should hold.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from dealer_assist.base.errors import DealerAssistError, TranscriptError
from dealer_assist.engine.transcript import under_minimum_first_time
from dealer_assist.store.audit import insert_audit
from dealer_assist.store.authority import authority_needed
from dealer_assist.store.common import (
    ROUND_STATUSES,
    StoreError,
    canonical_json,
    decimal_text,
    utc_now,
)
from dealer_assist.store.log import round_event_tail, round_events
from dealer_assist.store.seal import (
    APPROVALS_FIELD,
    ROWS_FIELD,
    SEAL_FIELD,
    SEAL_FORMAT,
    SEAL_FORMAT_FIELD,
    derived_rows,
    round_seal,
)

__all__ = [
    "SettlementRow",
    "RulingRow",
    "finish",
    "irregular_flag",
    "net_texts",
    "ruling_rows",
    "settlement_rows",
    "under_min_players_of",
]

#: (player, area, hand, bet, stake, result, net, rule, stage) as stored.
SettlementRow = tuple[str, Any, Any, str, str, str, str, Any, Any]
#: (event_index, rule, ruling, text, moves_json) as stored.
RulingRow = tuple[Any, Any, Any, Any, str]


def settlement_rows(result: Mapping[str, Any]) -> list[SettlementRow]:
    rows: list[SettlementRow] = []
    for entry in list(result.get("settlements") or []):
        if not isinstance(entry, Mapping):
            raise StoreError("a settlement entry is not an object")
        rows.append(
            (
                str(entry.get("player")),
                entry.get("area"),
                entry.get("hand"),
                str(entry.get("bet")),
                decimal_text(entry.get("stake")),
                str(entry.get("result")),
                decimal_text(entry.get("net")),
                entry.get("rule"),
                entry.get("stage"),
            )
        )
    return rows


def ruling_rows(result: Mapping[str, Any]) -> list[RulingRow]:
    rows: list[RulingRow] = []
    for ruling in list(result.get("rulings") or []):
        if not isinstance(ruling, Mapping):
            raise StoreError("a ruling is not an object")
        rows.append(
            (
                ruling.get("index"),
                ruling.get("rule"),
                ruling.get("ruling"),
                ruling.get("text"),
                canonical_json(ruling.get("moves") or []),
            )
        )
    return rows


def net_texts(result: Mapping[str, Any]) -> dict[str, str]:
    net = result.get("net") or {}
    if not isinstance(net, Mapping):
        raise StoreError("settle output 'net' is not an object")
    return {str(player): decimal_text(amount) for player, amount in net.items()}


def irregular_flag(result: Mapping[str, Any]) -> int:
    return 1 if result.get("rulings") or result.get("status") in ("void", "referred") else 0


def under_min_players_of(config: Mapping[str, Any], events: Sequence[Any]) -> list[str]:
    """5.26 as the engine decides it: the players whose under-minimum wager this round
    settled normally, their first time at the table (the store only records them). A round
    the engine cannot replay names nobody."""
    try:
        return under_minimum_first_time({**config, "events": list(events)})
    except (DealerAssistError, TranscriptError):
        return []


def finish(
    conn: sqlite3.Connection, round_id: int, result: Mapping[str, Any], actor: str,
    under_min: Sequence[str] | None = None,
) -> None:
    """Record a round's settle output (inside a write transaction): status, settlements,
    rulings, net, the under-minimum history (5.26) and a chained ``round_finish`` record
    that names the end time, the history entries it added and the round's seal (the sha256
    of every row recorded about it: :mod:`dealer_assist.store.seal`). ``under_min``: the
    5.26 names as the table session learnt them from the round; None (no session: an
    import, a bench) derives them from the round's events."""
    row = conn.execute("SELECT config_json FROM rounds WHERE id = ?", (round_id,)).fetchone()
    if row is None:
        raise StoreError(f"no round {round_id}")
    config = json.loads(row[0])
    status = result.get("status")
    if status not in ROUND_STATUSES:
        raise StoreError(
            f"settle output has status {status!r}, expected one of {', '.join(ROUND_STATUSES)}"
        )
    net = result.get("net") or {}
    net_text = net_texts(result)
    settlements = settlement_rows(result)
    rulings = ruling_rows(result)
    result_json = canonical_json(result)
    now = utc_now()
    ended_at = now if status in ("settled", "void") else None

    conn.execute("DELETE FROM settlements WHERE round_id = ?", (round_id,))
    conn.execute("DELETE FROM rulings WHERE round_id = ?", (round_id,))
    conn.executemany(
        "INSERT INTO settlements (round_id, player, area, hand, bet, stake, result, net, rule, stage) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(round_id, *entry) for entry in settlements],
    )
    conn.executemany(
        "INSERT INTO rulings (round_id, event_index, rule, ruling, text, moves_json) VALUES (?, ?, ?, ?, ?, ?)",
        [(round_id, *ruling) for ruling in rulings],
    )
    conn.execute("UPDATE round_players SET net = NULL WHERE round_id = ?", (round_id,))
    conn.executemany(
        "INSERT INTO round_players (player, round_id, net) VALUES (?, ?, ?) "
        "ON CONFLICT (player, round_id) DO UPDATE SET net = excluded.net",
        [(player, round_id, amount) for player, amount in net_text.items()],
    )
    players = [
        r[0]
        for r in conn.execute(
            "SELECT player FROM round_players WHERE round_id = ? ORDER BY player", (round_id,)
        )
    ]
    conn.execute(
        "UPDATE rounds SET status = ?, ended_at = ?, players_json = ?, totals_json = ?, irregular = ?, "
        "result_json = ? WHERE id = ?",
        (
            status,
            ended_at,
            canonical_json(players),
            canonical_json(net),
            irregular_flag(result),
            result_json,
            round_id,
        ),
    )
    # 5.26: a player whose under-minimum wager was settled (not returned) is remembered.
    added: list[list[str]] = []
    events = round_events(conn, round_id)
    named = under_min if under_min is not None else under_min_players_of(config, events)
    for player in named:
        cur = conn.execute(
            "INSERT OR IGNORE INTO under_min_history (player, round_id, recorded_at) VALUES (?, ?, ?)",
            (player, round_id, now),
        )
        if cur.rowcount == 1:
            added.append([player, now])
    count, last_hash = round_event_tail(conn, round_id)
    insert_audit(
        conn,
        "round_finish",
        actor,
        round_id,
        {
            "status": status,
            "result_sha256": hashlib.sha256(result_json.encode("utf-8")).hexdigest(),
            "events": count,
            "last_event_hash": last_hash.hex() if last_hash else None,
            "ended_at": ended_at,
            "under_min": added,
            # everything recorded about the round, as it stands now (docs/store.md, The seal),
            # and which of its events needed a supervisor's approval (verify checks those)
            SEAL_FIELD: round_seal(conn, round_id, count, SEAL_FORMAT),
            SEAL_FORMAT_FIELD: SEAL_FORMAT,
            ROWS_FIELD: derived_rows(conn, round_id),
            APPROVALS_FIELD: [seq for seq, event in enumerate(events) if authority_needed(event)],
        },
        at=now,
    )
