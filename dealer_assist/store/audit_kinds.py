"""Every kind of audit entry the store, the station service and the dealer's screen write
(issue 34 item 7): one registry, so the review's *Station events* can offer and list each.

tests/store/test_audit_kinds.py reads every writer (``add_audit``/``insert_audit`` and the
kinds passed to them) and fails when one writes a kind that is not here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from dealer_assist.store.audit import AuditEntry, audit_entries

__all__ = ["AUDIT_KINDS", "GROUPS", "AuditKind", "kinds_of", "latest_audit", "routine_kinds", "significant_kinds"]

# The groups the review's filter offers, in its order.
GROUPS = ("shoe and cards", "rounds", "approvals", "log-ins and shifts", "accounts and PINs",
          "set-up and configuration", "the store", "player terminals' credits")


@dataclass(frozen=True)
class AuditKind:
    name: str
    group: str
    words: str  # what an entry of this kind records, in the supervisor's words
    routine: bool = False  # written with every round (or every approval used): not a significant event


def _kinds(*rows: tuple[str, str, str] | tuple[str, str, str, bool]) -> dict[str, AuditKind]:
    return {row[0]: AuditKind(*row) for row in rows}


AUDIT_KINDS: dict[str, AuditKind] = _kinds(
    # the shoe, cards outside the transcript (GLI-24 significant events)
    ("shoe_connected", "shoe and cards", "the shoe connected"),
    ("shoe_lost", "shoe and cards", "the shoe's link was lost"),
    ("shoe_fault", "shoe and cards", "a shoe fault (unread card, frame error, gap)"),
    ("shoe_loaded", "shoe and cards", "the shoe reloaded: a freshly shuffled shoe (the next round deals from it)"),
    ("card_keyed", "shoe and cards", "a card keyed in by a supervisor"),
    ("card_reread_asked", "shoe and cards", "the dealer put an unread card through the shoe's reader again (5.1)"),
    ("card_reread", "shoe and cards", "an unread card read again by the shoe, placed where it came out (5.1)"),
    ("card_set_aside", "shoe and cards", "a card set aside"),
    ("card_in_flight", "shoe and cards", "a card read and not yet in the round", True),
    ("in_flight_settled", "shoe and cards", "a card in flight accounted for", True),
    ("implied_card", "shoe and cards", "an implied hit's card held for Double", True),
    ("hold_released", "shoe and cards", "a held card released"),
    ("gap_answered", "shoe and cards", "a restart gap answered"),
    ("gap_card_keyed", "shoe and cards", "a card keyed in for a restart gap"),
    # rounds
    ("round_finish", "rounds", "a round recorded as finished", True),
    ("power_failure", "rounds", "a power failure in a round"),
    ("power_failure_stays", "rounds", "after a power failure, a player stays in the round (a withdrawal is the "
                                      "round's own event)"),
    ("terminal_interrupted", "rounds", "a player terminal dropped after its wager: the default decision (5.9.1)"),
    ("terminal_not_accepted", "rounds", "a player terminal down when the bets closed: its wagers not accepted, the "
                                        "player takes no part in the round (5.9.2)"),
    ("terminal_down", "rounds", "a player terminal whose wager was accepted went down in the round (5.9; kept "
                                "over a restart: the default decision, 5.9.1)"),
    ("terminal_back", "rounds", "a player terminal that went down in the round connected again (5.9)"),
    ("recovered", "rounds", "a round recovered after a restart"),
    ("referral", "rounds", "a round referred to the Gaming Shift Manager"),
    ("referral_resolved", "rounds", "a referred round decided"),
    ("event_withdrawn", "rounds", "the last event withdrawn (undo)"),
    ("note", "rounds", "a supervisor's note"),
    # a supervisor's approvals (each authorises one event, or the accounts dialog)
    ("void", "approvals", "a void approved"),
    ("resolve", "approvals", "a referral's ruling approved"),
    ("correction", "approvals", "a correction approved"),
    ("override", "approvals", "an override approved"),
    ("accounts", "approvals", "the accounts opened by a supervisor"),
    ("review", "approvals", "the review opened by a supervisor"),
    ("undo", "approvals", "an undo approved"),
    ("key_card", "approvals", "keying a card approved"),
    ("setup", "approvals", "a set-up change approved"),
    ("buy_in", "approvals", "a buy-in of a player terminal's credits approved (1.1.10)"),
    ("terminal_override", "approvals", "a supervisor's override of a Player Terminal that cannot be used: the dealer "
     "enters its seat's decisions this round (1.1.10, 3.17)"),
    ("supervisor_decision", "approvals", "the shift manager's decision on a referred round"),
    ("authority_used", "approvals", "an approval used by the event it authorised", True),
    ("approval_refused", "approvals", "a supervisor's PIN refused for an approval"),
    # log-ins and shifts
    ("login", "log-ins and shifts", "a log-in"),
    ("login_failed", "log-ins and shifts", "a log-in refused (wrong PIN)"),
    ("shift_start", "log-ins and shifts", "a dealer's shift started"),
    ("shift_resumed", "log-ins and shifts", "a dealer's shift resumed after a restart"),
    ("shift_end", "log-ins and shifts", "a dealer's shift ended"),
    ("session_start", "log-ins and shifts", "a table session started"),
    ("session_end", "log-ins and shifts", "a table session ended"),
    # accounts and PINs
    ("supervisor_enrolled", "accounts and PINs", "the first supervisor enrolled"),
    ("user_created", "accounts and PINs", "an account added"),
    ("user_disabled", "accounts and PINs", "an account disabled"),
    ("user_enabled", "accounts and PINs", "an account enabled again"),
    ("pin_changed", "accounts and PINs", "a PIN changed by its owner"),
    ("pin_reset", "accounts and PINs", "a PIN reset by a supervisor"),
    ("pin_rehashed", "accounts and PINs", "a PIN's hash made stronger", True),
    ("pin_refused", "accounts and PINs", "a PIN refused"),
    ("pin_refusals", "accounts and PINs", "refused PINs summarised (a flood)"),
    ("pin_locked", "accounts and PINs", "a locked name tried"),
    ("pin_lockout", "accounts and PINs", "a name locked after wrong PINs"),
    ("pin_failures_cleared", "accounts and PINs", "a name's wrong PINs cleared"),
    # set-up and configuration
    ("table_setup", "set-up and configuration", "the table set up (game, limits, seating)"),
    ("table_setup_changed", "set-up and configuration", "a supervisor changed the table's set-up"),
    ("station_config", "set-up and configuration", "the station's configuration at start"),
    ("station_config_changed", "set-up and configuration", "the station's configuration changed outside it"),
    # the store itself
    ("start_acknowledged", "the store", "a technician acknowledged a refused start"),
    ("store_resumed", "the store", "writing to the store resumed after an error"),
    ("store_keyed", "the store", "the store given its station key"),
    ("session_snapshot", "the store", "a session's state when the store was keyed", True),
    ("user_snapshot", "the store", "an account's state when the store was keyed", True),
    ("table_identity", "the store", "the store's table and pit"),
    # player terminals' credit meters (1.1.10: buy credits, place wagers, cash out; store/credits.py)
    ("meter_buy_in", "player terminals' credits", "credits bought at a player terminal, a supervisor's PIN (1.1.10)"),
    ("meter_result", "player terminals' credits", "a round's net result paid to a terminal's meter (1.1.10)", True),
    ("meter_cash_out", "player terminals' credits", "a terminal cashed out: its voucher, the meter to 0 (1.1.10)"),
    ("meter_unreconciled", "player terminals' credits",
     "the meters do not reconcile: buy-ins - cash-outs + net results = meters (1.1.10)"),
)

def kinds_of(group: str) -> tuple[str, ...]:
    return tuple(name for name, kind in AUDIT_KINDS.items() if kind.group == group)


def significant_kinds() -> tuple[str, ...]:
    """The kinds the *Station events* list shows unless asked for one kind (GLI-24's
    significant events: everything but what every round or approval writes)."""
    return tuple(name for name, kind in AUDIT_KINDS.items() if not kind.routine)


def routine_kinds() -> tuple[str, ...]:
    return tuple(name for name, kind in AUDIT_KINDS.items() if kind.routine)


def latest_audit(conn: sqlite3.Connection, kinds: Iterable[str], *, actor: str | None = None,
                 limit: int = 2000) -> list[AuditEntry]:
    """The newest ``limit`` entries of ``kinds``, newest first; ``actor``: only entries whose
    actor contains it (any case). One indexed query a kind (``audit_kind``), each at most
    ``limit`` rows, so a store of a million rounds answers as fast as a new one."""
    entries: list[AuditEntry] = []
    for kind in dict.fromkeys(kinds):
        entries += audit_entries(conn, kind=kind, actor=actor, limit=limit, newest_first=True)
    entries.sort(key=lambda e: e.id, reverse=True)
    return entries[:limit]
