"""Kill a recording process with SIGKILL at random moments, 100+ times (the issue's crash test).

After every kill: the file verifies intact, everything the recorder acknowledged
(acknowledged = the store call had returned) is in the file exactly, and the open
round restores to a prefix of what was being recorded. The next child restores that
round from its events and carries on, as the dealer's screen does after a crash.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from dealer_assist.store import Store
from tests.store.conftest import EXAMPLE_NAMES, load_example

try:  # the rules engine replays a restored round, as the dealer's screen does
    from dealer_assist.engine.transcript import settle_document
except ImportError:  # pragma: no cover - the engine is written alongside the store
    settle_document = None

RECORDER = Path(__file__).with_name("recorder.py")
ROOT = Path(__file__).resolve().parents[2]
KILLS = 120


def _read_until(proc: subprocess.Popen[str], prefix: str, acks: list[str]) -> str:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        assert line, "recorder server ended unexpectedly"
        line = line.rstrip("\n")
        if line.startswith(prefix):
            return line
        assert not line.startswith("X "), line
        acks.append(line)


def _next_ack(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline().rstrip("\n")
    assert line and not line.startswith(("X ", "pid ", "reaped ")), line
    return line


def _check(db: Path, acks: list[str], documents: dict[str, dict[str, object]]) -> None:
    with Store.open_readonly(db) as store:
        result = store.verify()
        assert result.ok, result.problem
        for ack in acks:
            kind, *rest = ack.split()
            round_id = int(rest[0])
            detail = store.get_round(round_id)
            assert detail is not None, f"acknowledged round {round_id} is missing"
            name = _name_of(detail.config["game"])
            expected_events = documents[name]["events"]
            assert isinstance(expected_events, list)
            if kind == "E":
                seq = int(rest[1])
                assert len(detail.events) > seq, f"acknowledged event {round_id}/{seq} lost"
                assert detail.events[seq].event == expected_events[seq]
            elif kind == "F":
                assert detail.summary.status == "settled"
                assert [e.event for e in detail.events] == expected_events
        open_rounds = store.open_rounds()
        assert len(open_rounds) <= 1
        for open_round in open_rounds:
            expected = documents[_name_of(open_round.config["game"])]["events"]
            assert isinstance(expected, list)
            assert open_round.events == expected[: len(open_round.events)]
            if settle_document is not None:
                replayed = settle_document({**open_round.config, "events": open_round.events})
                complete = len(open_round.events) == len(expected)
                assert replayed["status"] == ("settled" if complete else "in_progress")


_NAMES = {load_example(n)["game"]: n for n in EXAMPLE_NAMES}


def _name_of(game: str) -> str:
    return _NAMES[game]


def test_sigkill_at_random_moments_loses_nothing(tmp_path: Path) -> None:
    db = tmp_path / "table.db"
    documents = {name: load_example(name) for name in EXAMPLE_NAMES}
    rng = random.Random(7)
    server = subprocess.Popen(
        [sys.executable, str(RECORDER), str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert server.stdin is not None
    acks: list[str] = []
    killed = 0
    restored = 0
    ever_acked = False
    checked = 0
    gated = 0
    try:
        for n in range(KILLS):
            server.stdin.write("go\n")
            server.stdin.flush()
            pid = int(_read_until(server, "pid ", acks).split()[1])
            if n % 4 == 3:
                # Anywhere at all, opening and migrating the file included.
                time.sleep(rng.uniform(0.0, 0.02))
            else:
                # After the child has made progress (whatever the machine's speed), then
                # a random moment later: mid-append, mid-commit, mid-finish, ...
                if not acks:
                    acks.append(_next_ack(server))
                gated += 1
                time.sleep(rng.uniform(0.0, 0.015))
            os.kill(pid, signal.SIGKILL)
            status = int(_read_until(server, "reaped ", acks).split()[2])
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status
            killed += 1
            restored += sum(1 for a in acks if a.startswith("R "))
            ever_acked = ever_acked or bool(acks)
            if not ever_acked:
                # Killed before the first round began: at most a file being created.
                continue
            checked += 1
            _check(db, acks, documents)
            # Later checks look at new acknowledgements; the chain check and the final
            # export comparison cover the earlier ones.
            acks = []
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    assert killed == KILLS
    # The kills really interrupted rounds: some children found an open round to restore.
    assert restored > 0
    assert checked >= gated >= KILLS * 3 // 4
    with Store.open_readonly(db) as store:
        finished = store.list_rounds(status="settled", limit=None)
        assert finished, "no round was ever finished"
        for summary in finished:
            name = _name_of(summary.game)
            assert store.export_round(summary.id) == documents[name]
