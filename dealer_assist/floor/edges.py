"""The par sheets' house edges for the forwarder's stored theoretical win, kept on disk between
runs: working out a game's par sheet takes seconds (``dealer_assist.odds.theo.house_edges``,
cached only per process), and a one-shot ``forward`` would pay it every run.

The file (``$XDG_CACHE_HOME/dealer-assist/house-edges-<digest>.json``, else ``~/.cache/...``)
is named by a digest of the source files the edges come from (the odds package, the games'
rules data and the base layer), so a changed par sheet or paytable never reads an old figure; an unreadable or unwritable cache only means working the edges out again."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from decimal import Decimal
from functools import cache
from pathlib import Path

import dealer_assist.base as _base_package
import dealer_assist.games as _games_package
import dealer_assist.odds as _odds_package
from dealer_assist.odds.theo import house_edges

__all__ = ["cached_edges"]


@cache
def _cache_file() -> Path | None:
    digest = hashlib.sha256()
    found = False
    for package in (_odds_package, _games_package, _base_package):
        root = Path(str(package.__file__)).parent
        for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".so", ".pyd")):
            digest.update(str(path.relative_to(root.parent)).encode() + b"\0" + path.read_bytes())
            found = True
    if not found:
        return None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "dealer-assist" / f"house-edges-{digest.hexdigest()[:24]}.json"


def _read(path: Path) -> dict[str, dict[str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@cache
def cached_edges(game: str, decks: int) -> dict[str, Decimal]:
    """``house_edges(game, decks)``, read from the disk cache when it holds them (exact: Decimal text)."""
    path = _cache_file()
    key = f"{game}/{decks}"
    if path is not None:
        found = _read(path).get(key)
        if isinstance(found, dict):
            try:
                return {str(k): Decimal(str(v)) for k, v in found.items()}
            except ArithmeticError:
                pass
    edges = house_edges(game, decks)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            data = _read(path)
            data[key] = {k: str(v) for k, v in edges.items()}
            with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, encoding="utf-8") as out:
                json.dump(data, out)
            os.replace(out.name, path)
        except OSError:
            pass
    return edges
