"""The floor: every table's finished rounds in one PostgreSQL database (issue 18).

- :mod:`dealer_assist.floor.connection`: connecting by libpq's own conventions
  (``PGPASSFILE``, ``PGSERVICEFILE``, ``PGSSLMODE`` ...); a URL that carries a password is
  refused, so no credential is ever on a command line or in a log.
- :mod:`dealer_assist.floor.schema`: the schema, its migrations (``floor init``), the
  roles: one per station (INSERT and SELECT of its own table's rows only, enforced by
  grants and row-level security) and one read-only role for review.
- :mod:`dealer_assist.floor.forward`: copying a station's finished rounds, exactly once.
- :mod:`dealer_assist.floor.reader`: listing, export and verify on the floor.

The station's SQLite store stays the record of truth at the table; the floor is a copy
that pit supervisors read and that keeps each table's chain as forwarded.
"""

from __future__ import annotations

from dealer_assist.floor.connection import FloorError, connect, is_floor_url, safe_url

__all__ = ["FloorError", "connect", "is_floor_url", "safe_url"]
