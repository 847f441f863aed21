"""The round seal and the fast chain check: what lets ``history verify`` stream a million rounds.

**The seal.** When a round is finished (:func:`dealer_assist.store.results.finish`, in the
same transaction) its chained ``round_finish`` audit record gets ``sealed``: the sha256 of
everything the store then holds about the round, as SQLite itself serialises it
(:func:`seal_sql`):

- every event row of the round up to the finish (id, round, seq, time, actor, event JSON
  and its chain hash);
- every ``settlements``, ``rulings`` and ``round_players`` row of the round (all columns,
  in order);
- the round's derived columns (game, status, end time, players, totals, irregular flag,
  settle output).

The finish record is in the keyed audit chain (with ``seal_format``: how the rows were
serialised, :func:`seal_sql`), so none of these can be changed without the station key.
``verify`` recomputes the same expression (one SQL query streaming all the rounds) and compares digests instead of re-settling each round through the engine
and walking its events one HMAC at a time. Every value is serialised with its SQLite type
(``1`` and ``'1'`` differ) and every row with its id, so an edit, an insertion, a deletion
or a reordering changes the digest.

**The fast chain check.** A row's chain content is the compact JSON array of its columns;
SQLite's ``json_array`` writes the same bytes as the program's JSON encoder (strings
escaped alike, integers and nulls alike), so the rows are read already serialised, and
the HMAC uses precomputed inner and outer SHA-256 states (RFC 2104) instead of keying
each row afresh. A row whose bytes do not check is not judged here: ``verify`` then runs
the reference check (:func:`dealer_assist.store.chain.verify_chain`), which names it.

This module imports only the standard library (not :mod:`dealer_assist.store`): it is all a
worker process of ``history verify --jobs N`` imports, so each worker stays small.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "APPROVALS_FIELD",
    "ROWS_FIELD",
    "SEAL_FIELD",
    "SEAL_FORMAT",
    "SEAL_FORMAT_FIELD",
    "UNTRUSTED_LISTED",
    "Hmac",
    "RangeCheck",
    "chain_rows_ok",
    "check_range",
    "check_range_in",
    "derived_rows",
    "round_seal",
    "seal_sql",
]

#: The chain's start (as dealer_assist.store.common.ZERO_HASH: this module imports no store module).
ZERO_HASH = bytes(32)

#: The finish record's field holding the seal (sha256 hex); records written before it lack it.
SEAL_FIELD = "sealed"
#: The finish record's field saying how its seal serialises the round (absent: format 1).
SEAL_FORMAT_FIELD = "seal_format"
#: The format the program writes (:func:`seal_sql`).
SEAL_FORMAT = 2
#: The finish record's field listing the seqs of the round's events that needed a supervisor's
#: approval (dealer_assist.store.authority.authority_needed): verify looks only at those rounds.
APPROVALS_FIELD = "needs_approval"
#: The finish record's field counting the round's settlements, rulings and player rows (sealed).
ROWS_FIELD = "derived_rows"


def _rows(table: str, columns: str, where: str, order: str) -> str:
    return (
        f"coalesce((SELECT group_concat(x, '') FROM (SELECT json_array({columns}) AS x FROM {table} "
        f"WHERE {where} ORDER BY {order})), '')"
    )


def seal_sql(count: str, seal_format: int = SEAL_FORMAT) -> str:
    """The SQL expression (a BLOB) of what the seal of round ``r`` (an alias of ``rounds``)
    covers, its events taken up to ``count`` (an SQL expression). Written once, used by the
    writer and by ``verify``: the two can never serialise differently.

    Format 2 (written since 2026-11-26, ``seal_format`` 2 in the finish record) takes each
    event's chain hash and the round's settle output as they are stored, each after a JSON
    array that says its type and length, instead of escaping them into JSON text (format 1):
    the same facts, unambiguously, for about a quarter less of SQLite's work."""
    if seal_format == 1:
        events = _rows("events", "id, round_id, seq, at, actor, event_json, quote(hash)",
                       f"round_id = r.id AND seq < {count}", "seq")
        round_row = ("json_array(r.id, r.game, r.status, r.ended_at, r.players_json, r.totals_json, "
                     "r.irregular, r.result_json)")
    else:
        events = (
            "coalesce((SELECT group_concat(x, '') FROM (SELECT json_array(id, round_id, seq, at, actor, "
            "event_json, typeof(hash), length(CAST(hash AS BLOB))) || coalesce(hash, '') AS x FROM events "
            f"WHERE round_id = r.id AND seq < {count} ORDER BY seq)), '')"
        )
        # the settle output last: nothing follows it, so its own bytes need no delimiting
        round_row = ("json_array(r.id, r.game, r.status, r.ended_at, r.players_json, r.totals_json, "
                     "r.irregular, typeof(r.result_json)) || coalesce(r.result_json, '')")
    return (
        "CAST('e' || "
        + events
        + " || 's' || "
        + _rows("settlements", "id, round_id, player, area, hand, bet, stake, result, net, rule, stage",
                "round_id = r.id", "id")
        + " || 'u' || "
        + _rows("rulings", "id, round_id, event_index, rule, ruling, text, moves_json", "round_id = r.id", "id")
        + " || 'p' || "
        + _rows("round_players", "player, round_id, net", "round_id = r.id", "player")
        + " || 'r' || " + round_row + " AS BLOB)"
    )


