"""The station service's socket: accepts clients, knows each by SO_PEERCRED, speaks the
protocol (protocol.py) and hands every request to the table (table.py); notifications go
to every connected client. One thread per client; the table serialises them."""

from __future__ import annotations

import logging
import os
import socket
import threading
from pathlib import Path
from typing import Any

from dealer_assist.service.peer import peer_of
from dealer_assist.service.protocol import (
    LineReader,
    ProtocolError,
    check_hello,
    decode,
    encode,
    error_reply,
    notification,
    ok_reply,
    service_hello,
)
from dealer_assist.service.table import Client, TableService

SOCKET_MODE = 0o660  # the group dealer-assist reaches the socket; nothing else of the service
SEND_TIMEOUT_S = 5.0  # a client that does not read for this long is dropped (never blocks the table)


class _Connection:
    def __init__(self, sock: socket.socket, client: Client) -> None:
        self.sock = sock
        self.client = client
        self.send_lock = threading.Lock()
        self.alive = True

    def send(self, message: dict[str, Any], fd: int | None = None) -> None:
        """One message; ``fd`` goes with its first byte (SCM_RIGHTS), e.g. the review's copy."""
        data = encode(message)
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
                 mode: int = SOCKET_MODE) -> None:
        self.service = service
        self.path = path
        self.mode = mode
        self.log = log or logging.getLogger("dealer_assist.service")
        self.connections: list[_Connection] = []
        self.conn_lock = threading.Lock()
        self.listener: socket.socket | None = None
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()
        service.notify = self.broadcast

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
        listener.listen(16)
        self.listener = listener
        self.thread = threading.Thread(target=self._accept, name="station-accept", daemon=True)
        self.thread.start()

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

    def broadcast(self, name: str, data: dict[str, Any]) -> None:
        message = notification(name, data)
        with self.conn_lock:
            conns = [c for c in self.connections if c.alive]
        for conn in conns:
            conn.send(message)

    def _accept(self) -> None:
        assert self.listener is not None
        while not self.stopping.is_set():
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(sock,), name="station-client", daemon=True).start()

    def _serve(self, sock: socket.socket) -> None:
        sock.settimeout(None)
        conn: _Connection | None = None
        try:
            peer = peer_of(sock)
            reader = LineReader(sock)
            first = reader.read_line()
            if first is None:
                return
            try:
                kind = check_hello(decode(first))
            except ProtocolError as exc:
                sock.sendall(encode({"error": exc.as_json()}))
                return
            conn = _Connection(sock, Client(peer.account, kind))
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
            if conn is not None:
                conn.send({"error": exc.as_json()})
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

    def _answer(self, client: Client, line: bytes) -> dict[str, Any]:
        request_id: Any = None
        try:
            message = decode(line)
            request_id = message.get("id")
            op, args = message.get("op"), message.get("args", {})
            if not isinstance(op, str) or not isinstance(args, dict):
                raise ProtocolError("bad_request", "a request is {\"id\": N, \"op\": NAME, \"args\": {...}}")
            return ok_reply(request_id, self.service.handle(client, op, args))
        except ProtocolError as exc:
            return error_reply(request_id, exc)
        except Exception as exc:  # a fault of the service: answered, logged, never a dead client
            self.log.exception("request failed")
            return error_reply(request_id, ProtocolError("internal", f"the service failed: {exc}"))
