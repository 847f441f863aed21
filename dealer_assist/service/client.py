"""A client of the station service (no Qt): connect, hello, requests and notifications.

``request`` blocks until its reply; notifications are handed to ``on_notify`` from the
client's reader thread (the Qt adapter in ui/ turns them into signals)."""

from __future__ import annotations

import itertools
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dealer_assist.service.protocol import (
    ROUND_TOLD,
    LineReader,
    ProtocolError,
    apply_round_delta,
    decode,
    encode,
    hello,
)

SOCKET_ENV = "DEALER_ASSIST_SOCKET"
STATION_SOCKET = Path("/run/dealer-assist/station.sock")


def dev_socket_path() -> Path:
    """Where a development service listens: $XDG_RUNTIME_DIR, else /tmp/dealer-assist-$UID (0700)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) / "dealer-assist" if runtime else Path(f"/tmp/dealer-assist-{os.getuid()}")
    return base / "station.sock"


class ServiceError(Exception):
    """The service refused or failed a request: ``code`` (refused, pin, auth, bad_request,
    internal), ``message`` and the clause when a rule refused it."""

    def __init__(self, code: str, message: str, clause: str | None = None, reason: str = "") -> None:
        super().__init__(message)
        self.code, self.message, self.clause, self.reason = code, message, clause, reason


class ServiceClient:
    def __init__(self, path: Path | str, kind: str = "screen",
                 on_notify: Callable[[str, dict[str, Any]], None] | None = None,
                 timeout_s: float = 30.0) -> None:
        self.path = Path(path)
        self.on_notify = on_notify
        self.timeout_s = timeout_s
        self.bytes_in = 0  # every line read, newlines counted (the benchmark's bytes per card)
        self.notice_bytes = 0  # of which notifications
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout_s)  # a service still starting: never a connect that hangs
        try:
            self._connect(time.monotonic() + timeout_s)
            self.reader = LineReader(self.sock)
            self.sock.sendall(encode(hello(kind, deltas=True)))
            answer = self._read()
        except PermissionError:
            self.sock.close()
            raise ServiceError("permission", _not_in_group(self.path)) from None
        except (OSError, ProtocolError) as exc:
            self.sock.close()
            text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
            raise ServiceError("internal", f"the station service is not answering at {self.path}: {text}") from None
        self.sock.settimeout(None)
        if answer is None or "error" in answer:
            error = (answer or {}).get("error") or {}
            self.sock.close()
            raise ServiceError(str(error.get("code", "internal")), str(error.get("message", "no answer")))
        self.station: dict[str, Any] = answer.get("station") or {}
        self.account = str(answer.get("account", ""))
        self._ids = itertools.count(1)
        self._waiting: dict[int, tuple[threading.Event, list[dict[str, Any]]]] = {}
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()  # requests from several threads: whole lines each
        self._closed = False
        # notifications read so far (the reader thread's count): a reply carries the count
        # at its arrival, so a screen knows which notifications are older than a reply
        self.notices = 0
        # the round as the notifications built it (they carry what changed: protocol.round_delta);
        # notifications missed (a new connection): a snapshot asked for (op state), the
        # deltas read meanwhile applied after it
        self.round: dict[str, Any] | None = None
        self._snapshot_id: int | None = None
        self._behind: list[dict[str, Any]] = []
        self._thread = threading.Thread(target=self._read_loop, name="service-client", daemon=True)
        self._thread.start()

    def _connect(self, deadline: float) -> None:
        """Connect; a full listen backlog (EAGAIN: the service is accepting a burst of
        connections, e.g. a flood) is tried again until ``deadline``."""
        while True:
            try:
                self.sock.connect(str(self.path))
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)

    def _read(self) -> dict[str, Any] | None:
        line = self.reader.read_line()
        if line is None:
            return None
        self.bytes_in += len(line) + 1
        message = decode(line)
        if "notify" in message:
            self.notice_bytes += len(line) + 1
        return message

    def _read_loop(self) -> None:
        try:
            while True:
                message = self._read()
                if message is None:
                    break
                if "notify" in message:
                    self.notices += 1
                    name, data = str(message["notify"]), message.get("data") or {}
                    if name == "round":
                        data = self._round(data)
                        if data is None:
                            continue
                    if self.on_notify is not None:
                        self.on_notify(name, data)
                    continue
                if self._snapshot_id is not None and message.get("id") == self._snapshot_id:
                    self._snapshot(message)
                    continue
                with self._lock:
                    waiter = self._waiting.pop(message.get("id", -1), None)
                if waiter is not None:
                    waiter[1].append({**message, "notices": self.notices})
                    waiter[0].set()
        except (OSError, ProtocolError):
            pass
        finally:
            self._closed = True
            with self._lock:
                waiting, self._waiting = self._waiting, {}
            for event, _ in waiting.values():
                event.set()
            if self.on_notify is not None:
                self.on_notify("closed", {})

    def _round(self, delta: dict[str, Any]) -> dict[str, Any] | None:
        """The round a delta makes of the one held (the reader thread's); None while a
        snapshot is awaited (one asked for now when the delta does not follow on)."""
        if self._snapshot_id is None:
            state = apply_round_delta(self.round, delta)
            if state is not None:
                self.round = state
                return state
            self._snapshot_id = next(self._ids)
            with self._send_lock:
                self.sock.sendall(encode({"id": self._snapshot_id, "op": "state", "args": {}}))
        self._behind.append(delta)
        return None

    def _snapshot(self, reply: dict[str, Any]) -> None:
        """The snapshot's reply: the round, then the deltas read since that follow on."""
        self._snapshot_id = None
        if not reply.get("ok") or not isinstance(reply.get("result"), dict):
            self._behind.clear()
            return
        state: dict[str, Any] | None = reply["result"]
        behind, self._behind = self._behind, []
        for delta in behind:
            assert state is not None
            if isinstance(delta.get("version"), int) and delta["version"] <= int(state.get("version") or 0):
                continue  # already in the snapshot
            state = apply_round_delta(state, delta)
            if state is None:  # a gap again: another snapshot
                self.round = None
                self._round(delta)
                return
        self.round = state
        if self.on_notify is not None and state is not None:
            self.on_notify("round", state)

    @property
    def closed(self) -> bool:
        return self._closed

    def request(self, op: str, **args: Any) -> Any:
        """Send one request and wait for its reply; ServiceError if refused or gone."""
        return self.request_counted(op, **args)[0]

    def request_counted(self, op: str, **args: Any) -> tuple[Any, int]:
        """``request``, and the number of notifications read before its reply (the service
        tells every screen before it answers: those are no newer than the reply)."""
        if self._closed:
            raise ServiceError("internal", "the station service closed the connection")
        request_id = next(self._ids)
        done = threading.Event()
        box: list[dict[str, Any]] = []
        with self._lock:
            self._waiting[request_id] = (done, box)
        try:
            with self._send_lock:
                self.sock.sendall(encode({"id": request_id, "op": op, "args": args}))
        except OSError as exc:
            with self._lock:
                self._waiting.pop(request_id, None)
            raise ServiceError("internal", f"the station service closed the connection: {exc}") from None
        if not done.wait(self.timeout_s) or not box:
            raise ServiceError("internal", f"no answer from the station service to {op}")
        reply = box[0]
        if reply.get("ok"):
            result = reply.get("result")
            if isinstance(result, dict) and set(result) == {ROUND_TOLD}:
                result = self.round_at(int(result[ROUND_TOLD]))
            return result, int(reply["notices"])
        error = reply.get("error") or {}
        raise ServiceError(str(error.get("code", "internal")), str(error.get("message", "")), error.get("clause"),
                           str(error.get("reason") or ""))

    def round_at(self, version: int) -> dict[str, Any]:
        """The round of ``version`` or newer, which the service told before its reply (the
        reader thread applied it before it handed over the reply); a snapshot when this
        client does not hold it (notifications missed, a snapshot under way)."""
        held = self.round
        if held is not None and int(held.get("version") or 0) >= version:
            return dict(held)
        state = self.request("state")
        return dict(state) if isinstance(state, dict) else {}

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def _not_in_group(path: Path) -> str:
    """A dealer's account outside the service's group: what it is, and the fix (issue 39)."""
    import grp
    import pwd

    try:
        who = pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        who = str(os.getuid())
    try:
        group = grp.getgrgid(os.stat(path).st_gid).gr_name
    except (OSError, KeyError):
        group = "dealer-assist"
    return (f"this account ({who}) may not reach the station service at {path}: it is not in the group {group} "
            f"(root adds it: usermod -aG {group} {who}; then log out and in again)")

