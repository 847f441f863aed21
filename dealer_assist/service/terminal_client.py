"""A player terminal's side of the terminal endpoint (issue 38; terminal_server.py):
pairing once with a code, then mutual TLS as its seat.

The terminal keeps its key, its certificate, the station CA and the seat in its own
configuration directory (0700; the key 0600). Its key never leaves it: it sends a
certificate request (made by ``openssl``) and gets the certificate back.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import socket
import ssl
import tempfile
import time
from pathlib import Path
from typing import Any

from dealer_assist.service.protocol import NAME, PROTOCOL, LineReader, decode, encode
from dealer_assist.service.terminal_ca import (
    STATION_NAME,
    PairingError,
    code_key,
    openssl,
    pair_proof,
    station_proof,
    write_private,
)

__all__ = ["TerminalConnection", "TerminalError", "default_terminal_dir", "pair", "parse_address"]

TIMEOUT_S = 10.0


class TerminalError(Exception):
    """A pairing or connection refused, or an op refused: ``code`` and the service's message."""

    def __init__(self, code: str, message: str, clause: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.clause = code, message, clause


def default_terminal_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "dealer-assist" / "terminal"


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[v6]:PORT``); TerminalError otherwise."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65535:
        raise TerminalError("bad_request", f"--connect {text!r} is not HOST:PORT (e.g. 10.0.4.7:7300)")
    return host, int(port)


def _connect(host: str, port: int) -> socket.socket:
    try:
        return socket.create_connection((host, port), timeout=TIMEOUT_S)
    except OSError as exc:
        raise TerminalError("internal", f"cannot reach {host}:{port}: {exc.strerror or exc}") from None


def pair(host: str, port: int, code: str, directory: Path) -> str:
    """Pair this terminal with the code on the station at ``host`` (pairing on ``port + 1``);
    its seat. Stores key.pem (made here), cert.pem, ca.pem and terminal.json in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(directory, 0o700)
    with tempfile.TemporaryDirectory(dir=directory) as work:
        key_file = Path(work) / "key.pem"
        try:
            csr = openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                          "-keyout", str(key_file), "-subj", "/CN=terminal")
        except PairingError as exc:
            raise TerminalError("internal", str(exc)) from None
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE  # no CA yet: the code proves the station (station_proof)
        raw = _connect(host, port + 1)
        try:
            with ctx.wrap_socket(raw, server_hostname=STATION_NAME) as tls:
                station_der = tls.getpeercert(binary_form=True) or b""
                key = code_key(code)
                tls.sendall(encode({"pair": PROTOCOL, "csr": csr.decode("ascii"),
                                    "proof": pair_proof(key, station_der, csr)}))
                line = LineReader(tls).read_line(deadline=time.monotonic() + TIMEOUT_S)
        except (OSError, ssl.SSLError) as exc:
            raise TerminalError("internal", f"the pairing with {host}:{port + 1} failed: {exc}") from None
        if line is None:
            raise TerminalError("internal", f"{host}:{port + 1} closed the pairing without an answer")
        answer = decode(line)
        if not answer.get("ok"):
            error = answer.get("error") or {}
            raise TerminalError(str(error.get("code", "auth")), str(error.get("message", "pairing refused")))
        cert, ca = str(answer.get("cert", "")).encode("ascii"), str(answer.get("ca", "")).encode("ascii")
        if answer.get("proof") != station_proof(key, station_der, cert, ca):
            raise TerminalError("auth", "the station's answer does not prove the code: not the station "
                                        "(or a relay between): nothing stored")
        seat = str(answer["seat"])
        write_private(directory / "key.pem", key_file.read_bytes())
    write_private(directory / "cert.pem", cert)
    write_private(directory / "ca.pem", ca)
    write_private(directory / "terminal.json",
                   json.dumps({"seat": seat, "station": f"{host}:{port}"}).encode("utf-8"))
    return seat


class TerminalConnection:
    """A paired terminal connected to its station: requests as its seat."""

    def __init__(self, host: str, port: int, directory: Path, *, timeout_s: float = TIMEOUT_S) -> None:
        for name in ("key.pem", "cert.pem", "ca.pem"):
            if not (directory / name).exists():
                raise TerminalError("auth", f"this terminal is not paired ({directory / name} is missing): "
                                            "dealer-assist terminal --connect HOST:PORT --pair CODE")
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # CERT_REQUIRED, the station's name checked
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_verify_locations(cafile=str(directory / "ca.pem"))  # only the CA got at pairing
        ctx.load_cert_chain(str(directory / "cert.pem"), str(directory / "key.pem"))
        raw = _connect(host, port)
        try:
            self.sock = ctx.wrap_socket(raw, server_hostname=STATION_NAME)
            self.sock.settimeout(timeout_s)
            self.reader = LineReader(self.sock)
            self.sock.sendall(encode({"hello": NAME, "protocol": PROTOCOL, "client": "terminal"}))
            self.hello = self._next()
        except (OSError, ssl.SSLError) as exc:
            raw.close()
            raise TerminalError("auth", f"the station at {host}:{port} refused this terminal: {exc}") from None
        if "error" in self.hello:
            self.close()
            raise TerminalError(str(self.hello["error"].get("code")), str(self.hello["error"].get("message")))
        self.seat = str(self.hello.get("seat"))
        self.ids = itertools.count(1)
        self.notes: list[dict[str, Any]] = []

    def _next(self) -> dict[str, Any]:
        line = self.reader.read_line()
        if line is None:
            raise TerminalError("internal", "the station closed the connection")
        return decode(line)

    def request(self, op: str, **args: Any) -> Any:
        """One op's result; TerminalError when refused. Notifications meanwhile kept in ``notes``."""
        rid = next(self.ids)
        try:
            self.sock.sendall(encode({"id": rid, "op": op, "args": args}))
            while True:
                message = self._next()
                if "notify" in message:
                    self.notes.append(message)
                    continue
                if "error" in message and "id" not in message:
                    error = message["error"]
                    raise TerminalError(str(error.get("code")), str(error.get("message")))
                if message.get("id") == rid:
                    break
        except (OSError, ssl.SSLError) as exc:
            raise TerminalError("internal", f"the connection to the station failed: {exc}") from None
        if not message.get("ok"):
            error = message.get("error") or {}
            raise TerminalError(str(error.get("code")), str(error.get("message")), error.get("clause"))
        return message.get("result")

    def wait_note(self, timeout_s: float) -> dict[str, Any] | None:
        """The next notification, or None after ``timeout_s``; TerminalError when the station
        closed the connection (not None: a caller waiting again would spin on the closed socket)."""
        if self.notes:
            return self.notes.pop(0)
        try:
            line = self.reader.read_line(deadline=time.monotonic() + timeout_s)
        except TimeoutError:
            return None
        except (OSError, ssl.SSLError) as exc:
            raise TerminalError("internal", f"the connection to the station failed: {exc}") from None
        finally:
            with contextlib.suppress(OSError):
                self.sock.settimeout(TIMEOUT_S)
        if line is None:
            raise TerminalError("internal", "the station closed the connection")
        return decode(line)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()
