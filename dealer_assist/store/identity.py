"""The table a store belongs to (issue 18): its name and pit, set once, chained in the audit log.

Every round, session and audit entry of a store file is its table's; the floor's copies
carry the name (``dealer_assist.floor``). A store of another table is refused.
"""

from __future__ import annotations

import sqlite3

from dealer_assist.store.audit import insert_audit
from dealer_assist.store.common import StoreError, utc_now

__all__ = ["claim_table", "table_identity"]


def table_identity(conn: sqlite3.Connection) -> tuple[str, str | None] | None:
    row = conn.execute("SELECT table_name, pit FROM table_identity WHERE id = 1").fetchone()
    return None if row is None else (str(row[0]), row[1])


def claim_table(conn: sqlite3.Connection, path: object, table: str, pit: str | None, actor: str) -> None:
    """Inside a write transaction: name the store, or check it is ``table``'s (in ``pit``)."""
    if not isinstance(table, str) or not table.strip() or len(table) > 32:
        raise StoreError("a table name is 1 to 32 characters, e.g. BJ-07")
    row = conn.execute("SELECT table_name, pit FROM table_identity WHERE id = 1").fetchone()
    if row is not None:
        if row[0] != table:
            raise StoreError(f"{path} is the store of table {row[0]}, not {table}")
        if pit is not None and row[1] is not None and row[1] != pit:
            raise StoreError(f"{path} is the store of table {table} in pit {row[1]}, not {pit}")
        if pit is None or row[1] is not None:
            return
        conn.execute("UPDATE table_identity SET pit = ? WHERE id = 1", (pit,))
    else:
        conn.execute(
            "INSERT INTO table_identity (id, table_name, pit, created_at) VALUES (1, ?, ?, ?)",
            (table, pit, utc_now()),
        )
    created = conn.execute("SELECT created_at, pit FROM table_identity WHERE id = 1").fetchone()
    # the whole row in its chained audit entry: verify compares the table with it
    insert_audit(
        conn,
        "table_identity",
        actor,
        None,
        {"table": table, "pit": created[1], "created_at": created[0]},
    )
