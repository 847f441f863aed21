"""Alerts on the floor (issue 25, item 4): a table's link down, its forwarding stopped, its win
outside the band the par sheet expects, its pace too slow — raised into ``floor.alerts``,
acknowledged by a supervisor (``floor.alert_acks``: name, note, database account, time). Both
tables are insert-only: the trail. An alert has a *subject* within its table and kind (migration
0013): the player of an ``advantage_play``, the shoe of a ``shoe_favours_players``, '' for the
other kinds; ``floor.raise_alert`` keeps one open alert per table, kind and subject, each
acknowledged on its own, and raises none again within ``quiet`` of that subject's acknowledgement.

**The win band.** Over a window's settled rounds of a table, each bet ``b`` with house edge
``e_b`` and standard deviation ``sd_b`` per unit staked (the game's par sheet at the table's
decks: dealer_assist.odds) and stakes ``s_i``: theoretical win ``T = sum(e_b * s_i)``, variance
``V = sum(sd_b**2 * s_i**2)`` (rounds and bets independent), and the house's actual win ``W``
(its net) is expected within ``T ± z * sqrt(V)`` (z = 3: outside it about 1 time in 370 by
chance). Settled stakes include doubles and splits, whose risk the main wager's per-unit
deviation already counts: the band is a little wide, never narrow. Net/wagered = the house's net / wagered (never called "hold": that is win / drop).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Any

import psycopg

from dealer_assist.floor.connection import FloorError, describe_error
from dealer_assist.floor.live import STALE_AFTER, live_tables

__all__ = [
    "KINDS", "Alert", "Band", "Condition", "acknowledge", "alerts", "band_conditions", "evaluate", "par_figures",
    "raise_alerts", "table_conditions", "win_bands",
]

KINDS = ("link_down", "table_stopped", "win_band", "pace", "verify_failed", "role_bounds",
         "advantage_play", "shoe_favours_players")  # the last two: game protection (protect/live.py, 0012)
#: (edge, standard deviation) per unit staked of each bet of a game at some decks
Figures = Callable[[str, int], Mapping[str, tuple[Decimal, Decimal]]]


@cache
def par_figures(game: str, decks: int) -> dict[str, tuple[Decimal, Decimal]]:
    """Each bet's (house edge, standard deviation) per unit from the game's par sheet (kept on
    disk once worked out: dealer_assist.floor.edges; ``floor edges`` builds them all)."""
    from dealer_assist.floor.edges import cached_par_figures

    return dict(cached_par_figures(game, decks))


@dataclass(frozen=True)
class Band:
    table: str
    rounds: int
    wagered: Decimal
    win: Decimal  # the house's actual win (its net)
    theo: Decimal
    sd: Decimal
    z: Decimal

    @property
    def low(self) -> Decimal:
        return self.theo - self.z * self.sd

    @property
    def high(self) -> Decimal:
        return self.theo + self.z * self.sd

    @property
    def outside(self) -> bool:
        return self.rounds > 0 and not (self.low <= self.win <= self.high)


def win_bands(conn: psycopg.Connection[Any], since: _dt.datetime, until: _dt.datetime, *,
              pit: str | None = None, figures: Figures = par_figures, z: Decimal = Decimal(3)) -> dict[str, Band]:
    """Each table's win against its band over the settled rounds started in [since, until)."""
    params = {"since": since, "until": until, "pit": pit}
    stakes = conn.execute(
        "SELECT r.table_name, r.game, coalesce((r.config_json::jsonb ->> 'decks')::int, 0), s.bet, "
        "sum(s.stake), sum(s.stake * s.stake) FROM floor.rounds_latest r JOIN floor.settlements s "
        "ON s.table_name = r.table_name AND s.round_id = r.round_id AND s.started_at = r.started_at "
        # (the rows of a round are in its month's partitions: only those of [since, until) are read)
        "AND s.started_at >= %(since)s AND s.started_at < %(until)s "
        "WHERE r.status = 'settled' AND r.started_at >= %(since)s AND r.started_at < %(until)s "
        "AND (%(pit)s::text IS NULL OR r.pit = %(pit)s) GROUP BY 1, 2, 3, 4", params).fetchall()
    wins = conn.execute(
        "SELECT table_name, count(*), sum(wagered), sum(house_net) FROM floor.rounds_latest "
        "WHERE status = 'settled' AND started_at >= %(since)s AND started_at < %(until)s "
        "AND (%(pit)s::text IS NULL OR pit = %(pit)s) GROUP BY 1", params).fetchall()
    theo: dict[str, Decimal] = {}
    var: dict[str, Decimal] = {}
    for table, game, decks, bet, staked, squares in stakes:
        edge, sd = figures(str(game), int(decks)).get(str(bet).split("@")[0], (Decimal(0), Decimal(0)))
        theo[table] = theo.get(table, Decimal(0)) + edge * Decimal(staked)
        var[table] = var.get(table, Decimal(0)) + sd * sd * Decimal(squares)
    return {
        str(table): Band(str(table), int(n), Decimal(w or 0), Decimal(net or 0),
                         theo.get(table, Decimal(0)).quantize(Decimal("0.01")),
                         var.get(table, Decimal(0)).sqrt().quantize(Decimal("0.01")), z)
        for table, n, w, net in wins
    }


