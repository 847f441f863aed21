"""Painting cards: rank and suit symbol, Star Elements elements and Fu/Lu/Shou, the printed 8♠.

Large, high-contrast faces readable at arm's length. No rule logic: a card is drawn
from its notation (``10H``, ``KFi``) as the engine reports it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from PySide6.QtCore import QMimeData, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QDrag,
    QFont,
    QFontMetrics,
    QGuiApplication,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
    QResizeEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from dealer_assist.base.cards import (
    ELEMENT_FACE_NAMES,
    ELEMENT_SUITS,
    RANKS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    parse_card,
)
from ui.common.style import px

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
CARD_W = 74  # a card at scale 1 (ui.common.style.px), full size
CARD_H = 104
PRINTED_WORD = "PRINTED"  # on the permanent 8 printed on the Dueling 8's layout (3.14)
PERMANENT_BADGE = "PERMANENT 8"  # the rules' word (1.1.4), where the card has no room for PRINTED_WORD
READABLE_PX = 14  # the smallest type of a card's rank or element name (read from two metres)
TILE_TEXT_X = 6  # a tile's text starts after its colour stripe


def name_font_px(size: QSize) -> int:
    """The element name's type on a card of ``size`` (along its bottom edge): as large as the
    band under the sign and the card's width allow ("Water", the longest, is about 3.4 times
    its type size wide in bold)."""
    return max(9, round(min(size.height() * 0.19, (size.width() - 4) / 3.4)))


def card_label(text: str) -> str:
    """Words for a card, for screen readers and lists: ``10♥``, ``Shou Fire``."""
    try:
        return parse_card(text).display_name()
    except ValueError:
        return text


def card_words(rank: str, suit: str) -> tuple[str, str, str]:
    """(rank, suit in words or its sign, colour) of a card's tile or face."""
    if suit in ELEMENT_SUITS:
        return ELEMENT_FACE_NAMES.get(rank, rank), SUIT_NAMES[suit], ELEMENT_STYLE[suit][0]
    return rank, SUIT_SYMBOLS[suit], RED if suit in ("H", "D") else BLACK


def tile_widths(rank: str, suit: str) -> tuple[int, int]:
    """A tile's (rank in bold + a space, suit in regular type) in px."""
    words, suit_words, _ = card_words(rank, suit)
    return (QFontMetrics(CardFace.tile_font()).horizontalAdvance(words + " "),
            QFontMetrics(CardFace.tile_font(False)).horizontalAdvance(suit_words))


def tile_lines(rank: str, suit: str, width: int) -> int:
    """1 when a tile ``width`` wide holds rank and suit side by side, else 2."""
    return 1 if sum(tile_widths(rank, suit)) + px(TILE_TEXT_X) + 2 <= width else 2


def tiles_height(cards: Sequence[str], width: int, most: int) -> int:
    """The height ``most`` tiles ``width`` wide take one under the other, none covering the
    next: the ``cards`` at their own lines, the cards still to come at the most any card of
    their kind may take (Star Elements' words wrap in a narrow hand: "Shou" / "Water")."""
    parsed = [parse_card(c) for c in cards]
    lines = [tile_lines(c.rank, c.suit, width) for c in parsed]
    elements = any(c.suit in ELEMENT_SUITS for c in parsed)
    worst = max(tile_lines(rank, suit, width) for rank in RANKS for suit in ELEMENT_SUITS) \
        if elements else max(lines, default=1)
    lines += [worst] * max(0, most - len(lines))
    return sum(CardFace.tile_height(n) + 2 for n in lines)


