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

A round's content is encoded so that the server can rebuild it in SQL (``ROUND_DIGEST_SQL``):
each field as ``<length in characters>:<text>;`` (``~;`` for NULL) — the round's table, id,
session, number, source, game, config JSON, start and end times (store format), status, settle
output JSON and station link (hex), then each event's seq, station id, time, actor, JSON and
station link — and digested as UTF-8 with sha256. That is *chain format 1*; rounds forwarded
from migration 0015 on are written in *format 2* (below: no lengths, the derived rows chained
with the round), the format recorded per round (``floor.rounds.chain_format``).

Anyone editing, inserting or deleting a forwarded row without recomputing the chain to the
end is caught by ``history --db URL verify``; a station whose store no longer extends the
floor's copy is caught when it next forwards (its station links differ).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

ZERO = bytes(32)
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def digest(content: Sequence[Any]) -> bytes:
    return hashlib.sha256(_ENCODER.encode(list(content)).encode("utf-8")).digest()


def link(prev: bytes, content: Sequence[Any]) -> bytes:
    return hashlib.sha256(prev + digest(content)).digest()


def link_digest(prev: bytes, content_digest: bytes) -> bytes:
    return hashlib.sha256(prev + content_digest).digest()


def _field(value: object) -> str:
    if value is None:
        return "~;"
    text = str(value)
    return f"{len(text)}:{text};"


def round_digest(
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
) -> bytes:
    """The sha256 of a round's content (see the module's docstring); ``events`` are
    (seq, station id, at, actor, event JSON, station link)."""
    parts = []
    for seq, sid, at, actor, text, ev_link in events:
        seq_text, sid_text, link_text = str(seq), str(sid), ev_link.hex()
        parts.append(f"{len(seq_text)}:{seq_text};{len(sid_text)}:{sid_text};{len(at)}:{at};"
                     f"{len(actor)}:{actor};{len(text)}:{text};{len(link_text)}:{link_text};")
    return round_digest_text(table, round_id, session_id, number, source, game, config_json,
                             started_at, ended_at, status, result_json, station_link, "".join(parts))


def round_digest_text(
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
    events_text: str,
) -> bytes:
    """:func:`round_digest` with the events' part already written (each event's
    :data:`EVENT_TEXT_SQL`, in seq order)."""
    parts = [_field(v) for v in (table, round_id, session_id, number, source, game, config_json,
                                 started_at, ended_at, status, result_json, station_link.hex())]
    parts.append(events_text)
    return hashlib.sha256("".join(parts).encode("utf-8")).digest()


#: SQLite text of one row of a station store's ``events``: the same as :func:`round_digest`
#: writes for it (SQLite's length() counts characters, as Python's len() does; an integer's
#: length is that of its text).
EVENT_TEXT_SQL = (
    "length(seq) || ':' || seq || ';' || length(id) || ':' || id || ';' || length(at) || ':' || at || ';' || "
    "length(actor) || ':' || actor || ';' || length(event_json) || ':' || event_json || ';' || "
    "length(hex(hash)) || ':' || lower(hex(hash)) || ';'"
)


def _sql_field(expr: str, nullable: bool = True) -> str:
    """One field's ``<length>:<text>`` (its ';' is added by :func:`_sql_fields`'s concat_ws)."""
    text = f"length({expr})::text || ':' || {expr}"
    return f"coalesce({text}, '~')" if nullable else text


def _sql_hex_field(column: str) -> str:
    """A bytea column's field: its hex text, whose length is twice its bytes (encoded once, not
    again to measure it)."""
    return f"(octet_length({column}) * 2)::text || ':' || encode({column}, 'hex')"


def _sql_fields(fields: Sequence[str]) -> str:
    # concat_ws joins the fields in one go (no growing copy per '||' across fields, no per-call
    # output-function lookup as concat() does: a fifth less server time over a week's events)
    return "(concat_ws(';', " + ", ".join(fields) + ") || ';')"


_TIME = "to_char({} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"

#: SQL text of the round row ``r``'s own fields (before its events).
ROUND_FIELDS_SQL = _sql_fields((
    *(_sql_field(e, nullable) for e, nullable in (
        ("r.table_name", False), ("r.round_id::text", False), ("r.session_id::text", True), ("r.number::text", False),
        ("r.source", False), ("r.game", False), ("r.config_json", False), (_TIME.format("r.started_at"), False),
        (_TIME.format("r.ended_at"), True), ("r.status", False), ("r.result_json", True))),
    _sql_hex_field("r.station_link")))