@dataclass(frozen=True)
class Condition:
    table: str
    kind: str
    detail: str
    subject: str = ""  # the player or shoe within the table and kind ('' for the table's own kinds)


_SESSIONS = """
SELECT t.table_name, s.started_at, s.ended
FROM floor.tables t
LEFT JOIN LATERAL (SELECT s.started_at, EXISTS (SELECT 1 FROM floor.audit a WHERE a.table_name = s.table_name
    AND a.kind = 'session_end' AND a.detail_json::jsonb ->> 'session_id' = s.session_id::text) AS ended
    FROM floor.sessions s WHERE s.table_name = t.table_name ORDER BY s.session_id DESC LIMIT 1) s ON true
WHERE %(pit)s::text IS NULL OR t.pit = %(pit)s
"""


def table_conditions(conn: psycopg.Connection[Any], moment: _dt.datetime, *, pit: str | None = None,
                     min_pace: int = 30, stale_after: _dt.timedelta = STALE_AFTER) -> tuple[list[Condition], list[str]]:
    """(what is wrong with the tables' links and play now, the tables that are closed).

    Issue 35: a *closed* table — its latest session ended (the station's session_end entry is on
    the floor) — is not a broken link when its station goes quiet; a table has a *pace* only once
    its open session began an hour ago (no pace alert on its first rounds, none when closed)."""
    sessions = {str(t): (started, bool(ended)) for t, started, ended in
                conn.execute(_SESSIONS, {"pit": pit}).fetchall()}
    out: list[Condition] = []
    closed: list[str] = []
    for t in live_tables(conn, pit, moment):
        started, ended = sessions.get(t.table, (None, False))
        if ended:
            closed.append(t.table)
        fresh = t.heartbeat_at is not None and moment - t.heartbeat_at <= stale_after
        if t.alarm is not None or t.link_state == "stopped":
            out.append(Condition(t.table, "table_stopped", t.note))
        elif not ended and t.heartbeat_at is not None and not fresh:
            out.append(Condition(t.table, "link_down",
                                 f"link down: no heartbeat since {t.heartbeat_at:%Y-%m-%d %H:%M:%S} UTC "
                                 f"(over {int(stale_after.total_seconds())} s) and its session is open"))
        has_pace = not ended and started is not None and moment - started >= _dt.timedelta(hours=1)
        if has_pace and fresh and t.rounds_last_hour < min_pace:
            out.append(Condition(t.table, "pace", f"{t.rounds_last_hour} rounds in the last hour (under {min_pace})"))
    return out, closed


def band_conditions(bands: Mapping[str, Band]) -> list[Condition]:
    out = []
    for band in bands.values():
        if band.outside:
            ratio = "" if not band.wagered else f", net/wagered {band.win * 100 / band.wagered:.2f} %"
            out.append(Condition(band.table, "win_band",
                                 f"win {band.win} over {band.rounds} rounds{ratio}: outside {band.low} .. {band.high} "
                                 f"(theoretical {band.theo}, ±{band.z} sd of {band.sd})"))
    return out


