"""dealer_assist/service/launch.py: the station service a screen starts for its account
(`station serve` as a child process on a private socket), with real processes."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import dealer_assist.service.station as st
from dealer_assist.service.client import ServiceClient
from dealer_assist.service.launch import LaunchError, answering, start_private_service


@pytest.fixture
def account(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh account's directories, no station configuration; the private socket's path
    (its runtime directory short: a Unix socket's path has at most 107 bytes, and a pytest
    worker's tmp_path may be longer)."""
    for name in ("HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    runtime = Path(tempfile.mkdtemp(prefix="da-run-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.delenv(st.CONFIG_ENV, raising=False)
    monkeypatch.delenv("DEALER_ASSIST_SOCKET", raising=False)
    try:
        yield runtime / "dealer-assist" / "station.sock"
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


def test_the_service_answers_on_its_socket_until_stopped_by_its_pid(account: Path) -> None:
    service = start_private_service()
    try:
        assert service.socket == account and answering(account)
        client = ServiceClient(account, "screen")
        assert client.station.get("simulated") is True  # the simulated shoe, no station configuration
        assert client.request("state")["needs_enrolment"] is True  # a new store: the enrolment comes first
        client.close()
        # a second start while it runs: refused, naming the socket; the first one untouched
        with pytest.raises(LaunchError, match="already running for this account"):
            start_private_service()
        assert answering(account)
    finally:
        began = time.monotonic()
        status = service.stop()
        took = time.monotonic() - began
    assert status == 0, f"exit status {status} after {took:.1f} s"  # SIGTERM: a clean stop
    assert not answering(account) and not account.exists()
    with pytest.raises(ProcessLookupError):
        os.kill(service.pid, 0)


def test_a_service_that_cannot_start_says_why(account: Path, tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    with pytest.raises(LaunchError, match="the station service did not start: .*file"):
        start_private_service(["--state-dir", str(not_a_dir / "state")])
    assert not answering(account)


def test_the_screen_loads_while_the_service_starts_and_a_failure_there_stops_the_child(account: Path) -> None:
    """``meanwhile`` (the screen's imports) runs after the child is spawned, before its
    "serving on" line is awaited; if it fails the child is stopped, never left running."""
    seen: list[bool] = []
    service = start_private_service(meanwhile=lambda: seen.append(True))
    try:
        assert seen == [True] and answering(account)
    finally:
        assert service.stop() == 0
    spawned: list[int] = []

    def fails() -> None:
        # the child exists while the screen loads (its PID is one of this process's children)
        spawned.extend(int(p) for p in os.listdir("/proc") if p.isdigit() and _parent(int(p)) == os.getpid()
                       and str(account) in _command(int(p)))
        raise RuntimeError("the screen's modules could not be loaded")

    with pytest.raises(RuntimeError, match="could not be loaded"):
        start_private_service(meanwhile=fails)
    assert spawned, "the service was spawned before the screen loaded"
    for pid in spawned:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert not answering(account)


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as line:
            return line.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1
