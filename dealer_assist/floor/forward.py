"""Forwarding a station's finished rounds to the floor, exactly once (``dealer-assist forward``).

One pass (:meth:`Forwarder.forward`):

1. read the floor's copy of this table (the rounds already there, the last round and
   audit entry forwarded, with their station links);
2. check that the store still extends that copy: the last forwarded round, its last event
   and the last forwarded audit entry must be in the store with the same links. If not,
   the store was rebuilt or rolled back after forwarding: an alarm is recorded on the
   floor, forwarding stops for this table (:class:`ForwardStopped`) and nothing of the
   floor's copy changes;
3. copy every finished round (settled or void) that is not on the floor yet, with its
   session, configuration, events, settle output, settlements, rulings and players, and
   every audit entry not yet there, in batches. Each batch is one transaction taken under
   a per-table advisory lock, which re-reads the floor's tail and skips rows already
   there, so a forwarder killed at any moment, or two running at once, leave every row
   on the floor exactly once (primary keys (table, round) and (table, audit entry)).

The store is only read (its own read-only connection); the dealer's screen is never held up.
A round finished again after it was forwarded (a 5.7 card after settlement) keeps its first
forwarded copy on the floor, and its new result goes to ``floor.round_versions`` as a new
version (with the events recorded since); the floor's review shows the latest with its history.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import queue
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import psycopg

from dealer_assist.floor import chain
from dealer_assist.floor.connection import (
    STATION,
    FloorError,
    FloorMisconfigured,
    FloorUnreachable,
    Timeouts,
    Watchdog,
    classify,
    connect,
    safe_url,
)
from dealer_assist.floor.edges import kept_edges, work_out_later
from dealer_assist.floor.schema import (
    AUDIT_FORMAT_MIGRATION,
    CHAIN_FORMAT_MIGRATION,
    applied_migrations,
    check_schema,
)
from dealer_assist.odds.theo import StoredRound, round_theo, total
from dealer_assist.store import Store, StoreError

__all__ = ["ForwardResult", "ForwardStopped", "Forwarder", "LinkState", "parse_time"]

BATCH_ROUNDS = 500
#: seconds between a following forwarder's heartbeats on the floor (the pit calls a station whose
#: last beat is older than three of these "link down")
HEARTBEAT = 10.0
BATCH_AUDIT = 2000


class ForwardStopped(FloorError):
    """Forwarding for this table is stopped (the store no longer extends the floor's copy)."""


@dataclass
class ForwardResult:
    rounds: int = 0
    audit: int = 0
    sessions: int = 0
    last_round: int | None = None  # the station's id of the latest round on the floor
    waiting: int = 0  # finished rounds still to forward (after this pass: 0)
    versions: int = 0  # rounds finished again at the station, forwarded as new versions


@dataclass
class LinkState:
    """What the dealer's screen shows about the link to the floor.

    ``condition``: ``connecting`` (no pass yet), ``up`` (the last pass reached the floor),
    ``down`` (no answer: ``offline_since`` is when the first failing pass began, so at most one
    interval after the last good one), ``misconfigured`` (the floor answered and refused this
    station: credentials, database, registration — retrying will not help until someone fixes
    it) or ``stopped`` (the store no longer extends the floor's copy). ``waiting`` is exact when
    ``waiting_known``: the finished rounds of the store not in the floor's copy as last read."""

    forwarded_up_to: int | None = None  # round number (the station's round id) on the floor
    waiting: int = 0
    offline_since: _dt.datetime | None = None
    stopped: str | None = None
    error: str | None = None
    condition: str = "connecting"
    waiting_known: bool = True
    last_contact: _dt.datetime | None = None

    def describe(self) -> str:
        if self.stopped:
            return f"floor: stopped — {self.stopped}"
        if self.condition == "misconfigured":
            return f"floor: misconfigured — {self.error}; {self.waiting} rounds waiting"
        if self.offline_since is not None:
            local = self.offline_since.astimezone()
            if not self.waiting_known:
                return (f"floor: offline since {local:%H:%M}, never reached; "
                        f"{self.waiting} finished rounds in the store")
            return f"floor: offline since {local:%H:%M}, {self.waiting} rounds waiting"
        if self.forwarded_up_to is None:
            return f"floor: nothing forwarded yet, {self.waiting} rounds waiting"
        text = f"floor: forwarded up to round {self.forwarded_up_to}"
        return text + (f", {self.waiting} waiting" if self.waiting else "")


def parse_time(text: str) -> _dt.datetime:
    """A store time (``YYYY-MM-DDTHH:MM:SS.ffffffZ``) as an aware datetime."""
    if len(text) == 27 and text[-1] == "Z":
        return _dt.datetime.fromisoformat(text[:-1]).replace(tzinfo=_dt.UTC)  # C, not strptime
    return _dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=_dt.UTC)


def _amount(value: Any) -> Decimal:
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return Decimal(0)


@dataclass
class _Tail:
    seq: int = 0
    link: bytes = chain.ZERO
    round_id: int | None = None
    round_station_link: bytes | None = None
    audit_id: int = 0
    audit_link: bytes = chain.ZERO
    audit_station_link: bytes | None = None
    session_max: int = 0
    forwarded: set[int] = field(default_factory=set)


def _json_value(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, Decimal):
        return str(value)  # exact: the server casts the text to numeric
    if isinstance(value, _dt.datetime):
        return value.isoformat()
    raise TypeError(f"cannot forward a {type(value).__name__}")


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=_json_value)

