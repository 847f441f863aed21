"""The event log: round headers and their events, append-only and chained."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from dealer_assist.store.chain import chain, event_content, last_link, round_content
from dealer_assist.store.common import (
    DEFAULT_TABLE,
    HEADER_KEYS,
    StoreError,
    canonical_json,
    utc_now,
)
from dealer_assist.store.keys import chain_key
from dealer_assist.store.records import OpenRound

__all__ = [
    "export_round",
    "insert_event",
    "insert_round",
    "open_round",
    "latest_round_ids",
    "open_round_ids",
    "players_of_event",
    "round_event_tail",
    "round_events",
]


def players_of_event(event: Mapping[str, Any]) -> list[str]:
    names: list[str] = []
    player = event.get("player")
    if isinstance(player, str):
        names.append(player)
    for claimant in event.get("claimants") or []:
        if isinstance(claimant, Mapping) and isinstance(claimant.get("player"), str):
            names.append(claimant["player"])
    declined = event.get("declined_by")
    if isinstance(declined, str):
        names.append(declined)
    followers = event.get("followers")
    if isinstance(followers, Mapping):
        names.extend(name for name in followers if isinstance(name, str))
    return names


def insert_event(
    conn: sqlite3.Connection,
    round_id: int,
    seq: int,
    event: Mapping[str, Any],
    actor: str,
    at: str | None,
) -> None:
    if not isinstance(event, Mapping) or not isinstance(event.get("type"), str):
        raise StoreError("an event is a JSON object with a string 'type'")
    event_json = canonical_json(event)
    last_id, prev = last_link(conn, "events")
    row_id = last_id + 1
    when = at or utc_now()
    digest = chain(prev, event_content(row_id, round_id, seq, when, actor, event_json), chain_key(conn))
    conn.execute(
        "INSERT INTO events (id, round_id, seq, at, actor, event_json, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (row_id, round_id, seq, when, actor, event_json, digest),
    )
    players = players_of_event(event)
    if players:
        before = conn.total_changes
        conn.executemany(
            "INSERT OR IGNORE INTO round_players (player, round_id) VALUES (?, ?)",
            [(p, round_id) for p in dict.fromkeys(players)],
        )
        if conn.total_changes != before:  # a new player in this round: keep the listing current
            names = [
                r[0]
                for r in conn.execute(
                    "SELECT player FROM round_players WHERE round_id = ? ORDER BY player",
                    (round_id,),
                )
            ]
            conn.execute(
                "UPDATE rounds SET players_json = ? WHERE id = ?",
                (canonical_json(names), round_id),
            )


def insert_round(
    conn: sqlite3.Connection,
    config: Mapping[str, Any],
    session_id: int | None,
    number: int | None,
    source: str,
    at: str | None,
) -> int:
    if not isinstance(config, Mapping):
        raise StoreError("a round configuration is a JSON object")
    if "events" in config:
        config = {k: v for k, v in config.items() if k != "events"}
    game = config.get("game")
    if not isinstance(game, str) or not game:
        raise StoreError("a round configuration names its 'game'")
    config_json = canonical_json(config)
    if session_id is not None:
        if (
            conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone()
            is None
        ):
            raise StoreError(f"no session {session_id}")
    if number is None:
        if session_id is None:
            row = conn.execute(
                "SELECT MAX(number) FROM rounds WHERE session_id IS NULL"
            ).fetchone()
        else:
            row = conn.execute(
                "SELECT MAX(number) FROM rounds WHERE session_id = ?", (session_id,)
            ).fetchone()
        number = int(row[0] or 0) + 1
    last_id, prev = last_link(conn, "rounds")
    row_id = last_id + 1
    when = at or utc_now()
    digest = chain(
        prev, round_content(row_id, session_id, number, source, when, config_json), chain_key(conn)
    )
    seated = config.get("seated")
    players = list(seated) if isinstance(seated, Mapping) else []
    conn.execute(
        "INSERT INTO rounds (id, session_id, number, source, game, config_json, started_at, "
        "players_json, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            row_id,
            session_id,
            number,
            source,
            game,
            config_json,
            when,
            canonical_json(sorted(players)),
            digest,
        ),
    )
    if players:
        conn.executemany(
            "INSERT OR IGNORE INTO round_players (player, round_id) VALUES (?, ?)",
            [(p, row_id) for p in players],
        )
    return row_id


def round_event_tail(conn: sqlite3.Connection, round_id: int) -> tuple[int, bytes | None]:
    row = conn.execute(
        "SELECT seq, hash FROM events WHERE round_id = ? ORDER BY seq DESC LIMIT 1", (round_id,)
    ).fetchone()
    if row is None:
        return 0, None
    return int(row[0]) + 1, bytes(row[1])


def open_round_ids(conn: sqlite3.Connection, table: str, *, latest_only: bool = False) -> list[int]:
    """Ids of the live rounds of ``table`` that have not ended, oldest first (or the latest)."""
    sql = (
        "SELECT r.id FROM rounds r LEFT JOIN sessions s ON s.id = r.session_id "
        "WHERE r.ended_at IS NULL AND r.source = 'live' AND coalesce(s.table_name, ?) = ? "
        + ("ORDER BY r.id DESC LIMIT 1" if latest_only else "ORDER BY r.id")
    )
    return [int(r[0]) for r in conn.execute(sql, (DEFAULT_TABLE, table))]


def latest_round_ids(conn: sqlite3.Connection, table: str, *, before: int | None = None) -> list[int]:
    """The id of ``table``'s latest live round, or of its latest before round ``before`` (a
    list of one, or empty)."""
    sql = ("SELECT r.id FROM rounds r LEFT JOIN sessions s ON s.id = r.session_id "
           "WHERE r.source = 'live' AND coalesce(s.table_name, ?) = ? "
           + ("" if before is None else "AND r.id < ? ") + "ORDER BY r.id DESC LIMIT 1")
    params: tuple[Any, ...] = (DEFAULT_TABLE, table) + (() if before is None else (before,))
    return [int(r[0]) for r in conn.execute(sql, params)]


def open_round(conn: sqlite3.Connection, round_id: int) -> OpenRound:
    row = conn.execute(
        "SELECT session_id, number, status, config_json FROM rounds WHERE id = ?", (round_id,)
    ).fetchone()
    events = [
        json.loads(r[0])
        for r in conn.execute(
            "SELECT event_json FROM events WHERE round_id = ? ORDER BY seq", (round_id,)
        )
    ]
    return OpenRound(round_id, row[0], int(row[1]), str(row[2]), json.loads(row[3]), events)



def round_events(conn: sqlite3.Connection, round_id: int) -> list[dict[str, Any]]:
    """The round's events in order, as JSON objects."""
    return [
        json.loads(r[0])
        for r in conn.execute(
            "SELECT event_json FROM events WHERE round_id = ? ORDER BY seq", (round_id,)
        )
    ]


def export_round(conn: sqlite3.Connection, round_id: int) -> dict[str, Any]:
    """The round as a transcript document (header fields, then ``events``) for ``settle``."""
    row = conn.execute("SELECT config_json FROM rounds WHERE id = ?", (round_id,)).fetchone()
    if row is None:
        raise StoreError(f"no round {round_id}")
    config = json.loads(row[0])
    events = round_events(conn, round_id)
    document: dict[str, Any] = {k: config[k] for k in HEADER_KEYS if k in config}
    document.update((k, v) for k, v in config.items() if k not in document)
    document["events"] = events
    return document
