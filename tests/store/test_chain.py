"""Tamper evidence: hash chains over events, round headers and the audit log."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from dealer_assist.store import Store
from tests.store.conftest import EXAMPLE_NAMES, example_result, load_example


@pytest.fixture
def recorded(db_path: Path) -> Path:
    with Store.open(db_path) as store:
        for name in EXAMPLE_NAMES:
            store.record_document(load_example(name), example_result(name))
        store.add_note(1, author="sup", text="checked")
        open_round = store.begin_round({"game": "lucky8", "decks": 6})
        store.append_event(open_round, {"type": "no_more_bets"})
    return db_path


def _verify_cli(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dealer_assist", "history", "--db", str(path), "verify"],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _edit(path: Path, sql: str, *params: object) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(sql, params)


def test_intact_file_verifies(recorded: Path) -> None:
    with Store.open_readonly(recorded) as store:
        result = store.verify()
    assert result.ok and result.problem is None
    total_events = sum(len(load_example(n)["events"]) for n in EXAMPLE_NAMES) + 1
    assert result.events == total_events
    assert result.rounds == 4
    assert result.audit == 4  # three round_finish records and a note
    done = _verify_cli(recorded)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok:")


def test_edited_event_is_named(recorded: Path) -> None:
    # Change a wager's amount in round 2, event seq 1.
    with sqlite3.connect(recorded) as conn:
        row_id, text = conn.execute(
            "SELECT id, event_json FROM events WHERE round_id = 2 AND seq = 1"
        ).fetchone()
    _edit(
        recorded, "UPDATE events SET event_json = ? WHERE id = ?", text.replace("10", "100"), row_id
    )
    with Store.open_readonly(recorded) as store:
        result = store.verify()
    assert not result.ok
    assert (result.table, result.row_id) == ("events", row_id)
    done = _verify_cli(recorded)
    assert done.returncode == 1
    assert f"events row {row_id} (round 2, seq 1)" in done.stdout


def test_deleted_event_names_the_row_after_it(recorded: Path) -> None:
    _edit(recorded, "DELETE FROM events WHERE id = 5")
    with Store.open_readonly(recorded) as store:
        result = store.verify()
    assert (result.ok, result.table, result.row_id) == (False, "events", 6)


def test_rechaining_without_the_key_does_not_hide_the_edit(recorded: Path) -> None:
    # A forger who edits a card and recomputes the whole events chain from there on, with
    # sha256 or with a key of their own, cannot make the keyed (HMAC) links match.
    import hashlib
    import hmac
    import json

    with sqlite3.connect(recorded) as conn:
        rows = conn.execute(
            "SELECT id, round_id, seq, at, actor, event_json FROM events ORDER BY id"
        ).fetchall()
    target = next(r for r in rows if '"card":"' in r[5])
    forged = target[5].replace('"card":"', '"card":"A', 1)
    for forge in (
        lambda data: hashlib.sha256(data).digest(),
        lambda data: hmac.new(b"not the station key", data, hashlib.sha256).digest(),
    ):
        copy = recorded.with_name(f"forged-{id(forge)}.db")
        with sqlite3.connect(recorded) as src, sqlite3.connect(copy) as dst:
            src.backup(dst)
        prev = None
        with sqlite3.connect(copy) as conn:
            for row in rows:
                if row[0] < target[0]:
                    continue
                if prev is None:
                    prev = conn.execute("SELECT hash FROM events WHERE id = ?", (row[0] - 1,)).fetchone()[0]
                text = forged if row[0] == target[0] else row[5]
                content = json.dumps([*row[:5], text], separators=(",", ":"), ensure_ascii=False)
                digest = forge(prev + content.encode())
                conn.execute("UPDATE events SET event_json = ?, hash = ? WHERE id = ?", (text, digest, row[0]))
                prev = digest
        with Store.open_readonly(copy, key_file=str(recorded) + ".key") as store:
            result = store.verify()
        assert (result.ok, result.table, result.row_id) == (False, "events", target[0])


def test_edited_round_configuration_is_named(recorded: Path) -> None:
    _edit(
        recorded,
        "UPDATE rounds SET config_json = replace(config_json, '\"decks\":6', '\"decks\":8') WHERE id = 3",
    )
    with Store.open_readonly(recorded) as store:
        result = store.verify()
    assert (result.ok, result.table, result.row_id) == (False, "rounds", 3)


def test_edited_round_status_or_result_is_named(recorded: Path) -> None:
    _edit(recorded, "UPDATE rounds SET status = 'void' WHERE id = 2")
    with Store.open_readonly(recorded) as store:
        result = store.verify()
    assert (result.ok, result.table, result.row_id) == (False, "rounds", 2)


def test_edited_result_json_is_named(recorded: Path) -> None:
    _edit(
        recorded, "UPDATE rounds SET result_json = replace(result_json, '105', '1050') WHERE id = 2"
    )
    with Store.open_readonly(recorded) as store:
        result = store.verify()
    assert (result.ok, result.table, result.row_id) == (False, "rounds", 2)


def test_truncated_round_is_detected(recorded: Path) -> None:
    # Removing the last event of a finished round (and every row after it, so the
    # events chain itself still ends cleanly) is caught by the round's audit record.
    with sqlite3.connect(recorded) as conn:
        last = conn.execute("SELECT MAX(id) FROM events WHERE round_id = 3").fetchone()[0]
    _edit(recorded, "DELETE FROM events WHERE id >= ?", last)
    with Store.open_readonly(recorded) as store:
        result = store.verify()
    assert (result.ok, result.table, result.row_id) == (False, "rounds", 3)


def test_edited_audit_row_is_named(recorded: Path) -> None:
    _edit(recorded, "UPDATE audit SET actor = 'someone else' WHERE kind = 'note'")
    with sqlite3.connect(recorded) as conn:
        note_id = conn.execute("SELECT id FROM audit WHERE kind = 'note'").fetchone()[0]
    with Store.open_readonly(recorded) as store:
        result = store.verify()
    assert (result.ok, result.table, result.row_id) == (False, "audit", note_id)
    done = _verify_cli(recorded)
    assert done.returncode == 1 and f"audit row {note_id} (note)" in done.stdout


def test_altered_settlement_row_is_named(recorded: Path) -> None:
    # The derived settlements are not chained, but they must match the hashed settle output:
    # a payout raised from the recorded net is caught and its round named.
    with sqlite3.connect(recorded) as conn:
        row_id, round_id = conn.execute(
            "SELECT id, round_id FROM settlements WHERE round_id = 2 ORDER BY id LIMIT 1"
        ).fetchone()
    _edit(recorded, "UPDATE settlements SET net = '200' WHERE id = ?", row_id)
    with Store.open_readonly(recorded) as store:
        result = store.verify()
    assert not result.ok
    assert (result.table, result.row_id) == ("settlements", round_id)
    done = _verify_cli(recorded)
    assert done.returncode == 1
    assert f"round {round_id}: its settlement rows differ" in done.stdout + done.stderr
