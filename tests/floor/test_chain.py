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
