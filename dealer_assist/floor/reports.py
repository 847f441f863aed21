"""Shift, day and player reports a shift manager signs, as CSV and PDF (issue 35, Build 5;
``dealer-assist floor shift|day|rating ... --csv FILE --pdf FILE``).

The figures are accounting's (``shift_report``: win = drop + closer - opener + credits - fills,
hold % = win / drop; ``player_rating``); this module only reads beside them who signed each
opener, closer, fill, credit and drop and when, and writes them out. Fills and credits entered
after a shift's closer are shown beside it ("after close"), never in its win.

The document number is a digest of the report's figures (the CSV's rows without the number):
the same figures read again, from the primary or a standby, carry the same number; any figure
changed gives another. The PDF names the floor database and the time range it was read from.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as _dt
import hashlib
import io
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg

from dealer_assist.floor.accounting import (
    PlayerRating,
    ShiftFigures,
    player_rating,
    shift_report,
    sum_figures,
)
from dealer_assist.floor.alerts import Figures, par_figures
from dealer_assist.floor.connection import FloorError

__all__ = [
    "DAY_FIELDS", "RATING_FIELDS", "SHIFT_FIELDS", "Movement", "RatingReport", "Report", "ReportRow",
    "day_document", "money", "player_theo", "rating_document", "rating_csv", "rating_pdf", "report_csv",
    "report_pdf", "shift_document", "write_files",
]

_CENT = Decimal("0.01")


def money(value: Decimal | None) -> str:
    """An exact decimal, at least to the cent, never rounded ("" for none)."""
    if value is None:
        return ""
    cents = value.quantize(_CENT)
    return format(cents if cents == value else value.normalize(), "f")


def _when(moment: _dt.datetime | None) -> str:
    return "" if moment is None else moment.astimezone(_dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


@dataclass(frozen=True)
class Movement:
    """An opener, closer, fill, credit (two signers) or drop (counted by, witness) as recorded."""
    table: str
    shift: str
    kind: str  # opener, closer, fill, credit, drop
    amount: Decimal
    first: str  # the dealer (the drop: who counted)
    second: str  # the supervisor (the drop: the witness)
    at: _dt.datetime
    after_close: bool = False
    cash: Decimal = Decimal(0)  # a drop's parts
    markers: Decimal = Decimal(0)

    def detail(self) -> str:
        return f"{money(self.amount)} by {self.first} and {self.second} at {_when(self.at)}"


@dataclass(frozen=True)
class ReportRow:
    shift: str  # the shift's name; "day" for a day report's totals
    level: str  # table, pit or floor
    table: str  # "" for a pit's or the floor's row
    pit: str  # "" for the floor's row
    figures: ShiftFigures


@dataclass(frozen=True)
class Report:
    kind: str  # shift or day
    day: _dt.date
    shifts: list[str]
    pit: str | None
    database: str
    read_at: _dt.datetime
    since: _dt.datetime | None  # the rounds were read from the first opener ...
    until: _dt.datetime | None  # ... to the last closer (or the time of reading)
    rows: list[ReportRow]
    movements: list[Movement] = field(default_factory=list)

    @property
    def total(self) -> ShiftFigures:
        return self.rows[-1].figures

    @property
    def document(self) -> str:
        scope = "SR" if self.kind == "shift" else "DR"
        name = self.shifts[0].upper() if self.kind == "shift" else "DAY"
        return f"DA-{scope}-{self.day:%Y%m%d}-{name}-{_digest(_figure_lines(self))}"


def _digest(lines: list[list[str]]) -> str:
    text = "\n".join("\x1f".join(line) for line in lines)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12].upper()


@contextmanager
def _one_snapshot(conn: psycopg.Connection[Any]) -> Iterator[None]:
    """Every figure of a report read in one snapshot (REPEATABLE READ, read only): an entry
    recorded while it is read is in all of its figures or in none. Inside a transaction already
    begun, that transaction's own."""
    if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        yield
        return
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def _check_pit(conn: psycopg.Connection[Any], pit: str | None) -> None:
    if pit is None:
        return
    pits = [str(p) for (p,) in conn.execute("SELECT DISTINCT pit FROM floor.tables ORDER BY 1").fetchall()]
    if pit not in pits:
        raise FloorError(f"no pit {pit!r} on the floor (its pits: {', '.join(pits) or 'none'})")


def _pits(conn: psycopg.Connection[Any]) -> dict[str, str]:
    return {str(t): str(p) for t, p in conn.execute("SELECT table_name, pit FROM floor.tables").fetchall()}


