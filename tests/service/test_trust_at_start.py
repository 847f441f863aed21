"""Trust at start (issue 39 item 5): a store whose anchor or head file was deleted, a state
directory rolled back whole, or a store that fails verify is not started silently: the
table stays closed until a technician runs `dealer-assist station acknowledge`, audited."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import dealer_assist.service.station as st
from dealer_assist.service.client import ServiceClient
from dealer_assist.service.serve import Running, ServeOptions, start
from dealer_assist.store import Store
from dealer_assist.store.users import TEST_PIN_COST
from hardware.station import attach_shoe
from tests.service.conftest import make_shoe

ROOT = Path(__file__).resolve().parents[2]


def wait_connected_to(running: Running) -> None:
    deadline = time.monotonic() + 10
    while not running.service.shoe.get("connected") and time.monotonic() < deadline:
        time.sleep(0.02)


class Table:
    def __init__(self, where: Path) -> None:
        self.where = where
        self.state = where / "state"
        self.logs = where / "log"
        self.sim = make_shoe("10S 9H QD 8C 7D 6H 5S 4C")
        self.running: Running | None = None

    def start(self) -> Running:
        cfg = st.StationConfig(shoe_port=self.sim.path)
        self.running = start(ServeOptions(state_dir=str(self.state), socket=str(self.where / "run" / "s.sock"),
                                          log_dir=str(self.logs), pin_cost=TEST_PIN_COST),
                             lambda on_event: attach_shoe(cfg, on_event))
        return self.running

    def stop(self) -> None:
        if self.running is not None:
            self.running.stop()
            self.running = None

    def play_a_round_start(self) -> None:
        """A round begun through the socket: a wager and a card out of the shoe, on record."""
        running = self.start()
        wait_connected_to(running)
        c = ServiceClient(self.where / "run" / "s.sock")
        try:
            if c.request("state")["needs_enrolment"]:
                c.request("enrol", name="sue", pin="482913")
                running.store.create_user("ann", "730418", ["dealer"])
            c.request("login", name="ann", pin="730418")
            c.request("wager", player="p1", bet="main", amount=10, area=1)
            self.sim.deal()
            deadline = time.monotonic() + 10
            while c.request("state")["round_id"] is None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert c.request("state")["round_id"] is not None
        finally:
            c.close()
        self.stop()

    def acknowledge(self) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DEALER_ASSIST")}
        env["PYTHONPATH"] = str(ROOT)
        return subprocess.run([sys.executable, "-m", "dealer_assist", "station", "acknowledge",
                               "--state-dir", str(self.state), "--by", "tech"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    monkeypatch.delenv(st.CONFIG_ENV, raising=False)
    t = Table(tmp_path)
    yield t
    t.stop()
    t.sim.close()


def refused_then_acknowledged(t: Table, reason: str) -> None:
    running = t.start()
    assert reason in running.service.refused and "station acknowledge" in running.service.refused
    t.stop()
    t.stop()
    t2 = t.start()  # restarting alone opens nothing
    assert reason in t2.service.refused
    t.stop()
    done = t.acknowledge()
    assert done.returncode == 0, done.stderr
    assert reason in done.stdout and "acknowledged by tech" in done.stdout
    running = t.start()
    assert running.service.refused == ""
    entries = running.store.audit_entries(kind="start_acknowledged")
    assert [(e.actor, reason in e.detail["problem"]) for e in entries] == [("technician:tech", True)]
    t.stop()
    assert t.start().service.refused == ""  # the anchors were written again: no refusal after
    t.stop()


def test_a_deleted_anchor_is_refused_until_acknowledged(table: Table) -> None:
    table.play_a_round_start()
    (table.state / "round-anchor").unlink()
    refused_then_acknowledged(table, "rollback anchor")


def test_a_deleted_head_file_is_refused_until_acknowledged(table: Table) -> None:
    table.play_a_round_start()
    (table.state / "table.db.key.head").unlink()
    refused_then_acknowledged(table, "head file")


def test_a_state_directory_rolled_back_whole_is_refused_until_acknowledged(table: Table) -> None:
    table.play_a_round_start()
    old = table.where / "old-state"
    shutil.copytree(table.state, old)  # the whole directory: store, key, head file, anchor
    running = table.start()
    wait_connected_to(running)
    c = ServiceClient(table.where / "run" / "s.sock")
    c.request("login", name="ann", pin="730418")
    deadline = time.monotonic() + 20
    while not (state := c.request("state"))["concluded"] and time.monotonic() < deadline:
        exp = state["expect"]  # the round goes on to its end: its anchor (and the copy in the log) ahead
        if exp["kind"] == "decision" and "stand" in exp["options"]:
            c.request("decide", action="stand", area=exp["area"], hand=exp["hand"], player=exp["player"])
        elif exp["kind"] == "card" and not state["in_flight"]:
            table.sim.deal()
        time.sleep(0.1)
    assert state["concluded"]
    c.close()
    table.stop()
    shutil.rmtree(table.state)
    shutil.copytree(old, table.state)
    refused_then_acknowledged(table, "older copy")


def test_a_store_that_fails_verify_is_refused_until_acknowledged(table: Table) -> None:
    table.play_a_round_start()
    conn = sqlite3.connect(table.state / "table.db")
    conn.execute("UPDATE audit SET actor = 'mallory' WHERE id = (SELECT MIN(id) FROM audit)")
    conn.commit()
    conn.close()
    with Store.open_readonly(table.state / "table.db") as store:
        assert not store.verify().ok
    refused_then_acknowledged(table, "fails verify")


def test_acknowledge_with_nothing_refused_says_so(table: Table) -> None:
    table.start()
    table.stop()
    done = table.acknowledge()
    assert done.returncode == 2 and "nothing to acknowledge" in done.stderr


def test_the_wall_clock_set_back_is_told_from_the_monotonic_clock() -> None:
    from dealer_assist.service.serve import clock_set_back

    assert clock_set_back((1000.0, 50.0), (1001.0, 51.0)) == 0.0  # both ran a second
    assert clock_set_back((1000.0, 50.0), (940.0, 51.0)) == 61.0  # set back a minute
    assert clock_set_back((1000.0, 50.0), (1100.0, 51.0)) == 0.0  # set forward: not "back"
