"""Online floor migrations (issue 35, item 6): a schema change in steps that never block forwarding.

A migration of :data:`dealer_assist.floor.schema.MIGRATIONS` is either a list of statements
(applied in one transaction: fine for small tables, but a copy or rewrite of a big one holds its
locks for the whole copy and every forwarder waits) or an :class:`Online` one: a list of steps,
each its own short transaction, each recorded in ``floor.migration_steps`` when done:

- :class:`Change` (the create, and the swap): DDL that only touches the catalog (a nullable
  column, a trigger, a view replaced). It runs under ``lock_timeout``: when a long reader holds
  a table the change needs, it gives up after ``lock_timeout`` (so forwarders queued behind it
  wait that long at most), rolls back — nothing of it is left — and is tried again, ``attempts``
  times, then the upgrade stops with one line naming the sessions in the way.
- :class:`Backfill`: an ``UPDATE`` of a table in batches along a unique key (keyset, never
  OFFSET), each batch its own transaction that also records the last key done: a killed
  upgrade loses at most its batch in flight (rolled back by the server) and the next run
  resumes after the recorded key. Rows written meanwhile by forwarders are filled by the
  create step's trigger, so the backfill walks only up to the last key there when it began
  (recorded too): it ends however fast the stations add rows.

The last step of a migration is its swap: the swap's row in ``floor.migration_steps`` is
marked done in the swap's own transaction, so a reader sees either the old schema or the new
one whole — and that row is the migration's record. An online migration is never written to
``floor.schema_migrations``: every version reads that table and the versions before 0014's
refuse a floor naming a migration they do not know, so a name there would stop the previous
version's stations at their next connection (an online migration only adds, by its rules: the
previous version works after its swap). ``dealer_assist.floor.schema.applied_migrations`` reads
both.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import errors, sql

from dealer_assist.floor.connection import FloorError, describe_error

__all__ = ["Backfill", "Change", "Index", "Online", "OnlineOptions", "Progress", "run_online", "steps_done"]

#: Where the upgrade reports each step and batch (``print`` in the CLI).
Progress = Callable[[str], None]

_STEPS_TABLE = """CREATE TABLE IF NOT EXISTS floor.migration_steps (
    migration text NOT NULL,
    step text NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now(),
    done_at timestamptz,
    resume_after jsonb,
    until_key jsonb,
    rows bigint NOT NULL DEFAULT 0,
    batches integer NOT NULL DEFAULT 0,
    PRIMARY KEY (migration, step)
)"""


@dataclass(frozen=True)
class Change:
    """Catalog-only DDL in one short transaction under ``lock_timeout``, retried."""

    name: str
    statements: tuple[str, ...]


@dataclass(frozen=True)
class Backfill:
    """``UPDATE floor.<table> SET <assignment>`` in batches along ``key``: (column, type) pairs
    of a unique key, walked in its order."""

    name: str
    table: str
    key: tuple[tuple[str, str], ...]
    assignment: str


@dataclass(frozen=True)
class Index:
    """An index built without blocking writes. On a plain table, ``CREATE INDEX CONCURRENTLY``;
    on a partitioned one (which has no CONCURRENTLY), the index made ``ON ONLY`` the parent
    (invalid, instant: the parent holds no rows), then each partition's built concurrently and
    attached (the parent's turns valid with the last). An invalid index left by a killed run
    is dropped and built again. ``columns``: its column list, e.g. ``(pit, reach)``."""

    name: str
    table: str
    index: str
    columns: str


Step = Change | Backfill | Index


@dataclass(frozen=True)
class Online:
    """An online migration: its steps in order; the last one is the swap (a :class:`Change`,
    whose step row, marked done in its own transaction, records the migration)."""

    steps: tuple[Step, ...]

    def __post_init__(self) -> None:
        names = [step.name for step in self.steps]
        if not self.steps or not isinstance(self.steps[-1], Change) or len(set(names)) != len(names):
            raise ValueError(f"an online migration ends with its swap (a Change), its steps named once: {names}")


@dataclass(frozen=True)
class OnlineOptions:
    """``batch``: rows per backfill transaction; ``lock_timeout`` (s): how long a change waits
    for its locks before it gives up (forwarders queued behind it wait at most that long: keep
    it under the stations' own lock_timeout, 5 s); ``attempts``: tries of a change; ``pause``
    (s): a rest between batches for a busy server; ``swap``: False stops before the swap (the
    create and backfill now, the swap at a quiet moment)."""

    batch: int = 1000
    lock_timeout: float = 2.0
    attempts: int = 5
    pause: float = 0.0
    swap: bool = True

    def __post_init__(self) -> None:
        if self.batch < 1 or self.attempts < 1 or not self.lock_timeout > 0 or not self.pause >= 0:
            raise FloorError("floor upgrade: --batch and --attempts at least 1, --lock-timeout above 0, "
                             "--pause 0 or more")


def steps_done(conn: psycopg.Connection[Any], migration: str) -> dict[str, tuple[bool, int, Any]]:
    """Each recorded step of ``migration``: (done, rows backfilled, resume key)."""
    found = conn.execute("SELECT to_regclass('floor.migration_steps')").fetchone()
    if found is None or found[0] is None:
        return {}
    return {str(step): (done is not None, int(rows), resume) for step, done, rows, resume in conn.execute(
        "SELECT step, done_at, rows, resume_after FROM floor.migration_steps WHERE migration = %s", (migration,))}


def run_online(conn: psycopg.Connection[Any], name: str, migration: Online, options: OnlineOptions,
               progress: Progress) -> bool:
    """Run the steps of ``migration`` not yet done; True when it is complete (its swap done and
    recorded in floor.migration_steps), False when stopped before its swap (``swap=False``).
    ``conn`` is the administrator's, in no transaction (each step commits on its own)."""
    conn.autocommit = True
    try:
        conn.execute(_STEPS_TABLE)
        recorded = steps_done(conn, name)
        for index, step in enumerate(migration.steps):
            swap = index == len(migration.steps) - 1
            if recorded.get(step.name, (False, 0, None))[0]:
                progress(f"{name}: {step.name} done earlier")
                continue
            if swap and not options.swap:
                progress(f"{name}: stopped before {step.name} (--no-swap): run `floor upgrade` again to finish")
                return False
            conn.execute("INSERT INTO floor.migration_steps (migration, step) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                         (name, step.name))
            if isinstance(step, Change):
                _change(conn, name, step, options, progress)
            elif isinstance(step, Index):
                _index(conn, name, step, options, progress)
            else:
                _backfill(conn, name, step, options, progress)
        return True
    finally:
        conn.autocommit = False


def _holders(conn: psycopg.Connection[Any], seconds: float) -> str:
    """The sessions holding a lock on a floor relation in a transaction older than ``seconds``."""
    rows = conn.execute(
        "SELECT DISTINCT a.pid, a.usename, round(extract(epoch FROM clock_timestamp() - a.xact_start))::int, "
        "left(regexp_replace(coalesce(a.query, ''), '\\s+', ' ', 'g'), 60) "
        "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid JOIN pg_class c ON c.oid = l.relation "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE l.granted AND n.nspname = 'floor' "
        "AND l.pid <> pg_backend_pid() AND a.xact_start < clock_timestamp() - make_interval(secs => %s) "
        "ORDER BY 3 DESC LIMIT 3", (seconds,)).fetchall()
    if not rows:
        return "no session holds one now"
    return "; ".join(f"pid {pid} ({user}, in a transaction for {age} s: {query})" for pid, user, age, query in rows)


def _change(conn: psycopg.Connection[Any], name: str, step: Change, options: OnlineOptions,
            progress: Progress) -> None:
    started = time.monotonic()
    _short(conn, name, step.name, step.statements, options, progress, done=True)
    progress(f"{name}: {step.name} done in {1000 * (time.monotonic() - started):.0f} ms")


def _short(conn: psycopg.Connection[Any], name: str, step: str, statements: tuple[str, ...], options: OnlineOptions,
           progress: Progress, *, done: bool) -> None:
    """``statements`` in one transaction under ``lock_timeout``, tried ``attempts`` times; with
    ``done`` the step is marked done in it (the swap's: the migration recorded)."""
    wait = sql.Literal(f"{int(options.lock_timeout * 1000)}ms")
    for attempt in range(1, options.attempts + 1):
        try:
            with conn.transaction():
                conn.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(wait))
                for statement in statements:
                    conn.execute(statement)
                if done:
                    conn.execute("UPDATE floor.migration_steps SET done_at = clock_timestamp() "
                                 "WHERE migration = %s AND step = %s", (name, step))
            return
        except errors.LockNotAvailable:
            held = _holders(conn, options.lock_timeout)
            if attempt == options.attempts:
                raise FloorError(
                    f"{name}: {step} gave up: its locks were not free within {options.lock_timeout:g} s, "
                    f"{options.attempts} times ({held}); nothing of {step} was done: "
                    "run `dealer-assist floor upgrade` again when the floor is quieter") from None
            rest = min(0.5 * 2 ** (attempt - 1), 5.0)
            progress(f"{name}: {step}: locks not free within {options.lock_timeout:g} s "
                     f"(attempt {attempt} of {options.attempts}; {held}); again in {rest:g} s")
            time.sleep(rest)
        except psycopg.Error as err:
            raise FloorError(f"{name}: {step} failed: {describe_error(err)}; nothing of it was done") from None


def _concurrently(conn: psycopg.Connection[Any], name: str, step: str, index: str, target: str, columns: str,
                  progress: Progress) -> None:
    """``CREATE INDEX CONCURRENTLY`` (outside any transaction), after dropping an invalid one of
    that name left by an interrupted run. It waits for the transactions before it without a
    lock timeout: its lock (SHARE UPDATE EXCLUSIVE) lets every read and write go on."""
    found = conn.execute("SELECT x.indisvalid FROM pg_index x WHERE x.indexrelid = to_regclass(%s)",
                         (f"floor.{index}",)).fetchone()
    ident = sql.Identifier("floor", index)
    try:
        if found is not None and not found[0]:
            conn.execute(sql.SQL("DROP INDEX CONCURRENTLY {}").format(ident))
            progress(f"{name}: {step}: dropped the invalid {index} an interrupted run left")
        conn.execute("SET lock_timeout = 0")
        started = time.monotonic()
        conn.execute(sql.SQL("CREATE INDEX CONCURRENTLY IF NOT EXISTS {} ON {} {}").format(
            sql.Identifier(index), sql.Identifier("floor", target), sql.SQL(columns)))
        progress(f"{name}: {step}: {index} built in {1000 * (time.monotonic() - started):.0f} ms")
    except psycopg.Error as err:
        raise FloorError(f"{name}: {step}: building {index} failed: {describe_error(err)} (`floor upgrade` again "
                         "drops what it left and builds it again)") from None
    finally:
        conn.execute("RESET lock_timeout")


def _index(conn: psycopg.Connection[Any], name: str, step: Index, options: OnlineOptions,
           progress: Progress) -> None:
    kind = conn.execute("SELECT relkind FROM pg_class WHERE oid = to_regclass(%s)", (f"floor.{step.table}",)).fetchone()
    if kind is None:
        raise FloorError(f"{name}: {step.name}: no table floor.{step.table}")
    if kind[0] != "p":
        _concurrently(conn, name, step.name, step.index, step.table, step.columns, progress)
        _short(conn, name, step.name, (), options, progress, done=True)
        return
    parent = sql.Identifier("floor", step.index)
    _short(conn, name, step.name, (sql.SQL("CREATE INDEX IF NOT EXISTS {} ON ONLY {} {}").format(
        sql.Identifier(step.index), sql.Identifier("floor", step.table), sql.SQL(step.columns)).as_string(conn),),
        options, progress, done=False)
    suffix = step.index.removeprefix(f"{step.table}_")
    while True:
        # the partitions whose index is not attached yet (a month made meanwhile gets its index
        # when floor.add_month attaches it)
        missing = [str(r[0]) for r in conn.execute(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = to_regclass(%s) AND NOT EXISTS (SELECT 1 FROM pg_inherits j "
            "JOIN pg_index x ON x.indexrelid = j.inhrelid WHERE j.inhparent = to_regclass(%s) AND x.indrelid = c.oid) "
            "ORDER BY c.relname", (f"floor.{step.table}", f"floor.{step.index}"))]
        if not missing:
            break
        for part in missing:
            child = f"{part}_{suffix}"[:63]
            _concurrently(conn, name, step.name, child, part, step.columns, progress)
            _short(conn, name, step.name, (sql.SQL("ALTER INDEX {} ATTACH PARTITION {}").format(
                parent, sql.Identifier("floor", child)).as_string(conn),), options, progress, done=False)
    valid = conn.execute("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(%s)",
                         (f"floor.{step.index}",)).fetchone()
    if valid is None or not valid[0]:
        raise FloorError(f"{name}: {step.name}: {step.index} is not valid after attaching every partition's")
    _short(conn, name, step.name, (), options, progress, done=True)
    progress(f"{name}: {step.name} done: {step.index} on every partition of floor.{step.table}")


def _backfill(conn: psycopg.Connection[Any], name: str, step: Backfill, options: OnlineOptions,
              progress: Progress) -> None:
    table = sql.Identifier("floor", step.table)
    keys = sql.SQL(", ").join(sql.Identifier(k) for k, _ in step.key)
    match = sql.SQL(" AND ").join(sql.SQL("t.{0} = b.{0}").format(sql.Identifier(k)) for k, _ in step.key)
    last = sql.SQL(", ").join(sql.SQL("{} DESC").format(sql.Identifier(k)) for k, _ in step.key)
    bound = sql.SQL(", ").join(sql.SQL("(%s::jsonb ->> {})::{}").format(sql.Literal(i), sql.SQL(kind))
                               for i, (_, kind) in enumerate(step.key))
    # The last key there when the backfill begins (the create step committed: every row written
    # since carries its value already): the walk ends there, however fast forwarders add rows.
    conn.execute(sql.SQL("UPDATE floor.migration_steps SET until_key = (SELECT jsonb_build_array({}) FROM {} "
                         "ORDER BY {} LIMIT 1) WHERE migration = %s AND step = %s AND until_key IS NULL "
                         "AND batches = 0").format(keys, table, last), (name, step.name))
    row = conn.execute("SELECT rows, batches, resume_after, until_key FROM floor.migration_steps "
                       "WHERE migration = %s AND step = %s", (name, step.name)).fetchone()
    assert row is not None
    rows, batches, resume, until = int(row[0]), int(row[1]), row[2], row[3]
    if resume is not None:
        progress(f"{name}: {step.name}: resuming after {json.dumps(resume)} ({rows} rows in {batches} batches "
                 "done earlier)")
    while True:
        started = time.monotonic()
        where = sql.SQL("WHERE ({}) <= ({})").format(keys, bound)
        if resume is not None:
            where = sql.SQL("{} AND ({}) > ({})").format(where, keys, bound)
        query = sql.SQL(
            "WITH b AS (SELECT {keys} FROM {table} {where} ORDER BY {keys} LIMIT %s), "
            "u AS (UPDATE {table} t SET {assignment} FROM b WHERE {match} RETURNING 1) "
            "SELECT (SELECT count(*) FROM u), (SELECT count(*) FROM b), "
            "(SELECT jsonb_build_array({keys}) FROM b ORDER BY {last} LIMIT 1)"
        ).format(keys=keys, table=table, where=where, assignment=sql.SQL(step.assignment), match=match, last=last)
        params: list[Any] = [json.dumps(until)] * len(step.key)
        if resume is not None:
            params += [json.dumps(resume)] * len(step.key)
        try:
            with conn.transaction():
                got = conn.execute(query, [*params, options.batch]).fetchone()
                assert got is not None
                updated, walked, resume_next = int(got[0]), int(got[1]), got[2]
                if walked == 0:
                    conn.execute("UPDATE floor.migration_steps SET done_at = clock_timestamp() "
                                 "WHERE migration = %s AND step = %s", (name, step.name))
                else:
                    conn.execute("UPDATE floor.migration_steps SET resume_after = %s, rows = rows + %s, "
                                 "batches = batches + 1 WHERE migration = %s AND step = %s",
                                 (json.dumps(resume_next), updated, name, step.name))
        except psycopg.Error as err:
            raise FloorError(f"{name}: {step.name}: a batch failed: {describe_error(err)} (rolled back; "
                             "`floor upgrade` again resumes after the last batch done)") from None
        if walked == 0:
            progress(f"{name}: {step.name} done: {rows} rows in {batches} batches")
            return
        rows += updated
        batches += 1
        resume = resume_next
        progress(f"{name}: {step.name}: batch {batches}: {updated} rows in "
                 f"{1000 * (time.monotonic() - started):.0f} ms ({rows} so far, up to {json.dumps(resume)})")
        if options.pause:
            time.sleep(options.pause)
