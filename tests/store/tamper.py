"""Every way of editing a store file by hand, for the tamper test (issue 15).

``build(path)`` records a store the way the table does: users and PINs, two sessions,
real rounds of all five games, an under-minimum wager (5.26), a misdeal void, a round
referred to the Gaming Shift Manager and resumed (rulings), a transcript recorded by
``settle --record``, a note, and a round still in play. ``cases(ids)`` lists the edits:
every column of every table (each changed on one row), rows deleted, inserted, reordered,
the newest records cut off, and the whole file rolled back. ``python -m tests.store.tamper``
prints what ``verify`` says about each (the list in docs/store.md).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealer_assist.bench.store import PLACEHOLDERS, real_round
from dealer_assist.engine.transcript import settle_document
from dealer_assist.store import Store, StoreError
from dealer_assist.store.users import TEST_PIN_COST

Edit = Callable[[sqlite3.Connection], None]
SUE_PIN = "482913"


@dataclass(frozen=True)
class Case:
    name: str
    edit: Edit | None = None  # SQL edit on the copied file
    file_edit: Callable[[Path, dict[str, Any]], None] | None = None  # edits of the files themselves


REFERRED = [
    {"type": "wager", "player": "bob", "area": 2, "bet": "main", "amount": 10},
    {"type": "wager", "player": "carol", "area": 3, "bet": "main", "amount": 10},
    {"type": "no_more_bets"},
    *({"type": "card", "card": c} for c in ("5C", "9H", "KD", "6S", "8D")),
    {"type": "decision", "action": "hit", "area": 2},
    {"type": "card", "card": "9C"},
    {"type": "decision", "action": "stand", "area": 2},
    {"type": "correction", "index": 9, "to": "discard"},
    {"type": "resolve", "ruling": "continue", "text": "card stands"},
    {"type": "decision", "action": "stand", "area": 3},
    {"type": "card", "card": "7C"},
]
UNDER_MIN = [  # dan's 5 is under the table minimum of 10: settled (5.26), remembered
    {"type": "wager", "player": "dan", "area": 1, "bet": "main", "amount": 5},
    {"type": "wager", "player": "eve", "area": 2, "bet": "main", "amount": 20},
    {"type": "no_more_bets"},
    *({"type": "card", "card": c} for c in ("10H", "9C", "7D", "QS", "8H")),
    {"type": "decision", "action": "stand", "area": 1},
    {"type": "decision", "action": "stand", "area": 2},
    {"type": "card", "card": "9S"},
    {"type": "card", "card": "9S"},
]
VOID = [
    {"type": "wager", "player": "amy", "area": 1, "bet": "main", "amount": 10},
    {"type": "no_more_bets"},
    {"type": "void", "reason": "misdeal", "rule": "5.2"},
]


def _live(store: Store, session: int, config: dict[str, Any], events: list[dict[str, Any]]) -> int:
    """As the dealer's screen records a round: its start in one write, then each event,
    the last one with the settle output; a void, a correction and a resolve each with the
    supervisor's approval."""
    start = next(i for i, e in enumerate(events) if e["type"] in ("no_more_bets", "void")) + 1
    rid = store.start_round(config, events[:start], session_id=session, actor="dealer:ann")
    for n in range(start, len(events)):
        last = n == len(events) - 1
        result = settle_document({**config, "events": events}) if last else None
        approval = None
        if events[n]["type"] in ("void", "correction", "resolve"):
            check = store.authorise("sue", SUE_PIN, kind=events[n]["type"], round_id=rid)
            assert check.ok
            approval = check.approval
        store.append_event(rid, events[n], actor="dealer:ann", result=result, approval=approval)
    return rid


