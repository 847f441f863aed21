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

Modules
-------
``common`` (StoreError, constants, exact JSON, time), ``schema`` (migrations, opening),
``chain`` (the hash chains), ``log`` (round headers and the event log), ``results``
(a round's settle output and its derived records), ``users`` (users, roles, PINs),
``audit`` (the audit log), ``identity`` (the table a store belongs to), ``queries``
(listings and details), ``verify``
(``history verify``), ``core`` (the :class:`Store` that ties them together).

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

from dealer_assist.store.audit import AuditEntry
from dealer_assist.store.chain import audit_content, chain, event_content, round_content
from dealer_assist.store.common import (
    APPLICATION_ID,
    BUSY_TIMEOUT_MS,
    HEADER_KEYS,
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
from dealer_assist.store.core import Store, record_transcript
from dealer_assist.store.records import OpenRound, RoundDetail, RoundSummary, StoredEvent
from dealer_assist.store.schema import KNOWN_MIGRATIONS, MIGRATIONS
from dealer_assist.store.users import SCRYPT_DKLEN, SCRYPT_N, SCRYPT_P, SCRYPT_R
from dealer_assist.store.verify import CENTS_SQL, VerifyResult, first_altered_settlements

__all__ = [
    "APPLICATION_ID",
    "BUSY_TIMEOUT_MS",
    "CENTS_SQL",
    "HEADER_KEYS",
    "KNOWN_MIGRATIONS",
    "MIGRATIONS",
    "MIGRATION_SET",
    "ROLES",
    "ROUND_STATUSES",
    "SCRYPT_DKLEN",
    "SCRYPT_N",
    "SCRYPT_P",
    "SCRYPT_R",
    "SQLITE_MAGIC",
    "ZERO_HASH",
    "AuditEntry",
    "OpenRound",
    "Role",
    "RoundDetail",
    "RoundStatus",
    "RoundSummary",
    "Store",
    "StoreError",
    "StoredEvent",
    "VerifyResult",
    "audit_content",
    "canonical_json",
    "chain",
    "decimal_text",
    "default_db_path",
    "event_content",
    "first_altered_settlements",
    "format_time",
    "record_transcript",
    "round_content",
    "utc_now",
]
