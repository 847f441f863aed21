"""Buttons whose words always show whole: at 1280×800 a prompt's third of a row is narrower
than "Surrender (R)" in its 18 px type, and Qt clips a push button's text at both ends
("Double (D]"). A button watched here takes, at each resize, the largest type from its style
sheet's size down to :data:`SMALLEST_PX` in which its widest line fits inside its border and
padding; at the floor it stays (the layout walk reports what still does not fit)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QPushButton, QStyle, QStyleOptionButton

SMALLEST_PX = 16  # the smallest type on the dealer's screen (issue 34)


def words_room(button: QPushButton) -> int:
    """The width inside the button's border and padding, as its style draws the words."""
    option = QStyleOptionButton()
    button.initStyleOption(option)
    return button.style().subElementRect(QStyle.SubElement.SE_PushButtonContents, option, button).width()


def words_width(font: QFont, text: str) -> int:
    lines = text.replace("&&", "\0").replace("&", "").replace("\0", "&").splitlines() or [""]
    metrics = QFontMetrics(font)
    return max(metrics.horizontalAdvance(line) for line in lines)


class WordsFit(QObject):
    """The event filter; one serves any number of buttons (:func:`fit_words`)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt name)
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show) and isinstance(watched, QPushButton):
            fit(watched)
        return False


def two_lines(words: str) -> str:
    """``words`` broken at the space nearest their middle ("Surrender\n(R)")."""
    spaces = [i for i, ch in enumerate(words) if ch == " "]
    if not spaces or "\n" in words:
        return words
    cut = min(spaces, key=lambda i: abs(i - len(words) / 2))
    return words[:cut] + "\n" + words[cut + 1:]


def fit(button: QPushButton) -> None:
    """The button's type: its own size when the words fit, else the largest that does; at
    the smallest, its words on two lines (a touch button is high enough for two)."""
    own, words, sheet = button.property("own_px"), button.property("words"), button.property("own_sheet")
    if own is None:  # the style sheet's size and the button's own sheet, before any change made here
        own = button.font().pixelSize() if button.font().pixelSize() > 0 else round(button.font().pointSizeF() * 4 / 3)
        sheet = button.styleSheet()
        button.setProperty("own_px", own)
        button.setProperty("own_sheet", sheet)
    if words is None or button.text() not in (words, two_lines(str(words))):  # new words set since
        words = button.text()
        button.setProperty("words", words)
    words = str(words)
    # fitted already at this size to these words (a button shown again from a pool, a resize
    # that kept its width): its style sheet and text are what the last fit made them
    if button.property("fitted") == _fitted(button, words, int(own), str(sheet or "")):
        return
    room = words_room(button)
    size = int(own)
    font = QFont(button.font())
    text = words
    while True:
        font.setPixelSize(size)
        if words_width(font, text) <= room:
            break
        if size > SMALLEST_PX:
            size -= 1
        elif text == words and two_lines(words) != words:
            size, text = int(own), two_lines(words)  # from the top again, on two lines
        else:
            break
    wanted = str(sheet or "") + ("" if size >= int(own) else f" font-size: {size}px;")
    if button.styleSheet() != wanted:
        button.setStyleSheet(wanted)
    if button.text() != text:
        button.setText(text)
    button.setProperty("fitted", _fitted(button, words, int(own), str(sheet or "")))


def _fitted(button: QPushButton, words: str, own: int, sheet: str) -> tuple[Any, ...]:
    """What a fit of ``button`` depends on and leaves behind: its size, its words, its own type and
    sheet, and the text, sheet and font the fit gave it."""
    return (button.width(), button.height(), words, own, sheet, button.text(), button.styleSheet(),
            button.font().key())


_FILTER = WordsFit()


def fit_words(button: QPushButton) -> QPushButton:
    """Watch ``button``: its words shrink to fit when it is narrower than they are."""
    button.installEventFilter(_FILTER)
    return button
