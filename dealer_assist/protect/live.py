"""Game protection on the floor service's pass (issue 36, Build 4: ``dealer-assist floor serve``).

From the rounds forwarded to the floor (``floor.rounds_latest`` and ``floor.events``), each pass
raises two kinds of alert for surveillance, through ``floor.raise_alert`` (one open alert per
table, kind and subject — the player, the shoe — each acknowledged on its own: migration 0013):

- **advantage_play** (advantage play suspected): per table, one for each player ``protect``
  flags (report.py: same tests, same thresholds) over the rounds started in the last
  ``window``, its subject the player: a second player flagged while the first one's alert is
  open is raised too; the detail gives the player's rounds, correlation, p-value, estimated
  edge and reasons;
- **shoe_favours_players**: per table, its current shoe (that of its latest round), its subject
  the shoe's id (a new shoe is raised though an earlier shoe's alert is open): the
  player's expected return on the next round from the shoe's remaining composition — the main
  wager's removal-effect estimate (counts.py ``Count.edge``) and each side bet over the cards
  left, as the station's ``shoe_count`` gives them (removal.py ``side_bet_edges``), insurance
  given the dealer's Ace up among them — above ``level`` on any of them. A bonus paid on the
  main wager (Dueling 8's 6-7-8, 4.1.1) is inside the main wager's figure and never below 0:
  it is not held against the level on its own, its figure is named beside the main wager's.

A shoe's counts need its earlier rounds: rounds are read from ``lookback`` before the window
(a shoe lasts well under that). Only the floor service's role (and the review role it is a
member of) reads these rows; the station never reads floor alerts (docs/floor.md).
"""

from __future__ import annotations

import datetime as _dt
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import psycopg

from dealer_assist.base.cards import Card
from dealer_assist.floor.alerts import Condition
from dealer_assist.games import GAMES
from dealer_assist.protect.counts import count_for
from dealer_assist.protect.removal import full_shoe, side_bet_edges, wager_label
from dealer_assist.protect.report import (
    PlayerReport,
    RoundRow,
    carried_in,
    listed_before,
    player_reports,
    rebuild_counts,
    report_rounds,
    round_row,
    round_shuffles,
    shoe_spans,
)
from dealer_assist.store.common import format_time

__all__ = ["KINDS", "LiveSettings", "ProtectionCheck", "advantage_conditions", "floor_report", "floor_rounds",
           "shoe_conditions", "shoe_edges"]

KINDS = ("advantage_play", "shoe_favours_players")


@dataclass(frozen=True)
class LiveSettings:
    window: _dt.timedelta = _dt.timedelta(hours=8)  # the players' rounds judged
    level: float = 0.01  # the player's expected return above which a shoe favours them (+1 %)
    lookback: _dt.timedelta = _dt.timedelta(hours=2)  # read before the window: a shoe's earlier rounds


_ROUNDS = """
SELECT table_name, round_id, started_at, config_json FROM floor.rounds_latest
WHERE started_at >= %(since)s AND started_at < %(until)s ORDER BY table_name, round_id
"""
_EVENTS = """
SELECT table_name, round_id, event_json FROM floor.events
WHERE started_at >= %(since)s AND started_at < %(until)s ORDER BY table_name, round_id, seq
"""


_SHUFFLES = """
SELECT a.table_name, a.round_id, a.detail_json FROM floor.audit a
JOIN floor.rounds_latest r ON r.table_name = a.table_name AND r.round_id = a.round_id
WHERE a.kind = 'shoe_loaded' AND r.started_at >= %(since)s AND r.started_at < %(until)s
ORDER BY a.table_name, a.audit_id
"""


def floor_rounds(conn: psycopg.Connection[Any], since: _dt.datetime, until: _dt.datetime) -> list[RoundRow]:
    """The floor's rounds started in [since, until) with their events (the first copy's: the
    events a round gained when finished again at its station are not read) and the shuffles
    during each (the station's forwarded shoe_loaded audit entries)."""
    window = {"since": since, "until": until}
    events: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for table, rid, text in conn.execute(_EVENTS, window).fetchall():
        events.setdefault((str(table), int(rid)), []).append(json.loads(text))
    shuffles: dict[tuple[str, int], list[Any]] = {}
    for table, rid, text in conn.execute(_SHUFFLES, window).fetchall():
        shuffles.setdefault((str(table), int(rid)), []).append(json.loads(text))
    out = []
    for table, rid, started, config in conn.execute(_ROUNDS, window).fetchall():
        r = round_row(int(rid), str(table), started.astimezone(_dt.UTC).isoformat(), json.loads(config),
                      events.get((str(table), int(rid)), []))
        r.shuffles = round_shuffles(shuffles.get((r.table, r.round_id), []), r.shoe_id)
        out.append(r)
    return out


