"""One player's protection report as a CSV and a PDF (issue 36, Build 5;
``dealer-assist protect --player NAME --csv FILE --pdf FILE``).

- CSV: one row per round the player placed a main wager in: the round, its start, the
  shoe's true count and the estimated edge at its start, the main wager, and that round's
  decisions (how many, how many the chart's, the index plays, every deviation).
- PDF (reportlab): the figures of ``protect`` (summary and flag reasons), the scatter of main
  wager against true count with its least-squares line (reportlab graphics), the play
  precision table (by kind of hand) and the deviations, and the evidence rounds listed.
"""

from __future__ import annotations

import csv
import datetime as _dt
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from reportlab.graphics.shapes import Circle, Drawing, Line, String
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from dealer_assist import __version__
from dealer_assist.protect.play import PlayDecision
from dealer_assist.protect.report import PlayerReport

CSV_FIELDS = ("player", "round", "started_at", "true_count", "estimated_edge", "main_wager", "decisions",
              "chart_matches", "index_plays", "deviations")


def _decisions_by_round(r: PlayerReport) -> dict[int, list[PlayDecision]]:
    out: dict[int, list[PlayDecision]] = {}
    for d in r.precision.rows if r.precision else ():
        out.setdefault(d.round_id, []).append(d)
    return out


def _deviation(d: PlayDecision) -> str:
    return f"{d.hand}: {d.action} (chart {d.chart}{', index play' if d.at_index else ''})"


def write_csv(r: PlayerReport, path: Path) -> None:
    by_round = _decisions_by_round(r)
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(CSV_FIELDS)
        for e in r.evidence:
            ds = by_round.get(e.round_id, [])
            w.writerow([r.player, e.round_id, e.started_at, f"{e.true_count:.4f}",
                        "" if e.edge is None else f"{e.edge:.6f}", str(e.wager), len(ds),
                        sum(d.matches_chart for d in ds), sum(d.at_index for d in ds),
                        "; ".join(_deviation(d) for d in ds if not d.matches_chart)])


def _nice_step(span: float, ticks: int = 6) -> float:
    raw = span / ticks if span > 0 else 1.0
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)


def scatter(points: list[tuple[float, float]], slope: float, width: float = 170 * mm,
            height: float = 80 * mm) -> Drawing:
    """Main wager (y) against true count (x), with the least-squares line over the points' x range."""
    d = Drawing(width, height)
    left, bottom, right, top = 16.0 * mm, 11.0 * mm, float(width - 4 * mm), float(height - 9 * mm)
    xs = [p[0] for p in points] or [0.0]
    ys = [p[1] for p in points] or [0.0]
    x_lo, x_hi = min(min(xs), 0.0), max(max(xs), 0.0)
    if x_hi - x_lo < 1:
        x_lo, x_hi = x_lo - 0.5, x_hi + 0.5
    x_step = _nice_step(x_hi - x_lo)
    x_lo, x_hi = math.floor(x_lo / x_step) * x_step, math.ceil(x_hi / x_step) * x_step
    y_step = _nice_step(max(ys))
    y_hi = math.ceil(max(ys) / y_step) * y_step or 1.0

    def sx(x: float) -> float:
        return float(left + (x - x_lo) / (x_hi - x_lo) * (right - left))

    def sy(y: float) -> float:
        return float(bottom + y / y_hi * (top - bottom))

    grey = colors.HexColor("#d5d8dc")
    x = x_lo
    while x <= x_hi + 1e-9:
        d.add(Line(sx(x), bottom, sx(x), top, strokeColor=grey, strokeWidth=0.3))
        d.add(String(sx(x), bottom - 9, f"{x:g}", fontSize=7, textAnchor="middle"))
        x += x_step
    y = 0.0
    while y <= y_hi + 1e-9:
        d.add(Line(left, sy(y), right, sy(y), strokeColor=grey, strokeWidth=0.3))
        d.add(String(left - 3, sy(y) - 2.5, f"{y:g}", fontSize=7, textAnchor="end"))
        y += y_step
    d.add(Line(left, bottom, right, bottom, strokeWidth=0.6))
    d.add(Line(left, bottom, left, top, strokeWidth=0.6))
    if x_lo < 0 < x_hi:
        d.add(Line(sx(0), bottom, sx(0), top, strokeColor=colors.grey, strokeWidth=0.6))
    d.add(String((left + right) / 2, 1.5, "true count at the round's start", fontSize=7.5, textAnchor="middle"))
    d.add(String(left, top + 4 * mm, "main wager", fontSize=7.5, textAnchor="middle"))
    for px, py in points:
        d.add(Circle(sx(px), sy(py), 1.6, fillColor=colors.HexColor("#2e86c1"), strokeColor=None,
                     fillOpacity=0.4))
    if points:
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        a, b = min(xs), max(xs)
        if slope > 0:  # the line is drawn where it is inside the plot (0 to y_hi)
            a, b = max(a, mx - my / slope), min(b, mx + (y_hi - my) / slope)
        elif slope < 0:
            a, b = max(a, mx + (y_hi - my) / slope), min(b, mx - my / slope)
        ya, yb = my + slope * (a - mx), my + slope * (b - mx)
        d.add(Line(sx(a), sy(ya), sx(b), sy(yb), strokeColor=colors.HexColor("#c0392b"),
                   strokeWidth=1.2))
    return d


