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
forwarded copy on the floor; its later audit entries are forwarded like any other.
"""

from __future__ import annotations

import datetime as _dt
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import psycopg

from dealer_assist.floor import chain
from dealer_assist.floor.connection import FloorError, connect, describe_error, safe_url
from dealer_assist.floor.schema import check_schema
from dealer_assist.store import Store, StoreError

__all__ = ["ForwardResult", "ForwardStopped", "Forwarder", "LinkState", "parse_time"]

BATCH_ROUNDS = 500
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


@dataclass
class LinkState:
    """What the dealer's screen shows about the link to the floor."""

    forwarded_up_to: int | None = None  # round number (the station's round id) on the floor
    waiting: int = 0
    offline_since: _dt.datetime | None = None
    stopped: str | None = None
    error: str | None = None

    def describe(self) -> str:
        if self.stopped:
            return f"floor: stopped — {self.stopped}"
        if self.offline_since is not None:
            local = self.offline_since.astimezone()
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
    ("floor_link", "bytea"),
)
_EVENT_COLUMNS: Columns = (
    ("table_name", "text"), ("round_id", "bigint"), ("seq", "int"), ("station_event_id", "bigint"),
    ("at", "text"), ("actor", "text"), ("event_json", "text"), ("station_link", "bytea"),
)
_SETTLEMENT_COLUMNS: Columns = (
    ("table_name", "text"), ("round_id", "bigint"), ("idx", "int"), ("player", "text"), ("area", "int"),
    ("hand", "int"), ("bet", "text"), ("stake", "numeric"), ("result", "text"), ("net", "numeric"),
    ("rule", "text"), ("stage", "text"),
)
_RULING_COLUMNS: Columns = (
    ("table_name", "text"), ("round_id", "bigint"), ("idx", "int"), ("event_index", "int"), ("rule", "text"),
    ("ruling", "text"), ("text", "text"), ("moves_json", "text"),
)
_PLAYER_COLUMNS: Columns = (
    ("player", "text"), ("started_at", "timestamptz"), ("table_name", "text"), ("round_id", "bigint"),
    ("pit", "text"), ("net", "numeric"), ("wagered", "numeric"),
)
_AUDIT_COLUMNS: Columns = (
    ("table_name", "text"), ("audit_id", "bigint"), ("at", "text"), ("actor", "text"), ("kind", "text"),
    ("round_id", "bigint"), ("detail_json", "text"), ("station_link", "bytea"), ("floor_link", "bytea"),
)


def _insert_json(cur: psycopg.Cursor[Any], table: str, columns: Columns, rows: Sequence[tuple[Any, ...]]) -> None:
    """All ``rows`` in one INSERT: sent as one JSON text (encoded in C here, unpacked in C by the
    server), so a batch costs one round trip and no per-value work in Python."""
    if not rows:
        return
    names = ", ".join(name for name, _ in columns)
    values = ", ".join(
        f"decode(r->>{i}, 'hex')" if kind == "bytea" else f"(r->>{i})::{kind}"
        for i, (_, kind) in enumerate(columns)
    )
    query = f"INSERT INTO floor.{table} ({names}) SELECT {values} FROM jsonb_array_elements(%s::jsonb) r"
    cur.execute(query.encode(), (_ENCODER.encode(rows),))