def round_seal(conn: sqlite3.Connection, round_id: int, count: int, seal_format: int = SEAL_FORMAT) -> str:
    """The seal of ``round_id`` with its first ``count`` events, as the store holds it now."""
    row = conn.execute(
        f"SELECT {seal_sql(':count', seal_format)} FROM rounds r WHERE r.id = :round",
        {"count": count, "round": round_id},
    ).fetchone()
    if row is None:
        raise sqlite3.DataError(f"no round {round_id}")
    return hashlib.sha256(bytes(row[0])).hexdigest()


class Hmac:
    """HMAC-SHA256 with the key's inner and outer states computed once (RFC 2104)."""

    def __init__(self, key: bytes) -> None:
        block = (hashlib.sha256(key).digest() if len(key) > 64 else key).ljust(64, b"\0")
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in block))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in block))

    def digest(self, data: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(data)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()


#: The chain content of each chained table's row, serialised by SQLite (see the module's doc).
CHAIN_CONTENT = {
    "events": "json_array(id, round_id, seq, at, actor, event_json)",
    "rounds": "json_array(id, session_id, number, source, started_at, config_json)",
    "audit": "json_array(id, at, actor, kind, round_id, detail_json)",
}


def chain_rows_ok(
    conn: sqlite3.Connection,
    table: str,
    mac: Hmac,
    where: str = "",
    params: tuple[Any, ...] = (),
    *,
    span: tuple[int, int] | None = None,
) -> tuple[int, int, bytes] | None:
    """Check every link of ``table``'s chain, or of the rows ``where`` selects, or of the rows
    with ids in ``span`` (inclusive), each against the row before it by id in the whole chain:
    (rows checked, last id, last hash) when every one holds, None at the first that does not
    (or that SQLite cannot serialise as the program does)."""
    first = ZERO_HASH
    bounds = ""
    if span is not None:
        before = conn.execute(
            f"SELECT hash FROM {table} WHERE id < ? ORDER BY id DESC LIMIT 1", (span[0],)
        ).fetchone()
        first = ZERO_HASH if before is None else before[0]
        bounds = f"WHERE id BETWEEN {int(span[0])} AND {int(span[1])} "
    # each row against the one before it, carried here (a window function would copy every row)
    sql = f"SELECT id, CAST({CHAIN_CONTENT[table]} AS BLOB), hash, NULL FROM {table} {bounds}ORDER BY id"
    args: tuple[Any, ...] = ()
    if where:
        # each selected row against its real predecessor in the whole chain
        sql = (
            f"SELECT id, CAST({CHAIN_CONTENT[table]} AS BLOB), hash, coalesce((SELECT p.hash FROM {table} p "
            f"WHERE p.id < t.id ORDER BY p.id DESC LIMIT 1), ?) FROM {table} t WHERE {where} ORDER BY id"
        )
        args = (first, *params)
    count = 0
    last_id = 0
    last_hash: Any = first  # the row before the next one, in a span
    digest = mac.digest
    try:
        for row_id, content, stored, prev in conn.execute(sql, args):
            if prev is None:
                prev = last_hash
            if type(stored) is not bytes or type(prev) is not bytes or digest(prev + content) != stored:
                return None
            count += 1
            last_id = row_id
            last_hash = stored
    except (sqlite3.Error, TypeError):
        return None
    return count, last_id, last_hash


# ------------------------------------------------------------------ the rounds, a range at a time

@dataclass
class RangeCheck:
    """What :func:`check_range` found for the rounds ``lo``..``hi``.

    ``untrusted``: rounds whose seal is missing (unfinished, or finished before seals) or does
    not match, or that have events after their finish record: ``verify`` checks each of them
    in full. ``covered``: every row of the range's events, settlements, rulings and player rows
    belongs to one of its rounds and is either sealed or (events of untrusted rounds) a chain
    link that holds. ``approval``: rounds that may hold an event needing a supervisor.
    """

    lo: int
    hi: int
    audit_span: tuple[int, int] | None = None  # the audit rows (ids) this range also checks
    rounds_chain: tuple[int, int, bytes] | None = None  # chain_rows_ok of rounds lo..hi
    audit_chain: tuple[int, int, bytes] | None = None  # chain_rows_ok of the audit span
    rounds: int = 0
    events: int = 0
    covered: bool = True
    untrusted: list[int] = field(default_factory=list)
    overflow: bool = False  # more than UNTRUSTED_LISTED untrusted rounds (a store from before seals)
    mismatched: list[int] = field(default_factory=list)  # of untrusted: a seal that does not match
    approval: list[int] = field(default_factory=list)


_COUNTED = ("settlements", "rulings", "round_players")

#: At most this many untrusted rounds are listed a range (memory stays flat): beyond it verify
#: re-settles the whole store in one streaming pass instead of round by round.
UNTRUSTED_LISTED = 20_000

_ROUNDS_SQL = (
    "SELECT r.id, json_extract(f.detail_json, '$.{field}'), json_extract(f.detail_json, '$.events'), "
    "json_extract(f.detail_json, '$.{approvals}'), json_extract(f.detail_json, '$.{rows}'), "
    "(SELECT max(seq) FROM events WHERE round_id = r.id), "
    "CASE WHEN json_extract(f.detail_json, '$.{field}') IS NULL THEN NULL "
    "WHEN json_extract(f.detail_json, '$.{fmt}') IS 2 THEN {seal} ELSE {seal1} END "
    "FROM rounds r LEFT JOIN audit f ON f.id = (SELECT max(a.id) FROM audit a INDEXED BY audit_finish "
    "WHERE a.kind = 'round_finish' AND a.round_id = r.id) WHERE r.id BETWEEN :lo AND :hi ORDER BY r.id"
).format(field=SEAL_FIELD, approvals=APPROVALS_FIELD, rows=ROWS_FIELD,
         fmt=SEAL_FORMAT_FIELD, seal=seal_sql("json_extract(f.detail_json, '$.events')", 2),
         seal1=seal_sql("json_extract(f.detail_json, '$.events')", 1))


def derived_rows(conn: sqlite3.Connection, round_id: int) -> int:
    """How many ``settlements``, ``rulings`` and ``round_players`` rows the round has."""
    return int(sum(
        conn.execute(f"SELECT count(*) FROM {t} WHERE round_id = ?", (round_id,)).fetchone()[0]
        for t in _COUNTED
    ))


def check_range_in(
    conn: sqlite3.Connection, key: bytes, lo: int, hi: int, audit_span: tuple[int, int] | None = None
) -> RangeCheck:
    """The seals of rounds ``lo``..``hi`` (see :class:`RangeCheck`) and the chain links of
    their ``rounds`` rows and of the audit rows in ``audit_span``, on ``conn``'s snapshot."""
    out = RangeCheck(lo, hi, audit_span)
    mac = Hmac(key)
    out.rounds_chain = chain_rows_ok(conn, "rounds", mac, span=(lo, hi))
    if audit_span is not None:
        out.audit_chain = chain_rows_ok(conn, "audit", mac, span=audit_span)
    sha256 = hashlib.sha256
    derived = 0
    for round_id, sealed, count, approvals, rows, last_seq, text in conn.execute(
        _ROUNDS_SQL, {"lo": lo, "hi": hi}
    ):
        out.rounds += 1
        # sealed: its first `count` events (seq < count) are in the seal, and it has no others
        if (
            text is None
            or type(count) is not int
            or type(rows) is not int
            or (-1 if last_seq is None else last_seq) != count - 1
            or sha256(text).hexdigest() != sealed
        ):
            if len(out.untrusted) < UNTRUSTED_LISTED:
                out.untrusted.append(round_id)
                if text is not None:
                    out.mismatched.append(round_id)
            else:
                out.overflow = True
            if out.covered:  # its events are checked link by link
                linked = chain_rows_ok(conn, "events", mac, "round_id = ?", (round_id,))
                if linked is None:
                    out.covered = False
                else:
                    out.events += linked[0]
                    derived += derived_rows(conn, round_id)
            continue
        out.events += count
        derived += rows
        if approvals != "[]":
            out.approval.append(round_id)
    # half-open, so that the ranges together leave out no round id (1.5 is in [1, 2))
    in_range = {"lo": lo, "next": hi + 1}
    events_in_range = conn.execute(
        "SELECT count(*) FROM events WHERE round_id >= :lo AND round_id < :next", in_range).fetchone()[0]
    derived_in_range = sum(
        conn.execute(f"SELECT count(*) FROM {t} WHERE round_id >= :lo AND round_id < :next",
                     in_range).fetchone()[0]
        for t in _COUNTED
    )
    # a row of a round id in the range that is no round's (nor sealed, nor a link checked)
    if events_in_range != out.events or derived_in_range != derived:
        out.covered = False
    return out


def check_range(
    path: str, key: bytes, lo: int, hi: int, audit_span: tuple[int, int] | None
) -> RangeCheck:
    """:func:`check_range_in` on a read-only connection of its own (a worker process)."""
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=5)
    try:
        conn.execute("PRAGMA query_only = ON")
        conn.execute("BEGIN")
        return check_range_in(conn, key, lo, hi, audit_span)
    finally:
        conn.close()
