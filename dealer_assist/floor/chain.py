"""The floor's own chain over each table's forwarded rows.

A station's chains (events, round headers, audit) link every row of its store, including
rounds that are not finished yet; the floor holds only finished rounds, so it cannot
recompute them with gaps (and a keyed station chain needs the station's key). The floor
keeps each forwarded row's station link as forwarded (``station_link``) and adds a chain
per table in the order rows were forwarded (``floor_seq``):

    floor_link = sha256(previous floor_link + sha256(canonical JSON of the forwarded
                                                      content, station links included))

(the content's own digest inside, so ``verify`` can digest rounds in any order, streaming
each table's rows by round, and then walk the links in forwarding order).

Anyone editing, inserting or deleting a forwarded row without recomputing the chain to the
end is caught by ``history --db URL verify``; a station whose store no longer extends the
floor's copy is caught when it next forwards (its station links differ).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

ZERO = bytes(32)
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def digest(content: Sequence[Any]) -> bytes:
    return hashlib.sha256(_ENCODER.encode(list(content)).encode("utf-8")).digest()


def link(prev: bytes, content: Sequence[Any]) -> bytes:
    return hashlib.sha256(prev + digest(content)).digest()


def link_digest(prev: bytes, content_digest: bytes) -> bytes:
    return hashlib.sha256(prev + content_digest).digest()


def round_content(
    table: str,
    round_id: int,
    session_id: int | None,
    number: int,
    source: str,
    game: str,
    config_json: str,
    started_at: str,
    ended_at: str | None,
    status: str,
    result_json: str | None,
    station_link: bytes,
    events: Sequence[tuple[int, int, str, str, str, bytes]],
) -> list[Any]:
    """What a round's floor link covers; ``events`` are (seq, station id, at, actor, json, link)."""
    return [
        table, round_id, session_id, number, source, game, config_json, started_at, ended_at,
        status, result_json, station_link.hex(),
        [[seq, sid, at, actor, text, ev_link.hex()] for seq, sid, at, actor, text, ev_link in events],
    ]


def audit_content(
    table: str,
    audit_id: int,
    at: str,
    actor: str,
    kind: str,
    round_id: int | None,
    detail_json: str,
    station_link: bytes,
) -> list[Any]:
    return [table, audit_id, at, actor, kind, round_id, detail_json, station_link.hex()]