def build(path: Path) -> dict[str, Any]:
    import random

    ids: dict[str, Any] = {}
    rng = random.Random(15)
    with Store.open(path, pin_cost=TEST_PIN_COST) as store:
        store.claim_table("BJ-07", "pit 1", actor="setup")
        store.create_user("sue", SUE_PIN, ["supervisor"])
        store.create_user("ann", "190482", ["dealer"])
        store.create_user("bob", "275913", ["dealer", "supervisor"])
        store.set_pin("ann", "604817")
        store.set_user_disabled("bob", True)
        assert not store.check_pin("ann", "000001", role="dealer", purpose="login").ok  # counted (lockout)
        s1 = store.start_session(game="lucky8", decks=6, areas=7, limits={"main": [10, 5000]}, dealer="ann")
        ids["session_ended"] = s1
        for game in ("lucky8", "ace_race", "star_elements", "dueling8s", "electronic"):
            config, events, _ = real_round(game, rng)
            text = json.dumps({"config": config, "events": events})
            for i, placeholder in enumerate(PLACEHOLDERS):
                text = text.replace(placeholder, f"player{i}")
            doc = json.loads(text)
            ids[game] = _live(store, s1, doc["config"], doc["events"])
        lucky8 = {"game": "lucky8", "decks": 6, "areas": 7, "limits": {"main": [10, 5000]}}
        ids["under_min"] = _live(store, s1, lucky8, UNDER_MIN)
        ids["void"] = _live(store, s1, {"game": "ace_race", "decks": 6, "areas": 7}, VOID)
        ids["referred"] = _live(store, s1, {"game": "lucky8", "decks": 6, "areas": 7}, REFERRED)
        store.end_session(s1, actor="ann")
        renamed = json.loads(json.dumps(UNDER_MIN).replace('"dan"', '"fay"').replace('"eve"', '"gus"'))
        transcript = {"game": "lucky8", "decks": 6, "areas": 7, "events": renamed}
        ids["transcript"] = store.record_document(transcript, settle_document(transcript))
        s2 = store.start_session(game="lucky8", decks=6, areas=7, limits={"main": [10, 5000]}, dealer="ann")
        ids["session_open"] = s2
        ids["note"] = store.add_note(ids["referred"], author="supervisor:sue", text="checked")
        ids["open"] = store.start_round(lucky8, UNDER_MIN[:3], session_id=s2, actor="dealer:ann")
        store.append_event(ids["open"], UNDER_MIN[3], actor="dealer:ann")
        ids["key"] = str(store.key_path)
        ids["head"] = str(store.head_path)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return ids


# ------------------------------------------------------------------ the edits


def _changed(value: Any, declared: str) -> Any:
    """A different value of the same kind (valid JSON stays valid JSON)."""
    if value is None:
        return 1 if "INT" in declared.upper() else "2026-01-01T00:00:00.000000Z"
    if isinstance(value, bytes):
        return bytes([value[0] ^ 1]) + value[1:]
    if isinstance(value, int):
        if declared == "row id":
            return value + 100000
        return 1 - value if value in (0, 1) else value + 1
    text = str(value)
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        if data:
            first = next(iter(data))
            data[first] = (data[first] + 1) if isinstance(data[first], int) and not isinstance(
                data[first], bool) else "changed"
        else:
            data = {"alice": 1500}
        return json.dumps(data, separators=(",", ":"))
    if isinstance(data, list):
        return json.dumps([*data, "mallory"], separators=(",", ":"))
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return str(data + 1)
    if text in ("dealer", "supervisor"):
        return "supervisor" if text == "dealer" else "dealer"
    if text in ("settled", "void", "in_progress", "referred"):
        return "void" if text != "void" else "settled"
    if text in ("live", "transcript"):
        return "transcript" if text == "live" else "live"
    if text in ("final", "interim"):
        return "interim" if text == "final" else "final"
    if text.endswith("Z"):
        return text[:-2] + ("1Z" if text[-2] != "1" else "2Z")
    return text + "x"


