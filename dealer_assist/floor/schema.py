"""The floor database's schema, its migrations and its roles (``dealer-assist floor ...``).

Everything lives in the schema ``floor``. Each table of the casino is a row of
``floor.tables`` (name, pit, the station's role). Rows forwarded from a station carry
their table's name; the primary keys are (table, the station's own id), so a round is on
the floor once whatever happens to a forwarder (idempotent by (table, round)).

Roles (named after the database, so one server can hold several floors):

- ``<db>_station_<table>``: one per station. ``INSERT`` and ``SELECT`` on the forwarded
  tables, and row-level security policies that let it insert and see only its own
  table's rows (and only with its own pit). No ``UPDATE``, no ``DELETE``: the server
  refuses them, whatever the client does.
- ``<db>_review``: ``SELECT`` on everything, nothing else (pit supervisors' review).

The roles are created without a password: the floor's administrator gives each one its
credentials (``ALTER ROLE ... PASSWORD`` in psql, certificates, or ``pg_hba.conf``), and
stations read them through libpq (``PGPASSFILE``, ``PGSERVICEFILE``).

Migrations are applied in order, each once, in one transaction under an advisory lock;
a database carrying a migration this version does not know is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql

from dealer_assist.floor.connection import FloorError, connect, describe_error

__all__ = [
    "FORWARDED_TABLES",
    "MIGRATIONS",
    "StationRole",
    "ClearedAlarm",
    "add_station",
    "clear_alarm",
    "init_floor",
    "review_role",
    "station_role",
    "validate_pit",
    "validate_table",
]

#: Tables a station writes (each has ``table_name`` and row-level security).
FORWARDED_TABLES: tuple[str, ...] = (
    "sessions", "rounds", "events", "settlements", "rulings", "round_players", "audit", "alarms", "round_versions",
)
# the tables of migration 0001 (frozen: a migration never changes)
_M0001_TABLES = ("sessions", "rounds", "events", "settlements", "rulings", "round_players", "audit", "alarms")
_LOCK_KEY = 0x4441_466C  # "DAFl": the advisory lock of floor init

_M0001 = [
    "CREATE SCHEMA IF NOT EXISTS floor",
    """CREATE TABLE floor.schema_migrations (
        name text PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
    )""",
    """CREATE TABLE floor.tables (
        table_name text PRIMARY KEY,
        pit text NOT NULL,
        station_role text NOT NULL UNIQUE,
        added_at timestamptz NOT NULL DEFAULT now()
    )""",
    """CREATE TABLE floor.sessions (
        table_name text NOT NULL REFERENCES floor.tables,
        session_id bigint NOT NULL,
        game text NOT NULL,
        decks integer,
        areas integer,
        limits_json text NOT NULL,
        dealer text,
        started_at timestamptz NOT NULL,
        forwarded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (table_name, session_id)
    )""",
    """CREATE TABLE floor.rounds (
        table_name text NOT NULL REFERENCES floor.tables,
        round_id bigint NOT NULL,
        pit text NOT NULL,
        session_id bigint,
        number integer NOT NULL,
        source text NOT NULL,
        game text NOT NULL,
        dealer text,
        config_json text NOT NULL,
        started_at timestamptz NOT NULL,
        ended_at timestamptz,
        status text NOT NULL,
        players_json text NOT NULL,
        totals_json text NOT NULL,
        irregular boolean NOT NULL,
        result_json text,
        wagered numeric NOT NULL,
        house_net numeric NOT NULL,
        station_link bytea NOT NULL,
        finish_audit_id bigint,
        floor_seq bigint NOT NULL,
        floor_link bytea NOT NULL,
        forwarded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (table_name, round_id)
    )""",
    "CREATE UNIQUE INDEX rounds_table_seq ON floor.rounds (table_name, floor_seq)",
    # INCLUDE: the hourly win/hold and rounds per dealer of a pit read this index only
    "CREATE INDEX rounds_pit_started ON floor.rounds (pit, started_at DESC, table_name, round_id) "
    "INCLUDE (wagered, house_net, dealer)",
    "CREATE INDEX rounds_table_started ON floor.rounds (table_name, started_at DESC, round_id)",
    "CREATE INDEX rounds_started ON floor.rounds (started_at DESC, table_name, round_id)",
    # The rows of a round (events, settlements, rulings, players) have no foreign key to it:
    # they are written with it in one transaction, and verify checks them against it; a
    # per-row foreign-key trigger would halve the forwarding rate.
    """CREATE TABLE floor.events (
        table_name text NOT NULL,
        round_id bigint NOT NULL,
        seq integer NOT NULL,
        station_event_id bigint NOT NULL,
        at text NOT NULL,
        actor text NOT NULL,
        event_json text NOT NULL,
        station_link bytea NOT NULL,
        PRIMARY KEY (table_name, round_id, seq)
    )""",
    """CREATE TABLE floor.settlements (
        table_name text NOT NULL,
        round_id bigint NOT NULL,
        idx integer NOT NULL,
        player text NOT NULL,
        area integer,
        hand integer,
        bet text NOT NULL,
        stake numeric NOT NULL,
        result text NOT NULL,
        net numeric NOT NULL,
        rule text,
        stage text,
        PRIMARY KEY (table_name, round_id, idx)
    )""",
    """CREATE TABLE floor.rulings (
        table_name text NOT NULL,
        round_id bigint NOT NULL,
        idx integer NOT NULL,
        event_index integer,
        rule text,
        ruling text,
        text text,
        moves_json text NOT NULL,
        PRIMARY KEY (table_name, round_id, idx)
    )""",
    """CREATE TABLE floor.round_players (
        player text NOT NULL,
        started_at timestamptz NOT NULL,
        table_name text NOT NULL,
        round_id bigint NOT NULL,
        pit text NOT NULL,
        net numeric,
        wagered numeric NOT NULL,
        PRIMARY KEY (player, started_at, table_name, round_id)
    )""",
    "CREATE INDEX round_players_round ON floor.round_players (table_name, round_id)",
    # Every player name seen on the floor: the partial, case-insensitive search scans this
    # short list, then walks round_players' primary key for the names it matched.
    """CREATE TABLE floor.players (
        player text PRIMARY KEY,
        first_seen timestamptz NOT NULL DEFAULT now()
    )""",
    """CREATE TABLE floor.audit (
        table_name text NOT NULL REFERENCES floor.tables,
        audit_id bigint NOT NULL,
        at text NOT NULL,
        actor text NOT NULL,
        kind text NOT NULL,
        round_id bigint,
        detail_json text NOT NULL,
        station_link bytea NOT NULL,
        floor_link bytea NOT NULL,
        forwarded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (table_name, audit_id)
    )""",
    "CREATE INDEX audit_round ON floor.audit (table_name, round_id) WHERE round_id IS NOT NULL",
    # A station whose store no longer extends the floor's copy: forwarding stops for it.
    """CREATE TABLE floor.alarms (
        table_name text NOT NULL REFERENCES floor.tables,
        raised_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        reason text NOT NULL,
        PRIMARY KEY (table_name, raised_at)
    )""",
    *[f"ALTER TABLE floor.{t} ENABLE ROW LEVEL SECURITY" for t in _M0001_TABLES],
    "ALTER TABLE floor.tables ENABLE ROW LEVEL SECURITY",
]

# Supervisors' notes and disputes on the floor's rounds (written by the review role, into
# this table only: INSERT, never UPDATE or DELETE), and the administrator's clearing of a
# table's alarm (``floor clear-alarm``: the alarm moves here with who cleared it and why).
_M0002 = [
    """CREATE TABLE floor.notes (
        note_id bigserial PRIMARY KEY,
        table_name text NOT NULL REFERENCES floor.tables,
        round_id bigint NOT NULL,
        kind text NOT NULL CHECK (kind IN ('note', 'dispute')),
        supervisor text NOT NULL CHECK (supervisor <> ''),
        text text NOT NULL CHECK (text <> ''),
        db_role text NOT NULL DEFAULT current_user,
        written_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )""",
    "CREATE INDEX notes_round ON floor.notes (table_name, round_id)",
    "ALTER TABLE floor.notes ENABLE ROW LEVEL SECURITY",
    """CREATE TABLE floor.alarm_clearings (
        table_name text NOT NULL REFERENCES floor.tables,
        raised_at timestamptz NOT NULL,
        reason text NOT NULL,
        cleared_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        cleared_by text NOT NULL DEFAULT session_user,
        why text NOT NULL CHECK (why <> ''),
        PRIMARY KEY (table_name, raised_at)
    )""",
    "ALTER TABLE floor.alarm_clearings ENABLE ROW LEVEL SECURITY",
    # A round finished again at the station after it was forwarded (a 5.7 card after the
    # end): the floor's first copy stays as forwarded (and chained); each later finish is a
    # version here, keyed by its round_finish audit entry (whose result_sha256, chained in
    # floor.audit, verify checks it against), with the events recorded after the first copy
    # ([seq, station id, time, actor, event JSON, station link hex], ...).
    """CREATE TABLE floor.round_versions (
        table_name text NOT NULL REFERENCES floor.tables,
        round_id bigint NOT NULL,
        finish_audit_id bigint NOT NULL,
        status text NOT NULL,
        ended_at timestamptz,
        players_json text NOT NULL,
        totals_json text NOT NULL,
        irregular boolean NOT NULL,
        result_json text,
        wagered numeric NOT NULL,
        house_net numeric NOT NULL,
        events_json text NOT NULL,
        forwarded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (table_name, round_id, finish_audit_id)
    )""",
    "ALTER TABLE floor.round_versions ENABLE ROW LEVEL SECURITY",
]

#: (name, statements) in order. Never edit an applied migration: add a new one.
MIGRATIONS: tuple[tuple[str, list[str]], ...] = (("0001_initial", _M0001), ("0002_notes_alarms_versions", _M0002))
KNOWN = frozenset(name for name, _ in MIGRATIONS)

_TABLE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")


def validate_table(name: str) -> str:
    """A table's name: 1-32 letters, digits, '-', '_' or '.', starting with a letter or digit."""
    if not isinstance(name, str) or not _TABLE_RE.fullmatch(name):
        raise FloorError(
            f"table name {name!r}: 1 to 32 letters, digits, '-', '_' or '.', e.g. BJ-07"
        )
    return name


