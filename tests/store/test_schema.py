"""Migrations from an empty file, file identity, pragmas (WAL, synchronous=FULL)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from dealer_assist.store import APPLICATION_ID, KNOWN_MIGRATIONS, MIGRATION_SET, Store, StoreError

TABLES = {
    "head",
    "meta",
    "table_identity",
    "sessions",
    "rounds",
    "round_players",
    "events",
    "settlements",
    "rulings",
    "under_min_history",
    "users",
    "user_roles",
    "pin_failures",
    "authority_since",
    "audit",
    "_sqlite_migrations",
}


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
            )
        }


def test_new_file_is_migrated_from_empty(db_path: Path) -> None:
    assert not db_path.exists()
    with Store.open(db_path) as store:
        assert store.db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        # 2 = FULL: every commit is fsynced before it returns.
        assert store.db.conn.execute("PRAGMA synchronous").fetchone()[0] == 2
    assert _tables(db_path) == TABLES
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        applied = conn.execute(
            "SELECT migration_set, name FROM _sqlite_migrations ORDER BY id"
        ).fetchall()
    assert applied == [(MIGRATION_SET, name) for name in (
        "0001_initial", "0002_rounds_game_index", "0003_session_table", "0004_keyed_chains",
        "0005_table_identity", "0006_accounts", "0007_round_players_by_round", "0008_rounds_by_shoe")]


def test_a_file_from_the_first_version_is_migrated_on_open(db_path: Path) -> None:
    # A store written before 0002 existed: its rounds keep, and the game index is added.
    with Store.open(db_path) as store:
        store.begin_round({"game": "lucky8", "decks": 6, "areas": 7})
    with sqlite3.connect(db_path) as conn:
        conn.execute("DROP INDEX rounds_game")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = '0002_rounds_game_index'")
    with Store.open(db_path) as store:
        assert store.round_count() == 1
    with sqlite3.connect(db_path) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM _sqlite_migrations ORDER BY id")]
        index = conn.execute("SELECT name FROM sqlite_master WHERE name = 'rounds_game'").fetchone()
    assert sorted(names) == sorted(KNOWN_MIGRATIONS) and names[-1] == "0002_rounds_game_index"
    assert index is not None


def test_reopening_applies_nothing_twice_and_keeps_data(db_path: Path) -> None:
    with Store.open(db_path) as store:
        round_id = store.begin_round({"game": "lucky8", "decks": 6, "areas": 7})
        store.append_event(round_id, {"type": "no_more_bets"})
    with Store.open(db_path) as store:
        assert store.events(round_id) == [{"type": "no_more_bets"}]
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM _sqlite_migrations").fetchone()[0] == len(KNOWN_MIGRATIONS)


def test_an_empty_file_becomes_a_store(db_path: Path) -> None:
    db_path.write_bytes(b"")
    with Store.open(db_path) as store:
        assert store.round_count() == 0
    assert _tables(db_path) == TABLES


def test_default_location_is_the_user_data_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    import platformdirs

    from dealer_assist.store import default_db_path

    path = default_db_path("table 7")
    assert path.parent == Path(platformdirs.user_data_dir("dealer-assist"))
    assert path.name == "table_7.db"


def test_writer_refuses_a_foreign_sqlite_file_without_touching_it(tmp_path: Path) -> None:
    foreign = tmp_path / "other.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE customers (name TEXT)")
    before = foreign.read_bytes()
    with pytest.raises(StoreError, match="not a Dealer Assist database"):
        Store.open(foreign)
    assert foreign.read_bytes() == before
    assert not Path(f"{foreign}-wal").exists()


def test_writer_refuses_a_file_that_is_not_sqlite(tmp_path: Path) -> None:
    text = tmp_path / "notes.db"
    text.write_text("not a database\n")
    with pytest.raises(StoreError, match="not a SQLite database"):
        Store.open(text)
    assert text.read_text() == "not a database\n"


def test_a_newer_schema_is_refused(db_path: Path) -> None:
    Store.open(db_path).close()
    with sqlite3.connect(db_path) as conn:
        conn.execute(
            "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES (?, ?, ?)",
            (MIGRATION_SET, "9999_from_the_future", "2030-01-01"),
        )
    with pytest.raises(StoreError, match="newer Dealer Assist"):
        Store.open(db_path)
    with pytest.raises(StoreError, match="newer Dealer Assist"):
        Store.open_readonly(db_path)


def test_readonly_store_cannot_write(db_path: Path) -> None:
    Store.open(db_path).close()
    with Store.open_readonly(db_path) as reader:
        with pytest.raises(StoreError, match="read-only"):
            reader.begin_round({"game": "lucky8"})


def test_readonly_open_of_a_missing_file_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "missing.db"
    with pytest.raises(StoreError, match="no such file"):
        Store.open_readonly(missing)
    assert list(tmp_path.iterdir()) == []


def _unkeyed(path: Path) -> None:
    """Turn a store into one written before the chains were keyed (0003): sha256 chains,
    finish and session/user records in their old form, no meta, head or key."""
    import hashlib
    import json

    key = Path(str(path) + ".key")
    key.unlink()
    Path(str(key) + ".head").unlink()
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE meta")
        conn.execute("DROP TABLE head")
        conn.execute("DROP INDEX audit_finish")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = '0004_keyed_chains'")
        for table, columns in (("events", "id, round_id, seq, at, actor, event_json"),
                               ("rounds", "id, session_id, number, source, started_at, config_json"),
                               ("audit", "id, at, actor, kind, round_id, detail_json")):
            if table == "audit":  # the old record forms, naming the old (sha256) last event
                for row_id, round_id, text in conn.execute(
                        "SELECT id, round_id, detail_json FROM audit").fetchall():
                    detail = {k: v for k, v in json.loads(text).items()
                              if k not in ("ended_at", "under_min", "session_state", "user_state")}
                    if detail.get("events"):
                        detail["last_event_hash"] = conn.execute(
                            "SELECT hash FROM events WHERE round_id = ? AND seq = ?",
                            (round_id, detail["events"] - 1)).fetchone()[0].hex()
                    conn.execute("UPDATE audit SET detail_json = ? WHERE id = ?",
                                 (json.dumps(detail, separators=(",", ":")), row_id))
            prev = bytes(32)
            for row in conn.execute(f"SELECT {columns} FROM {table} ORDER BY id").fetchall():
                text = json.dumps(list(row), separators=(",", ":"), ensure_ascii=False)
                prev = hashlib.sha256(prev + text.encode()).digest()
                conn.execute(f"UPDATE {table} SET hash = ? WHERE id = ?", (prev, row[0]))


def _recorded_store(db_path: Path) -> None:
    from tests.store.conftest import EXAMPLE_NAMES, example_result, load_example

    with Store.open(db_path) as store:
        store.create_user("sue", "482113", ["supervisor"])
        sid = store.start_session(game="lucky8", decks=6, areas=7, dealer="ann")
        for name in EXAMPLE_NAMES:
            store.record_document(load_example(name), example_result(name))
        store.end_session(sid)


def test_a_store_from_before_keyed_chains_is_keyed_on_open(db_path: Path) -> None:
    _recorded_store(db_path)
    _unkeyed(db_path)
    assert not Path(str(db_path) + ".key").exists()
    with Store.open(db_path) as store:
        assert Path(str(db_path) + ".key").stat().st_mode & 0o777 == 0o600
        keyed = store.audit_entries(kind="store_keyed")
        assert [e.detail["unkeyed_chains"] for e in keyed] == ["intact"]
        assert [e.detail["username"] for e in store.audit_entries(kind="user_snapshot")] == ["sue"]
        assert len(store.audit_entries(kind="session_snapshot")) == 1
        result = store.verify()
        assert result.ok, result.problem
        assert result.rounds == 3
    with Store.open_readonly(db_path) as reader:
        assert reader.verify().ok


def test_an_edit_made_before_keying_is_recorded_when_keying(db_path: Path) -> None:
    _recorded_store(db_path)
    _unkeyed(db_path)
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE events SET actor = 'mallory' WHERE id = 3")
    with Store.open(db_path) as store:
        [keyed] = store.audit_entries(kind="store_keyed")
        # the unkeyed chain was already broken: said in the (now keyed) audit log
        assert "events row 3" in keyed.detail["unkeyed_chains"]
