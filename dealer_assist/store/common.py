"""What every part of the store shares: its error, its constants, time and exact JSON."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal

#: ``PRAGMA application_id`` of a Dealer Assist store ("DAst").
APPLICATION_ID = 0x44417374
MIGRATION_SET = "dealer_assist_store"
SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5000
#: How long a write waits in all for another writer's lock ("database is locked"), retrying
#: after each busy timeout, before it gives up with a StoreError.
LOCK_WAIT_SECONDS = 120.0
ZERO_HASH = bytes(32)
#: The table name of a store opened without one (and of sessions recorded before names).
DEFAULT_TABLE = "table"

RoundStatus = Literal["in_progress", "settled", "void", "referred"]
Role = Literal["dealer", "supervisor"]
ROUND_STATUSES: tuple[str, ...] = ("in_progress", "settled", "void", "referred")
ROLES: tuple[str, ...] = ("dealer", "supervisor")
#: Keys of the transcript header, in the order an export writes them.
HEADER_KEYS: tuple[str, ...] = ("game", "decks", "areas", "limits", "seated", "under_min_history", "shoe")


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



def canonical_json(value: Any) -> str:
    """Compact JSON text of ``value``, keys in the order given, numbers as written.

    ``json.loads`` of the text gives back an equal object (Decimals come back as
    int/float with the same printed digits). NaN and infinities are refused.
    """
    try:
        return _ENCODER.encode(_plain(value))
    except ValueError as err:
        raise StoreError(f"cannot store as JSON: {err}") from err


def decimal_text(value: Any) -> str:
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


