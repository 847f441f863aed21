"""Shared look: large, high-contrast text for a touch screen read at arm's length."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

APP_STYLE = """
QWidget { font-size: 18px; color: #111; }
QMainWindow, QDialog { background: #f4f4f0; }
QPushButton { font-size: 20px; font-weight: bold; padding: 10px 16px; min-height: 44px;
              border: 2px solid #333; border-radius: 8px; background: #ffffff; }
QPushButton:pressed { background: #ddd; }
QPushButton:disabled { color: #888; border-color: #aaa; }
QPushButton[role="option"] { font-size: 26px; min-height: 64px; min-width: 170px; background: #fff8d0; }
QPushButton[role="offer"] { font-size: 20px; min-height: 48px; min-width: 170px; background: #e3f2fd; }
QPushButton[role="confirm"] { background: #d7f5d7; }
QPushButton[role="danger"] { background: #fde0e0; }
QFrame[role="area"] { background: #0b5d2a; border-radius: 10px; }
QFrame[role="area"] QLabel { color: #ffffff; }
QFrame[role="area"][turn="true"] { border: 5px solid #ffd600; }
QFrame[role="dealer"] { background: #083d1c; border-radius: 10px; }
QFrame[role="dealer"] QLabel { color: #ffffff; }
QLabel[role="prompt"] { font-size: 30px; font-weight: bold; }
QLabel[role="refusal"] { font-size: 20px; font-weight: bold; color: #b00020; }
QLabel[role="title"] { font-size: 22px; font-weight: bold; }
QTableWidget { font-size: 18px; }
QHeaderView::section { font-size: 16px; font-weight: bold; }
"""


def money(value: Any) -> str:
    """An amount as the dealer reads it: ``37.50``, ``100``."""
    amount = Decimal(str(value))
    if amount == amount.to_integral_value():
        return f"{int(amount):,}"
    return f"{amount:,.2f}"


def signed(value: Any) -> str:
    amount = Decimal(str(value))
    return ("+" if amount > 0 else "") + money(amount) if amount >= 0 else "\u2212" + money(-amount)
