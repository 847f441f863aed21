"""The station service's wire protocol (docs/station.md, "The station service and its protocol").

A Unix stream socket; each message is one line of UTF-8 JSON ending in ``\\n``, at most
:data:`MAX_LINE` bytes. The client speaks first (:func:`hello`); the service answers with
its own hello, naming the OS account it saw by SO_PEERCRED, or an error and closes.
Then requests ``{"id": N, "op": NAME, "args": {...}}`` get replies ``{"id": N, "ok": true,
"result": ...}`` or ``{"id": N, "ok": false, "error": {"code", "message", "clause"}}``;
the service also pushes notifications ``{"notify": NAME, "data": {...}}``.
"""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

NAME = "dealer-assist"
PROTOCOL = 1
MAX_LINE = 1 << 20  # 1 MiB, the newline included
CLIENTS = ("screen", "review", "cli")
ERROR_CODES = ("refused", "pin", "auth", "bad_request", "busy", "internal")

__all__ = [
    "CLIENTS", "DELTA_PARTS", "ERROR_CODES", "MAX_LINE", "NAME", "PROTOCOL", "ROUND_FORM", "LineReader", "ProtocolError",
    "answer", "apply_round_delta", "check_hello", "decode", "encode", "error_reply", "hello", "notification", "ok_reply",
    "round_delta", "service_hello",
]


class ProtocolError(Exception):
    """A message the other side cannot take: ``code`` is one of :data:`ERROR_CODES`."""

    def __init__(self, code: str, message: str, clause: str | None = None, *, reason: str = "") -> None:
        super().__init__(message)
        self.code = code if code in ERROR_CODES else "internal"
        self.message = message
        self.clause = clause
        self.reason = reason  # a refused PIN: wrong, locked, must_change, new_pin (PinCheck.reason)

    def as_json(self) -> dict[str, Any]:
        answer: dict[str, Any] = {"code": self.code, "message": self.message, "clause": self.clause}
        if self.reason:
            answer["reason"] = self.reason
        return answer


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        # exact money on the wire: an integer, or a decimal number written out
        return int(value) if value == value.to_integral_value() else float(str(value))
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def encode(message: dict[str, Any]) -> bytes:
    """One message as its line (compact JSON, UTF-8, ``\\n``); ProtocolError if too long."""
    data = json.dumps(message, separators=(",", ":"), ensure_ascii=False, default=_default).encode("utf-8") + b"\n"
    if len(data) > MAX_LINE:
        raise ProtocolError("internal", f"a message of {len(data)} bytes is over the {MAX_LINE}-byte limit")
    return data


def decode(line: bytes) -> dict[str, Any]:
    """One line as a message (a JSON object); ProtocolError(bad_request) otherwise. Numbers with
    a fraction are read as Decimal (money is exact)."""
    try:
        value = json.loads(line.decode("utf-8"), parse_float=Decimal)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError("bad_request", f"not a line of UTF-8 JSON: {exc}") from None
    except RecursionError:  # JSON nested deeper than the parser goes: bad input, not a fault
        raise ProtocolError("bad_request", "JSON nested too deep") from None
    if not isinstance(value, dict):
        raise ProtocolError("bad_request", "a message is a JSON object")
    return value


# A table op's reply to a client that asked for deltas: ``{"round_version": V}``. The service
# told that client the round of version V (its ``round`` notification) before this reply, so
# the whole state is not sent a second time; ServiceClient answers with the round it holds.
ROUND_TOLD = "round_version"
# A client's hello asks for its ``round`` notifications as :func:`round_delta`s with
# ``"round": ROUND_FORM``. "delta" was the form before the settle output and the recall were
# sent as their parts: a client still asking for it is of an earlier version (a screen left
# running through an upgrade) and is told so at its hello, never sent a form it misreads.
ROUND_FORM = "parts"


def hello(client: str, *, deltas: bool = False) -> dict[str, Any]:
    """The client's hello; ``deltas``: its ``round`` notifications as :func:`round_delta`s."""
    message: dict[str, Any] = {"hello": NAME, "protocol": PROTOCOL, "client": client}
    if deltas:
        message["round"] = ROUND_FORM
    return message