def validate_pit(name: str) -> str:
    if not isinstance(name, str) or not _TABLE_RE.fullmatch(name):
        raise FloorError(f"pit name {name!r}: 1 to 32 letters, digits, '-', '_' or '.', e.g. PIT-2")
    return name


def _role_part(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "x"


def review_role(dbname: str) -> str:
    return f"{_role_part(dbname)}_review"[:63]


def station_role(dbname: str, table: str) -> str:
    return f"{_role_part(dbname)}_station_{_role_part(table)}"[:63]


def _dbname(conn: psycopg.Connection[Any]) -> str:
    row = conn.execute("SELECT current_database()").fetchone()
    assert row is not None
    return str(row[0])


def _applied(conn: psycopg.Connection[Any]) -> list[str]:
    row = conn.execute("SELECT to_regclass('floor.schema_migrations')").fetchone()
    if row is None or row[0] is None:
        return []
    return [str(r[0]) for r in conn.execute("SELECT name FROM floor.schema_migrations ORDER BY name")]


def check_schema(conn: psycopg.Connection[Any]) -> None:
    """Refuse a database that is not a floor or was migrated by a newer version."""
    applied = _applied(conn)
    if not applied:
        raise FloorError("this database has no floor schema: run `dealer-assist floor init --url URL`")
    unknown = [n for n in applied if n not in KNOWN]
    if unknown:
        raise FloorError(f"the floor was migrated by a newer Dealer Assist (schema {unknown[0]}); upgrade first")
    if len(applied) < len(KNOWN):
        raise FloorError("the floor's schema is older than this version: run `dealer-assist floor init --url URL`")


def _ensure_role(conn: psycopg.Connection[Any], role: str) -> None:
    exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
    if exists is None:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))


