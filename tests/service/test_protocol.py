"""The wire protocol: framing, the handshake and money kept exact."""

from __future__ import annotations

import json
import socket
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.service.protocol import (
    MAX_LINE,
    LineReader,
    ProtocolError,
    check_hello,
    decode,
    encode,
    hello,
)


def test_a_message_is_one_line_and_money_stays_exact() -> None:
    line = encode({"id": 1, "op": "wager", "args": {"amount": Decimal("12.35")}})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    back = decode(line[:-1])
    assert back["args"]["amount"] == Decimal("12.35") and isinstance(back["args"]["amount"], Decimal)


@pytest.mark.parametrize(("message", "text"), [
    ({"hello": "other"}, "hello from a dealer-assist client"),
    ({"hello": "dealer-assist", "protocol": 2, "client": "screen"}, "protocol 2 is not spoken here"),
    ({"hello": "dealer-assist", "protocol": 1, "client": "robot"}, "client must be one of"),
])
def test_a_hello_the_service_does_not_speak_is_refused(message: dict[str, Any], text: str) -> None:
    with pytest.raises(ProtocolError, match=text) as caught:
        check_hello(message)
    assert caught.value.code == "bad_request"


def test_the_hello_names_the_client() -> None:
    assert check_hello(hello("review")) == "review"


@pytest.mark.parametrize("line", [b"not json", b"[1, 2]", b"\xff\xfe"])
def test_a_line_that_is_not_a_json_object_is_a_bad_request(line: bytes) -> None:
    with pytest.raises(ProtocolError) as caught:
        decode(line)
    assert caught.value.code == "bad_request"


def test_a_line_over_the_limit_is_refused() -> None:
    a, b = socket.socketpair()
    sender = threading.Thread(target=lambda: _send_quietly(a, b"x" * (MAX_LINE + 10)), daemon=True)
    sender.start()
    try:
        with pytest.raises(ProtocolError, match="over"):
            LineReader(b).read_line()
    finally:
        b.close()
        sender.join(5)
        a.close()


def _send_quietly(sock: socket.socket, data: bytes) -> None:
    try:
        sock.sendall(data)
    except OSError:
        pass  # the reader stopped reading: what the test wants


def test_lines_split_across_reads_are_joined() -> None:
    a, b = socket.socketpair()
    try:
        a.sendall(b'{"id": 1')
        a.sendall(b', "op": "state"}\n{"id": 2}\n')
        reader = LineReader(b)
        assert json.loads(reader.read_line() or b"") == {"id": 1, "op": "state"}
        assert json.loads(reader.read_line() or b"") == {"id": 2}
    finally:
        a.close()
        b.close()


def test_the_service_answers_a_foreign_hello_with_an_error_and_closes(station: Any, tmp_path: Path) -> None:
    s = station("10S")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(s.socket))
    sock.sendall(encode({"hello": "dealer-assist", "protocol": 9, "client": "screen"}))
    reader = LineReader(sock)
    answer = decode(reader.read_line() or b"")
    assert answer["error"]["code"] == "bad_request" and "protocol 9" in answer["error"]["message"]
    assert reader.read_line() is None  # closed
    sock.close()
