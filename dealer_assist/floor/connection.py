"""Connecting to the floor database with libpq's conventions, never with a password in hand.

A floor URL is a libpq connection string: ``postgresql://user@host/dbname?sslmode=...``,
``postgresql:///floor?host=/run/postgresql``, or ``service=floor`` (a section of
``PGSERVICEFILE`` / ``~/.pg_service.conf``). The password comes from ``PGPASSFILE``
(``~/.pgpass``, readable only by the station account, libpq checks that), from the service
file, or from the environment (``PGPASSWORD``) — libpq reads them itself. A URL that carries
a password is refused: it would end up in shell history, process listings and logs.
"""

from __future__ import annotations

import os
import socket
import threading
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import psycopg
from psycopg import conninfo as _conninfo

__all__ = [
    "ADMIN", "REVIEW", "STATION", "FloorError", "FloorMisconfigured", "FloorUnreachable", "Timeouts", "Watchdog",
    "classify", "connect", "is_floor_url", "parse_url", "safe_url",
]

_SCHEMES = ("postgresql://", "postgres://")


class FloorError(Exception):
    """A floor operation that cannot be done; ``str(err)`` is a one-line message."""


class FloorUnreachable(FloorError):
    """The link is down: no answer in time, connection refused or lost (retrying may help)."""


class FloorMisconfigured(FloorError):
    """The floor answered but refuses this station: wrong credentials, no such database or
    floor schema, a table not registered (or not this account's). Retrying will not help."""


@dataclass(frozen=True)
class Timeouts:
    """Every bound on a floor connection (seconds). ``statement``, ``lock`` and
    ``idle_in_transaction`` are the server's own (``statement_timeout``, ``lock_timeout``,
    ``idle_in_transaction_session_timeout``: a session stuck in a transaction is ended by the
    server, which frees its locks); keepalives and ``tcp_user_timeout`` end a TCP link whose
    peer went away; ``client`` is this side's deadline for one step (a link that still
    acknowledges but no longer answers — a black-holing middlebox — trips no TCP timer), after
    which :class:`Watchdog` severs the socket. 0 = no server bound."""

    connect: int = 10
    statement: float = 30.0
    lock: float = 5.0
    idle_in_transaction: float = 15.0
    keepalive_idle: int = 10
    keepalive_interval: int = 5
    keepalive_count: int = 3
    tcp_user_timeout: float = 30.0
    client: float = 45.0

    def options(self) -> str:
        return " ".join(
            f"-c {name}={int(value * 1000)}" for name, value in (
                ("statement_timeout", self.statement), ("lock_timeout", self.lock),
                ("idle_in_transaction_session_timeout", self.idle_in_transaction))
        )


#: a station's forwarder: small transactions; a stuck one is ended within 15 s
STATION = Timeouts()
#: the pit review and history: long day reports and verify
REVIEW = Timeouts(statement=300.0, idle_in_transaction=60.0, client=330.0)
#: floor init / station / clear-alarm: DDL waits at most 10 s for a lock, then gives up
ADMIN = Timeouts(statement=0.0, lock=10.0, idle_in_transaction=60.0, client=0.0)


def is_floor_url(text: str) -> bool:
    """True for a PostgreSQL URL or a ``service=`` connection string (not a store file path)."""
    return text.startswith(_SCHEMES) or text.startswith("service=")


def parse_url(url: str) -> dict[str, Any]:
    """The connection parameters of ``url``; refuses a malformed one or one with a password."""
    if not is_floor_url(url):
        raise FloorError(f"{url!r} is not a floor URL (postgresql://... or service=NAME)")
    try:
        params = _conninfo.conninfo_to_dict(url)
    except psycopg.Error as err:
        raise FloorError(f"the floor URL is not valid: {_first_line(err)}") from None
    if params.get("password"):
        raise FloorError(
            "the floor URL carries a password: give it through PGPASSFILE (~/.pgpass, mode 0600), "
            "a PGSERVICEFILE entry or the environment (libpq), never on the command line"
        )
    return params


def safe_url(url: str) -> str:
    """A description of the floor for messages: host, database and user, never a secret."""
    try:
        params = _conninfo.conninfo_to_dict(url)
    except psycopg.Error:
        return "the floor database"
    if "service" in params and len(params) == 1:
        return f"service {params['service']}"
    host = str(params.get("host") or "localhost")
    db = str(params.get("dbname") or params.get("user") or "")
    user = params.get("user")
    return f"{db} on {host}" + (f" as {user}" if user else "")


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


