"""The terminal endpoint of the station service (issue 38, build 1): player terminals
(Electronic Blackjack 1.1.10) on the table's network, over TCP with TLS (1.2 at least).

Two listeners, ``[terminals] port`` and the port after it:

- ``port``: mutual TLS (CERT_REQUIRED both ways) with the station CA (terminal_ca.py). A
  connection is the seat its certificate names, while that certificate is the seat's
  (``station terminal remove`` refuses it at its next request, and every connection after).
  It speaks the screens' protocol (protocol.py) with hello ``client: "terminal"``, and may
  call only the ops the registry marks for terminals (ops.Entry.terminal), for its own seat.
- ``port + 1``: pairing. TLS that checks no certificate; the one message proves the
  one-time code (terminal_ca.pair_proof, bound to the station's certificate and the
  request) and gets the seat's certificate and the CA back, proved by the code in turn.

Floods (docs/station.md, "Limits"): the accept loops never do a handshake; at most
:data:`MAX_HANDSHAKING` connections handshake at once, each for :data:`HANDSHAKE_SECONDS`,
and a new one pushes out the oldest of the peer address holding the most (200 held
handshakes cannot keep a terminal out, nor a flood from one address push out another's);
a seat holds :data:`PER_SEAT` connections, the endpoint :data:`MAX_TERMINALS`. A
terminal's op runs as a screen's does (TableService.handle): under the table's lock no
longer than a screen's op, its seat's view cut out after.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import socket
import ssl
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from dealer_assist.service.health import BurstLog
from dealer_assist.service.ops import REGISTRY
from dealer_assist.service.protocol import (
    NAME,
    PROTOCOL,
    LineReader,
    ProtocolError,
    answer,
    decode,
    encode,
    notification,
)
from dealer_assist.service.table import Client, TableService
from dealer_assist.service.terminal_ca import PairingError, TerminalCA, pair_proof, station_proof

__all__ = ["HANDSHAKE_SECONDS", "MAX_HANDSHAKING", "TerminalServer", "server_context"]

HANDSHAKE_SECONDS = 5.0  # the TLS handshake and the hello, together
MAX_HANDSHAKING = 64  # handshakes at once; a new one pushes out the oldest
PER_SEAT = 4  # connections one seat's certificate may hold
MAX_TERMINALS = 128  # established terminal connections, all seats
SEND_TIMEOUT_S = 5.0
PAIR_LIMIT = 16384  # bytes of the pairing message
PAIR_TRIES = 50  # port 0: ports tried for a free pair (endpoint, pairing)
TURN_S = 0.25  # the accept loops wake this often (pushing out handshakes past their time)


def server_context(ca: TerminalCA, *, require_client: bool) -> ssl.SSLContext:
    """TLS 1.2+ with the station's certificate; ``require_client``: CERT_REQUIRED from the CA."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(str(ca.station_pem), str(ca.station_key))
    if require_client:
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(cafile=str(ca.ca_pem))
    else:
        ctx.verify_mode = ssl.CERT_NONE  # pairing: the code is the proof, both ways
    return ctx


class _Terminal:
    def __init__(self, sock: ssl.SSLSocket, client: Client, seat: str, cert: bytes) -> None:
        self.sock, self.client, self.seat, self.cert = sock, client, seat, cert
        self.send_lock = threading.Lock()
        self.alive = True
        self.revoked = False  # removed since it connected: told so, then closed

    def send(self, message: dict[str, Any] | bytes) -> None:
        data = message if isinstance(message, bytes) else encode(message)
        with self.send_lock:
            if not self.alive:
                return
            try:
                self.sock.sendall(data)
            except OSError:
                self.alive = False