def floor_report(conn: psycopg.Connection[Any], source: str, *, table: str | None = None,
                 since: _dt.datetime | None = None, until: _dt.datetime | None = None, player: str | None = None,
                 lookback: _dt.timedelta = LiveSettings().lookback) -> list[PlayerReport]:
    """``dealer-assist protect --db URL``: every player's figures over the floor's rounds (every
    table's, or ``table``'s) started in [since, until), as report.py gives them for one store;
    the rounds of ``lookback`` before ``since`` are read too, for their shoes (a shoe lasts well
    under that)."""
    first = (since - lookback) if since is not None else _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
    last = until if until is not None else _dt.datetime(9999, 1, 1, tzinfo=_dt.UTC)
    rounds = floor_rounds(conn, first, last)
    for r in rounds:  # as a store writes its times: --since/--until compare with them
        r.started_at = format_time(_dt.datetime.fromisoformat(r.started_at))
    return report_rounds(rounds, source, table=table, since=format_time(since) if since else None,
                         until=format_time(until) if until else None, player=player)


def advantage_conditions(rounds: list[RoundRow], since: str) -> list[Condition]:
    """One ``advantage_play`` condition per (table, player) ``protect`` flags over the table's
    rounds started at or after ``since`` (``rebuild_counts`` already run over ``rounds``)."""
    tables: dict[str, list[RoundRow]] = {}
    for r in rounds:
        if r.started_at >= since:
            tables.setdefault(r.table, []).append(r)
    out = []
    for table, members in sorted(tables.items()):
        for p in player_reports(members):
            if not p.flagged:
                continue
            corr = "-" if p.correlation is None else f"{p.correlation:+.2f}"
            edge = "" if p.estimated_edge is None else f", estimated edge {p.estimated_edge * 100:+.2f} %"
            out.append(Condition(table, "advantage_play",
                                 f"advantage play suspected: {p.player}: {p.rounds} rounds, correlation {corr}, "
                                 f"p-value {p.p_value:.2g}{edge} ({'; '.join(p.reasons)})", p.player))
    return out


def shoe_edges(game: str, decks: int, seen: list[Card], out: int) -> dict[str, float] | None:
    """The player's expected return per unit on the next round of a shoe whose cards ``seen``
    (on record) and ``out`` cards in all have left it: ``main`` (the count's estimate) and each
    side bet worked out over the remaining composition (removal.py ``side_bet_edges``: exact
    where the odds can, a bet without a figure left out; the main bonus per unit of main wager,
    ``insurance_ace_up`` given an Ace up); None when the game has no count at that deck count."""
    count = count_for(game, decks) if decks > 0 else None
    if count is None:
        return None
    edges = {"main": count.edge(seen, out)}
    for side in side_bet_edges(game, decks, seen):  # as the station's shoe_count gives them
        if side.edge is not None:
            edges[side.bet] = float(side.edge)
    return edges


