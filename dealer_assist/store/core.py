"""The :class:`Store`: one table's store file, opened for writing or for reading."""

from __future__ import annotations

import datetime as _dt
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar, cast
from urllib.request import pathname2url

import dealer_assist.store.credits as credits
import dealer_assist.store.identity as identity
import dealer_assist.store.log as log
import dealer_assist.store.queries as queries
import dealer_assist.store.results as results
import dealer_assist.store.users as user_records
from dealer_assist.store.audit import AuditEntry, audit_entries, insert_audit
from dealer_assist.store.authority import check_accounts_approval, unauthorised_events, use_approval
from dealer_assist.store.common import (
    BUSY_TIMEOUT_MS,
    DEFAULT_TABLE,
    LOCK_WAIT_SECONDS,
    StoreError,
    canonical_json,
    default_db_path,
    format_time,
    utc_now,
)
from dealer_assist.store.credits import BUY_IN_KIND, CASH_OUT_KIND, RESULT_KIND, UNRECONCILED_KIND
from dealer_assist.store.keying import key_store, meta_value, record_head
from dealer_assist.store.keys import (
    Head,
    KeyedConnection,
    chain_key,
    head_path_for,
    key_id,
    key_path_for,
    load_key,
    write_head_file,
)
from dealer_assist.store.records import OpenRound, RoundDetail, RoundSummary
from dealer_assist.store.schema import (
    KNOWN_MIGRATIONS,
    MIGRATIONS,
    applied_migrations,
    check_identity,
    check_sqlite_header,
    closed_on_failure,
    connect,
)
from dealer_assist.store.sqlite_lib import Database
from dealer_assist.store.states import session_state
from dealer_assist.store.users import PIN_COST, PinCheck, PinCost
from dealer_assist.store.verify import VerifyResult, verify
from dealer_assist.store.withdrawal import withdraw_last

__all__ = ["Store", "record_transcript"]

T = TypeVar("T")


def waiting_out_locks(step: Callable[[], T], wait_seconds: float = LOCK_WAIT_SECONDS) -> T:
    """``step()``, tried again while another process holds the file ("database is locked":
    each try waits the busy timeout, then backing off) for up to ``wait_seconds`` in all;
    any other error at once: a write's BEGIN and COMMIT (:meth:`Store._patiently`) and the
    open's first reads (tests/store/test_concurrency.py)."""
    deadline = time.monotonic() + wait_seconds
    pause = 0.005
    while True:
        try:
            return step()
        except sqlite3.OperationalError as err:
            text = str(err).lower()
            if not ("locked" in text or "busy" in text) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.25)