def _grant_review(conn: psycopg.Connection[Any], role: str) -> None:
    ident = sql.Identifier(role)
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA floor TO {}").format(ident))
    conn.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA floor TO {}").format(ident))
    for table in (*FORWARDED_TABLES, "tables", "notes", "alarm_clearings"):
        name = sql.Identifier(f"review_{role}")
        conn.execute(sql.SQL("DROP POLICY IF EXISTS {} ON {}").format(name, sql.Identifier("floor", table)))
        conn.execute(
            sql.SQL("CREATE POLICY {} ON {} FOR SELECT TO {} USING (true)").format(
                name, sql.Identifier("floor", table), ident
            )
        )
    # Notes and disputes: the only rows the review role writes. The columns it may give leave
    # the writing role and time to the server; a note must name a round on the floor.
    conn.execute(sql.SQL("GRANT INSERT (table_name, round_id, kind, supervisor, text) ON floor.notes TO {}")
                 .format(ident))
    conn.execute(sql.SQL("GRANT USAGE ON SEQUENCE floor.notes_note_id_seq TO {}").format(ident))
    write = sql.Identifier(f"write_{role}")
    conn.execute(sql.SQL("DROP POLICY IF EXISTS {} ON floor.notes").format(write))
    conn.execute(sql.SQL(
        "CREATE POLICY {} ON floor.notes FOR INSERT TO {} WITH CHECK (db_role = current_user AND EXISTS "
        "(SELECT 1 FROM floor.rounds r WHERE r.table_name = notes.table_name AND r.round_id = notes.round_id))"
    ).format(write, ident))