def shoe_conditions(rounds: list[RoundRow], level: float,
                    cache: dict[tuple[str, str, int, int], dict[str, float] | None] | None = None) -> list[Condition]:
    """One ``shoe_favours_players`` condition (its subject the shoe's id) per table whose current
    shoe (its latest round's) gives the player more than ``level`` on the main wager or a side
    bet on the next round."""
    latest: dict[str, RoundRow] = {}
    for r in rounds:
        if r.table not in latest or (r.started_at, r.round_id) > (latest[r.table].started_at, latest[r.table].round_id):
            latest[r.table] = r
    out = []
    carried = carried_in(rounds)
    for table, last in sorted(latest.items()):
        if last.shoe_id is None:
            continue
        if last.shuffles:  # shuffled during the latest round: the last shoe loaded, its cards so far
            shoe_id = last.shuffles[-1][0]
            seen = [c for s, cards in shoe_spans(last) if s == shoe_id for c in cards]
            after, dealt = last, len(seen)
        else:
            shoe_id = last.shoe_id
            members = sorted((r for r in rounds if r.table == table and r.shoe_id == shoe_id),
                             key=lambda m: (m.dealt, m.round_id))
            after = members[-1]
            listed = listed_before(after.header, after.dealt)  # cards set aside between rounds included
            seen = ([*listed, *after.cards] if listed is not None
                    else [*carried.get((table, shoe_id), []), *(c for m in members for c in m.cards)])
            dealt = after.dealt + len(after.cards)
        key = (table, shoe_id, len(seen), dealt)
        if cache is not None and key in cache:
            edges = cache[key]
        else:
            edges = shoe_edges(last.game, last.decks, seen, dealt)
            if cache is not None:
                cache[key] = edges
        bonus = GAMES[last.game].main_bonus if last.game in GAMES else None
        on_main = bonus.key if bonus is not None else None  # inside the main wager's figure (4.1.1)
        over = {bet: e for bet, e in (edges or {}).items() if e > level and bet != on_main}
        if not over:
            continue
        inside = (f" ({wager_label(last.game, on_main)} {edges[on_main] * 100:+.2f} %, inside that figure)"
                  if edges and on_main in edges else "")
        figures = ", ".join(f"{wager_label(last.game, bet)} {e * 100:+.2f} %{inside if bet == 'main' else ''}"
                            for bet, e in over.items())
        out.append(Condition(table, "shoe_favours_players",
                             f"shoe {shoe_id} favours the players after round {after.round_id} "
                             f"({max(dealt, len(seen))} of {full_size(last.game, last.decks)} cards out, "
                             f"{len(seen)} on record): {figures} (level {level * 100:+.2f} %)", shoe_id))
    return out


def full_size(game: str, decks: int) -> int:
    return sum(full_shoe(game, decks).values())


class ProtectionCheck:
    """The floor service's check (``FloorService(checks=...)``): both kinds on each pass.

    The pass only reads the rounds; the work — the printed chart of a (game, decks) the first
    time (about a minute), each round's decisions, side bets' exact figures (seconds per shoe
    state for Star Elements) — runs on a thread of its own (``background``), and the pass
    raises what the latest finished work found: a pass never waits on it. Side bets' figures
    are kept per shoe state, worked out once. ``background=False`` (``floor serve --once``):
    the pass waits for the work."""

    def __init__(self, settings: LiveSettings = LiveSettings(), *, background: bool = True) -> None:
        self.settings = settings
        self.background = background
        self._edges: dict[tuple[str, str, int, int], dict[str, float] | None] = {}
        self._found: list[Condition] = []
        self._lock = threading.Lock()
        self._busy = False
        self.log: Callable[[str], None] = lambda line: None  # the service's log (floor serve)

    def __call__(self, conn: psycopg.Connection[Any], moment: _dt.datetime) -> list[Condition]:
        s = self.settings
        since = moment - s.window
        rounds = floor_rounds(conn, since - s.lookback, moment + _dt.timedelta(minutes=1))
        if not self.background:
            return self.work(rounds, since)
        with self._lock:
            start, self._busy = not self._busy, True
            found = list(self._found)
        if start:
            threading.Thread(target=self._work, args=(rounds, since), name="protect-live", daemon=True).start()
        return found

    def _work(self, rounds: list[RoundRow], since: _dt.datetime) -> None:
        try:
            found = self.work(rounds, since)
        except Exception as err:  # noqa: BLE001 - kept as it was; the next pass tries again
            self.log(f"floor service: game protection's work failed ({type(err).__name__}: {err})")
            found = None
        with self._lock:
            if found is not None:
                self._found = found
            self._busy = False

    def work(self, rounds: list[RoundRow], since: _dt.datetime) -> list[Condition]:
        """Both kinds over ``rounds`` (the players' from ``since``)."""
        rebuild_counts(rounds)
        out = advantage_conditions(rounds, since.astimezone(_dt.UTC).isoformat())
        kept = dict(self._edges)
        out.extend(shoe_conditions(rounds, self.settings.level, kept))
        current = {(r.table, shoe) for r in rounds for shoe in (r.shoe_id, *(new for new, _ in r.shuffles))}
        self._edges = {k: v for k, v in kept.items() if (k[0], k[1]) in current}
        return out
