"""Reading the floor: round listings across tables, export, the pit's figures, and verify.

Used by ``dealer-assist history --db URL`` and the pit supervisor's review on the floor. It
needs only SELECT (the review role); it never writes. Its reads may go to a hot standby
(``read_url``, streaming replication); the pit's few writes (notes, acknowledgements, alerts,
accounting entries) always go to the primary (``url``).

Times handed in and out are aware datetimes or store-format text (UTC); the floor keeps
``timestamptz``.
"""

from __future__ import annotations

import datetime as _dt
import json
import queue
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

import psycopg

from dealer_assist.floor import chain
from dealer_assist.floor.connection import REVIEW, FloorError, connect, describe_error, safe_url
from dealer_assist.floor.live import LiveTable, live_tables
from dealer_assist.floor.schema import applied_migrations, check_schema
from dealer_assist.store import HEADER_KEYS, ROUND_STATUSES, format_time

__all__ = [
    "SORTS",
    "FloorNote",
    "FloorReader",
    "FloorRound",
    "FloorRoundDetail",
    "StoredTheo",
    "FloorVersion",
    "sort_key",
    "FloorVerify",
    "HourFigure",
    "ReplicaLag",
    "TableState",
]


@dataclass(frozen=True)
class FloorRound:
    """One row of a floor listing: a round of one table."""

    table: str
    pit: str
    id: int
    session_id: int | None
    number: int
    source: str
    game: str
    dealer: str | None
    status: str
    started_at: str
    ended_at: str | None
    players: list[str]
    net: dict[str, Any]
    irregular: bool
    wagered: Decimal
    house_net: Decimal
    notes: int = 0  # supervisors' notes and disputes on it (listings only)

    def as_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "pit": self.pit,
            "id": self.id,
            "session_id": self.session_id,
            "number": self.number,
            "source": self.source,
            "game": self.game,
            "dealer": self.dealer,
            "status": self.status,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "players": self.players,
            "net": self.net,
            "irregular": self.irregular,
        }


@dataclass(frozen=True)
class FloorRoundDetail:
    summary: FloorRound
    config: dict[str, Any]
    events: list[tuple[int, str, str, dict[str, Any]]]  # seq, at, actor, event
    result: dict[str, Any] | None
    settlements: list[dict[str, Any]]
    rulings: list[dict[str, Any]]
    #: the round's results as the station finished it, oldest first: the first forwarded copy,
    #: then each later finish (a 5.7 card after the end); the detail above is the latest
    versions: list[FloorVersion] = field(default_factory=list)


@dataclass(frozen=True)
class FloorVersion:
    """One finish of a floor round: the first forwarded copy (``finish_audit_id`` of its
    round_finish entry) or a later one (``floor.round_versions``)."""

    finish_audit_id: int | None
    status: str
    ended_at: str | None
    net: dict[str, Any]
    wagered: Decimal
    house_net: Decimal
    events: int
    forwarded_at: _dt.datetime


@dataclass(frozen=True)
class FloorNote:
    """A supervisor's note or dispute on a floor round (``floor.notes``)."""

    table: str
    round_id: int
    kind: str  # note | dispute
    supervisor: str
    text: str
    db_role: str
    written_at: _dt.datetime


#: The orders a floor listing can take (``list_rounds(sort=...)``): each is a keyset
#: (the sort column, then start time, table and round) so paging never uses OFFSET.
SORTS: dict[str, str] = {
    "started": "",
    "table": "r.table_name",
    "round": "r.round_id",
    "wagered": "r.wagered",
    "house": "r.house_net",
    "status": "r.status",
}


@dataclass(frozen=True)
class FloorVerify:
    ok: bool
    tables: int
    rounds: int
    events: int
    audit: int
    problem: str | None = None
    table: str | None = None
    row: str | None = None


@dataclass(frozen=True)
class HourFigure:
    """The house's net and net/wagered of one table (or one dealer) in one hour (not "hold %",
    which is the table game's win / drop: dealer_assist.floor.accounting)."""

    key: str  # table or dealer
    hour: _dt.datetime
    rounds: int
    wagered: Decimal
    house_net: Decimal

    @property
    def net_wagered_percent(self) -> Decimal | None:
        if not self.wagered:
            return None
        return (self.house_net * 100 / self.wagered).quantize(Decimal("0.01"))


@dataclass(frozen=True)
class TableState:
    """A table's live state on the floor (as far as its forwarded rounds tell)."""

    table: str
    pit: str
    game: str | None
    limits: dict[str, Any]
    open: bool  # a session started and not ended
    dealer: str | None
    rounds_this_hour: int
    last_round_at: _dt.datetime | None
    last_forwarded_at: _dt.datetime | None
    stopped: str | None


_ROUND_COLUMNS = (
    "r.table_name, r.pit, r.round_id, r.session_id, r.number, r.source, r.game, r.dealer, r.status, "
    "r.started_at, r.ended_at, r.players_json, r.totals_json, r.irregular, r.wagered, r.house_net"
)


# Listings, filters, sorts and the pit's figures read each round as it stands: the views
# ``floor.rounds_latest`` and ``floor.round_players_latest`` (migration 0003) give a round
# finished again at the station after it was forwarded (``floor.round_versions``) its latest
# status, end, players, nets, wagered and house net.


def _time_text(value: _dt.datetime | None) -> str | None:
    return None if value is None else format_time(value)


def _summary(row: Sequence[Any]) -> FloorRound:
    return FloorRound(
        table=str(row[0]), pit=str(row[1]), id=int(row[2]), session_id=row[3], number=int(row[4]),
        source=str(row[5]), game=str(row[6]), dealer=row[7], status=str(row[8]),
        started_at=format_time(row[9]), ended_at=_time_text(row[10]), players=json.loads(row[11]),
        net=json.loads(row[12]), irregular=bool(row[13]), wagered=Decimal(row[14]),
        house_net=Decimal(row[15]),
    )


def sort_key(row: FloorRound, sort: str = "started") -> tuple[Any, ...]:
    """The keyset values of a listed row for ``list_rounds(before=...)`` in that order."""
    started = _dt.datetime.fromisoformat(row.started_at.replace("Z", "+00:00"))
    tail = (started, row.table, row.id)
    value: Any = {"started": None, "table": row.table, "round": row.id, "wagered": row.wagered,
                  "house": row.house_net, "status": row.status}[sort]
    return tail if sort == "started" else (value, *tail)


