"""Readers on separate connections while the table writes (WAL): neither blocks the other."""

from __future__ import annotations

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
    assert cli.returncode == 0, err
    with Store.open_readonly(db_path) as reader:
        assert len(reader.events(round_id)) == EVENTS
        assert reader.verify().ok
    writer.close()
