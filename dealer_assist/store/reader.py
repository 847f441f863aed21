"""The review's reader: a read-only store that owns its connection.

The supervisor's review (``dealer_assist.store.review_queries`` and the review window) reads a
store only through a :class:`StoreReader`: it opens the file read-only (``mode=ro``; WAL
lets the table keep writing), runs each query under its lock in a consistent snapshot, and
closes the connection when it is closed. No caller holds a raw ``sqlite3.Connection``.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from dealer_assist.store.audit import AuditEntry
from dealer_assist.store.chain import previous_hash
from dealer_assist.store.core import Store
from dealer_assist.store.records import RoundDetail
from dealer_assist.store.verify import VerifyResult, first_altered_settlements

__all__ = ["StoreReader"]

T = TypeVar("T")


class StoreReader:
    """Read-only access to one store file for the review (see the module docstring)."""

    def __init__(self, store: Store) -> None:
        if not store.readonly:
            raise ValueError("a StoreReader reads a store opened with Store.open_readonly")
        self.store = store  # owned: closed with the reader

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, key_file: str | os.PathLike[str] | None = None) -> StoreReader:
        return cls(Store.open_readonly(path, key_file=key_file))

    @property
    def path(self) -> Path:
        return self.store.path

    @property
    def station_key(self) -> bytes | None:
        return self.store.station_key

    @property
    def key_path(self) -> Path:
        return self.store.key_path

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> StoreReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- queries

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Every row of one read-only query."""
        return self.store.read_with(lambda conn: conn.execute(sql, params).fetchall())

    def row(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first row of one read-only query, or None."""
        return self.store.read_with(lambda conn: conn.execute(sql, params).fetchone())

    def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Several queries in one snapshot (``fn`` gets the connection for the call only)."""
        return self.store.read_with(fn)

    def previous_hash(self, table: str, row_id: int) -> bytes:
        return self.store.read_with(lambda conn: previous_hash(conn, table, row_id))

    def first_altered_settlements(self) -> int | None:
        return self.store.read_with(first_altered_settlements)

    # ---- the store's own reading API

    def get_round(self, round_id: int) -> RoundDetail | None:
        return self.store.get_round(round_id)

    def export_round(self, round_id: int) -> dict[str, Any]:
        return self.store.export_round(round_id)

    def audit_entries(
        self, *, round_id: int | None = None, kind: str | None = None, limit: int | None = None
    ) -> list[AuditEntry]:
        return self.store.audit_entries(round_id=round_id, kind=kind, limit=limit)

    def verify(self) -> VerifyResult:
        return self.store.verify()
