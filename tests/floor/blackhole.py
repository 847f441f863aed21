"""A TCP proxy on 127.0.0.1 in front of the test server's Unix socket that can black-hole the
link: :meth:`BlackHole.hold` stops forwarding in both directions while every connection stays
open (the proxy's kernel still acknowledges what is sent — no reset, no TCP timer fires), as a
dead middlebox or a silently dropped route does. :meth:`release` forwards again."""

from __future__ import annotations

import glob
import socket
import threading
from pathlib import Path


class BlackHole:
    def __init__(self, socket_dir: Path) -> None:
        (self.target,) = [p for p in glob.glob(str(socket_dir / ".s.PGSQL.*")) if not p.endswith(".lock")]
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = int(self.listener.getsockname()[1])
        self._flowing = threading.Event()
        self._flowing.set()
        self._closed = threading.Event()
        self._sockets: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def url(self, database: str, user: str) -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}"

    def hold(self) -> None:
        self._flowing.clear()

    def release(self) -> None:
        self._flowing.set()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.connect(self.target)
            self._sockets += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        source.settimeout(0.05)
        while not self._closed.is_set():
            if not self._flowing.wait(0.05):
                continue  # held: read nothing, send nothing
            try:
                data = source.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            if not data:
                break
            while not self._flowing.wait(0.05):  # held meanwhile: keep what was read
                if self._closed.is_set():
                    return
            try:
                sink.sendall(data)
            except OSError:
                break
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        self._closed.set()
        self.listener.close()
        for s in self._sockets:
            try:
                s.close()
            except OSError:
                pass
