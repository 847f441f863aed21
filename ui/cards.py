"""Painting cards: rank and suit symbol, Star Elements elements and Fu/Lu/Shou, the printed 8♠.

Large, high-contrast faces readable at arm's length. No rule logic: a card is drawn
from its notation (``10H``, ``KFi``) as the engine reports it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QMimeData, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QDrag, QFont, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QHBoxLayout, QSizePolicy, QWidget

from dealer_assist.cards import (
    ELEMENT_FACE_NAMES,
    ELEMENT_SUITS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    parse_card,
)

# Star Elements elements (1.1.9 / 2.1): a colour and a one-glyph sign each.
# (Shapes every font has: the CJK element characters are missing on many systems.)
ELEMENT_STYLE: dict[str, tuple[str, str]] = {
    "Fi": ("#c62828", "\u25b2"),  # Fire: ▲ flame
    "Go": ("#9a7400", "\u25c6"),  # Gold: ◆ ingot
    "Ea": ("#6d4c41", "\u25a0"),  # Earth: ■ block
    "Wo": ("#2e7d32", "\u2663"),  # Wood: ♣ tree
    "Wa": ("#1565c0", "\u2248"),  # Water: ≈ waves
}
RED = "#c62828"
BLACK = "#111111"
CARD_MIME_PREFIX = "dealer-assist-card:"
CARD_W = 74
CARD_H = 104


def card_label(text: str) -> str:
    """Words for a card, for screen readers and lists: ``10♥``, ``Shou Fire``."""
    try:
        return parse_card(text).display_name()
    except ValueError:
        return text


class CardFace(QWidget):
    """One card. ``printed``: the permanent 8♠ printed on the Dueling 8's layout (1.1.4)."""

    # called with (face, monotonic_ns) at each face's first paint (ui.bench measures latency)
    first_paint_listener: Callable[[CardFace, int], None] | None = None

    def __init__(self, text: str, *, printed: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = text
        self.printed = printed
        card = parse_card(text)
        self.rank = card.rank
        self.suit = card.suit
        self._painted = False
        self.setFixedSize(QSize(CARD_W, CARD_H))
        self.setToolTip(("printed " if printed else "") + card_label(text))
        self.setAccessibleName(card_label(text))

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt name)
        """Drag the card to where it physically lies (a hand, the dealer, the discard)."""
        if self.printed or event.button() != Qt.MouseButton.LeftButton:
            return
        drag = QDrag(self)
        mime = QMimeData()
        mime.setText(CARD_MIME_PREFIX + self.text)
        drag.setMimeData(mime)
        drag.setPixmap(self.grab())
        drag.exec(Qt.DropAction.MoveAction)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt name)
        self._paint()
        listener = CardFace.first_paint_listener
        if listener is not None and not self._painted:
            listener(self, time.monotonic_ns())
        self._painted = True

    def _paint(self) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(2, 2, self.width() - 4, self.height() - 4)
        if self.printed:
            # printed on the cloth: green background, dashed outline
            p.setBrush(QColor("#dfeedd"))
            pen = QPen(QColor("#1b5e20"), 3, Qt.PenStyle.DashLine)
        else:
            p.setBrush(QColor("white"))
            pen = QPen(QColor("#333333"), 2)
        p.setPen(pen)
        p.drawRoundedRect(rect, 8, 8)
        if self.suit in ELEMENT_SUITS:
            colour, glyph = ELEMENT_STYLE[self.suit]
            rank = ELEMENT_FACE_NAMES.get(self.rank, self.rank)
            suit_line = SUIT_NAMES[self.suit]
        else:
            colour = RED if self.suit in ("H", "D") else BLACK
            glyph = SUIT_SYMBOLS[self.suit]
            rank = self.rank
            suit_line = ""
        p.setPen(QColor(colour))
        font = QFont()
        font.setBold(True)
        font.setPixelSize(34 if len(rank) <= 2 else 24 if len(rank) == 3 else 20)
        p.setFont(font)
        p.drawText(QRectF(0, 4, self.width(), 40), Qt.AlignmentFlag.AlignHCenter, rank)
        font.setPixelSize(36)
        p.setFont(font)
        p.drawText(QRectF(0, 40, self.width(), 44), Qt.AlignmentFlag.AlignHCenter, glyph)
        if suit_line or self.printed:
            font.setPixelSize(13)
            p.setFont(font)
            p.drawText(QRectF(0, self.height() - 22, self.width(), 18), Qt.AlignmentFlag.AlignHCenter,
                       "PRINTED" if self.printed else suit_line)
        p.end()


class CardDropMixin:
    """Accepts a card dragged onto the widget and reports where it now lies (``drop_target``)."""

    drop_target: str

    def dragEnterEvent(self, event: Any) -> None:  # noqa: N802 (Qt name)
        if event.mimeData().text().startswith(CARD_MIME_PREFIX):
            event.acceptProposedAction()

    def dropEvent(self, event: Any) -> None:  # noqa: N802 (Qt name)
        text = event.mimeData().text()
        if text.startswith(CARD_MIME_PREFIX) and DropTarget.dropped is not None:
            event.acceptProposedAction()
            DropTarget.dropped(text[len(CARD_MIME_PREFIX):], self.drop_target)


class DropTarget(CardDropMixin, QWidget):
    """Where a dragged card can be dropped: ``target`` is ``area:3/1``, ``dealer`` or ``discard``."""

    dropped: Callable[[str, str], None] | None = None  # (card, target), set by the window

    def __init__(self, target: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.target = self.drop_target = target
        self.setAcceptDrops(True)


class CardRow(QWidget):
    """A hand's cards side by side."""

    def __init__(self, cards: list[str], *, printed_first: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.faces: list[CardFace] = []
        for i, text in enumerate(cards):
            face = CardFace(text, printed=printed_first and i == 0 and text == "8S")
            self.faces.append(face)
            layout.addWidget(face)
        layout.addStretch(1)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
