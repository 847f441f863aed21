"""A store belongs to one table (issue 18): named when it is created, refused to another table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from dealer_assist.store import Store
from tests.store.conftest import EXAMPLES

ROOT = Path(__file__).resolve().parents[2]
LUCKY8 = str(EXAMPLES / "lucky8-pair-and-double.json")


def _settle(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer_assist", "settle", *args], capture_output=True,
                          text=True, cwd=ROOT)


def test_settle_record_names_a_new_store_and_refuses_another_table(tmp_path: Path) -> None:
    db = tmp_path / "bj07.db"
    first = _settle(LUCKY8, "--record", str(db), "--table", "BJ-07", "--pit", "PIT-2")
    assert first.returncode == 0, first.stderr
    with Store.open_readonly(db) as store:
        assert store.table_identity() == ("BJ-07", "PIT-2")
        [entry] = store.audit_entries(kind="table_identity")
        assert {k: entry.detail[k] for k in ("table", "pit")} == {"table": "BJ-07", "pit": "PIT-2"}
        assert entry.detail["created_at"] is not None  # the whole row, for verify
    same = _settle(LUCKY8, "--record", str(db), "--table", "BJ-07")
    assert same.returncode == 0, same.stderr
    other = _settle(LUCKY8, "--record", str(db), "--table", "BJ-08")
    assert other.returncode == 2 and other.stdout == ""
    assert other.stderr == f"error: cannot record in {db}: {db} is the store of table BJ-07, not BJ-08\n"
    moved = _settle(LUCKY8, "--record", str(db), "--table", "BJ-07", "--pit", "PIT-9")
    assert moved.returncode == 2 and "in pit PIT-2, not PIT-9" in moved.stderr
    with Store.open_readonly(db) as store:
        assert store.round_count() == 2  # the refused ones recorded nothing
        assert store.verify().ok


def test_table_options_need_record(tmp_path: Path) -> None:
    done = _settle(LUCKY8, "--table", "BJ-07")
    assert done.returncode == 2 and done.stderr == "error: --table and --pit go with --record DB\n"
    done = _settle(LUCKY8, "--record", str(tmp_path / "x.db"), "--pit", "PIT-2")
    assert done.returncode == 2 and done.stderr == "error: --pit goes with --table NAME\n"


def test_a_store_without_a_name_takes_one_once(tmp_path: Path) -> None:
    with Store.open(tmp_path / "t.db") as store:
        assert store.table_identity() is None
        store.claim_table("BJ-07")
        store.claim_table("BJ-07", "PIT-2")  # the pit may be added once
        assert store.table_identity() == ("BJ-07", "PIT-2")
        assert len(store.audit_entries(kind="table_identity")) == 2
        store.claim_table("BJ-07", "PIT-2")  # the same again: nothing new
        assert len(store.audit_entries(kind="table_identity")) == 2


def _session_tables(path: Path) -> list[str]:
    import sqlite3

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [str(r[0]) for r in conn.execute("SELECT table_name FROM sessions ORDER BY id")]
    finally:
        conn.close()


def test_the_sessions_of_a_named_store_carry_its_name(tmp_path: Path) -> None:
    """Issue 15's sessions.table_name and issue 18's table identity agree: a named store's
    sessions are its table's, whichever way it was opened."""
    import pytest

    from dealer_assist.store import StoreError

    db = tmp_path / "t.db"
    with Store.open(db) as store:  # the default table until it is named
        store.start_session(game="lucky8", decks=6, areas=7, limits={}, dealer="ann")
        store.claim_table("BJ-07", "PIT-2")
        assert store.table == "BJ-07"
        store.start_session(game="lucky8", decks=6, areas=7, limits={}, dealer="ann")
    with Store.open(db) as store:  # opened for the default table: it takes its name
        assert store.table == "BJ-07"
        store.start_session(game="lucky8", decks=6, areas=7, limits={}, dealer="ben")
    assert _session_tables(db) == ["table", "BJ-07", "BJ-07"]
    with pytest.raises(StoreError, match="is the store of table BJ-07, not BJ-08"):
        Store.open(db, table="BJ-08")
    with Store.open(db, table="BJ-07") as store:
        assert store.verify().ok
    # a file holding another table's sessions (issue 15's shared file) cannot be named
    shared = tmp_path / "shared.db"
    with Store.open(shared, table="table-a") as store:
        store.start_session(game="lucky8", decks=6, areas=7, limits={}, dealer="ann")
    with Store.open(shared) as store, pytest.raises(StoreError, match="holds sessions of table table-a"):
        store.claim_table("BJ-07")
    with Store.open_readonly(shared) as store:
        assert store.table_identity() is None
