"""The par sheets' house edges for the forwarder's stored theoretical win, kept on disk between
runs: working out a game's par sheet takes seconds (``dealer_assist.odds.theo.house_edges``,
cached only per process), and a one-shot ``forward`` would pay it every run.

The file (``$XDG_CACHE_HOME/dealer-assist/house-edges-<digest>.json``, else ``~/.cache/...``)
is named by a digest of the source files the edges come from (the odds package, the games'
rules data and the base layer), so a changed par sheet or paytable never reads an old figure; an unreadable or unwritable cache only means working the edges out again.

Issue 35, item 2: the alerts' figures (each bet's edge and standard deviation per unit: the win
band) are kept the same way (``par-figures-<digest>.json``), and ``dealer-assist floor edges``
builds both for every game and deck count once (at install or ``floor init`` time), so neither
the forwarder, nor the alerts, nor the CLI work a par sheet out on their way."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import dealer_assist.base as _base_package
import dealer_assist.games as _games_package
import dealer_assist.odds as _odds_package
from dealer_assist.odds.theo import house_edges

__all__ = ["build_edges", "cached_edges", "cached_par_figures", "every_sheet", "kept_edges", "work_out_later"]


@cache
def _cache_file(prefix: str = "house-edges") -> Path | None:
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
    return Path(base) / "dealer-assist" / f"{prefix}-{digest.hexdigest()[:24]}.json"


def _read(path: Path) -> dict[str, Any]:
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
        _keep(path, key, {k: str(v) for k, v in edges.items()})
    return edges


def _par_figures_now(game: str, decks: int) -> dict[str, tuple[Decimal, Decimal]]:
    from dealer_assist.games import GAMES
    from dealer_assist.odds.sheet import par_sheet

    sheet = par_sheet(game, decks, with_chart=False)
    out = {"main": (Decimal(repr(round(sheet.main.house_edge, 10))), Decimal(repr(round(sheet.outcomes.std_dev, 10))))}
    for name, bet in sheet.bets.items():
        out[name] = (Decimal(repr(round(bet.house_edge, 10))), Decimal(repr(round(bet.std_dev, 10))))
    bonus = GAMES[game].main_bonus
    if bonus is not None:  # paid on the main wager (Dueling 8's 4.1.1): inside its figures
        out[bonus.key] = (Decimal(0), Decimal(0))
    return out


@cache
def cached_par_figures(game: str, decks: int) -> dict[str, tuple[Decimal, Decimal]]:
    """Each bet's (house edge, standard deviation) per unit of ``game`` at ``decks`` decks, read
    from the disk cache when it holds them (exact: Decimal text), else worked out and kept."""
    path = _cache_file("par-figures")
    key = f"{game}/{decks}"
    if path is not None:
        found = _read(path).get(key)
        if isinstance(found, dict):
            try:
                return {str(k): (Decimal(str(v[0])), Decimal(str(v[1]))) for k, v in found.items()}
            except (ArithmeticError, TypeError, IndexError, KeyError):
                pass
    figures = _par_figures_now(game, decks)
    if path is not None:
        _keep(path, key, {k: [str(e), str(sd)] for k, (e, sd) in figures.items()})
    return figures


def _keep(path: Path, key: str, value: object) -> None:
    """``value`` under ``key`` in the JSON cache ``path``, replaced whole (never half written);
    a cache that cannot be written is worked out again next time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = _read(path)
        data[key] = value
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, encoding="utf-8") as out:
            json.dump(data, out)
        os.replace(out.name, path)
    except OSError:
        pass


def every_sheet() -> list[tuple[str, int]]:
    """(game, decks) of every game at every deck count its rules allow (2.1 of each)."""
    from dealer_assist.games import GAMES

    return [(game, decks) for game, rules in GAMES.items()
            for decks in range(rules.deck_range[0], rules.deck_range[1] + 1)]


def build_edges(sheets: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Work out and keep the edges and the alerts' figures of each (game, decks); those done."""
    done = []
    for game, decks in sheets:
        try:
            cached_edges(game, decks)
            cached_par_figures(game, decks)
        finally:
            _done(game, decks)
        done.append((game, decks))
    return done


_ready: dict[tuple[str, int], dict[str, Decimal]] = {}
_looked: dict[tuple[str, int], float] = {}  # when the disk was last read for a sheet not kept
_LOOK_AGAIN = 5.0
_busy: set[tuple[str, int]] = set()
_lock = threading.Lock()


def kept_edges(game: str, decks: int) -> dict[str, Decimal]:
    """The edges of ``game`` at ``decks`` if they are known (this process, or kept on disk by
    ``floor edges`` or an earlier run) — never worked out here: ``KeyError`` when they are not
    (the caller goes on without them; :func:`work_out_later` starts their working out)."""
    sheet = (game, decks)
    with _lock:
        found = _ready.get(sheet)
        looked = _looked.get(sheet)
    if found is not None:
        return found
    if looked is not None and time.monotonic() - looked < _LOOK_AGAIN:
        raise KeyError(f"the edges of {game} at {decks} decks are not worked out yet")
    with _lock:
        _looked[sheet] = time.monotonic()
    path = _cache_file()
    entry = _read(path).get(f"{game}/{decks}") if path is not None else None
    if isinstance(entry, dict):
        try:
            edges = {str(k): Decimal(str(v)) for k, v in entry.items()}
        except ArithmeticError:
            edges = None
        if edges is not None:
            with _lock:
                _ready[sheet] = edges
            return edges
    raise KeyError(f"the edges of {game} at {decks} decks are not worked out yet")


def _command() -> list[str]:
    """How to run this program again: the frozen build's own executable, else this Python's module."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "dealer_assist"]


def work_out_later(game: str, decks: int) -> None:
    """Work out (and keep on disk) the edges of ``game`` at ``decks`` in a process of its own
    (``floor edges``, niced, its own session: it outlives a killed forwarder and shares no
    interpreter lock with it), once per machine at a time (a ``.working`` mark beside the kept
    file, stale after 10 minutes); forwarding never waits for it."""
    sheet = (game, decks)
    with _lock:
        if sheet in _ready or sheet in _busy:
            return
        _busy.add(sheet)
    path = _cache_file()
    if path is None:
        return
    mark = path.with_name(f"{path.stem}.{game}-{decks}.working")
    try:
        if mark.exists() and time.time() - mark.stat().st_mtime < 600:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        mark.write_text(str(os.getpid()), encoding="utf-8")
        subprocess.Popen([*_command(), "floor", "edges", "--game", game, "--decks", str(decks), "--background"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    except OSError:
        return


def _done(game: str, decks: int) -> None:
    path = _cache_file()
    if path is not None:
        try:
            path.with_name(f"{path.stem}.{game}-{decks}.working").unlink(missing_ok=True)
        except OSError:
            pass