def _like_pattern(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _to_decimal(value: Any) -> Decimal | None:
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


if TYPE_CHECKING:
    from dealer_assist.floor.alerts import Alert

T = TypeVar("T")


@dataclass(frozen=True)
class StoredTheo:
    """A table's sums of the theoretical win stored with its rounds (dealer_assist.odds.theo.Theo's fields)."""

    table: str
    rounds: int
    initial: Decimal
    wagered: Decimal
    theo: Decimal
    actual: Decimal


@dataclass(frozen=True)
class ReplicaLag:
    """How far the standby a pit reads is behind the primary: WAL bytes written on the primary
    and not yet replayed there, and the age of the standby's last replayed transaction while it
    is behind (0 when caught up). ``standby`` False: the read server is not in recovery (it is a
    primary, or a standby promoted)."""

    standby: bool
    behind_bytes: int
    seconds: float

    def text(self) -> str:
        if not self.standby:
            return "reads a server that is not a standby"
        if self.behind_bytes <= 0:
            return "standby caught up"
        return f"standby {_duration(self.seconds)} behind ({_size(self.behind_bytes)} not yet replayed)"


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = int(seconds)
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


def _size(count: int) -> str:
    for unit, scale in (("MB", 1 << 20), ("kB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"


class FloorReader:
    """A read-only view of the floor database (one connection; not shared between threads).

    ``read_url``: a hot standby of the floor to read from (None: read the primary, ``url``);
    the few writes open a connection of their own to ``url``."""

    def __init__(self, url: str, read_url: str | None = None) -> None:
        self.url = url
        self.read_url = read_url or url
        self._primary: psycopg.Connection[Any] | None = None  # replica_lag's view of the primary
        self.conn = connect(self.read_url, autocommit=True, timeouts=REVIEW)
        try:
            check_schema(self.conn)
            # each round's reach on the floor (0014, online: the old filter until its swap is recorded)
            reach = "0014_round_reach" in applied_migrations(self.conn)
        except BaseException:
            self.conn.close()
            raise
        self._reach = reach
        self.conn.read_only = True
        # verify's part connections, kept between verifies (a new connection per part cost more
        # than a day's digest under load); each is used by one thread at a time
        self._idle_parts: queue.SimpleQueue[psycopg.Connection[Any]] = queue.SimpleQueue()

    def close(self) -> None:
        self.conn.close()
        if self._primary is not None:
            self._primary.close()
        while True:
            try:
                self._idle_parts.get_nowait().close()
            except queue.Empty:
                break

    def __enter__(self) -> FloorReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _again(self, read: Callable[[], T]) -> T:
        """``read()``, once more on a new connection if the link broke (a server restart): the
        review only reads, so a read is safe to repeat."""
        for attempt in (0, 1):
            try:
                if self.conn.closed:
                    self._reconnect()
                return read()
            except psycopg.OperationalError as err:
                if attempt == 0 and (self.conn.broken or self.conn.closed):
                    self.conn.close()
                    continue
                raise FloorError(f"{safe_url(self.read_url)}: {describe_error(err)}") from None
            except psycopg.Error as err:
                raise FloorError(f"{safe_url(self.read_url)}: {describe_error(err)}") from None
        raise FloorError(f"{safe_url(self.read_url)}: the connection broke twice")

    def _reconnect(self) -> None:
        conn = connect(self.read_url, autocommit=True, timeouts=REVIEW)
        conn.read_only = True
        self.conn = conn

    def _rows(self, query: Any, params: Sequence[Any] | Mapping[str, Any] = ()) -> list[tuple[Any, ...]]:
        return self._again(lambda: self.conn.execute(query, params).fetchall())

    # ---- the standby read from (read_url)

    @property
    def reads_standby(self) -> bool:
        return self.read_url != self.url

    @contextmanager
    def _primary_write(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection of its own to the primary for one write; once it is committed, and the
        reader reads a standby, wait (at most ``replay_wait`` s) until the standby has replayed
        it, so what the pit shows next includes its own write."""
        with connect(self.url, timeouts=REVIEW) as conn:
            yield conn
            conn.commit()
            # the insert position: an asynchronous commit (synchronous_commit off) may not be
            # written yet, and pg_current_wal_lsn() would be before it (when the commit ends a WAL
            # page this is past the next page's header: the wait then lasts until more WAL comes)
            row = conn.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone() if self.reads_standby else None
        if row is not None:
            self._wait_replayed(str(row[0]))

    replay_wait = 5.0

    def _wait_replayed(self, lsn: str) -> None:
        deadline = time.monotonic() + self.replay_wait
        try:
            while not self._rows("SELECT NOT pg_is_in_recovery() OR pg_last_wal_replay_lsn() >= %s::pg_lsn",
                                 (lsn,))[0][0]:
                if time.monotonic() >= deadline:
                    return  # the standby is behind: the pit shows its lag
                time.sleep(0.02)
        except FloorError:
            return  # the write is on the primary; the next read says what is wrong with the standby

    def replica_lag(self) -> ReplicaLag | None:
        """How far the read server is behind the primary (None when the reader reads the primary)."""
        if not self.reads_standby:
            return None
        rows = self._rows(
            "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text, "
            "coalesce(extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()), 0)::float8")
        in_recovery, replayed, age = rows[0]
        if not in_recovery or replayed is None:
            return ReplicaLag(False, 0, 0.0)
        row = self._on_primary(lambda primary: primary.execute(
            "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), %s::pg_lsn)::bigint", (replayed,)).fetchone())
        behind = max(0, int(row[0])) if row is not None else 0
        return ReplicaLag(True, behind, float(age) if behind else 0.0)

    def _on_primary(self, read: Callable[[psycopg.Connection[Any]], T]) -> T:
        """``read`` on a read-only connection to the primary, kept (replica_lag, the links' alerts)."""
        try:
            if self._primary is None or self._primary.closed or self._primary.broken:
                self._primary = connect(self.url, autocommit=True, timeouts=REVIEW)
                self._primary.read_only = True
            return read(self._primary)
        except psycopg.Error as err:
            if self._primary is not None:
                self._primary.close()
            raise FloorError(f"{safe_url(self.url)}: {describe_error(err)}") from None

    # ---- theoretical win (worked out once per round at forwarding: floor.rounds.theo)

    def stored_theo(self, *, pit: str | None = None, since: _dt.datetime | None = None,
                    until: _dt.datetime | None = None) -> tuple[list[StoredTheo], list[tuple[str, int]]]:
        """Each table's sums of its settled rounds' stored theoretical win (as they stand), in one
        query; and the settled rounds without one (forwarded before it was stored), to be worked
        out from their events: (table, round id)."""
        where = ["r.status = 'settled'"]
        params: list[Any] = []
        for clause, value in (("r.pit = %s", pit), ("r.started_at >= %s", since), ("r.started_at < %s", until)):
            if value is not None:
                where.append(clause)
                params.append(value)
        cond = " AND ".join(where)
        sums = self._rows(
            "SELECT r.table_name, count(r.theo_wagered), coalesce(sum(r.theo_initial), 0), "
            "coalesce(sum(r.theo_wagered), 0), coalesce(sum(r.theo), 0), "
            "coalesce(sum(r.house_net) FILTER (WHERE r.theo_wagered IS NOT NULL), 0) "
            f"FROM floor.rounds_latest r WHERE {cond} AND r.theo IS NOT NULL GROUP BY r.table_name ORDER BY 1",
            params)
        missing = self._rows(
            f"SELECT r.table_name, r.round_id FROM floor.rounds_latest r WHERE {cond} AND r.theo IS NULL "
            "ORDER BY r.table_name, r.round_id", params)
        return ([StoredTheo(str(t), int(n), Decimal(i), Decimal(w), Decimal(th), Decimal(a))
                 for t, n, i, w, th, a in sums], [(str(t), int(rid)) for t, rid in missing])

    # ---- alerts (dealer_assist.floor.alerts): read on this connection, written on one of their own

    def check_alerts(self, pit: str | None = None, **options: Any) -> list[int]:
        """Evaluate the alert conditions of ``pit`` now and raise those not already open; the
        new alerts' ids. Reading a standby, the links' conditions (link down, stopped, pace) are
        read on the primary — the standby's heartbeats are as old as its lag: read there, a
        standby behind would raise link down for every beating station — and the win bands on
        the standby."""
        from dealer_assist.floor import alerts

        if self.reads_standby:
            found = self._on_primary(lambda primary: self._again(
                lambda: alerts.evaluate(self.conn, pit=pit, links=primary, **options)))
        else:
            found = self._again(lambda: alerts.evaluate(self.conn, pit=pit, **options))
        if not found:
            return []
        with self._primary_write() as conn:
            return alerts.raise_alerts(conn, found)

    def alerts(self, pit: str | None = None, *, open_only: bool = False) -> list[Alert]:
        from dealer_assist.floor import alerts

        return self._again(lambda: alerts.alerts(self.conn, pit=pit, open_only=open_only))

    def acknowledge(self, alert_id: int, supervisor: str, note: str) -> None:
        from dealer_assist.floor import alerts

        try:
            with self._primary_write() as conn:
                alerts.acknowledge(conn, alert_id, supervisor, note)
        except psycopg.Error as err:
            raise FloorError(f"{safe_url(self.url)}: {describe_error(err)}") from None

    def shift_report(self, day: _dt.date, shift: str, pit: str | None = None) -> Any:
        """dealer_assist.floor.accounting.shift_report on this connection."""
        from dealer_assist.floor import accounting

        return self._again(lambda: accounting.shift_report(self.conn, day, shift, pit=pit))

    def report(self, day: _dt.date, shift: str | None = None, pit: str | None = None) -> Any:
        """The report a shift manager signs (dealer_assist.floor.reports) of ``shift``, or of the
        whole day when None, read on this connection."""
        from dealer_assist.floor import reports

        database = safe_url(self.read_url)
        if shift is None:
            return self._again(lambda: reports.day_document(self.conn, day, pit=pit, database=database))
        return self._again(lambda: reports.shift_document(self.conn, day, shift, pit=pit, database=database))

    def write(self, record: Callable[[psycopg.Connection[Any]], T]) -> T:
        """``record(conn)`` on a writable connection of its own (the review role's few writes)."""
        with self._primary_write() as conn:
            return record(conn)

    def live(self, pit: str | None = None) -> list[LiveTable]:
        """Each table of ``pit`` as it stands now (dealer_assist.floor.live): one query."""
        return self._again(lambda: live_tables(self.conn, pit))

    # ---- tables

    def tables(self, pit: str | None = None) -> list[tuple[str, str]]:
        """(table, pit) of every registered table (of one pit), by name."""
        if pit is None:
            rows = self._rows("SELECT table_name, pit FROM floor.tables ORDER BY pit, table_name")
        else:
            rows = self._rows("SELECT table_name, pit FROM floor.tables WHERE pit = %s ORDER BY table_name", (pit,))
        return [(str(a), str(b)) for a, b in rows]

    def pits(self) -> list[str]:
        return [str(r[0]) for r in self._rows("SELECT DISTINCT pit FROM floor.tables ORDER BY pit")]

    def players(self, search: str, limit: int = 200) -> list[str]:
        """Player names containing ``search``, case-insensitive (the floor's list of names)."""
        rows = self._rows(
            "SELECT player FROM floor.players WHERE player ILIKE %s ORDER BY lower(player), player LIMIT %s",
            (_like_pattern(search), limit),
        )
        return [str(r[0]) for r in rows]

    # ---- listing

    def list_rounds(
        self,
        *,
        table: str | None = None,
        pit: str | None = None,
        game: str | None = None,
        dealer: str | None = None,
        player: str | None = None,
        player_partial: bool = False,
        since: _dt.datetime | None = None,
        until: _dt.datetime | None = None,
        status: str | None = None,
        irregular: bool | None = None,
        limit: int | None = 100,
        before: tuple[Any, ...] | None = None,
        min_net: Decimal | None = None,
        min_wagered: Decimal | None = None,
        disputed: bool = False,
        sort: str = "started",
        ascending: bool = False,
    ) -> list[FloorRound]:
        """Rounds latest first across tables (or by ``sort``), filtered; ``before`` = the last row
        shown's :func:`sort_key` pages on by keyset (never OFFSET). ``min_net``: some player won
        or lost at least this much; ``min_wagered``: the round's wagers at least this much;
        ``disputed``: rounds with a supervisor's dispute. Each round as it stands: a round
        finished again after it was forwarded is shown, filtered and sorted by its latest finish."""
        if status is not None and status not in ROUND_STATUSES:
            raise FloorError(f"unknown status {status!r}: one of {', '.join(ROUND_STATUSES)}")
        if sort not in SORTS:
            raise FloorError(f"unknown sort {sort!r}: one of {', '.join(SORTS)}")
        where: list[str] = []
        params: list[Any] = []
        if player is not None:
            names = self.players(player, limit=1000) if player_partial else [player]
            if not names:
                return []
            source = ("floor.round_players rp JOIN floor.rounds_latest r "
                      "ON r.table_name = rp.table_name AND r.round_id = rp.round_id")
            where.append("rp.player = ANY(%s)")
            params.append(names)
            time_col = "rp.started_at"
            order = "rp.started_at DESC, rp.table_name DESC, rp.round_id DESC"
            if len(names) > 1:
                # one round may have several matching players: keep it once
                source = ("(SELECT DISTINCT ON (rp.started_at, rp.table_name, rp.round_id) rp.* FROM "
                          "floor.round_players rp WHERE rp.player = ANY(%s) "
                          "ORDER BY rp.started_at DESC, rp.table_name DESC, rp.round_id DESC) rp "
                          "JOIN floor.rounds_latest r ON r.table_name = rp.table_name AND r.round_id = rp.round_id")
                where.pop()
        else:
            source = "floor.rounds_latest r"
            time_col = "r.started_at"
            order = "r.started_at DESC, r.table_name DESC, r.round_id DESC"
        if table is not None:
            where.append("r.table_name = %s")
            params.append(table)
        if pit is not None:
            where.append("r.pit = %s")
            params.append(pit)
        if game is not None:
            where.append("r.game = %s")
            params.append(game)
        if dealer is not None:
            where.append("r.dealer = %s")
            params.append(dealer)
        if since is not None:
            where.append(f"{time_col} >= %s")
            params.append(since)
        if until is not None:
            where.append(f"{time_col} < %s")
            params.append(until)
        if status is not None:
            where.append("r.status = %s")
            params.append(status)
        if irregular is not None:
            where.append("r.irregular = %s")
            params.append(irregular)
        if min_net is not None and self._reach:
            where.append("r.reach >= %s")
            params.append(abs(min_net))
        elif min_net is not None:
            where.append("EXISTS (SELECT 1 FROM floor.round_players_latest q WHERE q.table_name = r.table_name "
                         "AND q.round_id = r.round_id AND abs(q.net) >= %s)")
            params.append(abs(min_net))
        if min_wagered is not None:
            where.append("r.wagered >= %s")
            params.append(min_wagered)
        if disputed:
            where.append("EXISTS (SELECT 1 FROM floor.notes n WHERE n.table_name = r.table_name "
                         "AND n.round_id = r.round_id AND n.kind = 'dispute')")
        keys = [f"{time_col}", "r.table_name", "r.round_id"]
        if SORTS[sort]:
            keys.insert(0, SORTS[sort])
        direction = "ASC" if ascending else "DESC"
        if sort != "started" or ascending:
            order = ", ".join(f"{k} {direction}" for k in keys)
        if before is not None:
            if len(before) != len(keys):
                raise FloorError(f"a {sort} page goes on from {len(keys)} values, not {len(before)}")
            where.append(f"({', '.join(keys)}) {'>' if ascending else '<'} ({', '.join(['%s'] * len(keys))})")
            params.extend(before)
        notes = ("(SELECT count(*) FROM floor.notes n WHERE n.table_name = r.table_name "
                 "AND n.round_id = r.round_id)")
        query = f"SELECT {_ROUND_COLUMNS}, {notes} FROM {source}"
        if where:
            query += " WHERE " + " AND ".join(where)
        query += f" ORDER BY {order}"
        if limit:
            query += " LIMIT %s"
            params.append(limit)
        return [replace(_summary(r[:16]), notes=int(r[16])) for r in self._rows(query, params)]

    # ---- notes and disputes

    def notes(self, table: str, round_id: int) -> list[FloorNote]:
        """A round's notes and disputes, oldest first."""
        return [
            FloorNote(str(t), int(rid), str(kind), str(who), str(text), str(role), at)
            for t, rid, kind, who, text, role, at in self._rows(
                "SELECT table_name, round_id, kind, supervisor, text, db_role, written_at FROM floor.notes "
                "WHERE table_name = %s AND round_id = %s ORDER BY note_id",
                (table, round_id),
            )
        ]

    def add_note(self, table: str, round_id: int, supervisor: str, text: str, *, dispute: bool = False) -> None:
        """Write a supervisor's note (or a dispute) on a floor round: the review role's only
        write, into ``floor.notes`` (the server records the writing role and the time)."""
        supervisor, text = supervisor.strip(), text.strip()
        if not supervisor:
            raise FloorError("a note needs the supervisor's name")
        if not text:
            raise FloorError("a note needs its text")
        try:
            with self._primary_write() as conn:
                conn.execute(
                    "INSERT INTO floor.notes (table_name, round_id, kind, supervisor, text) "
                    "VALUES (%s, %s, %s, %s, %s)",
                    (table, round_id, "dispute" if dispute else "note", supervisor, text),
                )
                conn.commit()
        except psycopg.Error as err:
            raise FloorError(f"cannot write the note: {describe_error(err)}") from None

    def tables_of_round(self, round_id: int) -> list[str]:
        return [str(r[0]) for r in self._rows(
            "SELECT table_name FROM floor.rounds WHERE round_id = %s ORDER BY table_name", (round_id,))]

    def get_round(self, table: str, round_id: int) -> FloorRoundDetail | None:
        """A round as it stands: its latest finish (the first forwarded copy, or the latest
        version when the station finished it again), with every version in ``versions``."""
        rows = self._rows(
            f"SELECT {_ROUND_COLUMNS}, r.config_json, r.result_json, r.finish_audit_id, r.forwarded_at "
            "FROM floor.rounds r WHERE r.table_name = %s AND r.round_id = %s",
            (table, round_id),
        )
        if not rows:
            return None
        row = rows[0]
        first = _summary(row[:16])
        events = [
            (int(s), str(a), str(actor), json.loads(text))
            for s, a, actor, text in self._rows(
                "SELECT seq, at, actor, event_json FROM floor.events WHERE table_name = %s AND round_id = %s "
                "AND started_at = %s ORDER BY seq",  # (its round's start: the month's partition only)
                (table, round_id, row[9]),
            )
        ]
        versions = [FloorVersion(
            None if row[18] is None else int(row[18]), first.status, first.ended_at, first.net, first.wagered,
            first.house_net, len(events), row[19])]
        later = self._rows(
            "SELECT finish_audit_id, status, ended_at, players_json, totals_json, irregular, result_json, wagered, "
            "house_net, events_json, forwarded_at FROM floor.round_versions WHERE table_name = %s AND round_id = %s "
            "ORDER BY finish_audit_id",
            (table, round_id),
        )
        summary, result_json = first, row[17]
        if not later:
            settlements = [
                {"player": p, "area": a, "hand": h, "bet": b, "stake": str(st), "result": res, "net": str(n),
                 "rule": rule, "stage": stage}
                for p, a, h, b, st, res, n, rule, stage in self._rows(
                    "SELECT player, area, hand, bet, stake, result, net, rule, stage FROM floor.settlements "
                    "WHERE table_name = %s AND round_id = %s AND started_at = %s ORDER BY idx",
                    (table, round_id, row[9]),
                )
            ]
            rulings = [
                {"index": i, "rule": rule, "ruling": ruling, "text": text, "moves": json.loads(moves)}
                for i, rule, ruling, text, moves in self._rows(
                    "SELECT event_index, rule, ruling, text, moves_json FROM floor.rulings "
                    "WHERE table_name = %s AND round_id = %s AND started_at = %s ORDER BY idx",
                    (table, round_id, row[9]),
                )
            ]
        for finish, status, ended, players, totals, irregular, result, wagered, house, added, at in later:
            for seq, _sid, ev_at, actor, text, _link in json.loads(added):
                if seq > (events[-1][0] if events else -1):
                    events.append((int(seq), str(ev_at), str(actor), json.loads(text)))
            summary = replace(first, status=str(status), ended_at=_time_text(ended), players=json.loads(players),
                              net=json.loads(totals), irregular=bool(irregular), wagered=Decimal(wagered),
                              house_net=Decimal(house))
            result_json = result
            versions.append(FloorVersion(int(finish), summary.status, summary.ended_at, summary.net,
                                         summary.wagered, summary.house_net, len(events), at))
        if later:
            # the latest finish's own settle output (the floor's settlement rows are the first copy's)
            output = json.loads(result_json) if result_json else {}
            settlements = [dict(x) for x in output.get("settlements") or [] if isinstance(x, dict)]
            rulings = [dict(x) for x in output.get("rulings") or [] if isinstance(x, dict)]
        return FloorRoundDetail(
            summary=summary, config=json.loads(row[16]), events=events,
            result=json.loads(result_json) if result_json is not None else None,
            settlements=settlements, rulings=rulings, versions=versions,
        )

    def export_round(self, table: str, round_id: int) -> dict[str, Any]:
        """The round as a transcript (header fields in the store's order, then ``events``)."""
        rows = self._rows(
            "SELECT config_json, started_at FROM floor.rounds WHERE table_name = %s AND round_id = %s", (table, round_id)
        )
        if not rows:
            raise FloorError(f"no round {round_id} of table {table} on the floor")
        config = json.loads(rows[0][0])
        events = [json.loads(r[0]) for r in self._rows(
            "SELECT event_json FROM floor.events WHERE table_name = %s AND round_id = %s AND started_at = %s "
            "ORDER BY seq", (table, round_id, rows[0][1]),
        )]
        # events recorded after the first copy (the round finished again at the station)
        for (added,) in self._rows(
            "SELECT events_json FROM floor.round_versions WHERE table_name = %s AND round_id = %s "
            "ORDER BY finish_audit_id", (table, round_id),
        ):
            for entry in json.loads(added):
                if int(entry[0]) >= len(events):
                    events.append(json.loads(entry[4]))
        document: dict[str, Any] = {k: config[k] for k in HEADER_KEYS if k in config}
        document.update((k, v) for k, v in config.items() if k not in document)
        document["events"] = events
        return document

    # ---- the pit's figures

    def hourly(
        self, *, pit: str | None, since: _dt.datetime, until: _dt.datetime, by: str = "table"
    ) -> list[HourFigure]:
        """The house's net and net/wagered per table (``by="table"``) or per dealer (``"dealer"``) per hour, each
        round as it stands (its latest finish, ``floor.rounds_latest``)."""
        key = {"table": "r.table_name", "dealer": "coalesce(r.dealer, '')"}[by]
        where = "r.started_at >= %s AND r.started_at < %s"
        params: list[Any] = [since, until]
        if pit is not None:
            where = "r.pit = %s AND " + where
            params.insert(0, pit)
        rows = self._rows(
            f"SELECT {key}, date_trunc('hour', r.started_at) AS h, count(*), sum(r.wagered), sum(r.house_net) "
            f"FROM floor.rounds_latest r WHERE {where} GROUP BY 1, 2 ORDER BY 1, 2",
            params,
        )
        return [HourFigure(str(k), h, int(n), Decimal(w or 0), Decimal(net or 0)) for k, h, n, w, net in rows]

    def player_play(
        self, player: str, *, since: _dt.datetime | None = None, until: _dt.datetime | None = None
    ) -> list[tuple[str, str, _dt.datetime, int, Decimal, Decimal]]:
        """A player's play per table and hour across the floor:
        (player, table, hour, rounds, wagered, net) — ``player`` matched partially, any case;
        each round as it stands (its latest finish, ``floor.round_players_latest``)."""
        names = self.players(player, limit=1000)
        if not names:
            return []
        where = "rp.player = ANY(%s)"
        params: list[Any] = [names]
        if since is not None:
            where += " AND rp.started_at >= %s"
            params.append(since)
        if until is not None:
            where += " AND rp.started_at < %s"
            params.append(until)
        rows = self._rows(
            "SELECT rp.player, rp.table_name, date_trunc('hour', rp.started_at), count(*), sum(rp.wagered), "
            f"sum(coalesce(rp.net, 0)) FROM floor.round_players_latest rp WHERE {where} GROUP BY 1, 2, 3 "
            "ORDER BY 3, 2, 1",
            params,
        )
        return [(str(p), str(t), h, int(n), Decimal(w), Decimal(net)) for p, t, h, n, w, net in rows]

    def table_states(self, pit: str | None = None, now: _dt.datetime | None = None) -> list[TableState]:
        """Each table's state from its forwarded sessions, rounds and alarms: one query for all the
        tables (of ``pit``), each table's latest session, latest round, rounds this hour and first
        alarm found through its own indexes (a probe each, the latest months' partitions first)."""
        moment = now or _dt.datetime.now(_dt.UTC)
        hour = moment.replace(minute=0, second=0, microsecond=0)
        where = "" if pit is None else "WHERE t.pit = %s "
        params: list[Any] = [hour, hour + _dt.timedelta(hours=1)]
        if pit is not None:
            params.append(pit)
        rows = self._rows(
            "SELECT t.table_name, t.pit, s.game, s.limits_json, s.dealer, s.ended, "
            "l.game, l.dealer, l.started_at, l.forwarded_at, l.config_json, "
            "(SELECT count(*) FROM floor.rounds c WHERE c.table_name = t.table_name "
            "AND c.started_at >= %s AND c.started_at < %s), "
            "(SELECT a.reason FROM floor.alarms a WHERE a.table_name = t.table_name ORDER BY a.raised_at LIMIT 1) "
            "FROM floor.tables t "
            "LEFT JOIN LATERAL (SELECT s.game, s.limits_json, s.dealer, EXISTS (SELECT 1 FROM floor.audit a "
            "WHERE a.table_name = s.table_name AND a.kind = 'session_end' "
            "AND a.detail_json::jsonb ->> 'session_id' = s.session_id::text) AS ended "
            "FROM floor.sessions s WHERE s.table_name = t.table_name ORDER BY s.session_id DESC LIMIT 1) s ON true "
            "LEFT JOIN LATERAL (SELECT r.game, r.dealer, r.started_at, r.forwarded_at, r.config_json "
            "FROM floor.rounds r WHERE r.table_name = t.table_name ORDER BY r.started_at DESC LIMIT 1) l ON true "
            f"{where}ORDER BY t.pit, t.table_name",
            params,
        )
        states = []
        for (table, table_pit, sgame, limits_json, sdealer, ended, lgame, ldealer, last_at, forwarded_at,
             config_json, count, alarm) in rows:
            game, dealer = sgame, sdealer
            limits: dict[str, Any] = json.loads(limits_json) if limits_json is not None else {}
            is_open = limits_json is not None and not ended
            if last_at is not None:
                if game in (None, "mixed"):
                    game = lgame
                dealer = dealer or ldealer
                if not limits:
                    config_limits = json.loads(config_json).get("limits")
                    limits = config_limits if isinstance(config_limits, dict) else {}
            states.append(TableState(
                table=str(table), pit=str(table_pit), game=game, limits=limits, open=is_open, dealer=dealer,
                rounds_this_hour=int(count), last_round_at=last_at, last_forwarded_at=forwarded_at,
                stopped=None if alarm is None else str(alarm),
            ))
        return states

    # ---- verify

    def verify(self, table: str | None = None, *, since: _dt.datetime | None = None,
               until: _dt.datetime | None = None) -> FloorVerify:
        """Recompute each table's floor chains (rounds with their events, and audit entries) and
        check the derived rows (settlements, players' nets, totals) against each round's settle
        output. The first row that does not match is named.

        ``since``/``until``: only the rounds started and the audit entries forwarded in that time
        (their months' partitions), each chain continued from the stored link of the row before
        the range (which a verify of the earlier range, or of the whole history, checks)."""
        if since is not None and until is not None and until <= since:
            raise FloorError("verify: --until must be after --since")
        tables = [t for t, _ in self.tables()] if table is None else [table]
        if table is not None and not self._rows("SELECT 1 FROM floor.tables WHERE table_name = %s", (table,)):
            raise FloorError(f"no table {table} on the floor")
        counts = {"rounds": 0, "events": 0, "audit": 0}
        for name in tables:
            problem = self._verify_table(name, counts, since, until)
            if problem is not None:
                row, text = problem
                return FloorVerify(False, len(tables), counts["rounds"], counts["events"], counts["audit"],
                                   f"table {name}: {text}", name, row)
        return FloorVerify(True, len(tables), counts["rounds"], counts["events"], counts["audit"])

    def _ranges(self, table: str, since: _dt.datetime | None, until: _dt.datetime | None
                ) -> tuple[int, int, bytes, int, int, int, int, bytes]:
        """The floor seqs and round ids of ``table``'s rounds started in the time range, and the
        audit ids of its entries forwarded in it, each with the stored link its chain continues
        from (one query, one snapshot): (seq lo, hi, link, round lo, hi, audit lo, hi, link)."""
        row = self._rows(
            "SELECT b.*, (SELECT p.floor_link FROM floor.rounds p WHERE p.table_name = %(table)s "
            "AND p.floor_seq = b.lo - 1), a.*, (SELECT p.floor_link FROM floor.audit p WHERE p.table_name = %(table)s "
            "AND p.audit_id < a.lo ORDER BY p.audit_id DESC LIMIT 1) FROM (SELECT min(floor_seq) AS lo, max(floor_seq), "
            "min(round_id), max(round_id) FROM floor.rounds WHERE table_name = %(table)s AND started_at >= %(since)s "
            "AND started_at < %(until)s) b, (SELECT min(audit_id) AS lo, max(audit_id) FROM floor.audit "
            "WHERE table_name = %(table)s AND forwarded_at >= %(since)s AND forwarded_at < %(until)s) a",
            {"table": table, "since": since or _EARLIEST, "until": until or _LATEST})[0]
        seq_lo, seq_hi = int(row[0] or 1), int(row[1] or 0)
        link = bytes(row[4]) if row[4] is not None and seq_lo > 1 else chain.ZERO
        audit_lo = int(row[5] or 1)
        audit_link = bytes(row[7]) if row[7] is not None and audit_lo > 1 else chain.ZERO
        return seq_lo, seq_hi, link, int(row[2] or 1), int(row[3] or 0), audit_lo, int(row[6] or 0), audit_link

    def _verify_table(self, table: str, counts: dict[str, int], since: _dt.datetime | None = None,
                      until: _dt.datetime | None = None) -> tuple[str, str] | None:
        """One table: the server digests and checks its rounds in ``VERIFY_PARTS`` ranges of
        forwarding order, each on a connection of its own (a server process each), while the
        audit chain is walked on another; the links are then chained here in order.

        Each part reads the rows up to the floor seq and audit id read first: forwarded rows
        are only ever added, a batch commits whole and a table's seqs grow in commit order, so
        every part sees the same rows whatever a forwarder commits meanwhile."""
        # chain format 2 (0015) and audit format 2 (0016): rounds and audit entries may be of
        # either format once the floor records each row's (one catalog query for both)
        formats, audit_formats = self._has_chain_formats()
        whole = since is None and until is None
        if whole:
            row = self._rows(
                "SELECT (SELECT max(floor_seq) FROM floor.rounds WHERE table_name = %s), "
                "(SELECT max(audit_id) FROM floor.audit WHERE table_name = %s)", (table, table))[0]
            seq_lo, max_seq, seq_link, audit_lo, max_audit, audit_link = (
                1, int(row[0] or 0), chain.ZERO, 1, int(row[1] or 0), chain.ZERO)
            rids: tuple[int, int] | None = None
        else:
            seq_lo, max_seq, seq_link, rid_lo, rid_hi, audit_lo, max_audit, audit_link = self._ranges(
                table, since, until)
            rids = (rid_lo, rid_hi)
        ranges = verify_split(seq_lo, max_seq, max(0, max_audit - audit_lo + 1))
        # as many connections as parts: the audit chain is walked on the first to be free (the
        # first part's, which has fewer rounds for it), so each core's server process has one
        # piece of work to its end instead of three sharing two cores (docs/floor.md: a week's verify)
        with ThreadPoolExecutor(max_workers=max(1, len(ranges)), thread_name_prefix="floor-verify") as pool:
            parts = [pool.submit(self._round_part, table, lo, hi, formats, seq_link if lo == seq_lo else None)
                     for lo, hi in ranges]
            audit = pool.submit(self._verify_audit, table, max_audit, audit_lo, audit_link, audit_formats)
            # while the parts run: the checks that do not wait for them, on this connection
            stray_version = self._stray_versions(table, rids)
            versions = self._verify_versions(table, max_audit, audit_lo)
            found = [part.result() for part in parts]
            audit_problem, audit_count = audit.result()
        problem = self._check_parts(found, counts, seq_lo)
        # The stray check: every child row of the range's round ids in every month is under its
        # round's start when the parts prove it together — each part's round ids are one run with
        # no id missing (its tile: every child row of those ids, in every month, is in a group of
        # one of its rounds), each read all of them and found them under their round's start (rows
        # not None: rounds of format 2), and the tiles follow each other with no id between them
        # (so they cover the range's round ids; a whole table's: and no child row has an id before
        # the first or after the last) — else the rows are compared one by one, and named.
        tiles = [part.tile for part in found if part.tile is not None]
        covered = (bool(found) and len(tiles) == len(found) and None not in [part.rows for part in found]
                   and all(a[1] + 1 == b[0] for a, b in zip(tiles, tiles[1:], strict=False))
                   and (rids is not None or not self._child_rows_beyond(table, tiles[0][0], tiles[-1][1])))
        stray = stray_version if covered else self._stray_rows(table, rids)
        if problem is None and stray is not None:
            rid, without = stray
            problem = (f"round {rid}", f"rows of round {rid} are on the floor without the round" if without
                       else f"rows of round {rid} are on the floor under another start than the round's")
        if problem is None:
            problem = versions
        if problem is None and audit_problem is not None:
            return audit_problem
        counts["audit"] += audit_count if problem is None else 0
        return problem

    @contextmanager
    def _part_connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A verify part's connection: an idle one kept from an earlier part, else a new one;
        kept again afterwards unless the part failed or the link broke."""
        try:
            conn = self._idle_parts.get_nowait()
        except queue.Empty:
            conn = connect(self.read_url, autocommit=True, timeouts=REVIEW)
            conn.read_only = True
            conn.execute("SET jit = off")  # short per-round expressions: compiling costs more
            conn.execute("SET work_mem = '64MB'")  # a part's rows grouped and compared in memory
            # The planner multiplies the selectivities of a part's seq, round id and start ranges
            # (they are correlated): it expects tens of rows where there are thousands and joins
            # the per-round groups by nested loops (a day's part: 260,000 comparisons a join).
            # A part reads whole ranges: hash joins; and plain index scans, whose (round, seq)
            # order feeds the events' aggregate without a sort.
            conn.execute("SET enable_nestloop = off")
            conn.execute("SET enable_bitmapscan = off")
            # A part's index ranges are read from cache: at the default random_page_cost (4) the
            # planner read the whole month's round_players partition (every table's players, 400,000
            # rows at 216,000 rounds) for a part's 7,200 rows, and sorted the audit range after a
            # bitmap scan; costed as cached reads, both are index ranges in key order (a week's
            # server CPU 340 -> 290 ms, issue 35 item 7)
            conn.execute("SET random_page_cost = 1.1")
        kept = False
        try:
            yield conn
            kept = not conn.closed and not conn.broken and (
                conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE)
        finally:
            if kept:
                self._idle_parts.put(conn)
            else:
                conn.close()

    def _round_part(self, table: str, lo: int, hi: int, formats: bool = False,
                    prev: bytes | None = None) -> _Part:
        """The server's digest and checks of the rounds with floor seq ``lo``..``hi``, and of their
        floor links: each round's link against the stored link of the round before it (``prev``
        for the part's first, else the stored link of seq ``lo`` - 1), so only the first round
        that fails comes back; ``formats``: the floor records each round's chain format (0015),
        else all are of format 1."""
        try:
            with self._part_connection() as conn:
                # the part's round ids bound each child table's index range (known to the planner)
                # (OFFSET 0: read the part's rows by its seq range; min/max alone would walk the round id
                # and start indexes of the whole month, filtering by seq); and how many are of format 2
                # (and how many round ids: its rounds' ids are one run if as many as its id range)
                two = "count(*) FILTER (WHERE chain_format = 2)" if formats else "0"
                bounds = conn.execute(f"SELECT min(round_id), max(round_id), min(started_at), max(started_at), "
                                      f"count(*), {two}, count(DISTINCT round_id) FROM (SELECT round_id, started_at"
                                      f"{', chain_format' if formats else ''} FROM floor.rounds WHERE table_name = %s "
                                      "AND floor_seq BETWEEN %s AND %s OFFSET 0) r", (table, lo, hi)).fetchone()
                rlo, rhi, slo, shi, n_all, n_two, n_ids = (
                    bounds if bounds is not None else (None, None, None, None, 0, 0, 0))
                if not n_all:
                    return _Part(0, 0, 0, 0, 0, None, 0, None)
                # its tile: round ids with no id missing between its least and greatest, each of a
                # round of the part (so no child row of them is of no round of the part)
                tile = (int(rlo), int(rhi)) if rlo is not None and rhi is not None and (
                    int(n_ids) == int(rhi) - int(rlo) + 1) else None
                params = {"table": table, "lo": lo, "hi": hi, "rlo": rlo or 0, "rhi": rhi or -1,
                          "slo": slo or _dt.datetime(1, 1, 1, tzinfo=_dt.UTC),
                          "shi": shi or _dt.datetime(1, 1, 1, tzinfo=_dt.UTC), "prev": prev}
                queries = []
                if int(n_two or 0) < int(n_all or 0):  # format 1: all, or those not of format 2
                    queries.append((_ROUND_CHECKS_SQL if not n_two else _ROUND_CHECKS_SQL.replace(
                        _FORMAT_FILTER, " AND r.chain_format IS DISTINCT FROM 2" + _FORMAT_FILTER, 1), chain.FORMAT_1))
                if n_two:
                    queries.append((_ROUND2_SQL, chain.FORMAT_2))
                digests = " UNION ALL ".join(f"SELECT d.*, {fmt} FROM ({query}) d" for query, fmt in queries)
                row = conn.execute(_LINKED_SQL.format(digests=digests), params).fetchone()
        except psycopg.Error as err:
            raise FloorError(f"{safe_url(self.read_url)}: {describe_error(err)}") from None
        assert row is not None
        count, events, rows, first_seq, first_rid, last_seq, first_bad = row
        bad = None
        if first_bad is not None:
            # (an array of arrays: the first round's, as a slice of one)
            bad_rid, bad_seq, before, gap, unlinked, fmt, *checks = (int(v) for v in first_bad[0])
            problem = next((text for ok, text in zip(checks, _CHECK_TEXTS, strict=True) if not ok), None)
            bad = (bad_rid, bad_seq, before, bool(gap), bool(unlinked), problem, fmt)
        return _Part(int(count), int(events or 0), int(first_seq), int(first_rid), int(last_seq), bad,
                     None if rows is None else int(rows), tile)

    def _verify_versions(self, table: str, max_audit: int, min_audit: int = 1) -> tuple[str, str] | None:
        """Each later finish of a round (``floor.round_versions``) against the chained audit entry
        that announced it: a round_finish of that round whose result_sha256 is its settle
        output's. (A version is written in the transaction of its audit entry, after it — the
        server checks it there too: floor.add_round_versions; only those up to the last audit
        entry read are checked.)"""
        rows = self._rows(
            "SELECT v.round_id, v.finish_audit_id, a.audit_id IS NULL FROM floor.round_versions v "
            "LEFT JOIN floor.audit a ON a.table_name = v.table_name AND a.audit_id = v.finish_audit_id "
            "WHERE v.table_name = %s AND v.finish_audit_id BETWEEN %s AND %s AND (a.audit_id IS NULL "
            "OR a.kind <> 'round_finish' OR a.round_id IS DISTINCT FROM v.round_id "
            "OR a.detail_json::jsonb ->> 'result_sha256' IS DISTINCT FROM "
            "encode(sha256(convert_to(coalesce(v.result_json, ''), 'UTF8')), 'hex')) "
            "ORDER BY v.finish_audit_id LIMIT 1",
            (table, min_audit, max_audit),
        )
        if not rows:
            return None
        rid, finish, missing = int(rows[0][0]), int(rows[0][1]), bool(rows[0][2])
        where = f"round {rid}'s version of audit entry {finish}"
        if missing:
            return (f"round_versions {rid}", f"{where}: no such round_finish entry on the floor")
        return (f"round_versions {rid}", f"{where}: its settle output is not the one its round_finish entry "
                                         "records (result_sha256 differs)")

    def _stray_rows(self, table: str, rids: tuple[int, int] | None = None) -> tuple[int, bool] | None:
        """A round's rows (events, settlements, rulings, players, versions) on the floor without the
        round, or under another start than the round's (in another month's partition, which the
        parts do not read), of the rounds ``rids`` only if given: the (round, start) pairs the
        children name less the rounds', one pass over each key (no probe per row across the
        months' partitions). (round id, whether the round is missing altogether), the first."""
        span = " AND round_id BETWEEN %s AND %s" if rids else ""
        children = " UNION ".join(
            f"SELECT round_id, started_at FROM floor.{child} WHERE table_name = %s{span}"
            for child in ("events", "settlements", "rulings", "round_players"))
        params = [table, *rids] if rids else [table]
        rows = self._rows(
            f"SELECT min(round_id) FROM ({children} EXCEPT SELECT round_id, started_at FROM floor.rounds "
            f"WHERE table_name = %s{span}) stray", params * 5)
        found = int(rows[0][0]) if rows and rows[0][0] is not None else None
        version = self._stray_versions(table, rids)
        first = min((r for r in (found, version and version[0]) if r is not None), default=None)
        if first is None:
            return None
        missing = not self._rows("SELECT 1 FROM floor.rounds WHERE table_name = %s AND round_id = %s", (table, first))
        return first, missing

    def _has_chain_formats(self) -> tuple[bool, bool]:
        """Whether floor.rounds (0015) and floor.audit (0016) record each row's chain format."""
        row = self._rows("SELECT " + ", ".join(
            f"EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '{relation}'::regclass "
            "AND attname = 'chain_format' AND NOT attisdropped)" for relation in ("floor.rounds", "floor.audit")))[0]
        return bool(row[0]), bool(row[1])

    def _stray_versions(self, table: str, rids: tuple[int, int] | None = None) -> tuple[int, bool] | None:
        """A version (partitioned by its forwarding) of a round not on the floor: (round id, True)."""
        span = " AND v.round_id BETWEEN %s AND %s" if rids else ""
        params = [table, *rids] if rids else [table]
        # a probe per version (a week has tens), not the range's round ids read and excepted
        rows = self._rows(
            f"SELECT min(v.round_id) FROM floor.round_versions v WHERE v.table_name = %s{span} "
            "AND NOT EXISTS (SELECT 1 FROM floor.rounds r WHERE r.table_name = v.table_name "
            "AND r.round_id = v.round_id)", params)
        return (int(rows[0][0]), True) if rows and rows[0][0] is not None else None

    def _child_rows_beyond(self, table: str, lo: int, hi: int) -> bool:
        """Whether ``table`` has an event, settlement, ruling or player row of a round id before
        ``lo`` or after ``hi`` (a whole table's verify: its rounds' ids are lo..hi), in any month:
        a probe at each end of each child's index."""
        rows = self._rows("SELECT " + " OR ".join(
            f"EXISTS (SELECT 1 FROM floor.{child} WHERE table_name = %s AND round_id {op} %s)"
            for child in ("events", "settlements", "rulings", "round_players") for op in ("<", ">")),
            [v for _ in range(4) for v in (table, lo, table, hi)])
        return bool(rows[0][0])

    @staticmethod
    def _check_parts(parts: list[_Part], counts: dict[str, int], first: int = 1) -> tuple[str, str] | None:
        """The parts in forwarding order: each begins where the one before ended (no seq missing
        between them), and the first round a part found wrong is named."""
        expected = first
        for part in parts:
            counts["events"] += part.events
            if not part.rounds:
                continue
            if part.first_seq != expected:
                return (f"rounds {part.first_rid}", f"round {part.first_rid} (floor seq {part.first_seq}): a "
                                                    f"forwarded round before it is missing (expected floor seq {expected})")
            if part.bad is not None:
                rid, floor_seq, before, gap, unlinked, problem, fmt = part.bad
                counts["rounds"] += before
                where = f"round {rid} (floor seq {floor_seq})"
                if gap:
                    return (f"rounds {rid}", f"{where}: a forwarded round before it is missing "
                                             f"(expected floor seq {part.first_seq + before})")
                if unlinked and fmt == chain.FORMAT_2:  # its derived rows are chained with it
                    return (f"rounds {rid}", f"{where}: its content, its events, its settlements, rulings or "
                                             "players, or the round before it differ from what was forwarded "
                                             "(floor link does not match; chain format 2)")
                if unlinked:
                    return (f"rounds {rid}", f"{where}: its content, its events or the round before it "
                                             "differ from what was forwarded (floor link does not match)")
                return (f"rounds {rid}", f"{where}: {problem}")
            counts["rounds"] += part.rounds
            expected = part.last_seq + 1
        return None

    def _verify_audit(self, table: str, max_audit: int, min_audit: int = 1,
                      prev: bytes = chain.ZERO, formats: bool = False) -> tuple[tuple[str, str] | None, int]:
        # the server digests each entry's content (chain.AUDIT_DIGEST_SQL, or AUDIT2_DIGEST_SQL for
        # an entry of audit format 2, recorded since 0016: ``formats``) and checks its link against
        # the stored link of the entry before it (``prev`` for the first): the first that fails
        # comes back, with the count
        try:
            with self._part_connection() as conn:
                # the table's entries by the primary key's range, in audit id order (the lag()'s):
                # costed as cached reads (the part connection's random_page_cost), no pass over
                # the whole month's audit of every table and no sort
                row = conn.execute(_AUDIT_LINKED_SQL.format(digest=_AUDIT_EITHER if formats else chain.AUDIT_DIGEST_SQL), {"table": table, "lo": min_audit, "hi": max_audit,
                                                       "prev": prev}).fetchone()
        except psycopg.Error as err:
            raise FloorError(f"{safe_url(self.read_url)}: {describe_error(err)}") from None
        assert row is not None
        count, aid, kind = int(row[0]), row[1], row[2]
        if aid is not None:
            return (f"audit {aid}", f"audit entry {aid} ({kind}): its content or the entry before "
                                    "it differ from what was forwarded (floor link does not match)"), count
        return None, count


#: A verify's time range when open at either end.
_EARLIEST, _LATEST = _dt.datetime(1, 1, 1, tzinfo=_dt.UTC), _dt.datetime(9999, 1, 1, tzinfo=_dt.UTC)

#: How many connections digest one table's rounds at once (the server does the work).
VERIFY_PARTS = 2
#: An audit entry's digest and link check against a round's (its events, derived rows and
#: link), on one core: a week's 12,961 entries took 53-63 ms and its rounds 29-35 µs each (the
#: bench's floor of 2.16 M rounds, 1 Dec 2026; 0.12 and 0.15 tried: the first part's audit
#: walk ended up to 30 ms after, or 12 ms before, the second part).
AUDIT_ENTRY_WEIGHT = 0.14


def verify_split(seq_lo: int, seq_hi: int, audit_entries: int, parts: int | None = None) -> list[tuple[int, int]]:
    """The seqs ``seq_lo``..``seq_hi`` in ``parts`` (default VERIFY_PARTS) runs, in order, each a
    part's work on a core of its own: the first has fewer rounds by the audit chain's weight
    (its connection walks the audit chain after them), so all end about together."""
    parts = parts or VERIFY_PARTS
    rounds = max(0, seq_hi - seq_lo + 1)
    if not rounds:
        return []
    share = (rounds + AUDIT_ENTRY_WEIGHT * audit_entries) / parts
    first = rounds if parts == 1 else max(1, min(rounds, round(share - AUDIT_ENTRY_WEIGHT * audit_entries)))
    ranges = [(seq_lo, seq_lo + first - 1)]
    rest, lo = rounds - first, seq_lo + first
    for k in range(parts - 1, 0, -1):
        size = -(-rest // k)
        if size:
            ranges.append((lo, lo + size - 1))
        rest, lo = rest - size, lo + size
    return ranges


class _Part(NamedTuple):
    """What a verify part found: its rounds and events, its first round (seq, id) and last seq,
    the first round it found wrong: (round id, floor seq, rounds before it in the part, a seq
    missing before it, its link does not match, the first derived-row check it fails or None,
    its chain format), how many child rows its rounds have under their own starts, in every month
    (None: a round of format 1, or a child row under another start), and its round ids if they
    are one run with no id missing (whose child rows it then read, every one)."""

    rounds: int
    events: int
    first_seq: int
    first_rid: int
    last_seq: int
    bad: tuple[int, int, int, bool, bool, str | None, int] | None
    rows: int | None  # its rounds' child rows, all under their round's start (None: not known so)
    tile: tuple[int, int] | None  # its round ids, one run with none missing (None: not so)


# The links in the server: each round's floor link must be sha256(the stored link of the round
# before it + its content digest), the part's first continuing from %(prev)s (the range's) or the
# stored link of seq lo - 1 (the part before checks that one); a seq missing inside the part marks
# the round after it. Only the first round that fails is sent back (no row per round to Python).
_LINKED_SQL = (
    "SELECT count(*), sum(n), CASE WHEN bool_and(m IS NOT NULL) THEN sum(m) END, min(floor_seq), "
    "min(round_id) FILTER (WHERE k = 1), max(floor_seq), (array_agg(ARRAY[round_id, floor_seq, k - 1, gap::int, "
    "unlinked::int, fmt, c1::int, c2::int, c3::int, c4::int, c5::int] ORDER BY floor_seq) "
    "FILTER (WHERE gap OR unlinked OR NOT (c1 AND c2 AND c3 AND c4 AND c5)))[1:1] FROM (SELECT w.*, "
    "w.floor_seq <> w.first_seq + w.k - 1 AS gap, sha256(coalesce(w.prev, %(prev)s::bytea, (SELECT p.floor_link "
    "FROM floor.rounds p WHERE p.table_name = %(table)s AND p.floor_seq = %(lo)s - 1), decode(repeat('00', 32), "
    "'hex')) || w.digest) IS DISTINCT FROM w.floor_link AS unlinked FROM (SELECT d.*, row_number() OVER o AS k, "
    "first_value(d.floor_seq) OVER o AS first_seq, lag(d.floor_link) OVER o AS prev "
    "FROM ({digests}) d(round_id, floor_seq, floor_link, digest, n, c1, c2, c3, c4, c5, m, fmt) "
    "WINDOW o AS (ORDER BY d.floor_seq)) w) x"
)

# The audit chain likewise: each entry's link against the stored link of the entry before it.
_AUDIT_LINKED_SQL = (
    "SELECT count(*), (array_agg(a.audit_id ORDER BY a.audit_id) FILTER (WHERE a.unlinked))[1], "
    "(array_agg(a.kind ORDER BY a.audit_id) FILTER (WHERE a.unlinked))[1] FROM (SELECT a.audit_id, a.kind, "
    "sha256(coalesce(lag(a.floor_link) OVER (ORDER BY a.audit_id), %(prev)s::bytea) || a.digest) "
    "IS DISTINCT FROM a.floor_link AS unlinked FROM (SELECT a.audit_id, a.kind, a.floor_link, "
    "{digest} AS digest FROM floor.audit a WHERE a.table_name = %(table)s "
    "AND a.audit_id BETWEEN %(lo)s AND %(hi)s) a) a"
)
#: An entry's digest in its recorded audit format (0016: NULL is format 1). A format changed is a
#: link that does not match: format 2's text starts with "2", format 1's with "[".
_AUDIT_EITHER = f"CASE WHEN a.chain_format = 2 THEN {chain.AUDIT2_DIGEST_SQL} ELSE {chain.AUDIT_DIGEST_SQL} END"

#: The derived rows of each round against its settle output, in the server (one pass).
_CHECK_TEXTS = (
    "its settlement rows differ from its settle output",
    "its ruling rows differ from its settle output",
    "a player's net differs from its settle output",
    "its wagered or house net differs from its settle output",
    "its totals differ from its settle output",
)
# Set-based: the part's rounds are read once (their settle output parsed once, into ``r``), and
# each child table is read in one index range over the part's round ids (and its rounds' months).
# The settlements and rulings are compared with the settle output's row by row, as sets: a full
# join on (round, index), so a row missing, extra, moved to another index or altered marks its
# round (no per-round object or sort); the players' nets likewise; the wagered and house net are
# the sums over the settle output's settlements. The events' text is aggregated from a subquery in
# (round, seq) order (the primary key's): a round's text in any other order would not match its
# floor link (a reported difference, never a pass).
_CHILD = ("WHERE {a}.table_name = %(table)s AND {a}.round_id BETWEEN %(rlo)s AND %(rhi)s "
          "AND {a}.started_at BETWEEN %(slo)s AND %(shi)s")
_ROUND_CHECKS_SQL = (
    "WITH r AS MATERIALIZED (SELECT r.*, coalesce(r.result_json, '{}')::jsonb AS res FROM floor.rounds r "
    "WHERE r.table_name = %(table)s AND r.floor_seq BETWEEN %(lo)s AND %(hi)s "
    "AND r.round_id BETWEEN %(rlo)s AND %(rhi)s), "
    # the settle output's settlements and rulings, one row each (index from 0, as forwarded)
    "so AS MATERIALIZED (SELECT r.round_id, j.n - 1 AS idx, j.e ->> 'player' AS player, j.e ->> 'bet' AS bet, "
    "j.e ->> 'result' AS result, (j.e ->> 'stake')::numeric AS stake, (j.e ->> 'net')::numeric AS net FROM r, "
    "jsonb_array_elements(coalesce(r.res -> 'settlements', '[]')) WITH ORDINALITY j(e, n)), "
    "uo AS (SELECT r.round_id, j.n - 1 AS idx, coalesce(j.e ->> 'rule', '') AS rule, coalesce(j.e ->> 'text', '') AS text "
    "FROM r, jsonb_array_elements(coalesce(r.res -> 'rulings', '[]')) WITH ORDINALITY j(e, n)), "
    "bad_st AS (SELECT coalesce(a.round_id, b.round_id) AS round_id FROM "
    f"(SELECT s.round_id, s.idx, s.player, s.bet, s.result, s.stake, s.net FROM floor.settlements s {_CHILD.format(a='s')}) a "
    "FULL JOIN so b ON a.round_id = b.round_id AND a.idx = b.idx WHERE a.round_id IS NULL OR b.round_id IS NULL "
    "OR (a.player, a.bet, a.result, a.stake, a.net) IS DISTINCT FROM (b.player, b.bet, b.result, b.stake, b.net)), "
    "bad_ru AS (SELECT coalesce(a.round_id, b.round_id) AS round_id FROM "
    f"(SELECT u.round_id, u.idx, coalesce(u.rule, '') AS rule, coalesce(u.text, '') AS text FROM floor.rulings u {_CHILD.format(a='u')}) a "
    "FULL JOIN uo b ON a.round_id = b.round_id AND a.idx = b.idx WHERE a.round_id IS NULL OR b.round_id IS NULL "
    "OR (a.rule, a.text) IS DISTINCT FROM (b.rule, b.text)), "
    # each player's net, where the settle output gives one
    f"bad_pl AS (SELECT q.round_id FROM floor.round_players q JOIN r ON r.round_id = q.round_id {_CHILD.format(a='q')} "
    "AND r.res -> 'net' ? q.player AND (q.net IS NULL OR q.net IS DISTINCT FROM (r.res -> 'net' ->> q.player)::numeric)), "
    "sums AS (SELECT so.round_id, sum(so.stake) AS stakes, sum(so.net) AS nets FROM so GROUP BY so.round_id) "
    f"SELECT r.round_id, r.floor_seq, r.floor_link, sha256(convert_to({chain.ROUND_FIELDS_SQL} "
    "|| coalesce(ev.text, ''), 'UTF8')), coalesce(ev.n, 0), "
    "r.round_id NOT IN (SELECT round_id FROM bad_st), r.round_id NOT IN (SELECT round_id FROM bad_ru), "
    "r.round_id NOT IN (SELECT round_id FROM bad_pl), "
    "r.wagered = coalesce(sm.stakes, 0) AND r.house_net = -coalesce(sm.nets, 0), "
    "r.totals_json::jsonb = coalesce(r.res -> 'net', '{}'::jsonb), NULL::bigint "
    "FROM r LEFT JOIN sums sm ON sm.round_id = r.round_id "
    "LEFT JOIN (SELECT e.round_id, string_agg(e.x, '') AS text, count(*) AS n FROM (SELECT e.round_id, "
    f"{chain.EVENT_FIELDS_SQL} AS x FROM floor.events e {_CHILD.format(a='e')} ORDER BY e.round_id, e.seq) e "
    "GROUP BY e.round_id) ev ON ev.round_id = r.round_id"
)

# (where a part with rounds of both formats restricts the format-1 query to its own)
_FORMAT_FILTER = " AND r.round_id BETWEEN %(rlo)s AND %(rhi)s), "
assert _ROUND_CHECKS_SQL.count(_FORMAT_FILTER) == 1

# A format-2 part's child rows: those of the part's round ids (rlo..rhi) in every month, so a row
# under another start than its round's is read too (in its round's group: the starts' min and max
# differ, the round's count is NULL) — when the part's ids are one run, every child row of them is
# in a group one of its rounds joins, and the parts' reads together account for every child row
# the stray check must (no count over each child's index beside them). A round's text is of its
# rows under the part's starts (slo..shi) only, as it was when the part read no others: a row added
# under another month's start leaves the round's link matching, and the stray check names it.
_CHILD2 = "WHERE {a}.table_name = %(table)s AND {a}.round_id BETWEEN %(rlo)s AND %(rhi)s"

# Chain format 2 (0015): a round's derived rows were checked against its settle output by the server
# as it arrived (floor.check_derived) and are chained with it, so they are only re-hashed here: each
# child table read once by its index range, each round's rows aggregated in key order (players in
# their names' byte order: COLLATE "C"), the text as chain.round_digest2 writes it.
_ROUND2_SQL = (
    # (r read once, not materialized: its rows come by the round id index in the order the
    # players' and rulings' merge joins take, no copy of the wide rows sorted: a week's part 130 -> 120 ms)
    "WITH r AS (SELECT r.* FROM floor.rounds r WHERE r.table_name = %(table)s "
    "AND r.floor_seq BETWEEN %(lo)s AND %(hi)s AND r.round_id BETWEEN %(rlo)s AND %(rhi)s AND r.chain_format = 2) "
    f"SELECT r.round_id, r.floor_seq, r.floor_link, sha256(convert_to({chain.ROUND2_FIELDS_SQL} "
    "|| coalesce(ev.text, '') || chr(29) || coalesce(st.text, '') || chr(29) || coalesce(ru.text, '') || chr(29) "
    "|| coalesce(pl.text, ''), 'UTF8')), coalesce(ev.n, 0), true, true, true, true, true, "
    # the round's child rows, if all are under its own start (else NULL: the stray check compares them)
    + " + ".join(f"CASE WHEN {c}.n IS NULL THEN 0 WHEN {c}.s0 = r.started_at AND {c}.s1 = r.started_at THEN {c}.n "
                 "END" for c in ("ev", "st", "ru", "pl")) + " "
    "FROM r LEFT JOIN (SELECT e.round_id, string_agg(e.x, '') FILTER (WHERE e.started_at BETWEEN %(slo)s AND %(shi)s) AS text, count(*) AS n, min(e.started_at) AS s0, "
    "max(e.started_at) AS s1 FROM (SELECT e.round_id, e.started_at, "
    f"{chain.EVENT2_FIELDS_SQL} AS x FROM floor.events e {_CHILD2.format(a='e')} ORDER BY e.round_id, e.seq) e "
    "GROUP BY e.round_id) ev ON ev.round_id = r.round_id "
    "LEFT JOIN (SELECT s.round_id, string_agg(s.x, '') FILTER (WHERE s.started_at BETWEEN %(slo)s AND %(shi)s) AS text, count(*) AS n, min(s.started_at) AS s0, "
    "max(s.started_at) AS s1 FROM (SELECT s.round_id, s.started_at, "
    f"{chain.SETTLEMENT2_FIELDS_SQL} AS x FROM floor.settlements s {_CHILD2.format(a='s')} ORDER BY s.round_id, s.idx) s "
    "GROUP BY s.round_id) st ON st.round_id = r.round_id "
    "LEFT JOIN (SELECT u.round_id, string_agg(u.x, '') FILTER (WHERE u.started_at BETWEEN %(slo)s AND %(shi)s) AS text, count(*) AS n, min(u.started_at) AS s0, "
    "max(u.started_at) AS s1 FROM (SELECT u.round_id, u.started_at, "
    f"{chain.RULING2_FIELDS_SQL} AS x FROM floor.rulings u {_CHILD2.format(a='u')} ORDER BY u.round_id, u.idx) u "
    "GROUP BY u.round_id) ru ON ru.round_id = r.round_id "
    # the players in their names' byte order, sorted once for the part (an ORDER BY inside the
    # aggregate sorts each round's few rows on their own: twice the time)
    "LEFT JOIN (SELECT q.round_id, string_agg(q.x, '') FILTER (WHERE q.started_at BETWEEN %(slo)s AND %(shi)s) AS text, count(*) AS n, min(q.started_at) AS s0, "
    "max(q.started_at) AS s1 FROM (SELECT q.round_id, q.started_at, "
    f"{chain.PLAYER2_FIELDS_SQL} AS x FROM floor.round_players q {_CHILD2.format(a='q')} "
    "ORDER BY q.round_id, q.player COLLATE \"C\") q GROUP BY q.round_id) pl ON pl.round_id = r.round_id"
)