def _column_edit(table: str, column: str, where: str, declared: str) -> Edit:
    def edit(conn: sqlite3.Connection) -> None:
        row = conn.execute(f"SELECT {column} FROM {table} WHERE {where} LIMIT 1").fetchone()
        assert row is not None, f"no {table} row where {where}"
        new = _changed(row[0], declared if column != "id" else "row id")
        assert new != row[0]
        try:
            done = conn.execute(f"UPDATE {table} SET {column} = ? WHERE {where}", (new,))
        except sqlite3.IntegrityError:  # that value is taken (a unique key): one far away
            new = row[0] + 1000 if isinstance(row[0], int) else f"{row[0]}-changed"
            done = conn.execute(f"UPDATE {table} SET {column} = ? WHERE {where}", (new,))
        assert done.rowcount >= 1

    return edit


def _sql(*statements: str) -> Edit:
    def edit(conn: sqlite3.Connection) -> None:
        for statement in statements:
            conn.execute(statement)

    return edit


def _rows_of(ids: dict[str, Any]) -> dict[str, str]:
    """The row each table's columns are changed on."""
    rid = ids["under_min"]
    return {
        "sessions": f"id = {ids['session_ended']}",
        "rounds": f"id = {rid}",
        "round_players": f"round_id = {rid} AND player = 'dan'",
        "events": f"round_id = {rid} AND seq = 0",
        "settlements": f"id = (SELECT MIN(id) FROM settlements WHERE round_id = {rid})",
        "rulings": f"id = (SELECT MIN(id) FROM rulings WHERE round_id = {ids['referred']})",
        "under_min_history": "player = 'dan'",
        "users": "username = 'ann'",
        "user_roles": "username = 'ann'",
        "audit": f"id = (SELECT MAX(id) FROM audit WHERE kind = 'round_finish' AND round_id = {rid})",
        "head": "id = 1",
        "meta": "name = 'key_id'",
        "_sqlite_migrations": "name = '0004_keyed_chains'",
        "table_identity": "id = 1",
        "pin_failures": "username = 'ann'",
        "authority_since": "1 = 1",
    }