def _movements(conn: psycopg.Connection[Any], day: _dt.date, shift: str | None, tables: set[str]) -> list[Movement]:
    params = {"day": day, "shift": None if shift is None else shift.strip().lower()}
    chips = conn.execute(
        "SELECT table_name, lower(shift), kind, total, dealer, supervisor, recorded_at, adjusts_closed "
        "FROM floor.chip_movements WHERE gaming_day = %(day)s AND (%(shift)s::text IS NULL OR lower(shift) = %(shift)s) "
        "ORDER BY recorded_at, movement_id", params).fetchall()
    drops = conn.execute(
        "SELECT table_name, lower(shift), cash, markers, counted_by, witness, recorded_at FROM floor.drops "
        "WHERE gaming_day = %(day)s AND (%(shift)s::text IS NULL OR lower(shift) = %(shift)s) ORDER BY recorded_at",
        params).fetchall()
    out = [Movement(str(t), str(s), str(k), Decimal(a), str(d), str(v), at, bool(late))
           for t, s, k, a, d, v, at, late in chips if t in tables]
    out += [Movement(str(t), str(s), "drop", Decimal(c) + Decimal(m), str(b), str(w), at, False, Decimal(c), Decimal(m))
            for t, s, c, m, b, w, at in drops if t in tables]
    return sorted(out, key=lambda m: m.at)


def _time_range(movements: list[Movement], read_at: _dt.datetime) -> tuple[_dt.datetime | None, _dt.datetime | None]:
    openers = [m.at for m in movements if m.kind == "opener"]
    if not openers:
        return None, None
    closed = {(m.table, m.shift): m.at for m in movements if m.kind == "closer"}
    ends = [closed.get((m.table, m.shift), read_at) for m in movements if m.kind == "opener"]
    return min(openers), max(ends)


def _shift_rows(conn: psycopg.Connection[Any], day: _dt.date, shift: str, pit: str | None, figures: Figures,
                read_at: _dt.datetime, pits: dict[str, str]) -> list[ReportRow]:
    tables, by_pit, whole = shift_report(conn, day, shift, pit=pit, figures=figures, now=read_at)
    name = shift.strip().lower()
    return ([ReportRow(name, "table", f.key, pits.get(f.key, ""), f) for f in tables]
            + [ReportRow(name, "pit", "", f.key, f) for f in by_pit] + [ReportRow(name, "floor", "", "", whole)])


def _day_shifts(conn: psycopg.Connection[Any], day: _dt.date, pit: str | None) -> list[str]:
    """The shifts of a gaming day (of ``pit``), in the order they opened."""
    rows = conn.execute(
        "SELECT lower(m.shift) FROM floor.chip_movements m JOIN floor.tables t ON t.table_name = m.table_name "
        "WHERE m.gaming_day = %s AND (%s::text IS NULL OR t.pit = %s) GROUP BY 1 ORDER BY min(m.recorded_at)",
        (day, pit, pit)).fetchall()
    return [str(s) for (s,) in rows]


def _where(pit: str | None) -> str:
    return f" in pit {pit}" if pit else ""


def shift_document(conn: psycopg.Connection[Any], day: _dt.date, shift: str, *, pit: str | None = None,
                   database: str, figures: Figures = par_figures, now: _dt.datetime | None = None) -> Report:
    """One gaming day's shift: per table, per pit and the floor, with every signed entry."""
    with _one_snapshot(conn):
        return _shift_document(conn, day, shift, pit, database, figures, now)


def _shift_document(conn: psycopg.Connection[Any], day: _dt.date, shift: str, pit: str | None, database: str,
                    figures: Figures, now: _dt.datetime | None) -> Report:
    _check_pit(conn, pit)
    read_at = now or _dt.datetime.now(_dt.UTC)
    pits = _pits(conn)
    rows = _shift_rows(conn, day, shift, pit, figures, read_at, pits)
    if not any(r.level == "table" for r in rows):
        shifts = _day_shifts(conn, day, pit)
        raise FloorError(f"no shift {shift.strip().lower()!r} on {day}{_where(pit)}: nothing recorded "
                         f"(that day's shifts: {', '.join(shifts) or 'none'})")
    movements = _movements(conn, day, shift, {r.table for r in rows if r.level == "table"})
    since, until = _time_range(movements, read_at)
    return Report("shift", day, [shift.strip().lower()], pit, database, read_at, since, until, rows, movements)