Columns = tuple[tuple[str, str], ...]
_ROUND_COLUMNS: Columns = (
    ("table_name", "text"), ("round_id", "bigint"), ("pit", "text"), ("session_id", "bigint"),
    ("number", "int"), ("source", "text"), ("game", "text"), ("dealer", "text"), ("config_json", "text"),
    ("started_at", "timestamptz"), ("ended_at", "timestamptz"), ("status", "text"), ("players_json", "text"),
    ("totals_json", "text"), ("irregular", "bool"), ("result_json", "text"), ("wagered", "numeric"),
    ("house_net", "numeric"), ("station_link", "bytea"), ("finish_audit_id", "bigint"), ("floor_seq", "bigint"),
    ("floor_link", "bytea"), ("theo", "numeric"), ("theo_initial", "numeric"), ("theo_wagered", "numeric"),
)
#: The rounds' columns on a floor of 0015 on: each round's chain format recorded with it.
_ROUND2_COLUMNS: Columns = (*_ROUND_COLUMNS, ("chain_format", "smallint"))
_EVENT_COLUMNS: Columns = (
    ("table_name", "text"), ("round_id", "bigint"), ("seq", "int"), ("station_event_id", "bigint"),
    ("at", "text"), ("actor", "text"), ("event_json", "text"), ("station_link", "bytea"), ("started_at", "timestamptz"),
)
_SETTLEMENT_COLUMNS: Columns = (
    ("table_name", "text"), ("round_id", "bigint"), ("idx", "int"), ("player", "text"), ("area", "int"),
    ("hand", "int"), ("bet", "text"), ("stake", "numeric"), ("result", "text"), ("net", "numeric"),
    ("rule", "text"), ("stage", "text"), ("started_at", "timestamptz"),
)
_RULING_COLUMNS: Columns = (
    ("table_name", "text"), ("round_id", "bigint"), ("idx", "int"), ("event_index", "int"), ("rule", "text"),
    ("ruling", "text"), ("text", "text"), ("moves_json", "text"), ("started_at", "timestamptz"),
)
_PLAYER_COLUMNS: Columns = (
    ("player", "text"), ("started_at", "timestamptz"), ("table_name", "text"), ("round_id", "bigint"),
    ("pit", "text"), ("net", "numeric"), ("wagered", "numeric"),
)
_AUDIT_COLUMNS: Columns = (
    ("table_name", "text"), ("audit_id", "bigint"), ("at", "text"), ("actor", "text"), ("kind", "text"),
    ("round_id", "bigint"), ("detail_json", "text"), ("station_link", "bytea"), ("floor_link", "bytea"),
)
_AUDIT2_COLUMNS: Columns = (*_AUDIT_COLUMNS, ("chain_format", "smallint"))


_SESSION_COLUMNS: Columns = (
    ("table_name", "text"), ("session_id", "bigint"), ("game", "text"), ("decks", "int"), ("areas", "int"),
    ("limits_json", "text"), ("dealer", "text"), ("started_at", "timestamptz"),
)


_VERSION_COLUMNS: Columns = (
    ("table_name", "text"), ("round_id", "bigint"), ("finish_audit_id", "bigint"), ("status", "text"),
    ("ended_at", "timestamptz"), ("players_json", "text"), ("totals_json", "text"), ("irregular", "bool"),
    ("result_json", "text"), ("wagered", "numeric"), ("house_net", "numeric"), ("events_json", "text"),
)


def _figures(result_json: str | None) -> tuple[Decimal, Decimal]:
    """A settle output's wagered (the stakes) and the house's net (minus the players' nets)."""
    output = json.loads(result_json) if result_json else {}
    settlements = [s for s in (output.get("settlements") or []) if isinstance(s, dict)]
    wagered = sum((_amount(s.get("stake")) for s in settlements), Decimal(0))
    house = -sum((_amount(s.get("net")) for s in settlements), Decimal(0))
    return wagered, house


_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _number(value: Any) -> bool:
    """An amount the server reads as the forwarder does (floor.check_derived casts its text)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, str) and _NUMBER.fullmatch(value) is not None


def _checks2(output: Any, totals_json: str) -> bool:
    """Whether the server's check of a format-2 round (floor.check_derived) passes on what an
    honest station sends: its settle output's settlements and rulings lists of objects, each
    settlement's player, bet and result text and stake and net amounts, and its totals its nets.
    Otherwise the round is written in format 1 (a station's own inconsistency is then named by
    verify, as before, never a refused batch)."""
    if not isinstance(output, dict):
        return False
    settlements, rulings = output.get("settlements", []), output.get("rulings", [])
    if not isinstance(settlements, list) or not isinstance(rulings, list):
        return False
    if not all(isinstance(x, dict) for x in (*settlements, *rulings)):
        return False
    for s in settlements:
        if not all(isinstance(s.get(k), str) for k in ("player", "bet", "result")):
            return False
        if not (_number(s.get("stake")) and _number(s.get("net"))):
            return False
    try:
        return bool(json.loads(totals_json) == output.get("net", {}))
    except ValueError:
        return False


def _plain2(fields: Sequence[Any], settlements: Sequence[Sequence[Any]], rulings: Sequence[Sequence[Any]],
            players: Sequence[Sequence[Any]]) -> bool:
    """Whether a round's fields and derived rows write plainly in chain format 2: no separator in
    any text, and each integer column given as an integer (so the server's text of it is the
    station's). Otherwise the round is written in format 1 (its derived rows checked by verify)."""
    texts: list[Any] = [f for f in fields if isinstance(f, str)]
    for _i, player, area, hand, bet, _stake, result, _net, rule, stage in settlements:
        if not all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in (area, hand)):
            return False
        if not all(v is None or isinstance(v, str) for v in (rule, stage)):
            return False
        texts.extend((player, bet, result, rule, stage))
    for _i, index, rule, ruling, text, moves in rulings:
        if not (index is None or (isinstance(index, int) and not isinstance(index, bool))):
            return False
        if not all(v is None or isinstance(v, str) for v in (rule, ruling, text)):
            return False
        texts.extend((rule, ruling, text, moves))
    texts.extend(p[0] for p in players)
    return chain.plain(*texts)


def _plain_audit(at: object, actor: object, kind: object, detail_json: object, round_id: object) -> bool:
    """An audit entry audit format 2 writes as the server rebuilds it: its texts are text with no
    separator (chain.plain), its round an integer or none; otherwise it is written in format 1."""
    texts = (at, actor, kind, detail_json)
    return (all(isinstance(t, str) for t in texts) and chain.plain(*(str(t) for t in texts))
            and (round_id is None or (isinstance(round_id, int) and not isinstance(round_id, bool))))


