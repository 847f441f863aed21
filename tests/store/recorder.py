"""A table recorder that the SIGKILL recovery test kills at random moments.

Run as ``python recorder.py DB``: a fork server. Each line ``go`` on standard input
forks a child that opens the store, restores the open round (if any) from its events,
finishes it, then records rounds (the example transcripts, in turn) forever. After
each durable call returns the child writes an acknowledgement line:
``B <round>`` (round begun), ``E <round> <seq>`` (event appended), ``F <round>``
(round finished), ``R <round> <n>`` (round restored with n events). The server
writes ``pid <pid>`` after forking and ``reaped <pid> <status>`` when the child has
died. Forking from an already-imported server keeps 100+ kills fast.
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

# after PYTHONPATH: on the compiled pass build/compiled stays first
sys.path.append(str(Path(__file__).resolve().parents[2]))

from dealer_assist.store import Store  # noqa: E402
from tests.store.conftest import EXAMPLE_NAMES, example_result, load_example  # noqa: E402

DOCUMENTS = {name: load_example(name) for name in EXAMPLE_NAMES}
BY_GAME = {doc["game"]: name for name, doc in DOCUMENTS.items()}
RESULTS = {name: example_result(name) for name in EXAMPLE_NAMES}  # settled once, before forking


def ack(text: str) -> None:
    os.write(1, (text + "\n").encode())


def record(db: str) -> None:
    store = Store.open(db)
    open_round = store.find_open_round()
    if open_round is not None:
        name = BY_GAME[open_round.config["game"]]
        events = DOCUMENTS[name]["events"]
        restored = open_round.events
        if restored != events[: len(restored)]:
            ack(f"X restored events of round {open_round.round_id} differ from what was appended")
            os._exit(3)
        ack(f"R {open_round.round_id} {len(restored)}")
        for event in events[len(restored) :]:
            seq = store.append_event(open_round.round_id, event, actor="recorder")
            ack(f"E {open_round.round_id} {seq}")
        store.finish_round(open_round.round_id, RESULTS[name])
        ack(f"F {open_round.round_id}")
    while True:
        number = store.round_count()
        name = EXAMPLE_NAMES[number % len(EXAMPLE_NAMES)]
        document = DOCUMENTS[name]
        config = {k: v for k, v in document.items() if k != "events"}
        round_id = store.begin_round(config)
        ack(f"B {round_id} {name}")
        for event in document["events"]:
            seq = store.append_event(round_id, event, actor="recorder")
            ack(f"E {round_id} {seq}")
        store.finish_round(round_id, RESULTS[name])
        ack(f"F {round_id}")


def main() -> None:
    db = sys.argv[1]
    while sys.stdin.readline().strip() == "go":
        pid = os.fork()
        if pid == 0:
            try:
                record(db)
            except BaseException:
                ack("X " + traceback.format_exc().replace("\n", " | "))
            os._exit(3)
        ack(f"pid {pid}")
        _, status = os.waitpid(pid, 0)
        ack(f"reaped {pid} {status}")


if __name__ == "__main__":
    main()
