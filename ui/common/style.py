"""Shared look: large, high-contrast text for a touch screen read at arm's length.

Sizes are given for the smallest table screen (1280×800 / 1366×768) and grow with the
window (:func:`set_scale`): type and cards get larger on a larger screen instead of
leaving empty space. Every touch control is at least :data:`TOUCH` px high and wide.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

TOUCH = 48  # the smallest touch control (fields, combo boxes, chips, dialog buttons), in px
LEAST_TYPE_PX = 16  # the smallest type the dealer reads on the table, at every size (issue 34)
_scale = 1.0

# The layout's colours (issue 34: every text on its background at least 4.5:1, WCAG AA;
# tests/ui/test_contrast.py computes each pair from these and from :func:`app_style`).
FELT = "#0b5d2a"  # a playing area
FELT_TURN = "#0d6b30"  # the Electronic terminal selected (also a yellow border); the area in turn has the
# yellow ring alone (table_view.AreaBox), its hand the lighter field and the ▶
HAND_TURN = "#0e6d31"  # the field behind the hand in turn
DEALER_FELT = "#083d1c"
ON_FELT = "#ffffff"
BADGE = "#ffd600"  # BLACKJACK, BUST, IN TURN ... on the felt
PAY_TAG = "#000000"  # the pay tag's own background (painted, nearly opaque over the felt)
# what to do with a wager's chips, on the felt (the amount also carries its sign: + pay,
# − collect, = return)
PAY_COLOURS = {"pay": "#b9f6ca", "collect": "#ffd2cc", "return": "#e0e0e0", "": ON_FELT}
# a button that cannot be touched now (issue 34 item 8): dark grey type on a pale ground with a
# dashed frame, whatever its role's colour (the frame is the cue besides the colour); its
# words still read (6.7:1)
DISABLED_TEXT = "#595959"
DISABLED_BACKGROUND = "#fafafa"
DISABLED_BORDER = "#8c8c8c"
DISABLED_LOOK = f"color: {DISABLED_TEXT}; background: {DISABLED_BACKGROUND}; border: 2px dashed {DISABLED_BORDER};"
#: every role a button is given in the style sheets (ui/): each has its disabled look
BUTTON_ROLES = ("option", "stand", "go", "offer", "confirm", "danger", "place", "toggle", "report")

#: Text painted (not styled) on a background: (text, background, what), checked like the
#: style sheet's pairs.
PAINTED_PAIRS: tuple[tuple[str, str, str], ...] = tuple(
    (colour, bg, f"{action or 'wager'} on {where}")
    for action, colour in PAY_COLOURS.items()
    for bg, where in ((FELT, "the felt"), (FELT_TURN, "the terminal selected"), (HAND_TURN, "the hand in turn"),
                      (PAY_TAG, "the pay tag"))) + (
    (BADGE, FELT, "badge on the felt"), (BADGE, FELT_TURN, "badge on the terminal selected"),
    (BADGE, HAND_TURN, "badge on the hand in turn"), (ON_FELT, DEALER_FELT, "the dealer's hand"))


def scale() -> float:
    return _scale


def set_scale(value: float) -> bool:
    """Set the size factor (1.0 = a 1280×768 screen); True if it changed."""
    global _scale
    value = round(max(1.0, min(2.0, value)) * 10) / 10
    if value == _scale:
        return False
    _scale = value
    return True


def scale_for(width: int, height: int) -> float:
    """The size factor for a window of ``width`` × ``height`` px."""
    return max(1.0, min(width / 1280, height / 768))


def px(size: float) -> int:
    """``size`` px at the current scale."""
    return int(round(size * _scale))


def base_font_px() -> int:
    """The window's ordinary text (set as the window's font, not in the style sheet, so that
    labels given their own font keep it)."""
    return px(17)


def disabled_selectors() -> str:
    """The disabled state of every button (after the roles' rules: the same specificity, the
    later rule wins; a checked toggle's one more)."""
    return ", ".join(["QPushButton:disabled", *(f'QPushButton[role="{r}"]:disabled' for r in BUTTON_ROLES),
                      'QPushButton[role="toggle"]:checked:disabled'])


def app_style() -> str:
    s = px
    return f"""
QWidget {{ color: #111; }}
QMainWindow, QDialog {{ background: #f4f4f0; }}
QPushButton {{ font-size: {s(18)}px; font-weight: bold; padding: 2px {s(8)}px; min-height: {s(TOUCH) - 8}px;
              min-width: {s(TOUCH) - 8}px; border: 2px solid #333; border-radius: 8px; background: #ffffff; }}
QPushButton:pressed {{ background: #ddd; }}
QPushButton[role="option"] {{ font-size: {s(18)}px; min-height: {s(54)}px; padding: 2px 4px; background: #fff8d0; }}
QPushButton[role="stand"] {{ font-size: {s(30)}px; min-height: {s(76)}px; background: #ffe082; border-width: 3px; }}
QPushButton[role="go"] {{ font-size: {s(24)}px; min-height: {s(52)}px; background: #ffe082; border-width: 3px; }}
QPushButton[role="offer"] {{ font-size: {s(16)}px; min-height: {s(TOUCH) - 8}px; padding: 2px 1px; background: #e3f2fd; }}
QPushButton[role="confirm"] {{ background: #d7f5d7; }}
QPushButton[role="danger"] {{ background: #fde0e0; }}
QPushButton[role="place"] {{ font-size: {s(18)}px; min-height: {s(TOUCH) - 8}px; background: #ffe0b2; border-width: 3px; }}
QPushButton[role="toggle"] {{ font-size: {s(17)}px; min-height: {s(TOUCH) - 8}px; padding: 2px 2px; background: #ffffff; }}
QPushButton[role="toggle"]:checked {{ background: #1565c0; color: #ffffff; border-color: #0d47a1; }}
QPushButton[role="report"] {{ font-size: {s(16)}px; padding: 2px 2px; }}
{disabled_selectors()} {{ {DISABLED_LOOK} }}
QComboBox, QLineEdit, QSpinBox {{ font-size: {s(18)}px; min-height: {s(TOUCH) - 6}px; min-width: {s(TOUCH)}px; }}
QComboBox QAbstractItemView {{ font-size: {s(18)}px; }}
QListWidget {{ font-size: {s(16)}px; }}
QCheckBox {{ font-size: {s(17)}px; min-height: {s(TOUCH)}px; }}
QCheckBox::indicator {{ width: {s(28)}px; height: {s(28)}px; }}
QFrame[role="area"] {{ background: {FELT}; border-radius: 10px; border: 3px solid {FELT}; }}
QFrame[role="area"] QLabel {{ color: {ON_FELT}; }}
QFrame[role="area"][turn="true"] {{ border: {s(3)}px solid {BADGE}; background: {FELT_TURN}; }}
QFrame[role="dealer"] {{ background: {DEALER_FELT}; border-radius: 10px; }}
QFrame[role="dealer"] QLabel {{ color: {ON_FELT}; }}
QMenuBar, QMenu {{ font-size: {s(17)}px; }}
QMenuBar::item {{ padding: {s(2)}px {s(10)}px; }}
QMenu::item {{ padding: {s(10)}px {s(16)}px; }}
QDialog QLabel {{ font-size: {s(17)}px; }}
QLabel[role="header"] {{ font-size: {s(16)}px; font-weight: bold; }}
QLabel[role="prompt"] {{ font-size: {s(26)}px; font-weight: bold; }}
QLabel[role="refusal"] {{ font-size: {s(18)}px; font-weight: bold; color: #ffffff; background: #b00020;
                          padding: 6px; border-radius: 6px; }}
QLabel[role="notice"] {{ font-size: {s(17)}px; color: #0d47a1; background: #e3f2fd; padding: 6px; border-radius: 6px; }}
QLabel[role="title"] {{ font-size: {s(19)}px; font-weight: bold; }}
QTableWidget {{ font-size: {s(16)}px; }}
QHeaderView::section {{ font-size: {s(15)}px; font-weight: bold; }}
"""


APP_STYLE = app_style()


def review_style() -> str:
    """The review's and the pit's windows (issue 34 item 7): the layout's look, and every
    control a supervisor touches (tabs, buttons, fields, list boxes, dates, the replay's
    slider) at least :data:`TOUCH` px high with 16 px type or more."""
    return app_style() + f"""
QPushButton {{ font-size: 16px; padding: 2px 10px; min-height: {TOUCH - 8}px; }}
QLineEdit, QComboBox, QAbstractSpinBox {{ font-size: 16px; min-height: {TOUCH - 2}px; }}
QTabBar {{ font-size: 16px; }}
QTabBar::tab {{ font-size: 16px; min-height: {TOUCH - 12}px; padding: 6px 14px; }}
QTabBar QToolButton {{ font-size: 16px; min-width: {TOUCH - 8}px; background: #ffffff; border: 2px solid #333; }}
QSlider {{ font-size: 16px; min-height: {TOUCH}px; }}
QSlider::groove:horizontal {{ height: 10px; background: #c8c8c8; border-radius: 5px; }}
QSlider::handle:horizontal {{ width: {TOUCH - 8}px; margin: -{(TOUCH - 18) // 2}px 0; background: #1565c0;
                              border-radius: 8px; }}
QTableView, QTableWidget, QLabel, QCheckBox {{ font-size: 16px; }}
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


def pay_words(net: Any, result: str) -> str:
    """What the dealer does with the chips: ``PAY 150``, ``COLLECT 100``, ``RETURN``."""
    amount = Decimal(str(net))
    if amount > 0:
        return f"PAY {money(amount)}"
    if amount < 0:
        return f"COLLECT {money(-amount)}"
    return "RETURN" if result in ("returned", "push", "surrender", "even_money") else "\u2014"