def evaluate(conn: psycopg.Connection[Any], *, now: _dt.datetime | None = None, pit: str | None = None,
             window: _dt.timedelta = _dt.timedelta(hours=8), min_pace: int = 30,
             figures: Figures = par_figures, stale_after: _dt.timedelta = STALE_AFTER,
             links: psycopg.Connection[Any] | None = None) -> list[Condition]:
    """What is wrong now (:func:`table_conditions`: link down, stopped, pace), and each table's
    win over ``window`` outside its band. ``links``: the connection the table conditions are read
    on when ``conn`` reads a hot standby — the primary's: heartbeats are judged against *now*,
    and a standby behind shows them as they were (every beating station would look silent)."""
    moment = now or _dt.datetime.now(_dt.UTC)
    out, _closed = table_conditions(links or conn, moment, pit=pit, min_pace=min_pace, stale_after=stale_after)
    return out + band_conditions(win_bands(conn, moment - window, moment, pit=pit, figures=figures))


def raise_alerts(conn: psycopg.Connection[Any], conditions: list[Condition],
                 quiet: _dt.timedelta = _dt.timedelta(minutes=30)) -> list[int]:
    """Raise an alert for each condition with none open for its table, kind and subject (and
    none of them acknowledged within ``quiet``)."""
    made = []
    try:
        for c in conditions:
            row = conn.execute("SELECT floor.raise_alert(%s, %s, %s, %s, %s)",
                               (c.table, c.kind, c.subject, c.detail, quiet)).fetchone()
            if row is not None and row[0] is not None:
                made.append(int(row[0]))
        if not conn.autocommit:
            conn.commit()
    except psycopg.Error as err:
        raise FloorError(f"cannot raise the alerts: {describe_error(err)}") from None
    return made


@dataclass(frozen=True)
class Alert:
    alert_id: int
    table: str
    kind: str
    subject: str  # the player or shoe ('' for the table's own kinds)
    detail: str
    raised_at: _dt.datetime
    acked_by: str | None  # the supervisor's name
    ack_note: str | None
    acked_at: _dt.datetime | None
    ack_account: str | None  # the database account that acknowledged


def alerts(conn: psycopg.Connection[Any], *, pit: str | None = None, open_only: bool = False,
           limit: int = 200) -> list[Alert]:
    rows = conn.execute(
        "SELECT a.alert_id, a.table_name, a.kind, a.subject, a.detail, a.raised_at, c.supervisor, c.note, c.acked_at, c.db_role "
        "FROM floor.alerts a JOIN floor.tables t ON t.table_name = a.table_name "
        "LEFT JOIN floor.alert_acks c ON c.alert_id = a.alert_id "
        "WHERE (%(pit)s::text IS NULL OR t.pit = %(pit)s) AND (NOT %(open)s OR c.alert_id IS NULL) "
        "ORDER BY a.raised_at DESC, a.alert_id DESC LIMIT %(limit)s",
        {"pit": pit, "open": open_only, "limit": limit}).fetchall()
    return [Alert(int(r[0]), *r[1:]) for r in rows]


def acknowledge(conn: psycopg.Connection[Any], alert_id: int, supervisor: str, note: str) -> None:
    """A supervisor acknowledges an alert (kept with their name, the note, the account and time)."""
    supervisor, note = supervisor.strip(), note.strip()
    if not supervisor or not note:
        raise FloorError("an acknowledgement needs the supervisor's name and a note")
    try:
        if conn.execute("SELECT 1 FROM floor.alerts WHERE alert_id = %s", (alert_id,)).fetchone() is None:
            raise FloorError(f"no alert {alert_id} on the floor")
        conn.execute("INSERT INTO floor.alert_acks (alert_id, supervisor, note) VALUES (%s, %s, %s)",
                     (alert_id, supervisor, note))
        if not conn.autocommit:
            conn.commit()
    except psycopg.errors.UniqueViolation:
        raise FloorError(f"alert {alert_id} is already acknowledged") from None
    except psycopg.Error as err:
        raise FloorError(f"cannot acknowledge alert {alert_id}: {describe_error(err)}") from None
