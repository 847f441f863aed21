"""Exporting a recorded round: transcript JSON (the `settle` format), settlement CSV, a one-page PDF.

The PDF is drawn with Qt's own writer (QPdfWriter + QPainter): the layout as the
round ended, every event, every settlement with its clause and every ruling with its
card moves, on one A4 page (the type shrinks to fit; a very long round lists its
last events and says how many were left out).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QMarginsF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPageLayout,
    QPageSize,
    QPaintDevice,
    QPainter,
    QPdfWriter,
)

from dealer_assist.engine.transcript import describe_event
from dealer_assist.store import AuditEntry, RoundDetail, Store, utc_now
from dealer_assist.store.review_queries import (
    IntegrityCheck,
    decimal,
    integrity_verdict,
    settlement_csv_text,
)
from ui.common.style import money, signed
from ui.review.model import GAME_NAMES, short_time


def export_json(store: Store, round_id: int, path: str | Path) -> dict[str, Any]:
    """Write the round as a transcript; `dealer-assist settle` on it gives the recorded result."""
    document = store.export_round(round_id)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1, ensure_ascii=False)
        handle.write("\n")
    return document


def export_csv(store: Store, round_id: int, path: str | Path) -> str:
    """Write one CSV row per recorded settlement (amounts as exact decimal text)."""
    detail = store.get_round(round_id)
    if detail is None:
        raise ValueError(f"no round {round_id}")
    text = settlement_csv_text(round_id, detail.settlements)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
    return text


def card_numbers(events: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    """For each event that took cards out of the shoe, their order in this round: ``#3`` or ``#4-5``."""
    out: dict[int, str] = {}
    count = 0
    for index, raw in enumerate(events):
        kind = raw.get("type")
        taken = 1 if kind in ("card", "burn") else len(raw.get("cards") or []) if kind == "multi" else 0
        if taken:
            out[index] = f"#{count + 1}" if taken == 1 else f"#{count + 1}-{count + taken}"
            if raw.get("shoe_seq") is not None:  # the shoe's own frame number, when it sends one
                out[index] += f" (shoe frame {raw['shoe_seq']})"
            count += taken
    return out


def event_text(raw: Mapping[str, Any]) -> str:
    """Words for one recorded event, for the event list and the report."""
    kind = raw.get("type")
    text = describe_event(dict(raw))
    if kind == "wager":
        text += f", {money(decimal(raw.get('amount')))}"
    elif kind == "card" and raw.get("to"):
        text += f" \u2192 placed at {raw['to']}"
    elif kind == "multi":
        text = f"multi {' '.join(map(str, raw.get('cards') or []))}"
        if raw.get("disclosed"):
            text += f" (seen: {' '.join(map(str, raw['disclosed']))})"
    elif kind == "decision" and raw.get("amount") is not None:
        text += f", {money(decimal(raw.get('amount')))}"
    elif kind == "correction":
        text = f"correction: card of event {raw.get('index')} lies at {raw.get('to')}"
    elif kind == "claim":
        names = ", ".join(f"{c.get('player')} {money(decimal(c.get('amount')))}"
                          for c in raw.get("claimants") or [])
        text += f": {names}"
    elif kind in ("void", "resolve"):
        text += f": {raw.get('reason') or raw.get('ruling') or ''} {raw.get('text') or ''}".rstrip()
        if raw.get("rule"):
            text += f" ({raw['rule']})"
    return text


def settlement_line(entry: Mapping[str, Any]) -> str:
    where = []
    if entry.get("area") is not None:
        where.append(f"area {entry['area']}")
    if entry.get("hand") is not None:
        where.append(f"hand {entry['hand']}")
    return (f"{entry.get('player')} {' '.join(where)} {entry.get('bet')}: stake "
            f"{money(decimal(entry.get('stake')))}, {entry.get('result')}, "
            f"{signed(decimal(entry.get('net')))} ({entry.get('rule')}, {entry.get('stage') or 'final'})")


def ruling_line(ruling: Mapping[str, Any]) -> str:
    moves = ", ".join(f"{m.get('card')} {m.get('from')}\u2192{m.get('to')}" for m in ruling.get("moves") or [])
    line = f"event {ruling.get('index')}: {ruling.get('ruling')} ({ruling.get('rule')}) {ruling.get('text') or ''}"
    return line + (f" [moves: {moves}]" if moves else "")