#: SQL text of one event row ``e`` (aggregated in seq order after the round's fields).
EVENT_FIELDS_SQL = _sql_fields((
    *(_sql_field(e, False) for e in ("e.seq::text", "e.station_event_id::text", "e.at", "e.actor", "e.event_json")),
    _sql_hex_field("e.station_link")))

#: SQL giving the same digest for the round row ``r`` of ``floor.rounds`` (with its events).
ROUND_DIGEST_SQL = (
    f"sha256(convert_to({ROUND_FIELDS_SQL} || coalesce((SELECT string_agg({EVENT_FIELDS_SQL}, '' ORDER BY e.seq) "
    "FROM floor.events e WHERE e.table_name = r.table_name AND e.round_id = r.round_id), ''), 'UTF8'))"
)


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


#: SQL giving :func:`digest` of :func:`audit_content` for the row ``a`` of ``floor.audit``: the
#: same compact JSON (to_json escapes a string as Python's json does with ensure_ascii off: '"',
#: '\\', \b \f \n \r \t, other control characters as \u00xx), digested by the server.
AUDIT_DIGEST_SQL = (
    "sha256(convert_to('[' || to_json(a.table_name)::text || ',' || a.audit_id::text || ',' || "
    "to_json(a.at)::text || ',' || to_json(a.actor)::text || ',' || to_json(a.kind)::text || ',' || "
    "coalesce(a.round_id::text, 'null') || ',' || to_json(a.detail_json)::text || ',\"' || "
    "encode(a.station_link, 'hex') || '\"]', 'UTF8'))"
)


# ---- chain format 2 (issue 35, item 7; migration 0015_chain_format)
#
# Format 1 (above) writes each field as ``<length>:<text>;``: the server spends most of a verify
# measuring and writing lengths. Format 2 joins the fields with control characters instead, and
# chains the round's derived rows (settlements, rulings, players) and figures (wagered, house
# net, totals, players) with it, which the server checked against the settle output once, as the
# round arrived (floor.check_derived): verify re-hashes them instead of parsing and comparing.
#
#     "2" US  round fields (each followed by US)  events (6 fields each, each followed by US)
#     GS  settlements (10 fields each)  GS  rulings (6 each)  GS  players (3 each, by name's bytes)
#
# with US = U+001F after every field, NULL written as RS = U+001E, GS = U+001D between the sections.
# This is unambiguous as long as no field's text holds U+001C..U+001F (each field is then read back
# by splitting at US, each section at GS, and every row has a fixed number of fields): JSON text
# cannot (control characters are escaped in it), numbers, times and hex links cannot, and the
# forwarder writes a round whose free text (an actor, a player's name, a ruling's text...) holds
# one in format 1 (:func:`plain`). Format 2 text never starts as format 1's does (a digit string
# then ':', or '~;'), so neither can pass for the other.

FORMAT_1 = 1
FORMAT_2 = 2
US, RS, GS = "\x1f", "\x1e", "\x1d"
_SEPARATOR = re.compile("[\x1c-\x1f]")


def plain(*texts: str | None) -> bool:
    """No separator of format 2 (U+001C..U+001F) in any of ``texts``."""
    return _SEPARATOR.search("".join(t for t in texts if t)) is None


def field2(value: object) -> str:
    return RS + US if value is None else f"{value}{US}"


def num_text(value: Decimal) -> str:
    """An amount as PostgreSQL's numeric writes it (no exponent, its scale kept, no '-0'): the
    forwarder sends this text, so the server's ``numeric::text`` gives it back byte for byte."""
    return format(abs(value) if value == 0 else value, "f")


def round_digest2(fields: Sequence[object], events_text: str, settlements: Sequence[Sequence[object]],
                  rulings: Sequence[Sequence[object]], players: Sequence[Sequence[object]]) -> bytes:
    """The sha256 of a round's content in format 2: ``fields`` are :data:`ROUND2_FIELDS` in order,
    ``events_text`` the events' part (:data:`EVENT2_TEXT_SQL`, in seq order), the derived rows
    as stored (settlements and rulings in index order, players in order of their names' UTF-8)."""
    parts = ["2", US, *(field2(v) for v in fields), events_text, GS]
    parts.extend(field2(v) for row in settlements for v in row)
    parts.append(GS)
    parts.extend(field2(v) for row in rulings for v in row)
    parts.append(GS)
    parts.extend(field2(v) for row in players for v in row)
    return hashlib.sha256("".join(parts).encode("utf-8")).digest()


