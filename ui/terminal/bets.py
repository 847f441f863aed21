"""The terminal's layout (2.2): one touch spot per bet of the game, with its limits and what
it pays as the service gives them, the chips the player holds, and the betting buttons.
Only paints: the bets, limits and results are the seat view's (seat_view.py)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ui.common.labels import sized_label
from ui.common.style import TOUCH, money, px, signed

__all__ = ["BetSpot", "BetsPanel", "ChipBar", "limits_text"]

RESULT_WORDS = {"win": "WIN", "lose": "LOSE", "push": "PUSH", "returned": "RETURNED", "surrender": "SURRENDERED",
                "even_money": "EVEN MONEY"}


def _label(size: int, bold: bool = False) -> QLabel:
    label = sized_label(size, bold)
    label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)  # the spot takes the touch
    return label


def limits_text(bet: dict[str, Any]) -> str:
    """``Min 5 · Max 1,000`` (2.2), or that the table sets none."""
    low, high = bet.get("min"), bet.get("max")
    if low is None and high is None:
        return "No limits set"
    dash = "\u2014"
    return f"Min {money(low) if low is not None else dash} \u00b7 Max {money(high) if high is not None else dash}"


class BetSpot(QPushButton):
    """One bet of the layout: touched, the chip held is put on it."""

    def __init__(self, bet: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bet = str(bet["bet"])
        self.setProperty("role", "place")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumHeight(px(TOUCH + 16))
        box = QVBoxLayout(self)
        box.setContentsMargins(px(10), px(4), px(10), px(4))
        box.setSpacing(0)
        self.name = _label(18, True)
        self.terms = _label(16)  # on a touch control: 16 px or more
        self.amount = _label(17, True)
        for w in (self.name, self.terms, self.amount):
            box.addWidget(w)
        self.setText("")
        self.show_bet(bet, Decimal(0), Decimal(0), None)

    def show_bet(self, bet: dict[str, Any], placed: Decimal, building: Decimal, net: Decimal | None,
                 result: str = "") -> None:
        pays = bet.get("pays") or []
        top = f" \u00b7 pays up to {pays[0][1]}" if pays else ""
        self.name.setText(str(bet.get("name") or self.bet))
        self.terms.setText(limits_text(bet) + top)
        self.setAccessibleName(f"{bet.get('name')}: {limits_text(bet)}")
        if net is not None:
            self.amount.setText(f"{RESULT_WORDS.get(result, result.upper())} {signed(net)}")
        else:
            parts = [f"Bet {money(placed)}"] if placed else []
            if building:
                parts.append(f"+ {money(building)} to place")
            self.amount.setText("  ".join(parts) if parts else "\u2014")


class BetsPanel(QWidget):
    """The layout's bets, top to bottom in the layout's order."""

    def __init__(self, touched: Callable[[str], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._touched = touched
        self.box = QVBoxLayout(self)
        self.box.setContentsMargins(0, 0, 0, 0)
        self.box.setSpacing(px(6))
        self.spots: dict[str, BetSpot] = {}

    def show_layout(self, layout: list[dict[str, Any]], placed: dict[str, Decimal], building: dict[str, Decimal],
                    results: dict[str, tuple[Decimal, str]], betting: bool) -> None:
        if [b["bet"] for b in layout] != list(self.spots):
            for spot in self.spots.values():
                self.box.removeWidget(spot)
                spot.hide()
                spot.deleteLater()
            self.spots = {}
            for bet in layout:
                spot = BetSpot(bet, self)
                spot.clicked.connect(lambda _=False, b=str(bet["bet"]): self._touched(b))
                self.box.addWidget(spot, 1)
                self.spots[spot.bet] = spot
        for bet in layout:
            spot = self.spots[str(bet["bet"])]
            net, result = results.get(spot.bet, (None, ""))
            spot.show_bet(bet, placed.get(spot.bet, Decimal(0)), building.get(spot.bet, Decimal(0)), net, result)
            spot.setEnabled(betting)


class ChipBar(QWidget):
    """The table's chips (the set-up's values), one held at a time."""

    def __init__(self, chosen: Callable[[int], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._chosen = chosen
        self.box = QHBoxLayout(self)
        self.box.setContentsMargins(0, 0, 0, 0)
        self.box.setSpacing(px(6))
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.buttons: dict[int, QPushButton] = {}

    def show_chips(self, chips: list[int], held: int | None, betting: bool) -> None:
        if list(self.buttons) != chips:
            for b in self.buttons.values():
                self.group.removeButton(b)
                self.box.removeWidget(b)
                b.hide()
                b.deleteLater()
            self.buttons = {}
            for value in chips:
                b = QPushButton(money(value))
                b.setProperty("role", "toggle")
                b.setCheckable(True)
                b.setMinimumSize(px(TOUCH + 8), px(TOUCH + 8))
                b.setAccessibleName(f"chip {money(value)}")
                b.clicked.connect(lambda _=False, v=value: self._chosen(v))
                self.group.addButton(b)
                self.box.addWidget(b, 1)
                self.buttons[value] = b
        for value, b in self.buttons.items():
            b.setChecked(value == held)
            b.setEnabled(betting)
