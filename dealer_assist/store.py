"""The round store: one SQLite file per table, durable, append-only, tamper-evident.

Everything a dealer or player did at the table is an event (see
``../shared/spec/round-script.md``); the store keeps, for each round, its configuration
(the transcript's ``game``, ``decks``, ``areas``, ``limits``, ``seated``,
``under_min_history`` ...) and its events in order, each committed durably before
:meth:`Store.append_event` returns. A round is restored after a crash or a power cut by
replaying those events (the engine does the replay; the store hands back the config and
the event list). Settlements and rulings are *derived* records written from the settle
output; they can always be re-derived by running the events through the rules.

Where the file lives
--------------------
``default_db_path(table)`` -> ``platformdirs.user_data_dir("dealer-assist") / "<table>.db"``
unless ``--db`` names another file. The file is in WAL mode with
``PRAGMA synchronous=FULL``: a commit is on disk (the WAL fsynced) when it returns.

Live-table API (the dealer's screen; one writing thread)
--------------------------------------------------------
::

    store = Store.open(path)                       # create / migrate / open for writing
    sid = store.start_session(game="lucky8", decks=6, areas=7,
                              limits={"main": [10, 5000]}, dealer="ann")
    rid = store.begin_round(config, session_id=sid)  # config = transcript header dict
    seq = store.append_event(rid, {"type": "wager", ...}, actor="dealer:ann")
    store.finish_round(rid, settle_output)          # settlements, rulings, 5.26 history
    store.end_session(sid)

    open_round = store.find_open_round()           # crash recovery: OpenRound | None
    open_round.config, open_round.events           # replay these through the engine

    store.under_min_players()                      # -> config["under_min_history"]
    store.list_rounds(player="alice", status="settled", irregular=True, limit=100)
    store.get_round(rid) ; store.export_round(rid) ; store.verify()

    store.create_user("bob", "4821", roles=["supervisor"])
    store.verify_pin("bob", "4821", role="supervisor")   # bool, constant-time
    store.login("bob", "4821", role="supervisor")        # bool, audited
    store.approve("bob", "4821", kind="void", round_id=rid, detail={...})  # audited
    store.add_audit("shoe_fault", actor="shoe", detail={...})
    store.add_note(rid, author="bob", text="...")
    store.audit_entries(round_id=rid)

Every error the store reports on purpose is a :class:`StoreError` (one-line message); a
write that fails (disk full, locked past the 5 s busy timeout, ...) is rolled back whole
and raises StoreError, so the screen must not show that event.

Readers (review screens, the CLI) use ``Store.open_readonly(path)``: a separate
connection opened with ``mode=ro``; WAL lets them read while the table writes.
``record_transcript(db_path, document, result)`` records a settled transcript
(``dealer-assist settle FILE --record DB``) in one transaction and returns its round id.

Schema (migration set ``dealer_assist_store``, applied with sqlite-utils ``Migrations``)
----------------------------------------------------------------------------------------
- ``sessions``: table sessions (game, decks, areas, limits JSON, dealer, start/end).
- ``rounds``: session, number, source (live|transcript), game, config JSON (the
  transcript header, exactly as given), start/end time, status
  (in_progress|settled|void|referred), players JSON, totals (net per player JSON),
  irregular flag, result JSON (the settle output), ``hash`` (chain over round headers).
- ``round_players``: (player, round_id) WITHOUT ROWID, net as TEXT decimal - the
  index behind ``--player``.
- ``events``: the append-only log: round, seq (0-based index in the transcript),
  time, actor, event JSON (canonical compact text, keys in the order given, numbers
  with their exact value: 25.10 is kept as 25.1), ``hash``.
- ``settlements`` / ``rulings``: derived from the settle output; money as TEXT decimals.
- ``under_min_history``: players who already had an under-minimum wager settled at
  this table (5.26).
- ``users`` / ``user_roles``: PINs only as salted scrypt hashes.
- ``audit``: logins, approvals (voids, overrides, supervisor decisions), shoe faults,
  notes, session start/end, round finish records; hash-chained.

Tamper evidence
---------------
Three chains, each ``hash = sha256(previous row's hash + canonical row content)``
(the first row chains from 32 zero bytes): ``events`` (in id order), ``rounds``
(the immutable header: id, session, number, source, start time, config) and
``audit``. Each ``round_finish`` audit row records the status, the sha256 of the
stored settle output, the number of events and the hash of the last one, so editing a
round's status/result or deleting the tail of a finished round's events is detected
too. :meth:`Store.verify` names the first row that does not match. (Deleting the very
last rows of a chain is only detectable through such cross-references.)
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal, cast
from urllib.request import pathname2url

import sqlite_utils

__all__ = [
    "APPLICATION_ID",
    "AuditEntry",
    "OpenRound",
    "RoundDetail",
    "RoundSummary",
    "Store",
    "StoreError",
    "VerifyResult",
    "canonical_json",
    "default_db_path",
    "record_transcript",
]

#: ``PRAGMA application_id`` of a Dealer Assist store ("DAst").
APPLICATION_ID = 0x44417374
MIGRATION_SET = "dealer_assist_store"
SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5000
ZERO_HASH = bytes(32)

RoundStatus = Literal["in_progress", "settled", "void", "referred"]
Role = Literal["dealer", "supervisor"]
ROUND_STATUSES: tuple[str, ...] = ("in_progress", "settled", "void", "referred")
ROLES: tuple[str, ...] = ("dealer", "supervisor")
#: Keys of the transcript header, in the order an export writes them.
HEADER_KEYS: tuple[str, ...] = ("game", "decks", "areas", "limits", "seated", "under_min_history")

# scrypt parameters for PIN hashes (stored with each hash, so they can be raised later).
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
SCRYPT_DKLEN = 32


class StoreError(Exception):
    """A store operation that cannot be done; ``str(err)`` is a one-line message."""


# --------------------------------------------------------------------------- helpers


def default_db_path(table: str = "table") -> Path:
    """The store file for ``table`` in the platform's user data directory."""
    import platformdirs

    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in table) or "table"
    return Path(platformdirs.user_data_dir("dealer-assist")) / f"{safe}.db"


def utc_now() -> str:
    """Current UTC time as fixed-width ISO 8601 text (sorts like the time it names)."""
    return format_time(_dt.datetime.now(_dt.UTC))