def layout_lines(result: Mapping[str, Any] | None) -> list[str]:
    """The layout as the round ended, from the recorded settle output."""
    if not result:
        return ["(no settle output recorded yet)"]
    lines = []
    dealer = result.get("dealer") or {}
    lines.append(f"Dealer: {' '.join(dealer.get('cards') or []) or '-'}  total {dealer.get('total', '-')}")
    for area in result.get("areas") or []:
        who = f" (control: {area.get('controller')})" if area.get("controller") else ""
        hands = "; ".join(f"hand {h.get('hand')}: {' '.join(h.get('cards') or [])} = {h.get('total')}"
                          for h in area.get("hands") or [])
        lines.append(f"Area {area.get('area')}{who}: {hands or 'no cards'}")
    for player in result.get("players") or []:
        hands = "; ".join(f"hand {h.get('hand')}: {' '.join(h.get('cards') or [])} = {h.get('total')}"
                          for h in player.get("hands") or [])
        lines.append(f"Terminal {player.get('player')}: {hands or 'no cards'}")
    return lines


def report_sections(detail: RoundDetail, table: str, dealer: str | None,
                    integrity: Sequence[IntegrityCheck], audit: Sequence[AuditEntry]) -> list[tuple[str, list[str]]]:
    s = detail.summary
    config = detail.config
    head = [
        f"Table {table}   Game {GAME_NAMES.get(s.game, s.game)}   Status {s.status}   "
        f"Decks {config.get('decks', '-')}   Areas {config.get('areas', '-')}",
        f"Session {s.session_id or '-'}   Dealer {dealer or ('transcript' if s.source == 'transcript' else '-')}   "
        f"Started {short_time(s.started_at)}   Ended {short_time(s.ended_at) or '-'} (UTC)",
        "Net: " + (", ".join(f"{p} {signed(decimal(v))}" for p, v in s.net.items()) or "-"),
    ]
    verdict = integrity_verdict(integrity)
    if verdict == "intact":
        head.append("Integrity: INTACT - every hash link and record of this round checks")
    elif verdict == "not checked":
        head.append("Integrity: NOT CHECKED here - " + "; ".join(c.detail for c in integrity if not c.checked))
    else:
        head.append("Integrity: ALTERED - " + "; ".join(f"{c.name}: {c.detail}" for c in integrity
                                                        if c.checked and not c.ok))
    numbers = card_numbers([e.event for e in detail.events])
    events = [
        f"{e.seq:>3} {short_time(e.at)[11:]} {e.actor}: {event_text(e.event)}"
        + (f"  [card {numbers[e.seq]}]" if e.seq in numbers else "")
        for e in detail.events
    ]
    sections = [
        ("", head),
        ("Layout at the end of the round", layout_lines(detail.result)),
        (f"Events ({len(events)})", events),
        (f"Settlements ({len(detail.settlements)})", [settlement_line(e) for e in detail.settlements] or ["none"]),
        (f"Rulings ({len(detail.rulings)})", [ruling_line(r) for r in detail.rulings] or ["none"]),
    ]
    if audit:
        sections.append(("Audit entries", [f"{short_time(a.at)} {a.actor}: {a.kind}: {audit_text(a)}"
                                           for a in audit]))
    return sections


def audit_text(entry: AuditEntry) -> str:
    """Words for an audit entry's detail."""
    d = entry.detail
    if entry.kind == "note":
        return str(d.get("text", ""))
    if entry.kind == "round_finish":
        return f"round recorded as {d.get('status')} ({d.get('events')} events)"
    return ", ".join(f"{k} {v}" for k, v in d.items())


def export_pdf(path: str | Path, title: str, sections: Sequence[tuple[str, list[str]]],
               picture: QImage | None = None) -> None:
    """One A4 page through Qt's PDF writer: the title, then each section; the type shrinks to fit."""
    writer = QPdfWriter(str(path))
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait,
                                     QMarginsF(12, 12, 12, 12), QPageLayout.Unit.Millimeter))
    writer.setResolution(300)
    writer.setTitle(title)
    writer.setCreator("Dealer Assist review")
    paint_report(writer, title, sections, picture)


def report_image(title: str, sections: Sequence[tuple[str, list[str]]], dpi: int = 100,
                 picture: QImage | None = None) -> QImage:
    """The same page drawn into an image (A4 less the margins, at ``dpi``): a preview."""
    width = round((210 - 24) / 25.4 * dpi)
    height = round((297 - 24) / 25.4 * dpi)
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.setDotsPerMeterX(round(dpi / 0.0254))
    image.setDotsPerMeterY(round(dpi / 0.0254))
    image.fill(QColor("#ffffff"))
    paint_report(image, title, sections, picture)
    return image