def _grant_station(conn: psycopg.Connection[Any], role: str, table: str, pit: str) -> None:
    ident = sql.Identifier(role)
    own = sql.Literal(table)
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA floor TO {}").format(ident))
    conn.execute(sql.SQL("GRANT SELECT ON floor.schema_migrations, floor.tables TO {}").format(ident))
    conn.execute(sql.SQL("GRANT INSERT ON floor.players TO {}").format(ident))
    for name in FORWARDED_TABLES:
        target = sql.Identifier("floor", name)
        conn.execute(sql.SQL("GRANT SELECT, INSERT ON {} TO {}").format(target, ident))
        see = sql.Identifier(f"see_{role}")
        add = sql.Identifier(f"add_{role}")
        conn.execute(sql.SQL("DROP POLICY IF EXISTS {} ON {}").format(see, target))
        conn.execute(sql.SQL("DROP POLICY IF EXISTS {} ON {}").format(add, target))
        conn.execute(
            sql.SQL("CREATE POLICY {} ON {} FOR SELECT TO {} USING (table_name = {})").format(
                see, target, ident, own
            )
        )
        check = sql.SQL("table_name = {}").format(own)
        if name in ("rounds", "round_players"):
            check = sql.SQL("table_name = {} AND pit = {}").format(own, sql.Literal(pit))
        conn.execute(
            sql.SQL("CREATE POLICY {} ON {} FOR INSERT TO {} WITH CHECK ({})").format(
                add, target, ident, check
            )
        )
    see_table = sql.Identifier(f"see_{role}")
    conn.execute(sql.SQL("DROP POLICY IF EXISTS {} ON floor.tables").format(see_table))
    conn.execute(
        sql.SQL("CREATE POLICY {} ON floor.tables FOR SELECT TO {} USING (table_name = {})").format(
            see_table, ident, own
        )
    )


