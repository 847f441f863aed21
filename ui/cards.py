"""Painting cards: rank and suit symbol, Star Elements elements and Fu/Lu/Shou, the printed 8♠.

Large, high-contrast faces readable at arm's length. No rule logic: a card is drawn
from its notation (``10H``, ``KFi``) as the engine reports it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QMimeData, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QDrag,
    QFont,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from dealer_assist.cards import (
    ELEMENT_FACE_NAMES,
    ELEMENT_SUITS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    parse_card,
)
from ui.style import px

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
CARD_W = 74  # a card at scale 1 (ui.style.px), full size
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

    def __init__(self, text: str, *, printed: bool = False, size: QSize | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = text
        self.printed = printed
        card = parse_card(text)
        self.rank = card.rank
        self.suit = card.suit
        self._painted = False
        self.setFixedSize(size or QSize(px(CARD_W), px(CARD_H)))
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
        """Rank and suit in the top-left corner (readable when cards overlap), the sign in the
        middle; Star Elements: the element's name along the bottom."""
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        w, h = self.width(), self.height()
        rect = QRectF(1.5, 1.5, w - 3, h - 3)
        if self.printed:
            # printed on the cloth: green background, dashed outline
            p.setBrush(QColor("#dfeedd"))
            pen = QPen(QColor("#1b5e20"), 3, Qt.PenStyle.DashLine)
        else:
            p.setBrush(QColor("white"))
            pen = QPen(QColor("#333333"), 2)
        p.setPen(pen)
        p.drawRoundedRect(rect, 6, 6)
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
        big = h * 0.30
        font.setPixelSize(max(10, int(big if len(rank) <= 2 else big * 0.72 if len(rank) == 3 else big * 0.6)))
        p.setFont(font)
        p.drawText(QRectF(3, 1, w - 4, h * 0.34), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, rank)
        font.setPixelSize(max(10, int(h * 0.26)))
        p.setFont(font)
        p.drawText(QRectF(3, h * 0.31, w * 0.5, h * 0.3), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                   glyph)
        font.setPixelSize(max(10, int(h * 0.36)))
        p.setFont(font)
        p.drawText(QRectF(w * 0.3, h * 0.36, w * 0.68, h * 0.42), Qt.AlignmentFlag.AlignCenter, glyph)
        if suit_line or self.printed:
            font.setPixelSize(max(9, int(min(h * 0.14, w * 0.2))))
            p.setFont(font)
            p.drawText(QRectF(0, h * 0.8, w, h * 0.18), Qt.AlignmentFlag.AlignHCenter,
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
    """A hand's cards left to right; when they do not fit side by side they overlap, each
    card's corner (rank and suit) left visible, as a dealer spreads them on the felt."""

    def __init__(self, cards: list[str], *, printed_first: bool = False, card_size: QSize | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.card_size = card_size or QSize(px(CARD_W), px(CARD_H))
        self.faces: list[CardFace] = []
        for i, text in enumerate(cards):
            face = CardFace(text, printed=printed_first and i == 0 and text == "8S", size=self.card_size, parent=self)
            self.faces.append(face)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(self.card_size.height())
        self._place()

    def add(self, text: str) -> None:
        """One more card (a card dealt to this hand): the row is not rebuilt."""
        face = CardFace(text, size=self.card_size, parent=self)
        self.faces.append(face)
        self._place()
        face.show()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt name)
        n = len(self.faces)
        return QSize(n * (self.card_size.width() + 4), self.card_size.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt name)
        return QSize(self.card_size.width(), self.card_size.height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(event)
        self._place()

    def _place(self) -> None:
        n = len(self.faces)
        if not n:
            return
        w = self.card_size.width()
        step = float(w + 4)
        if n > 1 and self.width() > 0 and (n - 1) * step + w > self.width():
            step = max(w * 0.34, (self.width() - w) / (n - 1))  # overlap, the corner index stays visible
        for i, face in enumerate(self.faces):
            face.move(int(i * step), 0)
            face.raise_()
