"""``history verify``: every stored fact is chained, sealed or re-derived, and the head matches.

One streaming pass (memory does not grow with the number of rounds):

1. the three keyed chains (events, rounds, audit) are recomputed row by row;
2. the audit log is folded into what it says the ``sessions``, ``users``/``user_roles``
   and ``under_min_history`` tables hold (each change records the whole new state);
3. every round is checked: a round whose chained finish record carries a seal
   (:mod:`dealer_assist.store.seal`) is compared with it, its events included (they then need
   no link-by-link check); any other round (unfinished, finished before seals, with events
   after its finish, or whose seal does not match) is re-settled through the engine from its
   chained config and events (up to its latest chained finish record) and every derived column
   is compared with the re-settlement: status, result (its sha256 in the finish record),
   totals, players, ``round_players``, irregular, end time, each settlement (player, area,
   hand, bet, stake, result, net, rule, stage) and ruling, and the 5.26 history it implies.
   ``resettle=True`` re-settles every round (the slow audit of the engine's own results);
4. the head record in the file (the newest row of each chain, MACed) must name the chains'
   real ends, and the head outside the file must not be newer than the file.

The sealed rounds are checked a range of round ids at a time, in ``jobs`` worker processes
(each on its own read-only connection) when the store is large enough to be worth it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import multiprocessing
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from dealer_assist.base.errors import DealerAssistError, TranscriptError
from dealer_assist.engine.transcript import new_round, parse_event, round_output
from dealer_assist.store.authority import first_unauthorised_event
from dealer_assist.store.chain import audit_content, event_content, round_content, verify_chain
from dealer_assist.store.common import StoreError, canonical_json, decimal_text
from dealer_assist.store.credits import reconcile
from dealer_assist.store.keying import CHAIN_SCHEME, meta_value, read_head, schema_digest
from dealer_assist.store.keys import CHAINS, Head, key_id, read_head_file
from dealer_assist.store.log import players_of_event
from dealer_assist.store.prefetch import Prefetch
from dealer_assist.store.results import (
    irregular_flag,
    net_texts,
    ruling_rows,
    settlement_rows,
)
from dealer_assist.store.seal import Hmac, RangeCheck, chain_rows_ok, check_range, check_range_in
from dealer_assist.store.states import SESSION_COLUMNS, user_state

__all__ = ["CENTS_SQL", "VerifyResult", "first_altered_settlements", "verify"]

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



Problem = tuple[str, int, str]


#: Below this many rounds the sealed rounds are checked in this process (a worker costs more).
PARALLEL_MIN_ROUNDS = 20_000


def verify(
    conn: sqlite3.Connection,
    key: bytes | None,
    head_path: Path | None = None,
    *,
    path: Path | None = None,
    jobs: int = 1,
    resettle: bool = False,
) -> VerifyResult:
    """Check the whole store (see the module's docstring); the first problem is named.

    ``path``: the store file, for worker processes (``jobs`` > 1) to open read-only.
    ``resettle``: re-settle every round through the engine, sealed or not."""
    checked = {"events": 0, "rounds": 0, "audit": 0}
    tails: dict[str, tuple[int, str]] = {}
    # The head outside the file is written after each commit: read it before the snapshot
    # (the first query) so that a writer committing meanwhile never makes it look newer.
    outside = read_head_file(head_path, key) if head_path is not None and key else None
    try:
        if resettle:
            problem = _verify(conn, key, head_path, outside, checked, tails)
        else:
            problem = _verify_sealed(conn, key, head_path, outside, checked, tails, path, jobs)
    except StoreError as err:
        problem = ("store", 0, str(err))
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, sqlite3.Error) as err:
        # a record edited into something the program never writes (bad JSON, a wrong type)
        problem = ("store", 0, f"a record cannot be read as the program writes it: {err!r}")
    if problem is None:
        return VerifyResult(True, checked["events"], checked["rounds"], checked["audit"])
    table, row_id, text = problem
    return VerifyResult(
        False, checked["events"], checked["rounds"], checked["audit"], text, table, row_id
    )


def _verify_meta(conn: sqlite3.Connection, key: bytes | None) -> Problem | None:
    if meta_value(conn, "chain_scheme") != CHAIN_SCHEME:
        return ("meta", 0, "the store's chains are not keyed (meta chain_scheme is missing or changed)")
    recorded_key = meta_value(conn, "key_id")
    if not key:
        return ("meta", 0, "the station key is missing: the keyed chains cannot be checked")
    if recorded_key != key_id(key):
        return ("meta", 0, f"the store names station key {recorded_key}, not the key given ({key_id(key)})")
    return None


#: A row's chain hash as the chain check reads it: a hash stored as anything but a BLOB (text
#: of the same bytes, say) does not match, and is named as such rather than failing to decode.
_BLOB_HASH = "CASE WHEN typeof(hash) = 'blob' THEN hash END"

# table -> (the reference query, its row's chain content, how a row is named)
_CHAINS: dict[str, tuple[str, Callable[[Any], Sequence[Any]], Callable[[Any], str]]] = {
    "events": (
        "SELECT id, round_id, seq, at, actor, event_json, " + _BLOB_HASH + " FROM events ORDER BY id",
        lambda r: event_content(r[0], r[1], r[2], r[3], r[4], r[5]),
        lambda r: f"events row {r[0]} (round {r[1]}, seq {r[2]})",
    ),
    "rounds": (
        "SELECT id, session_id, number, source, started_at, config_json, " + _BLOB_HASH + " FROM rounds ORDER BY id",
        lambda r: round_content(r[0], r[1], r[2], r[3], r[4], r[5]),
        lambda r: f"rounds row {r[0]}",
    ),
    "audit": (
        "SELECT id, at, actor, kind, round_id, detail_json, " + _BLOB_HASH + " FROM audit ORDER BY id",
        lambda r: audit_content(r[0], r[1], r[2], r[3], r[4], r[5]),
        lambda r: f"audit row {r[0]} ({r[3]})",
    ),
}


def _chain(
    conn: sqlite3.Connection,
    table: str,
    key: bytes,
    checked: dict[str, int],
    tails: dict[str, tuple[int, str]],
    done: tuple[int, int, bytes] | None = None,
) -> Problem | None:
    """One chain: the fast check (:func:`chain_rows_ok`), and when it does not hold, the
    reference walk, which names the first row that does not match."""
    if done is None:
        done = chain_rows_ok(conn, table, Hmac(key))
    if done is not None:
        count, last_id, last_hash = done
        checked[table] += count
        tails[table] = (last_id, last_hash.hex() if last_id else "")
        return None
    sql, content, name = _CHAINS[table]
    return verify_chain(conn, table, sql, content, name, checked, key, tails)


def _verify(
    conn: sqlite3.Connection,
    key: bytes | None,
    head_path: Path | None,
    outside: Head | None,
    checked: dict[str, int],
    tails: dict[str, tuple[int, str]],
) -> Problem | None:
    """The reference check: every chain link by link, every round re-settled."""
    problem = _verify_meta(conn, key)
    if problem is not None:
        return problem
    assert key is not None
    problem = (
        _chain(conn, "events", key, checked, tails)
        or _chain(conn, "rounds", key, checked, tails)
        or _chain(conn, "audit", key, checked, tails)
    )
    if problem is not None:
        return problem
    folded = _fold_audit(conn)
    return (
        _verify_rounds(conn, folded)
        or _verify_rest(conn, key, head_path, outside, tails, folded, None)
    )


def _verify_rest(
    conn: sqlite3.Connection,
    key: bytes,
    head_path: Path | None,
    outside: Head | None,
    tails: dict[str, tuple[int, str]],
    folded: _Folded,
    approval_rounds: list[int] | None,
) -> Problem | None:
    return (
        _verify_sessions(conn, folded)
        or _verify_users(conn, folded)
        or _verify_authority(conn, approval_rounds)
        or _verify_under_min(conn, folded)
        or _verify_table_identity(conn, folded)
        or _verify_pin_failures(conn, folded)
        or _verify_credits(conn)
        or _verify_head(conn, key, head_path, outside, tails)
    )


def _verify_sealed(
    conn: sqlite3.Connection,
    key: bytes | None,
    head_path: Path | None,
    outside: Head | None,
    checked: dict[str, int],
    tails: dict[str, tuple[int, str]],
    path: Path | None,
    jobs: int,
) -> Problem | None:
    """The check that trusts a round's seal (docs/store.md): the same verdicts and the same
    first problem as :func:`_verify`, except that a sealed round is not re-settled."""
    problem = _verify_meta(conn, key)
    if problem is not None:
        return problem
    assert key is not None
    rounds_ids = conn.execute("SELECT min(id), max(id) FROM rounds").fetchone()
    audit_ids = conn.execute("SELECT min(id), max(id) FROM audit").fetchone()
    folding: list[_Folded | Exception] = []

    def fold() -> None:  # while the workers check the rounds; used once the chains hold
        try:
            folding.append(_fold_audit(conn))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, sqlite3.Error) as err:
            folding.append(err)

    large = int(rounds_ids[1] or 0) >= PARALLEL_MIN_ROUNDS
    try:
        with Prefetch(path if large else None):  # the file read ahead in order (a cold page cache)
            ranges = _check_ranges(conn, key, path, jobs, rounds_ids, audit_ids, fold)
    except sqlite3.Error:
        ranges = None  # a value SQLite cannot serialise (a BLOB where text belongs ...)
    if ranges is None or any(r.audit_span is not None and r.audit_chain is None for r in ranges):
        # a finish record (and so a seal) may be forged: the reference check names the problem
        return _verify(conn, key, head_path, outside, checked, tails)
    top = int(rounds_ids[1] or 0)
    covered = all(r.covered for r in ranges) and not _outside_rounds(conn, top)
    if covered:
        checked["events"] = sum(r.events for r in ranges)
        last = conn.execute("SELECT id, hash FROM events ORDER BY id DESC LIMIT 1").fetchone()
        tails["events"] = (int(last[0]), bytes(last[1]).hex()) if last is not None else (0, "")
    else:
        problem = _chain(conn, "events", key, checked, tails)
    if problem is None:
        problem = _chains_of_ranges(conn, key, checked, tails, ranges)
    if problem is not None:
        return problem
    folded = folding[0] if folding else _fold_audit(conn)
    if isinstance(folded, Exception):
        raise folded
    if not covered:  # rows of a round id that is no round's: the reference pass names them
        return _verify_rounds(conn, folded) or (
            "store", 0, "rows of the events or derived tables belong to no round")
    if any(r.overflow for r in ranges):
        # mostly rounds without a seal (a store from before seals): one streaming pass
        # re-settles every round, rather than listing them
        return _verify_rounds(conn, folded) or _verify_rest(conn, key, head_path, outside, tails, folded, None)
    untrusted = {u for r in ranges for u in r.untrusted}
    # rounds still open in this snapshot (a worker may have seen them finished later)
    untrusted.update(int(r[0]) for r in conn.execute(
        "SELECT id FROM rounds WHERE status IN ('in_progress', 'referred') AND id <= ?", (top,)))
    mismatched = {u for r in ranges for u in r.mismatched}
    for round_id in sorted(untrusted):
        problem = _verify_one_round(conn, round_id, folded)
        if problem is None and round_id in mismatched:
            problem = ("rounds", round_id,
                       f"rounds row {round_id}: its records differ from the seal in its finish record")
        if problem is not None:
            return problem
    approval = sorted(untrusted.union(a for r in ranges for a in r.approval))
    return _verify_rest(conn, key, head_path, outside, tails, folded, approval)


def _chains_of_ranges(
    conn: sqlite3.Connection,
    key: bytes,
    checked: dict[str, int],
    tails: dict[str, tuple[int, str]],
    ranges: list[RangeCheck],
) -> Problem | None:
    """The rounds and audit chains as the ranges found them (the reference walk names the
    first bad row of a chain one of them found broken)."""
    for table in ("rounds", "audit"):
        parts = [r.rounds_chain if table == "rounds" else r.audit_chain for r in ranges
                 if table == "rounds" or r.audit_span is not None]
        if any(part is None for part in parts):
            checked[table] = 0
            problem = _chain(conn, table, key, checked, tails)
            if problem is not None:
                return problem
            continue
        done = [part for part in parts if part is not None and part[0]]
        checked[table] = sum(part[0] for part in done)
        tails[table] = (done[-1][1], done[-1][2].hex()) if done else (0, "")
    return None


def _spans(low: Any, high: Any, parts: int) -> list[tuple[int, int]]:
    """``parts`` consecutive id ranges covering ``low``..``high`` (fewer when there are fewer ids)."""
    if low is None or high is None:
        return []
    low, high = int(low), int(high)
    size = high - low + 1
    bounds = [low + size * n // parts for n in range(parts + 1)]
    return [(bounds[n], bounds[n + 1] - 1) for n in range(parts) if bounds[n] < bounds[n + 1]]


def _check_ranges(
    conn: sqlite3.Connection,
    key: bytes,
    path: Path | None,
    jobs: int,
    rounds_ids: Sequence[Any],
    audit_ids: Sequence[Any],
    meanwhile: Callable[[], None],
) -> list[RangeCheck]:
    """The rounds' seals and the rounds and audit chains: in this process on its snapshot,
    or split into ranges among ``jobs`` worker processes (each on a snapshot at least as new),
    this process doing ``meanwhile`` while they work."""
    top = int(rounds_ids[1] or 0)
    parallel = jobs > 1 and path is not None and top >= PARALLEL_MIN_ROUNDS
    parts = jobs * 4 if parallel else 1  # a few ranges each: a worker slowed by other work holds up less
    spans = _spans(rounds_ids[0], rounds_ids[1], parts) or [(1, 0)]
    audit: list[tuple[int, int] | None] = list(_spans(audit_ids[0], audit_ids[1], len(spans)))
    audit += [None] * (len(spans) - len(audit))
    if parallel:
        # spawn, not fork: a forked worker would inherit this connection's SQLite lock state
        # (and a verify may run in a program with threads, the review screens)
        try:
            with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
                results = pool.map(check_range, [str(path)] * len(spans), [key] * len(spans),
                                   [lo for lo, _ in spans], [hi for _, hi in spans], audit)
                meanwhile()
                return list(results)
        except (BrokenProcessPool, OSError):
            pass  # no worker could be started, or one died: this process checks every range
    return [check_range_in(conn, key, lo, hi, a) for (lo, hi), a in zip(spans, audit, strict=True)]


def _outside_rounds(conn: sqlite3.Connection, top: int) -> bool:
    """Whether any event or derived row names a round id outside 1..``top`` (or none)."""
    for table in ("events", "settlements", "rulings", "round_players"):
        for where in ("round_id IS NULL", "round_id < 1", "round_id > ?"):
            params = (top,) if "?" in where else ()
            if conn.execute(f"SELECT 1 FROM {table} WHERE {where} LIMIT 1", params).fetchone() is not None:
                return True
    return False


def _verify_one_round(conn: sqlite3.Connection, round_id: int, folded: _Folded) -> Problem | None:
    """The full check of one round (re-settled), its rows read by its id."""
    row = conn.execute(
        "SELECT id, game, config_json, status, ended_at, players_json, totals_json, irregular, result_json "
        "FROM rounds WHERE id = ?", (round_id,)
    ).fetchone()
    if row is None:
        return None
    by_round = (round_id,)
    return _verify_round(
        row,
        conn.execute("SELECT round_id, seq, event_json, hash FROM events WHERE round_id = ? ORDER BY seq",
                     by_round).fetchall(),
        conn.execute("SELECT round_id, id, at, detail_json FROM audit INDEXED BY audit_finish "
                     "WHERE kind = 'round_finish' AND round_id = ? ORDER BY id", by_round).fetchall(),
        conn.execute("SELECT round_id, player, area, hand, bet, stake, result, net, rule, stage FROM settlements "
                     "WHERE round_id = ? ORDER BY id", by_round).fetchall(),
        conn.execute("SELECT round_id, event_index, rule, ruling, text, moves_json FROM rulings "
                     "WHERE round_id = ? ORDER BY id", by_round).fetchall(),
        conn.execute("SELECT round_id, player, net FROM round_players WHERE round_id = ? ORDER BY player",
                     by_round).fetchall(),
        folded,
    )


def _verify_authority(conn: sqlite3.Connection, round_ids: list[int] | None) -> Problem | None:
    """Every void, resolve, correction and pit manager's pick has its supervisor's approval
    (in the rounds ``round_ids``, when the others are known to hold none)."""
    found = first_unauthorised_event(conn, round_ids)
    if found is None:
        return None
    row_id, round_id, seq = found
    return ("events", row_id,
            f"events row {row_id} (round {round_id}, seq {seq}): written without a supervisor's approval")


# ------------------------------------------------------------------ the audit fold


@dataclass
class _Folded:
    sessions: dict[int, dict[str, Any]]
    users: dict[str, dict[str, Any]]
    under_min: dict[str, tuple[int, str]]  # player -> (round id, recorded at)
    table: tuple[Any, Any, Any] | None = None  # (table name, pit, created at)
    table_detail: dict[str, Any] = field(default_factory=dict)
    # name -> (failures, last failure, locked until): the wrong-PIN count behind the lockout
    pin_failures: dict[str, tuple[int, str, Any]] = field(default_factory=dict)


def _fold_audit(conn: sqlite3.Connection) -> _Folded:
    folded = _Folded({}, {}, {})
    for kind, round_id, text, actor, at in conn.execute(
        "SELECT kind, round_id, detail_json, actor, at FROM audit WHERE kind != 'round_finish' OR "
        "detail_json NOT LIKE '%\"under_min\":[]%' ORDER BY id"
    ):
        detail = json.loads(text)
        if not isinstance(detail, dict):
            continue
        state = detail.get("session_state")
        if isinstance(state, dict) and "id" in state:
            folded.sessions[int(state["id"])] = state
        if "user_state" in detail and isinstance(detail.get("username"), str):
            user = detail["user_state"]
            if isinstance(user, dict):
                folded.users[str(detail["username"])] = user
            else:
                folded.users.pop(str(detail["username"]), None)
        if kind == "round_finish" and round_id is not None:
            for entry in detail.get("under_min") or []:
                folded.under_min.setdefault(str(entry[0]), (int(round_id), str(entry[1])))
        if kind in _FAILED_PIN and "locked_until" in detail:
            folded.pin_failures[str(actor)] = (int(detail["failures"]), str(at), detail["locked_until"])
        if kind == "pin_failures_cleared":
            folded.pin_failures.pop(str(detail.get("username")), None)
        if kind == "table_identity":
            folded.table = (detail.get("table"), detail.get("pit"), detail.get("created_at"))
            folded.table_detail = detail
        if kind == "store_keyed":
            for entry in detail.get("under_min_rows") or []:
                folded.under_min.setdefault(str(entry[0]), (int(entry[1]), str(entry[2])))
    return folded


def _verify_sessions(conn: sqlite3.Connection, folded: _Folded) -> Problem | None:
    seen: set[int] = set()
    for row in conn.execute(f"SELECT {', '.join(SESSION_COLUMNS)} FROM sessions ORDER BY id"):
        state = dict(zip(SESSION_COLUMNS, row, strict=True))
        session_id = int(row[0])
        seen.add(session_id)
        if folded.sessions.get(session_id) != state:
            return ("sessions", session_id,
                    f"sessions row {session_id}: differs from the session recorded in the audit log")
    missing = sorted(set(folded.sessions) - seen)
    if missing:
        return ("sessions", missing[0], f"session {missing[0]} is in the audit log but not in the store")
    return None


def _verify_users(conn: sqlite3.Connection, folded: _Folded) -> Problem | None:
    names = [str(r[0]) for r in conn.execute("SELECT username FROM users ORDER BY username")]
    for name in names:
        if folded.users.get(name) != user_state(conn, name):
            return ("users", 0, f"user {name!r}: PIN, roles or state differ from the audit log")
    extra = conn.execute(
        "SELECT username FROM user_roles WHERE username NOT IN (SELECT username FROM users) LIMIT 1"
    ).fetchone()
    if extra is not None:
        return ("user_roles", 0, f"roles recorded for {extra[0]!r}, who is not a user")
    missing = sorted(set(folded.users) - set(names))
    if missing:
        return ("users", 0, f"user {missing[0]!r} is in the audit log but not in the store")
    return None


def _verify_under_min(conn: sqlite3.Connection, folded: _Folded) -> Problem | None:
    rows = {
        str(r[0]): (int(r[1]) if r[1] is not None else -1, str(r[2]))
        for r in conn.execute("SELECT player, round_id, recorded_at FROM under_min_history")
    }
    for player, entry in sorted(rows.items()):
        if folded.under_min.get(player) != entry:
            return ("under_min_history", entry[0],
                    f"5.26 history of {player!r} is not what the finish records wrote")
    missing = sorted(set(folded.under_min) - set(rows))
    if missing:
        return ("under_min_history", folded.under_min[missing[0]][0],
                f"5.26 history of {missing[0]!r} was recorded but is missing")
    return None


_FAILED_PIN = frozenset({"login_failed", "approval_refused", "pin_refused"})


def _verify_pin_failures(conn: sqlite3.Connection, folded: _Folded) -> Problem | None:
    try:
        rows = conn.execute("SELECT username, failures, last_failure, locked_until FROM pin_failures").fetchall()
    except sqlite3.OperationalError:  # a store from before the lockout
        return None
    have = {str(r[0]): (int(r[1]), str(r[2]), r[3]) for r in rows}
    if have != folded.pin_failures:
        names = sorted(set(have) ^ set(folded.pin_failures)) or sorted(
            n for n in have if have[n] != folded.pin_failures.get(n))
        return ("pin_failures", 0, f"wrong-PIN count of {names[0]!r} differs from the audit log")
    return None


def _verify_credits(conn: sqlite3.Connection) -> Problem | None:
    """The player terminals' meters reconcile (dealer_assist/store/credits.py, 1.1.10)."""
    problem = reconcile(conn)
    if problem is None:
        return None
    text, row = problem
    return ("audit", row, f"the credit meters do not reconcile: {text}")


def _verify_table_identity(conn: sqlite3.Connection, folded: _Folded) -> Problem | None:
    try:
        rows = conn.execute("SELECT id, table_name, pit, created_at FROM table_identity").fetchall()
    except sqlite3.OperationalError:  # a store from before table names
        rows = []
    found = [(r[1], r[2], r[3]) for r in rows if r[0] == 1] if len(rows) <= 1 else []
    if len(rows) > 1 or (rows and not found):
        return ("table_identity", 0, "the table identity has more than its one row")
    have = found[0] if found else None
    if have is not None and folded.table is not None and "created_at" not in folded.table_detail:
        have = (have[0], have[1], None)  # recorded before its entry carried the creation time
    if have != folded.table:
        return ("table_identity", 1, "the table's name, pit or creation differ from the audit log")
    return None


# ------------------------------------------------------------------ the rounds


class _Groups:
    """Rows of one query ordered by round id, taken one round at a time (a merge join)."""

    def __init__(self, conn: sqlite3.Connection, sql: str) -> None:
        self._rows: Iterator[Any] = iter(conn.execute(sql))
        self._next: Any = next(self._rows, None)
        self.orphan: int | None = None  # a round id that has rows but no round

    def take(self, round_id: int) -> list[Any]:
        out: list[Any] = []
        while self._next is not None and int(self._next[0]) <= round_id:
            if int(self._next[0]) < round_id and self.orphan is None:
                self.orphan = int(self._next[0])
            elif int(self._next[0]) == round_id:
                out.append(self._next)
            self._next = next(self._rows, None)
        return out

    def rest(self) -> int | None:
        if self.orphan is None and self._next is not None:
            self.orphan = int(self._next[0])
        return self.orphan


def _replay(config: dict[str, Any], events: Sequence[Any]) -> tuple[dict[str, Any], Any]:
    rnd = new_round(config)
    for index, raw in enumerate(events):
        try:
            rnd.apply(parse_event(raw))
        except (DealerAssistError, TranscriptError) as exc:
            raise _ReplayError(f"event {index} does not replay: {exc}") from exc
    return round_output(rnd), rnd


class _ReplayError(Exception):
    pass


def _amounts(text: str) -> dict[str, str] | None:
    try:
        data = json.loads(text, parse_float=Decimal)
        return {str(k): decimal_text(v) for k, v in data.items()}
    except (ValueError, AttributeError, StoreError):
        return None


def _without_text(row: Sequence[Any]) -> tuple[Any, ...]:
    return (row[0], row[1], row[2], row[4])


def _verify_rounds(conn: sqlite3.Connection, folded: _Folded) -> Problem | None:
    events = _Groups(conn, "SELECT round_id, seq, event_json, hash FROM events ORDER BY round_id, seq")
    finishes = _Groups(
        conn,
        "SELECT round_id, id, at, detail_json FROM audit INDEXED BY audit_finish "
        "WHERE kind = 'round_finish' AND round_id IS NOT NULL ORDER BY round_id, id",
    )
    settlements = _Groups(
        conn,
        "SELECT round_id, player, area, hand, bet, stake, result, net, rule, stage FROM settlements "
        "ORDER BY round_id, id",
    )
    rulings = _Groups(
        conn,
        "SELECT round_id, event_index, rule, ruling, text, moves_json FROM rulings ORDER BY round_id, id",
    )
    players = _Groups(conn, "SELECT round_id, player, net FROM round_players ORDER BY round_id, player")
    for row in conn.execute(
        "SELECT id, game, config_json, status, ended_at, players_json, totals_json, irregular, result_json "
        "FROM rounds ORDER BY id"
    ):
        round_id = int(row[0])
        problem = _verify_round(
            row,
            events.take(round_id),
            finishes.take(round_id),
            settlements.take(round_id),
            rulings.take(round_id),
            players.take(round_id),
            folded,
        )
        if problem is not None:
            return problem
    for table, groups in (
        ("events", events), ("audit", finishes), ("settlements", settlements),
        ("rulings", rulings), ("round_players", players),
    ):
        orphan = groups.rest()
        if orphan is not None:
            return (table, orphan, f"{table} rows of round {orphan}, which is not in the store")
    return None


def _verify_round(
    row: Any,
    event_rows: list[Any],
    finish_rows: list[Any],
    settlement_list: list[Any],
    ruling_list: list[Any],
    player_rows: list[Any],
    folded: _Folded,
) -> Problem | None:
    round_id, game, config_json, status, ended_at, players_json, totals_json, irregular, result_json = row
    where = f"rounds row {round_id}"
    if [int(e[1]) for e in event_rows] != list(range(len(event_rows))):
        return ("events", round_id, f"round {round_id}: its events are not numbered 0 to {len(event_rows) - 1}")
    config = json.loads(config_json)
    if not isinstance(config, dict) or game != config.get("game"):
        return ("rounds", round_id, f"{where}: game differs from its chained configuration")
    finish = json.loads(finish_rows[-1][3]) if finish_rows else None
    count = len(event_rows)
    if finish is not None:
        count = int(finish.get("events") or 0)
        if count > len(event_rows) or (
            count and event_rows[count - 1][3].hex() != finish.get("last_event_hash")
        ):
            return ("rounds", round_id, f"{where}: events missing (audit recorded {count})")
        # a settle output stored as anything but text (a BLOB of the same bytes) is not the one recorded
        stored_as_text = result_json is None or isinstance(result_json, str)
        digest = hashlib.sha256((result_json or "").encode("utf-8")).hexdigest() if stored_as_text else ""
        if not stored_as_text or status != finish.get("status") or not hmac.compare_digest(
            digest, str(finish.get("result_sha256"))
        ):
            return ("rounds", round_id, f"{where}: status or result differs from its audit record")
        if ended_at != finish.get("ended_at"):
            return ("rounds", round_id, f"{where}: end time differs from its finish record")
    elif (status, ended_at, result_json, totals_json, irregular) != ("in_progress", None, None, "{}", 0):
        return ("rounds", round_id, f"{where}: result recorded without an audit record")
    parsed = [json.loads(e[2]) for e in event_rows]
    output: dict[str, Any] = {}
    rnd: Any = None
    if finish is not None:  # an unfinished round has nothing derived to re-settle yet
        try:
            output, rnd = _replay(config, parsed[:count])
        except _ReplayError as exc:
            return ("events", round_id, f"round {round_id}: {exc}")
        except (DealerAssistError, TranscriptError) as exc:
            return ("rounds", round_id, f"{where}: its configuration does not replay: {exc}")
    names: set[str] = set()
    seated = config.get("seated")
    if isinstance(seated, dict):
        names.update(str(p) for p in seated)
    for event in parsed:
        if isinstance(event, dict):
            names.update(players_of_event(event))
    nets = net_texts(output) if finish is not None else {}
    names.update(nets)
    if canonical_json(sorted(names)) != players_json:
        return ("rounds", round_id, f"{where}: players differ from its events")
    expected_players = [(p, nets.get(p)) for p in sorted(names)]
    if [(str(p[1]), p[2]) for p in player_rows] != expected_players:
        return ("round_players", round_id, f"round {round_id}: its player rows differ from the re-settlement")
    if finish is None:
        if settlement_list or ruling_list:
            return ("settlements" if settlement_list else "rulings", round_id,
                    f"round {round_id}: derived rows recorded without an audit record")
        return None
    if status == "referred" and output["status"] == "in_progress":
        # a referred round (6.1) waits for the shift manager's decision: its events settle as in progress
        output = {**output, "status": "referred"}
    if status != output["status"]:
        return ("rounds", round_id, f"{where}: status {status} but its events settle as {output['status']}")
    if _amounts(totals_json) != nets:
        return ("rounds", round_id, f"{where}: totals differ from the re-settlement of its events")
    if irregular != irregular_flag(output):
        return ("rounds", round_id, f"{where}: irregular flag differs from the re-settlement")
    if [tuple(s[1:]) for s in settlement_list] != settlement_rows(output):
        return ("settlements", round_id,
                f"round {round_id}: its settlement rows differ from the re-settlement of its events")
    # a ruling's sentence is compared with the recorded (hashed) settle output only: its
    # wording may improve between versions; its event, clause, ruling and moves may not
    recorded = ruling_rows(json.loads(result_json))
    if [tuple(r[1:]) for r in ruling_list] != recorded or [_without_text(r) for r in recorded] != [
        _without_text(r) for r in ruling_rows(output)
    ]:
        return ("rulings", round_id, f"round {round_id}: its rulings differ from the re-settlement of its events")
    for player in rnd.under_minimum_first_time():  # 5.26, as the engine decides it
        if player not in folded.under_min:
            return ("under_min_history", round_id,
                    f"round {round_id}: {player!r}'s under-minimum wager is missing from the 5.26 history")
    return None


# ------------------------------------------------------------------ the head


def _verify_head(
    conn: sqlite3.Connection,
    key: bytes,
    head_path: Path | None,
    outside: Head | None,
    tails: dict[str, tuple[int, str]],
) -> Problem | None:
    empty = all(tails.get(name, (0, ""))[0] == 0 for name in CHAINS)
    inside = read_head(conn)
    if inside is None:
        return None if empty else ("head", 0, "the head record is missing from the store")
    if not inside.valid(key):
        return ("head", 1, "the head record in the store does not match its MAC")
    if inside.schema != schema_digest(conn):
        return ("meta", 0, "the store's own records (meta, migrations) differ from the head record")
    for name in CHAINS:
        have = tails.get(name, (0, ""))
        want = inside.tails[name]
        if have != want:
            if have[0] < want[0]:
                text = f"the newest {name} rows are missing: the head record names row {want[0]}, the chain ends at {have[0]}"
            else:
                text = f"the {name} chain ends at row {have[0]}, not at row {want[0]} as the head record says"
            return (name, want[0], text)
    if head_path is None:
        return None
    if outside is None:
        return None if empty else (
            "head", 0, f"the head record outside the store ({head_path}) is missing or does not match its MAC")
    if outside.generation > inside.generation:
        return ("head", outside.generation,
                f"the store file is older than its head record {head_path} (commit "
                f"{inside.generation} < {outside.generation}): rolled back or replaced by an older copy")
    return _head_in_chains(conn, outside, head_path)


def _head_in_chains(conn: sqlite3.Connection, head: Head, head_path: Path) -> Problem | None:
    for name in CHAINS:
        last_id, last_hash = head.tails[name]
        if not last_id:
            continue
        row = conn.execute(f"SELECT hash FROM {name} WHERE id = ?", (last_id,)).fetchone()
        if row is None or bytes(row[0]).hex() != last_hash:
            return (name, last_id, f"{name} row {last_id} named by the head record {head_path} is not in the store")
    return None