def day_document(conn: psycopg.Connection[Any], day: _dt.date, *, pit: str | None = None, database: str,
                 figures: Figures = par_figures, now: _dt.datetime | None = None) -> Report:
    """Every shift of a gaming day, per table, then the day's totals per table, pit and the floor
    (each the sum of the shifts': the day's win is the sum of its shifts' wins)."""
    with _one_snapshot(conn):
        return _day_document(conn, day, pit, database, figures, now)


def _day_document(conn: psycopg.Connection[Any], day: _dt.date, pit: str | None, database: str, figures: Figures,
                  now: _dt.datetime | None) -> Report:
    _check_pit(conn, pit)
    read_at = now or _dt.datetime.now(_dt.UTC)
    shifts = _day_shifts(conn, day, pit)
    if not shifts:
        raise FloorError(f"no shift on {day}{_where(pit)}: nothing recorded that day")
    pits = _pits(conn)
    rows: list[ReportRow] = []
    for shift in shifts:
        rows += [r for r in _shift_rows(conn, day, shift, pit, figures, read_at, pits) if r.level == "table"]
    by_table: dict[str, list[ShiftFigures]] = {}
    for r in rows:
        by_table.setdefault(r.table, []).append(r.figures)
    totals = [ReportRow("day", "table", t, pits.get(t, ""), sum_figures(fs, t))
              for t, fs in sorted(by_table.items(), key=lambda kv: (pits.get(kv[0], ""), kv[0]))]
    by_pit: dict[str, list[ShiftFigures]] = {}
    for r in totals:
        by_pit.setdefault(r.pit, []).append(r.figures)
    rows += totals + [ReportRow("day", "pit", "", p, sum_figures(fs, p)) for p, fs in sorted(by_pit.items())]
    rows.append(ReportRow("day", "floor", "", "", sum_figures([r.figures for r in totals], "floor")))
    movements = _movements(conn, day, None, set(by_table))
    since, until = _time_range(movements, read_at)
    return Report("day", day, shifts, pit, database, read_at, since, until, rows, movements)


# ---------------------------------------------------------------- CSV

SHIFT_FIELDS = (
    "document", "day", "shift", "level", "table", "pit", "opener", "opener_signed_by", "opener_at", "fills",
    "fills_detail", "credits", "credits_detail", "closer", "closer_signed_by", "closer_at", "cash", "markers",
    "drop", "drop_counted_by", "win", "hold_percent", "rounds", "rounds_net", "theo", "after_close",
    "after_close_detail", "win_with_after_close", "terminal_buy_ins", "terminal_cash_outs")
DAY_FIELDS = SHIFT_FIELDS


def _signed(mine: list[Movement], kind: str) -> tuple[str, str]:
    """Who signed the ``kind`` entries ("dealer, supervisor"; a drop's "counted by, witness") and when."""
    found = [m for m in mine if m.kind == kind]
    return "; ".join(f"{m.first}, {m.second}" for m in found), "; ".join(_when(m.at) for m in found)


def _details(mine: list[Movement], kind: str | None) -> str:
    """The ``kind`` entries in the shift's figures, each with its signers and time; None: those after close."""
    found = [m for m in mine if (kind is None and m.after_close) or (m.kind == kind and not m.after_close)]
    return "; ".join((f"{m.kind} " if kind is None else "") + m.detail() for m in found)


def _figure_lines(report: Report) -> list[list[str]]:
    """The CSV's rows, header first, without the document number (what the number digests)."""
    lines = [list(SHIFT_FIELDS[1:])]
    for row in report.rows:
        f = row.figures
        mine = [m for m in report.movements if row.level == "table" and m.table == row.table
                and (row.shift == "day" or m.shift == row.shift)]

        opener_by, opener_at = _signed(mine, "opener")
        closer_by, closer_at = _signed(mine, "closer")
        counted, _ = _signed(mine, "drop")
        lines.append([
            report.day.isoformat(), row.shift, row.level, row.table, row.pit, money(f.opener), opener_by, opener_at,
            money(f.fills), _details(mine, "fill"), money(f.credits), _details(mine, "credit"), money(f.closer), closer_by,
            closer_at, money(f.cash), money(f.markers), money(f.drop), counted, money(f.win),
            money(f.hold_percent), str(f.rounds), money(f.rounds_net), money(f.theo), money(f.adjustment),
            _details(mine, None), money(f.win_adjusted), money(f.terminal_buy_ins), money(f.terminal_cash_outs)])
    return lines


