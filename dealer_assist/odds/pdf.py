"""A printable par sheet (``odds GAME --pdf FILE``): one game at one deck count, with reportlab.

The rules summary, the main wager under the optimal play and under the printed chart (edge,
hit frequency, push, standard deviation, element of risk, the distribution of the net
result), every side bet's rows (probability, pay, contribution), the chart with its
composition-dependent exceptions, the method, the date and the program's version.
"""

from __future__ import annotations

import datetime as _dt
import io
from typing import Any

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import (
    KeepTogether,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from dealer_assist import __version__
from dealer_assist.games import GAMES
from dealer_assist.odds.sheet import (
    READINGS,
    RULES_DOCUMENTS,
    ParSheet,
    SimulationCheck,
    TheoBasis,
    bet_rows,
    bonus_text,
    combinations,
    combined_std_dev,
    distribution_rows,
    document_number,
    edge_fraction,
    edge_rows,
    game_data_digest,
    main_method,
    row_bound,
    split_rows_text,
)
from dealer_assist.odds.side_bets import BetFigures
from dealer_assist.odds.strategy import Chart, total_cell, two_card_cell

_UPS = [2, 3, 4, 5, 6, 7, 8, 9, 10, 1]
_FILL = {"S": "#f4d03f", "H": "#ffffff", "D": "#58d68d", "P": "#85c1e9", "R": "#f1948a"}


def _card(v: int) -> str:
    return "A" if v == 1 else "T" if v == 10 else str(v)


def _grid(style: list[Any]) -> TableStyle:
    return TableStyle([("FONT", (0, 0), (-1, -1), "Helvetica", 7.5),
                       ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 7.5),
                       ("GRID", (0, 0), (-1, -1), 0.25, colors.grey),
                       ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
                       ("TOPPADDING", (0, 0), (-1, -1), 1), ("BOTTOMPADDING", (0, 0), (-1, -1), 1),
                       ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e5e8e8")), *style])


def _table(rows: list[list[str]], widths: list[float], right_from: int = 1) -> Table:
    t = Table(rows, colWidths=[w * mm for w in widths], repeatRows=1, hAlign="LEFT")
    t.setStyle(_grid([("ALIGN", (right_from, 0), (-1, -1), "RIGHT")]))
    return t


def _pct(x: float) -> str:
    return f"{x * 100:.4f} %"


def _chart_table(chart: Chart, sheet: ParSheet) -> Table:
    """The chart as a grid: hard totals, soft totals, pairs against each dealer card."""
    perm8 = sheet.rules.permanent_eight
    ups = [8] if perm8 else _UPS
    rows: list[list[str]] = [["hand"] + [_card(u) for u in ups]]
    style: list[Any] = []
    sections: list[tuple[str, list[tuple[str, Any]]]] = []
    if perm8:
        sections.append(("first decision (8 and the first card)",
                         [(f"8-{_card(v)}", lambda u, v=v: two_card_cell(8, v, u)) for v in range(1, 11)]))
        kinds = sorted({(k, t) for (k, t, _u) in chart.cells if k != "pair"})
        sections.append(("later cards (hit or stand by total)",
                         [(f"{k} {t}", lambda u, k=k, t=t: (k, t, u)) for k, t in kinds if t < 21]))
    else:
        sections.append(("hard", [(str(t), lambda u, t=t: total_cell(t, False, u)) for t in range(5, 20)]))
        sections.append(("soft", [(f"A-{t - 11}", lambda u, t=t: ("soft", t, u)) for t in range(13, 21)]))
        sections.append(("pairs", [(f"{_card(v)}-{_card(v)}", lambda u, v=v: ("pair", v, u)) for v in _UPS]))
    for title, entries in sections:
        rows.append([title] + [""] * len(ups))
        style.append(("SPAN", (0, len(rows) - 1), (-1, len(rows) - 1)))
        style.append(("FONT", (0, len(rows) - 1), (-1, len(rows) - 1), "Helvetica-Bold", 7.5))
        for label, cell_of in entries:
            line = [label]
            for j, u in enumerate(ups):
                code = chart.cells.get(cell_of(u), "")
                line.append(code)
                if code:
                    style.append(("BACKGROUND", (j + 1, len(rows)), (j + 1, len(rows)),
                                  colors.HexColor(_FILL[code[0]])))
            if any(line[1:]):
                rows.append(line)
            else:
                continue
    t = Table(rows, colWidths=[34 * mm] + [11 * mm] * len(ups), repeatRows=1, hAlign="LEFT")
    t.setStyle(_grid([("ALIGN", (1, 0), (-1, -1), "CENTER"), *style]))
    return t


# A table cell's text that may wrap (the _grid's font).
_CELL = ParagraphStyle("cell", fontName="Helvetica", fontSize=7.5, leading=8.5)

ROUNDS_PER_HOUR = (60, 80, 100)
AVERAGE_WAGERS = (25, 100, 500)


def write_pdf(sheet: ParSheet, path: str, *, simulation: SimulationCheck | None = None,
              basis: TheoBasis | None = None, issued: _dt.date | None = None) -> None:
    """Write ``sheet`` as a PDF par sheet to ``path``: no run time in it; ``issued`` (default
    today) is the only date, and the document number does not depend on it."""
    basis = basis or TheoBasis()
    issued = issued or _dt.date.today()
    g = GAMES[sheet.game]
    doc_no = document_number(sheet.game, sheet.decks)
    rules_doc, revision = RULES_DOCUMENTS[sheet.game]
    styles = getSampleStyleSheet()
    body = ParagraphStyle("body", parent=styles["BodyText"], fontSize=8, leading=10)
    small = ParagraphStyle("small", parent=body, fontSize=7, leading=8.5)
    h1, h2 = styles["Title"], ParagraphStyle("h2", parent=styles["Heading2"], fontSize=11, spaceBefore=6,
                                              spaceAfter=3)
    deck_text = f"{sheet.decks} deck{'s' if sheet.decks != 1 else ''}"

    def make_story() -> list[Any]:
        story: list[Any] = []
        story.append(Paragraph(f"{g.name}: par sheet, {deck_text}", h1))
        story.append(_table([["document", doc_no], ["rules document", f"{rules_doc}, {revision}"],
                             ["game data digest", f"SHA-256 {game_data_digest(sheet.game, sheet.decks)} (rule set and "
                                                  "pay tables of games/, odds/rulesets.py)"],
                             ["program", f"Dealer Assist {__version__} (dealer-assist odds {sheet.game} --decks "
                                         f"{sheet.decks} --pdf)"],
                             ["theo basis", basis.describe() + f": house edge {_pct(basis.edge(sheet))}"]],
                            [32, 148], right_from=99))
        story.append(Spacer(1, 2 * mm))
        story.append(Paragraph(f"<b>Rules.</b> {sheet.rules.describe()}. Side bets: "
                               f"{', '.join(g.bet_name(b) for b in sheet.bets if b != 'insurance') or 'none'}"
                               f"{'; insurance 2 to 1' if 'insurance' in sheet.bets else ''}.", body))
        story.append(Paragraph("<b>Assumptions.</b> One player heads-up; a freshly shuffled shoe each round (no "
                               "penetration effects); insurance and even money never taken; theoretical win is stake x "
                               "house edge per wager (docs/odds.md).", body))
        story.append(Paragraph("<b>Readings that move a figure</b> (DESIGN.md, adopted readings):", body))
        for reading in READINGS.get(sheet.game, []):
            story.append(Paragraph(f"- {reading}", small))

        story.append(Paragraph("Main wager", h2))
        rows = [["play", "house edge", "return", "hit frequency", "push", "std dev", "element of risk",
                 "avg. wagered"]]
        for name, res, out in edge_rows(sheet):
            rows.append([name, _pct(res.house_edge), _pct(1 - res.house_edge), _pct(out.hit_frequency),
                         _pct(out.push), f"{out.std_dev:.4f}", _pct(out.element_of_risk), f"{out.stake:.4f}"])
        story.append(_table(rows, [24, 20, 20, 22, 18, 16, 24, 20]))
        story.append(Spacer(1, 2 * mm))
        name, res, out = edge_rows(sheet)[-1]
        modelled = out.split_method == "model"
        dist = [["net (units)", "probability", "contribution", "" if modelled else "bound"]]
        for x, p, c in distribution_rows(out):
            bd = row_bound(out, x)
            if modelled and abs(x) > 4:  # reached only by 3 or more split hands: the model's estimate
                dist.append([f"{x:+g} *", f"{p:.4g}", f"{c:+.4g}", ""])
            elif bd > 0:  # a lower bound: the true chance lies in [p, p + bd]
                dist.append([f"{x:+g}", f"{p:.10f}", f"{c:+.10f}", f"+ {bd:.2e}"])
            else:
                dist.append([f"{x:+g}", f"{p:.10f}", f"{c:+.10f}", "" if modelled else "exact"])
        dist.append(["total", f"{sum(out.dist.values()):.10f}", f"{out.mean:+.10f}",
                     f"bounded {out.unresolved:.2e}" if out.unresolved > 0 else ""])
        story.append(KeepTogether([Paragraph(f"Net result of one unit of original wager, {name} (splits and doubles "
                                             f"included{bonus_text(sheet, '; the {} paid on the main wager')}):",
                                             body), _table(dist, [22, 30, 30, 28])]))
        rows_text = split_rows_text(out)
        story.append(Paragraph("<b>Split rows.</b> " + rows_text[0].upper() + rows_text[1:] + (
            ". The house edge is the analysis' expected value and does not come from these rows." if modelled else
            ". The house edge above is the analysis' (its split model); these rows do not change it."), small))
        story.append(Paragraph(f"<i>Method.</i> {main_method(sheet)}", small))

        for bet, b in sheet.bets.items():
            summary = (f"house edge {_pct(b.house_edge)}, return {_pct(b.return_to_player)}, hit "
                       f"frequency {_pct(b.hit_frequency)}, std dev {b.std_dev:.4f}" if b.staked else
                       f"no stake of its own: pays {_pct(b.expected_value)} of the main wager on average (already "
                       f"inside the main wager's edge), hit frequency {_pct(b.hit_frequency)}")
            parts: list[Any] = [Paragraph(g.bet_name(bet), h2), Paragraph(summary, body)]
            _add(parts, _bet_table(b, sheet))
            parts.append(Paragraph(f"<i>Method.</i> {b.method}", small))
            for key, extra in b.extra.items():
                parts.append(Paragraph(f"{key.replace('_', ' ')}: house edge {_pct(extra.house_edge)}, "
                                       f"return {_pct(extra.return_to_player)}", body))
                _add(parts, _bet_table(extra, sheet))
                parts.append(Paragraph(f"<i>Method.</i> {extra.method}", small))
            spec = g.spec(bet)
            if spec is not None and spec.decided_by == "tie" and sheet.tie18 is not None:
                t = sheet.tie18
                parts.append(Paragraph(
                    "By position after a split of 8s (P(tie | the hand is formed)): "
                    + ", ".join(f"hand {k + 2} {_pct(p)} (formed {_pct(f)})"
                                for k, (p, f) in enumerate(zip(t.by_hand, t.hands_expected, strict=True))), body))
            story.append(KeepTogether(parts))

        story.append(KeepTogether(_confirmation(sheet, simulation, basis, body, small, h2)))
        story.append(KeepTogether(_sign_off(doc_no, issued, body, h2)))
        # The chart follows on the same page when it fits (Dueling 8's short one, under its sign-off),
        # else on the next (issue 36: no page holding one block; the sign-off alone was a page).
        chart_head = [Paragraph(f"The printed strategy chart: {g.name}, {deck_text}", h2),
                      Paragraph("S stand, H hit, D double (Dh: else hit, Ds: else stand), P split, R surrender (Rh, Rs). "
                                "Each cell is the play of the most likely two-card hand of that total; a hand of three or "
                                "more cards hits or stands by its total's row. Its edge is on the first page.", body)]
        chart = sheet.chart
        if chart is None:
            story.extend(chart_head)
        if chart is not None:
            # The chart and its exceptions on one page: a table split across pages left a page of
            # three exception rows (Electronic).
            block: list[Any] = [*chart_head, _chart_table(chart, sheet), Spacer(1, 2 * mm)]
            ex = sorted(chart.exceptions, key=lambda e: -e.probability)
            block.append(Paragraph(f"Composition-dependent exceptions: {len(ex)} hands the optimal play plays "
                                   f"differently{' (the 30 most likely)' if len(ex) > 30 else ''}.", body))
            if ex:
                # Three columns of (hand, dealer, chart, optimal, probability), most likely first.
                shown = ex[:30]
                per = (len(shown) + 2) // 3
                rows = [["hand", "vs", "chart", "opt.", "prob."] * 3]
                for i in range(per):
                    line: list[str] = []
                    for col in range(3):
                        k = col * per + i
                        if k < len(shown):
                            e = shown[k]
                            line += ["-".join(_card(c) for c in e.cards), _card(e.up), e.chart, e.optimal,
                                     f"{e.probability:.1e}"]
                        else:
                            line += [""] * 5
                    rows.append(line)
                block.append(_table(rows, [14, 7, 9, 8, 15] * 3))
            story.append(KeepTogether(block))
        return story

    def footer(canvas: Any, doc: Any) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 7)
        canvas.drawString(15 * mm, 8 * mm, f"{doc_no}: {g.name} par sheet, {deck_text}; Dealer Assist "
                                             f"{__version__}; issued {issued:%Y-%m-%d}")
        canvas.drawRightString(A4[0] - 15 * mm, 8 * mm, f"page {doc.page} of {total or '?'}")
        canvas.restoreState()

    total = 0

    def build(target: str | io.BytesIO) -> int:
        doc = SimpleDocTemplate(target, pagesize=A4, leftMargin=15 * mm, rightMargin=15 * mm, topMargin=14 * mm,
                                bottomMargin=14 * mm, title=f"{g.name} par sheet, {deck_text}",
                                author="Dealer Assist", subject=f"par sheet {doc_no}")
        doc.build(make_story(), onFirstPage=footer, onLaterPages=footer)
        return int(doc.page)

    # "page n of N": a first build counts the pages (the footer does not move the text).
    total = build(io.BytesIO())
    build(path)


def _bet_table(b: BetFigures, sheet: ParSheet) -> Table | list[Any]:
    """A bet's rows with their exact probability and the combinations behind it."""
    n_cards = sum(sheet.rules.shoe)
    exacts = [r for r in bet_rows(b) if r[3]]
    k_total: tuple[int, int] | None = None
    if b.exact and exacts:
        from fractions import Fraction

        fracs = [Fraction(r[3]) for r in exacts]
        lcm_total = 0
        for f in fracs:
            _c, total, k = combinations(f, n_cards)
            if k and total > lcm_total:
                lcm_total, k_total = total, (k, total)
        if k_total is not None and any((f * k_total[1]).denominator != 1 for f in fracs):
            k_total = None
    rows: list[list[Any]] = [["row", "pays", "probability", "contribution", "exact probability",
                              "combinations" + (" *" if k_total else "")]]
    for row, pays, p, exact, c in bet_rows(b):
        count = ""
        if exact and k_total is not None:
            from fractions import Fraction

            count = f"{int(Fraction(exact) * k_total[1]):,}"
        # A long row name wraps in its cell instead of running under the pay (Kings Bounty's
        # "2 Kings of Spades + Dealer Blackjack").
        rows.append([Paragraph(row, _CELL), pays, f"{p:.10f}", f"{c:+.10f}", exact, count])
    edge = edge_fraction(b) if b.exact else None
    # The house edge is minus the contributions' sum: printed under them, not under probability.
    rows.append(["house edge", "", "", _pct(b.house_edge), str(edge) if edge is not None else "", ""])
    table = _table(rows, [42, 14, 20, 22, 44, 38])
    if k_total is None:
        return table
    note = Paragraph(f"* of the {k_total[1]:,} ordered deals of {k_total[0]} card{'s' if k_total[0] != 1 else ''} "
                     f"from the {n_cards}-card shoe", ParagraphStyle("note", fontName="Helvetica", fontSize=6.5,
                                                                      leading=8))
    return [table, note]


def _confirmation(sheet: ParSheet, simulation: SimulationCheck | None, basis: TheoBasis, body: ParagraphStyle,
                  small: ParagraphStyle, h2: ParagraphStyle) -> list[Any]:
    """The engine's simulation that confirms the sheet, win per hour and the combined SD."""
    parts: list[Any] = [Paragraph("Confirmation, win per hour and combined standard deviation", h2)]
    chart_edge = sheet.chart_main.house_edge if sheet.chart_main is not None else sheet.main.house_edge
    if simulation is not None:
        lo, hi = simulation.edge - simulation.half_width, simulation.edge + simulation.half_width
        inside = lo <= chart_edge <= hi
        parts.append(Paragraph(
            f"<b>Engine simulation.</b> {simulation.rounds:,} rounds ({simulation.wagers:,} main wagers of one unit) "
            f"dealt through the engine (dealer_assist/bench/simulate.py) from a shoe reshuffled when fewer than "
            f"{simulation.reshuffle_below} cards remain (the figures above assume a fresh shoe each round), every "
            f"decision the printed chart's: house edge {_pct(simulation.edge)}, 95 % interval {_pct(lo)} to {_pct(hi)} "
            f"(&#177;&nbsp;{simulation.half_width * 100:.4f}&nbsp;percentage points); the sheet's chart-play edge "
            f"{_pct(chart_edge)} is {'inside' if inside else 'OUTSIDE'} it. One sheet in twenty is expected "
            f"outside its interval by chance.", body))
        parts.append(Paragraph(
            f"<b>Seed {simulation.seed}</b>: this sheet's own, drawn from base seed {simulation.base_seed}, the game "
            f"and the deck count (first 8 hex digits of SHA-256 of \"{simulation.base_seed}/{sheet.game}/"
            f"{sheet.decks}\"), so no two sheets share a simulation. To re-run this check alone: "
            f"<font face=\"Courier\">dealer-assist odds {sheet.game} --decks {sheet.decks} --confirm --simulate "
            f"{simulation.rounds} --seed {simulation.base_seed}</font>.", body))
    else:
        parts.append(Paragraph("<b>Engine simulation.</b> none run for this sheet (dealer-assist odds --simulate N).",
                               body))
    edge = basis.edge(sheet)
    out = sheet.chart_outcomes or sheet.outcomes
    parts.append(Paragraph(
        f"<b>Win per hour</b>: the house's expected win from one seat's main wager, in the currency of the wager "
        f"= rounds per hour x average original wager x house edge ({basis.describe()}: {_pct(edge)} of the "
        f"original wager; doubles and splits are inside it; side bets not included).", body))
    rows = [["rounds per hour"] + [f"average wager {w}" for w in AVERAGE_WAGERS]]
    for r in ROUNDS_PER_HOUR:
        rows.append([str(r)] + [f"{r * w * edge:,.2f}" for w in AVERAGE_WAGERS])
    parts.append(_table(rows, [30, 30, 30, 30]))
    parts.append(Paragraph(
        f"<b>Combined standard deviation</b> of one unit on the main wager (chart play, {out.std_dev:.4f}) and one "
        f"unit on every side bet with a stake: {combined_std_dev(sheet):.4f} units per round (the bets taken "
        f"as independent; their covariances are not included).", body))
    return parts


def _sign_off(doc_no: str, issued: _dt.date, body: ParagraphStyle, h2: ParagraphStyle) -> list[Any]:
    rows = [["", "name", "title", "signature", "date"]]
    for role in ("Prepared by", "Checked by", "Approved by"):
        rows.append([role, "", "", "", ""])
    t = Table(rows, colWidths=[26 * mm, 44 * mm, 40 * mm, 44 * mm, 26 * mm], rowHeights=[5 * mm] + [9 * mm] * 3,
              hAlign="LEFT")
    t.setStyle(_grid([]))
    return [Paragraph("Sign-off", h2),
            Paragraph(f"Document {doc_no}, issued {issued:%Y-%m-%d}, every page (each footer: the number, 'page n "
                      "of N'), the strategy chart included. The number comes from the game, the deck count, the rules "
                      "document's revision and the game data's digest: the same data, the same number.", body),
            Spacer(1, 2 * mm), t]


def _add(parts: list[Any], flow: Any) -> None:
    parts.extend(flow if isinstance(flow, list) else [flow])
