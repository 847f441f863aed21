"""`dealer-assist shoe-sim` and `shoe-monitor` as subprocesses (spec/shoe-protocol.md, commands)."""

from __future__ import annotations

import json
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.commands import CommandError, sim_command
from hardware.driver import ShoeDriver
from hardware.events import CardRead, Connected, ShoeFault
from hardware.simulator import SimulatedShoe
from tests.hardware.helpers import WAIT_S, EventLog

ROOT = Path(__file__).resolve().parents[2]


class Proc:
    """A running `python -m dealer_assist ...` whose output lines we wait for."""

    def __init__(self, *args: str, stdin: bool = True) -> None:
        self.popen = subprocess.Popen(
            [sys.executable, "-m", "dealer_assist", *args],
            cwd=ROOT,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def line(self, timeout: float = WAIT_S) -> str:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no output line within {timeout} s") from None
        if line is None:
            raise AssertionError(f"output ended; stderr: {self.stderr_text()}")
        return line

    def event(self, where: Callable[[dict[str, Any]], bool], timeout: float = WAIT_S) -> dict[str, Any]:
        """The next JSON line matching ``where`` (earlier lines are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            obj = json.loads(self.line(max(0.01, deadline - time.monotonic())))
            assert isinstance(obj, dict)
            if where(obj):
                return obj

    def send(self, text: str) -> None:
        assert self.popen.stdin is not None
        self.popen.stdin.write(text + "\n")
        self.popen.stdin.flush()

    def stderr_text(self) -> str:
        if self.popen.poll() is None:
            return "(still running)"
        assert self.popen.stderr is not None
        return self.popen.stderr.read()

    def stop(self) -> int:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
        try:
            return self.popen.wait(timeout=WAIT_S)
        finally:
            if self.popen.poll() is None:
                self.popen.kill()
                self.popen.wait()


@pytest.fixture
def procs() -> Iterator[Callable[..., Proc]]:
    started: list[Proc] = []

    def start(*args: str, stdin: bool = True) -> Proc:
        p = Proc(*args, stdin=stdin)
        started.append(p)
        return p

    yield start
    for p in reversed(started):
        p.stop()


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dealer_assist", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode != 0
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0]


def test_monitor_on_a_port_that_does_not_exist(tmp_path: Path) -> None:
    result = run("shoe-monitor", str(tmp_path / "no-shoe"))
    assert_one_line_error(result, "cannot open", "no-shoe")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["shoe-monitor", "/dev/null", "--codec", "nmea"], ["--codec", "nmea"]),
        (["shoe-monitor", "/dev/null", "--baud", "fast"], ["--baud"]),
        (["shoe-monitor"], ["PORT"]),
        (["shoe-sim", "--decks", "0"], ["--decks"]),
        (["shoe-sim", "--decks", "99999999999999"], ["--decks"]),
        (["shoe-monitor", "/dev/null", "--baud", "99999999999999999999"], ["--baud"]),
        (["shoe-monitor", "/dev/null"], ["cannot open", "/dev/null"]),  # not a serial port
        (["shoe-sim", "--game", "poker"], ["--game"]),
        (["shoe-sim", "--interval", "-1"], ["--interval"]),
        (["shoe-sim", "--interval", "nan"], ["--interval"]),
        (["shoe-sim", "--seed", "x"], ["--seed"]),
        (["shoe-sim", "--cards", "/no/such/file"], ["--cards", "/no/such/file"]),
    ],
)
def test_bad_arguments_give_one_error_line(args: list[str], words: list[str]) -> None:
    assert_one_line_error(run(*args), *words)


def test_cards_file_with_a_bad_card(tmp_path: Path) -> None:
    order = tmp_path / "order.txt"
    order.write_text("AS 10H\nZZ 7Wa\n")
    assert_one_line_error(run("shoe-sim", "--cards", str(order)), "card 3", "ZZ")
    order.write_bytes(b"\xff\xfe")
    assert_one_line_error(run("shoe-sim", "--cards", str(order)), "--cards")


def test_monitor_on_a_locked_port_fails_cleanly(procs: Callable[..., Proc]) -> None:
    sim = procs("shoe-sim", "--seed", "1")
    path = sim.line()
    first = procs("shoe-monitor", path)
    first.event(lambda e: e["event"] == "connected")
    assert_one_line_error(run("shoe-monitor", path), "cannot open")


def test_sim_and_monitor_talk_over_the_pty(procs: Callable[..., Proc], tmp_path: Path) -> None:
    order = tmp_path / "order.txt"
    order.write_text("AS 10H 7D KC 2S 3S 4S 5S 6S")
    sim = procs("shoe-sim", "--cards", str(order))
    path = sim.line()
    assert path.startswith("/")
    monitor = procs("shoe-monitor", path)
    connected = monitor.event(lambda e: e["event"] == "connected")
    assert connected["model"] == "DA-SIM"

    def step(command: str, reply: str) -> None:
        sim.send(command)
        assert sim.line() == reply

    step("", "card AS")
    first = monitor.event(lambda e: e["event"] == "card")
    assert first["card"] == "AS" and isinstance(first["seq"], int)
    assert set(first) == {"event", "card", "seq"}
    step("card", "card 10H")
    assert monitor.event(lambda e: e["event"] == "card")["card"] == "10H"
    step("badsum", "badsum 7D")
    error = monitor.event(lambda e: e["event"] == "error")
    assert error["kind"] == "checksum" and "detail" in error
    step("card", "card KC")
    gap = monitor.event(lambda e: e["event"] == "gap")
    assert gap["lost"] == 1 and set(gap) == {"event", "lost", "seq"}
    assert monitor.event(lambda e: e["event"] == "card")["card"] == "KC"
    step("drop 2", "drop 2")
    step("card", "card 2S")
    step("card", "card 3S")
    step("card", "card 4S")
    # two frames lost: normally 2S and 3S (a heartbeat in between would be lost instead)
    assert monitor.event(lambda e: e["event"] == "gap")["lost"] == 2
    seen: list[str] = []
    while not seen or seen[-1] != "4S":
        seen.append(monitor.event(lambda e: e["event"] == "card")["card"])
    assert seen in (["4S"], ["3S", "4S"])
    step("multi 2", "multi 5S 6S")
    multi = monitor.event(lambda e: e["event"] == "multi")
    assert (multi["count"], multi["cards"]) == (2, ["5S", "6S"])
    step("noread", "noread empty")  # the shoe ran out: EMPTY instead
    assert monitor.event(lambda e: e["event"] != "alive")["event"] == "empty"
    step("noise", "noise")
    step("cut", "cut")
    assert monitor.event(lambda e: e["event"] != "alive")["event"] == "cut"
    step("fault JAM", "fault JAM")
    fault = monitor.event(lambda e: e["event"] != "alive")
    assert (fault["event"], fault["code"], fault["text"]) == ("fault", "JAM", "card jam")
    step("shuffle", "shuffle")
    assert monitor.event(lambda e: e["event"] != "alive")["event"] == "loaded"
    step("noread", "noread AS")
    assert monitor.event(lambda e: e["event"] != "alive")["event"] == "noread"
    sim.send("bogus")
    step("card", "card 10H")  # an unknown command is reported and skipped
    assert monitor.stop() == 0
    assert sim.stop() == 0
    assert "unknown command 'bogus'" in sim.stderr_text()


def test_unplugged_sim_is_lost_and_found_by_the_monitor(procs: Callable[..., Proc]) -> None:
    # Real intervals here (the commands have no options to shrink them): 3 s watchdog.
    sim = procs("shoe-sim", "--seed", "4")
    monitor = procs("shoe-monitor", sim.line())
    monitor.event(lambda e: e["event"] == "connected")
    sim.send("unplug 6")  # twice the watchdog: lost for sure, then back
    assert sim.line() == "unplug 6"
    down = monitor.event(lambda e: e["event"] == "disconnected", timeout=10)
    assert "no data" in down["reason"]
    monitor.event(lambda e: e["event"] == "connected", timeout=15)


def test_sim_with_interval_deals_by_itself(procs: Callable[..., Proc]) -> None:
    sim = procs("shoe-sim", "--seed", "9", "--interval", "0.05", "--game", "star_elements", "--decks", "4", stdin=False)
    path = sim.line()
    log = EventLog()
    driver = ShoeDriver(path, log)
    driver.start(require_open=True)
    try:
        log.wait_for(Connected)
        first = log.wait_for(CardRead)
        second = log.wait_for(CardRead, lambda e: e is not first and e.seq != first.seq)
        assert first.card.is_element and second.card.is_element
    finally:
        assert driver.stop()
    assert sim.stop() == 0


def test_sim_speaks_beetek(procs: Callable[..., Proc]) -> None:
    sim = procs("shoe-sim", "--codec", "beetek", "--seed", "2")
    path = sim.line()
    log = EventLog()
    driver = ShoeDriver(path, log, codec="beetek")
    driver.start(require_open=True)
    try:
        log.wait_for(Connected)
        sim.send("card")
        dealt = sim.line().split()[1]
        assert str(log.wait_for(CardRead).card) == dealt
        sim.send("fault JAM")
        assert log.wait_for(ShoeFault).code == "JAM"
    finally:
        assert driver.stop()


def test_sim_and_monitor_speak_da1_xor(procs: Callable[..., Proc], tmp_path: Path) -> None:
    # shoes of earlier firmware: two hex digits, the 8-bit XOR (spec/shoe-protocol.md)
    order = tmp_path / "order.txt"
    order.write_text("AS 10H 7D KC")
    sim = procs("shoe-sim", "--codec", "da1-xor", "--cards", str(order))
    path = sim.line()
    monitor = procs("shoe-monitor", path, "--codec", "da1-xor")
    connected = monitor.event(lambda e: e["event"] == "connected")
    assert (connected["codec"], connected["weak_checksum"]) == ("da1-xor", True)
    sim.send("card")
    assert sim.line() == "card AS"
    assert monitor.event(lambda e: e["event"] == "card")["card"] == "AS"
    sim.send("badsum")
    assert sim.line() == "badsum 10H"
    error = monitor.event(lambda e: e["event"] == "error")
    assert error["kind"] == "checksum"
    assert re.fullmatch(r"\$\d{4},CARD,10,H\*[0-9A-F]{2}\\r\\n", error["detail"])  # two hex digits
    assert monitor.stop() == 0


def test_a_da1_monitor_refuses_a_da1_xor_shoe(procs: Callable[..., Proc]) -> None:
    # the CRC codec never takes the XOR frames: it asks ID? and sees only errors
    sim = procs("shoe-sim", "--codec", "da1-xor", "--seed", "5")
    monitor = procs("shoe-monitor", sim.line())
    error = monitor.event(lambda e: e["event"] == "error")
    assert error["kind"] == "malformed"
    sim.send("card")
    assert monitor.event(lambda e: e["event"] in ("card", "error"))["event"] == "error"


def test_sim_exits_at_end_of_input(procs: Callable[..., Proc]) -> None:
    sim = procs("shoe-sim", "--seed", "1")
    sim.line()
    assert sim.popen.stdin is not None
    sim.send("card")
    assert sim.line().startswith("card ")
    sim.popen.stdin.close()
    assert sim.popen.wait(timeout=WAIT_S) == 0


def test_sim_with_interval_stops_dealing_when_empty(procs: Callable[..., Proc], tmp_path: Path) -> None:
    order = tmp_path / "order.txt"
    order.write_text("AS KD")
    sim = procs("shoe-sim", "--cards", str(order), "--interval", "0.01", stdin=False)
    sim.line()
    assert [sim.line(), sim.line(), sim.line()] == ["card AS", "card KD", "empty"]
    assert sim.stop() == 0


VERBS = ["", "card", "noread", "multi", "noise", "badsum", "drop", "unplug", "cut", "fault", "shuffle", "burn", "dup", "hello", "quit"]
command_lines = st.one_of(
    st.text(max_size=30),
    st.tuples(st.sampled_from(VERBS), st.text(max_size=12)).map(" ".join),
    st.tuples(st.sampled_from(VERBS), st.integers(-3, 99).map(str)).map(" ".join),
)


@given(st.lists(command_lines, max_size=25))
@settings(deadline=None, max_examples=60)
def test_any_sim_command_line_is_obeyed_or_refused_in_words(lines: list[str]) -> None:
    with SimulatedShoe(seed=1, heartbeat_s=None) as shoe:
        for line in lines:
            try:
                reply = sim_command(shoe, line)
            except CommandError as exc:
                assert str(exc)
            else:
                assert reply is None or isinstance(reply, str)


def test_sim_skips_undecodable_input(procs: Callable[..., Proc]) -> None:
    sim = procs("shoe-sim", "--seed", "1")
    sim.line()
    assert sim.popen.stdin is not None
    sim.popen.stdin.buffer.write(b"\xff\xfe\n")  # type: ignore[attr-defined]
    sim.popen.stdin.flush()
    sim.send("card")
    assert sim.line().startswith("card ")