def format_time(moment: _dt.datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.UTC)
    return moment.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _plain(value: Any) -> Any:
    """JSON-ready copy of ``value``; Decimals become numbers that print exactly as written."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        return value
    if kind is dict or isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                raise StoreError(f"JSON object key {key!r} is not a string")
            out[key] = _plain(item)
        return out
    if kind is list or isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise StoreError(f"amount {value} is not a finite number")
        if value == value.to_integral_value():
            return int(value)
        as_float = float(value)
        if Decimal(repr(as_float)) != value:
            raise StoreError(f"amount {value} cannot be written exactly as a JSON number")
        return as_float
    if isinstance(value, (str, int, float)):  # subclasses
        return value
    raise StoreError(f"value of type {type(value).__name__} cannot be stored as JSON")


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_CHAIN_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def canonical_json(value: Any) -> str:
    """Compact JSON text of ``value``, keys in the order given, numbers as written.

    ``json.loads`` of the text gives back an equal object (Decimals come back as
    int/float with the same printed digits). NaN and infinities are refused.
    """
    try:
        return _ENCODER.encode(_plain(value))
    except ValueError as err:
        raise StoreError(f"cannot store as JSON: {err}") from err


def _decimal_text(value: Any) -> str:
    """An amount as exact TEXT decimal ('37.5', '-10'); never through a lossy float."""
    if isinstance(value, bool) or value is None:
        raise StoreError(f"amount {value!r} is not a number")
    try:
        if isinstance(value, float):
            amount = Decimal(repr(value))
        else:
            amount = Decimal(str(value))
    except InvalidOperation as err:
        raise StoreError(f"amount {value!r} is not a number") from err
    if not amount.is_finite():
        raise StoreError(f"amount {value!r} is not a finite number")
    if amount == amount.to_integral_value():
        return str(amount.quantize(Decimal(1)))
    return format(amount.normalize(), "f")


def _chain(prev: bytes, content: Sequence[Any]) -> bytes:
    text = _CHAIN_ENCODER.encode(list(content))
    return hashlib.sha256(prev + text.encode("utf-8")).digest()


def _event_content(
    row_id: int, round_id: int, seq: int, at: str, actor: str, event_json: str
) -> list[Any]:
    return [row_id, round_id, seq, at, actor, event_json]


def _round_content(
    row_id: int, session_id: int | None, number: int, source: str, started_at: str, config_json: str
) -> list[Any]:
    return [row_id, session_id, number, source, started_at, config_json]


def _audit_content(
    row_id: int, at: str, actor: str, kind: str, round_id: int | None, detail_json: str
) -> list[Any]:
    return [row_id, at, actor, kind, round_id, detail_json]


def _players_of_event(event: Mapping[str, Any]) -> list[str]:
    names: list[str] = []
    player = event.get("player")
    if isinstance(player, str):
        names.append(player)
    for claimant in event.get("claimants") or []:
        if isinstance(claimant, Mapping) and isinstance(claimant.get("player"), str):
            names.append(claimant["player"])
    declined = event.get("declined_by")
    if isinstance(declined, str):
        names.append(declined)
    followers = event.get("followers")
    if isinstance(followers, Mapping):
        names.extend(name for name in followers if isinstance(name, str))
    return names


def _hash_pin(pin: str, salt: bytes, n: int, r: int, p: int, dklen: int) -> bytes:
    return hashlib.scrypt(
        pin.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=dklen, maxmem=64 * 1024 * 1024
    )


def _check_pin_format(pin: str) -> None:
    if not (isinstance(pin, str) and pin.isdigit() and pin.isascii() and 4 <= len(pin) <= 12):
        raise StoreError("a PIN is 4 to 12 digits")


# ------------------------------------------------------------------------ migrations

MIGRATIONS = sqlite_utils.Migrations(MIGRATION_SET)


@MIGRATIONS(name="0001_initial")
def _m0001_initial(db: sqlite_utils.Database) -> None:
    statements = [
        f"PRAGMA application_id = {APPLICATION_ID}",
        """CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            game TEXT NOT NULL,
            decks INTEGER,
            areas INTEGER,
            limits_json TEXT NOT NULL DEFAULT '{}',
            dealer TEXT,
            started_at TEXT NOT NULL,
            ended_at TEXT
        )""",
        f"""CREATE TABLE rounds (
            id INTEGER PRIMARY KEY,
            session_id INTEGER REFERENCES sessions(id),
            number INTEGER NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('live', 'transcript')),
            game TEXT NOT NULL,
            config_json TEXT NOT NULL,
            started_at TEXT NOT NULL,
            ended_at TEXT,
            status TEXT NOT NULL DEFAULT 'in_progress'
                CHECK (status IN ({", ".join(repr(s) for s in ROUND_STATUSES)})),
            players_json TEXT NOT NULL DEFAULT '[]',
            totals_json TEXT NOT NULL DEFAULT '{{}}',
            irregular INTEGER NOT NULL DEFAULT 0 CHECK (irregular IN (0, 1)),
            result_json TEXT,
            hash BLOB NOT NULL
        )""",
        "CREATE INDEX rounds_started ON rounds(started_at)",
        "CREATE INDEX rounds_status ON rounds(status, id)",
        "CREATE INDEX rounds_irregular ON rounds(id) WHERE irregular = 1",
        "CREATE INDEX rounds_open ON rounds(id) WHERE ended_at IS NULL AND source = 'live'",
        "CREATE INDEX rounds_session ON rounds(session_id, number)",
        """CREATE TABLE round_players (
            player TEXT NOT NULL,
            round_id INTEGER NOT NULL REFERENCES rounds(id),
            net TEXT,
            PRIMARY KEY (player, round_id)
        ) WITHOUT ROWID""",
        "CREATE INDEX round_players_round ON round_players(round_id)",
        """CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            round_id INTEGER NOT NULL REFERENCES rounds(id),
            seq INTEGER NOT NULL,
            at TEXT NOT NULL,
            actor TEXT NOT NULL,
            event_json TEXT NOT NULL,
            hash BLOB NOT NULL,
            UNIQUE (round_id, seq)
        )""",
        """CREATE TABLE settlements (
            id INTEGER PRIMARY KEY,
            round_id INTEGER NOT NULL REFERENCES rounds(id),
            player TEXT NOT NULL,
            area INTEGER,
            hand INTEGER,
            bet TEXT NOT NULL,
            stake TEXT NOT NULL,
            result TEXT NOT NULL,
            net TEXT NOT NULL,
            rule TEXT,
            stage TEXT
        )""",
        "CREATE INDEX settlements_round ON settlements(round_id)",
        """CREATE TABLE rulings (
            id INTEGER PRIMARY KEY,
            round_id INTEGER NOT NULL REFERENCES rounds(id),
            event_index INTEGER,
            rule TEXT,
            ruling TEXT,
            text TEXT,
            moves_json TEXT NOT NULL DEFAULT '[]'
        )""",
        "CREATE INDEX rulings_round ON rulings(round_id)",
        """CREATE TABLE under_min_history (
            player TEXT PRIMARY KEY,
            round_id INTEGER REFERENCES rounds(id),
            recorded_at TEXT NOT NULL
        )""",
        """CREATE TABLE users (
            username TEXT PRIMARY KEY,
            pin_hash BLOB NOT NULL,
            pin_salt BLOB NOT NULL,
            scrypt_n INTEGER NOT NULL,
            scrypt_r INTEGER NOT NULL,
            scrypt_p INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            disabled INTEGER NOT NULL DEFAULT 0
        )""",
        f"""CREATE TABLE user_roles (
            username TEXT NOT NULL REFERENCES users(username),
            role TEXT NOT NULL CHECK (role IN ({", ".join(repr(r) for r in ROLES)})),
            PRIMARY KEY (username, role)
        ) WITHOUT ROWID""",
        """CREATE TABLE audit (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            actor TEXT NOT NULL,
            kind TEXT NOT NULL,
            round_id INTEGER,
            detail_json TEXT NOT NULL DEFAULT '{}',
            hash BLOB NOT NULL
        )""",
        "CREATE INDEX audit_round ON audit(round_id, kind) WHERE round_id IS NOT NULL",
        "CREATE INDEX audit_kind ON audit(kind, id)",
    ]
    for statement in statements:
        db.execute(statement)


@MIGRATIONS(name="0002_rounds_game_index")
def _m0002_rounds_game_index(db: sqlite_utils.Database) -> None:
    # The review filters and sorts by game (issue 9).
    db.execute("CREATE INDEX rounds_game ON rounds(game, started_at)")


@MIGRATIONS(name="0003_table_identity")
def _m0003_table_identity(db: sqlite_utils.Database) -> None:
    # Issue 18: a store belongs to one table (its name and pit), set once; the setting is
    # also chained in the audit log (kind ``table_identity``). Every round, session and
    # audit entry of the file is that table's; the floor copies carry the name.
    db.execute(
        """CREATE TABLE table_identity (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            table_name TEXT NOT NULL,
            pit TEXT,
            created_at TEXT NOT NULL
        )"""
    )


@contextmanager
def _closed_on_failure(conn: sqlite3.Connection, db_path: Path) -> Iterator[None]:
    """Close ``conn`` if opening the store fails; a database error becomes a StoreError."""
    try:
        yield
    except sqlite3.DatabaseError as err:
        conn.close()
        raise StoreError(f"{db_path} is not a usable Dealer Assist database: {err}") from err
    except BaseException:
        conn.close()
        raise


def _connect(target: str, db_path: Path, *, uri: bool) -> sqlite3.Connection:
    """A connection that waits for the writer rather than failing (busy timeout)."""
    try:
        conn = sqlite3.connect(target, uri=uri, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    except sqlite3.Error as err:
        raise StoreError(f"cannot open {db_path}: {err}") from err
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    except sqlite3.DatabaseError as err:
        conn.close()
        raise StoreError(f"{db_path} is not a usable Dealer Assist database: {err}") from err
    return conn


KNOWN_MIGRATIONS = frozenset(m.name for m in MIGRATIONS._migrations)

# SQL for an amount in whole cents (amounts are TEXT decimals with at most two places).
CENTS_SQL = "CAST(round(CAST({} AS REAL) * 100) AS INTEGER)"


def _settlement_fingerprint(value: str) -> str:
    return (f"{{0}}.player||'|'||{{0}}.bet||'|'||{{0}}.result||'|'||"
            f"{CENTS_SQL.format('{0}.stake')}||'|'||{CENTS_SQL.format('{0}.net')}").format(value)


def first_altered_settlements(conn: sqlite3.Connection) -> int | None:
    """The first round whose derived settlement rows differ from its stored settle output.

    The hash chains cover the events, the round headers and the audit log, and each
    round's finish record hashes its settle output; the ``settlements`` rows are derived
    from that output and not chained themselves. This compares them, for every round, in
    SQLite (player, bet, result, stake and net of each entry in order); a full pass.
    """
    row = conn.execute(
        "SELECT r.id FROM rounds r WHERE r.result_json IS NOT NULL AND "
        "(SELECT group_concat(f, ';') FROM (SELECT " + _settlement_fingerprint("s") + " AS f FROM settlements s "
        "WHERE s.round_id = r.id ORDER BY s.id)) IS NOT "
        "(SELECT group_concat(f, ';') FROM (SELECT " + _settlement_fingerprint("j") + " AS f FROM "
        "(SELECT json_extract(value, '$.player') AS player, json_extract(value, '$.bet') AS bet, "
        "json_extract(value, '$.result') AS result, json_extract(value, '$.stake') AS stake, "
        "json_extract(value, '$.net') AS net, key FROM json_each(r.result_json, '$.settlements')) j "
        "ORDER BY j.key)) ORDER BY r.id LIMIT 1"
    ).fetchone()
    return None if row is None else int(row[0])




# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class RoundSummary:
    """One row of a round listing."""

    id: int
    session_id: int | None
    number: int
    source: str
    game: str
    status: str
    started_at: str
    ended_at: str | None
    players: list[str]
    net: dict[str, Any]
    irregular: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "session_id": self.session_id,
            "number": self.number,
            "source": self.source,
            "game": self.game,
            "status": self.status,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "players": self.players,
            "net": self.net,
            "irregular": self.irregular,
        }


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    at: str
    actor: str
    event: dict[str, Any]


@dataclass(frozen=True)
class RoundDetail:
    """A round with its configuration, events, settle output and derived records."""

    summary: RoundSummary
    config: dict[str, Any]
    events: list[StoredEvent]
    result: dict[str, Any] | None
    settlements: list[dict[str, Any]]
    rulings: list[dict[str, Any]]


@dataclass(frozen=True)
class OpenRound:
    """An unfinished live round: replay ``events`` on ``config`` to restore it."""

    round_id: int
    session_id: int | None
    number: int
    status: str
    config: dict[str, Any]
    events: list[dict[str, Any]]


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: str
    actor: str
    kind: str
    round_id: int | None
    detail: dict[str, Any]


@dataclass(frozen=True)
class VerifyResult:
    """Outcome of :meth:`Store.verify`: ``ok``, counts, and the first bad row if any."""

    ok: bool
    events: int
    rounds: int
    audit: int
    problem: str | None = None
    table: str | None = None
    row_id: int | None = None


@dataclass
class _Counters:
    checked: dict[str, int] = field(default_factory=lambda: {"events": 0, "rounds": 0, "audit": 0})


# ----------------------------------------------------------------------------- store


class Store:
    """One table's store file. Create with :meth:`open` (writer) or :meth:`open_readonly`.

    A writing Store may be used from several threads (calls are serialised by a lock);
    the table's screen writes from one thread. Readers use their own Store.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, readonly: bool) -> None:
        self._conn = conn
        self.path = path
        self.readonly = readonly
        self._lock = threading.RLock()
        self.db = sqlite_utils.Database(conn, execute_plugins=False, recursive_triggers=False)

    # ---- opening

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None, *, table: str = "table") -> Store:
        """Open (creating and migrating if needed) the store at ``path`` for writing.

        ``path`` None means :func:`default_db_path` (``table``). Refuses a file that is
        not SQLite or is another program's SQLite database (StoreError), without
        changing it.
        """
        db_path = Path(path) if path is not None else default_db_path(table)
        if db_path.exists():
            _check_sqlite_header(db_path, allow_empty=True)
        else:
            db_path.parent.mkdir(parents=True, exist_ok=True)
        conn = _connect(str(db_path), db_path, uri=False)
        with _closed_on_failure(conn, db_path):
            _check_identity(conn, db_path, allow_new=True)
            old_level = conn.isolation_level
            conn.isolation_level = None  # PRAGMA journal_mode needs autocommit
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            conn.isolation_level = old_level
            if str(mode).lower() != "wal":
                raise StoreError(f"cannot put {db_path} in WAL mode (got {mode})")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA fullfsync = ON")
            conn.execute("PRAGMA foreign_keys = ON")
            store = cls(conn, db_path, readonly=False)
            store._migrate()
        return store

    @classmethod
    def open_readonly(cls, path: str | os.PathLike[str]) -> Store:
        """Open an existing store for reading only (``mode=ro``); never creates or changes it."""
        db_path = Path(path)
        if not db_path.exists():
            raise StoreError(f"{db_path}: no such file")
        if not db_path.is_file():
            raise StoreError(f"{db_path}: not a file")
        _check_sqlite_header(db_path, allow_empty=False)
        uri = "file:" + pathname2url(str(db_path.resolve())) + "?mode=ro"
        conn = _connect(uri, db_path, uri=True)
        with _closed_on_failure(conn, db_path):
            conn.execute("PRAGMA query_only = ON")
            _check_identity(conn, db_path, allow_new=False)
            store = cls(conn, db_path, readonly=True)
            applied = store._applied_migrations()
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

    def _applied_migrations(self) -> list[str]:
        names = [m.name for m in MIGRATIONS.applied(self.db)]
        unknown = [n for n in names if n not in KNOWN_MIGRATIONS]
        if unknown:
            raise StoreError(
                f"{self.path} was written by a newer Dealer Assist (schema {unknown[0]}); upgrade first"
            )
        return names

    def _migrate(self) -> None:
        applied = self._applied_migrations()
        if len(applied) == len(KNOWN_MIGRATIONS):
            return
        # Take the write lock first, so two processes opening a new file do not race;
        # sqlite-utils nests each migration in a savepoint of this transaction.
        with self._write():
            MIGRATIONS.apply(self.db)

    # ---- transactions

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One durable write transaction (BEGIN IMMEDIATE ... COMMIT, fsynced)."""
        if self.readonly:
            raise StoreError(f"{self.path} is open read-only")
        with self._lock:
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as err:
                raise StoreError(f"cannot write to {self.path}: {err}") from err
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException as exc:
                # Nothing of this transaction is kept; the caller must not show it.
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise StoreError(f"cannot write to {self.path}: {exc}") from exc
                raise

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

    # ---- chained inserts (inside a write transaction)

    @staticmethod
    def _last(conn: sqlite3.Connection, table: str) -> tuple[int, bytes]:
        row = conn.execute(f"SELECT id, hash FROM {table} ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            return 0, ZERO_HASH
        return int(row[0]), bytes(row[1])

    def _insert_audit(
        self,
        conn: sqlite3.Connection,
        kind: str,
        actor: str,
        round_id: int | None,
        detail: Mapping[str, Any] | None,
        at: str | None = None,
    ) -> int:
        last_id, prev = self._last(conn, "audit")
        row_id = last_id + 1
        when = at or utc_now()
        detail_json = canonical_json(dict(detail or {}))
        digest = _chain(prev, _audit_content(row_id, when, actor, kind, round_id, detail_json))
        conn.execute(
            "INSERT INTO audit (id, at, actor, kind, round_id, detail_json, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row_id, when, actor, kind, round_id, detail_json, digest),
        )
        return row_id

    def _insert_event(
        self,
        conn: sqlite3.Connection,
        round_id: int,
        seq: int,
        event: Mapping[str, Any],
        actor: str,
        at: str | None,
    ) -> None:
        if not isinstance(event, Mapping) or not isinstance(event.get("type"), str):
            raise StoreError("an event is a JSON object with a string 'type'")
        event_json = canonical_json(event)
        last_id, prev = self._last(conn, "events")
        row_id = last_id + 1
        when = at or utc_now()
        digest = _chain(prev, _event_content(row_id, round_id, seq, when, actor, event_json))
        conn.execute(
            "INSERT INTO events (id, round_id, seq, at, actor, event_json, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row_id, round_id, seq, when, actor, event_json, digest),
        )
        players = _players_of_event(event)
        if players:
            before = conn.total_changes
            conn.executemany(
                "INSERT OR IGNORE INTO round_players (player, round_id) VALUES (?, ?)",
                [(p, round_id) for p in dict.fromkeys(players)],
            )
            if conn.total_changes != before:  # a new player in this round: keep the listing current
                names = [
                    r[0]
                    for r in conn.execute(
                        "SELECT player FROM round_players WHERE round_id = ? ORDER BY player",
                        (round_id,),
                    )
                ]
                conn.execute(
                    "UPDATE rounds SET players_json = ? WHERE id = ?",
                    (canonical_json(names), round_id),
                )

    def _insert_round(
        self,
        conn: sqlite3.Connection,
        config: Mapping[str, Any],
        session_id: int | None,
        number: int | None,
        source: str,
        at: str | None,
    ) -> int:
        if not isinstance(config, Mapping):
            raise StoreError("a round configuration is a JSON object")
        if "events" in config:
            config = {k: v for k, v in config.items() if k != "events"}
        game = config.get("game")
        if not isinstance(game, str) or not game:
            raise StoreError("a round configuration names its 'game'")
        config_json = canonical_json(config)
        if session_id is not None:
            if (
                conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone()
                is None
            ):
                raise StoreError(f"no session {session_id}")
        if number is None:
            if session_id is None:
                row = conn.execute(
                    "SELECT MAX(number) FROM rounds WHERE session_id IS NULL"
                ).fetchone()
            else:
                row = conn.execute(
                    "SELECT MAX(number) FROM rounds WHERE session_id = ?", (session_id,)
                ).fetchone()
            number = int(row[0] or 0) + 1
        last_id, prev = self._last(conn, "rounds")
        row_id = last_id + 1
        when = at or utc_now()
        digest = _chain(prev, _round_content(row_id, session_id, number, source, when, config_json))
        seated = config.get("seated")
        players = list(seated) if isinstance(seated, Mapping) else []
        conn.execute(
            "INSERT INTO rounds (id, session_id, number, source, game, config_json, started_at, "
            "players_json, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                row_id,
                session_id,
                number,
                source,
                game,
                config_json,
                when,
                canonical_json(players),
                digest,
            ),
        )
        if players:
            conn.executemany(
                "INSERT OR IGNORE INTO round_players (player, round_id) VALUES (?, ?)",
                [(p, row_id) for p in players],
            )
        return row_id

    def _finish(
        self, conn: sqlite3.Connection, round_id: int, result: Mapping[str, Any], actor: str
    ) -> None:
        row = conn.execute("SELECT config_json FROM rounds WHERE id = ?", (round_id,)).fetchone()
        if row is None:
            raise StoreError(f"no round {round_id}")
        config = json.loads(row[0])
        status = result.get("status")
        if status not in ROUND_STATUSES:
            raise StoreError(
                f"settle output has status {status!r}, expected one of {', '.join(ROUND_STATUSES)}"
            )
        settlements = list(result.get("settlements") or [])
        rulings = list(result.get("rulings") or [])
        net = result.get("net") or {}
        if not isinstance(net, Mapping):
            raise StoreError("settle output 'net' is not an object")
        result_json = canonical_json(result)
        irregular = 1 if rulings or status in ("void", "referred") else 0
        ended_at = utc_now() if status in ("settled", "void") else None

        conn.execute("DELETE FROM settlements WHERE round_id = ?", (round_id,))
        conn.execute("DELETE FROM rulings WHERE round_id = ?", (round_id,))
        settlement_rows = []
        for entry in settlements:
            if not isinstance(entry, Mapping):
                raise StoreError("a settlement entry is not an object")
            settlement_rows.append(
                (
                    round_id,
                    str(entry.get("player")),
                    entry.get("area"),
                    entry.get("hand"),
                    str(entry.get("bet")),
                    _decimal_text(entry.get("stake")),
                    str(entry.get("result")),
                    _decimal_text(entry.get("net")),
                    entry.get("rule"),
                    entry.get("stage"),
                )
            )
        conn.executemany(
            "INSERT INTO settlements (round_id, player, area, hand, bet, stake, result, net, rule, stage) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            settlement_rows,
        )
        ruling_rows = []
        for ruling in rulings:
            if not isinstance(ruling, Mapping):
                raise StoreError("a ruling is not an object")
            ruling_rows.append(
                (
                    round_id,
                    ruling.get("index"),
                    ruling.get("rule"),
                    ruling.get("ruling"),
                    ruling.get("text"),
                    canonical_json(ruling.get("moves") or []),
                )
            )
        conn.executemany(
            "INSERT INTO rulings (round_id, event_index, rule, ruling, text, moves_json) VALUES (?, ?, ?, ?, ?, ?)",
            ruling_rows,
        )
        net_text = {str(player): _decimal_text(amount) for player, amount in net.items()}
        conn.executemany(
            "INSERT INTO round_players (player, round_id, net) VALUES (?, ?, ?) "
            "ON CONFLICT (player, round_id) DO UPDATE SET net = excluded.net",
            [(player, round_id, amount) for player, amount in net_text.items()],
        )
        players = [
            r[0]
            for r in conn.execute(
                "SELECT player FROM round_players WHERE round_id = ? ORDER BY player", (round_id,)
            )
        ]
        conn.execute(
            "UPDATE rounds SET status = ?, ended_at = ?, players_json = ?, totals_json = ?, irregular = ?, "
            "result_json = ? WHERE id = ?",
            (
                status,
                ended_at,
                canonical_json(players),
                canonical_json(net),
                irregular,
                result_json,
                round_id,
            ),
        )
        # 5.26: a player whose under-minimum wager was settled (not returned) is remembered.
        limits = config.get("limits") if isinstance(config.get("limits"), Mapping) else {}
        for entry in settlements:
            bet_limits = limits.get(entry.get("bet")) if limits else None
            if (
                not (isinstance(bet_limits, Sequence) and len(bet_limits) >= 1)
                or entry.get("result") == "returned"
            ):
                continue
            try:
                minimum = Decimal(_decimal_text(bet_limits[0]))
                stake = Decimal(_decimal_text(entry.get("stake")))
            except StoreError:
                continue
            if stake < minimum:
                conn.execute(
                    "INSERT OR IGNORE INTO under_min_history (player, round_id, recorded_at) VALUES (?, ?, ?)",
                    (str(entry.get("player")), round_id, utc_now()),
                )
        count, last_hash = self._round_event_tail(conn, round_id)
        self._insert_audit(
            conn,
            "round_finish",
            actor,
            round_id,
            {
                "status": status,
                "result_sha256": hashlib.sha256(result_json.encode("utf-8")).hexdigest(),
                "events": count,
                "last_event_hash": last_hash.hex() if last_hash else None,
            },
        )

    @staticmethod
    def _round_event_tail(conn: sqlite3.Connection, round_id: int) -> tuple[int, bytes | None]:
        row = conn.execute(
            "SELECT seq, hash FROM events WHERE round_id = ? ORDER BY seq DESC LIMIT 1", (round_id,)
        ).fetchone()
        if row is None:
            return 0, None
        return int(row[0]) + 1, bytes(row[1])

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
                "INSERT INTO sessions (game, decks, areas, limits_json, dealer, started_at) VALUES (?, ?, ?, ?, ?, ?)",
                (game, decks, areas, limits_json, dealer, utc_now()),
            )
            session_id = int(cast(int, cur.lastrowid))
            self._insert_audit(
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
            self._insert_audit(conn, "session_end", actor, None, {"session_id": session_id})

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
            return self._insert_round(conn, config, session_id, number, "live", None)

    def append_event(
        self,
        round_id: int,
        event: Mapping[str, Any],
        *,
        actor: str = "dealer",
        at: str | None = None,
    ) -> int:
        """Append one event to a round's log, durably; returns its seq (0-based index).

        Returns only after the commit is on disk. The engine decides whether an event
        is accepted; call this for accepted events, before the screen shows them.
        """
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM rounds WHERE id = ?", (round_id,)).fetchone() is None:
                raise StoreError(f"no round {round_id}")
            row = conn.execute(
                "SELECT MAX(seq) FROM events WHERE round_id = ?", (round_id,)
            ).fetchone()
            seq = 0 if row[0] is None else int(row[0]) + 1
            self._insert_event(conn, round_id, seq, event, actor, at)
        return seq

    def finish_round(
        self, round_id: int, result: Mapping[str, Any], *, actor: str = "dealer"
    ) -> None:
        """Record the settle output of a round (status, settlements, rulings, net).

        May be called again (e.g. a referred round later resolved, or a 5.7 card after
        settlement): derived records are replaced and a new ``round_finish`` audit row
        is chained. Updates the under-minimum history (5.26).
        """
        with self._write() as conn:
            self._finish(conn, round_id, result, actor)

    def find_open_round(self) -> OpenRound | None:
        """The latest live round that has not ended (in progress or referred), for recovery."""
        with self._read() as conn:
            row = conn.execute(
                "SELECT id FROM rounds WHERE ended_at IS NULL AND source = 'live' ORDER BY id DESC LIMIT 1"
            ).fetchone()
            if row is None:
                return None
            return self._open_round(conn, int(row[0]))

    def open_rounds(self) -> list[OpenRound]:
        """Every live round that has not ended, oldest first."""
        with self._read() as conn:
            ids = [
                int(r[0])
                for r in conn.execute(
                    "SELECT id FROM rounds WHERE ended_at IS NULL AND source = 'live' ORDER BY id"
                )
            ]
            return [self._open_round(conn, i) for i in ids]

    def _open_round(self, conn: sqlite3.Connection, round_id: int) -> OpenRound:
        row = conn.execute(
            "SELECT session_id, number, status, config_json FROM rounds WHERE id = ?", (round_id,)
        ).fetchone()
        events = [
            json.loads(r[0])
            for r in conn.execute(
                "SELECT event_json FROM events WHERE round_id = ? ORDER BY seq", (round_id,)
            )
        ]
        return OpenRound(round_id, row[0], int(row[1]), str(row[2]), json.loads(row[3]), events)

    def events(self, round_id: int) -> list[dict[str, Any]]:
        """The round's events in order, as JSON objects."""
        with self._read() as conn:
            return [
                json.loads(r[0])
                for r in conn.execute(
                    "SELECT event_json FROM events WHERE round_id = ? ORDER BY seq", (round_id,)
                )
            ]

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
        with self._write() as conn:
            round_id = self._insert_round(conn, config, None, None, "transcript", None)
            for seq, event in enumerate(events):
                self._insert_event(conn, round_id, seq, event, actor, None)
            self._finish(conn, round_id, result, actor)
        return round_id

    # ---- queries

    _SUMMARY_COLUMNS = (
        "r.id, r.session_id, r.number, r.source, r.game, r.status, r.started_at, r.ended_at, "
        "r.players_json, r.totals_json, r.irregular"
    )

    @staticmethod
    def _summary(row: Sequence[Any]) -> RoundSummary:
        return RoundSummary(
            id=int(row[0]),
            session_id=row[1],
            number=int(row[2]),
            source=str(row[3]),
            game=str(row[4]),
            status=str(row[5]),
            started_at=str(row[6]),
            ended_at=row[7],
            players=json.loads(row[8]),
            net=json.loads(row[9]),
            irregular=bool(row[10]),
        )

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
        if status is not None and status not in ROUND_STATUSES:
            raise StoreError(f"unknown status {status!r}: one of {', '.join(ROUND_STATUSES)}")
        where: list[str] = []
        params: list[Any] = []
        if player is not None:
            source = "round_players rp JOIN rounds r ON r.id = rp.round_id"
            where.append("rp.player = ?")
            params.append(player)
            order = "rp.round_id DESC"
        elif since is not None or until is not None:
            # Time window: walk the start-time index newest first (it holds the rowid too).
            source = "rounds r INDEXED BY rounds_started"
            order = "r.started_at DESC, r.id DESC"
        else:
            source = "rounds r"
            order = "r.id DESC"
        if since is not None:
            where.append("r.started_at >= ?")
            params.append(since)
        if until is not None:
            where.append("r.started_at < ?")
            params.append(until)
        if status is not None:
            where.append("r.status = ?")
            params.append(status)
        if irregular is not None:
            where.append("r.irregular = ?")
            params.append(1 if irregular else 0)
        if before_id is not None:
            where.append("r.id < ?")
            params.append(before_id)
        sql = f"SELECT {self._SUMMARY_COLUMNS} FROM {source}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY {order}"
        if limit is not None and limit > 0:
            sql += " LIMIT ?"
            params.append(limit)
        with self._read() as conn:
            return [self._summary(r) for r in conn.execute(sql, params)]

    def get_round(self, round_id: int) -> RoundDetail | None:
        """Everything recorded about one round, or None."""
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {self._SUMMARY_COLUMNS}, r.config_json, r.result_json FROM rounds r WHERE r.id = ?",
                (round_id,),
            ).fetchone()
            if row is None:
                return None
            events = [
                StoredEvent(int(r[0]), str(r[1]), str(r[2]), json.loads(r[3]))
                for r in conn.execute(
                    "SELECT seq, at, actor, event_json FROM events WHERE round_id = ? ORDER BY seq",
                    (round_id,),
                )
            ]
            settlements = [
                {
                    "player": r[0],
                    "area": r[1],
                    "hand": r[2],
                    "bet": r[3],
                    "stake": r[4],
                    "result": r[5],
                    "net": r[6],
                    "rule": r[7],
                    "stage": r[8],
                }
                for r in conn.execute(
                    "SELECT player, area, hand, bet, stake, result, net, rule, stage FROM settlements "
                    "WHERE round_id = ? ORDER BY id",
                    (round_id,),
                )
            ]
            rulings = [
                {
                    "index": r[0],
                    "rule": r[1],
                    "ruling": r[2],
                    "text": r[3],
                    "moves": json.loads(r[4]),
                }
                for r in conn.execute(
                    "SELECT event_index, rule, ruling, text, moves_json FROM rulings WHERE round_id = ? ORDER BY id",
                    (round_id,),
                )
            ]
        return RoundDetail(
            summary=self._summary(row[:11]),
            config=json.loads(row[11]),
            events=events,
            result=json.loads(row[12]) if row[12] is not None else None,
            settlements=settlements,
            rulings=rulings,
        )

    def export_round(self, round_id: int) -> dict[str, Any]:
        """The round as a transcript document (header fields, then ``events``) for ``settle``."""
        with self._read() as conn:
            row = conn.execute(
                "SELECT config_json FROM rounds WHERE id = ?", (round_id,)
            ).fetchone()
            if row is None:
                raise StoreError(f"no round {round_id}")
            config = json.loads(row[0])
            events = [
                json.loads(r[0])
                for r in conn.execute(
                    "SELECT event_json FROM events WHERE round_id = ? ORDER BY seq", (round_id,)
                )
            ]
        document: dict[str, Any] = {k: config[k] for k in HEADER_KEYS if k in config}
        document.update((k, v) for k, v in config.items() if k not in document)
        document["events"] = events
        return document

    # ---- table identity (issue 18)

    def table_identity(self) -> tuple[str, str | None] | None:
        """(table name, pit) this store belongs to, or None for a store made before names."""
        with self._read() as conn:
            row = conn.execute("SELECT table_name, pit FROM table_identity WHERE id = 1").fetchone()
        return None if row is None else (str(row[0]), row[1])

    def claim_table(self, table: str, pit: str | None = None, *, actor: str = "setup") -> None:
        """Make this the store of ``table`` (in ``pit``), or check that it already is.

        A store that has no table yet takes the name (chained in the audit log); a store of
        another table, or of the same table in another pit, is refused (StoreError).
        """
        if not isinstance(table, str) or not table.strip() or len(table) > 32:
            raise StoreError("a table name is 1 to 32 characters, e.g. BJ-07")
        with self._write() as conn:
            row = conn.execute("SELECT table_name, pit FROM table_identity WHERE id = 1").fetchone()
            if row is not None:
                if row[0] != table:
                    raise StoreError(f"{self.path} is the store of table {row[0]}, not {table}")
                if pit is not None and row[1] is not None and row[1] != pit:
                    raise StoreError(f"{self.path} is the store of table {table} in pit {row[1]}, not {pit}")
                if pit is None or row[1] is not None:
                    return
                conn.execute("UPDATE table_identity SET pit = ? WHERE id = 1", (pit,))
            else:
                conn.execute(
                    "INSERT INTO table_identity (id, table_name, pit, created_at) VALUES (1, ?, ?, ?)",
                    (table, pit, utc_now()),
                )
            self._insert_audit(conn, "table_identity", actor, None, {"table": table, "pit": pit})

    def round_count(self) -> int:
        with self._read() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM rounds").fetchone()[0])

    def under_min_players(self) -> list[str]:
        """Players who already had an under-minimum wager settled at this table (5.26)."""
        with self._read() as conn:
            return [
                r[0] for r in conn.execute("SELECT player FROM under_min_history ORDER BY player")
            ]

    # ---- users and PINs

    def create_user(
        self, username: str, pin: str, roles: Iterable[str], *, actor: str = "admin"
    ) -> None:
        """Create a user with a PIN (stored only as a salted scrypt hash) and roles."""
        role_list = sorted(set(roles))
        if not username or not isinstance(username, str):
            raise StoreError("a user needs a name")
        bad = [r for r in role_list if r not in ROLES]
        if bad or not role_list:
            raise StoreError(f"roles must be among {', '.join(ROLES)}")
        _check_pin_format(pin)
        salt = secrets.token_bytes(16)
        digest = _hash_pin(pin, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_DKLEN)
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM users WHERE username = ?", (username,)).fetchone():
                raise StoreError(f"user {username!r} exists")
            conn.execute(
                "INSERT INTO users (username, pin_hash, pin_salt, scrypt_n, scrypt_r, scrypt_p, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (username, digest, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, utc_now()),
            )
            conn.executemany(
                "INSERT INTO user_roles (username, role) VALUES (?, ?)",
                [(username, r) for r in role_list],
            )
            self._insert_audit(
                conn, "user_created", actor, None, {"username": username, "roles": role_list}
            )

    def set_pin(self, username: str, pin: str, *, actor: str = "admin") -> None:
        _check_pin_format(pin)
        salt = secrets.token_bytes(16)
        digest = _hash_pin(pin, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_DKLEN)
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE users SET pin_hash = ?, pin_salt = ?, scrypt_n = ?, scrypt_r = ?, scrypt_p = ? "
                "WHERE username = ?",
                (digest, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, username),
            )
            if cur.rowcount != 1:
                raise StoreError(f"no user {username!r}")
            self._insert_audit(conn, "pin_changed", actor, None, {"username": username})

    def set_user_disabled(self, username: str, disabled: bool, *, actor: str = "admin") -> None:
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE users SET disabled = ? WHERE username = ?", (int(disabled), username)
            )
            if cur.rowcount != 1:
                raise StoreError(f"no user {username!r}")
            self._insert_audit(
                conn,
                "user_disabled" if disabled else "user_enabled",
                actor,
                None,
                {"username": username},
            )

    def user_roles(self, username: str) -> list[str]:
        with self._read() as conn:
            return [
                r[0]
                for r in conn.execute(
                    "SELECT role FROM user_roles WHERE username = ? ORDER BY role", (username,)
                )
            ]

    def users(self) -> list[dict[str, Any]]:
        with self._read() as conn:
            rows = conn.execute("SELECT username, disabled FROM users ORDER BY username").fetchall()
            return [
                {
                    "username": name,
                    "disabled": bool(disabled),
                    "roles": [
                        r[0]
                        for r in conn.execute(
                            "SELECT role FROM user_roles WHERE username = ? ORDER BY role", (name,)
                        )
                    ],
                }
                for name, disabled in rows
            ]

    def verify_pin(self, username: str, pin: str, *, role: str | None = None) -> bool:
        """True when ``pin`` is the user's PIN (and the user holds ``role``, if given).

        Unknown users and disabled users cost the same scrypt work; comparison is
        constant-time (hmac.compare_digest).
        """
        with self._read() as conn:
            row = conn.execute(
                "SELECT pin_hash, pin_salt, scrypt_n, scrypt_r, scrypt_p, disabled FROM users WHERE username = ?",
                (username,),
            ).fetchone()
            has_role = role is None or (
                conn.execute(
                    "SELECT 1 FROM user_roles WHERE username = ? AND role = ?", (username, role)
                ).fetchone()
                is not None
            )
        if row is None:
            _hash_pin(str(pin), bytes(16), SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_DKLEN)
            return False
        stored, salt, n, r, p, disabled = (
            bytes(row[0]),
            bytes(row[1]),
            int(row[2]),
            int(row[3]),
            int(row[4]),
            row[5],
        )
        candidate = _hash_pin(str(pin), salt, n, r, p, len(stored))
        match = hmac.compare_digest(candidate, stored)
        return match and has_role and not disabled

    def login(self, username: str, pin: str, *, role: str = "dealer") -> bool:
        """Check a PIN for ``role`` and record the login (or the failed attempt) in the audit log."""
        ok = self.verify_pin(username, pin, role=role)
        self.add_audit("login" if ok else "login_failed", actor=username, detail={"role": role})
        return ok

    def approve(
        self,
        supervisor: str,
        pin: str,
        *,
        kind: str,
        round_id: int | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> bool:
        """A supervisor approves a void / override / decision with their PIN.

        On success writes an audit entry of ``kind`` (e.g. ``void``, ``override``,
        ``supervisor_decision``) and returns True; on failure records
        ``approval_refused`` and returns False.
        """
        ok = self.verify_pin(supervisor, pin, role="supervisor")
        if ok:
            self.add_audit(kind, actor=supervisor, round_id=round_id, detail=detail)
        else:
            self.add_audit(
                "approval_refused",
                actor=supervisor,
                round_id=round_id,
                detail={"kind": kind, **dict(detail or {})},
            )
        return ok

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
            return self._insert_audit(conn, kind, actor, round_id, detail)

    def add_note(self, round_id: int | None, *, author: str, text: str) -> int:
        return self.add_audit("note", actor=author, round_id=round_id, detail={"text": text})

    def audit_entries(
        self, *, round_id: int | None = None, kind: str | None = None, limit: int | None = None
    ) -> list[AuditEntry]:
        """Audit entries, oldest first, filtered by round and/or kind."""
        where: list[str] = []
        params: list[Any] = []
        if round_id is not None:
            where.append("round_id = ?")
            params.append(round_id)
        if kind is not None:
            where.append("kind = ?")
            params.append(kind)
        sql = "SELECT id, at, actor, kind, round_id, detail_json FROM audit"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY id"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        with self._read() as conn:
            return [
                AuditEntry(int(r[0]), str(r[1]), str(r[2]), str(r[3]), r[4], json.loads(r[5]))
                for r in conn.execute(sql, params)
            ]

    # ---- tamper evidence

    def verify(self) -> VerifyResult:
        """Recompute every chain; the first row that does not match is named."""
        counters = _Counters()
        with self._read() as conn:
            problem = (
                self._verify_chain(
                    conn,
                    "events",
                    "SELECT id, round_id, seq, at, actor, event_json, hash FROM events ORDER BY id",
                    lambda r: _event_content(r[0], r[1], r[2], r[3], r[4], r[5]),
                    lambda r: f"events row {r[0]} (round {r[1]}, seq {r[2]})",
                    counters,
                )
                or self._verify_chain(
                    conn,
                    "rounds",
                    "SELECT id, session_id, number, source, started_at, config_json, hash FROM rounds ORDER BY id",
                    lambda r: _round_content(r[0], r[1], r[2], r[3], r[4], r[5]),
                    lambda r: f"rounds row {r[0]}",
                    counters,
                )
                or self._verify_chain(
                    conn,
                    "audit",
                    "SELECT id, at, actor, kind, round_id, detail_json, hash FROM audit ORDER BY id",
                    lambda r: _audit_content(r[0], r[1], r[2], r[3], r[4], r[5]),
                    lambda r: f"audit row {r[0]} ({r[3]})",
                    counters,
                )
                or self._verify_finishes(conn)
                or self._verify_settlements(conn)
            )
        c = counters.checked
        if problem is None:
            return VerifyResult(True, c["events"], c["rounds"], c["audit"])
        table, row_id, text = problem
        return VerifyResult(False, c["events"], c["rounds"], c["audit"], text, table, row_id)

    @staticmethod
    def _verify_chain(
        conn: sqlite3.Connection,
        table: str,
        sql: str,
        content: Any,
        name: Any,
        counters: _Counters,
    ) -> tuple[str, int, str] | None:
        prev = ZERO_HASH
        for row in conn.execute(sql):
            stored = row[-1]
            expected = _chain(prev, content(row))
            if not isinstance(stored, bytes) or not hmac.compare_digest(expected, stored):
                return (
                    table,
                    int(row[0]),
                    f"{name(row)}: hash does not match its content or the row before it",
                )
            prev = stored
            counters.checked[table] += 1
        return None

    @staticmethod
    def _verify_settlements(conn: sqlite3.Connection) -> tuple[str, int, str] | None:
        """The derived settlement rows must match each round's hashed settle output."""
        round_id = first_altered_settlements(conn)
        if round_id is None:
            return None
        return ("settlements", round_id,
                f"round {round_id}: its settlement rows differ from its recorded settle output")

    @staticmethod
    def _verify_finishes(conn: sqlite3.Connection) -> tuple[str, int, str] | None:
        latest: dict[int, dict[str, Any]] = {}
        for round_id, detail_json in conn.execute(
            "SELECT round_id, detail_json FROM audit WHERE kind = 'round_finish' AND round_id IS NOT NULL ORDER BY id"
        ):
            latest[int(round_id)] = json.loads(detail_json)
        for round_id, status, result_json in conn.execute(
            "SELECT id, status, result_json FROM rounds ORDER BY id"
        ):
            record = latest.get(int(round_id))
            if record is None:
                if result_json is not None or status != "in_progress":
                    return (
                        "rounds",
                        int(round_id),
                        f"rounds row {round_id}: result recorded without an audit record",
                    )
                continue
            digest = hashlib.sha256((result_json or "").encode("utf-8")).hexdigest()
            if status != record.get("status") or digest != record.get("result_sha256"):
                return (
                    "rounds",
                    int(round_id),
                    f"rounds row {round_id}: status or result differs from its audit record",
                )
            count = int(record.get("events") or 0)
            if count:
                row = conn.execute(
                    "SELECT id, hash FROM events WHERE round_id = ? AND seq = ?",
                    (round_id, count - 1),
                ).fetchone()
                if row is None or bytes(row[1]).hex() != record.get("last_event_hash"):
                    return (
                        "rounds",
                        int(round_id),
                        f"rounds row {round_id}: events missing (audit recorded {count})",
                    )
        return None


# ------------------------------------------------------------------- file identity


def _check_sqlite_header(path: Path, *, allow_empty: bool) -> None:
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as err:
        raise StoreError(f"cannot read {path}: {err.strerror or err}") from err
    if not head and allow_empty:
        return
    if head != SQLITE_MAGIC:
        raise StoreError(f"{path} is not a SQLite database")


def _check_identity(conn: sqlite3.Connection, path: Path, *, allow_new: bool) -> None:
    app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
    if app_id == APPLICATION_ID:
        return
    tables = {
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    }
    if allow_new and app_id == 0 and tables <= {Migrations_TABLE}:
        if Migrations_TABLE in tables:
            applied = conn.execute(
                f"SELECT COUNT(*) FROM {Migrations_TABLE} WHERE migration_set = ?", (MIGRATION_SET,)
            ).fetchone()[0]
            others = conn.execute(
                f"SELECT COUNT(*) FROM {Migrations_TABLE} WHERE migration_set != ?",
                (MIGRATION_SET,),
            ).fetchone()[0]
            if applied == 0 and others == 0:
                return
        else:
            return
    raise StoreError(f"{path} is not a Dealer Assist database")


Migrations_TABLE = sqlite_utils.Migrations.migrations_table


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
        if table is not None:
            store.claim_table(table, pit)
        return store.record_document(document, result)