def _table(rows: list[list[Any]], widths: list[float], right_from: int = 1) -> Table:
    t = Table(rows, colWidths=[w * mm for w in widths], repeatRows=1, hAlign="LEFT")
    t.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, -1), "Helvetica", 7.5), ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 7.5),
        ("GRID", (0, 0), (-1, -1), 0.25, colors.grey), ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("TOPPADDING", (0, 0), (-1, -1), 1), ("BOTTOMPADDING", (0, 0), (-1, -1), 1),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e5e8e8")),
        ("ALIGN", (right_from, 0), (-1, -1), "RIGHT")]))
    return t


def _pct(x: float | None, places: int = 2) -> str:
    return "-" if x is None else f"{x * 100:+.{places}f} %"


def _kind(hand: str) -> str:
    return hand.split(" ")[0]  # hard, soft, pair, insurance


def precision_rows(rows: Iterable[PlayDecision]) -> list[list[Any]]:
    """By kind of hand: decisions, the chart's, share, deviations, index plays."""
    kinds: dict[str, list[PlayDecision]] = {}
    for d in rows:
        kinds.setdefault(_kind(d.hand), []).append(d)
    out: list[list[Any]] = [["hand", "decisions", "as the chart", "share", "deviations", "index plays"]]
    every: list[PlayDecision] = []
    for kind in ("hard", "soft", "pair", "insurance"):
        ds = kinds.get(kind, [])
        every += ds
        if ds:
            m = sum(d.matches_chart for d in ds)
            out.append([kind, len(ds), m, f"{m / len(ds) * 100:.1f} %", len(ds) - m, sum(d.at_index for d in ds)])
    m = sum(d.matches_chart for d in every)
    out.append(["all", len(every), m, f"{m / len(every) * 100:.1f} %" if every else "-", len(every) - m,
                sum(d.at_index for d in every)])
    return out


