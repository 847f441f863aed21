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


#: What verify says of a round whose floor link does not match, by its chain format (1: stations
#: before 0015; 2: its settlements, rulings and players chained with it).
LINK_TEXT = {
    1: "its content, its events or the round before it differ from what was forwarded (floor link does not match)",
    2: "its content, its events, its settlements, rulings or players, or the round before it differ from what "
       "was forwarded (floor link does not match; chain format 2)",
}


def forward_as(db: Path, url: str, chain_format: int) -> None:
    """Forward a station store as this version's station (format 2: the CLI) or as a station of
    a version before 0015 (format 1: this forwarder held to it), and check each round's format."""
    if chain_format == 2:
        done = cli("forward", "--db", str(db), "--to", url)
        assert done.returncode == 0, done.stderr
    else:
        from dealer_assist.floor.forward import Forwarder

        with Forwarder(db, url, chain_format=1, audit_format=1) as forwarder:  # (before 0016 too)
            forwarder.forward()