def report_csv(report: Report) -> bytes:
    number = report.document
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    header, *rows = _figure_lines(report)
    w.writerow(["document", *header])
    for line in rows:
        w.writerow([number, *line])
    return out.getvalue().encode("utf-8")


# ---------------------------------------------------------------- PDF

def _pdf_parts() -> Any:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import mm
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    return colors, landscape(A4), getSampleStyleSheet(), mm, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _grid(rows: list[list[str]], widths: Sequence[float], right_from: int = 1,
          heights: Sequence[float] | None = None) -> Any:
    colors, _, _, mm, _, _, _, Table, TableStyle = _pdf_parts()
    t = Table(rows, colWidths=[w * mm for w in widths], repeatRows=1, hAlign="LEFT",
              rowHeights=None if heights is None else [h * mm for h in heights])
    t.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, -1), "Helvetica", 7), ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 7),
        ("GRID", (0, 0), (-1, -1), 0.25, colors.grey), ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("TOPPADDING", (0, 0), (-1, -1), 1), ("BOTTOMPADDING", (0, 0), (-1, -1), 1),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e5e8e8")),
        ("ALIGN", (right_from, 0), (-1, -1), "RIGHT")]))
    return t


def _sign_off(number: str, small: Any, approver: str) -> list[Any]:
    """The signature block: who prepared the document and who approves it (``approver``)."""
    _, _, styles, mm, Paragraph, _, Spacer, _, _ = _pdf_parts()
    rows = [["", "name", "signature", "date"], ["Prepared by", "", "", ""], [approver, "", "", ""]]
    t = _grid(rows, [30, 60, 80, 40], right_from=4, heights=[6, 13, 13])  # room to sign
    return [Spacer(1, 4 * mm), Paragraph("Signatures", styles["Heading4"]),
            Paragraph(f"By signing, each confirms the figures of document {_escape(number)} as printed.", small),
            Spacer(1, 2 * mm), t]


def _build_pdf(title: str, number: str, story: list[Any]) -> bytes:
    _, page, _, mm, _, SimpleDocTemplate, _, _, _ = _pdf_parts()

    def footer(canvas: Any, doc: Any) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 7)
        canvas.drawString(12 * mm, 7 * mm, f"{title}; document {number}")
        canvas.drawRightString(page[0] - 12 * mm, 7 * mm, f"page {doc.page}")
        canvas.restoreState()

    out = io.BytesIO()
    # pageCompression=0: the page text stays readable in the file (a search for the number finds it)
    doc = SimpleDocTemplate(out, pagesize=page, leftMargin=12 * mm, rightMargin=12 * mm, topMargin=12 * mm,
                            bottomMargin=13 * mm, title=f"{title} ({number})", subject=number,
                            author="dealer-assist", pageCompression=0)
    doc.build(story, onFirstPage=footer, onLaterPages=footer)
    return out.getvalue()


def _title(report: Report) -> str:
    scope = f", pit {report.pit}" if report.pit else ""
    if report.kind == "shift":
        return f"Shift report: {report.day.isoformat()}, shift {report.shifts[0]}{scope}"
    return f"Day report: {report.day.isoformat()}, shifts {', '.join(report.shifts)}{scope}"