def cases(path: Path, ids: dict[str, Any]) -> list[Case]:
    out: list[Case] = []
    rows = _rows_of(ids)
    with sqlite3.connect(path) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        columns = {t: [(r[1], r[2]) for r in conn.execute(f"PRAGMA table_info({t})")] for t in tables}
    assert set(tables) == set(rows), f"a table without a tamper case: {set(tables) ^ set(rows)}"
    for table in tables:
        for column, declared in columns[table]:
            out.append(Case(f"edit {table}.{column}", _column_edit(table, column, rows[table], declared)))
    r, ref, opn, fin = ids["under_min"], ids["referred"], ids["open"], ids["transcript"]
    # the changes the issue names, on the rows it names
    out += [
        Case("edit rounds.totals_json to give bob +1500",
             _sql(f"UPDATE rounds SET totals_json = '{{\"dan\":5,\"bob\":1500}}' WHERE id = {r}")),
        Case("edit rounds.ended_at of the round in play", _column_edit("rounds", "ended_at", f"id = {opn}", "TEXT")),
        Case("edit rounds.irregular of a void round", _sql(f"UPDATE rounds SET irregular = 0 WHERE id = {ids['void']}")),
        Case("edit rounds.players_json of the round in play",
             _sql(f"UPDATE rounds SET players_json = '[\"dan\"]' WHERE id = {opn}")),
        Case("edit settlements.rule", _sql(f"UPDATE settlements SET rule = '4.1' WHERE round_id = {r}")),
        Case("edit settlements.stage", _sql(f"UPDATE settlements SET stage = 'interim' WHERE round_id = {r}")),
        Case("edit settlements.area", _sql(f"UPDATE settlements SET area = 4 WHERE round_id = {r}")),
        Case("edit sessions.dealer", _sql(f"UPDATE sessions SET dealer = 'mallory' WHERE id = {ids['session_open']}")),
        Case("a dealer made supervisor (user_roles)", _sql("INSERT INTO user_roles VALUES ('ann', 'supervisor')")),
        Case("a PIN hash swapped (users)",
             _sql("UPDATE users SET pin_hash = (SELECT pin_hash FROM users WHERE username = 'sue'), "
                  "pin_salt = (SELECT pin_salt FROM users WHERE username = 'sue') WHERE username = 'ann'")),
        Case("a user enabled again (users.disabled)", _sql("UPDATE users SET disabled = 0 WHERE username = 'bob'")),
        # the seal takes these stored bytes as they are (format 2): a change of type or of
        # where one value ends and the next begins must still show
        Case("an event's chain hash stored as text of the same bytes", _sql(
            f"UPDATE events SET hash = CAST(hash AS TEXT) WHERE round_id = {r} AND seq = 1")),
        Case("one byte moved from an event's chain hash to the next one's", _sql(
            f"UPDATE events SET hash = CAST(substr((SELECT hash FROM events WHERE round_id = {r} AND seq = 1), 32, 1) "
            f"|| hash AS BLOB) WHERE round_id = {r} AND seq = 2",
            f"UPDATE events SET hash = substr(hash, 1, 31) WHERE round_id = {r} AND seq = 1")),
        Case("a settle output stored as a BLOB of the same bytes", _sql(
            f"UPDATE rounds SET result_json = CAST(result_json AS BLOB) WHERE id = {r}")),
    ]
    # rows inserted
    out += [
        Case("insert a ruling", _sql(
            f"INSERT INTO rulings (round_id, event_index, rule, ruling, text, moves_json) "
            f"VALUES ({r}, 3, '5.2', 'void', 'forged', '[]')")),
        Case("insert a settlement of round 1.5 (no round's)", _sql(
            "INSERT INTO settlements (round_id, player, area, hand, bet, stake, result, net) "
            "VALUES (1.5, 'mallory', 1, 1, 'main', '10', 'win', '10')")),
        Case("insert a settlement", _sql(
            f"INSERT INTO settlements (round_id, player, area, hand, bet, stake, result, net, rule, stage) "
            f"VALUES ({r}, 'dan', 1, 1, 'main', '5', 'win', '500', '4.3.3', 'final')")),
        Case("insert a round_players row (player filter)",
             _sql(f"INSERT INTO round_players VALUES ('mallory', {r}, '1000')")),
        Case("insert a 5.26 history row", _sql(
            f"INSERT INTO under_min_history VALUES ('mallory', {r}, '2026-01-01T00:00:00.000000Z')")),
        Case("insert a session", _sql(
            "INSERT INTO sessions (game, limits_json, started_at) VALUES ('lucky8', '{}', '2026-01-01T00:00:00.000000Z')")),
        Case("insert a user", _sql(
            "INSERT INTO users (username, pin_hash, pin_salt, scrypt_n, scrypt_r, scrypt_p, created_at, disabled) "
            "VALUES ('mallory', x'00', x'00', 16384, 8, 1, '2026-01-01T00:00:00.000000Z', 0)")),
    ]
    # rows deleted (first, middle and newest of each)
    for table, where in (
        ("sessions", f"id = {ids['session_ended']}"),
        ("rounds", f"id = {r}"),
        ("round_players", f"round_id = {r} AND player = 'dan'"),
        ("events", f"round_id = {r} AND seq = 3"),
        ("settlements", f"id = (SELECT MIN(id) FROM settlements WHERE round_id = {r})"),
        ("rulings", f"round_id = {ref}"),
        ("under_min_history", "player = 'dan'"),
        ("users", "username = 'sue'"),
        ("user_roles", "username = 'sue'"),
        ("audit", "id = 1"),
        ("head", "id = 1"),
        ("meta", "name = 'chain_scheme'"),
        ("table_identity", "id = 1"),
        ("pin_failures", "username = 'ann'"),
        ("authority_since", "1 = 1"),
    ):
        out.append(Case(f"delete a {table} row", _sql(f"DELETE FROM {table} WHERE {where}")))
    # reordered
    out += [
        Case("reorder two events of a round (swap seq)", _sql(
            f"UPDATE events SET seq = -1 WHERE round_id = {r} AND seq = 3",
            f"UPDATE events SET seq = 3 WHERE round_id = {r} AND seq = 4",
            f"UPDATE events SET seq = 4 WHERE round_id = {r} AND seq = -1")),
        Case("reorder a round's settlement rows", _sql(
            f"UPDATE settlements SET id = (SELECT MAX(id) FROM settlements) + 1 WHERE id = "
            f"(SELECT MIN(id) FROM settlements WHERE round_id = {r})")),
        Case("reorder two audit rows (swap ids)", _sql(
            "UPDATE audit SET id = -1 WHERE id = 2", "UPDATE audit SET id = 2 WHERE id = 3",
            "UPDATE audit SET id = 3 WHERE id = -1")),
    ]
    # the newest records cut off
    out += [
        Case("truncate: the trailing audit rows", _sql("DELETE FROM audit WHERE id > (SELECT MAX(id) - 3 FROM audit)")),
        Case("truncate: the open round", _sql(
            f"DELETE FROM events WHERE round_id = {opn}", f"DELETE FROM round_players WHERE round_id = {opn}",
            f"DELETE FROM rounds WHERE id = {opn}")),
        Case("truncate: the last finished round with its finish record", _sql(
            f"DELETE FROM events WHERE round_id = {fin}", f"DELETE FROM settlements WHERE round_id = {fin}",
            f"DELETE FROM rulings WHERE round_id = {fin}", f"DELETE FROM round_players WHERE round_id = {fin}",
            f"DELETE FROM audit WHERE round_id = {fin}", f"DELETE FROM rounds WHERE id = {fin}")),
        Case("truncate: the newest events and the head record", _sql(
            f"DELETE FROM events WHERE round_id = {opn} AND seq > 2", "DELETE FROM head")),
        Case("rolled back: the whole file replaced by an older copy", file_edit=_roll_back),
        Case("the head record outside the file deleted", file_edit=_drop_head),
        Case("another station key", file_edit=_other_key),
    ]
    return out