#: SQLite text of one row of a station store's ``events`` in format 2, and whether its free text
#: is plain (no separator).
EVENT2_TEXT_SQL = (
    "seq || char(31) || id || char(31) || at || char(31) || actor || char(31) || event_json || char(31) || "
    "lower(hex(hash)) || char(31)"
)
EVENT2_PLAIN_SQL = (
    "(instr(at || actor || event_json, char(28)) + instr(at || actor || event_json, char(29)) + "
    "instr(at || actor || event_json, char(30)) + instr(at || actor || event_json, char(31))) = 0"
)


def _sql_fields2(fields: Sequence[tuple[str, bool]]) -> str:
    # every field followed by US (concat_ws puts it between, one more after); NULL as RS
    return ("(concat_ws(chr(31), " + ", ".join(f"coalesce({e}, chr(30))" if nullable else e for e, nullable in fields)
            + ") || chr(31))")


#: The round's own fields in format 2 (what :func:`round_digest2`'s ``fields`` are), as SQL on ``r``.
ROUND2_FIELDS = (
    ("r.table_name", False), ("r.round_id::text", False), ("r.session_id::text", True), ("r.number::text", False),
    ("r.source", False), ("r.game", False), ("r.config_json", False), (_TIME.format("r.started_at"), False),
    (_TIME.format("r.ended_at"), True), ("r.status", False), ("r.result_json", True),
    ("encode(r.station_link, 'hex')", False), ("r.players_json", False), ("r.totals_json", False),
    ("r.wagered::text", False), ("r.house_net::text", False),
)
ROUND2_FIELDS_SQL = "('2' || chr(31) || " + _sql_fields2(ROUND2_FIELDS) + ")"
EVENT2_FIELDS_SQL = _sql_fields2((("e.seq::text", False), ("e.station_event_id::text", False), ("e.at", False),
                                  ("e.actor", False), ("e.event_json", False), ("encode(e.station_link, 'hex')", False)))
SETTLEMENT2_FIELDS_SQL = _sql_fields2((
    ("s.idx::text", False), ("s.player", False), ("s.area::text", True), ("s.hand::text", True), ("s.bet", False),
    ("s.stake::text", False), ("s.result", False), ("s.net::text", False), ("s.rule", True), ("s.stage", True)))
RULING2_FIELDS_SQL = _sql_fields2((
    ("u.idx::text", False), ("u.event_index::text", True), ("u.rule", True), ("u.ruling", True), ("u.text", True),
    ("u.moves_json", True)))
PLAYER2_FIELDS_SQL = _sql_fields2((("q.player", False), ("q.net::text", True), ("q.wagered::text", True)))


# ---- audit format 2 (issue 35, item 7; migration 0016_audit_format)
#
# Format 1 digests an audit entry as a compact JSON array (AUDIT_DIGEST_SQL: every string through
# to_json, which escapes it character by character). Audit format 2 writes the entry as a round's
# fields are written in format 2 —
#
#     "2" US  table, audit id, time, actor, kind, round id (RS for none), detail JSON, station link
#             (hex), each followed by US
#
# — unambiguous under the same condition (no U+001C..U+001F in any field: the forwarder writes an
# entry whose time, actor, kind or detail holds one in format 1), and never taken for format 1
# (whose text starts with '['). The format is recorded per entry (floor.audit.chain_format).


def audit_digest2(table: str, audit_id: int, at: str, actor: str, kind: str, round_id: int | None,
                  detail_json: str, station_link: bytes) -> bytes:
    fields = (table, audit_id, at, actor, kind, round_id, detail_json, station_link.hex())
    return hashlib.sha256(("2" + US + "".join(field2(v) for v in fields)).encode("utf-8")).digest()


#: SQL giving :func:`audit_digest2` for the row ``a`` of ``floor.audit``.
AUDIT2_DIGEST_SQL = (
    "sha256(convert_to('2' || chr(31) || " + _sql_fields2((
        ("a.table_name", False), ("a.audit_id::text", False), ("a.at", False), ("a.actor", False),
        ("a.kind", False), ("a.round_id::text", True), ("a.detail_json", False),
        ("encode(a.station_link, 'hex')", False))) + ", 'UTF8'))"
)
