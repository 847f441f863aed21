"""The floor service (issue 35, item 1: ``dealer-assist floor serve``): one process, beside the
database, that evaluates every alert continuously whether or not a pit window is open.

Each pass (every ``interval`` seconds) it reads every table's state and raises, through
``floor.raise_alert`` (one open alert per table, kind and subject: the player or shoe of game
protection's kinds, none for the others):

- **link down**: a table whose station's heartbeat is older than ``stale_after`` — unless the
  table is **closed**: its latest session ended (the station's ``session_end`` audit entry is on
  the floor), so a station switched off by schedule is not a broken link;
- **table stopped**: forwarding stopped (an alarm);
- **pace**: fewer than ``min_pace`` rounds in the last hour — only once the table *has* a pace:
  its open session started at least an hour ago (a table's first rounds, and a closed table,
  raise none);
- **win band**: the win outside the par sheet's band (dealer_assist.floor.alerts). The par
  sheets' figures are never worked out on the pass: a (game, decks) not yet known is worked out
  on a background thread and its tables' bands are checked from the next pass on;
- **verify failed**: every ``verify_every`` seconds it verifies the floor's chains over the last
  day (``FloorReader.verify``: rounds, events, audit entries, derived rows); the first row that
  does not match is raised against its table;
- the **checks** it is given (the CLI gives game protection's: dealer_assist.protect.live,
  ``advantage_play`` and ``shoe_favours_players``); one that fails is logged, the rest go on;
- and it runs ``floor.enforce_bounds`` (roles' settings put back, sessions past their bounds
  ended: migration 0011), raising **role bounds** for a station role it had to correct.

**Floor unreachable** is decided outside the database: a pass that cannot reach PostgreSQL
writes it to the service's own state file (JSON: ``state`` ok / unreachable, ``since``,
``last_contact``, ``error``) and log, and says when contact is back. Nothing here needs a window.

**Beside a hot standby** (the pits read one: ``[floor] read_url``): every read of a pass and
every alert is on the **primary** (``url``), never on the standby. Link down and pace are
judged on the stations' heartbeats and rounds *now*, and a standby shows them as they were
when it last replayed: read there, a standby some seconds behind would make every beating
station look silent (a false link down on every table) and a lagging standby would hide a real
one. The standby (``standby_url``, optional) is only watched: each pass its lag behind the
primary (or that it cannot be reached, or is no standby) goes in the state file (``standby``)
and, when that changes, a line in the log; a standby down never stops a pass — the alerts go on
being raised on the primary, and a pit reading the standby sees them once it is back.
A ``url`` that is itself a standby (read-only: no alert could be written) is refused each pass
with one line in the log and ``state`` ``misconfigured``.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg

from dealer_assist.floor.alerts import (
    Condition,
    Figures,
    band_conditions,
    par_figures,
    raise_alerts,
    table_conditions,
    win_bands,
)
from dealer_assist.floor.connection import (
    REVIEW,
    FloorError,
    FloorMisconfigured,
    Timeouts,
    connect,
    describe_error,
    safe_url,
)
from dealer_assist.floor.live import STALE_AFTER
from dealer_assist.floor.reader import ReplicaLag

__all__ = ["Check", "FloorService", "PassResult", "ServiceSettings", "read_state"]

#: a check of the pass: the conditions it finds on the floor at a moment (a layer above adds its own)
Check = Callable[[psycopg.Connection[Any], _dt.datetime], list[Condition]]


@dataclass(frozen=True)
class ServiceSettings:
    interval: float = 10.0  # seconds between passes
    stale_after: _dt.timedelta = STALE_AFTER  # link down after this long without a heartbeat
    min_pace: int = 30  # rounds an hour
    window: _dt.timedelta = _dt.timedelta(hours=8)  # the win band's window
    connect_timeout: int = 5
    win_band: bool = True  # False: no par sheet is ever worked out (a floor watching links only)
    verify_every: float = 300.0  # seconds between verifies of the last day's chains (0: never)
    verify_span: _dt.timedelta = _dt.timedelta(days=1)


@dataclass
class PassResult:
    reachable: bool
    conditions: list[Condition] = field(default_factory=list)
    raised: list[int] = field(default_factory=list)
    corrected: list[tuple[str, str]] = field(default_factory=list)  # floor.enforce_bounds' rows
    closed: list[str] = field(default_factory=list)  # tables whose session ended
    bands_waiting: list[tuple[str, int]] = field(default_factory=list)  # par sheets being worked out
    error: str | None = None
    primary_lsn: str | None = None  # the primary's WAL position at the pass (the standby's lag)
    standby: dict[str, Any] | None = None  # the standby watched (None: none given)


class _BackgroundFigures:
    """Par sheets' figures worked out on a thread of their own; ``ready`` never waits."""

    def __init__(self, figures: Figures) -> None:
        self._figures = figures
        self._known: dict[tuple[str, int], Mapping[str, tuple[Decimal, Decimal]]] = {}
        self._lock = threading.Lock()
        self._busy: set[tuple[str, int]] = set()

    def missing(self, sheets: set[tuple[str, int]]) -> list[tuple[str, int]]:
        with self._lock:
            todo = sorted(s for s in sheets if s not in self._known)
            start = [s for s in todo if s not in self._busy]
            self._busy.update(start)
        for sheet in start:
            threading.Thread(target=self._work, args=(sheet,), name=f"par-{sheet[0]}-{sheet[1]}", daemon=True).start()
        return todo

    def _work(self, sheet: tuple[str, int]) -> None:
        try:
            found: Mapping[str, tuple[Decimal, Decimal]] = self._figures(*sheet)
        except Exception:  # noqa: BLE001 - a game without a par sheet: no band for it, never a crash
            found = {}
        with self._lock:
            self._known[sheet] = found
            self._busy.discard(sheet)

    def lookup(self, game: str, decks: int) -> Mapping[str, tuple[Decimal, Decimal]]:
        with self._lock:
            return self._known.get((game, decks), {})


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.UTC)


