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
    apply_round_delta,
    check_hello,
    decode,
    encode,
    hello,
    round_delta,
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


def test_a_client_asking_for_the_earlier_round_deltas_is_told_to_restart() -> None:
    """A screen left running through an upgrade asks for "delta": it would misread the parts
    form, so its hello is refused with words a technician can act on."""
    with pytest.raises(ProtocolError, match="client is of an earlier version; restart it") as caught:
        check_hello({"hello": "dealer-assist", "protocol": 1, "client": "screen", "round": "delta"})
    assert caught.value.code == "bad_request"
    assert hello("screen", deltas=True)["round"] == "parts"


def _settlement(player: str, bet: str, net: int) -> dict[str, Any]:
    return {"player": player, "bet": bet, "net": net, "rule": "4.3.2"}


def _over_the_wire(delta: dict[str, Any]) -> dict[str, Any]:
    return decode(encode(delta)[:-1])


def test_a_settlement_card_sends_only_the_new_settlements_and_a_new_round_in_recall_alone() -> None:
    """The settle output and the recall as their changed parts: two settlements already told
    are not sent again with the two a card adds; a round put in front of the recall is sent,
    the nine after it are not (the tenth falls off the end)."""
    recall = [{"round": n, "status": "settled", "net": {"p1": 10}} for n in range(10, 0, -1)]
    old = {"version": 7, "events": [{"event": "card", "card": "KS"}], "hold": "",
           "output": {"status": "in_progress", "settlements": [_settlement("p1", "lucky8", -5),
                                                               _settlement("p2", "lucky8", 40)],
                      "net": {"p1": -5, "p2": 40}, "dealer": {"cards": ["KS"]}},
           "recall": recall}
    new = {"version": 8, "events": [{"event": "card", "card": "KS"}, {"event": "card", "card": "7H"}], "hold": "",
           "output": {"status": "settled", "settlements": [_settlement("p1", "lucky8", -5),
                                                          _settlement("p2", "lucky8", 40),
                                                          _settlement("p1", "main", 10),
                                                          _settlement("p2", "main", -10)],
                      "net": {"p1": 5, "p2": 30}, "dealer": {"cards": ["KS", "7H"]}},
           "recall": [{"round": 11, "status": "settled", "net": {"p2": 30}}, *recall[:9]]}
    delta = _over_the_wire(round_delta(old, new))
    assert delta["since"] == 7 and delta["version"] == 8
    assert delta["events_from"] == 1 and delta["events"] == [{"event": "card", "card": "7H"}]
    assert delta["set"] == {"version": 8}  # output and recall go as parts, hold did not change
    output = delta["parts"]["output"]
    assert output["set"] == {"status": "settled"}
    assert output["inner"]["net"] == {"drop": [], "inner": {}, "set": {"p1": 5, "p2": 30}}
    assert output["inner"]["settlements"] == {"len": 4, "inner": {}, "set": {
        "2": _settlement("p1", "main", 10), "3": _settlement("p2", "main", -10)}}
    assert output["inner"]["dealer"] == {"drop": [], "inner": {}, "set": {"cards": ["KS", "7H"]}}
    assert delta["parts"]["recall"] == {"len": 10, "front": 1, "inner": {},
                                        "set": {"0": {"round": 11, "status": "settled", "net": {"p2": 30}}}}
    assert apply_round_delta(old, delta) == new
    # a client holding another version cannot apply it: it asks for a snapshot
    assert apply_round_delta({**old, "version": 6}, delta) is None


def test_any_change_of_state_comes_back_whole_from_its_delta() -> None:
    """Random states and changes (lists grown, shrunk, put in front of, dicts with keys added,
    changed and dropped): the delta, through JSON, always rebuilds the new state exactly."""
    import random

    rng = random.Random(33)

    def value(depth: int) -> Any:
        kind = rng.randrange(4 if depth < 3 else 2)
        if kind == 0:
            return rng.randrange(5)
        if kind == 1:
            return rng.choice(["a", "b", "c"])
        if kind == 2:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {rng.choice("wxyz"): value(depth + 1) for _ in range(rng.randrange(4))}

    def changed(v: Any) -> Any:
        if isinstance(v, list):
            out = [changed(x) if rng.random() < 0.3 else x for x in v]
            if rng.random() < 0.3:
                out = [value(2) for _ in range(rng.randrange(1, 3))] + out[:rng.randrange(len(out) + 1)]
            if rng.random() < 0.2 and out:
                out.pop()
            return out
        if isinstance(v, dict):
            out = {k: changed(x) if rng.random() < 0.4 else x for k, x in v.items() if rng.random() < 0.9}
            if rng.random() < 0.3:
                out[rng.choice("wxyz")] = value(2)
            return out
        return value(3) if rng.random() < 0.5 else v

    for n in range(500):
        old = {"version": n, "events": [], "picture": value(0), "output": value(0), "recall": [value(1) for _ in range(3)]}
        new = {"version": n + 1, "events": [], **{k: changed(old[k]) for k in ("picture", "output", "recall")}}
        assert apply_round_delta(old, _over_the_wire(round_delta(old, new))) == new, (old, new)


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
