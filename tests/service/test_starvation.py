"""Issue 39, Build 1: a real ``station serve`` that no client can starve: 2,000 idle
connections and a hello-less flood from another OS account, a full descriptor table, a
connection that never says hello, JSON nested 100,000 deep; and systemd's watchdog pinged
only while the service is alive."""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import dealer_assist.service.station as st
from dealer_assist.service.client import SOCKET_ENV, ServiceClient, ServiceError
from dealer_assist.service.probe import handshake
from dealer_assist.service.protocol import LineReader, decode, encode, hello
from dealer_assist.service.server import HELLO_SECONDS, PER_ACCOUNT
from tests.service.conftest import make_shoe

ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="a second OS account (setuid) needs root")


def _serve(base: Path, extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    base.mkdir(parents=True, exist_ok=True)
    sim = make_shoe("10S 9H QD 8C")
    config = base / "station.toml"
    state = base / "state"
    sock = base / "run" / "station.sock"
    config.write_text(st.render_config(st.StationConfig(table="BJ-07", pit="PIT-2", game="lucky8",
                                                        shoe_port=sim.path, store=str(state / "table.db"))))
    env = {k: v for k, v in os.environ.items() if k not in (SOCKET_ENV, st.CONFIG_ENV)} | (extra_env or {})
    proc = subprocess.Popen([sys.executable, "-m", "dealer_assist", "station", "serve", "--config", str(config),
                             "--state-dir", str(state), "--socket", str(sock), "--log-dir", str(base / "log")],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not (sock.exists() and handshake(sock, timeout_s=1).ok):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the service did not answer within 30 s"
        time.sleep(0.1)
    return {"sim": sim, "sock": sock, "proc": proc, "log": base / "log" / "dealer-assist.log"}


@pytest.fixture
def service() -> Iterator[dict[str, Any]]:
    base = Path(tempfile.mkdtemp(prefix="da-starve-"))
    base.chmod(0o755)  # another account's flood reaches the socket (as the group would)
    served = _serve(base)
    served["sock"].parent.chmod(0o755)
    served["sock"].chmod(0o666)
    try:
        yield served
    finally:
        served["proc"].terminate()
        served["proc"].wait(timeout=30)
        served["sim"].close()


def _log_has(path: Path, text: str, within: float = 15.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text(encoding="utf-8"):
            return True
        time.sleep(0.1)
    return False


FLOOD = r"""
import os, resource, socket, sys, time
os.setgid(65534); os.setuid(65534)
path, seconds = sys.argv[1], float(sys.argv[2])
held, hello = [], b'{"hello":"dealer-assist","protocol":1,"client":"screen"}\n'
for i in range(2000):  # idle connections: half of them say hello and then nothing more
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect(path)
        if i % 2:
            s.send(hello)
    except OSError:
        pass
    held.append(s)
print("held", flush=True)
end = time.monotonic() + seconds
while time.monotonic() < end:  # and a flood of connections that never say hello
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect(path)
    except OSError:
        pass
    held.append(s)
    if len(held) > 3000:
        held.pop(0).close()
    time.sleep(0.002)
"""


def _flood_as_nobody(sock: Path, seconds: float) -> subprocess.Popen[str]:
    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))

    proc = subprocess.Popen([sys.executable, "-c", FLOOD, str(sock), str(seconds)], preexec_fn=limits,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


@needs_root
def test_a_new_screen_is_answered_through_2000_idle_connections_and_a_hello_less_flood(
        service: dict[str, Any]) -> None:
    flood = _flood_as_nobody(service["sock"], seconds=HELLO_SECONDS + 6)
    try:
        for _ in range(3):  # while the flood goes on: a new client (another account) is answered
            deadline = time.monotonic() + 10
            client = ServiceClient(service["sock"], kind="screen", timeout_s=10)
            try:
                assert client.account == "root"  # its hello answered: the service saw who it is
                state = client.request("state")
                assert state["needs_enrolment"] is True and time.monotonic() < deadline
            finally:
                client.close()
            time.sleep(1)
        # the flood is logged, one line per burst (not one per connection)
        log = service["log"]
        assert _log_has(log, f"the account's limit of {PER_ACCOUNT} connections is reached (account nobody)")
        assert _log_has(log, f"no hello within {HELLO_SECONDS:.0f} s (account nobody)")
        lines = log.read_text(encoding="utf-8").count("connection refused: the account's limit")
        assert 1 <= lines < 20
    finally:
        flood.kill()
        flood.wait()
    assert service["proc"].poll() is None


def test_a_full_descriptor_table_is_waited_out_and_accepting_resumes(tmp_path: Path) -> None:
    base = tmp_path
    served = _serve(base)
    proc, sock = served["proc"], served["sock"]
    hogs: list[socket.socket] = []
    try:
        used = len(os.listdir(f"/proc/{proc.pid}/fd"))
        limit = used + 6
        resource.prlimit(proc.pid, resource.RLIMIT_NOFILE, (limit, limit))  # as a low LimitNOFILE
        for _ in range(limit):  # more than the service can hold: accept() fails with EMFILE
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(sock))
            s.sendall(encode(hello("screen")))
            hogs.append(s)
        assert _log_has(served["log"], "accept failed: Too many open files")
        for s in hogs:
            s.close()
        hogs.clear()
        deadline = time.monotonic() + 10
        while True:  # the held ones end; the loop accepts again
            try:
                client = ServiceClient(sock, kind="screen", timeout_s=10)
                break
            except ServiceError:
                assert time.monotonic() < deadline, "the service never accepted again"
                time.sleep(0.2)
        try:
            assert client.request("state")["needs_enrolment"] is True
        finally:
            client.close()
        assert proc.poll() is None
    finally:
        for s in hogs:
            s.close()
        proc.terminate()
        proc.wait(timeout=30)
        served["sim"].close()


def test_a_connection_without_a_hello_is_closed_and_deep_json_is_a_bad_request(tmp_path: Path) -> None:
    served = _serve(tmp_path)
    try:
        silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        silent.settimeout(HELLO_SECONDS + 10)
        silent.connect(str(served["sock"]))
        silent.sendall(b'{"hello":')  # a drip that never ends its line
        assert silent.recv(100) == b""  # closed by the service at the hello deadline
        silent.close()
        raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        raw.settimeout(10)
        raw.connect(str(served["sock"]))
        reader = LineReader(raw)
        raw.sendall(encode(hello("screen")))
        assert decode(reader.read_line() or b"")["account"] == "root"
        raw.sendall(b"[" * 100_000 + b"\n")
        raw.sendall(b'{"id":7,"op":"state","args":' + b'{"a":' * 50_000 + b"1" + b"}" * 50_001 + b"\n")
        raw.sendall(encode({"id": 8, "op": "release_hold", "args": {}}))
        raw.sendall(encode({"id": 9, "op": "state", "args": {}}))
        replies = [decode(reader.read_line() or b"") for _ in range(4)]
        assert [r["error"]["code"] for r in replies[:2]] == ["bad_request", "bad_request"]
        assert replies[2]["id"] == 8 and replies[2]["error"]["code"] == "auth"  # answered all the same
        assert replies[3]["id"] == 9 and replies[3]["ok"] is True
        raw.close()
        log = served["log"].read_text(encoding="utf-8")
        assert "Traceback" not in log and "request failed" not in log
    finally:
        served["proc"].terminate()
        served["proc"].wait(timeout=30)
        served["sim"].close()


def test_the_watchdog_is_pinged_while_the_service_is_alive(tmp_path: Path) -> None:
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    where = tmp_path / "notify.sock"
    notify.bind(str(where))
    notify.settimeout(10)
    served = _serve(tmp_path / "s", {"NOTIFY_SOCKET": str(where), "WATCHDOG_USEC": "2000000"})
    try:
        said = [notify.recv(100).decode() for _ in range(3)]
        assert said[0] == "READY=1" and said[1:] == ["WATCHDOG=1", "WATCHDOG=1"]
    finally:
        served["proc"].terminate()
        served["proc"].wait(timeout=30)
        served["sim"].close()
        notify.close()
