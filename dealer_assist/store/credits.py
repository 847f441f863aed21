"""Player terminals' credit meters (Electronic Blackjack 1.1.10: a Player Terminal is where
a player buys credits, places wagers and cashes out; issue 38, build 3).

Every movement of a meter is one chained audit entry naming the seat, the amount and the
meter after it: a buy-in (``meter_buy_in``, under a supervisor's approval), a round's net
result paid to the meter (``meter_result``, one per seat and round, or a later difference
when a round's result changed), a cash-out (``meter_cash_out``, the voucher: validation
number, amount, seat, time; the meter back to 0). A seat's meter is the ``meter`` of its
newest entry.

The reconciliation (:func:`reconcile`), checked at every round's end and by ``history
verify``: each entry's meter is the one before it plus its movement; each round's payments
to a seat add up to that seat's net in the round's derived record (``round_players``,
itself checked against the round's events by verify); and buy-ins − cash-outs + net results
= the sum of the meters.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from dealer_assist.base.money import to_json_number
from dealer_assist.store.audit import insert_audit
from dealer_assist.store.common import StoreError

__all__ = [
    "BUY_IN_KIND", "CASH_OUT_KIND", "METER_KINDS", "RESULT_KIND", "UNRECONCILED_KIND", "Voucher",
    "add_movement", "meters", "new_validation", "posted", "reconcile", "vouchers",
]

BUY_IN_KIND = "meter_buy_in"
CASH_OUT_KIND = "meter_cash_out"
RESULT_KIND = "meter_result"
UNRECONCILED_KIND = "meter_unreconciled"  # the reconciliation failed at a round's end (logged too)
METER_KINDS = (BUY_IN_KIND, RESULT_KIND, CASH_OUT_KIND)
VALIDATION_DIGITS = 18  # a voucher's validation number: 18 random digits (secrets), never reused


@dataclass(frozen=True)
class Voucher:
    """A cash-out's ticket (1.1.10): what the cage redeems."""

    validation: str
    amount: Decimal
    seat: str
    at: str
    audit: int  # its audit entry

    def to_json(self) -> dict[str, Any]:
        return {"validation": self.validation, "amount": to_json_number(self.amount), "seat": self.seat,
                "at": self.at}


def _amount(value: Any) -> Decimal:
    try:
        return Decimal(str(value))
    except InvalidOperation:
        raise StoreError(f"a meter entry's amount {value!r} is not a number") from None


def _movements(conn: sqlite3.Connection) -> list[tuple[int, str, str, int | None, dict[str, Any]]]:
    rows = conn.execute(
        "SELECT id, at, kind, round_id, detail_json FROM audit WHERE kind IN (?, ?, ?) ORDER BY id", METER_KINDS)
    return [(int(r[0]), str(r[1]), str(r[2]), r[3], json.loads(r[4])) for r in rows]


def meters(conn: sqlite3.Connection) -> dict[str, Decimal]:
    """Every seat that ever bought in, with its meter now (its newest entry's)."""
    out: dict[str, Decimal] = {}
    for _id, _at, _kind, _round, detail in _movements(conn):
        out[str(detail["seat"])] = _amount(detail["meter"])
    return out


def posted(conn: sqlite3.Connection, round_id: int) -> dict[str, Decimal]:
    """What the round's results paid to each seat's meter so far."""
    out: dict[str, Decimal] = {}
    for (detail_json,) in conn.execute("SELECT detail_json FROM audit WHERE round_id = ? AND kind = ? ORDER BY id",
                                       (round_id, RESULT_KIND)):
        detail = json.loads(detail_json)
        out[str(detail["seat"])] = out.get(str(detail["seat"]), Decimal(0)) + _amount(detail["amount"])
    return out