def _roll_back(path: Path, ids: dict[str, Any]) -> None:
    older = path.with_name("older.db")
    shutil.copyfile(path, older)  # a copy taken now (no program has the file open)
    with Store.open(path, key_file=ids["key"]) as store:
        store.add_note(None, author="supervisor:sue", text="after the copy")
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    shutil.copyfile(older, path)  # ... put back later


def _drop_head(path: Path, ids: dict[str, Any]) -> None:
    Path(ids["head"]).unlink()


def _other_key(path: Path, ids: dict[str, Any]) -> None:
    Path(ids["key"]).write_bytes(bytes(range(32)))


def run_case(case: Case, template: Path, ids: dict[str, Any], work: Path, **options: Any) -> str | None:
    """Apply ``case`` to a fresh copy of the store (with its key and head); what verify
    (with ``options``: ``jobs``, ``resettle``) says (None: it said the file is intact)."""
    work.mkdir(parents=True, exist_ok=True)
    path = work / "table.db"
    shutil.copyfile(template, path)  # the template is checkpointed and closed
    key = work / "table.db.key"
    shutil.copyfile(ids["key"], key)
    shutil.copyfile(ids["head"], key.with_name(key.name + ".head"))
    local = {**ids, "key": str(key), "head": str(key.with_name(key.name + ".head"))}
    if case.edit is not None:
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA ignore_check_constraints = ON")
        with conn:
            case.edit(conn)
        conn.close()
    if case.file_edit is not None:
        case.file_edit(path, local)
    try:
        with Store.open_readonly(path, key_file=key) as store:
            result = store.verify(**options)
    except StoreError as err:
        return f"refused to open: {err}"
    return None if result.ok else result.problem


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        template = Path(tmp) / "template.db"
        ids = build(template)
        print("| Edit | What `verify` says |")
        print("|---|---|")
        for n, case in enumerate(cases(template, ids)):
            said = run_case(case, template, ids, Path(tmp) / f"case{n}")
            text = (said or "**NOT DETECTED**").replace(str(tmp), "…").replace("|", "\\|")
            print(f"| {case.name} | {text} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