def report_pdf(report: Report) -> bytes:
    from dealer_assist import __version__

    _, _, styles, mm, Paragraph, _, Spacer, _, _ = _pdf_parts()
    small = styles["BodyText"].clone("small", fontSize=7.5, leading=9)
    number, title = report.document, _title(report)
    rounds = ("no opener yet: no rounds read" if report.since is None else
              f"rounds read from {_when(report.since)} to {_when(report.until)}")
    story: list[Any] = [
        Paragraph(_escape(title), styles["Title"]),
        Paragraph(f"Document {_escape(number)}. Read from the floor database {_escape(report.database)} at "
                  f"{_when(report.read_at)}; {rounds} (each table's from its opener to its closer). "
                  f"Made by dealer-assist {__version__} (issue 35; docs/floor.md).", small),
        Spacer(1, 3 * mm)]
    head = ["", "opener", "fills", "credits", "closer", "cash", "markers", "drop", "win", "hold %", "rounds",
            "rounds' net", "theo", "after close", "win with after close"]
    widths = [28, 18, 16, 16, 18, 17, 16, 18, 17, 13, 11, 17, 14, 20, 28]
    sections = [(s, f"Shift {s}") for s in report.shifts] + ([("day", "The day's totals")] if report.kind == "day" else [])
    for key, heading in sections:
        rows = [r for r in report.rows if r.shift == key]
        if report.kind == "day":
            story.append(Paragraph(_escape(heading), styles["Heading4"]))
        lines = [head]
        for r in rows:
            f = r.figures
            label = r.table if r.level == "table" else (f"pit {r.pit}" if r.level == "pit" else "floor")
            lines.append([label, money(f.opener) or "-", money(f.fills), money(f.credits), money(f.closer) or "-",
                          money(f.cash), money(f.markers), money(f.drop), money(f.win) or "-",
                          "-" if f.hold_percent is None else f"{f.hold_percent} %", str(f.rounds),
                          money(f.rounds_net), money(f.theo),
                          f"{money(f.adjustment)} ({f.adjustments})" if f.adjustments else "-",
                          money(f.win_adjusted) if f.adjustments else "-"])
        story += [_grid(lines, widths), Spacer(1, 2 * mm)]
        terminals = [r for r in rows if r.figures.terminal_buy_ins or r.figures.terminal_cash_outs]
        if terminals:  # Electronic Blackjack's player terminals, beside the drop (1.1.10)
            story.append(Paragraph("Player terminals (beside the drop, not in it): " + "; ".join(
                f"{_escape(r.table if r.level == 'table' else (f'pit {r.pit}' if r.level == 'pit' else 'floor'))} "
                f"credits bought {money(r.figures.terminal_buy_ins)}, vouchers {money(r.figures.terminal_cash_outs)}"
                for r in terminals), small))
    story.append(Paragraph("win = drop + closer - opener + credits - fills; hold % = win / drop. Fills and credits "
                           "entered after the closer are shown beside the shift (after close), not in its win.", small))
    story.append(Paragraph("Openers, closers, fills, credits and drops as signed", styles["Heading4"]))
    entries = [["table", "shift", "entry", "amount", "dealer (drop: counted by)", "supervisor (drop: witness)",
                "recorded"]]
    for m in report.movements:
        kind = f"{m.kind} (after close)" if m.after_close else (
            f"drop (cash {money(m.cash)}, markers {money(m.markers)})" if m.kind == "drop" else m.kind)
        entries.append([m.table, m.shift, kind, money(m.amount), m.first, m.second, _when(m.at)])
    story.append(_grid(entries, [22, 18, 62, 22, 40, 40, 40], right_from=3))
    story += _sign_off(number, small, "Shift manager")
    return _build_pdf(title, number, story)


# ---------------------------------------------------------------- a player's rating

RATING_FIELDS = ("document", "player", "since", "until", "rounds", "wagered", "average_bet", "net", "theo",
                 "buy_in", "buy_in_markers", "time_played_minutes")


def player_theo(conn: psycopg.Connection[Any], player: str, since: _dt.datetime, until: _dt.datetime,
                figures: Figures = par_figures) -> Decimal:
    """The house's theoretical win on ``player``'s wagers over [since, until): each settled
    round's stakes times their bets' edges (the same figures as a shift's theo)."""
    rows = conn.execute(
        "SELECT r.game, coalesce((r.config_json::jsonb ->> 'decks')::int, 0), s.bet, sum(s.stake) "
        "FROM floor.rounds_latest r JOIN floor.settlements s ON s.table_name = r.table_name "
        "AND s.round_id = r.round_id AND s.started_at = r.started_at "
        "AND s.started_at >= %(since)s AND s.started_at < %(until)s "
        "WHERE r.status = 'settled' AND r.started_at >= %(since)s AND r.started_at < %(until)s "
        "AND s.player = %(player)s GROUP BY 1, 2, 3", {"since": since, "until": until, "player": player}).fetchall()
    theo = Decimal(0)
    for game, decks, bet, staked in rows:
        edge, _ = figures(str(game), int(decks)).get(str(bet).split("@")[0], (Decimal(0), Decimal(0)))
        theo += edge * Decimal(staked)
    return theo.quantize(_CENT)


