"""Connecting to the floor database with libpq's conventions, never with a password in hand.

A floor URL is a libpq connection string: ``postgresql://user@host/dbname?sslmode=...``,
``postgresql:///floor?host=/run/postgresql``, or ``service=floor`` (a section of
``PGSERVICEFILE`` / ``~/.pg_service.conf``). The password comes from ``PGPASSFILE``
(``~/.pgpass``, readable only by the station account, libpq checks that), from the service
file, or from the environment (``PGPASSWORD``) — libpq reads them itself. A URL that carries
a password is refused: it would end up in shell history, process listings and logs.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import conninfo as _conninfo

__all__ = ["FloorError", "connect", "is_floor_url", "parse_url", "safe_url"]

_SCHEMES = ("postgresql://", "postgres://")


class FloorError(Exception):
    """A floor operation that cannot be done; ``str(err)`` is a one-line message."""


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


def connect(url: str, *, autocommit: bool = False, connect_timeout: int = 10,
            password: str | None = None) -> psycopg.Connection[Any]:
    """Open a connection to the floor (FloorError with one line when it cannot). ``password``:
    the station's ``floor.secret`` (never part of the URL)."""
    params = parse_url(url)
    if password:
        params["password"] = password
    params.setdefault("connect_timeout", connect_timeout)
    params.setdefault("application_name", "dealer-assist")
    try:
        return psycopg.connect(_conninfo.make_conninfo(**params), autocommit=autocommit)
    except psycopg.Error as err:
        raise FloorError(f"cannot connect to {safe_url(url)}: {_first_line(err)}") from None


def describe_error(err: BaseException) -> str:
    """One line for a database error (no parameters, no secrets)."""
    return _first_line(err)