def read_state(path: Path) -> dict[str, Any]:
    """The service's state file (what it last found), or {} when there is none yet."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


_SHEETS = """
SELECT DISTINCT game, coalesce((config_json::jsonb ->> 'decks')::int, 0) FROM floor.rounds
WHERE status = 'settled' AND started_at >= %s AND started_at < %s
"""


class FloorService:
    """``run(stop)`` passes until ``stop`` is set; ``pass_once()`` is one pass (tests, ``--once``)."""

    def __init__(self, url: str, state_path: Path, *, log_path: Path | None = None,
                 settings: ServiceSettings = ServiceSettings(), figures: Figures = par_figures,
                 clock: Callable[[], _dt.datetime] = _now, checks: Sequence[Check] = (),
                 standby_url: str | None = None) -> None:
        self.url = url
        self.standby_url = standby_url or None
        self._standby: dict[str, Any] = {}  # the standby as last seen: state, since, lag
        self._standby_since: str | None = None
        self.checks = tuple(checks)
        self.state_path = state_path
        self.log_path = log_path
        self.settings = settings
        self._figures = _BackgroundFigures(figures)
        self._clock = clock
        previous = read_state(state_path)
        self._state: str | None = previous.get("state") if isinstance(previous.get("state"), str) else None
        self._since: str | None = previous.get("since") if isinstance(previous.get("since"), str) else None
        last = previous.get("last_contact")
        self._last_contact: str | None = last if isinstance(last, str) else None
        self._verified_at: _dt.datetime | None = None
        self._error: str | None = None
        self._timeouts = Timeouts(connect=settings.connect_timeout, statement=REVIEW.statement,
                                  lock=REVIEW.lock, idle_in_transaction=REVIEW.idle_in_transaction,
                                  client=REVIEW.client)

    # ---- the loop

    def run(self, stop: threading.Event) -> None:
        self.log(f"floor service: watching {safe_url(self.url)} every {self.settings.interval:g} s"
                 + (f"; the pits' standby {safe_url(self.standby_url)} watched for its lag only (alerts are "
                    "judged and raised on the primary)" if self.standby_url else ""))
        while not stop.is_set():
            try:
                self.pass_once()
            except Exception as err:  # noqa: BLE001 - the service never dies of one pass
                self.log(f"floor service: a pass failed ({type(err).__name__}: {err}); next pass as usual")
            stop.wait(self.settings.interval)
        self.log("floor service: stopped")

    def pass_once(self) -> PassResult:
        moment = self._clock()
        try:
            conn = connect(self.url, timeouts=self._timeouts, connect_timeout=self.settings.connect_timeout)
        except (FloorError, psycopg.Error) as err:
            return self._unreachable(moment, str(err))
        try:
            with conn:
                result = self._evaluate(conn, moment)
        except FloorMisconfigured as err:
            return self._misconfigured(moment, str(err))
        except (FloorError, psycopg.Error) as err:
            if isinstance(err, psycopg.OperationalError) or conn.broken:
                return self._unreachable(moment, describe_error(err))
            raise
        result.standby = self._watch_standby(moment, result.primary_lsn)
        self._contact(moment, result)
        return result

    # ---- one pass on a connection

    def _evaluate(self, conn: psycopg.Connection[Any], moment: _dt.datetime) -> PassResult:
        s = self.settings
        result = PassResult(reachable=True)
        row = conn.execute("SELECT pg_is_in_recovery(), CASE WHEN pg_is_in_recovery() THEN NULL "
                           "ELSE pg_current_wal_lsn()::text END").fetchone()
        if row is not None and row[0]:
            raise FloorMisconfigured(
                f"{safe_url(self.url)} is a hot standby (read-only: no alert can be raised there): give "
                "--url the primary; the standby the pits read goes in --read-url")
        result.primary_lsn = None if row is None else row[1]
        out, result.closed = table_conditions(conn, moment, min_pace=s.min_pace, stale_after=s.stale_after)
        since = moment - s.window
        if s.win_band:
            sheets = {(str(g), int(d)) for g, d in conn.execute(_SHEETS, (since, moment)).fetchall()}
            result.bands_waiting = self._figures.missing(sheets)
        if s.win_band and not result.bands_waiting:
            out.extend(band_conditions(win_bands(conn, since, moment, figures=self._figures.lookup)))
        conn.commit()
        out.extend(self._checked(conn, moment))
        out.extend(self._verify(moment))
        result.corrected = self._enforce(conn)
        stations = dict(conn.execute("SELECT station_role, table_name FROM floor.tables").fetchall())
        for account, action in result.corrected:
            if account in stations:
                out.append(Condition(str(stations[account]), "role_bounds", f"station role {account}: {action}"))
        result.conditions = out
        if out:
            result.raised = raise_alerts(conn, out)
        return result

    def _checked(self, conn: psycopg.Connection[Any], moment: _dt.datetime) -> list[Condition]:
        out: list[Condition] = []
        for check in self.checks:
            try:
                out.extend(check(conn, moment))
                conn.commit()
            except psycopg.OperationalError:
                raise  # the floor unreachable: the pass says so
            except Exception as err:  # noqa: BLE001 - one check's failure never stops the other alerts
                if conn.broken:
                    raise
                conn.rollback()
                self.log(f"floor service: a check failed ({type(err).__name__}: {err})")
        return out

    def _verify(self, moment: _dt.datetime) -> list[Condition]:
        every = self.settings.verify_every
        if every <= 0 or (self._verified_at is not None and (moment - self._verified_at).total_seconds() < every):
            return []
        from dealer_assist.floor.reader import FloorReader

        self._verified_at = moment
        with FloorReader(self.url) as reader:
            checked = reader.verify(since=moment - self.settings.verify_span, until=moment + _dt.timedelta(minutes=1))
        if checked.ok or checked.table is None:
            return []
        self.log(f"floor service: verify failed: {checked.problem}")
        return [Condition(checked.table, "verify_failed", f"verify failed: {checked.problem}")]

    def _enforce(self, conn: psycopg.Connection[Any]) -> list[tuple[str, str]]:
        try:
            rows = conn.execute("SELECT account, action FROM floor.enforce_bounds()").fetchall()
            conn.commit()
        except psycopg.errors.InsufficientPrivilege as err:
            conn.rollback()
            self.log(f"floor service: cannot enforce the roles' bounds ({describe_error(err)}): run floor init")
            return []
        for account, action in rows:
            self.log(f"floor service: role {account}: {action}")
        return [(str(a), str(x)) for a, x in rows]

    # ---- the standby the pits read: watched, never read for an alert

    def _watch_standby(self, moment: _dt.datetime, primary_lsn: str | None) -> dict[str, Any] | None:
        """The standby's state for the state file; a line in the log when it changes."""
        if self.standby_url is None:
            return None
        where = safe_url(self.standby_url)
        seen: dict[str, Any]
        try:
            with connect(self.standby_url, autocommit=True, timeouts=self._timeouts,
                         connect_timeout=self.settings.connect_timeout) as conn:
                row = conn.execute(
                    "SELECT pg_is_in_recovery(), pg_wal_lsn_diff(%s::pg_lsn, pg_last_wal_replay_lsn())::bigint, "
                    "coalesce(extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()), 0)::float8",
                    (primary_lsn,)).fetchone()
        except (FloorError, psycopg.Error) as err:
            seen = {"state": "unreachable", "error": err.args[0] if isinstance(err, FloorError) else describe_error(err)}
        else:
            assert row is not None
            if not row[0]:
                lag = ReplicaLag(False, 0, 0.0)
                seen = {"state": "not_standby", "lag": lag.text()}
            elif row[1] is None:  # the primary did not answer this pass
                seen = {"state": "ok", "lag": "standby reachable (its lag unknown: the primary did not answer)"}
            else:
                behind = max(0, int(row[1]))
                lag = ReplicaLag(True, behind, float(row[2]) if behind else 0.0)
                seen = {"state": "ok", "lag": lag.text(), "behind_bytes": lag.behind_bytes,
                        "seconds": round(lag.seconds, 1)}
        before = self._standby.get("state")
        if seen["state"] != before:
            self._standby_since = moment.isoformat()
            if seen["state"] == "unreachable":
                self.log(f"floor service: the pits' standby {where} unreachable since {moment:%Y-%m-%d %H:%M:%S} UTC "
                         f"({seen['error']}): alerts go on being judged and raised on the primary; a pit reading "
                         "the standby sees them once it is back")
            elif seen["state"] == "not_standby":
                self.log(f"floor service: {where} (--read-url) is not a standby (promoted, or the primary): pits "
                         "reading it read a server that is not replicated from this floor's primary")
            elif before is None:
                self.log(f"floor service: the pits' standby {where}: {seen['lag']}")
            else:
                self.log(f"floor service: the pits' standby {where} reachable again at "
                         f"{moment:%Y-%m-%d %H:%M:%S} UTC ({seen['lag']})")
        seen["since"] = self._standby_since
        self._standby = seen
        return seen

    # ---- its own state, outside the database

    def _unreachable(self, moment: _dt.datetime, error: str) -> PassResult:
        if self._state != "unreachable":
            self._since = moment.isoformat()
            last = self._last_contact or "never"
            self.log(f"floor unreachable since {moment:%Y-%m-%d %H:%M:%S} UTC (last contact {last}): {error}")
        self._state = "unreachable"
        # the standby is watched still (the pits may read it while the primary is down)
        standby = self._watch_standby(moment, None)
        self._write_state({"state": "unreachable", "since": self._since, "last_contact": self._last_contact,
                           "checked_at": moment.isoformat(), "error": error,
                           **({"standby": standby} if standby is not None else {})})
        return PassResult(reachable=False, error=error, standby=standby)

    def _misconfigured(self, moment: _dt.datetime, error: str) -> PassResult:
        if self._state != "misconfigured" or self._error != error:
            self.log(f"floor service: {error}")
            self._since = moment.isoformat()
        self._state, self._error = "misconfigured", error
        self._write_state({"state": "misconfigured", "since": self._since, "last_contact": self._last_contact,
                           "checked_at": moment.isoformat(), "error": error})
        return PassResult(reachable=False, error=error)

    def _contact(self, moment: _dt.datetime, result: PassResult) -> None:
        if self._state == "unreachable":
            self.log(f"floor reachable again at {moment:%Y-%m-%d %H:%M:%S} UTC (unreachable since {self._since})")
        if self._state != "ok":
            self._since = moment.isoformat()
        self._state = "ok"
        self._last_contact = moment.isoformat()
        if result.raised:
            self.log(f"floor service: {len(result.raised)} new alerts")
        self._write_state({"state": "ok", "since": self._since, "last_contact": self._last_contact,
                           "checked_at": moment.isoformat(), "closed": result.closed,
                           "open_conditions": [[c.table, c.kind, *([c.subject] if c.subject else [])]
                                               for c in result.conditions],
                           "par_sheets_waiting": [list(s) for s in result.bands_waiting],
                           **({"standby": result.standby} if result.standby is not None else {})})

    def _write_state(self, data: dict[str, Any]) -> None:
        try:
            self.state_path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=self.state_path.parent, delete=False, encoding="utf-8",
                                             prefix=".floor-state-") as out:
                json.dump(data, out, indent=1)
            os.replace(out.name, self.state_path)
        except OSError as err:
            self.log(f"floor service: cannot write its state file {self.state_path}: {err}")

    def log(self, line: str) -> None:
        stamped = f"{self._clock():%Y-%m-%dT%H:%M:%SZ} {line}"
        if self.log_path is None:
            print(stamped, flush=True)
            return
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with self.log_path.open("a", encoding="utf-8") as out:
                out.write(stamped + "\n")
        except OSError:
            print(stamped, flush=True)