# libpq's words for a server that answered and refused us (not a link that is down)
_REFUSALS = (
    "password authentication failed", "no password supplied", "role \"", "does not exist",
    "pg_hba.conf", "certificate", "permission denied", "authentication",
)


def classify(err: BaseException, where: str) -> FloorError:
    """A database error as the link's state: misconfigured (the server refused: credentials,
    privileges, no such database), unreachable (no answer, connection lost, timed out) or else
    a plain :class:`FloorError`."""
    text = _first_line(err)
    state = getattr(err, "sqlstate", None)
    if isinstance(err, FloorError):
        return err
    if state is not None and (state.startswith("28") or state in ("3D000", "42501", "3F000", "42883")):
        return FloorMisconfigured(f"{where}: {text}")
    if state is None and any(word in text for word in _REFUSALS):
        return FloorMisconfigured(f"{where}: {text}")
    if state is None or state.startswith("08") or state in ("57014", "55P03", "57P01", "57P02", "57P03"):
        return FloorUnreachable(f"{where}: {text}")
    return FloorError(f"{where}: {text}")


def connect(url: str, *, autocommit: bool = False, timeouts: Timeouts = STATION,
            connect_timeout: int | None = None, password: str | None = None) -> psycopg.Connection[Any]:
    """Open a connection to the floor with every bound of ``timeouts`` (this is the one place
    that builds floor connections; ``connect_timeout`` overrides ``timeouts.connect``).
    ``password``: the station's ``floor.secret`` (never part of the URL).
    FloorMisconfigured / FloorUnreachable with one line when it cannot."""
    params = parse_url(url)
    if password:
        params["password"] = password
    params.setdefault("connect_timeout", timeouts.connect if connect_timeout is None else connect_timeout)
    params.setdefault("application_name", "dealer-assist")
    params.setdefault("keepalives", 1)
    params.setdefault("keepalives_idle", timeouts.keepalive_idle)
    params.setdefault("keepalives_interval", timeouts.keepalive_interval)
    params.setdefault("keepalives_count", timeouts.keepalive_count)
    params.setdefault("tcp_user_timeout", int(timeouts.tcp_user_timeout * 1000))
    options = timeouts.options()
    params["options"] = f"{params['options']} {options}" if params.get("options") else options
    try:
        conn = psycopg.connect(_conninfo.make_conninfo(**params), autocommit=autocommit)
    except psycopg.Error as err:
        raise classify(err, f"cannot connect to {safe_url(url)}") from None
    # no server-side prepared statements: a transaction pooler (PgBouncer before 1.21) hands
    # each transaction to any server connection, where a statement prepared on another is unknown
    conn.prepare_threshold = None
    return conn


class Watchdog:
    """``with Watchdog(conn, seconds):`` — if the block has not finished after ``seconds``, the
    connection's socket is shut down, so the blocked call returns with an error at once
    (:class:`FloorUnreachable` on leaving the block). :meth:`rearm` restarts the count (each
    step of a long pass gets its own deadline). ``seconds`` 0: no deadline."""

    def __init__(self, conn: psycopg.Connection[Any], seconds: float) -> None:
        self._conn = conn
        self._seconds = seconds
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self.fired = False

    def _sever(self) -> None:
        with self._lock:
            self.fired = True
            try:
                fd = self._conn.pgconn.socket
                with socket.socket(fileno=os.dup(fd)) as sock:
                    sock.shutdown(socket.SHUT_RDWR)
            except (OSError, psycopg.Error):
                pass

    def rearm(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            if self._seconds > 0 and not self.fired:
                self._timer = threading.Timer(self._seconds, self._sever)
                self._timer.daemon = True
                self._timer.start()

    def __enter__(self) -> Watchdog:
        self.rearm()
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        if self.fired:
            try:
                self._conn.close()
            except psycopg.Error:
                pass
            if kind is not None and not issubclass(kind, FloorMisconfigured):
                raise FloorUnreachable(
                    f"the floor did not answer within {self._seconds:g} s (link down; the connection was cut)"
                ) from None


def describe_error(err: BaseException) -> str:
    """One line for a database error (no parameters, no secrets)."""
    return _first_line(err)
