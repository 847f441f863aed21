"""The review's copy of the store (issue 23 item 2): a supervisor's account cannot open the
station's store, so the service hands the review a consistent read-only copy after the
supervisor's PIN (op ``snapshot``), as an open file passed over the socket (SCM_RIGHTS):
only the process that asked gets it, and nothing is left in a directory others can read.
The copy has no PIN hashes (blanked) and no key: it is for reading the rounds. The copy
asked with the PIN comes with a review token; the open review asks again with the token
and no PIN (dealer_assist/service/review_token.py)."""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealer_assist.service.protocol import MAX_LINE, ProtocolError, decode, encode, hello


def make_snapshot(store: Any, directory: Path) -> int:
    """A read-only descriptor of a copy of ``store`` (a Store) made in ``directory`` (the
    service's own, 0700) and unlinked at once."""
    handle, name = tempfile.mkstemp(prefix=".review-", suffix=".db", dir=directory)
    os.close(handle)
    try:
        copy = sqlite3.connect(name)
        try:
            store.read_with(lambda conn: conn.backup(copy))
            copy.execute("PRAGMA journal_mode=DELETE")  # one file: no -wal beside a copy
            for (trigger,) in copy.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'users'").fetchall():
                copy.execute(f'DROP TRIGGER "{trigger}"')  # the copy only: its PIN hashes are blanked
            copy.execute("UPDATE users SET pin_hash = x'', pin_salt = x''")
            copy.commit()
            copy.execute("VACUUM")  # the blanked hashes' old pages gone too
        finally:
            copy.close()
        return os.open(name, os.O_RDONLY | os.O_CLOEXEC)
    finally:
        for path in (name, name + "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


@dataclass(frozen=True)
class Copied:
    """The service's answer with a copy: the supervisor, the review token (a copy asked with
    the PIN; "" when asked with the token) and when the token ends (UTC, ISO 8601)."""

    supervisor: str
    token: str
    expires: str


def fetch_snapshot(socket_path: Path | str, pin: dict[str, str] | None, into: Path, timeout_s: float = 60.0,
                   *, token: str | None = None) -> Copied:
    """As the review: ask the service at ``socket_path`` for the store's copy with a
    supervisor's ``pin`` ({"user", "pin"}) or the review ``token`` it gave with an earlier copy
    (dealer_assist/service/review_token.py), write it to ``into`` (0600). ProtocolError (code,
    message) when the service refuses or cannot be reached."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout_s)
    fds: list[int] = []
    try:
        try:
            sock.connect(str(socket_path))
        except OSError as exc:
            raise ProtocolError("internal", f"the station service is not answering at {socket_path}: "
                                            f"{exc.strerror or exc}") from None
        sock.sendall(encode(hello("review")))
        buffer = bytearray()

        def line() -> dict[str, Any]:
            while b"\n" not in buffer:
                if len(buffer) > MAX_LINE:
                    raise ProtocolError("bad_request", "an answer over the line limit")
                data, ancillary, _flags, _ = sock.recvmsg(65536, socket.CMSG_SPACE(4 * 4))
                for level, kind, payload in ancillary:
                    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                        usable = len(payload) - len(payload) % 4
                        fds.extend(int.from_bytes(payload[i:i + 4], "little") for i in range(0, usable, 4))
                if not data:
                    raise ProtocolError("internal", "the station service closed the connection")
                buffer.extend(data)
            end = buffer.index(b"\n")
            message = decode(bytes(buffer[:end]))
            del buffer[:end + 1]
            return message

        answer = line()
        if "error" in answer:
            raise ProtocolError(str(answer["error"].get("code", "internal")), str(answer["error"].get("message", "")))
        args: dict[str, Any] = {"token": token} if token is not None else {"pin": pin}
        sock.sendall(encode({"id": 1, "op": "snapshot", "args": args}))
        while True:
            reply = line()
            if reply.get("id") == 1:
                break
        if not reply.get("ok"):
            error = reply.get("error") or {}
            raise ProtocolError(str(error.get("code", "internal")), str(error.get("message", "")),
                                error.get("clause"), reason=str(error.get("reason") or ""))
        if not fds:
            raise ProtocolError("internal", "the service sent no copy of the store")
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        out = os.open(into, flags, 0o600)
        try:
            os.lseek(fds[0], 0, os.SEEK_SET)
            while chunk := os.read(fds[0], 1 << 20):
                os.write(out, chunk)
        finally:
            os.close(out)
        result = reply.get("result") or {}
        return Copied(str(result.get("supervisor") or (pin or {}).get("user", "")), str(result.get("token") or ""),
                      str(result.get("expires") or ""))
    finally:
        for fd in fds:
            os.close(fd)
        sock.close()


def refresh_snapshot(socket_path: Path | str, token: str, into: Path) -> Copied:
    """A new copy asked with the review ``token`` (no PIN), written into the copy at ``into``
    that a review's read-only connection has open (SQLite's backup: that connection reads the
    new pages). ProtocolError as :func:`fetch_snapshot`; ``into`` is then as it was."""
    fresh = into.with_name("fresh.db")
    try:
        copied = fetch_snapshot(socket_path, None, fresh, token=token)
        source, target = sqlite3.connect(fresh), sqlite3.connect(into)
        try:
            source.backup(target)
        finally:
            source.close()
            target.close()
        return copied
    finally:
        with contextlib.suppress(FileNotFoundError):
            fresh.unlink()