def write_pdf(r: PlayerReport, path: Path, *, store: str, window: str) -> None:
    styles = getSampleStyleSheet()
    body, small = styles["BodyText"], styles["BodyText"].clone("small", fontSize=7.5, leading=9)
    story: list[Any] = [
        Paragraph(f"Game protection report: {_escape(r.player)}", styles["Title"]),
        Paragraph(f"Store {_escape(store)}; {_escape(window)}. Count: {_escape(r.count)}. "
                  f"Made {_dt.date.today().isoformat()} by dealer-assist {__version__} (issue 36; docs/protect.md).",
                  small),
        Spacer(1, 3 * mm),
    ]
    slope = f"{r.slope:.2f} (95 % {r.slope_low:.2f} to {r.slope_high:.2f})" if math.isfinite(r.slope_low) else f"{r.slope:.2f}"
    p = r.precision
    summary = [
        ["rounds", str(r.rounds), "correlation (wager, true count)", "-" if r.correlation is None else f"{r.correlation:+.3f}"],
        ["total wager", str(r.total_wager), "slope (wager per unit of count)", slope],
        ["average wager", f"{r.average_wager:.2f}", "p-value (robust)", f"{r.p_value:.3g} ({r.p_robust:.3g})"],
        ["estimated edge", _pct(r.estimated_edge), "rounds per hour", f"{r.rounds_per_hour:.1f}"],
        ["win per hour", "-" if r.win_per_hour is None else f"{r.win_per_hour:+.2f}",
         "play precision", "-" if p is None or p.share is None else
         f"{p.share * 100:.1f} % of {p.decisions}, {p.index_plays} index plays"],
    ]
    t = Table(summary, colWidths=[28 * mm, 40 * mm, 50 * mm, 52 * mm], hAlign="LEFT")
    t.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), "Helvetica", 8),
                           ("FONT", (0, 0), (0, -1), "Helvetica-Bold", 8), ("FONT", (2, 0), (2, -1), "Helvetica-Bold", 8),
                           ("GRID", (0, 0), (-1, -1), 0.25, colors.grey)]))
    story += [t, Spacer(1, 2 * mm)]
    flag = "FLAGGED: " + "; ".join(r.reasons) if r.flagged else "Not flagged."
    story += [Paragraph(_escape(flag), body), Spacer(1, 2 * mm),
              Paragraph("Main wager against the true count (each round one point; red: least-squares line)",
                        styles["Heading4"]),
              scatter([(e.true_count, float(e.wager)) for e in r.evidence], r.slope)]
    story += [Paragraph("Play precision (against the printed chart of the game and deck count)", styles["Heading4"])]
    if p is None or not p.decisions:
        story.append(Paragraph("No decisions on record.", body))
    else:
        story.append(_table(precision_rows(p.rows), [25, 20, 22, 18, 20, 20]))
        off = [d for d in p.rows if not d.matches_chart]
        if off:
            story += [Spacer(1, 2 * mm), Paragraph("Deviations from the chart", styles["Heading5"])]
            story.append(_table([["round", "hand", "played", "chart", "count's play", "true count"]] + [
                [d.round_id, d.hand, d.action, d.chart, d.index or "-", f"{d.true_count:+.2f}"] for d in off],
                [16, 34, 22, 22, 24, 20], right_from=5))
    story += [Paragraph("Evidence rounds", styles["Heading4"])]
    story.append(_table([["round", "started (UTC)", "true count", "main wager", "estimated edge"]] + [
        [e.round_id, e.started_at, f"{e.true_count:+.2f}", str(e.wager), _pct(e.edge, 3)] for e in r.evidence],
        [16, 50, 22, 24, 26], right_from=2))
    doc = SimpleDocTemplate(str(path), pagesize=A4, leftMargin=18 * mm, rightMargin=18 * mm, topMargin=15 * mm,
                            bottomMargin=15 * mm, title=f"Game protection report: {r.player}", author="dealer-assist")
    doc.build(story, onFirstPage=_footer(r.player), onLaterPages=_footer(r.player))


def _footer(player: str) -> Any:
    def draw(canvas: Any, doc: Any) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 7)
        canvas.drawString(18 * mm, 8 * mm, f"Game protection report: {player}; surveillance and supervisors only")
        canvas.drawRightString(A4[0] - 18 * mm, 8 * mm, f"page {doc.page}")
        canvas.restoreState()
    return draw


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