def paint_report(device: QPaintDevice, title: str, sections: Sequence[tuple[str, list[str]]],
                 picture: QImage | None = None) -> None:
    """Draw the page; ``picture`` (the layout as painted on screen) goes under the title,
    at most 30 % of the page high."""
    painter = QPainter(device)
    try:
        full = QRectF(0, 0, device.width(), device.height())
        picture_h = 0.0
        if picture is not None and not picture.isNull() and picture.width() > 0:
            picture_h = min(full.width() * picture.height() / picture.width(), full.height() * 0.3)
        page = QRectF(0, 0, full.width(), full.height() - picture_h)
        size = 9.0
        lines = _fit(device, page, sections, size)
        while lines is None and size > 5.0:
            size -= 0.5
            lines = _fit(device, page, sections, size)
        if lines is None:
            lines = _truncate(device, page, sections, size)
        title_font = QFont("Sans Serif")
        title_font.setPointSizeF(14)
        title_font.setBold(True)
        painter.setFont(title_font)
        y = 0.0
        metrics = QFontMetricsF(title_font, device)
        painter.drawText(QRectF(0, y, page.width(), metrics.height()), Qt.AlignmentFlag.AlignLeft, title)
        y += metrics.height() * 1.3
        if picture is not None and picture_h:
            width = picture_h * picture.width() / picture.height()
            painter.drawImage(QRectF(0, y, width, picture_h), picture)
            y += picture_h + metrics.height() * 0.3
        for text, bold in lines:
            font = QFont("Sans Serif")
            font.setPointSizeF(size)
            font.setBold(bold)
            painter.setFont(font)
            painter.setPen(QColor("#000000"))
            m = QFontMetricsF(font, device)
            if bold:
                y += m.height() * 0.4  # a little room above each heading
            rect = QRectF(0, y, full.width(), full.height() - y)
            used = painter.boundingRect(rect, int(Qt.TextFlag.TextWordWrap), text)
            painter.drawText(rect, int(Qt.TextFlag.TextWordWrap), text)
            y += max(used.height(), m.height())
        footer = QFont("Sans Serif")
        footer.setPointSizeF(7)
        painter.setFont(footer)
        painter.setPen(QColor("#555555"))
        fm = QFontMetricsF(footer, device)
        painter.drawText(QRectF(0, full.height() - fm.height(), full.width(), fm.height()),
                         Qt.AlignmentFlag.AlignRight, f"printed {short_time(utc_now())} UTC by Dealer Assist review")
    finally:
        painter.end()


def _height(device: QPaintDevice, page: QRectF, lines: Sequence[tuple[str, bool]], size: float) -> float:
    total = 0.0
    for text, bold in lines:
        font = QFont("Sans Serif")
        font.setPointSizeF(size)
        font.setBold(bold)
        m = QFontMetricsF(font, device)
        rect = m.boundingRect(QRectF(0, 0, page.width(), 1e7), int(Qt.TextFlag.TextWordWrap), text)
        total += max(rect.height(), m.height()) + (m.height() * 0.4 if bold else 0)
    return total


def _flatten(sections: Sequence[tuple[str, list[str]]]) -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    for heading, lines in sections:
        if heading:
            out.append((heading, True))
        out.extend((line, False) for line in lines)
    return out


def _fit(device: QPaintDevice, page: QRectF, sections: Sequence[tuple[str, list[str]]],
         size: float) -> list[tuple[str, bool]] | None:
    lines = _flatten(sections)
    room = page.height() * 0.9  # the title and the footer take the rest
    return lines if _height(device, page, lines, size) <= room else None


def _truncate(device: QPaintDevice, page: QRectF, sections: Sequence[tuple[str, list[str]]],
              size: float) -> list[tuple[str, bool]]:
    """Leave out the earliest events (the settlement and rulings matter most) until the page holds."""
    sections = [(h, list(lines)) for h, lines in sections]
    events = next(i for i, (h, _) in enumerate(sections) if h.startswith("Events"))
    heading, lines = sections[events]
    dropped = 0
    while lines:
        kept = [f"({dropped} earlier events left out: export the transcript for all)", *lines] if dropped else lines
        trial = [*sections[:events], (heading, kept), *sections[events + 1:]]
        if _fit(device, page, trial, size) is not None:
            return _flatten(trial)
        lines = lines[1:]
        dropped += 1
    return _flatten([*sections[:events], (heading, [f"({dropped} events left out)"]), *sections[events + 1:]])
