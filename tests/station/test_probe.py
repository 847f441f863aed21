"""dealer_assist.service.probe against real Unix sockets: a listener that answers the
STATION-CONTRACT handshake as written there, one that refuses it, one that says nothing, one
that answers garbage, and no listener at all."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dealer_assist.service.probe import handshake

Answer = Callable[[bytes], bytes | None]


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[Callable[[Answer], Path]]:
    """A socket that reads one line and writes what ``answer`` makes of it (None: nothing)."""
    servers: list[tuple[socket.socket, threading.Thread]] = []
    received: list[bytes] = []

    def start(answer: Answer) -> Path:
        path = tmp_path / f"s{len(servers)}.sock"
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(path))
        server.listen(1)

        def serve() -> None:
            conn, _ = server.accept()
            with conn:
                data = b""
                while b"\n" not in data:
                    chunk = conn.recv(4096)
                    if not chunk:
                        return
                    data += chunk
                received.append(data)
                reply = answer(data)
                if reply is not None:
                    conn.sendall(reply)
                    conn.shutdown(socket.SHUT_WR)
                else:
                    threading.Event().wait(2.0)  # silent past the probe's timeout

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        servers.append((server, thread))
        return path

    start.received = received  # type: ignore[attr-defined]
    yield start
    for server, thread in servers:
        server.close()
        thread.join(timeout=5)


def test_the_contracts_answer_is_ok(listener: Callable[[Answer], Path]) -> None:
    station = {"table": "BJ-07", "pit": "Pit 2"}
    path = listener(lambda line: json.dumps({"hello": "dealer-assist", "protocol": 1, "station": station,
                                             "account": "dealer1"}).encode() + b"\n")
    found = handshake(path)
    assert found.ok and found.account == "dealer1" and found.station == station
    # the client spoke first, one JSON line as the contract says
    sent = listener.received[0]  # type: ignore[attr-defined]
    assert sent.endswith(b"\n") and sent.count(b"\n") == 1
    assert json.loads(sent) == {"hello": "dealer-assist", "protocol": 1, "client": "cli"}


def test_a_refusal_is_named(listener: Callable[[Answer], Path]) -> None:
    path = listener(lambda line: b'{"error": {"code": "bad_request", "message": "protocol 1 is not spoken"}}\n')
    found = handshake(path)
    assert not found.ok and "refused the handshake: protocol 1 is not spoken" in found.problem


@pytest.mark.parametrize(("reply", "words"), [
    (b"HTTP/1.0 400 Bad Request\r\n\r\n", "not JSON"),
    (b'["hello"]\n', "not a JSON object"),
    (b'{"hello": "dealer-assist", "protocol": 2}\n', "not a Dealer Assist service of protocol 1"),
    (b"", "closed the connection without answering"),
])
def test_a_wrong_answer_is_named(listener: Callable[[Answer], Path], reply: bytes, words: str) -> None:
    found = handshake(listener(lambda line: reply))
    assert not found.ok and words in found.problem


def test_silence_is_a_timeout_not_a_hang(listener: Callable[[Answer], Path]) -> None:
    found = handshake(listener(lambda line: None), timeout_s=0.5)
    assert not found.ok and "no answer to the handshake in 0.5 s" in found.problem


def test_no_service(tmp_path: Path) -> None:
    missing = handshake(tmp_path / "station.sock")
    assert not missing.ok and "the service is not running" in missing.problem
    stale = tmp_path / "stale.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(stale))
    sock.close()  # a socket file nobody listens on
    refused = handshake(stale)
    assert not refused.ok and "connection refused" in refused.problem
