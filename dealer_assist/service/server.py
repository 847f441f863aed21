"""The station service's socket: accepts clients, knows each by SO_PEERCRED, speaks the
protocol (protocol.py) and hands every request to the table (table.py); notifications go
to every connected client. One thread per client; the table serialises them.

Nothing a client does starves it (docs/station.md, "Limits"): the accept loop never ends
(EMFILE and the like are logged once a burst and waited out), a connection must say hello
within :data:`HELLO_SECONDS`, each OS account may hold :data:`PER_ACCOUNT` connections and
the service :data:`MAX_CONNECTIONS`; the watchdog (health.py) pings systemd only while the
accept loop turns and the table's lock can be taken."""

from __future__ import annotations

import errno
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dealer_assist.service.health import BurstLog, notify_systemd, watchdog_interval
from dealer_assist.service.peer import Peer, peer_of
from dealer_assist.service.protocol import (
    ROUND_FORM,
    LineReader,
    ProtocolError,
    answer,
    check_hello,
    decode,
    encode,
    notification,
    round_delta,
    service_hello,
)
from dealer_assist.service.table import Client, TableService

SOCKET_MODE = 0o660  # the group dealer-assist reaches the socket; nothing else of the service
SEND_TIMEOUT_S = 5.0  # a client that does not read for this long is dropped (never blocks the table)
HELLO_SECONDS = 5.0  # a connection that has not said hello by then is closed
HELLO_LIMIT = 4096  # bytes of a hello line (the 1 MiB lines only after it)
PER_ACCOUNT = 32  # connections one OS account may hold (a screen, a review and the CLI need a few)
MAX_CONNECTIONS = 512  # all accounts together (each a thread and a descriptor)
BACKLOG = 1024  # a burst of connections waits here, not refused (the kernel caps it at somaxconn)
ACCEPT_TURN_S = 1.0  # the accept loop wakes at least this often (the watchdog's proof it turns)
BACKOFF_S = (0.05, 1.0)  # waiting out a full descriptor table: from, up to
ALIVE_S = 5.0  # the accept loop turned within this, and the table's lock came within this


class _Connection:
    def __init__(self, sock: socket.socket, client: Client) -> None:
        self.sock = sock
        self.client = client
        self.send_lock = threading.Lock()
        self.alive = True
        self.deltas = False  # its hello asked for the round notifications as deltas

    def send(self, message: dict[str, Any] | bytes, fd: int | None = None) -> None:
        """One message (or its line, encoded once for every screen); ``fd`` goes with its first
        byte (SCM_RIGHTS), e.g. the review's copy."""
        data = message if isinstance(message, bytes) else encode(message)
        with self.send_lock:
            if not self.alive:
                return
            try:
                if fd is not None:
                    sent = socket.send_fds(self.sock, [data], [fd])
                    data = data[sent:]
                self.sock.sendall(data)
            except OSError:
                self.alive = False