def _decks(config_json: str | None) -> int:
    config = json.loads(config_json) if config_json else {}
    decks = config.get("decks") if isinstance(config, dict) else None
    return int(decks or 6)


def round_figures(rid: int, session_id: int | None, game: str, config_json: str, status: str, started: str,
                  ended: str | None, wagers: list[dict[str, Any]], settlements: list[dict[str, Any]]
                  ) -> tuple[str | None, str | None, str | None]:
    """A round's theoretical win, worked out once as it is forwarded and stored with it (the
    pit's Theoretical win tab sums these): (theo, initial wagers, wagered) of its players
    together (dealer_assist.odds.theo.round_theo, the par sheets' edges). Not settled: all
    None; settled with no player's line: (0, 0, None) (it counts as no round, as table_theo
    counts it). A game or deck count without a par sheet: all None (the pit works it out)."""
    if status != "settled":
        return None, None, None
    try:
        rnd = StoredRound(rid, session_id, game, _decks(config_json), status, started, ended, wagers, settlements)
        lines = round_theo(rnd, kept_edges)  # never worked out on the way (issue 35): KeyError
    except (KeyError, ValueError, TypeError, ArithmeticError):
        return None, None, None
    if not lines:
        return "0", "0", None
    line = total(lines.values())
    return str(line.theo), str(line.initial), str(line.wagered)


def _insert_query(table: str, columns: Columns) -> bytes:
    names = ", ".join(name for name, _ in columns)
    values = ", ".join(
        f"decode(r->>{i}, 'hex')" if kind == "bytea" else f"(r->>{i})::{kind}"
        for i, (_, kind) in enumerate(columns)
    )
    return f"INSERT INTO floor.{table} ({names}) SELECT {values} FROM jsonb_array_elements(%s::jsonb) r".encode()


_QUERIES: dict[str, bytes] = {}


def _store_time(text: str) -> str:
    """A store time as the server reads it: the store's own text (``...T...Z``, UTC) is ISO 8601."""
    if len(text) == 27 and text[-1] == "Z":
        return text
    return parse_time(text).isoformat()


@dataclass
class _Batch:
    """One transaction's statements (each table's rows as one JSON text: encoded in C here,
    unpacked in C by the server, one statement per table) and what they carry."""

    statements: list[tuple[bytes, tuple[Any, ...]]] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)
    expect_seq: int | None = None  # the floor tail this batch continues (checked under the lock)
    expect_audit: int | None = None
    versions_at: int | None = None  # index of the add_round_versions statement, if any
    rounds: int = 0
    audit: int = 0
    sessions: int = 0
    last_round: int | None = None
    seq: int = 0
    link: bytes = chain.ZERO
    session_max: int = 0

    def add(self, table: str, columns: Columns, rows: Sequence[tuple[Any, ...]], key: str | None = None) -> None:
        if not rows:
            return
        query = _QUERIES.get(key or table)
        if query is None:
            query = _QUERIES[key or table] = _insert_query(table, columns)
        self.statements.append((query, (_ENCODER.encode(rows),)))

    def add_json(self, table: str, columns: Columns, rows: Sequence[str]) -> None:
        """:meth:`add` for rows already written as JSON arrays (by SQLite)."""
        if not rows:
            return
        query = _QUERIES.get(table)
        if query is None:
            query = _QUERIES[table] = _insert_query(table, columns)
        self.statements.append((query, ("[" + ",".join(rows) + "]",)))


_DONE = object()


class _Moved(Exception):
    """Another forwarder of this table wrote its floor copy during this pass (SQLSTATE 40001
    from floor.take_forward_lock): the pass is started again from the floor's new tail."""


class _snapshot:
    """One SQLite read transaction: every read of a batch sees the store at one moment (a round
    finished again while its batch is built is either wholly before or wholly after)."""

    def __init__(self, store: Store) -> None:
        self._db = store.db
        self._began = False

    def __enter__(self) -> None:
        if not self._db.conn.in_transaction:
            self._db.execute("BEGIN")
            self._began = True

    def __exit__(self, *exc: object) -> None:
        if self._began:
            self._db.execute("COMMIT")


class _Prefetch:
    """Runs a generator on a thread of its own, one item ahead of its consumer (the SQLite reads
    and Python work of the next batch overlap the server's writing of the current one)."""

    def __init__(self, source: Iterator[_Batch]) -> None:
        self._source = source
        self._queue: queue.Queue[object] = queue.Queue(maxsize=1)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="floor-batches", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for item in self._source:
                if not self._put(item):
                    return
            self._put(_DONE)
        except BaseException as err:  # handed to the consumer
            self._put(err)

    def _put(self, item: object) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def __iter__(self) -> Iterator[_Batch]:
        while True:
            item = self._queue.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            assert isinstance(item, _Batch)
            yield item

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


