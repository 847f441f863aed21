"""The pit's live view of its tables (issue 25, item 3): what each table is doing now, and a
listener that wakes when the floor changes.

Live updates are PostgreSQL ``LISTEN``/``NOTIFY`` (docs/floor.md, *Live*): the floor sends
``NOTIFY floor_live, '<table>'`` in the transaction that forwards a table's rounds (a statement
trigger on ``floor.rounds``) and when a station's heartbeat changes (``floor.heartbeat``); the
notification is delivered only when that transaction commits, so a pit view that wakes always
finds the rows. Each station's forwarder beats at least every ``forward.HEARTBEAT`` seconds
(``floor.station_links``): a table whose beat is older than ``stale_after`` is *link down*
(since its last beat); a fresh beat with no new round is an *idle table*; a table never heard
from is *not connected* (its station's URL, credentials or registration are wrong — the floor
cannot tell which, the station's screen can).

A pit that reads a hot standby still listens on the primary (a standby runs no ``LISTEN``);
the listener then waits until the standby has replayed what the primary had written when the
notification came (a bounded wait) before it wakes the pit, so the pit finds the rows there.
"""

from __future__ import annotations

import datetime as _dt
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import psycopg

from dealer_assist.floor.connection import REVIEW, FloorError, Watchdog, connect

__all__ = ["CHANNEL", "LiveListener", "LiveTable", "link_condition", "live_tables"]

CHANNEL = "floor_live"
#: a station whose last heartbeat is older than this is "link down" (three beats missed)
STALE_AFTER = _dt.timedelta(seconds=30)
#: a table with a fresh heartbeat but no round ended for this long is "idle"
IDLE_AFTER = _dt.timedelta(minutes=5)


@dataclass(frozen=True)
class LiveTable:
    table: str
    pit: str
    game: str | None
    dealer: str | None
    in_play: int | None  # the station's round in play (from its heartbeat)
    last_round: int | None
    last_status: str | None
    last_house_net: Decimal | None
    last_ended_at: _dt.datetime | None
    rounds_last_hour: int
    heartbeat_at: _dt.datetime | None
    link_state: str | None  # the forwarder's own word: up / stopped
    waiting: int
    alarm: str | None
    condition: str  # live / idle / link down / not connected / stopped / catching up
    note: str  # the condition in words, for the pit


def link_condition(heartbeat_at: _dt.datetime | None, link_state: str | None, waiting: int, alarm: str | None,
                   last_ended_at: _dt.datetime | None, now: _dt.datetime,
                   stale_after: _dt.timedelta = STALE_AFTER, idle_after: _dt.timedelta = IDLE_AFTER) -> tuple[str, str]:
    """(condition, words) of a table from its heartbeat and its latest round."""
    if alarm is not None or link_state == "stopped":
        return "stopped", f"forwarding stopped: {alarm or 'the store no longer extends the floor'}"
    if heartbeat_at is None:
        return "not connected", ("not connected: never heard from (check the station's floor URL, "
                                 "credentials and registration)")
    if now - heartbeat_at > stale_after:
        return "link down", f"link down since {heartbeat_at.astimezone():%H:%M:%S} (its last heartbeat)"
    if waiting:
        return "catching up", f"catching up: {waiting} rounds waiting at the station"
    if last_ended_at is None or now - last_ended_at > idle_after:
        since = f" since {last_ended_at.astimezone():%H:%M}" if last_ended_at else ""
        return "idle", f"idle: link up, no round{since}"
    return "live", "live: link up"


_LIVE_SQL = """
SELECT t.table_name, t.pit, l.heartbeat_at, l.state, l.waiting, l.in_play,
    r.game, r.dealer, r.round_id, r.status, r.house_net, r.ended_at,
    (SELECT count(*) FROM floor.rounds c WHERE c.table_name = t.table_name AND c.started_at >= %(hour_ago)s),
    (SELECT a.reason FROM floor.alarms a WHERE a.table_name = t.table_name ORDER BY a.raised_at LIMIT 1)
FROM floor.tables t
LEFT JOIN floor.station_links l ON l.table_name = t.table_name
LEFT JOIN LATERAL (
    SELECT x.game, x.dealer, x.round_id, x.status, x.house_net, x.ended_at FROM floor.rounds_latest x
    WHERE x.table_name = t.table_name ORDER BY x.started_at DESC, x.round_id DESC LIMIT 1) r ON true
WHERE %(pit)s::text IS NULL OR t.pit = %(pit)s
ORDER BY t.table_name
"""