def round_delta(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """The ``round`` notification as what changed since the last one told (``old``, version
    ``since``): the new events (from index ``events_from``), the fields that changed (``set``)
    and, for the fields of :data:`DELTA_PARTS`, their changed parts (``parts``). A client that
    holds the state of version ``since`` rebuilds ``new`` with :func:`apply_round_delta`; one
    that does not asks for a snapshot (op ``state``)."""
    events, before = list(new.get("events") or []), list((old or {}).get("events") or [])
    appended = old is not None and before == events[:len(before)]
    changed = {k: v for k, v in new.items() if k != "events" and (old is None or k not in old or old[k] != v)}
    delta: dict[str, Any] = {"version": new.get("version"), "since": old.get("version") if old is not None else None,
                             "events_from": len(before) if appended else 0,
                             "events": events[len(before):] if appended else events, "set": changed}
    parts: dict[str, Any] = {}
    for key, depth in DELTA_PARTS.items():
        was, now = (old or {}).get(key), changed.get(key)
        if type(was) is type(now) and isinstance(now, (dict, list)):
            parts[key] = _changes(was, changed.pop(key), depth)
    if parts:
        delta["parts"] = parts
    return delta


# The fields sent as their changed parts, and how deep: the round's picture (engine/picture.py)
# down to each area of its layout (a card changes one area; an area's hands and wagers are sent
# whole); the settle output down to each entry of its lists (a settlement card adds its
# settlements: the others are not sent again); the dealer's recall, each round whole (a round
# taken off the table goes in front: the nine after it are not sent again)
DELTA_PARTS = {"picture": 3, "output": 1, "recall": 0}


def _changes(old: Any, new: Any, depth: int) -> dict[str, Any]:
    """``new`` as the changes to ``old`` (both dicts, or both lists): the keys (indexes) set
    anew, those dropped (a list: its new length; ``front``: how many entries went in before
    the old ones), and down to ``depth`` the changes inside."""
    inner: dict[str, Any] = {}
    put: dict[str, Any] = {}
    if isinstance(new, dict):
        keys: list[Any] = [k for k in new if k not in old or old[k] != new[k]]
        out: dict[str, Any] = {"drop": [k for k in old if k not in new]}
    else:
        front = _front(old, new)
        if front:
            old = [None] * front + list(old)
        keys = [i for i, v in enumerate(new) if i >= len(old) or old[i] != v]
        out = {"len": len(new), "front": front} if front else {"len": len(new)}
    for k in keys:
        was, now = (old.get(k) if isinstance(old, dict) else old[k] if k < len(old) else None), new[k]
        if depth > 0 and type(was) is type(now) and isinstance(now, (dict, list)):
            inner[str(k)] = _changes(was, now, depth - 1)
        else:
            put[str(k)] = now
    out.update(set=put, inner=inner)
    return out


def _front(old: list[Any], new: list[Any]) -> int:
    """How many entries ``new`` has before the old ones when it is ``old`` with entries put in
    front (and some dropped at the end); 0 otherwise."""
    if not old or not new or new[0] == old[0]:
        return 0
    try:
        front = new.index(old[0])
    except ValueError:
        return 0
    kept = len(new) - front
    return front if kept > 0 and new[front:] == old[:kept] else 0


def _patched(base: Any, changes: dict[str, Any]) -> Any:
    """``base`` with :func:`_changes`' changes: a new dict or list; its parts not changed are
    ``base``'s own."""
    if isinstance(base, dict):
        out: Any = {k: v for k, v in base.items() if k not in changes["drop"]}
        for k, v in changes["set"].items():
            out[k] = v
        for k, sub in changes["inner"].items():
            out[k] = _patched(base[k], sub)
        return out
    shifted = [None] * int(changes.get("front") or 0) + list(base)  # the entries put in front
    out = shifted[:int(changes["len"])]
    out.extend([None] * (int(changes["len"]) - len(out)))
    for k, v in changes["set"].items():
        out[int(k)] = v
    for k, sub in changes["inner"].items():
        out[int(k)] = _patched(shifted[int(k)], sub)
    return out


def apply_round_delta(base: dict[str, Any] | None, delta: dict[str, Any]) -> dict[str, Any] | None:
    """``base`` (the state of version ``delta["since"]``) brought to the delta's version; None
    when ``base`` is not that state (notifications missed: ask for a snapshot)."""
    if base is None or delta.get("since") is None or base.get("version") != delta.get("since"):
        return None
    events = list(base.get("events") or [])[:int(delta.get("events_from") or 0)] + list(delta.get("events") or [])
    state = {**base, **(delta.get("set") or {}), "events": events, "version": delta.get("version")}
    for key, changes in (delta.get("parts") or {}).items():
        if not isinstance(base.get(key), (dict, list)):
            return None
        state[key] = _patched(base[key], changes)
    return state


def check_hello(message: dict[str, Any]) -> str:
    """The client's kind from its hello; ProtocolError if it is not one this service speaks."""
    if message.get("hello") != NAME:
        raise ProtocolError("bad_request", f"the first message is a hello from a {NAME} client")
    if message.get("protocol") != PROTOCOL:
        raise ProtocolError("bad_request", f"protocol {message.get('protocol')!r} is not spoken here "
                                           f"(this service speaks protocol {PROTOCOL})")
    form = message.get("round")
    if form is not None and form != ROUND_FORM:
        raise ProtocolError("bad_request", f"round notifications as {form!r} are not sent by this service (it sends "
                                           f"{ROUND_FORM!r}): the client is of an earlier version; restart it")
    client = message.get("client")
    if client not in CLIENTS:
        raise ProtocolError("bad_request", f"client must be one of {', '.join(CLIENTS)}, not {client!r}")
    return str(client)


def service_hello(station: dict[str, Any], account: str) -> dict[str, Any]:
    return {"hello": NAME, "protocol": PROTOCOL, "station": station, "account": account}


def ok_reply(request_id: Any, result: Any) -> dict[str, Any]:
    return {"id": request_id, "ok": True, "result": result}


def error_reply(request_id: Any, error: ProtocolError) -> dict[str, Any]:
    return {"id": request_id, "ok": False, "error": error.as_json()}


def answer(line: bytes, act: Callable[[str, dict[str, Any]], Any], log: logging.Logger,
           what: str = "request") -> dict[str, Any]:
    """The reply to one request line: ``act(op, args)``'s result, or an error reply — the
    client's fault (bad_request, a ProtocolError act raised) or, logged, the service's."""
    request_id: Any = None
    try:
        message = decode(line)
        request_id = message.get("id")
        op, args = message.get("op"), message.get("args", {})
        if not isinstance(op, str) or not isinstance(args, dict):
            raise ProtocolError("bad_request", "a request is {\"id\": N, \"op\": NAME, \"args\": {...}}")
        return ok_reply(request_id, act(op, args))
    except ProtocolError as exc:
        return error_reply(request_id, exc)
    except RecursionError:  # nested too deep for the table's checks: the client's fault
        return error_reply(request_id, ProtocolError("bad_request", "a request nested too deep"))
    except Exception as exc:  # a fault of the service: answered, logged, never a dead client
        log.exception("%s failed", what)
        return error_reply(request_id, ProtocolError("internal", f"the service failed: {exc}"))


def notification(name: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"notify": name, "data": data}


class LineReader:
    """Lines from a socket, each at most :data:`MAX_LINE` bytes (ProtocolError beyond)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = bytearray()

    def read_line(self, *, limit: int = MAX_LINE, deadline: float | None = None) -> bytes | None:
        """The next line without its newline; None at the end of the stream. ``limit``: its
        length at most (ProtocolError beyond); ``deadline`` (time.monotonic): TimeoutError
        when the whole line has not come by then (a slow drip of bytes does not extend it)."""
        while True:
            end = self.buffer.find(b"\n")
            if 0 <= end < limit:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                return line
            if len(self.buffer) >= limit:
                raise ProtocolError("bad_request", f"a line over {limit} bytes")
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no whole line in time")
                self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk
