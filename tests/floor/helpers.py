"""Running the real `dealer-assist` command and reading the floor as its administrator."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer_assist", *args], capture_output=True,
                          text=True, cwd=ROOT, input=stdin, timeout=300)


def cli_env(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer_assist", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=300)


def query(url: str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql, params).fetchall()  # type: ignore[arg-type]


def store_rows(path: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    import sqlite3

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def floor_version(m: Any, last: str) -> None:
    """Within a monkeypatch context ``m``: this version's migrations up to ``last`` only, as an
    earlier version of Dealer Assist knew them (a floor of that version is made, or upgraded
    to it, with that version's own frozen migrations)."""
    from dealer_assist.floor import schema

    names = [name for name, _ in schema.MIGRATIONS]
    previous = schema.MIGRATIONS[:names.index(last) + 1]
    m.setattr(schema, "MIGRATIONS", previous)
    m.setattr(schema, "KNOWN", frozenset(name for name, _ in previous))
