"""Reading rounds back: listings with filters, one round's details."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from dealer_assist.store.common import ROUND_STATUSES, StoreError
from dealer_assist.store.records import RoundDetail, RoundSummary, StoredEvent

__all__ = ["SUMMARY_COLUMNS", "get_round", "list_rounds", "summary"]

SUMMARY_COLUMNS = (
    "r.id, r.session_id, r.number, r.source, r.game, r.status, r.started_at, r.ended_at, "
    "r.players_json, r.totals_json, r.irregular"
)


def summary(row: Sequence[Any]) -> RoundSummary:
    return RoundSummary(
        id=int(row[0]),
        session_id=row[1],
        number=int(row[2]),
        source=str(row[3]),
        game=str(row[4]),
        status=str(row[5]),
        started_at=str(row[6]),
        ended_at=row[7],
        players=json.loads(row[8]),
        net=json.loads(row[9]),
        irregular=bool(row[10]),
    )


def list_rounds(
    conn: sqlite3.Connection,
    *,
    player: str | None = None,
    since: str | None = None,
    until: str | None = None,
    status: str | None = None,
    irregular: bool | None = None,
    limit: int | None = 100,
    before_id: int | None = None,
) -> list[RoundSummary]:
    """Rounds, latest first, filtered. ``since`` inclusive / ``until`` exclusive are
    times in the stored format (see :func:`format_time`); ``before_id`` pages back."""
    if status is not None and status not in ROUND_STATUSES:
        raise StoreError(f"unknown status {status!r}: one of {', '.join(ROUND_STATUSES)}")
    where: list[str] = []
    params: list[Any] = []
    if player is not None:
        source = "round_players rp JOIN rounds r ON r.id = rp.round_id"
        where.append("rp.player = ?")
        params.append(player)
        order = "rp.round_id DESC"
    elif since is not None or until is not None:
        # Time window: walk the start-time index newest first (it holds the rowid too).
        source = "rounds r INDEXED BY rounds_started"
        order = "r.started_at DESC, r.id DESC"
    else:
        source = "rounds r"
        order = "r.id DESC"
    if since is not None:
        where.append("r.started_at >= ?")
        params.append(since)
    if until is not None:
        where.append("r.started_at < ?")
        params.append(until)
    if status is not None:
        where.append("r.status = ?")
        params.append(status)
    if irregular is not None:
        where.append("r.irregular = ?")
        params.append(1 if irregular else 0)
    if before_id is not None:
        where.append("r.id < ?")
        params.append(before_id)
    sql = f"SELECT {SUMMARY_COLUMNS} FROM {source}"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += f" ORDER BY {order}"
    if limit is not None and limit > 0:
        sql += " LIMIT ?"
        params.append(limit)
    return [summary(r) for r in conn.execute(sql, params)]


def get_round(conn: sqlite3.Connection, round_id: int) -> RoundDetail | None:
    """Everything recorded about one round, or None."""
    row = conn.execute(
        f"SELECT {SUMMARY_COLUMNS}, r.config_json, r.result_json FROM rounds r WHERE r.id = ?",
        (round_id,),
    ).fetchone()
    if row is None:
        return None
    events = [
        StoredEvent(int(r[0]), str(r[1]), str(r[2]), json.loads(r[3]))
        for r in conn.execute(
            "SELECT seq, at, actor, event_json FROM events WHERE round_id = ? ORDER BY seq",
            (round_id,),
        )
    ]
    settlements = [
        {
            "player": r[0],
            "area": r[1],
            "hand": r[2],
            "bet": r[3],
            "stake": r[4],
            "result": r[5],
            "net": r[6],
            "rule": r[7],
            "stage": r[8],
        }
        for r in conn.execute(
            "SELECT player, area, hand, bet, stake, result, net, rule, stage FROM settlements "
            "WHERE round_id = ? ORDER BY id",
            (round_id,),
        )
    ]
    rulings = [
        {
            "index": r[0],
            "rule": r[1],
            "ruling": r[2],
            "text": r[3],
            "moves": json.loads(r[4]),
        }
        for r in conn.execute(
            "SELECT event_index, rule, ruling, text, moves_json FROM rulings WHERE round_id = ? ORDER BY id",
            (round_id,),
        )
    ]
    return RoundDetail(
        summary=summary(row[:11]),
        config=json.loads(row[11]),
        events=events,
        result=json.loads(row[12]) if row[12] is not None else None,
        settlements=settlements,
        rulings=rulings,
    )
