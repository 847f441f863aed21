"""The round digest written by SQLite (the forwarder) is the one Python writes, for any text."""

from __future__ import annotations

import sqlite3

from dealer_assist.floor import chain


def test_sqlite_event_text_gives_the_python_round_digest() -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, round_id INTEGER, seq INTEGER, at TEXT, "
               "actor TEXT, event_json TEXT, hash BLOB)")
    rows = [
        (7, 3, 0, "2026-11-26T09:00:00.000001Z", "dealer:ann", '{"type":"no_more_bets"}', bytes(range(32))),
        # non-ASCII (a reason in French, a suit sign, a 4-byte emoji): lengths in characters
        (12, 3, 1, "2026-11-26T09:00:01.000000Z", "supervisor:zoë",
         '{"type":"void","text":"réclamation ♠ 🂡"}', bytes([255] * 32)),
        (1000, 3, 10, "2026-11-26T09:00:02.500000Z", "dealer:ann", '{"type":"card","card":"9C"}', b"\x00" * 32),
    ]
    db.executemany("INSERT INTO events (id, round_id, seq, at, actor, event_json, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   rows)
    pieces = [r[0] for r in db.execute(f"SELECT {chain.EVENT_TEXT_SQL} FROM events ORDER BY seq")]
    head = ("BJ-07", 3, 1, 4, "live", "lucky8", '{"game":"lucky8","decks":6}', "2026-11-26T09:00:00.000000Z",
            None, "settled", '{"net":{"zoë":5}}', b"\x11" * 32)
    events = [(seq, sid, at, actor, text, link) for sid, _rid, seq, at, actor, text, link in rows]
    assert chain.round_digest_text(*head, "".join(pieces)) == chain.round_digest(*head, events)
    # the encoding itself, for the second event: "1:1;2:12;27:...;14:supervisor:zoë;" ...
    assert pieces[1].startswith("1:1;2:12;27:2026-11-26T09:00:01.000000Z;14:supervisor:zoë;")
    assert pieces[1].endswith(";64:" + "ff" * 32 + ";")


def test_the_servers_round_and_audit_digests_are_pythons_for_any_text(floor) -> None:  # type: ignore[no-untyped-def]
    """verify has the server digest rounds, events and audit entries (chain.ROUND_FIELDS_SQL,
    EVENT_FIELDS_SQL, AUDIT_DIGEST_SQL): the same bytes as the forwarder's Python digests, for
    NULLs, non-ASCII text, quotes, backslashes and control characters."""
    import datetime as dt

    import psycopg

    tricky = 'répété "quoted" back\\slash\nnew\tline \x01\x1f\x7f ♠ 🂡 \u2028'
    events = [(0, 7, "2026-11-26T09:00:00.000001Z", "dealer:ann", '{"type":"no_more_bets"}', bytes(range(32))),
              (1, 12, "2026-11-26T09:00:01.000000Z", "supervisor:zoë", '{"text":"' + tricky + '"}', b"\xff" * 32)]
    started = dt.datetime(2026, 11, 26, 9, 0, 0, 1, tzinfo=dt.UTC)
    rounds = [  # (session, end, result): NULLs where a round may have them
        (None, None, None),
        (4, started + dt.timedelta(seconds=50), '{"net":{"zoë":5},"text":"' + tricky + '"}'),
    ]
    with psycopg.connect(floor.admin_url) as conn:
        for session, ended, result in rounds:
            row = conn.execute(
                f"SELECT sha256(convert_to({chain.ROUND_FIELDS_SQL} || (SELECT string_agg({chain.EVENT_FIELDS_SQL}, '' "
                "ORDER BY e.seq) FROM (VALUES (0, 7::bigint, %s, %s, %s, %s::bytea), (1, 12, %s, %s, %s, %s)) "
                "e(seq, station_event_id, at, actor, event_json, station_link)), 'UTF8')) "
                "FROM (VALUES ('BJ-07', 3::bigint, %s::bigint, 1, 'live', 'lucky8', %s, %s::timestamptz, "
                "%s::timestamptz, 'settled', %s, %s::bytea)) r(table_name, round_id, session_id, number, source, game, "
                "config_json, started_at, ended_at, status, result_json, station_link)",
                (*events[0][2:], *events[1][2:], session, '{"game":"lucky8","x":"' + tricky + '"}', started, ended,
                 result, b"\x11" * 32)).fetchone()
            assert row is not None
            expected = chain.round_digest(
                "BJ-07", 3, session, 1, "live", "lucky8", '{"game":"lucky8","x":"' + tricky + '"}',
                "2026-11-26T09:00:00.000001Z", None if ended is None else "2026-11-26T09:00:50.000001Z", "settled",
                result, b"\x11" * 32, events)
            assert bytes(row[0]) == expected
        for round_id, actor in ((None, "dealer:ann"), (17, "supervisor:" + tricky)):
            content = ("BJ-07", 5, "2026-11-26T09:00:02.000000Z", actor, "round_finish", round_id,
                       '{"why":"' + tricky.replace("\\", "\\\\").replace('"', '\\"') + '"}', b"\xab" * 32)
            row = conn.execute(
                f"SELECT {chain.AUDIT_DIGEST_SQL} FROM (VALUES (%s, %s::bigint, %s, %s, %s, %s::bigint, %s, "
                "%s::bytea)) a(table_name, audit_id, at, actor, kind, round_id, detail_json, station_link)",
                content).fetchone()
            assert row is not None and bytes(row[0]) == chain.digest(chain.audit_content(*content))
            # audit format 2 (0016) writes only entries with no separator (U+001C..U+001F) in them
            plain = tuple(v.replace("\x1f", "") if isinstance(v, str) else v for v in content)
            row = conn.execute(
                f"SELECT {chain.AUDIT2_DIGEST_SQL} FROM (VALUES (%s, %s::bigint, %s, %s, %s, %s::bigint, %s, "
                "%s::bytea)) a(table_name, audit_id, at, actor, kind, round_id, detail_json, station_link)",
                plain).fetchone()
            assert row is not None and bytes(row[0]) == chain.audit_digest2(*plain)


def test_audit_format_2_text() -> None:
    """An entry in audit format 2 is "2", then each field followed by U+001F (no round: U+001E),
    the station link in hex (docs/floor.md, Tamper evidence: the text written out by hand here)."""
    import hashlib

    text = ("2\x1fBJ-07\x1f5\x1f2026-11-26T09:00:02.000000Z\x1fdealer:zoë\x1fsession_end\x1f\x1e\x1f"
            '{"session_id":4}\x1f' + "ab" * 32 + "\x1f")
    assert chain.audit_digest2("BJ-07", 5, "2026-11-26T09:00:02.000000Z", "dealer:zoë", "session_end", None,
                               '{"session_id":4}', b"\xab" * 32) == hashlib.sha256(text.encode("utf-8")).digest()
