"""Forwarding to the floor from the service, on a thread of its own (issue 23: rounds reach
the floor when no screen is open). It uses the floor's public :class:`Forwarder` (its own
read-only connection to the store, its own PostgreSQL connection), so a slow or absent
network never slows the table; each state goes to the clients as a ``floor`` notification."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

from dealer_assist.floor.connection import FloorError, connect, describe_error
from dealer_assist.floor.forward import Forwarder, ForwardResult, LinkState

log = logging.getLogger("dealer_assist.service")
PASSFILE_NAME = "floor.pgpass"  # libpq's password file for the forwarder, made from floor.secret


def floor_passfile(state_dir: Path, password: str) -> Path:
    """libpq's password file (PGPASSFILE) holding the floor's password, 0600 in the service's
    own 0700 directory: the forwarder's connections take it (the floor's URLs never carry a
    password: dealer_assist.floor.connection.parse_url). Written again at every start."""
    def field(text: str) -> str:
        return text.replace("\\", "\\\\").replace(":", "\\:")

    path = state_dir / PASSFILE_NAME
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        os.fchmod(out.fileno(), 0o600)
        out.write(f"*:*:*:*:{field(password)}\n")
    return path


class FloorForwarding:
    def __init__(self, db: Path, url: str, notify: Callable[[str, dict[str, Any]], None],
                 interval: float = 5.0) -> None:
        self.db, self.url, self.notify, self.interval = db, url, notify, interval
        self.state: dict[str, Any] = {"text": "floor: connecting…"}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="floor-forward", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def _report(self, state: LinkState, done: ForwardResult | None) -> None:
        self.state = {"text": state.describe(), "forwarded_up_to": state.forwarded_up_to,
                      "waiting": state.waiting, "stopped": state.stopped, "error": state.error}
        self.notify("floor", dict(self.state))

    def _run(self) -> None:
        try:
            with Forwarder(self.db, self.url) as forwarder:
                forwarder.follow(interval=self.interval, report=self._report, should_stop=self._stop.is_set)
        except Exception as exc:  # the table goes on; the link says why it stopped
            log.exception("forwarding to the floor stopped")
            self.state = {"text": f"floor: stopped — {exc}", "stopped": str(exc)}
            self.notify("floor", dict(self.state))


def floor_last_round(url: str, table: str, timeout_s: int = 5, password: str | None = None) -> int | None:
    """The newest round of ``table`` the floor holds (the station's own round id): the second
    rollback anchor (issue 23 item 5). None when the floor cannot be reached now (the anchor
    file still guards) or holds nothing of the table."""
    try:
        with connect(url, connect_timeout=timeout_s, password=password) as conn:
            row = conn.execute("SELECT MAX(round_id) FROM floor.rounds WHERE table_name = %s", (table,)).fetchone()
    except (FloorError, psycopg.Error) as exc:
        log.warning("the floor cannot be asked for its last round of %s: %s", table, describe_error(exc))
        return None
    return int(row[0]) if row is not None and row[0] is not None else None
