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
    rid = store.start_round(config, [*slip, {"type": "no_more_bets"}], session_id=sid)  # atomic start
    store.append_event(rid, last_event, result=settle_output)  # atomic end
    store.end_session(sid)

    open_round = store.find_open_round()           # crash recovery: OpenRound | None
    open_round.config, open_round.events           # replay these through the engine

    store.under_min_players()                      # -> config["under_min_history"]
    store.list_rounds(player="alice", status="settled", irregular=True, limit=100)
    store.get_round(rid) ; store.export_round(rid) ; store.verify()

    store.needs_enrolment()                        # True: no supervisor yet (first start)
    approval = store.enrol_supervisor("bob", "482913")   # a supervisor, no dealer
    store.add_account("ann", "730418", ["dealer"], approval=approval)  # must change at log-in
    store.start_shift("ann", "730418") ; store.end_shift("ann")        # PinCheck; audited
    check = store.authorise("bob", "482913", kind="void", round_id=rid)  # PinCheck, audited
    store.append_event(rid, {"type": "void", ...}, approval=check.approval)  # refused without
    store.verify_pin("bob", "482913", role="supervisor")  # bool; lockout after 3 wrong PINs
    store.add_audit("shoe_fault", actor="shoe", detail={...})
    store.add_note(rid, author="bob", text="...")
    store.audit_entries(round_id=rid)

Every error the store reports on purpose is a :class:`StoreError` (one-line message); a
write that fails (disk full, locked by another writer for more than LOCK_WAIT_SECONDS, ...) is rolled back whole
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
- ``users`` / ``user_roles``: PINs only as salted scrypt hashes (``must_change`` for a
  PIN a supervisor set); ``pin_failures``: the wrong-PIN count behind the lockout
  (:mod:`dealer_assist.store.users`; supervisor authority: :mod:`dealer_assist.store.authority`).
- ``audit``: logins, approvals (voids, overrides, supervisor decisions), shoe faults,
  notes, session start/end, round finish records; hash-chained.

Modules
-------
``common`` (StoreError, constants, exact JSON, time), ``schema`` (migrations, opening),
``chain`` (the hash chains), ``log`` (round headers and the event log), ``results``
(a round's settle output and its derived records), ``users`` (users, roles, PINs),
``audit`` (the audit log), ``identity`` (the table a store belongs to), ``queries``
(listings and details), ``verify`` (``history verify``), ``keys`` / ``keying`` (the
station key and the head record), ``states`` (session and user state records), ``core``
(the :class:`Store` that ties them together), ``reader`` (:class:`StoreReader`, the
review's read-only reader).

Tamper evidence
---------------
Three chains, each ``hash = HMAC-SHA256(station key, previous row's hash + canonical row
content)`` (the first row chains from 32 zero bytes): ``events`` (in id order), ``rounds``
(the immutable header: id, session, number, source, start time, config) and ``audit``. The
station key lives outside the file (``<store>.key``, 0600). Sessions, users and roles
record their whole state in their chained audit entries; each ``round_finish`` audit row
records the status, the sha256 of the settle output, the number of events, the hash of the
last one, the end time and the 5.26 entries it added. :meth:`Store.verify` recomputes the
chains, re-settles every round through the engine and compares every derived column, folds
the audit log into the sessions/users/5.26 tables, and checks the head record written with
each commit (in the file and beside the key), so cut-off newest rows and a rolled-back file
are named too (docs/store.md).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from dealer_assist.store.audit import AuditEntry
from dealer_assist.store.authority import authority_needed
from dealer_assist.store.chain import audit_content, chain, event_content, round_content
from dealer_assist.store.common import (
    APPLICATION_ID,
    BUSY_TIMEOUT_MS,
    DEFAULT_TABLE,
    HEADER_KEYS,
    LOCK_WAIT_SECONDS,
    MIGRATION_SET,
    ROLES,
    ROUND_STATUSES,
    SQLITE_MAGIC,
    ZERO_HASH,
    Role,
    RoundStatus,
    StoreError,
    canonical_json,
    decimal_text,
    default_db_path,
    format_time,
    utc_now,
)
from dealer_assist.store.records import OpenRound, RoundDetail, RoundSummary, StoredEvent
from dealer_assist.store.users import (
    MIN_PIN_DIGITS,
    PIN_COST,
    SCRYPT_DKLEN,
    SCRYPT_N,
    SCRYPT_P,
    SCRYPT_R,
    TEST_PIN_COST,
    PinCheck,
    PinCost,
    new_pin_problem,
)

if TYPE_CHECKING:  # imported on first use (below): sqlite-utils and the verifier's pool
    from dealer_assist.store.core import Store, record_transcript
    from dealer_assist.store.reader import StoreReader
    from dealer_assist.store.schema import KNOWN_MIGRATIONS, MIGRATIONS
    from dealer_assist.store.verify import CENTS_SQL, VerifyResult, first_altered_settlements

# A client of the station service (the dealer's screen, a terminal) reads PinCheck or
# StoreError from here and never opens a store: the modules that open one are imported when
# one of their names is first asked for (issue 37: about 0.4 s of the screen's start).
_ON_FIRST_USE = {
    "Store": "core", "record_transcript": "core", "StoreReader": "reader",
    "KNOWN_MIGRATIONS": "schema", "MIGRATIONS": "schema",
    "CENTS_SQL": "verify", "VerifyResult": "verify", "first_altered_settlements": "verify",
}


def __getattr__(name: str) -> Any:
    module = _ON_FIRST_USE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "APPLICATION_ID",
    "BUSY_TIMEOUT_MS",
    "CENTS_SQL",
    "DEFAULT_TABLE",
    "LOCK_WAIT_SECONDS",
    "HEADER_KEYS",
    "KNOWN_MIGRATIONS",
    "MIGRATIONS",
    "MIGRATION_SET",
    "MIN_PIN_DIGITS",
    "PIN_COST",
    "ROLES",
    "ROUND_STATUSES",
    "SCRYPT_DKLEN",
    "SCRYPT_N",
    "SCRYPT_P",
    "SCRYPT_R",
    "SQLITE_MAGIC",
    "TEST_PIN_COST",
    "ZERO_HASH",
    "AuditEntry",
    "OpenRound",
    "PinCheck",
    "PinCost",
    "Role",
    "RoundDetail",
    "RoundStatus",
    "RoundSummary",
    "Store",
    "StoreError",
    "StoreReader",
    "StoredEvent",
    "VerifyResult",
    "audit_content",
    "authority_needed",
    "canonical_json",
    "chain",
    "decimal_text",
    "default_db_path",
    "event_content",
    "first_altered_settlements",
    "format_time",
    "new_pin_problem",
    "record_transcript",
    "round_content",
    "utc_now",
]