class CardFace(QWidget):
    """One card. ``printed``: the permanent 8♠ printed on the Dueling 8's layout (1.1.4)."""

    # called with (face, monotonic_ns) at each face's first paint (ui.dealer.bench measures latency)
    first_paint_listener: Callable[[CardFace, int], None] | None = None

    def __init__(self, text: str, *, printed: bool = False, size: QSize | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = text
        self.printed = printed
        card = parse_card(text)
        self.rank = card.rank
        self.suit = card.suit
        self.compact = False  # a tile of one or two lines: rank and element in words (CardRow)
        self.shown_width: int | None = None  # the part left uncovered by the next card (CardRow); None: all
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

    def words(self) -> tuple[str, str, str]:
        """(rank, suit in words or its sign, colour): ``("Shou", "Water", blue)``, ``("10", "♥", red)``."""
        return card_words(self.rank, self.suit)

    @staticmethod
    def tile_font(bold: bool = True) -> QFont:
        font = QFont()
        font.setBold(bold)
        font.setPixelSize(max(READABLE_PX, px(READABLE_PX)))
        return font

    def tile_lines(self, width: int) -> int:
        """1 when rank and suit fit side by side in a tile ``width`` wide, else 2."""
        return tile_lines(self.rank, self.suit, width)

    @staticmethod
    def tile_height(lines: int) -> int:
        return lines * QFontMetrics(CardFace.tile_font()).height() + px(4)

    # each look of a face painted once, as a pixmap: a settlement repaints every hand, some
    # forty faces of a rounded outline and three texts each. The looks last used are kept (a
    # round's faces; some 60 kB each at 1920×1080: 400 of them grew the screen by 13 MB over
    # 24 rounds)
    looks: ClassVar[dict[tuple[Any, ...], QPixmap]] = {}
    LOOKS_KEPT = 64

    def _look(self) -> QPixmap:
        ratio = self.devicePixelRatioF()
        # what a face's picture depends on: its card, its size, tile or face, the printed 8's
        # uncovered part, the type (the application's font: ui.common.style.set_scale)
        key = (self.text, self.printed, self.compact, self.width(), self.height(),
               self.shown_width if self.printed else None, ratio, QGuiApplication.font().key())
        look = CardFace.looks.pop(key, None)
        if look is None:
            look = QPixmap(max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio)))
            look.setDevicePixelRatio(ratio)
            look.fill(Qt.GlobalColor.transparent)
            p = QPainter(look)
            if self.compact:
                self._paint_tile(p)
            else:
                self._paint(p)
            p.end()
            while len(CardFace.looks) >= CardFace.LOOKS_KEPT:
                del CardFace.looks[next(iter(CardFace.looks))]  # the look used longest ago
        CardFace.looks[key] = look  # (last: the newest)
        return look

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt name)
        p = QPainter(self)
        p.drawPixmap(0, 0, self._look())
        p.end()
        listener = CardFace.first_paint_listener
        if listener is not None and not self._painted:
            listener(self, time.monotonic_ns())
        self._painted = True

    def _paint(self, p: QPainter) -> None:
        """Rank and suit in the top-left corner (readable when cards overlap), the sign in the
        middle; Star Elements: the element's name along the bottom."""
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
        if suit_line:
            # the element's name as large as the card's width allows (14 px on a 57 × 80 card)
            font.setPixelSize(name_font_px(self.size()))
            p.setFont(font)
            p.drawText(QRectF(0, h * 0.785, w, h * 0.2), Qt.AlignmentFlag.AlignHCenter, suit_line)
        elif self.printed and self.printed_word_shown():
            # the word whole in the part the next card leaves (issue 34: it was cut to "PRI");
            # where it has no room the hand's badges say PERMANENT 8 (HandBox, 3.14)
            font = self.printed_font()
            p.setFont(font)
            shown = self.shown_width or w
            p.drawText(QRectF(0, h * 0.785, shown, h * 0.2), Qt.AlignmentFlag.AlignHCenter, PRINTED_WORD)

    def printed_font(self) -> QFont:
        font = QFont()
        font.setBold(True)
        font.setPixelSize(max(9, int(min(self.height() * 0.14, self.width() * 0.2))))
        return font

    def printed_word_shown(self) -> bool:
        """The printed 8's word fits, whole, the part of the card left uncovered (a face, not a tile)."""
        shown = self.width() if self.shown_width is None else self.shown_width
        return (self.printed and not self.compact
                and QFontMetrics(self.printed_font()).horizontalAdvance(PRINTED_WORD) + 2 <= shown)

    def _paint_tile(self, p: QPainter) -> None:
        """A small card as a tile: rank and element (or suit sign) in words, readable type, the
        element's colour as a stripe; on two lines when one is too narrow."""
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        w, h = self.width(), self.height()
        rank, suit, colour = self.words()
        p.setBrush(QColor("#dfeedd" if self.printed else "white"))  # printed: the cloth's look (3.14)
        p.setPen(QPen(QColor("#1b5e20"), 2, Qt.PenStyle.DashLine) if self.printed else QPen(QColor("#333333"), 1.5))
        p.drawRoundedRect(QRectF(0.75, 0.75, w - 1.5, h - 1.5), 4, 4)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(colour))
        p.drawRect(QRectF(1.5, 1.5, px(3), h - 3))
        p.setPen(QColor(colour))
        x = px(TILE_TEXT_X)
        line = QFontMetrics(self.tile_font()).height()
        top = (h - line * self.tile_lines(w)) / 2
        left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
        p.setFont(self.tile_font())
        p.drawText(QRectF(x, top, w - x, line), left, rank)
        p.setFont(self.tile_font(False))
        if self.tile_lines(w) == 1:
            p.drawText(QRectF(x + tile_widths(self.rank, self.suit)[0], top, w - x, line), left, suit)
        else:
            p.drawText(QRectF(x, top + line, w - x, line), left, suit)


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
    card's corner (rank and suit) left visible, as a dealer spreads them on the felt.

    ``room``: the height the row may take. When the cards are too small to read from two
    metres (a rank under 14 px; Star Elements: an element name under 14 px, or hidden under
    the next card) and ``room`` is given, the cards are shown as tiles one under the other,
    rank and element in words (*Shou Water*, *8 Fire*) in readable type (issue 16: four split
    hands on one area)."""

    def __init__(self, cards: list[str], *, printed_first: bool = False, card_size: QSize | None = None,
                 room: int | None = None, parent: QWidget | None = None, tile_share: float = 1.0) -> None:
        super().__init__(parent)
        self.card_size = card_size or QSize(px(CARD_W), px(CARD_H))
        self.room = room
        self.tiled = False  # the cards are shown as tiles with words (too small to read as cards)
        self.faces: list[CardFace] = []
        self.tile_share = tile_share  # the part of the row's width tiles take (at least 96 px)
        self.on_placed: Callable[[], None] | None = None  # after the cards moved (a hand's pay tag follows)
        for i, text in enumerate(cards):
            face = CardFace(text, printed=printed_first and i == 0 and text == "8S", size=self.card_size, parent=self)
            self.faces.append(face)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(max(self.card_size.height(), room or 0))
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

    def _small(self, overlap: bool) -> bool:
        """The cards' words would be under READABLE_PX (or an element name hidden by overlap)."""
        size = self.card_size
        if any(f.suit in ELEMENT_SUITS for f in self.faces):
            return overlap or name_font_px(size) < READABLE_PX
        return int(size.height() * 0.30) < READABLE_PX

    def used_height(self) -> int:
        """How far down the row the cards reach (tiles may take less than the row)."""
        return max((f.y() + f.height() for f in self.faces), default=0)

    def _place(self) -> None:
        self._place_cards()
        if self.on_placed is not None:
            self.on_placed()

    def _place_cards(self) -> None:
        self.tiled = False
        n = len(self.faces)
        if not n:
            return
        w = self.card_size.width()
        step = float(w + 4)
        overlap = n > 1 and self.width() > 0 and (n - 1) * step + w > self.width()
        if self.room is not None and self.width() > 0 and self._small(overlap):
            self._place_tiles()
            return
        if overlap:
            step = max(w * 0.34, (self.width() - w) / (n - 1))  # overlap, the corner index stays visible
        for i, face in enumerate(self.faces):
            if face.compact:
                face.compact = False
                face.setFixedSize(self.card_size)
                face.update()
            face.move(int(i * step), 0)
            face.raise_()
            shown = int(step) if overlap and i < n - 1 else None
            if face.shown_width != shown:
                face.shown_width = shown
                if face.printed:
                    face.update()

    def printed_word_hidden(self) -> bool:
        """The row's printed 8 has no room for its word (overlapped, or a tile)."""
        return any(f.printed and not f.printed_word_shown() for f in self.faces)

    def _place_tiles(self) -> None:
        """Tiles one under the other, as wide as the row; overlapping (the first line of each
        left visible) only when they do not fit the row's height."""
        self.tiled = True
        # a hand's tiles may take part of the row (its pay tag goes beside them)
        width = max(min(self.width(), px(96)), int(self.width() * self.tile_share))
        heights = [CardFace.tile_height(f.tile_lines(width)) for f in self.faces]
        gap = 2
        total = sum(heights) + gap * (len(heights) - 1)
        if total > self.height() and width < self.width():
            # at part of the width the words wrap and the tiles would cover each other: the
            # whole width (one line each); the pay tag then goes under them (HandBox.pay_fit)
            width = self.width()
            heights = [CardFace.tile_height(f.tile_lines(width)) for f in self.faces]
            total = sum(heights) + gap * (len(heights) - 1)
        squeeze = 1.0
        if total > self.height() and len(heights) > 1:
            squeeze = max(0.0, (self.height() - heights[-1])) / max(1, sum(heights[:-1]) + gap * (len(heights) - 1))
        y = 0.0
        for face, h in zip(self.faces, heights, strict=True):
            if not face.compact or face.size() != QSize(width, h):
                face.compact = True
                face.setFixedSize(width, h)
                face.update()
            face.move(0, int(y))
            face.raise_()
            y += (h + gap) * squeeze