class TerminalServer:
    """Serves terminals of ``ca`` on ``host:port`` (pairing on ``port + 1``; port 0: any free such pair)."""

    def __init__(self, service: TableService, ca: TerminalCA, host: str, port: int, *,
                 log: logging.Logger | None = None, handshake_seconds: float = HANDSHAKE_SECONDS,
                 max_handshaking: int = MAX_HANDSHAKING) -> None:
        self.service, self.ca, self.host, self.port = service, ca, host, port
        self.pair_port = 0
        self.log = log or logging.getLogger("dealer_assist.service")
        self.handshake_seconds, self.max_handshaking = handshake_seconds, max_handshaking
        self.bursts = BurstLog(self.log)
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        # token -> socket, deadline, the peer's address (oldest first)
        self.handshaking: OrderedDict[int, tuple[socket.socket, float, str]] = OrderedDict()
        self.tokens = itertools.count()
        self.terminals: list[_Terminal] = []
        self.listeners: list[socket.socket] = []
        self.threads: list[threading.Thread] = []
        self.station_der = b""
        self.changed = threading.Condition()
        self.changed_version: Any = None  # the newest version not yet told to the terminals

    def start(self) -> None:
        self.ca.ensure()
        self.station_der = ssl.PEM_cert_to_DER_cert(self.ca.station_pem.read_text(encoding="ascii"))
        mutual, pairing = server_context(self.ca, require_client=True), server_context(self.ca, require_client=False)
        main, pair = self._listen_pair(self.port)
        self.port, self.pair_port = main.getsockname()[1], pair.getsockname()[1]
        teller = threading.Thread(target=self._tell_terminals, name="terminal-notify", daemon=True)
        teller.start()
        self.threads.append(teller)
        for sock, ctx, serve in ((main, mutual, self._serve_terminal), (pair, pairing, self._serve_pairing)):
            t = threading.Thread(target=self._accept, args=(sock, ctx, serve), name="terminal-accept", daemon=True)
            t.start()
            self.threads.append(t)
        self.service.paired_seats = self.paired_seats  # 1.1.10: their wagers are placed from credits
        # a terminal hears that the table changed (never another seat's data): it asks for its view
        previous = self.service.notify

        def both(name: str, data: dict[str, Any]) -> None:
            previous(name, data)
            self.tell(name, data)

        self.service.notify = both
        self.log.info("terminals on %s:%s (pairing on %s)", self.host, self.port, self.pair_port)

    def paired_seats(self) -> set[str]:
        """The seats a terminal is paired to now (none if the list cannot be read: logged)."""
        try:
            return {p.seat for p in self.ca.paired()}
        except PairingError as exc:
            self.log.error("the paired terminals cannot be read: %s", exc)
            return set()

    def _listen_pair(self, port: int) -> tuple[socket.socket, socket.socket]:
        """The endpoint on ``port`` and pairing on the next (terminal_client pairs on port + 1);
        port 0: a free port whose next one is free too (tried again while the next is taken)."""
        for attempt in range(PAIR_TRIES):
            main = self._listen(port)
            try:
                return main, self._listen(main.getsockname()[1] + 1)
            except OSError as exc:
                if port or exc.errno != errno.EADDRINUSE or attempt == PAIR_TRIES - 1:
                    raise
                self.listeners.remove(main)
                main.close()
        raise AssertionError("unreachable")  # the loop returns or raises

    def _listen(self, port: int) -> socket.socket:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, port))
        except OSError:
            sock.close()
            raise
        sock.listen(1024)
        sock.settimeout(TURN_S)
        self.listeners.append(sock)
        return sock

    def stop(self) -> None:
        self.stopping.set()
        with self.changed:
            self.changed.notify_all()
        for sock in self.listeners:
            with contextlib.suppress(OSError):
                sock.close()
        with self.lock:
            held = [t.sock for t in self.terminals] + [s for s, _, _ in self.handshaking.values()]
        for s in held:
            _cut(s)
        for t in self.threads:
            t.join(timeout=2)

    def tell(self, name: str, data: dict[str, Any]) -> None:
        """A ``changed`` notification (the version only) to every terminal: its seat's view is
        one op ``seat`` away; the screens' round data never goes to a terminal. Handed to the
        terminals' own thread: a terminal that does not read never holds up the screens."""
        if name != "round":
            return
        with self.changed:
            self.changed_version = data.get("version")
            self.changed.notify()

    def _tell_terminals(self) -> None:
        """Sends the newest version (those between are skipped: a terminal asks for its view)."""
        while not self.stopping.is_set():
            with self.changed:
                self.changed.wait_for(lambda: self.changed_version is not None or self.stopping.is_set(),
                                      timeout=TURN_S * 4)
                version, self.changed_version = self.changed_version, None
            if version is None:
                continue
            line = encode(notification("changed", {"version": version}))
            with self.lock:
                terminals = [t for t in self.terminals if t.alive]
            for t in terminals:
                t.send(line)  # a stuck one: dropped after SEND_TIMEOUT_S, once

    # ------------------------------------------------------------------ accepting
    def _accept(self, listener: socket.socket, ctx: ssl.SSLContext,
                serve: Callable[[ssl.SSLSocket, int], None]) -> None:
        """Accept until stopped; the handshake on the connection's own thread, never here."""
        while not self.stopping.is_set():
            self._push_out_late()
            try:
                raw, address = listener.accept()
            except TimeoutError:
                continue
            except OSError as exc:
                if self.stopping.is_set():
                    return
                self.bursts.note("accept", "terminal", f"terminal accept failed: {exc}; waiting")
                self.stopping.wait(0.1)
                continue
            token = next(self.tokens)
            peer = str(address[0])
            with self.lock:
                while len(self.handshaking) >= self.max_handshaking:
                    oldest = self._push_out_for(peer)
                    self.bursts.note("handshake", "terminal", "a terminal handshake pushed out by a newer one "
                                     f"({self.max_handshaking} at once; the oldest of the address holding most)")
                    _cut(oldest)
                self.handshaking[token] = (raw, time.monotonic() + self.handshake_seconds, peer)
            try:
                threading.Thread(target=self._handshake, args=(token, raw, ctx, serve), name="terminal",
                                 daemon=True).start()
            except RuntimeError:
                self._done_handshaking(token)
                raw.close()

    def _push_out_for(self, peer: str) -> socket.socket:
        """The handshake a new one from ``peer`` pushes out (under the lock, the pool full): the
        oldest of the address holding the most, ``peer`` first among equals - a flood from one
        address pushes out its own, never a terminal's on another address."""
        held: dict[str, int] = {}
        for _, _, host in self.handshaking.values():
            held[host] = held.get(host, 0) + 1
        most = max(held.values())
        busiest = peer if held.get(peer, 0) == most else next(h for h, n in held.items() if n == most)
        token = next(t for t, (_, _, host) in self.handshaking.items() if host == busiest)
        return self.handshaking.pop(token)[0]

    def _push_out_late(self) -> None:
        now = time.monotonic()
        with self.lock:
            late = [token for token, (_, deadline, _) in self.handshaking.items() if deadline <= now]
            cut = [self.handshaking.pop(token)[0] for token in late]
        for s in cut:
            self.bursts.note("handshake", "terminal",
                             f"a terminal connection closed: no handshake within {self.handshake_seconds:.0f} s")
            _cut(s)

    def _done_handshaking(self, token: int) -> bool:
        """False when it was pushed out meanwhile."""
        with self.lock:
            return self.handshaking.pop(token, None) is not None

    def _handshake(self, token: int, raw: socket.socket, ctx: ssl.SSLContext,
                   serve: Callable[[ssl.SSLSocket, int], None]) -> None:
        try:
            raw.settimeout(self.handshake_seconds)
            tls = ctx.wrap_socket(raw, server_side=True, do_handshake_on_connect=False)
            with self.lock:  # the wrapped socket is the one to cut now (raw's descriptor moved to it)
                if token in self.handshaking:
                    self.handshaking[token] = (tls, *self.handshaking[token][1:])
                else:
                    _cut(tls)
            tls.do_handshake()
        except (OSError, ssl.SSLError, ValueError) as exc:
            self._done_handshaking(token)
            self.bursts.note("tls", "terminal", f"a terminal connection refused in its TLS handshake: {exc}")
            raw.close()
            return
        try:
            serve(tls, token)
        except (OSError, ssl.SSLError):
            pass
        except Exception:  # never a dead endpoint for one connection
            self.log.exception("a terminal connection failed")
        finally:
            self._done_handshaking(token)
            with contextlib.suppress(OSError):
                tls.close()

    # ------------------------------------------------------------------ pairing
    def _serve_pairing(self, tls: ssl.SSLSocket, token: int) -> None:
        """One pairing message, one answer: ``{"pair": 1, "csr": PEM, "proof": HEX}``."""
        reader = LineReader(tls)
        try:
            line = reader.read_line(limit=PAIR_LIMIT, deadline=time.monotonic() + self.handshake_seconds)
        except (TimeoutError, ProtocolError):
            return
        if not self._done_handshaking(token) or line is None:
            return
        try:
            message = decode(line)
            csr, proof = message.get("csr"), message.get("proof")
            if message.get("pair") != PROTOCOL or not isinstance(csr, str) or not isinstance(proof, str):
                raise PairingError('a pairing message is {"pair": 1, "csr": PEM, "proof": HEX}')
            csr_pem = csr.encode("ascii", "replace")
            seat, key = self.ca.redeem(lambda key: _same(pair_proof(key, self.station_der, csr_pem), proof))
            cert = self.ca.sign(seat, csr_pem)
            self.ca.record(seat, cert)
            ca_pem = self.ca.ca_pem.read_bytes()
            reply = {"ok": True, "seat": seat, "cert": cert.decode("ascii"), "ca": ca_pem.decode("ascii"),
                     "proof": station_proof(key, self.station_der, cert, ca_pem)}
            self.log.info("significant event: a terminal was paired to seat %s", seat)
        except (PairingError, ProtocolError) as exc:
            self.bursts.note("pairing", "terminal", f"a pairing refused: {exc}")
            reply = {"ok": False, "error": {"code": "auth", "message": str(exc), "clause": None}}
        tls.settimeout(SEND_TIMEOUT_S)
        tls.sendall(encode(reply))

    # ------------------------------------------------------------------ a terminal
    def _serve_terminal(self, tls: ssl.SSLSocket, token: int) -> None:
        der = tls.getpeercert(binary_form=True) or b""
        seat = self.ca.seat_of(der)
        reader = LineReader(tls)
        try:
            first = reader.read_line(limit=4096, deadline=time.monotonic() + self.handshake_seconds)
        except (TimeoutError, ProtocolError):
            return
        if not self._done_handshaking(token) or first is None:
            return
        tls.settimeout(None)
        try:
            said = decode(first)
            if said.get("hello") != NAME or said.get("protocol") != PROTOCOL or said.get("client") != "terminal":
                raise ProtocolError("bad_request", f'the first message is a hello: {{"hello": "{NAME}", '
                                                   f'"protocol": {PROTOCOL}, "client": "terminal"}}')
            if seat is None:
                raise ProtocolError("auth", "this terminal's certificate is not paired to a seat (removed, or "
                                            "the seat was paired again): `dealer-assist station terminal add SEAT`")
        except ProtocolError as exc:
            tls.sendall(encode({"error": exc.as_json()}))
            return
        term = _Terminal(tls, Client(f"terminal:{seat}", "terminal", seat=seat), seat, der)
        with self.lock:
            mine = sum(1 for t in self.terminals if t.seat == seat)
            full = "endpoint" if len(self.terminals) >= MAX_TERMINALS else "seat" if mine >= PER_SEAT else ""
            if not full:
                self.terminals.append(term)
        if full:
            tls.sendall(encode({"error": ProtocolError("busy", f"too many terminal connections (the {full}'s "
                                                               "limit): close one, then connect again").as_json()}))
            return
        joined = False
        try:
            tls.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, int(SEND_TIMEOUT_S).to_bytes(8, "little") + b"\0" * 8)
            term.send({"hello": NAME, "protocol": PROTOCOL, "seat": seat, "station": self.service.station})
            self.log.info("terminal of seat %s connected", seat)
            self.service.terminal_joined(seat)
            joined = True
            while term.alive:
                line = reader.read_line()
                if line is None:
                    break
                term.send(self._answer(term, line))
                if term.revoked:
                    self.log.info("significant event: the terminal of seat %s was refused: no longer paired",
                                  term.seat)
                    break
        except ProtocolError as exc:
            term.send({"error": exc.as_json()})
        finally:
            term.alive = False
            with self.lock:
                self.terminals = [t for t in self.terminals if t is not term]
            # the seat's last connection gone: interrupted (5.9); not when the service itself
            # stops (a restart is no terminal's interruption: connected again, it decides)
            if joined and not self.stopping.is_set():
                self.log.info("terminal of seat %s disconnected", seat)
                self.service.terminal_left(seat)

    def _answer(self, term: _Terminal, line: bytes) -> dict[str, Any]:
        return answer(line, lambda op, args: self._act(term, op, args), self.log, "terminal request")

    def _act(self, term: _Terminal, op: str, args: dict[str, Any]) -> Any:
        """A terminal's op: while its certificate is still the seat's, and only an op the
        registry marks for terminals."""
        if self.ca.seat_of(term.cert) != term.seat:  # removed (or paired again) since it connected
            term.revoked = True
            raise ProtocolError("auth", f"this terminal is no longer paired to seat {term.seat}")
        entry = REGISTRY.get(op)
        if entry is None or not entry.terminal:
            allowed = ", ".join(sorted(str(e.op) for e in REGISTRY.values() if e.terminal))
            raise ProtocolError("auth", f"op {op!r} is not a terminal's (a screen's, or none): a terminal "
                                        f"calls {allowed}, for its own seat")
        return self.service.handle(term.client, op, args)


def _cut(sock: socket.socket) -> None:
    """End a connection from another thread: its blocked read returns (the socket's own
    shutdown, not SSLSocket's, which also drops the TLS object)."""
    with contextlib.suppress(OSError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


def _same(a: str, b: str) -> bool:
    import hmac

    return hmac.compare_digest(a.encode(), b.encode("ascii", "replace"))
