"""The store file's schema, its migrations, and opening a connection to it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dealer_assist.store.common import (
    APPLICATION_ID,
    BUSY_TIMEOUT_MS,
    MIGRATION_SET,
    ROLES,
    ROUND_STATUSES,
    SQLITE_MAGIC,
    StoreError,
)
from dealer_assist.store.keys import KeyedConnection
from dealer_assist.store.sqlite_lib import Database, Migrations

__all__ = [
    "KNOWN_MIGRATIONS",
    "MIGRATIONS",
    "MIGRATIONS_TABLE",
    "applied_migrations",
    "check_identity",
    "check_sqlite_header",
    "closed_on_failure",
    "connect",
]

MIGRATIONS = Migrations(MIGRATION_SET)


@MIGRATIONS(name="0001_initial")
def _m0001_initial(db: Database) -> None:
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
def _m0002_rounds_game_index(db: Database) -> None:
    # The review filters and sorts by game (issue 9).
    db.execute("CREATE INDEX rounds_game ON rounds(game, started_at)")


@MIGRATIONS(name="0003_session_table")
def _m0003_session_table(db: Database) -> None:
    # Which table a session (and so its rounds) belongs to: a restore after a crash takes
    # only its own table's open round, even when two tables write one file (issue 15).
    db.execute("ALTER TABLE sessions ADD COLUMN table_name TEXT NOT NULL DEFAULT 'table'")


@MIGRATIONS(name="0004_keyed_chains")
def _m0004_keyed_chains(db: Database) -> None:
    # The chains become keyed (HMAC with the station key, outside the file) and each
    # commit records a head (docs/store.md, Tamper evidence). The rows are re-chained by
    # ``keying.key_store`` right after, in the same write transaction, with the key.
    db.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID")
    db.execute(
        """CREATE TABLE head (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            generation INTEGER NOT NULL,
            events_id INTEGER NOT NULL,
            events_hash TEXT NOT NULL,
            rounds_id INTEGER NOT NULL,
            rounds_hash TEXT NOT NULL,
            audit_id INTEGER NOT NULL,
            audit_hash TEXT NOT NULL,
            schema_digest TEXT NOT NULL,
            mac TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX audit_finish ON audit(round_id, id) WHERE kind = 'round_finish'")


@MIGRATIONS(name="0005_table_identity")
def _m0005_table_identity(db: Database) -> None:
    # Issue 18: a store belongs to one table (its name and pit), set once (identity.py).
    db.execute(
        """CREATE TABLE table_identity (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            table_name TEXT NOT NULL,
            pit TEXT,
            created_at TEXT NOT NULL
        )"""
    )


@MIGRATIONS(name="0006_accounts")
def _m0006_accounts(db: Database) -> None:
    # Issue 15 item 8 / issue 17 item 3: a PIN that must be changed at its next use (set or
    # reset by a supervisor), and the wrong-PIN count behind the lockout, kept in the store
    # so a restart does not clear it.
    db.execute("ALTER TABLE users ADD COLUMN must_change INTEGER NOT NULL DEFAULT 0")
    db.execute(
        """CREATE TABLE pin_failures (
            username TEXT PRIMARY KEY,
            failures INTEGER NOT NULL,
            last_failure TEXT NOT NULL,
            locked_until TEXT
        )"""
    )
    # Events from this one on must each carry their supervisor's approval (verify checks it);
    # those written before, when the store did not ask for one, are left as they were.
    db.execute("CREATE TABLE authority_since AS SELECT COALESCE(MAX(id), 0) + 1 AS first_event_id FROM events")


@MIGRATIONS(name="0007_round_players_by_round")
def _m0007_round_players_by_round(db: Database) -> None:
    # Issue 15 (verify of a million rounds): a round's player rows with their nets read in
    # round order from one index, not looked up one by one in the table (ordered by player).
    db.execute("CREATE INDEX round_players_by_round ON round_players(round_id, player, net)")
    db.execute("DROP INDEX IF EXISTS round_players_round")


@MIGRATIONS(name="0008_rounds_by_shoe")
def _m0008_rounds_by_shoe(db: Database) -> None:
    # Issue 36: each round's header names its shoe (spec/round-script.md ``shoe``); game
    # protection reads the rounds of one shoe in order to rebuild its composition. The shoe
    # stays in config_json (chained with the round); this index finds a shoe's rounds.
    db.execute("CREATE INDEX rounds_shoe ON rounds(json_extract(config_json, '$.shoe.id'), id) "
               "WHERE json_extract(config_json, '$.shoe.id') IS NOT NULL")


@contextmanager
def closed_on_failure(conn: sqlite3.Connection, db_path: Path) -> Iterator[None]:
    """Close ``conn`` if opening the store fails; a database error becomes a StoreError."""
    try:
        yield
    except sqlite3.DatabaseError as err:
        conn.close()
        raise StoreError(f"{db_path} is not a usable Dealer Assist database: {err}") from err
    except BaseException:
        conn.close()
        raise


def connect(
    target: str, db_path: Path, *, uri: bool, busy_timeout_ms: int = BUSY_TIMEOUT_MS
) -> KeyedConnection:
    """A connection that waits for the writer rather than failing (busy timeout)."""
    try:
        conn = sqlite3.connect(
            target,
            uri=uri,
            timeout=busy_timeout_ms / 1000,
            check_same_thread=False,
            factory=KeyedConnection,
        )
    except sqlite3.Error as err:
        raise StoreError(f"cannot open {db_path}: {err}") from err
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    except sqlite3.DatabaseError as err:
        conn.close()
        raise StoreError(f"{db_path} is not a usable Dealer Assist database: {err}") from err
    return conn


# Every migration this program knows: all of them are pending on an empty database.
KNOWN_MIGRATIONS = frozenset(m.name for m in MIGRATIONS.pending(Database(memory=True)))
MIGRATIONS_TABLE = Migrations.migrations_table


def applied_migrations(db: Database, path: Path) -> list[str]:
    """The migrations applied to the file; refuses a file a newer program wrote."""
    names = [m.name for m in MIGRATIONS.applied(db)]
    unknown = [n for n in names if n not in KNOWN_MIGRATIONS]
    if unknown:
        raise StoreError(
            f"{path} was written by a newer Dealer Assist (schema {unknown[0]}); upgrade first"
        )
    return names


def check_sqlite_header(path: Path, *, allow_empty: bool) -> None:
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as err:
        raise StoreError(f"cannot read {path}: {err.strerror or err}") from err
    if not head and allow_empty:
        return
    if head != SQLITE_MAGIC:
        raise StoreError(f"{path} is not a SQLite database")


def check_identity(conn: sqlite3.Connection, path: Path, *, allow_new: bool) -> None:
    app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
    if app_id == APPLICATION_ID:
        return
    tables = {
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    }
    if allow_new and app_id == 0 and tables <= {MIGRATIONS_TABLE}:
        if MIGRATIONS_TABLE in tables:
            applied = conn.execute(
                f"SELECT COUNT(*) FROM {MIGRATIONS_TABLE} WHERE migration_set = ?", (MIGRATION_SET,)
            ).fetchone()[0]
            others = conn.execute(
                f"SELECT COUNT(*) FROM {MIGRATIONS_TABLE} WHERE migration_set != ?",
                (MIGRATION_SET,),
            ).fetchone()[0]
            if applied == 0 and others == 0:
                return
        else:
            return
    raise StoreError(f"{path} is not a Dealer Assist database")
