"""A round's result: the settle output and the records derived from it."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from dealer_assist.store.audit import insert_audit
from dealer_assist.store.common import (
    ROUND_STATUSES,
    StoreError,
    canonical_json,
    decimal_text,
    utc_now,
)
from dealer_assist.store.log import round_event_tail

__all__ = ["finish"]


def finish(
    conn: sqlite3.Connection, round_id: int, result: Mapping[str, Any], actor: str
) -> None:
    """Record a round's settle output (inside a write transaction): status, settlements,
    rulings, net, the under-minimum history (5.26) and a chained ``round_finish`` record."""
    row = conn.execute("SELECT config_json FROM rounds WHERE id = ?", (round_id,)).fetchone()
    if row is None:
        raise StoreError(f"no round {round_id}")
    config = json.loads(row[0])
    status = result.get("status")
    if status not in ROUND_STATUSES:
        raise StoreError(
            f"settle output has status {status!r}, expected one of {', '.join(ROUND_STATUSES)}"
        )
    settlements = list(result.get("settlements") or [])
    rulings = list(result.get("rulings") or [])
    net = result.get("net") or {}
    if not isinstance(net, Mapping):
        raise StoreError("settle output 'net' is not an object")
    result_json = canonical_json(result)
    irregular = 1 if rulings or status in ("void", "referred") else 0
    ended_at = utc_now() if status in ("settled", "void") else None

    conn.execute("DELETE FROM settlements WHERE round_id = ?", (round_id,))
    conn.execute("DELETE FROM rulings WHERE round_id = ?", (round_id,))
    settlement_rows = []
    for entry in settlements:
        if not isinstance(entry, Mapping):
            raise StoreError("a settlement entry is not an object")
        settlement_rows.append(
            (
                round_id,
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
    conn.executemany(
        "INSERT INTO settlements (round_id, player, area, hand, bet, stake, result, net, rule, stage) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        settlement_rows,
    )
    ruling_rows = []
    for ruling in rulings:
        if not isinstance(ruling, Mapping):
            raise StoreError("a ruling is not an object")
        ruling_rows.append(
            (
                round_id,
                ruling.get("index"),
                ruling.get("rule"),
                ruling.get("ruling"),
                ruling.get("text"),
                canonical_json(ruling.get("moves") or []),
            )
        )
    conn.executemany(
        "INSERT INTO rulings (round_id, event_index, rule, ruling, text, moves_json) VALUES (?, ?, ?, ?, ?, ?)",
        ruling_rows,
    )
    net_text = {str(player): decimal_text(amount) for player, amount in net.items()}
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
            irregular,
            result_json,
            round_id,
        ),
    )
    # 5.26: a player whose under-minimum wager was settled (not returned) is remembered.
    limits = config.get("limits") if isinstance(config.get("limits"), Mapping) else {}
    for entry in settlements:
        bet_limits = limits.get(entry.get("bet")) if limits else None
        if (
            not (isinstance(bet_limits, Sequence) and len(bet_limits) >= 1)
            or entry.get("result") == "returned"
        ):
            continue
        try:
            minimum = Decimal(decimal_text(bet_limits[0]))
            stake = Decimal(decimal_text(entry.get("stake")))
        except StoreError:
            continue
        if stake < minimum:
            conn.execute(
                "INSERT OR IGNORE INTO under_min_history (player, round_id, recorded_at) VALUES (?, ?, ?)",
                (str(entry.get("player")), round_id, utc_now()),
            )
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
        },
    )

