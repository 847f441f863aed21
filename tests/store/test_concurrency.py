"""Readers on separate connections while the table writes (WAL): neither blocks the other."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

from dealer_assist.store import Store

EVENTS = 200


def test_writer_commits_while_a_reader_holds_a_snapshot(db_path: Path) -> None:
    writer = Store.open(db_path)
    round_id = writer.begin_round({"game": "lucky8", "decks": 6})
    writer.append_event(round_id, {"type": "no_more_bets"})
    reader = Store.open_readonly(db_path)
    conn = reader.db.conn
    conn.execute("BEGIN")
    seen_before = conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    # The reader's read transaction is still open: in rollback-journal mode these
    # commits would wait for it (and fail after busy_timeout); in WAL they go through.
    for i in range(20):
        writer.append_event(round_id, {"type": "card", "card": f"{i % 9 + 2}H"})
    assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == seen_before == 1
    conn.execute("COMMIT")
    assert len(reader.events(round_id)) == 21
    reader.close()
    writer.close()


def test_readers_in_threads_and_processes_while_writer_appends(db_path: Path) -> None:
    writer = Store.open(db_path)
    round_id = writer.begin_round({"game": "lucky8", "decks": 6})
    errors: list[BaseException] = []
    counts: dict[str, list[int]] = {}
    done = threading.Event()

    def read_loop() -> None:
        mine = counts.setdefault(threading.current_thread().name, [])
        try:
            with Store.open_readonly(db_path) as reader:
                while True:  # at least one read, however fast the writer is
                    finished = done.is_set()
                    events = reader.events(round_id)
                    # Every snapshot is a consistent prefix of the log.
                    assert [e["n"] for e in events] == list(range(len(events)))
                    assert reader.list_rounds(limit=5)[0].id == round_id
                    mine.append(len(events))
                    if finished:
                        break
        except BaseException as err:  # reported to the test thread
            errors.append(err)

    threads = [threading.Thread(target=read_loop) for _ in range(2)]
    for thread in threads:
        thread.start()
    cli = subprocess.Popen(
        [sys.executable, "-m", "dealer_assist", "history", "--db", str(db_path), "verify"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for n in range(EVENTS):
            assert writer.append_event(round_id, {"type": "card", "card": "5S", "n": n}) == n
    finally:
        done.set()
        for thread in threads:
            thread.join(timeout=60)
        out, err = cli.communicate(timeout=60)
    assert errors == []
    assert len(counts) == 2
    for seen in counts.values():
        # each reader saw the log only grow, and after the writer finished, all of it
        assert seen == sorted(seen) and seen[-1] == EVENTS
    assert cli.returncode == 0, out + err
    with Store.open_readonly(db_path) as reader:
        assert len(reader.events(round_id)) == EVENTS
        assert reader.verify().ok
    writer.close()


def test_a_write_waits_out_another_writer_holding_the_lock(db_path: Path) -> None:
    """"database is locked" past the busy timeout is waited out and retried, not raised."""
    table = Store.open(db_path, busy_timeout_ms=20)
    round_id = table.start_round({"game": "lucky8", "decks": 6}, [{"type": "no_more_bets"}])
    other = sqlite3.connect(db_path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another writer holds the file, far past 20 ms
    finished = threading.Event()
    errors: list[BaseException] = []

    def append() -> None:
        try:
            table.append_event(round_id, {"type": "card", "card": "9H"})
        except BaseException as err:  # reported to the test thread
            errors.append(err)
        finished.set()

    thread = threading.Thread(target=append)
    thread.start()
    # the append cannot commit while the other writer holds the lock (50 busy timeouts)
    assert not finished.wait(1.0)
    other.execute("COMMIT")
    other.close()
    thread.join(timeout=60)
    assert errors == []
    assert table.events(round_id) == [{"type": "no_more_bets"}, {"type": "card", "card": "9H"}]
    assert table.verify().ok
    table.close()


WRITER = """
import sys
from dealer_assist.store import Store
db, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = Store.open(db, table=name, busy_timeout_ms=1)
sid = store.start_session(game="lucky8", decks=6, areas=7, dealer=name)
rid = store.start_round({"game": "lucky8", "decks": 6, "areas": 7}, [{"type": "no_more_bets"}], session_id=sid)
for n in range(count):
    store.append_event(rid, {"type": "card", "card": "5S", "n": n})
open_round = store.find_open_round()
assert open_round is not None and open_round.round_id == rid, open_round
print(rid)
"""


def test_three_writers_on_one_file_all_finish_and_each_restores_its_own_round(db_path: Path) -> None:
    Store.open(db_path).close()
    names = ["table-a", "table-b", "table-c"]
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(db_path), name, "150"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name in names
    ]
    rounds: dict[str, int] = {}
    for name, proc in zip(names, procs, strict=True):
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        rounds[name] = int(out)
    assert len(set(rounds.values())) == 3
    for name, round_id in rounds.items():
        with Store.open(db_path, table=name) as store:
            # after a crash, each table takes back its own open round, never another's
            open_round = store.find_open_round()
            assert open_round is not None and open_round.round_id == round_id
            assert [e.get("n") for e in open_round.events] == [None, *range(150)]
    with Store.open_readonly(db_path) as reader:
        assert reader.verify().ok


def test_a_store_opens_while_another_process_holds_the_file_for_a_moment(db_path: Path) -> None:
    """Opening reads the file's identity and sets WAL: with another connection holding the file
    exclusively (as one that opens or closes it may, for a moment), the open waits it out as a
    write does, even with a 1 ms busy timeout (WRITER's), instead of refusing the store
    ("database is locked", seen once in CI with three writers)."""
    import sqlite3
    import threading

    Store.open(db_path).close()
    holder = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()

    def release() -> None:
        holder.execute("COMMIT")
        holder.execute("PRAGMA locking_mode = NORMAL")
        holder.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # (the lock goes with the next access)
        holder.close()

    timer = threading.Timer(0.5, release)
    timer.start()
    try:
        with Store.open(db_path, busy_timeout_ms=1) as store:
            assert store.find_open_round() is None
    finally:
        timer.join()