def live_tables(conn: psycopg.Connection[Any], pit: str | None = None,
                now: _dt.datetime | None = None) -> list[LiveTable]:
    """Every table of ``pit`` (all pits: None) as it stands: one query."""
    moment = now or _dt.datetime.now(_dt.UTC)
    out = []
    for (table, table_pit, beat, state, waiting, in_play, game, dealer, rid, status, house, ended, per_hour,
         alarm) in conn.execute(_LIVE_SQL, {"pit": pit, "hour_ago": moment - _dt.timedelta(hours=1)}):
        condition, note = link_condition(beat, state, int(waiting or 0), alarm, ended, moment)
        out.append(LiveTable(
            table=str(table), pit=str(table_pit), game=game, dealer=dealer,
            in_play=int(in_play) if in_play is not None else None,
            last_round=int(rid) if rid is not None else None, last_status=status,
            last_house_net=Decimal(house) if house is not None else None, last_ended_at=ended,
            rounds_last_hour=int(per_hour), heartbeat_at=beat, link_state=state, waiting=int(waiting or 0),
            alarm=alarm, condition=condition, note=note,
        ))
    return out


class LiveListener:
    """``LISTEN floor_live`` on a connection of its own, on a thread of its own.

    ``on_change(tables)`` is called (on the listener's thread) with the set of tables named by
    the notifications of one wake-up (an empty set: a periodic tick, for heartbeats going stale
    or after a reconnection, when notifications may have been missed); ``on_link(text)`` with
    the listener's own link state. It reconnects by itself (after a server restart, a lost
    link), backing off from 0.5 s to ``max_backoff``; every ``tick`` seconds it also checks the
    link with a ``SELECT 1`` under a deadline (a black-holed link sends no error).
    ``replica_url``: the standby the pit reads; a wake-up waits (at most ``replay_wait``
    seconds) until it has replayed what the primary had written."""

    def __init__(self, url: str, on_change: Callable[[set[str]], None], on_link: Callable[[str], None],
                 *, tick: float = 5.0, max_backoff: float = 5.0, replica_url: str | None = None,
                 replay_wait: float = 5.0) -> None:
        self.url = url
        self.replica_url = replica_url if replica_url != url else None
        self._replay_wait = replay_wait
        self._replica: psycopg.Connection[Any] | None = None
        self._on_change = on_change
        self._on_link = on_link
        self._tick = tick
        self._max_backoff = max_backoff
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="floor-live", daemon=True)
        self.connected = threading.Event()

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread.ident is not None:  # (never started: a pit closed before the floor answered)
            self._thread.join(timeout)

    def _run(self) -> None:
        backoff = 0.5
        while not self._stop.is_set():
            try:
                conn = connect(self.url, autocommit=True, timeouts=REVIEW)
            except FloorError as err:
                self.connected.clear()
                self._on_link(f"floor: no live updates ({err}); retrying")
                self._stop.wait(backoff)
                backoff = min(self._max_backoff, backoff * 2)
                continue
            backoff = 0.5
            try:
                with conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.connected.set()
                    self._on_link("floor: live")
                    self._on_change(set())  # whatever happened while we were away
                    self._listen(conn)
            except (psycopg.Error, FloorError) as err:
                self.connected.clear()
                text = str(err).strip().splitlines()
                self._on_link(f"floor: live updates lost ({text[0] if text else type(err).__name__}); reconnecting")
        self.connected.clear()
        if self._replica is not None:
            self._replica.close()

    def _wait_replayed(self, conn: psycopg.Connection[Any]) -> None:
        """With a standby: wait until it has replayed the primary's WAL as written now (bounded;
        a standby out of reach or too far behind: the wake-up goes ahead, the lag is shown)."""
        if self.replica_url is None:
            return
        row = conn.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()
        if row is None:
            return
        deadline = time.monotonic() + self._replay_wait
        try:
            if self._replica is None or self._replica.closed or self._replica.broken:
                self._replica = connect(self.replica_url, autocommit=True, timeouts=REVIEW)
            while not self._stop.is_set():
                done = self._replica.execute(
                    "SELECT NOT pg_is_in_recovery() OR pg_last_wal_replay_lsn() >= %s::pg_lsn", (row[0],)).fetchone()
                if (done is not None and done[0]) or time.monotonic() >= deadline:
                    return
                time.sleep(0.02)
        except (psycopg.Error, FloorError):
            if self._replica is not None:
                self._replica.close()
            self._replica = None

    def _listen(self, conn: psycopg.Connection[Any]) -> None:
        last_check = time.monotonic()
        while not self._stop.is_set():
            tables = {n.payload for n in conn.notifies(timeout=0.25)}
            if tables:
                self._wait_replayed(conn)
                self._on_change(tables)
            if time.monotonic() - last_check >= self._tick:
                with Watchdog(conn, REVIEW.connect):
                    conn.execute("SELECT 1")
                last_check = time.monotonic()
                self._on_change(set())
