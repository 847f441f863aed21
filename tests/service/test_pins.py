"""Issue 39, Build 2: PINs off the table's path, through the service's socket. A PIN check
runs on the PIN worker, outside the table's lock (a card from the pty shoe is recorded
while PIN checks wait); a full queue is refused at once; no sequence of wrong PINs leaves
the station without a supervisor who can log in; no account list before a log-in; an
unknown name writes no row; root clears a lock, audited."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.service.client import ServiceClient, ServiceError
from dealer_assist.service.pins import QUEUE_DEPTH
from tests.service.conftest import Station

ROOT = Path(__file__).resolve().parents[2]


def _code(c: ServiceClient, op: str, **args: Any) -> str:
    try:
        c.request(op, **args)
        return "ok"
    except ServiceError as exc:
        return exc.code


def test_the_accounts_are_not_listed_before_a_log_in(station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    s.dealer()  # sue enrolled, ann and bob added; ann logged in on that screen
    stranger = s.client()
    assert _code(stranger, "users") == "auth"
    stranger.request("login", name="ann", pin="730418")
    assert {u["username"] for u in stranger.request("users")} == {"sue", "ann", "bob"}


def test_no_sequence_of_wrong_pins_leaves_the_station_without_a_supervisor(station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    screen = s.dealer()
    assert s.running is not None
    store = s.running.store
    guesser = s.client()
    # wrong PINs for both supervisors, in turn: sue is locked at her third; bob, then the
    # last supervisor free of a lock, is never locked (his wrong PINs only slow the guesser)
    for guess in range(5):
        for name in ("sue", "bob"):
            assert _code(guesser, "approve", user=name, pin=f"{guess:06d}", kind="void") == "pin"
    users = {u["username"]: u for u in screen.request("users")}
    assert users["sue"]["locked_until"] is not None and users["bob"]["locked_until"] is None
    # the right PIN works for bob at once, even right after the guesses
    assert screen.request("approve", user="bob", pin="551903", kind="void")["user"] == "bob"
    with pytest.raises(ServiceError) as caught:
        screen.request("approve", user="sue", pin="482913", kind="void")
    assert caught.value.reason == "locked"
    # an unknown name costs a check but writes no row; a locked name's refusals no row each
    rows = len(store.audit_entries())
    for _ in range(3):
        assert _code(guesser, "login", name="mallory", pin="123450") == "pin"
        assert _code(guesser, "approve", user="sue", pin="000000", kind="void") == "pin"
    assert len(store.audit_entries()) == rows
    # ... summarised: one pin_refusals row for sue when the service flushes them
    s.running.service.refusals.flush(everything=True)
    summary = store.audit_entries(kind="pin_refusals")
    assert len(summary) == 1 and summary[0].detail["username"] == "sue"
    # her 4th and 5th guesses, the screen's right PIN and the 3 above: all refused unchecked
    assert summary[0].detail["count"] == 2 + 1 + 3 and summary[0].detail["reasons"] == {"locked": 6}
    assert store.verify().ok


@pytest.mark.skipif(os.geteuid() != 0, reason="op root_unlock is root's (SO_PEERCRED uid 0)")
def test_root_clears_a_lock_through_the_service_audited(station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    screen = s.dealer()
    assert s.running is not None
    for guess in range(3):
        _code(screen, "approve", user="sue", pin=f"{guess:06d}", kind="void")
    assert {u["username"]: u for u in screen.request("users")}["sue"]["locked_until"] is not None
    # root's command, as root types it (the real entry point, through the service's socket)
    done = subprocess.run([sys.executable, "-m", "dealer_assist", "station", "unlock", "sue", "--socket",
                           str(s.socket)], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.strip() == "sue: wrong PINs cleared", done.stderr
    nobody = subprocess.run([sys.executable, "-m", "dealer_assist", "station", "unlock", "ghost", "--socket",
                             str(s.socket)], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert nobody.returncode == 2 and nobody.stderr.startswith("error: no account 'ghost'"), nobody.stderr
    assert _code(s.client(), "root_unlock", name="sue") == "ok"  # root's uid (SO_PEERCRED) only
    assert {u["username"]: u for u in screen.request("users")}["sue"]["locked_until"] is None
    cleared = s.running.store.audit_entries(kind="pin_failures_cleared")
    assert cleared[-1].actor == "root" and cleared[-1].detail["username"] == "sue"
    assert screen.request("approve", user="sue", pin="482913", kind="void")["user"] == "sue"
    assert s.running.store.verify().ok


def test_pin_checks_wait_on_their_worker_while_the_shoe_is_recorded(
        station: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    s: Station = station("10S 9H QD 8C")
    screen = s.dealer()
    assert s.running is not None
    store = s.running.store
    real = store.check_pin
    release, running = threading.Event(), threading.Event()

    def slow(*args: Any, **kwargs: Any) -> Any:  # a check that takes as long as the test says
        running.set()
        release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "check_pin", slow)
    answers: list[str] = []
    clients = [s.client() for _ in range(QUEUE_DEPTH + 4)]

    def guess(c: ServiceClient, n: int) -> None:
        answers.append(_code(c, "login", name=f"guess{n}", pin="123450"))

    threads = [threading.Thread(target=guess, args=(c, n)) for n, c in enumerate(clients)]
    # the first check on the worker before the others are sent: else, on a loaded machine, the
    # queue could fill before the worker took the first from it (one more "busy")
    threads[0].start()
    assert running.wait(10)
    for t in threads[1:]:
        t.start()
    deadline = time.monotonic() + 10
    while answers.count("busy") < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    # a full queue is refused at once: one running and QUEUE_DEPTH waiting, the rest busy
    assert answers == ["busy"] * 3
    # the table is not held: a card out of the shoe is recorded while the checks wait
    state = s.deal(screen, 1)
    assert len(state["in_flight"]) + sum(1 for e in state["events"] if e["type"] == "card") == 1
    assert sum(t.is_alive() for t in threads) == QUEUE_DEPTH + 1
    release.set()
    for t in threads:
        t.join(30)
    assert sorted(answers) == ["busy"] * 3 + ["pin"] * (QUEUE_DEPTH + 1)


def test_the_watchdog_check_fails_while_the_table_is_held(station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    assert s.running is not None
    server, service = s.running.server, s.running.service
    assert server.alive() == ""
    held, done = threading.Event(), threading.Event()

    def hold() -> None:  # a stalled table: its lock never comes free
        with service.lock:
            held.set()
            done.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)
    try:
        assert "the table's lock was not free" in server.alive()  # so no WATCHDOG=1 is sent
    finally:
        done.set()
        holder.join()
    assert server.alive() == ""
