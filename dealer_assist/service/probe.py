"""Does the station service answer? The handshake of its wire protocol, and nothing else.

``dealer-assist station check`` asks this of ``/run/dealer-assist/station.sock``: the
client speaks first, one line of UTF-8 JSON (STATION-CONTRACT "Wire protocol")::

    {"hello": "dealer-assist", "protocol": 1, "client": "cli"}

and the service answers one line, ``{"hello": "dealer-assist", "protocol": 1, "station":
{...}, "account": "<the OS account it saw>"}``, or ``{"error": {...}}``. Kept apart from the
service's own protocol module so the check does not depend on the code it checks.
"""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROTOCOL = 1
MAX_LINE = 1024 * 1024  # a message is at most 1 MiB


@dataclass(frozen=True)
class Handshake:
    """What the service said: ``ok`` with its station and the account it saw, or ``problem``."""

    ok: bool
    problem: str = ""
    account: str = ""
    station: dict[str, Any] = field(default_factory=dict)


def _read_line(sock: socket.socket, deadline: float) -> bytes:
    data = bytearray()
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
        if len(data) > MAX_LINE:
            raise ValueError(f"an answer longer than {MAX_LINE} bytes")
    return bytes(data.split(b"\n", 1)[0])


def handshake(path: Path, timeout_s: float = 3.0) -> Handshake:
    """Connect to the service's socket at ``path`` and say hello; never raises."""
    deadline = time.monotonic() + timeout_s
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout_s)
        try:
            sock.connect(str(path))
        except FileNotFoundError:
            return Handshake(False, f"no socket {path}: the service is not running")
        except PermissionError:
            return Handshake(False, f"{path}: permission denied (this account is not in the socket's group)")
        except ConnectionRefusedError:
            return Handshake(False, f"{path}: connection refused (a socket left by a service that stopped)")
        except OSError as exc:
            return Handshake(False, f"cannot connect to {path}: {exc.strerror or exc}")
        hello = {"hello": "dealer-assist", "protocol": PROTOCOL, "client": "cli"}
        try:
            sock.sendall(json.dumps(hello).encode("utf-8") + b"\n")
            line = _read_line(sock, deadline)
        except TimeoutError:
            return Handshake(False, f"{path}: no answer to the handshake in {timeout_s:g} s")
        except ValueError as exc:
            return Handshake(False, f"{path}: {exc}")
        except OSError as exc:
            return Handshake(False, f"{path}: {exc.strerror or exc}")
    finally:
        sock.close()
    if not line:
        return Handshake(False, f"{path}: the service closed the connection without answering")
    try:
        answer = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return Handshake(False, f"{path}: the answer is not JSON: {line[:80]!r}")
    if not isinstance(answer, dict):
        return Handshake(False, f"{path}: the answer is not a JSON object: {line[:80]!r}")
    if "error" in answer:
        error = answer["error"]
        message = error.get("message", error) if isinstance(error, dict) else error
        return Handshake(False, f"{path}: the service refused the handshake: {message}")
    if answer.get("hello") != "dealer-assist" or answer.get("protocol") != PROTOCOL:
        return Handshake(False, f"{path}: not a Dealer Assist service of protocol {PROTOCOL}: {line[:80]!r}")
    station = answer.get("station")
    account = answer.get("account")
    return Handshake(True, account=str(account) if account is not None else "",
                     station=station if isinstance(station, dict) else {})
