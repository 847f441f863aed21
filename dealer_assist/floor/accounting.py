"""Table accounting on the floor (issue 25, item 5), in the words casinos use:

- **opener** / **closer**: the chip inventory in the table's tray (rack) counted at the start and
  at the end of a shift, per denomination;
- **fill**: chips brought from the cage to the table; **credit**: chips taken from the table back
  to the cage — each signed by the table's dealer and a supervisor (two people);
- **drop**: what went into the table's drop box in the shift — the cash players exchanged for
  chips — plus the **markers** (credit instruments) issued at the table;
- **win** (the table's gross revenue): ``drop + closer - opener + credits - fills`` — what the
  tray gained, plus the chips that left it for the cage, minus those that came from it, plus the
  cash and markers the players gave for the chips they took from it;
- **hold %** = win / drop (the table game's hold: this name and formula only; the rounds' own
  house net over what was wagered is "net/wagered", never "hold").

Issue 35, item 3 (a cage's rules, kept by the server: floor.record_chips, record_drop,
record_buy_in of migration 0010): each signer is an account with a PIN (``floor signer``), two
signatures by two different accounts ("SUE" is sue); fills, credits and buy-ins more than 0, in
the table's chip denominations where the floor knows them (``floor denominations``); no gaming
day after the floor's today; shift names in any case are one shift. A shift is closed once its
closer is in: a later fill or credit is an **adjustment** of that shift, kept and shown beside
its figures (``adjustment``, ``win_adjusted``), never in them.

Beside them, for the shift's time (opener to closer), the rounds' own figures from the floor:
the house's net over the rounds and the theoretical win (par sheets: dealer_assist.floor.alerts).
The rounds' net counts only what the dealer's screen settled; win counts the chips — they differ
by what was not recorded, by chips walked with and by mistakes: the point of putting them side
by side.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import psycopg

from dealer_assist.floor.alerts import Figures, par_figures, win_bands
from dealer_assist.floor.connection import FloorError, describe_error

__all__ = [
    "KINDS", "PlayerRating", "Recorded", "ShiftFigures", "parse_chips", "player_rating", "record_buy_in",
    "record_chips", "record_drop", "set_denominations", "set_signer", "shift_report", "sum_figures", "terminal_credits",
    "total",
]

KINDS = ("opener", "closer", "fill", "credit")
_CHIP = re.compile(r"\s*([0-9]+(?:\.[0-9]{1,2})?)\s*[xX]\s*([0-9]+)\s*")


def parse_chips(text: str) -> dict[str, int]:
    """``"1000x4, 100x100, 0.50x20"`` (denomination x count) as {denomination: count}."""
    chips: dict[str, int] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        match = _CHIP.fullmatch(part)
        if match is None:
            raise FloorError(f"chips: {part.strip()!r} is not DENOMINATION x COUNT (e.g. 100x20)")
        denomination = Decimal(match.group(1)).normalize()
        if denomination <= 0:
            raise FloorError(f"chips: a denomination must be more than 0, not {match.group(1)}")
        key = format(denomination, "f")
        if key in chips:
            raise FloorError(f"chips: denomination {key} given twice")
        chips[key] = int(match.group(2))
    if not chips:
        raise FloorError("chips: none given (e.g. --chips 1000x4,100x100,25x200)")
    return chips


def total(chips: dict[str, int]) -> Decimal:
    return sum((Decimal(d) * n for d, n in chips.items()), Decimal(0))


def _write(conn: psycopg.Connection[Any], query: str, params: tuple[Any, ...], what: str) -> Any:
    """Run one recording statement (a function of the floor's) and commit; its first row back."""
    try:
        row = conn.execute(query, params).fetchone()
        if not conn.autocommit:
            conn.commit()
        return row
    except psycopg.errors.UniqueViolation:
        if not conn.autocommit:
            conn.rollback()
        raise FloorError(f"{what} is already recorded (records are never changed)") from None
    except psycopg.Error as err:
        if not conn.autocommit:
            conn.rollback()
        raise FloorError(f"{what}: refused ({describe_error(err)})") from None


@dataclass(frozen=True)
class Recorded:
    total: Decimal
    adjustment: bool  # a fill or credit after the shift's closer: kept beside the closed shift


def record_chips(conn: psycopg.Connection[Any], table: str, day: _dt.date, shift: str, kind: str,
                 chips: dict[str, int], dealer: str, dealer_pin: str, supervisor: str, supervisor_pin: str
                 ) -> Recorded:
    """An opener, closer, fill or credit, signed by the dealer and a supervisor: two accounts,
    each confirmed by its PIN (the server checks them: floor.record_chips)."""
    import json

    if kind not in KINDS:
        raise FloorError(f"kind {kind!r}: one of {', '.join(KINDS)}")
    if not dealer.strip() or not supervisor.strip():
        raise FloorError(f"a {kind} needs two signatures: the dealer's and a supervisor's")
    row = _write(conn, "SELECT total, adjustment FROM floor.record_chips(%s, %s, %s, %s, %s::jsonb, %s, %s, %s, %s)",
                 (table, day, shift, kind, json.dumps(chips), dealer, dealer_pin, supervisor, supervisor_pin),
                 f"the {kind} of {table} ({day} {shift.strip().lower()})")
    return Recorded(Decimal(row[0]), bool(row[1]))


def record_drop(conn: psycopg.Connection[Any], table: str, day: _dt.date, shift: str, cash: Decimal,
                markers: Decimal, counted_by: str, counted_pin: str, witness: str, witness_pin: str) -> None:
    """A drop counted by one account and witnessed by another (each with its PIN)."""
    if cash < 0 or markers < 0:
        raise FloorError("the drop's cash and markers cannot be negative")
    if not counted_by.strip() or not witness.strip():
        raise FloorError("a drop is counted by one person and witnessed by another")
    _write(conn, "SELECT floor.record_drop(%s, %s, %s, %s, %s, %s, %s, %s, %s)",
           (table, day, shift, cash, markers, counted_by, counted_pin, witness, witness_pin),
           f"the drop of {table} ({day} {shift.strip().lower()})")


def record_buy_in(conn: psycopg.Connection[Any], table: str, player: str, amount: Decimal, kind: str,
                  supervisor: str, pin: str) -> None:
    if kind not in ("cash", "marker"):
        raise FloorError("a buy-in is cash or marker")
    if amount <= 0:
        raise FloorError("a buy-in's amount must be more than 0")
    _write(conn, "SELECT floor.record_buy_in(%s, %s, %s, %s, %s, %s)",
           (table, player, amount, kind, supervisor, pin), f"the buy-in of {player} at {table}")


def set_signer(conn: psycopg.Connection[Any], name: str, pin: str) -> str:
    """The administrator's: an account that signs (a new one, or a new PIN); its name back."""
    row = _write(conn, "SELECT floor.set_signer(%s, %s)", (name, pin), f"signer {name.strip()}")
    return str(row[0])


def set_denominations(conn: psycopg.Connection[Any], table: str, denominations: list[Decimal]) -> None:
    """The administrator's: the chip denominations of a table (fills, credits and counts use only these)."""
    if not denominations or any(d <= 0 for d in denominations):
        raise FloorError("denominations: one or more, each more than 0 (e.g. 1000,100,25,5)")
    _write(conn, "INSERT INTO floor.table_chips (table_name, denominations) VALUES (%s, %s) "
                 "ON CONFLICT (table_name) DO UPDATE SET denominations = excluded.denominations, "
                 "set_at = clock_timestamp(), set_by = session_user RETURNING table_name",
           (table, sorted(set(denominations), reverse=True)), f"the denominations of {table}")


def amount(text: str, what: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise FloorError(f"{what}: {text!r} is not an amount (e.g. 1500 or 37.50)") from None
    if not value.is_finite():
        raise FloorError(f"{what}: {text!r} is not an amount (e.g. 1500 or 37.50)")
    return value


@dataclass(frozen=True)
class ShiftFigures:
    key: str  # the table, the pit or "floor"
    opener: Decimal | None
    closer: Decimal | None
    fills: Decimal
    credits: Decimal
    cash: Decimal
    markers: Decimal
    rounds: int
    rounds_net: Decimal  # the house's net over the shift's rounds
    theo: Decimal  # their theoretical win
    adjustment: Decimal = Decimal(0)  # credits - fills recorded after the closer (beside, not in, the win)
    adjustments: int = 0
    # Electronic Blackjack's player terminals (1.1.10) in the shift, beside the drop (not in it:
    # the station's audit entries meter_buy_in / meter_cash_out, forwarded): credits bought, vouchers written
    terminal_buy_ins: Decimal = Decimal(0)
    terminal_cash_outs: Decimal = Decimal(0)

    @property
    def win_adjusted(self) -> Decimal | None:
        """The closed shift's win with its later adjustments (shown beside it)."""
        win = self.win
        return None if win is None else win + self.adjustment

    @property
    def drop(self) -> Decimal:
        return self.cash + self.markers

    @property
    def win(self) -> Decimal | None:
        """drop + closer - opener + credits - fills (None until both counts are in)."""
        if self.opener is None or self.closer is None:
            return None
        return self.drop + self.closer - self.opener + self.credits - self.fills

    @property
    def hold_percent(self) -> Decimal | None:
        win = self.win
        if win is None or not self.drop:
            return None
        return (win * 100 / self.drop).quantize(Decimal("0.01"))


def _sum(figures: list[ShiftFigures], key: str) -> ShiftFigures:
    def add(values: list[Decimal | None]) -> Decimal | None:
        return None if any(v is None for v in values) else sum((v for v in values if v is not None), Decimal(0))

    return ShiftFigures(key, add([f.opener for f in figures]), add([f.closer for f in figures]),
                        sum((f.fills for f in figures), Decimal(0)), sum((f.credits for f in figures), Decimal(0)),
                        sum((f.cash for f in figures), Decimal(0)), sum((f.markers for f in figures), Decimal(0)),
                        sum(f.rounds for f in figures), sum((f.rounds_net for f in figures), Decimal(0)),
                        sum((f.theo for f in figures), Decimal(0)), sum((f.adjustment for f in figures), Decimal(0)),
                        sum(f.adjustments for f in figures),
                        sum((f.terminal_buy_ins for f in figures), Decimal(0)),
                        sum((f.terminal_cash_outs for f in figures), Decimal(0)))


def sum_figures(figures: list[ShiftFigures], key: str) -> ShiftFigures:
    """The figures of several tables (a pit, the floor) or shifts (a day) as one: each summed."""
    return _sum(figures, key)


def shift_report(conn: psycopg.Connection[Any], day: _dt.date, shift: str, *, pit: str | None = None,
                 figures: Figures = par_figures, now: _dt.datetime | None = None
                 ) -> tuple[list[ShiftFigures], list[ShiftFigures], ShiftFigures]:
    """(per table, per pit, the whole floor) for one gaming day's shift."""
    rows = conn.execute(
        "SELECT t.table_name, t.pit, "
        "(SELECT m.total FROM floor.chip_movements m WHERE m.table_name = t.table_name AND m.gaming_day = %(day)s "
        " AND lower(m.shift) = %(shift)s AND m.kind = 'opener'), "
        "(SELECT m.total FROM floor.chip_movements m WHERE m.table_name = t.table_name AND m.gaming_day = %(day)s "
        " AND lower(m.shift) = %(shift)s AND m.kind = 'closer'), "
        "(SELECT coalesce(sum(m.total), 0) FROM floor.chip_movements m WHERE m.table_name = t.table_name "
        " AND m.gaming_day = %(day)s AND lower(m.shift) = %(shift)s AND m.kind = 'fill' AND NOT m.adjusts_closed), "
        "(SELECT coalesce(sum(m.total), 0) FROM floor.chip_movements m WHERE m.table_name = t.table_name "
        " AND m.gaming_day = %(day)s AND lower(m.shift) = %(shift)s AND m.kind = 'credit' AND NOT m.adjusts_closed), "
        "(SELECT coalesce(sum(CASE m.kind WHEN 'credit' THEN m.total ELSE -m.total END), 0) "
        " FROM floor.chip_movements m WHERE m.table_name = t.table_name AND m.gaming_day = %(day)s "
        " AND lower(m.shift) = %(shift)s AND m.adjusts_closed), "
        "(SELECT count(*) FROM floor.chip_movements m WHERE m.table_name = t.table_name AND m.gaming_day = %(day)s "
        " AND lower(m.shift) = %(shift)s AND m.adjusts_closed), "
        "d.cash, d.markers, "
        "(SELECT m.recorded_at FROM floor.chip_movements m WHERE m.table_name = t.table_name "
        " AND m.gaming_day = %(day)s AND lower(m.shift) = %(shift)s AND m.kind = 'opener'), "
        "(SELECT m.recorded_at FROM floor.chip_movements m WHERE m.table_name = t.table_name "
        " AND m.gaming_day = %(day)s AND lower(m.shift) = %(shift)s AND m.kind = 'closer') "
        "FROM floor.tables t LEFT JOIN floor.drops d ON d.table_name = t.table_name AND d.gaming_day = %(day)s "
        "AND lower(d.shift) = %(shift)s WHERE (%(pit)s::text IS NULL OR t.pit = %(pit)s) AND EXISTS "
        "(SELECT 1 FROM floor.chip_movements m WHERE m.table_name = t.table_name AND m.gaming_day = %(day)s "
        " AND lower(m.shift) = %(shift)s) ORDER BY t.pit, t.table_name",
        {"day": day, "shift": shift.strip().lower(), "pit": pit}).fetchall()
    moment = now or _dt.datetime.now(_dt.UTC)
    tables: list[ShiftFigures] = []
    pits: dict[str, list[ShiftFigures]] = {}
    for (table, table_pit, opener, closer, fills, credits, adjustment, adjustments, cash, markers, opened,
         closed) in rows:
        rounds, net, theo = 0, Decimal(0), Decimal(0)
        bought = cashed = Decimal(0)
        if opened is not None:
            band = win_bands(conn, opened, closed or moment, pit=table_pit, figures=figures).get(table)
            if band is not None:
                rounds, net, theo = band.rounds, band.win, band.theo
            bought, cashed = terminal_credits(conn, str(table), opened, closed or moment)
        figure = ShiftFigures(str(table), opener, closer, Decimal(fills), Decimal(credits), Decimal(cash or 0),
                              Decimal(markers or 0), rounds, net, theo, Decimal(adjustment), int(adjustments),
                              bought, cashed)
        tables.append(figure)
        pits.setdefault(str(table_pit), []).append(figure)
    return tables, [_sum(v, k) for k, v in sorted(pits.items())], _sum(tables, "floor")


def terminal_credits(conn: psycopg.Connection[Any], table: str, since: _dt.datetime, until: _dt.datetime
                     ) -> tuple[Decimal, Decimal]:
    """(credits bought, vouchers written) at ``table``'s player terminals in [since, until)
    (1.1.10): the station's ``meter_buy_in`` and ``meter_cash_out`` audit entries as forwarded
    (a cash-out's amount is the meter taken off, negative on record)."""
    row = conn.execute(
        "SELECT coalesce(sum(CASE kind WHEN 'meter_buy_in' THEN (detail_json::jsonb ->> 'amount')::numeric END), 0), "
        "coalesce(sum(CASE kind WHEN 'meter_cash_out' THEN -(detail_json::jsonb ->> 'amount')::numeric END), 0) "
        "FROM floor.audit WHERE table_name = %s AND kind IN ('meter_buy_in', 'meter_cash_out') "
        "AND at >= %s AND at < %s", (table, _audit_time(since), _audit_time(until))).fetchone()
    return (Decimal(row[0]), Decimal(row[1])) if row is not None else (Decimal(0), Decimal(0))


def _audit_time(moment: _dt.datetime) -> str:
    """A moment as the station's audit entries write it (ISO UTC text, which sorts as time)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.UTC)
    return moment.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class PlayerRating:
    player: str
    rounds: int
    wagered: Decimal
    net: Decimal  # the player's
    buy_in: Decimal
    markers: Decimal  # of the buy-in, in markers
    time_played: _dt.timedelta
    average_bet: Decimal | None


def player_rating(conn: psycopg.Connection[Any], player: str, since: _dt.datetime, until: _dt.datetime
                  ) -> PlayerRating:
    """A player's rating over [since, until): rounds, wagered, net (as each round stands), buy-in
    (cash and markers recorded at the tables) and time played — for each table and day, from
    their first round's start to their last round's end there."""
    row = conn.execute(
        "SELECT count(*), coalesce(sum(wagered), 0), coalesce(sum(net), 0) FROM floor.round_players_latest "
        "WHERE player = %s AND started_at >= %s AND started_at < %s", (player, since, until)).fetchone()
    played = conn.execute(
        "SELECT coalesce(sum(span), interval '0') FROM (SELECT max(coalesce(r.ended_at, r.started_at)) "
        "- min(r.started_at) AS span FROM floor.round_players rp JOIN floor.rounds r ON r.table_name = rp.table_name "
        "AND r.round_id = rp.round_id AND r.started_at = rp.started_at WHERE rp.player = %s AND rp.started_at >= %s AND rp.started_at < %s "
        "GROUP BY rp.table_name, (rp.started_at AT TIME ZONE 'UTC')::date) x", (player, since, until)).fetchone()
    bought = conn.execute(
        "SELECT coalesce(sum(amount), 0), coalesce(sum(amount) FILTER (WHERE kind = 'marker'), 0) FROM floor.buy_ins "
        "WHERE player = %s AND at >= %s AND at < %s", (player, since, until)).fetchone()
    assert row is not None and played is not None and bought is not None
    rounds, wagered = int(row[0]), Decimal(row[1])
    return PlayerRating(player, rounds, wagered, Decimal(row[2]), Decimal(bought[0]), Decimal(bought[1]), played[0],
                        (wagered / rounds).quantize(Decimal("0.01")) if rounds else None)