@dataclass(frozen=True)
class RatingReport:
    rating: PlayerRating
    theo: Decimal
    since: _dt.date
    until: _dt.date
    database: str
    read_at: _dt.datetime

    def line(self) -> list[str]:
        r = self.rating
        return [r.player, self.since.isoformat(), self.until.isoformat(), str(r.rounds), money(r.wagered),
                money(r.average_bet), money(r.net), money(self.theo), money(r.buy_in), money(r.markers),
                str(int(r.time_played.total_seconds() // 60))]

    @property
    def document(self) -> str:
        return f"DA-PR-{self.since:%Y%m%d}-{_digest([list(RATING_FIELDS[1:]), self.line()])}"


def rating_document(conn: psycopg.Connection[Any], player: str, since: _dt.date, until: _dt.date, *,
                    database: str, figures: Figures = par_figures) -> RatingReport:
    if until <= since:
        raise FloorError(f"--until {until} must be after --since {since}")
    start = _dt.datetime(since.year, since.month, since.day, tzinfo=_dt.UTC)
    end = _dt.datetime(until.year, until.month, until.day, tzinfo=_dt.UTC)
    with _one_snapshot(conn):
        rating = player_rating(conn, player, start, end)
        theo = player_theo(conn, player, start, end, figures)
    return RatingReport(rating, theo, since, until, database, _dt.datetime.now(_dt.UTC))


def rating_csv(report: RatingReport) -> bytes:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(RATING_FIELDS)
    w.writerow([report.document, *report.line()])
    return out.getvalue().encode("utf-8")


def rating_pdf(report: RatingReport) -> bytes:
    from dealer_assist import __version__

    _, _, styles, mm, Paragraph, _, Spacer, _, _ = _pdf_parts()
    small = styles["BodyText"].clone("small", fontSize=7.5, leading=9)
    r, number = report.rating, report.document
    minutes = int(r.time_played.total_seconds() // 60)
    title = f"Player rating: {r.player}, {report.since.isoformat()} to {report.until.isoformat()}"
    rows = [["figure", r.player], ["rounds", str(r.rounds)], ["wagered", money(r.wagered)],
            ["average bet", money(r.average_bet) or "-"], ["net (the player's)", money(r.net)],
            ["theo (the house's theoretical win)", money(report.theo)],
            ["buy-in", f"{money(r.buy_in)} (markers {money(r.markers)})"],
            ["time played", f"{minutes // 60} h {minutes % 60:02d} min"]]
    story: list[Any] = [
        Paragraph(_escape(title), styles["Title"]),
        Paragraph(f"Document {_escape(number)}. Read from the floor database {_escape(report.database)} at "
                  f"{_when(report.read_at)}; the rounds started from {report.since.isoformat()} 00:00 UTC to "
                  f"{report.until.isoformat()} 00:00 UTC (not included). Made by dealer-assist {__version__}.", small),
        Spacer(1, 3 * mm), _grid(rows, [70, 60]),
        Paragraph("Theo: each settled round's stakes times their bets' house edges (the games' par sheets).", small)]
    story += _sign_off(number, small, "Pit supervisor")  # a rating is the pit's, not a shift's accounts
    return _build_pdf(title, number, story)


# ---------------------------------------------------------------- writing

def write_files(outputs: list[tuple[str, bytes]]) -> None:
    """Write every file or none: each is first written beside its place, then all are moved in;
    if a move fails, the files already moved in are put back as they were (or removed)."""
    done: list[tuple[str, Path]] = []
    kept: list[Path] = []  # the files as they were before, linked beside them
    moved: list[tuple[str, Path | None]] = []
    try:
        for name, data in outputs:
            path = Path(name)
            if path.is_dir():
                raise FloorError(f"cannot write {name}: it is a folder")
            try:
                fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
            except OSError as err:
                raise FloorError(f"cannot write {name}: {err.strerror or err}") from None
            done.append((name, Path(temp)))
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        for name, part in done:
            try:
                before = _keep(Path(name), kept)
                os.replace(part, name)
            except OSError as err:
                _put_back(moved)
                raise FloorError(f"cannot write {name}: {err.strerror or err} (no file was written)") from None
            moved.append((name, before))
    finally:
        for _, part in done:
            part.unlink(missing_ok=True)
        for old in kept:
            old.unlink(missing_ok=True)


def _keep(path: Path, kept: list[Path]) -> Path | None:
    """A hard link to the file at ``path`` as it is now (None if there is none)."""
    if not path.exists():
        return None
    for attempt in range(100):
        old = path.with_name(f".{path.name}.{os.getpid()}.{attempt}.old")
        try:
            os.link(path, old)
        except FileExistsError:
            continue
        kept.append(old)
        return old
    raise OSError(f"no room beside {path} to keep the file as it was")


def _put_back(moved: list[tuple[str, Path | None]]) -> None:
    """Undo the moves already made: the file as it was, or none where there was none."""
    for name, before in reversed(moved):
        with contextlib.suppress(OSError):
            if before is None:
                os.unlink(name)
            else:
                os.replace(before, name)