def _chunks(items: Sequence[int], size: int) -> Iterable[Sequence[int]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class Forwarder:
    """Forwards one station store (``db``) to the floor at ``url``."""

    def __init__(self, db: str | Path, url: str, *, batch: int = BATCH_ROUNDS,
                 timeouts: Timeouts = STATION, chain_format: int = chain.FORMAT_2,
                 audit_format: int = chain.FORMAT_2) -> None:
        self.db = Path(db)
        # the newest chain format this forwarder writes (format 1: as a station before 0015 does;
        # tests use it for the older stations); the floor's own schema may hold it to format 1
        self.chain_format = chain_format
        self._format = chain.FORMAT_1
        # likewise the audit's (format 1: as a station before 0016 does)
        self.audit_format = audit_format
        self._audit_format = chain.FORMAT_1
        self.url = url
        self.batch = batch
        self.timeouts = timeouts
        # the floor's round ids as last read (kept across failures: the exact waiting count)
        self._known_forwarded: set[int] | None = None
        self._store: Store | None = None
        self._conn: psycopg.Connection[Any] | None = None
        self.table = ""
        self.pit = ""
        # What one pass learnt, so that the next (``--follow``, the app) reads only what is new:
        # the floor's round ids of this table, the station rounds still unfinished, and the
        # highest station round id looked at. Any failure forgets it all (a full pass next).
        self._forwarded: set[int] | None = None
        self._unfinished: set[int] = set()
        self._scanned = 0
        self._last_seq = -1  # the floor seq of this table after the last pass
        self._sheets: set[tuple[str, int]] = set()  # par sheets ready (stored theo)

    # ---- connections

    def store(self) -> Store:
        """The station's store as this forwarder reads it (its own read-only connection)."""
        return self._open_store()

    def _open_store(self) -> Store:
        if self._store is None:
            store = Store.open_readonly(self.db)
            identity = store.table_identity()
            if identity is None:
                store.close()
                raise FloorError(
                    f"{self.db} has no table identity: create it with its table name "
                    "(the table setup, or settle --record DB --table NAME)"
                )
            self.table, self.pit = identity[0], identity[1] or ""  # no pit: the floor's registration
            self._store = store
        return self._store

    def _open_floor(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed:
            conn = connect(self.url, timeouts=self.timeouts)
            try:
                with Watchdog(conn, self.timeouts.client):
                    check_schema(conn)
                    row = conn.execute(
                        "SELECT pit FROM floor.tables WHERE table_name = %s", (self.table,)
                    ).fetchone()
                    # chain format 2 once 0015's swap is recorded (its column and checks are there)
                    applied = applied_migrations(conn)
                    swapped = CHAIN_FORMAT_MIGRATION in applied  # the swap's step
                    audit_swapped = AUDIT_FORMAT_MIGRATION in applied  # 0016's: audit format 2
                    conn.rollback()
            except psycopg.Error as err:
                conn.close()
                raise classify(err, safe_url(self.url)) from None
            except FloorError:
                conn.close()
                raise
            if row is None:
                conn.close()
                raise FloorMisconfigured(
                    f"table {self.table} is not registered on {safe_url(self.url)} (or this account "
                    f"is not its station's): run `dealer-assist floor station --table {self.table} --pit {self.pit}`"
                )
            if not self.pit:
                self.pit = str(row[0])
            if str(row[0]) != self.pit:
                conn.close()
                raise FloorMisconfigured(
                    f"table {self.table} is in pit {row[0]} on the floor but the store says pit {self.pit}"
                )
            self._format = min(self.chain_format, chain.FORMAT_2 if swapped else chain.FORMAT_1)
            self._audit_format = min(self.audit_format, chain.FORMAT_2 if audit_swapped else chain.FORMAT_1)
            self._conn = conn
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> Forwarder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- the floor's copy

    def _read_tail(self, conn: psycopg.Connection[Any], with_ids: bool = False) -> _Tail:
        tail = _Tail()
        row = conn.execute(
            "SELECT floor_seq, floor_link, round_id, station_link FROM floor.rounds "
            "WHERE table_name = %s ORDER BY floor_seq DESC LIMIT 1",
            (self.table,),
        ).fetchone()
        if row is not None:
            tail.seq, tail.link, tail.round_id, tail.round_station_link = (
                int(row[0]), bytes(row[1]), int(row[2]), bytes(row[3])
            )
        row = conn.execute(
            "SELECT audit_id, floor_link, station_link FROM floor.audit WHERE table_name = %s "
            "ORDER BY audit_id DESC LIMIT 1",
            (self.table,),
        ).fetchone()
        if row is not None:
            tail.audit_id, tail.audit_link, tail.audit_station_link = int(row[0]), bytes(row[1]), bytes(row[2])
        row = conn.execute(
            "SELECT max(session_id) FROM floor.sessions WHERE table_name = %s", (self.table,)
        ).fetchone()
        tail.session_max = int(row[0]) if row is not None and row[0] is not None else 0
        if with_ids:
            tail.forwarded = self._read_ids(conn)
        return tail

    def _read_ids(self, conn: psycopg.Connection[Any]) -> set[int]:
        return {int(r[0]) for r in conn.execute("SELECT round_id FROM floor.rounds WHERE table_name = %s",
                                                (self.table,))}

    def _alarm(self) -> str | None:
        conn = self._open_floor()
        row = conn.execute(
            "SELECT raised_at, reason FROM floor.alarms WHERE table_name = %s ORDER BY raised_at LIMIT 1",
            (self.table,),
        ).fetchone()
        conn.rollback()
        if row is None:
            return None
        return f"{row[1]} (since {row[0]:%Y-%m-%d %H:%M} UTC)"

    def _check_extends(self, store: Store, tail: _Tail) -> str | None:
        """None when the store still holds the floor's last forwarded rows unchanged."""
        db = store.db
        if tail.round_id is not None:
            row = db.execute("SELECT hash, ended_at FROM rounds WHERE id = ?", (tail.round_id,)).fetchone()
            if row is None:
                return f"round {tail.round_id} is on the floor but no longer in the store"
            if bytes(row[0]) != tail.round_station_link:
                return f"round {tail.round_id} in the store is not the round forwarded (its chain link differs)"
            conn = self._open_floor()
            last = conn.execute(
                "SELECT seq, station_link FROM floor.events WHERE table_name = %s AND round_id = %s "
                "ORDER BY seq DESC LIMIT 1",
                (self.table, tail.round_id),
            ).fetchone()
            conn.rollback()
            if last is not None:
                ev = db.execute(
                    "SELECT hash FROM events WHERE round_id = ? AND seq = ?", (tail.round_id, int(last[0]))
                ).fetchone()
                if ev is None or bytes(ev[0]) != bytes(last[1]):
                    return f"round {tail.round_id}'s events in the store differ from those forwarded"
        if tail.audit_id:
            row = db.execute("SELECT hash FROM audit WHERE id = ?", (tail.audit_id,)).fetchone()
            if row is None:
                return f"audit entry {tail.audit_id} is on the floor but no longer in the store"
            if bytes(row[0]) != tail.audit_station_link:
                return f"audit entry {tail.audit_id} in the store is not the one forwarded (its chain link differs)"
        return None

    def _stop(self, reason: str) -> ForwardStopped:
        conn = self._open_floor()
        text = f"the store no longer extends the floor's copy: {reason} (rebuilt or rolled back after forwarding)"
        try:
            conn.execute("INSERT INTO floor.alarms (table_name, reason) VALUES (%s, %s)", (self.table, text))
            conn.commit()
        except psycopg.Error:
            conn.rollback()
        return ForwardStopped(f"forwarding stopped for table {self.table}: {text}")

    # ---- one pass

    def forward(self, progress: Callable[[ForwardResult], None] | None = None) -> ForwardResult:
        """Forward everything finished and not yet on the floor; returns what was copied."""
        for attempt in range(3):
            try:
                return self._forward(progress)
            except _Moved:
                self._forwarded, self._unfinished, self._scanned, self._last_seq = None, set(), 0, -1
                if attempt == 2:
                    raise FloorUnreachable(
                        f"table {self.table}: another forwarder keeps writing this table's floor copy") from None
            except BaseException:
                self._forwarded, self._unfinished, self._scanned, self._last_seq = None, set(), 0, -1
                raise
        raise AssertionError("unreachable")

    def heartbeat(self, waiting: int, up_to: int | None, state: str, detail: str | None = None) -> None:
        """Tell the floor this station is alive (``floor.station_links``; the pit view tells an
        idle table from a dead link by it), with the round in play at the table (the store's
        latest unfinished round). Through ``floor.heartbeat``: its own table only."""
        in_play = self.in_play()
        conn = self._open_floor()
        try:
            with Watchdog(conn, self.timeouts.client):
                conn.execute("SELECT floor.heartbeat(%s, %s, %s, %s, %s, %s)",
                             (self.table, waiting, up_to, in_play, state, detail))
                conn.commit()
        except psycopg.Error as err:
            self._drop_floor()
            raise classify(err, f"heartbeat to {safe_url(self.url)}") from None

    def in_play(self) -> int | None:
        """The round in play at the table: the store's latest unfinished round (None between rounds)."""
        row = self._open_store().db.execute("SELECT max(id) FROM rounds WHERE ended_at IS NULL").fetchone()
        return int(row[0]) if row and row[0] is not None else None

    def waiting_now(self) -> tuple[int, bool]:
        """Finished rounds of the store not in the floor's copy as last read, and whether that
        copy was ever read (if not: every finished round, and ``False``)."""
        store = self._open_store()
        known = self._known_forwarded
        ids = [int(r[0]) for r in store.db.execute("SELECT id FROM rounds WHERE ended_at IS NOT NULL")]
        if known is None:
            return len(ids), False
        return sum(1 for i in ids if i not in known), True

    def _drop_floor(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except psycopg.Error:
                pass
            self._conn = None

    def _candidates(self, store: Store) -> list[int]:
        """Finished station rounds that may not be on the floor yet (all of them, the first time)."""
        db = store.db
        marks = ",".join("?" * len(self._unfinished))
        query = "SELECT id, ended_at IS NOT NULL FROM rounds WHERE id > ?"
        if marks:
            query += f" OR id IN ({marks})"
        finished: list[int] = []
        for rid, done in db.execute(query + " ORDER BY id", (self._scanned, *sorted(self._unfinished))):
            self._scanned = max(self._scanned, int(rid))
            if done:
                finished.append(int(rid))
                self._unfinished.discard(int(rid))
            else:
                self._unfinished.add(int(rid))
        return finished

    def _forward(self, progress: Callable[[ForwardResult], None] | None) -> ForwardResult:
        store = self._open_store()
        conn = self._open_floor()
        # Every step of the pass has the client's deadline (a black-holed link trips no TCP
        # timer); the server bounds each statement, lock wait and idle transaction itself.
        try:
            with Watchdog(conn, self.timeouts.client) as dog:
                alarm = self._alarm()
                if alarm is not None:
                    raise ForwardStopped(f"forwarding is stopped for table {self.table}: {alarm}")
                return self._forward_locked(store, conn, progress, dog)
        except psycopg.Error as err:
            self._drop_floor()
            if getattr(err, "sqlstate", None) == "40001":
                raise _Moved() from None
            raise classify(err, f"forwarding to {safe_url(self.url)} failed") from None
        except FloorUnreachable:
            self._drop_floor()
            raise

    def _forward_locked(
        self, store: Store, conn: psycopg.Connection[Any], progress: Callable[[ForwardResult], None] | None,
        dog: Watchdog,
    ) -> ForwardResult:
        # No lock while reading: each batch takes the table's lock (floor.take_forward_lock, in
        # its own transaction) and checks there that the floor's tail is still the one it
        # continues; if another forwarder moved it, the pass starts again.
        tail = self._read_tail(conn, with_ids=False)
        if self._forwarded is None or tail.seq != self._last_seq:
            # the first pass, or another forwarder of this table wrote since the last one
            self._forwarded = self._read_ids(conn)
        conn.commit()
        self._known_forwarded = set(self._forwarded)
        self._last_seq = tail.seq
        reason = self._check_extends(store, tail)
        if reason is not None:
            raise self._stop(reason)
        forwarded = self._forwarded
        todo = [i for i in self._candidates(store) if i not in forwarded]
        audit_max_row = store.db.execute("SELECT max(id) FROM audit").fetchone()
        audit_max = int(audit_max_row[0]) if audit_max_row and audit_max_row[0] is not None else 0
        result = ForwardResult(waiting=len(todo), last_round=tail.round_id)
        # The next batch is built (SQLite reads, digests, JSON) on a thread of its own while
        # the server writes the current one; each batch is one transaction.
        self._par_sheets(store, todo, dog)
        batches = _Prefetch(self._batches(store, todo, tail, audit_max))
        try:
            for batch in batches:
                dog.rearm()
                cursors = []
                with conn.pipeline():
                    conn.execute("SELECT floor.take_forward_lock(%s, %s, %s)",
                                 (self.table, batch.expect_seq, batch.expect_audit))
                    for query, params in batch.statements:
                        cursors.append(conn.execute(query, params))
                if batch.versions_at is not None:
                    row = cursors[batch.versions_at].fetchone()
                    result.versions += int(row[0]) if row and row[0] is not None else 0
                conn.commit()
                forwarded.update(batch.ids)
                self._known_forwarded.update(batch.ids)
                result.rounds += batch.rounds
                result.audit += batch.audit
                result.sessions += batch.sessions
                if batch.last_round is not None:
                    result.last_round = batch.last_round
                self._last_seq = batch.seq
                if batch.rounds:
                    result.waiting = len(todo) - result.rounds
                    if progress is not None:
                        progress(result)
            result.waiting = 0
        finally:
            batches.close()
        return result

    def _par_sheets(self, store: Store, todo: Sequence[int], dog: Watchdog) -> None:
        """The par sheets the pass's settled rounds need (their stored theoretical win): read
        from disk (``floor edges`` keeps them all at install) or, when missing, worked out on a
        background thread (issue 35: never on the forwarding path) — the pass forwards those
        rounds without their theo meanwhile, and the pit works it out for them."""
        if not todo:
            return
        for game, decks in store.db.execute(
                "SELECT DISTINCT game, json_extract(config_json, '$.decks') FROM rounds "
                "WHERE id BETWEEN ? AND ? AND status = 'settled'", (min(todo), max(todo))).fetchall():
            try:
                sheet = (str(game), int(decks or 6))
                if sheet not in self._sheets:
                    try:
                        kept_edges(*sheet)
                        self._sheets.add(sheet)
                    except KeyError:
                        work_out_later(*sheet)
            except (KeyError, ValueError, TypeError, ArithmeticError):
                continue  # no par sheet: the round is forwarded without its theo (the pit works it out)
            dog.rearm()

    def _batches(self, store: Store, todo: Sequence[int], tail: _Tail, audit_max: int) -> Iterator[_Batch]:
        """The pass's batches in order: rounds (with their sessions), then audit entries. The
        floor chains continue from ``tail`` (nobody else writes this table during the pass)."""
        seq, prev, session_max = tail.seq, tail.link, tail.session_max
        for ids in _chunks(todo, self.batch):
            with _snapshot(store):
                batch = self._round_batch(store, ids, seq, prev, session_max)
            batch.expect_seq = seq
            seq, prev, session_max = batch.seq, batch.link, batch.session_max
            yield batch
        start, prev = tail.audit_id, tail.audit_link
        while start < audit_max:
            end = min(audit_max, start + BATCH_AUDIT)
            with _snapshot(store):
                batch = self._audit_batch(store, start, end, prev)
            batch.seq = seq
            batch.expect_audit = start
            prev = batch.link
            start = end
            yield batch

    def _round_batch(self, store: Store, ids: Sequence[int], seq: int, prev: bytes, session_max: int) -> _Batch:
        db = store.db
        lo, hi = min(ids), max(ids)
        wanted = set(ids)
        marks = ",".join("?" * len(ids))
        rounds = db.execute(
            "SELECT r.id, r.session_id, r.number, r.source, r.game, r.config_json, r.started_at, r.ended_at, "
            "r.status, r.players_json, r.totals_json, r.irregular, r.result_json, r.hash, s.dealer "
            f"FROM rounds r LEFT JOIN sessions s ON s.id = r.session_id WHERE r.id IN ({marks}) ORDER BY r.id",
            list(ids),
        ).fetchall()
        table, pit = self.table, self.pit
        format2 = self._format == chain.FORMAT_2
        # Each event's floor row (as JSON) and its part of the round's digest text (format 1:
        # chain.EVENT_TEXT_SQL; format 2: EVENT2_TEXT_SQL, and whether its text is plain), both
        # written by SQLite in C.
        event_rows_of: dict[int, list[str]] = {i: [] for i in ids}
        event_texts: dict[int, list[str]] = {i: [] for i in ids}
        wagers_of: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}  # for the theoretical win
        not_plain: set[int] = set()  # rounds written in format 1 (a separator in their free text)
        text_sql, plain_sql = ((chain.EVENT2_TEXT_SQL, chain.EVENT2_PLAIN_SQL) if format2
                               else (chain.EVENT_TEXT_SQL, "1"))
        for rid, row_json, piece, wager, plain in db.execute(
            "SELECT round_id, json_array(?, round_id, seq, id, at, actor, event_json, lower(hex(hash))), "
            f"{text_sql}, CASE WHEN json_extract(event_json, '$.type') = 'wager' THEN event_json END, {plain_sql} "
            "FROM events WHERE round_id BETWEEN ? AND ? ORDER BY round_id, seq",
            (table, lo, hi),
        ):
            if rid in wanted:
                event_rows_of[rid].append(row_json)
                event_texts[rid].append(piece)
                if not plain:
                    not_plain.add(rid)
                if wager is not None:
                    wagers_of[rid].append(json.loads(wager))
        finishes: dict[int, int] = {}
        for rid, aid in db.execute(
            "SELECT round_id, max(id) FROM audit WHERE kind = 'round_finish' AND round_id BETWEEN ? AND ? "
            "GROUP BY round_id",
            (lo, hi),
        ):
            finishes[int(rid)] = int(aid)
        session_hi = max((int(r[1]) for r in rounds if r[1] is not None), default=0)
        batch = _Batch(ids=list(ids))
        if session_hi > session_max:
            sessions = db.execute(
                "SELECT id, game, decks, areas, limits_json, dealer, started_at FROM sessions "
                "WHERE id > ? AND id <= ? ORDER BY id",
                (session_max, session_hi),
            ).fetchall()
            batch.add("sessions", _SESSION_COLUMNS, [(self.table, *r) for r in sessions])
            batch.sessions = len(sessions)
            session_max = session_hi
        round_rows: list[tuple[Any, ...]] = []
        event_rows: list[str] = []
        settlement_rows: list[tuple[Any, ...]] = []
        ruling_rows: list[tuple[Any, ...]] = []
        player_rows: list[tuple[Any, ...]] = []
        names: set[str] = set()
        for r in rounds:
            rid = int(r[0])
            (session_id, number, source, game, config_json, started, ended, status,
             players_json, totals_json, irregular, result_json, station_link, dealer) = r[1:]
            seq += 1
            link_bytes = bytes(station_link)
            start = _store_time(started)  # the round's month: its rows' partition key
            output = json.loads(result_json) if result_json else {}
            settlements = [s for s in (output.get("settlements") or []) if isinstance(s, dict)]
            rulings = [x for x in (output.get("rulings") or []) if isinstance(x, dict)]
            stakes: dict[str, Decimal] = {}
            wagered = house = Decimal(0)
            # the derived rows as stored (amounts as the server writes them: chain.num_text)
            round_settlements: list[tuple[Any, ...]] = []
            for i, s in enumerate(settlements):
                player = str(s.get("player"))
                stake, net = _amount(s.get("stake")), _amount(s.get("net"))
                wagered += stake
                house -= net
                stakes[player] = stakes.get(player, Decimal(0)) + stake
                round_settlements.append((
                    i, player, s.get("area"), s.get("hand"), str(s.get("bet")), chain.num_text(stake),
                    str(s.get("result")), chain.num_text(net), s.get("rule"), s.get("stage"),
                ))
            round_rulings = [
                (i, x.get("index"), x.get("rule"), x.get("ruling"), x.get("text"),
                 json.dumps(x.get("moves") or [], separators=(",", ":"), ensure_ascii=False))
                for i, x in enumerate(rulings)
            ]
            net_raw = output.get("net")
            nets: dict[str, Any] = net_raw if isinstance(net_raw, dict) else {}
            round_players = [
                (str(player), chain.num_text(_amount(nets[str(player)])) if str(player) in nets else None,
                 chain.num_text(stakes.get(str(player), Decimal(0))))
                for player in json.loads(players_json)
            ]
            wagered_text, house_text = chain.num_text(wagered), chain.num_text(house)
            fields = (table, rid, session_id, number, source, game, config_json, started, ended, status,
                      result_json, link_bytes.hex(), players_json, totals_json, wagered_text, house_text)
            if (format2 and rid not in not_plain and _checks2(output, totals_json)
                    and _plain2(fields, round_settlements, round_rulings, round_players)):
                fmt = chain.FORMAT_2
                prev = chain.link_digest(prev, chain.round_digest2(
                    fields, "".join(event_texts[rid]), round_settlements, round_rulings,
                    sorted(round_players, key=lambda p: str(p[0]).encode("utf-8"))))
            else:
                fmt = chain.FORMAT_1
                events_text = "".join(event_texts[rid]) if not format2 else "".join(
                    str(t) for (t,) in db.execute(f"SELECT {chain.EVENT_TEXT_SQL} FROM events WHERE round_id = ? "
                                                  "ORDER BY seq", (rid,)))
                prev = chain.link_digest(prev, chain.round_digest_text(
                    table, rid, session_id, int(number), source, game, config_json, started, ended,
                    status, result_json, link_bytes, events_text,
                ))
            round_rows.append((
                table, rid, pit, session_id, number, source, game, dealer, config_json,
                _store_time(started), _store_time(ended) if ended else None, status, players_json, totals_json,
                bool(irregular), result_json, wagered_text, house_text, link_bytes.hex(), finishes.get(rid),
                seq, prev.hex(), *round_figures(rid, session_id, game, config_json, status, started, ended,
                                                wagers_of[rid], settlements),
                *((fmt,) if format2 else ()),
            ))
            # each event row (a JSON array written by SQLite) with its round's start: its month
            tail = f',"{start}"]'
            event_rows.extend(row[:-1] + tail for row in event_rows_of[rid])
            settlement_rows.extend((table, rid, *row, start) for row in round_settlements)
            ruling_rows.extend((table, rid, *row, start) for row in round_rulings)
            for name, net_text, stake_text in round_players:
                names.add(name)
                player_rows.append((name, start, table, rid, pit, net_text, stake_text))
            batch.last_round = rid
        if format2:
            # a format-2 round's settlements and rulings go before it: the server checks them as the
            # round arrives (floor.check_derived) and refuses any added after it
            batch.add("settlements", _SETTLEMENT_COLUMNS, settlement_rows)
            batch.add("rulings", _RULING_COLUMNS, ruling_rows)
            batch.add("rounds", _ROUND2_COLUMNS, round_rows, key="rounds2")
            batch.add_json("events", _EVENT_COLUMNS, event_rows)
        else:
            batch.add("rounds", _ROUND_COLUMNS, round_rows)
            batch.add_json("events", _EVENT_COLUMNS, event_rows)
            batch.add("settlements", _SETTLEMENT_COLUMNS, settlement_rows)
            batch.add("rulings", _RULING_COLUMNS, ruling_rows)
        batch.add("round_players", _PLAYER_COLUMNS, player_rows)
        # floor.players is filled by the server from the round_players rows it checked
        batch.rounds = len(round_rows)
        batch.seq, batch.link, batch.session_max = seq, prev, session_max
        return batch

    def _audit_batch(self, store: Store, start: int, end: int, prev: bytes) -> _Batch:
        rows = store.db.execute(
            "SELECT id, at, actor, kind, round_id, detail_json, hash FROM audit WHERE id > ? AND id <= ? ORDER BY id",
            (start, end),
        ).fetchall()
        out: list[tuple[Any, ...]] = []
        format2 = self._audit_format == chain.FORMAT_2
        for aid, at, actor, kind, round_id, detail_json, station_link in rows:
            link_bytes = bytes(station_link)
            if format2 and _plain_audit(at, actor, kind, detail_json, round_id):
                # audit format 2 (0016), its free text holding no separator (chain.audit_digest2)
                prev = chain.link_digest(prev, chain.audit_digest2(
                    self.table, int(aid), at, actor, kind, round_id, detail_json, link_bytes))
                fmt: int | None = chain.FORMAT_2
            else:
                prev = chain.link(prev, chain.audit_content(
                    self.table, int(aid), at, actor, kind, round_id, detail_json, link_bytes
                ))
                fmt = None  # format 1, as written before 0016
            out.append((self.table, aid, at, actor, kind, round_id, detail_json, link_bytes.hex(), prev.hex(),
                        *((fmt,) if format2 else ())))
        batch = _Batch(audit=len(out), link=prev)
        if format2:
            batch.add("audit", _AUDIT2_COLUMNS, out, key="audit2")
        else:
            batch.add("audit", _AUDIT_COLUMNS, out)
        versions = self._versions(store, start, end)
        if versions:
            batch.versions_at = len(batch.statements)
            batch.statements.append((b"SELECT floor.add_round_versions(%s, %s::jsonb)",
                                     (self.table, _ENCODER.encode(versions))))
        return batch

    def _versions(self, store: Store, start: int, end: int) -> list[list[Any]]:
        """Rounds finished again at the station (a 5.7 card after the end: a later
        ``round_finish`` entry) whose latest finish is among the audit entries ``start``..``end``:
        the round as it stands, sent in the same transaction as (after) that entry, for the floor
        to check against it (``floor.add_round_versions``; it keeps only a finish later than the
        floor's copy, and only the events after it). Read in the batch's snapshot, so the round
        and its latest finish agree."""
        db = store.db
        out: list[list[Any]] = []
        for rid, finish_id in db.execute(
            "SELECT round_id, max(id) FROM audit WHERE kind = 'round_finish' AND round_id IN "
            "(SELECT round_id FROM audit WHERE kind = 'round_finish' AND id > ? AND id <= ?) "
            "GROUP BY round_id HAVING count(*) > 1 AND max(id) > ? AND max(id) <= ? ORDER BY round_id",
            (start, end, start, end),
        ).fetchall():
            row = db.execute(
                "SELECT status, ended_at, players_json, totals_json, irregular, result_json, session_id, game, "
                "config_json, started_at FROM rounds WHERE id = ?", (rid,)).fetchone()
            if row is None:
                continue
            status, ended, players_json, totals_json, irregular, result_json, session_id, game, config_json, started = row
            events = [
                [int(seq), int(sid), at, actor, text, bytes(link).hex()]
                for seq, sid, at, actor, text, link in db.execute(
                    "SELECT seq, id, at, actor, event_json, hash FROM events WHERE round_id = ? ORDER BY seq", (rid,))
            ]
            output = json.loads(result_json) if result_json else {}
            settlements = [s for s in (output.get("settlements") or []) if isinstance(s, dict)]
            wagers = [e for e in (json.loads(x[4]) for x in events) if isinstance(e, dict) and e.get("type") == "wager"]
            out.append([int(rid), int(finish_id), status, _store_time(ended) if ended else None, players_json,
                        totals_json, bool(irregular), result_json, events,
                        *round_figures(int(rid), session_id, game, config_json, status, started, ended, wagers,
                                       settlements)])
        return out

    # ---- following

    def follow(
        self,
        *,
        interval: float = 2.0,
        report: Callable[[LinkState, ForwardResult | None], None] | None = None,
        should_stop: Callable[[], bool] = lambda: False,
        hold_connection: bool = True,
    ) -> LinkState:
        """Forward as rounds finish until ``should_stop()``; survives the floor going away.

        ``hold_connection=False`` (forwarding on demand): the floor connection is closed after
        each pass and opened again for the next, so an idle station holds no server connection
        (the connection budget of a big floor without a pooler: docs/floor.md).

        Returns the last state (``stopped`` set when forwarding stopped for this table).
        """
        state = LinkState()
        beat_in_play: list[int | None] = [None]
        while not should_stop():
            began = _dt.datetime.now(_dt.UTC)
            try:
                done = self.forward()
                state.forwarded_up_to = done.last_round
                state.waiting = done.waiting
                state.waiting_known = True
                state.offline_since = None
                state.error = None
                state.condition = "up"
                now = _dt.datetime.now(_dt.UTC)
                # a beat at least every HEARTBEAT seconds (and at once when something changed)
                in_play = self.in_play()
                if (state.last_contact is None or done.rounds or done.versions or in_play != beat_in_play[0]
                        or (now - state.last_contact).total_seconds() >= HEARTBEAT):
                    self.heartbeat(done.waiting, done.last_round, "up")
                    state.last_contact, beat_in_play[0] = now, in_play
                if report is not None:
                    report(state, done)
            except ForwardStopped as err:
                state.stopped = str(err)
                state.condition = "stopped"
                try:
                    self.heartbeat(0, state.forwarded_up_to, "stopped", str(err)[:500])
                except FloorError:
                    pass
                if report is not None:
                    report(state, None)
                return state
            except (FloorError, StoreError, psycopg.Error, OSError) as err:
                self._drop_floor()
                state.error = str(err).splitlines()[0] if str(err) else type(err).__name__
                if isinstance(err, FloorMisconfigured):
                    state.condition = "misconfigured"
                    state.offline_since = None
                else:
                    state.condition = "down"
                    if state.offline_since is None:
                        # the failing pass began here: the link was last good before it
                        state.offline_since = began
                try:
                    state.waiting, state.waiting_known = self.waiting_now()
                except (StoreError, FloorError):
                    pass
                if report is not None:
                    report(state, None)
            if not hold_connection:
                self._drop_floor()
            deadline = time.monotonic() + interval
            while time.monotonic() < deadline and not should_stop():
                time.sleep(min(0.1, interval))
        return state