def _chunks(items: Sequence[int], size: int) -> Iterable[Sequence[int]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class Forwarder:
    """Forwards one station store (``db``) to the floor at ``url``."""

    def __init__(self, db: str | Path, url: str, *, batch: int = BATCH_ROUNDS) -> None:
        self.db = Path(db)
        self.url = url
        self.batch = batch
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

    # ---- connections

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
            conn = connect(self.url)
            try:
                check_schema(conn)
                row = conn.execute(
                    "SELECT pit FROM floor.tables WHERE table_name = %s", (self.table,)
                ).fetchone()
                conn.rollback()
            except psycopg.Error as err:
                conn.close()
                raise FloorError(f"{safe_url(self.url)}: {describe_error(err)}") from None
            except FloorError:
                conn.close()
                raise
            if row is None:
                conn.close()
                raise FloorError(
                    f"table {self.table} is not registered on {safe_url(self.url)} (or this account "
                    f"is not its station's): run `dealer-assist floor station --table {self.table} --pit {self.pit}`"
                )
            if not self.pit:
                self.pit = str(row[0])
            if str(row[0]) != self.pit:
                conn.close()
                raise FloorError(
                    f"table {self.table} is in pit {row[0]} on the floor but the store says pit {self.pit}"
                )
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

    def _read_tail(self, conn: psycopg.Connection[Any], with_ids: bool) -> _Tail:
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
            tail.forwarded = {
                int(r[0]) for r in conn.execute(
                    "SELECT round_id FROM floor.rounds WHERE table_name = %s", (self.table,)
                )
            }
        return tail

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
        try:
            return self._forward(progress)
        except BaseException:
            self._forwarded, self._unfinished, self._scanned = None, set(), 0
            raise

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
        alarm = self._alarm()
        if alarm is not None:
            raise ForwardStopped(f"forwarding is stopped for table {self.table}: {alarm}")
        try:
            tail = self._read_tail(conn, with_ids=self._forwarded is None)
            conn.rollback()
        except psycopg.Error as err:
            raise FloorError(f"{safe_url(self.url)}: {describe_error(err)}") from None
        if self._forwarded is None:
            self._forwarded = tail.forwarded
        reason = self._check_extends(store, tail)
        if reason is not None:
            raise self._stop(reason)
        forwarded = self._forwarded
        todo = [i for i in self._candidates(store) if i not in forwarded]
        audit_max_row = store.db.execute("SELECT max(id) FROM audit").fetchone()
        audit_max = int(audit_max_row[0]) if audit_max_row and audit_max_row[0] is not None else 0
        result = ForwardResult(waiting=len(todo), last_round=tail.round_id)
        try:
            for ids in _chunks(todo, self.batch):
                self._send_rounds(store, conn, ids, result)
                forwarded.update(ids)  # on the floor now, sent by this pass or already there
                result.waiting = len(todo) - result.rounds
                if progress is not None:
                    progress(result)
            result.waiting = 0
            start = tail.audit_id
            while start < audit_max:
                end = min(audit_max, start + BATCH_AUDIT)
                self._send_audit(store, conn, start, end, result)
                start = end
        except psycopg.Error as err:
            conn.rollback()
            raise FloorError(f"forwarding to {safe_url(self.url)} failed: {describe_error(err)}") from None
        return result

    def _lock(self, conn: psycopg.Connection[Any]) -> None:
        conn.execute("SELECT pg_advisory_xact_lock(17, hashtext(%s))", (self.table,))

    def _send_sessions(self, store: Store, conn: psycopg.Connection[Any], upto: int, after: int) -> int:
        rows = store.db.execute(
            "SELECT id, game, decks, areas, limits_json, dealer, started_at FROM sessions "
            "WHERE id > ? AND id <= ? ORDER BY id",
            (after, upto),
        ).fetchall()
        if not rows:
            return 0
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO floor.sessions (table_name, session_id, game, decks, areas, limits_json, "
                "dealer, started_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                [(self.table, r[0], r[1], r[2], r[3], r[4], r[5], parse_time(r[6])) for r in rows],
            )
        return len(rows)

    def _send_rounds(
        self, store: Store, conn: psycopg.Connection[Any], ids: Sequence[int], result: ForwardResult
    ) -> None:
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
        events: dict[int, list[tuple[int, int, str, str, str, bytes]]] = {i: [] for i in ids}
        for rid, seq, sid, at, actor, text, link in db.execute(
            "SELECT round_id, seq, id, at, actor, event_json, hash FROM events "
            "WHERE round_id BETWEEN ? AND ? ORDER BY round_id, seq",
            (lo, hi),
        ):
            if rid in wanted:
                events[rid].append((int(seq), int(sid), at, actor, text, bytes(link)))
        finishes: dict[int, int] = {}
        for rid, aid in db.execute(
            "SELECT round_id, max(id) FROM audit WHERE kind = 'round_finish' AND round_id BETWEEN ? AND ? "
            "GROUP BY round_id",
            (lo, hi),
        ):
            finishes[int(rid)] = int(aid)
        session_hi = max((int(r[1]) for r in rounds if r[1] is not None), default=0)

        # Everything of this batch in one transaction under the table's lock.
        self._lock(conn)
        tail = self._read_tail(conn, with_ids=False)
        present = {
            int(r[0]) for r in conn.execute(
                "SELECT round_id FROM floor.rounds WHERE table_name = %s AND round_id = ANY(%s)",
                (self.table, list(ids)),
            )
        }
        result.sessions += self._send_sessions(store, conn, session_hi, tail.session_max)
        seq, prev = tail.seq, tail.link
        round_rows: list[tuple[Any, ...]] = []
        event_rows: list[tuple[Any, ...]] = []
        settlement_rows: list[tuple[Any, ...]] = []
        ruling_rows: list[tuple[Any, ...]] = []
        player_rows: list[tuple[Any, ...]] = []
        names: set[str] = set()
        last_round: int | None = None
        for r in rounds:
            rid = int(r[0])
            if rid in present:
                continue
            (session_id, number, source, game, config_json, started, ended, status,
             players_json, totals_json, irregular, result_json, station_link, dealer) = r[1:]
            evs = events[rid]
            seq += 1
            prev = chain.link_digest(prev, chain.round_digest(
                self.table, rid, session_id, int(number), source, game, config_json, started, ended,
                status, result_json, bytes(station_link), evs,
            ))
            output = json.loads(result_json) if result_json else {}
            settlements = [s for s in (output.get("settlements") or []) if isinstance(s, dict)]
            rulings = [x for x in (output.get("rulings") or []) if isinstance(x, dict)]
            wagered = sum((_amount(s.get("stake")) for s in settlements), Decimal(0))
            house = -sum((_amount(s.get("net")) for s in settlements), Decimal(0))
            started_at = parse_time(started)
            round_rows.append((
                self.table, rid, self.pit, session_id, number, source, game, dealer, config_json,
                started_at, parse_time(ended) if ended else None, status, players_json, totals_json,
                bool(irregular), result_json, wagered, house, bytes(station_link), finishes.get(rid),
                seq, prev,
            ))
            event_rows.extend((self.table, rid, e[0], e[1], e[2], e[3], e[4], e[5].hex()) for e in evs)
            stakes: dict[str, Decimal] = {}
            for i, s in enumerate(settlements):
                player = str(s.get("player"))
                stakes[player] = stakes.get(player, Decimal(0)) + _amount(s.get("stake"))
                settlement_rows.append((
                    self.table, rid, i, player, s.get("area"), s.get("hand"), str(s.get("bet")),
                    _amount(s.get("stake")), str(s.get("result")), _amount(s.get("net")), s.get("rule"),
                    s.get("stage"),
                ))
            for i, x in enumerate(rulings):
                ruling_rows.append((
                    self.table, rid, i, x.get("index"), x.get("rule"), x.get("ruling"), x.get("text"),
                    json.dumps(x.get("moves") or [], separators=(",", ":"), ensure_ascii=False),
                ))
            net_raw = output.get("net")
            net: dict[str, Any] = net_raw if isinstance(net_raw, dict) else {}
            for player in json.loads(players_json):
                name = str(player)
                names.add(name)
                player_rows.append((
                    name, started_at, rid, _amount(net[name]) if name in net else None,
                    stakes.get(name, Decimal(0)),
                ))
            last_round = rid
        if not round_rows:
            conn.commit()
            return
        with conn.cursor() as cur:
            _insert_json(cur, "rounds", _ROUND_COLUMNS, round_rows)
            _insert_json(cur, "events", _EVENT_COLUMNS, event_rows)
            _insert_json(cur, "settlements", _SETTLEMENT_COLUMNS, settlement_rows)
            _insert_json(cur, "rulings", _RULING_COLUMNS, ruling_rows)
            _insert_json(cur, "round_players", _PLAYER_COLUMNS,
                         [(p, at, self.table, rid, self.pit, net, w) for p, at, rid, net, w in player_rows])
            if names:
                cur.execute(
                    "INSERT INTO floor.players (player) SELECT json_array_elements_text(%s::json) "
                    "ON CONFLICT DO NOTHING",
                    (_ENCODER.encode(sorted(names)),),
                )
        conn.commit()
        result.rounds += len(round_rows)
        result.last_round = last_round

    def _send_audit(
        self, store: Store, conn: psycopg.Connection[Any], start: int, end: int, result: ForwardResult
    ) -> None:
        rows = store.db.execute(
            "SELECT id, at, actor, kind, round_id, detail_json, hash FROM audit WHERE id > ? AND id <= ? ORDER BY id",
            (start, end),
        ).fetchall()
        self._lock(conn)
        tail = self._read_tail(conn, with_ids=False)
        prev = tail.audit_link
        out: list[tuple[Any, ...]] = []
        for aid, at, actor, kind, round_id, detail_json, station_link in rows:
            if int(aid) <= tail.audit_id:
                continue
            prev = chain.link(prev, chain.audit_content(
                self.table, int(aid), at, actor, kind, round_id, detail_json, bytes(station_link)
            ))
            out.append((self.table, aid, at, actor, kind, round_id, detail_json, bytes(station_link), prev))
        with conn.cursor() as cur:
            _insert_json(cur, "audit", _AUDIT_COLUMNS, out)
        conn.commit()
        result.audit += len(out)

    # ---- following

    def follow(
        self,
        *,
        interval: float = 2.0,
        report: Callable[[LinkState, ForwardResult | None], None] | None = None,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> LinkState:
        """Forward as rounds finish until ``should_stop()``; survives the floor going away.

        Returns the last state (``stopped`` set when forwarding stopped for this table).
        """
        state = LinkState()
        while not should_stop():
            try:
                done = self.forward()
                state.forwarded_up_to = done.last_round
                state.waiting = done.waiting
                state.offline_since = None
                state.error = None
                if report is not None:
                    report(state, done)
            except ForwardStopped as err:
                state.stopped = str(err)
                if report is not None:
                    report(state, None)
                return state
            except (FloorError, StoreError, psycopg.Error, OSError) as err:
                if self._conn is not None:
                    self._conn.close()
                    self._conn = None
                if state.offline_since is None:
                    state.offline_since = _dt.datetime.now(_dt.UTC)
                state.error = str(err).splitlines()[0] if str(err) else type(err).__name__
                try:
                    store = self._open_store()
                    row = store.db.execute("SELECT count(*) FROM rounds WHERE ended_at IS NOT NULL AND id > ?",
                                           (state.forwarded_up_to or 0,)).fetchone()
                    state.waiting = int(row[0]) if row else state.waiting
                except (StoreError, FloorError):
                    pass
                if report is not None:
                    report(state, None)
            deadline = time.monotonic() + interval
            while time.monotonic() < deadline and not should_stop():
                time.sleep(min(0.1, interval))
        return state
