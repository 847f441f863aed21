"""Who is at the other end of a Unix socket: the OS account by SO_PEERCRED (Linux)."""

from __future__ import annotations

import pwd
import socket
import struct
from dataclasses import dataclass


@dataclass(frozen=True)
class Peer:
    pid: int
    uid: int
    gid: int
    account: str


def peer_of(sock: socket.socket) -> Peer:
    """The peer's credentials as the kernel gives them (not what the client says)."""
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, gid = struct.unpack("3i", raw)
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        name = f"uid:{uid}"
    return Peer(pid, uid, gid, name)