class StationServer:
    """Serves ``service`` on the Unix socket ``path`` (created 0660; a stale one replaced)."""

    def __init__(self, service: TableService, path: Path, *, log: logging.Logger | None = None,
                 mode: int = SOCKET_MODE, per_account: int = PER_ACCOUNT,
                 max_connections: int = MAX_CONNECTIONS, hello_seconds: float = HELLO_SECONDS) -> None:
        self.service = service
        self.path = path
        self.mode = mode
        self.log = log or logging.getLogger("dealer_assist.service")
        self.connections: list[_Connection] = []
        self.conn_lock = threading.Lock()
        self.listener: socket.socket | None = None
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()
        self.per_account, self.max_connections, self.hello_seconds = per_account, max_connections, hello_seconds
        self.open_by_uid: dict[int, int] = {}  # connections held (said hello or not), by peer uid
        self.open_count = 0
        self.bursts = BurstLog(self.log)
        self.accept_turned = time.monotonic()
        self.watchdog: threading.Thread | None = None
        self.last_round: dict[str, Any] | None = None  # the last round notification told
        self.held = threading.local()  # a thread's notifications held to be sent together
        service.notify = self.broadcast
        service.together = self.sending_together

    def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() or self.path.is_symlink():
            self.path.unlink()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # no moment with a socket others could reach
        try:
            listener.bind(str(self.path))
        finally:
            os.umask(old)
        os.chmod(self.path, self.mode)
        listener.listen(BACKLOG)
        listener.settimeout(ACCEPT_TURN_S)
        self.listener = listener
        self.accept_turned = time.monotonic()
        self.thread = threading.Thread(target=self._accept, name="station-accept", daemon=True)
        self.thread.start()
        self.watchdog = threading.Thread(target=self._health, name="station-health", daemon=True)
        self.watchdog.start()

    def stop(self) -> None:
        self.stopping.set()
        if self.listener is not None:
            try:
                self.listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.listener.close()
        with self.conn_lock:
            for conn in self.connections:
                conn.alive = False
                try:
                    conn.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        if self.thread is not None:
            self.thread.join(timeout=2)
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    @contextmanager
    def sending_together(self) -> Iterator[None]:
        """The notifications this thread makes meanwhile, sent to each connection in one write
        at the end, in their order (a card's shoe status and round: one wake-up of a screen, not
        a first one that takes the core before the second is sent)."""
        if getattr(self.held, "lines", None) is not None:
            yield  # already held by an outer one
            return
        held: dict[_Connection, list[bytes]] = {}
        self.held.lines = held
        try:
            yield
        finally:
            self.held.lines = None
            for conn, lines in held.items():
                conn.send(b"".join(lines))

    def _send(self, conn: _Connection, line: bytes) -> None:
        held: dict[_Connection, list[bytes]] | None = getattr(self.held, "lines", None)
        if held is None:
            conn.send(line)
        else:
            held.setdefault(conn, []).append(line)

    def broadcast(self, name: str, data: dict[str, Any]) -> None:
        """One notification to every connection: serialised once (the table's service sends
        it after its lock: TableService.tell_screens)."""
        with self.conn_lock:
            conns = [c for c in self.connections if c.alive]
        if name != "round":
            line = encode(notification(name, data))
            for conn in conns:
                self._send(conn, line)
            return
        # the round: to a client that asked, only what changed since the last one told
        # (protocol.round_delta); each form serialised once
        delta, self.last_round = round_delta(self.last_round, data), data
        lines: dict[bool, bytes] = {}
        for conn in conns:
            if conn.deltas not in lines:
                lines[conn.deltas] = encode(notification(name, delta if conn.deltas else data))
            self._send(conn, lines[conn.deltas])

    # ------------------------------------------------------------------ accepting
    def _accept(self) -> None:
        """Accept until stopped; never ends on an error (a full descriptor table is waited out)."""
        assert self.listener is not None
        backoff = 0.0
        while not self.stopping.is_set():
            self.accept_turned = time.monotonic()
            try:
                sock, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError as exc:
                if self.stopping.is_set():
                    return
                # EMFILE/ENFILE (descriptors), ENOBUFS/ENOMEM: wait, then accept again
                backoff = min(max(backoff * 2, BACKOFF_S[0]), BACKOFF_S[1])
                self.bursts.note("accept", errno.errorcode.get(exc.errno or 0, "error"),
                                 f"accept failed: {exc.strerror or exc}; waiting {backoff:.2f} s, then again")
                self.stopping.wait(backoff)
                continue
            backoff = 0.0
            try:
                self._admit(sock)
            except Exception:  # never a dead accept loop for one connection
                self.log.exception("a new connection could not be taken")
                sock.close()

    def _admit(self, sock: socket.socket) -> None:
        """The connection's thread, or a refusal when its account (or the service) holds enough."""
        sock.settimeout(None)
        try:
            peer = peer_of(sock)
        except OSError:
            sock.close()
            return
        with self.conn_lock:
            mine = self.open_by_uid.get(peer.uid, 0)
            full = "service" if self.open_count >= self.max_connections else \
                "account" if mine >= self.per_account else ""
            if not full:
                self.open_by_uid[peer.uid] = mine + 1
                self.open_count += 1
        if full:
            limit = self.max_connections if full == "service" else self.per_account
            self.bursts.note("limit", f"account {peer.account}",
                             f"connection refused: the {full}'s limit of {limit} connections is reached")
            try:
                sock.setblocking(False)
                sock.send(encode({"error": ProtocolError(
                    "busy", f"too many connections ({full} limit {limit}): close one, then connect again").as_json()}))
            except OSError:
                pass
            sock.close()
            return
        try:
            threading.Thread(target=self._serve, args=(sock, peer), name="station-client", daemon=True).start()
        except BaseException:
            self._release(peer)
            raise

    def _release(self, peer: Peer) -> None:
        with self.conn_lock:
            left = self.open_by_uid.get(peer.uid, 1) - 1
            if left > 0:
                self.open_by_uid[peer.uid] = left
            else:
                self.open_by_uid.pop(peer.uid, None)
            self.open_count -= 1

    # ------------------------------------------------------------------ health
    def alive(self) -> str:
        """"" when the accept loop turns and the table's lock can be taken, else what is wrong."""
        thread = self.thread
        if thread is None or not thread.is_alive():
            return "the accept loop has ended"
        if time.monotonic() - self.accept_turned > ALIVE_S:
            return f"the accept loop has not turned for {time.monotonic() - self.accept_turned:.0f} s"
        if not self.service.lock.acquire(timeout=ALIVE_S):
            return f"the table's lock was not free within {ALIVE_S:.0f} s"
        self.service.lock.release()
        return ""

    def _health(self) -> None:
        """systemd's watchdog: a ping only after :meth:`alive` said so; and the bursts' counts."""
        every = watchdog_interval()
        was_ill = ""
        while not self.stopping.wait(min(every or ACCEPT_TURN_S, ACCEPT_TURN_S * 5)):
            self.bursts.flush()
            self.service.flush_refusals()
            ill = self.alive()
            if ill and ill != was_ill:
                self.log.critical("significant event: the service is not well: %s (no watchdog ping)", ill)
            was_ill = ill
            if not ill and every is not None:
                notify_systemd("WATCHDOG=1")

    # ------------------------------------------------------------------ a client
    def _serve(self, sock: socket.socket, peer: Peer) -> None:
        conn: _Connection | None = None
        try:
            reader = LineReader(sock)
            try:
                first = reader.read_line(limit=HELLO_LIMIT, deadline=time.monotonic() + self.hello_seconds)
            except TimeoutError:
                self.bursts.note("hello", f"account {peer.account}",
                                 f"connection closed: no hello within {self.hello_seconds:.0f} s")
                return
            sock.settimeout(None)
            if first is None:
                return
            try:
                said = decode(first)
                kind = check_hello(said)
            except ProtocolError as exc:
                sock.sendall(encode({"error": exc.as_json()}))
                return
            conn = _Connection(sock, Client(peer.account, kind, uid=peer.uid))
            conn.deltas = said.get("round") == ROUND_FORM
            conn.client.round_told = conn.deltas  # its table ops answered with the version told
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
                            int(SEND_TIMEOUT_S).to_bytes(8, "little") + b"\0" * 8)
            conn.send(service_hello(self.service.station, peer.account))
            with self.conn_lock:
                self.connections.append(conn)
            self.log.info("client %s connected (account %s, pid %s)", kind, peer.account, peer.pid)
            while conn.alive:
                line = reader.read_line()
                if line is None:
                    break
                reply = self._answer(conn.client, line)
                fd, conn.client.pass_fd = conn.client.pass_fd, None
                try:
                    conn.send(reply, fd if reply.get("ok") else None)
                finally:
                    if fd is not None:
                        os.close(fd)
        except ProtocolError as exc:
            try:
                if conn is not None:
                    conn.send({"error": exc.as_json()})
                else:
                    sock.sendall(encode({"error": exc.as_json()}))
            except OSError:
                pass
        except OSError:
            pass
        finally:
            if conn is not None:
                conn.alive = False
                with self.conn_lock:
                    self.connections = [c for c in self.connections if c is not conn]
                try:
                    if not self.stopping.is_set():  # stopping: the store is being closed
                        self.service.disconnected(conn.client)
                except Exception:  # never a dead accept loop for a failed log-out
                    self.log.exception("the log-out of a closed connection failed")
            try:
                sock.close()
            except OSError:
                pass
            self._release(peer)

    def _answer(self, client: Client, line: bytes) -> dict[str, Any]:
        return answer(line, lambda op, args: self.service.handle(client, op, args), self.log)
