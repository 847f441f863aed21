"""The station's day through the service's socket, each person from their own OS account
(issue 23): the installed station, the service started as its own account on a shoe-sim pty
of group dialout, two dealers' accounts made with useradd; the dealers' programs are real
processes of their accounts (SO_PEERCRED names them), relaying requests to the socket.
Run by test_station.py in a fresh mount namespace, as root, like every ns_*.py test.

Lucky 8, cards in the shoe's order (--cards): 10S 9H QD 8C | 10D 9C.
Round 1 (dealer ann): p1 wagers 10 on area 1; p1 10S, dealer 9H, p1 QD: 20 stands; dealer
8C: 17 stands (Lucky 8 dealer stands on 17). p1 20 beats 17: wins 10 (even money, 4.3.2).
Round 2 (dealer bob after ann's end of shift): p1 wagers 10; p1 10D; a supervisor voids it
with the PIN (5.2): every wager returned, net 0.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.service.probe import handshake
from tests.station_day import station as s

RELAY = """
import json, sys
from dealer_assist.service.client import ServiceClient, ServiceError
c = ServiceClient("/run/dealer-assist/station.sock", kind="screen")
print(json.dumps({"account": c.account}), flush=True)
for line in sys.stdin:
    ask = json.loads(line)
    try:
        print(json.dumps({"ok": True, "result": c.request(ask["op"], **ask.get("args", {}))}), flush=True)
    except ServiceError as exc:
        print(json.dumps({"ok": False, "code": exc.code, "message": exc.message, "clause": exc.clause}), flush=True)
"""


def enrol_code(said: str) -> str:
    """The one-time enrolment code `station init` printed to root (issue 39)."""
    marker = "enrolment code for the first supervisor: "
    assert marker in said, said
    return said.split(marker, 1)[1].split()[0]


class Program:
    """A dealer's program: a process of that account talking to the service."""

    def __init__(self, acct: s.Account) -> None:
        env = acct.env(PYTHONPATH=str(s.PROGRAM / "lib"))
        self.proc = acct.popen([str(s.VENV / "bin" / "python"), "-s", "-P", "-c", RELAY], env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.account = self._read()["account"]

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, self.proc.stderr.read() if self.proc.stderr else ""
        return json.loads(line)  # type: ignore[no-any-return]

    def ask(self, op: str, **args: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"op": op, "args": args}) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def ok(self, op: str, **args: Any) -> Any:
        answer = self.ask(op, **args)
        assert answer["ok"], (op, answer)
        return answer["result"]

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=20)


@pytest.fixture(autouse=True)
def _namespace() -> None:
    if not s.in_station_namespace():
        pytest.fail("runs only inside tests/station_day/namespace.py (see test_station.py)")


