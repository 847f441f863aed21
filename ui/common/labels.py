"""A label in a type size of the screen's scale (style.px), as the table's screens use them."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QSizePolicy

from ui.common.style import px

__all__ = ["OPTION_WORDS", "sized_label"]

# a decision's or an offer's words on its button (the dealer's prompt, the terminals' bar)
OPTION_WORDS = {
    "hit": "Hit", "stand": "Stand / next hand", "double": "Double", "split": "Split", "surrender": "Surrender",
    "accept": "Accept card", "refuse": "Refuse card", "act": "Act on hand", "withdraw": "Withdraw",
    "insurance": "Insurance", "even_money": "Even money",
}


def sized_label(size: int, bold: bool = False, text: str = "") -> QLabel:
    """``text`` at ``size`` px (scaled), its width left to the layout (a long text never
    widens the window)."""
    label = QLabel(text)
    font = QFont(label.font())
    font.setPixelSize(px(size))
    font.setBold(bold)
    label.setFont(font)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    return label