def add_movement(conn: sqlite3.Connection, kind: str, actor: str, seat: str, amount: Decimal, *,
                 round_id: int | None = None, extra: Mapping[str, Any] | None = None) -> tuple[int, Decimal]:
    """One movement of ``seat``'s meter (inside a write transaction): ``amount`` added (a
    cash-out's is the meter, taken off). Returns (audit id, the meter after)."""
    if kind not in METER_KINDS:
        raise StoreError(f"no meter movement {kind!r}")
    before = meters(conn).get(seat, Decimal(0))
    after = Decimal(0) if kind == CASH_OUT_KIND else before + amount
    if after < 0:
        raise StoreError(f"seat {seat}'s meter cannot go below 0 ({before} {amount:+})")
    detail = {"seat": seat, "amount": to_json_number(amount) if amount else 0, "before": _json(before),
              "meter": _json(after), **dict(extra or {})}
    return insert_audit(conn, kind, actor, round_id, detail), after


def new_validation(conn: sqlite3.Connection) -> str:
    """A voucher's validation number: 18 random digits (not guessable, 1 in 10^18), none
    issued before at this table."""
    issued = {v.validation for v in vouchers(conn)}
    while True:
        number = f"{secrets.randbelow(10 ** VALIDATION_DIGITS):0{VALIDATION_DIGITS}d}"
        if number not in issued and number[0] != "0":
            return number


def vouchers(conn: sqlite3.Connection, seat: str | None = None) -> list[Voucher]:
    """The vouchers written, oldest first (``seat``: only its own)."""
    out = []
    for audit_id, at, kind, _round, detail in _movements(conn):
        if kind == CASH_OUT_KIND and (seat is None or detail["seat"] == seat):
            out.append(Voucher(str(detail["validation"]), -_amount(detail["amount"]), str(detail["seat"]), at,
                               audit_id))
    return out


def _json(value: Decimal) -> int | float:
    return to_json_number(value) if value else 0


def reconcile(conn: sqlite3.Connection) -> tuple[str, int] | None:
    """The reconciliation (the module's docstring): None, or (what fails, the audit row)."""
    meter: dict[str, Decimal] = {}
    buy_ins = cash_outs = results = Decimal(0)
    paid: dict[tuple[int, str], Decimal] = {}
    validations: set[str] = set()
    for audit_id, _at, kind, round_id, detail in _movements(conn):
        seat, amount = str(detail["seat"]), _amount(detail["amount"])
        before, after = meter.get(seat, Decimal(0)), _amount(detail["meter"])
        expected = Decimal(0) if kind == CASH_OUT_KIND else before + amount
        if _amount(detail["before"]) != before or after != expected or (kind == CASH_OUT_KIND and amount != -before):
            return (f"audit row {audit_id} ({kind}): seat {seat}'s meter {after} does not follow from its "
                    f"last ({before}) and this movement ({amount}) (1.1.10)", audit_id)
        meter[seat] = after
        if kind == BUY_IN_KIND:
            if amount <= 0:
                return f"audit row {audit_id} ({kind}): a buy-in of {amount} (1.1.10)", audit_id
            buy_ins += amount
        elif kind == CASH_OUT_KIND:
            number = str(detail.get("validation", ""))
            if number in validations or len(number) != VALIDATION_DIGITS:
                return f"audit row {audit_id} ({kind}): voucher {number!r} is not a new validation number", audit_id
            validations.add(number)
            cash_outs -= amount
        else:
            if round_id is None:
                return f"audit row {audit_id} ({kind}): a result paid for no round", audit_id
            results += amount
            paid[(int(round_id), seat)] = paid.get((int(round_id), seat), Decimal(0)) + amount
    for (round_id, seat), amount in sorted(paid.items()):
        row = conn.execute("SELECT r.status, p.net FROM rounds r LEFT JOIN round_players p "
                           "ON p.round_id = r.id AND p.player = ? WHERE r.id = ?", (seat, round_id)).fetchone()
        net = _amount(row[1]) if row is not None and row[1] is not None else Decimal(0)
        if row is None or net != amount:
            return (f"round {round_id}: seat {seat}'s meter was paid {amount}, its net result is {net} "
                    "(buy-ins - cash-outs + net results = meters)", round_id)
    total = sum(meter.values(), Decimal(0))
    if buy_ins - cash_outs + results != total:
        return (f"the meters add up to {total}, not buy-ins {buy_ins} - cash-outs {cash_outs} + net results "
                f"{results} = {buy_ins - cash_outs + results}", 0)
    return None