def init_floor(url: str) -> list[str]:
    """Create or migrate the floor schema and (re)grant the roles; returns the migrations applied."""
    with connect(url) as conn:
        try:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            applied = _applied(conn)
            unknown = [n for n in applied if n not in KNOWN]
            if unknown:
                raise FloorError(
                    f"the floor was migrated by a newer Dealer Assist (schema {unknown[0]}); upgrade first"
                )
            done: list[str] = []
            for name, statements in MIGRATIONS:
                if name in applied:
                    continue
                for statement in statements:
                    conn.execute(statement)
                conn.execute("INSERT INTO floor.schema_migrations (name) VALUES (%s)", (name,))
                done.append(name)
            dbname = _dbname(conn)
            review = review_role(dbname)
            _ensure_role(conn, review)
            _grant_review(conn, review)
            for table, pit, role in conn.execute(
                "SELECT table_name, pit, station_role FROM floor.tables ORDER BY table_name"
            ).fetchall():
                _ensure_role(conn, str(role))
                _grant_station(conn, str(role), str(table), str(pit))
            conn.commit()
        except psycopg.Error as err:
            raise FloorError(f"floor init failed: {describe_error(err)}") from None
    return done


@dataclass(frozen=True)
class StationRole:
    table: str
    pit: str
    role: str
    created: bool


def add_station(url: str, table: str, pit: str) -> StationRole:
    """Register a table (and its pit) and create its station role with its grants and policies."""
    validate_table(table)
    validate_pit(pit)
    with connect(url) as conn:
        try:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            check_schema(conn)
            role = station_role(_dbname(conn), table)
            row = conn.execute(
                "SELECT pit, station_role FROM floor.tables WHERE table_name = %s", (table,)
            ).fetchone()
            created = row is None
            if row is not None and str(row[0]) != pit:
                raise FloorError(f"table {table} is already registered in pit {row[0]}, not {pit}")
            if row is None:
                other = conn.execute(
                    "SELECT table_name FROM floor.tables WHERE station_role = %s", (role,)
                ).fetchone()
                if other is not None:
                    raise FloorError(f"table {table} would share the role {role} with table {other[0]}: rename it")
                conn.execute(
                    "INSERT INTO floor.tables (table_name, pit, station_role) VALUES (%s, %s, %s)",
                    (table, pit, role),
                )
            _ensure_role(conn, role)
            _grant_station(conn, role, table, pit)
            conn.commit()
        except psycopg.Error as err:
            raise FloorError(f"cannot add station {table}: {describe_error(err)}") from None
    return StationRole(table, pit, role, created)


@dataclass(frozen=True)
class ClearedAlarm:
    table: str
    raised_at: Any  # datetime (UTC)
    reason: str


def clear_alarm(url: str, table: str, why: str) -> list[ClearedAlarm]:
    """Clear a table's alarm (``dealer-assist floor clear-alarm``), as the administrator, after
    investigating: the alarm moves to ``floor.alarm_clearings`` with who cleared it (the
    database account), when and why, in one transaction. Forwarding resumes at the station's
    next pass — and stops again if its store still does not extend the floor's copy."""
    validate_table(table)
    why = why.strip()
    if not why:
        raise FloorError("say why the alarm is cleared (--why TEXT): it is kept with the alarm")
    with connect(url) as conn:
        try:
            check_schema(conn)
            rows = conn.execute(
                "DELETE FROM floor.alarms WHERE table_name = %s RETURNING raised_at, reason", (table,)
            ).fetchall()
            if not rows:
                known = conn.execute("SELECT 1 FROM floor.tables WHERE table_name = %s", (table,)).fetchone()
                raise FloorError(f"table {table} has no alarm" if known else f"no table {table} on the floor")
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO floor.alarm_clearings (table_name, raised_at, reason, why) VALUES (%s, %s, %s, %s)",
                    [(table, raised, reason, why) for raised, reason in rows],
                )
            conn.commit()
        except psycopg.Error as err:
            raise FloorError(f"cannot clear the alarm of {table}: {describe_error(err)}") from None
    return [ClearedAlarm(table, raised, str(reason)) for raised, reason in rows]