class Store:
    """One table's store file. Create with :meth:`open` (writer) or :meth:`open_readonly`.

    A writing Store may be used from several threads (calls are serialised by a lock);
    the table's screen writes from one thread. Readers use their own Store.
    """

    def __init__(
        self,
        conn: KeyedConnection,
        path: Path,
        readonly: bool,
        table: str = DEFAULT_TABLE,
        pin_cost: PinCost = PIN_COST,
    ) -> None:
        self._conn = conn
        self.lock_wait_seconds = LOCK_WAIT_SECONDS
        #: scrypt cost of new PIN hashes: PIN_COST, unless a test passed TEST_PIN_COST.
        self.pin_cost = pin_cost
        self.key_path = key_path_for(path)
        self.head_path = head_path_for(self.key_path)
        self.head_error = ""  # the last failure to write the head record outside the file
        # fsync the head file on every commit; the station service turns it off: its own
        # round anchor (fsynced at each round's start and end) is the durable lower bound,
        # and one fsync less per card halves a card's latency on a slow disk
        self.head_sync = True
        self.path = path
        self.table = table  # the table this Store writes for (sessions, restore)
        self.readonly = readonly
        self._lock = threading.RLock()
        self.db = Database(conn, execute_plugins=False, recursive_triggers=False)

    # ---- opening

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        table: str = DEFAULT_TABLE,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        key_file: str | os.PathLike[str] | None = None,
        pin_cost: PinCost = PIN_COST,
    ) -> Store:
        """Open (creating and migrating if needed) the store at ``path`` for writing.

        ``path`` None means :func:`default_db_path` (``table``). ``table`` names the table
        this Store writes for: its sessions carry the name and :meth:`find_open_round`
        restores only that table's round. ``key_file``: the station key (default
        ``<store>.key``, or ``$DEALER_ASSIST_STORE_KEY``), created with a new store. Refuses a file that is
        not SQLite or is another program's SQLite database (StoreError), without
        changing it. ``pin_cost`` is for tests only (``TEST_PIN_COST``): the application
        never passes it.
        """
        db_path = Path(path) if path is not None else default_db_path(table)
        if db_path.exists():
            check_sqlite_header(db_path, allow_empty=True)
        else:
            db_path.parent.mkdir(parents=True, exist_ok=True)
        conn = connect(str(db_path), db_path, uri=False, busy_timeout_ms=busy_timeout_ms)
        with closed_on_failure(conn, db_path):
            # another process opening or closing the file may hold it for a moment: waited out
            # as a write is (_patiently), never a store refused to open for it
            waiting_out_locks(lambda: check_identity(conn, db_path, allow_new=True))
            old_level = conn.isolation_level
            conn.isolation_level = None  # PRAGMA journal_mode needs autocommit
            mode = waiting_out_locks(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
            conn.isolation_level = old_level
            if str(mode).lower() != "wal":
                raise StoreError(f"cannot put {db_path} in WAL mode (got {mode})")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA fullfsync = ON")
            conn.execute("PRAGMA foreign_keys = ON")
            store = cls(conn, db_path, readonly=False, table=table, pin_cost=pin_cost)
            store._use_key(key_file)
            store._migrate()
            store._reconcile_table()
        return store

    def _reconcile_table(self) -> None:
        """A named store (issue 18) writes its sessions under its own name: opened for the
        default table it takes the name; opened for another table it is refused."""
        with self._read() as conn:
            named = identity.table_identity(conn)
        if named is None or self.table == named[0]:
            return
        if self.table != DEFAULT_TABLE:
            raise StoreError(f"{self.path} is the store of table {named[0]}, not {self.table}")
        self.table = named[0]

    @classmethod
    def open_readonly(
        cls, path: str | os.PathLike[str], *, key_file: str | os.PathLike[str] | None = None
    ) -> Store:
        """Open an existing store for reading only (``mode=ro``); never creates or changes it.
        The station key is read if it is there (``verify`` needs it)."""
        db_path = Path(path)
        try:
            is_file = db_path.is_file()
        except PermissionError:  # a directory on the way this account may not enter (a station's)
            raise StoreError(f"cannot read {db_path}: permission denied") from None
        if not is_file:
            raise StoreError(f"{db_path}: no such file" if not db_path.exists() else f"{db_path}: not a file")
        check_sqlite_header(db_path, allow_empty=False)
        uri = "file:" + pathname2url(str(db_path.resolve())) + "?mode=ro"
        conn = connect(uri, db_path, uri=True)
        with closed_on_failure(conn, db_path):
            conn.execute("PRAGMA query_only = ON")
            check_identity(conn, db_path, allow_new=False)
            store = cls(conn, db_path, readonly=True)
            store._use_key(key_file)
            applied = applied_migrations(store.db, db_path)
            if not applied:
                raise StoreError(f"{db_path} is not a Dealer Assist database")
        return store

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def station_key(self) -> bytes | None:
        """The station key the chains are keyed with, if this Store could read it."""
        return self._conn.chain_key or None

    def _use_key(self, key_file: str | os.PathLike[str] | None) -> None:
        self.key_path = key_path_for(self.path, key_file)
        self.head_path = head_path_for(self.key_path)
        key = load_key(self.key_path, create=False)
        if key is not None:
            self._conn.chain_key = key

    def _migrate(self) -> None:
        applied = applied_migrations(self.db, self.path)
        keyed = "0004_keyed_chains" in applied and self._meta("chain_scheme") is not None
        if len(applied) == len(KNOWN_MIGRATIONS) and keyed:
            self._check_key()
            return
        # Take the write lock first, so two processes opening a new file do not race;
        # sqlite-utils nests each migration in a savepoint of this transaction.
        with self._write(head=False) as conn:
            MIGRATIONS.apply(self.db)
            if meta_value(conn, "chain_scheme") is None:
                if not self._conn.chain_key:
                    key = load_key(self.key_path, create=True)
                    assert key is not None
                    self._conn.chain_key = key
                key_store(conn, self._conn.chain_key)
            self._check_key()
            head = record_head(conn, self._conn.chain_key)
        self._write_head_file(head)

    def _meta(self, name: str) -> str | None:
        try:
            return meta_value(self._conn, name)
        except sqlite3.OperationalError:  # no meta table yet
            return None

    def _check_key(self) -> None:
        """The station key must be the one the chains were keyed with."""
        recorded = self._meta("key_id")
        if not self._conn.chain_key:
            raise StoreError(
                f"the station key {self.key_path} of {self.path} is missing: its records cannot "
                "be written or checked without it"
            )
        if recorded is not None and recorded != key_id(self._conn.chain_key):
            raise StoreError(
                f"{self.key_path} is not the station key of {self.path} "
                f"(the store was keyed with key {recorded})"
            )

    def _write_head_file(self, head: Head) -> None:
        try:
            write_head_file(self.head_path, head, sync=self.head_sync)
            self.head_error = ""
        except StoreError as err:  # the commit stands; verify names the lagging head
            self.head_error = str(err)

    # ---- transactions

    @contextmanager
    def _write(self, *, head: bool = True) -> Iterator[sqlite3.Connection]:
        """One durable write transaction (BEGIN IMMEDIATE ... COMMIT, fsynced), ending with
        this commit's head record (in the file, then beside the key)."""
        if self.readonly:
            raise StoreError(f"{self.path} is open read-only")
        with self._lock:
            conn = self._conn
            self._patiently(conn, "BEGIN IMMEDIATE")
            record: Head | None = None
            try:
                yield conn
                if head:
                    record = record_head(conn, chain_key(conn))
                self._patiently(conn, "COMMIT")
            except BaseException as exc:
                # Nothing of this transaction is kept; the caller must not show it.
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise StoreError(f"cannot write to {self.path}: {exc}") from exc
                raise
            if record is not None:
                self._write_head_file(record)

    def _patiently(self, conn: sqlite3.Connection, statement: str) -> None:
        """Run BEGIN IMMEDIATE or COMMIT, waiting out another writer's lock: each try waits
        the busy timeout, then the try is repeated (backing off) for up to
        ``lock_wait_seconds`` in all. A table is never left refusing events because another
        writer held the file for a while ("database is locked")."""
        try:  # (a failed COMMIT keeps the transaction open: it is retried whole)
            waiting_out_locks(lambda: conn.execute(statement), self.lock_wait_seconds)
        except sqlite3.Error as err:
            raise StoreError(f"cannot write to {self.path}: {err}") from err

    def read_with(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn(connection)`` in one consistent read snapshot, under the Store's lock (for
        :class:`~dealer_assist.store.reader.StoreReader`; ``fn`` must not keep the connection)."""
        with self._read() as conn:
            return fn(conn)

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for multi-statement reads."""
        with self._lock:
            conn = self._conn
            if conn.in_transaction:
                yield conn
                return
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")

    # ---- sessions

    def start_session(
        self,
        *,
        game: str,
        decks: int | None = None,
        areas: int | None = None,
        limits: Mapping[str, Any] | None = None,
        dealer: str | None = None,
    ) -> int:
        """Start a table session; returns its id."""
        with self._write() as conn:
            limits_json = canonical_json(dict(limits or {}))
            cur = conn.execute(
                "INSERT INTO sessions (game, decks, areas, limits_json, dealer, started_at, table_name) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game, decks, areas, limits_json, dealer, utc_now(), self.table),
            )
            session_id = int(cast(int, cur.lastrowid))
            insert_audit(
                conn,
                "session_start",
                dealer or "dealer",
                None,
                {
                    "session_id": session_id,
                    "game": game,
                    "decks": decks,
                    "areas": areas,
                    "limits": dict(limits or {}),
                    "session_state": session_state(conn, session_id),
                },
            )
        return session_id

    def end_session(self, session_id: int, *, actor: str = "dealer") -> None:
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL",
                (utc_now(), session_id),
            )
            if cur.rowcount != 1:
                raise StoreError(f"no open session {session_id}")
            insert_audit(
                conn,
                "session_end",
                actor,
                None,
                {"session_id": session_id, "session_state": session_state(conn, session_id)},
            )

    def current_session(self) -> dict[str, Any] | None:
        """The latest session that has not ended, as a dict, or None."""
        with self._read() as conn:
            row = conn.execute(
                "SELECT id, game, decks, areas, limits_json, dealer, started_at FROM sessions "
                "WHERE ended_at IS NULL ORDER BY id DESC LIMIT 1"
            ).fetchone()
        if row is None:
            return None
        return {
            "id": row[0],
            "game": row[1],
            "decks": row[2],
            "areas": row[3],
            "limits": json.loads(row[4]),
            "dealer": row[5],
            "started_at": row[6],
        }

    # ---- rounds (live)

    # ---- rounds (live)

    def begin_round(
        self,
        config: Mapping[str, Any],
        *,
        session_id: int | None = None,
        number: int | None = None,
    ) -> int:
        """Record a new live round with its configuration (the transcript header); returns its id.

        ``number`` defaults to the next number in the session.
        """
        with self._write() as conn:
            return log.insert_round(conn, config, session_id, number, "live", None)

    def start_round(
        self,
        config: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]],
        *,
        session_id: int | None = None,
        actor: str = "dealer",
        result: Mapping[str, Any] | None = None,
        approval: int | None = None,
        under_min: Sequence[str] | None = None,
        actors: Sequence[str] | None = None,
    ) -> int:
        """Record a new live round with its first events (the betting slip and *no more
        bets*, or a void) in one durable transaction; returns its id.
        ``actors``: each event's own actor, in order (a wager a Player Terminal placed is
        ``terminal:SEAT``'s, 1.1.10); none: ``actor`` for every event.

        A crash leaves either the whole start or nothing: never a round in betting with
        some of its wagers. ``result``: the round is already over (e.g. void before any
        card) and this is its settle output, recorded in the same transaction.
        ``approval``: the supervisor's, for the one event among them that needs it (a
        void before *no more bets*); the store refuses such an event without it.
        """
        if actors is not None and len(actors) != len(events):
            raise StoreError(f"{len(events)} events need as many actors, not {len(actors)}")
        now = _dt.datetime.now(_dt.UTC)
        with self._write() as conn:
            round_id = log.insert_round(conn, config, session_id, None, "live", None)
            for seq, event in enumerate(events):
                use_approval(conn, approval, event, round_id, seq, now)
                log.insert_event(conn, round_id, seq, event, actor if actors is None else actors[seq], None)
            if result is not None:
                results.finish(conn, round_id, result, actor, under_min)
            return round_id

    def append_event(
        self,
        round_id: int,
        event: Mapping[str, Any],
        *,
        actor: str = "dealer",
        at: str | None = None,
        approval: int | None = None,
        result: Mapping[str, Any] | None = None,
    ) -> int:
        """Append one event to a round's log, durably; returns its seq (0-based index).

        Returns only after the commit is on disk. The engine decides whether an event
        is accepted; call this for accepted events, before the screen shows them.
        A void, a resolve, a correction and a pit manager's pick are refused
        (StoreError) without a supervisor's ``approval`` (:meth:`authorise`); see
        :mod:`dealer_assist.store.authority`.
        ``result``: this event ends the round and this is its settle output; the event,
        the output and its finish record are written in one transaction.
        """
        return self.append_events(round_id, [event], actor=actor, at=at, approval=approval, result=result)

    def append_events(
        self,
        round_id: int,
        events: Sequence[Mapping[str, Any]],
        *,
        actor: str = "dealer",
        at: str | None = None,
        approval: int | None = None,
        result: Mapping[str, Any] | None = None,
        under_min: Sequence[str] | None = None,
    ) -> int:
        """Append several events (a decision and the card it took: ``hit`` + ``card``) in one
        durable transaction, so that a crash keeps both or neither; returns the last seq.
        ``approval`` and ``result``: as :meth:`append_event` (an approval covers one event);
        ``under_min``: with a result, the players the round settled an under-minimum wager
        for the first time (5.26), as the table session knows them."""
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM rounds WHERE id = ?", (round_id,)).fetchone() is None:
                raise StoreError(f"no round {round_id}")
            row = conn.execute(
                "SELECT MAX(seq) FROM events WHERE round_id = ?", (round_id,)
            ).fetchone()
            seq = -1 if row[0] is None else int(row[0])
            now = _dt.datetime.now(_dt.UTC)
            for event in events:
                seq += 1
                use_approval(conn, approval, event, round_id, seq, now)
                log.insert_event(conn, round_id, seq, event, actor, at)
            if result is not None:
                results.finish(conn, round_id, result, actor, under_min)
        return seq

    def withdraw_events(
        self, round_id: int, count: int, *, actor: str, reason: str, approval: int | None = None,
    ) -> int:
        """Undo: take the round's last ``count`` events back out of its list, durably, and
        audit what left and by whom (``event_withdrawn``); returns the audit id. ``approval``:
        a supervisor's ``undo`` approval (:meth:`authorise`) when they take back more than
        the dealer may. StoreError, nothing changed, if refused (see
        :mod:`dealer_assist.store.withdrawal`)."""
        with self._write() as conn:
            return withdraw_last(conn, round_id, count, actor, approval, reason, _dt.datetime.now(_dt.UTC))

    def finish_round(
        self, round_id: int, result: Mapping[str, Any], *, actor: str = "dealer",
        under_min: Sequence[str] | None = None,
    ) -> None:
        """Record the settle output of a round (status, settlements, rulings, net).

        May be called again (e.g. a referred round later resolved, or a 5.7 card after
        settlement): derived records are replaced and a new ``round_finish`` audit row
        is chained. Updates the under-minimum history (5.26) with ``under_min``, the names
        the table session learnt from the round (``Step.under_min``); a caller with no
        session (an import, a test) leaves it None and the store derives them.
        """
        with self._write() as conn:
            results.finish(conn, round_id, result, actor, under_min)

    def find_open_round(self) -> OpenRound | None:
        """This table's latest live round that has not ended (in progress or referred), for
        recovery; never another table's round (a round without a session counts as the
        default table's)."""
        with self._read() as conn:
            ids = log.open_round_ids(conn, self.table, latest_only=True)
            return log.open_round(conn, ids[0]) if ids else None

    def latest_round(self) -> OpenRound | None:
        """This table's latest live round, ended or not (its header names the shoe it was
        dealt from: the next round after a restart goes on with that shoe)."""
        with self._read() as conn:
            ids = log.latest_round_ids(conn, self.table)
            return log.open_round(conn, ids[0]) if ids else None

    def latest_round_id(self, *, before: int | None = None) -> int | None:
        """The id of this table's latest live round, ended or not (None: it has none), or of
        its latest before round ``before``."""
        with self._read() as conn:
            ids = log.latest_round_ids(conn, self.table, before=before)
            return ids[0] if ids else None

    def open_rounds(self) -> list[OpenRound]:
        """Every live round of this table that has not ended, oldest first."""
        with self._read() as conn:
            return [log.open_round(conn, i) for i in log.open_round_ids(conn, self.table)]

    def events(self, round_id: int) -> list[dict[str, Any]]:
        """The round's events in order, as JSON objects."""
        with self._read() as conn:
            return log.round_events(conn, round_id)

    def record_document(
        self, document: Mapping[str, Any], result: Mapping[str, Any], *, actor: str = "transcript"
    ) -> int:
        """Record a whole transcript and its settle output in one transaction; returns the round id."""
        if not isinstance(document, Mapping):
            raise StoreError("a transcript is a JSON object")
        events = document.get("events", [])
        if not isinstance(events, list):
            raise StoreError("a transcript's 'events' is a list")
        config = {k: v for k, v in document.items() if k != "events"}
        needing = unauthorised_events(events)
        if needing:
            # Issue 15 item 8: a transcript carries no supervisor's authority.
            raise StoreError(
                f"{', '.join(needing)} needs a supervisor's approval, which a transcript does not "
                "carry: not recorded (settle it without --record)"
            )
        with self._write() as conn:
            round_id = log.insert_round(conn, config, None, None, "transcript", None)
            for seq, event in enumerate(events):
                log.insert_event(conn, round_id, seq, event, actor, None)
            results.finish(conn, round_id, result, actor)
        return round_id

    # ---- queries

    def list_rounds(
        self,
        *,
        player: str | None = None,
        since: str | None = None,
        until: str | None = None,
        status: str | None = None,
        irregular: bool | None = None,
        limit: int | None = 100,
        before_id: int | None = None,
    ) -> list[RoundSummary]:
        """Rounds, latest first, filtered. ``since`` inclusive / ``until`` exclusive are
        times in the stored format (see :func:`format_time`); ``before_id`` pages back."""
        with self._read() as conn:
            return queries.list_rounds(
                conn,
                player=player,
                since=since,
                until=until,
                status=status,
                irregular=irregular,
                limit=limit,
                before_id=before_id,
            )

    def get_round(self, round_id: int) -> RoundDetail | None:
        """Everything recorded about one round, or None."""
        with self._read() as conn:
            return queries.get_round(conn, round_id)

    def export_round(self, round_id: int) -> dict[str, Any]:
        """The round as a transcript document (header fields, then ``events``) for ``settle``."""
        with self._read() as conn:
            return log.export_round(conn, round_id)

    # ---- table identity (issue 18)

    def table_identity(self) -> tuple[str, str | None] | None:
        """(table name, pit) this store belongs to, or None for a store made before names."""
        with self._read() as conn:
            return identity.table_identity(conn)

    def claim_table(self, table: str, pit: str | None = None, *, actor: str = "setup") -> None:
        """Make this the store of ``table`` (in ``pit``), or check that it already is.

        A store with no table yet takes the name (chained in the audit log as
        ``table_identity``); a store of another table, or of the same table in another pit,
        is refused (StoreError).
        """
        with self._write() as conn:
            # the sessions' table names (issue 15) must agree: one store belongs to one table
            others = [str(r[0]) for r in conn.execute(
                "SELECT DISTINCT table_name FROM sessions WHERE table_name NOT IN (?, ?) ORDER BY table_name",
                (DEFAULT_TABLE, table))]
            if others:
                raise StoreError(f"{self.path} holds sessions of table {', '.join(others)}: "
                                 f"it cannot become the store of table {table}")
            if identity.table_identity(conn) is None and self.table not in (DEFAULT_TABLE, table):
                raise StoreError(f"{self.path} is open for table {self.table}, not {table}")
            identity.claim_table(conn, self.path, table, pit, actor)
        self.table = table  # its sessions from now on carry the name

    def round_count(self) -> int:
        with self._read() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM rounds").fetchone()[0])

    def under_min_players(self) -> list[str]:
        """Players who already had an under-minimum wager settled at this table (5.26)."""
        with self._read() as conn:
            return [
                r[0] for r in conn.execute("SELECT player FROM under_min_history ORDER BY player")
            ]

    # ---- users and PINs (dealer_assist.store.users: policy, lockout)

    def create_user(
        self,
        username: str,
        pin: str,
        roles: Iterable[str],
        *,
        actor: str = "admin",
        must_change: bool = False,
    ) -> None:
        """Create a user with a PIN (stored only as a salted scrypt hash) and roles.

        The low-level call (tests, tools); at a station accounts are made by
        :meth:`enrol_supervisor` and :meth:`add_account`.
        """
        role_list = user_records.checked_roles(username, roles)
        digest, salt = user_records.new_pin_hash(pin, self.pin_cost)
        with self._write() as conn:
            user_records.insert_user(
                conn, username, digest, salt, self.pin_cost, role_list, actor, must_change=must_change
            )

    def set_pin(self, username: str, pin: str, *, actor: str = "admin") -> None:
        digest, salt = user_records.new_pin_hash(pin, self.pin_cost)
        with self._write() as conn:
            user_records.update_pin(conn, username, digest, salt, self.pin_cost, actor)

    def set_user_disabled(self, username: str, disabled: bool, *, actor: str = "admin") -> None:
        with self._write() as conn:
            user_records.update_disabled(conn, username, disabled, actor)

    def user_roles(self, username: str) -> list[str]:
        with self._read() as conn:
            return user_records.roles_of(conn, username)

    def users(self) -> list[dict[str, Any]]:
        """Every account: name, roles, disabled, must_change, locked_until."""
        with self._read() as conn:
            return user_records.list_users(conn)

    def needs_enrolment(self) -> bool:
        """True while the store has no active supervisor (a new store's first start)."""
        with self._read() as conn:
            return not user_records.has_active_supervisor(conn)

    def check_pin(
        self,
        username: str,
        pin: str,
        *,
        role: str | None = None,
        purpose: str = "check",
        now: _dt.datetime | None = None,
        audit_locked: bool = True,
    ) -> PinCheck:
        """Check ``pin`` for ``username`` (holding ``role``), with the lockout.

        A locked name is refused without checking the PIN (and without a row). A known
        name's refusal is counted and audited (``login_failed`` for a log-in,
        ``approval_refused`` for an approval, ``pin_refused`` otherwise; ``pin_lockout``
        when a lock starts); an unknown name's costs the same scrypt and writes nothing.
        The last usable supervisor is never locked (users.last_usable_supervisor). A right PIN
        clears the count and answers ``must_change`` when the PIN is shorter than the
        policy or was set by a supervisor; a hash made with a weaker cost is re-hashed.
        ``now``: the time to judge the lock by (tests); the clock otherwise.
        ``audit_locked``: a ``pin_locked`` row for each refusal of a locked name.
        """
        moment = now or _dt.datetime.now(_dt.UTC)
        failed_kind = {"login": "login_failed", "approval": "approval_refused"}.get(purpose, "pin_refused")
        with self._read() as conn:
            until = user_records.locked_until(conn, username, moment)
            record = user_records.pin_record(conn, username, role)
            # never lock (nor keep locked) the supervisor without whom nobody can log in
            spared = record is not None and user_records.last_usable_supervisor(conn, username, moment)
        if until is not None and not spared:
            if audit_locked:  # the station service passes False: it summarises these (a flood)
                with self._write() as conn:
                    insert_audit(conn, "pin_locked", username, None,
                                 {"purpose": purpose, "role": role, "until": until}, format_time(moment))
            return PinCheck(False, "locked", locked_until=until)
        match = user_records.pin_matches(str(pin), record, self.pin_cost)
        if record is None:
            return PinCheck(False, "wrong", known=False)  # an unknown name: the same scrypt, no row
        if not match or not record.has_role or record.disabled:
            with self._write() as conn:
                failures, until = user_records.record_failure(conn, username, moment, lock=not spared)
                # the pin_failures row's whole state, so verify can check the table against it
                insert_audit(conn, failed_kind, username, None,
                             {"purpose": purpose, "role": role, "failures": failures,
                              "locked_until": until}, format_time(moment))
                if until is not None:
                    insert_audit(conn, "pin_lockout", username, None,
                                 {"failures": failures, "until": until}, format_time(moment))
            return PinCheck(False, "wrong", locked_until=until)
        short = len(str(pin)) < user_records.MIN_PIN_DIGITS
        with self._write() as conn:
            if user_records.clear_failures(conn, username):
                insert_audit(conn, "pin_failures_cleared", username, None, {"username": username})
        if short or record.must_change:
            why = (f"Your PIN has fewer than {user_records.MIN_PIN_DIGITS} digits: choose a new one now"
                   if short else "Your PIN was set by a supervisor: choose your own now")
            return PinCheck(False, "must_change", message=why)
        if record.cost.weaker_than(self.pin_cost):
            digest, salt = user_records.new_pin_hash(str(pin), self.pin_cost)
            with self._write() as conn:
                user_records.update_pin(conn, username, digest, salt, self.pin_cost, "store",
                                        kind="pin_rehashed")
        return PinCheck(True)

    def verify_pin(self, username: str, pin: str, *, role: str | None = None) -> bool:
        """True when ``pin`` is the user's PIN (and the user holds ``role``, if given).

        Goes through :meth:`check_pin` (lockout, audit); unknown users cost the same
        scrypt work; comparison is constant-time (hmac.compare_digest).
        """
        return self.check_pin(username, pin, role=role).ok

    def login(self, username: str, pin: str, *, role: str = "dealer") -> bool:
        """Check a PIN for ``role`` and record the login (or the failed attempt) in the audit log."""
        check = self.check_pin(username, pin, role=role, purpose="login")
        if check.ok:
            self.add_audit("login", actor=username, detail={"role": role})
        return check.ok

    def start_shift(self, dealer: str, pin: str) -> PinCheck:
        """A dealer's log-in at the start of a shift (``shift_start`` audited)."""
        check = self.check_pin(dealer, pin, role="dealer", purpose="login")
        if check.ok:
            self.add_audit("shift_start", actor=dealer, detail={"role": "dealer"})
        return check

    def end_shift(self, dealer: str) -> None:
        """The dealer logs out (``shift_end`` audited)."""
        self.add_audit("shift_end", actor=dealer, detail={"role": "dealer"})

    def change_pin(self, username: str, old_pin: str, new_pin: str, *, audit_locked: bool = True) -> PinCheck:
        """The user replaces their PIN (the old one checked, with the lockout)."""
        problem = user_records.new_pin_problem(new_pin)
        if problem:
            return PinCheck(False, "new_pin", message=problem[0].upper() + problem[1:])
        if new_pin == old_pin:
            return PinCheck(False, "new_pin", message="The new PIN must differ from the old one")
        check = self.check_pin(username, old_pin, purpose="change", audit_locked=audit_locked)
        if not check.ok and check.reason != "must_change":
            return check
        digest, salt = user_records.new_pin_hash(new_pin, self.pin_cost)
        with self._write() as conn:
            user_records.update_pin(conn, username, digest, salt, self.pin_cost, username)
        return PinCheck(True)

    def authorise(
        self,
        supervisor: str,
        pin: str,
        *,
        kind: str,
        round_id: int | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> PinCheck:
        """A supervisor's approval of ``kind`` (void, correction, resolve, override,
        accounts, review ...) with their PIN: on success an audit row of ``kind`` whose
        id (``PinCheck.approval``) authorises what it approves (:meth:`append_event`);
        on failure ``approval_refused`` (and the lockout)."""
        check = self.check_pin(supervisor, pin, role="supervisor", purpose="approval")
        if not check.ok:
            return check
        approval = self.add_audit(kind, actor=supervisor, round_id=round_id, detail=detail)
        return PinCheck(True, approval=approval)

    def approve(
        self,
        supervisor: str,
        pin: str,
        *,
        kind: str,
        round_id: int | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> bool:
        """:meth:`authorise`, answering only yes or no."""
        return self.authorise(supervisor, pin, kind=kind, round_id=round_id, detail=detail).ok

    def enrol_supervisor(self, name: str, pin: str) -> int:
        """The first supervisor of a store with none (no dealer is created).

        Returns the ``supervisor_enrolled`` audit id, which serves as an ``accounts``
        approval (the new supervisor adds the dealers next).
        """
        role_list = user_records.checked_roles(name, ["supervisor"])
        digest, salt = user_records.new_pin_hash(pin, self.pin_cost)
        with self._write() as conn:
            if user_records.has_active_supervisor(conn):
                raise StoreError("this store already has a supervisor: accounts are added by a supervisor")
            return user_records.insert_user(
                conn, name, digest, salt, self.pin_cost, role_list, name, kind="supervisor_enrolled"
            )

    def add_account(
        self, name: str, pin: str, roles: Iterable[str], *, approval: int | None, actor: str = ""
    ) -> None:
        """A supervisor adds an account; its PIN must be changed at its first log-in."""
        role_list = user_records.checked_roles(name, roles)
        digest, salt = user_records.new_pin_hash(pin, self.pin_cost)
        with self._write() as conn:
            supervisor = check_accounts_approval(conn, approval, _dt.datetime.now(_dt.UTC))
            user_records.insert_user(conn, name, digest, salt, self.pin_cost, role_list,
                                     actor or f"supervisor:{supervisor}", must_change=True)

    def set_account_disabled(
        self, name: str, disabled: bool, *, approval: int | None, actor: str = ""
    ) -> None:
        """A supervisor disables (or enables again) an account."""
        with self._write() as conn:
            supervisor = check_accounts_approval(conn, approval, _dt.datetime.now(_dt.UTC))
            user_records.update_disabled(conn, name, disabled, actor or f"supervisor:{supervisor}")

    def reset_pin(self, name: str, pin: str, *, approval: int | None, actor: str = "") -> None:
        """A supervisor resets an account's PIN (and its lock); it must be changed at the next log-in."""
        digest, salt = user_records.new_pin_hash(pin, self.pin_cost)
        with self._write() as conn:
            supervisor = check_accounts_approval(conn, approval, _dt.datetime.now(_dt.UTC))
            user_records.update_pin(conn, name, digest, salt, self.pin_cost, actor or f"supervisor:{supervisor}",
                                    must_change=True, kind="pin_reset")

    def clear_lockout(self, name: str, *, approval: int | None) -> bool:
        """Another supervisor clears a name's wrong PINs and its lock (``accounts`` approval);
        True when there was something to clear. A supervisor cannot clear their own."""
        with self._write() as conn:
            supervisor = check_accounts_approval(conn, approval, _dt.datetime.now(_dt.UTC))
            if supervisor == name:
                raise StoreError("another supervisor must clear this lock")
            cleared = user_records.clear_failures(conn, name)
            if cleared:
                insert_audit(conn, "pin_failures_cleared", f"supervisor:{supervisor}", None,
                             {"username": name, "by": supervisor})
            return cleared

    def clear_lockout_by_root(self, name: str) -> bool:
        """Root clears a name's wrong PINs and its lock (``dealer-assist station unlock``),
        audited as root's; True when there was something to clear."""
        with self._write() as conn:
            cleared = user_records.clear_failures(conn, name)
            insert_audit(conn, "pin_failures_cleared", "root", None,
                         {"username": name, "by": "root", "cleared": cleared})
            return cleared

    # ---- audit

    def add_audit(
        self,
        kind: str,
        *,
        actor: str,
        round_id: int | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> int:
        """Append a chained audit entry (login, void, override, supervisor_decision,
        shoe_fault, note, ...); returns its id."""
        if not kind:
            raise StoreError("an audit entry needs a kind")
        with self._write() as conn:
            return insert_audit(conn, kind, actor, round_id, detail)

    # ---- player terminals' credit meters (1.1.10; dealer_assist/store/credits.py)

    def meters(self) -> dict[str, Decimal]:
        """Every seat that ever bought in, with its meter now."""
        with self._read() as conn:
            return credits.meters(conn)

    def buy_in(self, seat: str, amount: Decimal, *, actor: str, approval: int,
               round_id: int | None = None) -> tuple[int, Decimal]:
        """Credits bought at ``seat`` (a supervisor's ``approval``): (audit id, the meter after)."""
        if amount <= 0:
            raise StoreError(f"a buy-in of {amount} (1.1.10)")
        with self._write() as conn:
            return credits.add_movement(conn, BUY_IN_KIND, actor, seat, amount, round_id=round_id,
                                        extra={"approval": approval})

    def cash_out(self, seat: str, *, actor: str) -> credits.Voucher:
        """``seat``'s whole meter cashed out: its voucher written, the meter 0 (one transaction)."""
        with self._write() as conn:
            meter = credits.meters(conn).get(seat, Decimal(0))
            if meter <= 0:
                raise StoreError(f"seat {seat}'s meter is 0: nothing to cash out (1.1.10)")
            number = credits.new_validation(conn)
            audit_id, _ = credits.add_movement(conn, CASH_OUT_KIND, actor, seat, -meter,
                                               extra={"validation": number})
            at = str(conn.execute("SELECT at FROM audit WHERE id = ?", (audit_id,)).fetchone()[0])
            return credits.Voucher(number, meter, seat, at, audit_id)

    def pay_results(self, round_id: int, nets: Mapping[str, Decimal], *, actor: str) -> dict[str, Decimal]:
        """The round's net result of each metered seat paid to its meter, less what was paid
        for the round before (a result changed after its end pays the difference), in one
        transaction; then the reconciliation: its problem is audited (``meter_unreconciled``)
        and returned by :meth:`reconcile_credits`. Returns the meters after."""
        with self._write() as conn:
            already = credits.posted(conn, round_id)
            have = credits.meters(conn)
            for seat in sorted(set(nets) | set(already)):
                if seat not in have:
                    continue
                due = nets.get(seat, Decimal(0)) - already.get(seat, Decimal(0))
                if due:
                    credits.add_movement(conn, RESULT_KIND, actor, seat, due, round_id=round_id)
            return credits.meters(conn)

    def reconcile_credits(self, *, audit_round: int | None = None) -> str:
        """The reconciliation (credits.reconcile): "" when it holds; else its problem, audited
        ``meter_unreconciled`` with ``audit_round`` when one is given."""
        with self._read() as conn:
            problem = credits.reconcile(conn)
        if problem is None:
            return ""
        if audit_round is not None:
            self.add_audit(UNRECONCILED_KIND, actor="service", round_id=audit_round,
                           detail={"problem": problem[0]})
        return problem[0]

    def vouchers(self, seat: str | None = None) -> list[credits.Voucher]:
        with self._read() as conn:
            return credits.vouchers(conn, seat)

    def add_note(self, round_id: int | None, *, author: str, text: str) -> int:
        return self.add_audit("note", actor=author, round_id=round_id, detail={"text": text})


    def audit_entries(
        self, *, round_id: int | None = None, kind: str | None = None, limit: int | None = None
    ) -> list[AuditEntry]:
        """Audit entries, oldest first, filtered by round and/or kind."""
        with self._read() as conn:
            return audit_entries(conn, round_id=round_id, kind=kind, limit=limit)

    # ---- tamper evidence

    def verify(self, *, jobs: int = 1, resettle: bool = False) -> VerifyResult:
        """Recompute every chain, check every round against its seal (re-settling each round
        that has none, or every round with ``resettle``), and check the head records; the
        first row that does not match is named. ``jobs``: worker processes for a large store."""
        with self._read() as conn:
            return verify(conn, self._conn.chain_key or None, self.head_path,
                          path=self.path, jobs=jobs, resettle=resettle)


# -------------------------------------------------------------------- settle --record

def record_transcript(
    db_path: str | os.PathLike[str] | None,
    document: dict[str, Any],
    result: dict[str, Any],
    *,
    table: str | None = None,
    pit: str | None = None,
) -> int:
    """Record a settled transcript (``dealer-assist settle FILE --record DB``); returns the round id.

    ``document`` is the transcript as read (header fields and ``events``), ``result``
    the settle output. Everything is written in one durable transaction. Raises
    StoreError (one-line message) for a file that is not a Dealer Assist store.
    """
    with Store.open(db_path) as store:
        if table is not None:  # issue 18: names a new store, refuses another table's
            store.claim_table(table, pit)
        return store.record_document(document, result)