@pytest.fixture
def station(tmp_path: Path) -> Iterator[dict[str, Any]]:
    assert s.install().returncode == 0
    cards = tmp_path / "cards.txt"
    cards.write_text("10S 9H QD 8C 10D 9C\n")
    cards.chmod(0o644)
    tmp_path.chmod(0o755)
    sim = subprocess.Popen([s.COMMAND, "shoe-sim", "--game", "lucky8", "--cards", str(cards), "--group", "dialout",
                            "--link", "/run/dealer-shoe-sim"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           text=True)
    assert sim.stdout is not None and sim.stdout.readline().strip() == "/run/dealer-shoe-sim"
    init = s.run([s.COMMAND, "station", "init", "--force", "--table", "BJ-07", "--pit", "PIT-2", "--game", "lucky8",
                  "--shoe", "/run/dealer-shoe-sim"])
    assert init.returncode == 0, init.stderr
    service = s.account(s.SERVICE).popen([s.COMMAND, "station", "serve"], stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while not handshake(s.RUN / "station.sock", timeout_s=1).ok:
        assert service.poll() is None, service.communicate()
        assert time.monotonic() < deadline, "the service did not answer within 30 s"
        time.sleep(0.2)
    status, _, out = s.station_check()
    assert status == 0 and out.rstrip().endswith("station ready"), out
    try:
        with contextlib.contextmanager(s.dealers)("a", "b") as (a, b):
            yield {"a": a, "b": b, "sim": sim, "enrol_code": enrol_code(init.stdout)}
    finally:
        service.terminate()
        service.wait(timeout=30)
        sim.terminate()
        sim.wait(timeout=10)


def deal(sim: subprocess.Popen[str], program: Program, count: int) -> dict[str, Any]:
    """``count`` cards out of the shoe-sim; the state once the service has taken them."""
    def seen(state: dict[str, Any]) -> int:
        return sum(1 for e in state["events"] if e["type"] == "card") + len(state["in_flight"])

    before = seen(program.ok("state"))
    assert sim.stdin is not None and sim.stdout is not None
    for _ in range(count):
        sim.stdin.write("\n")
        sim.stdin.flush()
        assert sim.stdout.readline().startswith("card ")
    deadline = time.monotonic() + 10
    while True:
        state = program.ok("state")
        if seen(state) >= before + count:
            return state  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, state
        time.sleep(0.05)


def test_a_day_through_the_service(station: dict[str, Any]) -> None:
    a, b, sim = station["a"], station["b"], station["sim"]
    ann = Program(a)
    assert ann.account == a.name  # the service knows the OS account by SO_PEERCRED
    # first start: the first supervisor, then the dealers (PIN changed at the first log-in)
    assert ann.ok("state")["needs_enrolment"] is True
    assert ann.ok("state")["enrol_code_needed"] is True  # a dealer's account: root's code (issue 39)
    assert ann.ask("enrol", name="sue", pin="482913")["code"] == "refused"
    ann.ok("enrol", name="sue", pin="482913", code=station["enrol_code"])
    sue = {"user": "sue", "pin": "482913"}
    ann.ok("add_account", name="ann", new_pin="246810", roles=["dealer"], pin=sue)
    ann.ok("add_account", name="bob", new_pin="135790", roles=["dealer"], pin=sue)
    ann.ok("change_pin", name="ann", old_pin="246810", new_pin="730418")
    ann.ok("login", name="ann", pin="730418")
    # round 1 (worked above): p1 wins 10
    ann.ok("wager", player="p1", bet="main", amount=10, area=1)
    deal(sim, ann, 3)
    ann.ok("decide", action="stand", area=1, hand=1, player="p1")
    one = deal(sim, ann, 1)
    assert one["output"]["status"] == "settled" and one["output"]["net"] == {"p1": 10}
    ann.ok("next_round")
    ann.ok("logout")  # ann's end of shift
    ann.close()

    bob = Program(b)
    assert bob.account == b.name
    refused = bob.ask("wager", player="p1", bet="main", amount=10, area=1)
    assert not refused["ok"] and refused["code"] == "auth"  # nobody logged in on bob's connection
    bob.ok("change_pin", name="bob", old_pin="135790", new_pin="551903")
    bob.ok("login", name="bob", pin="551903")
    bob.ok("wager", player="p1", bet="main", amount=10, area=1)
    deal(sim, bob, 1)
    no_pin = bob.ask("void", reason="cards mixed", rule="5.2")
    assert not no_pin["ok"] and no_pin["code"] == "pin"
    void = bob.ok("void", reason="cards mixed", rule="5.2", pin=sue)
    assert void["output"]["status"] == "void"
    bob.close()

    # the store, read as the service account: two rounds, their dealers, the void audited
    svc = s.account(s.SERVICE)
    verify = svc.run([s.COMMAND, "history", "verify", "--db", str(s.STATE / "table.db")])
    assert verify.returncode == 0 and " 2 rounds" in verify.stdout, verify.stdout + verify.stderr
    listed = svc.run([s.COMMAND, "history", "list", "--db", str(s.STATE / "table.db")])
    assert listed.returncode == 0, listed.stderr
    rows = [line.split() for line in listed.stdout.splitlines()[1:]]
    assert [(r[0], r[4]) for r in rows] == [("2", "void"), ("1", "settled")], listed.stdout
    assert "p1 +0," in listed.stdout.splitlines()[1] and "p1 +10," in listed.stdout.splitlines()[2]
    # each round under the dealer who dealt it (the session the service opened at the log-in)
    query = ("import sqlite3, json; db = sqlite3.connect('file:/var/lib/dealer-assist/table.db?mode=ro', uri=True); "
             "print(json.dumps(db.execute('SELECT r.id, s.dealer FROM rounds r JOIN sessions s "
             "ON r.session_id = s.id ORDER BY r.id').fetchall()))")
    dealt = svc.run([str(s.VENV / "bin" / "python"), "-s", "-P", "-c", query])
    assert json.loads(dealt.stdout) == [[1, "ann"], [2, "bob"]], dealt.stdout + dealt.stderr
    # WIRE: the floor — `history --db URL list` once the service forwards (day_scenario.py.txt).
