"""Betting before "no more bets": place, change and remove wagers quickly.

Chip buttons add to the amount (keys F1-F5), Enter places it, Delete removes the
selected wager, Ctrl+Backspace clears the amount. The engine checks each wager as it
is placed (limits, positions, side bet needs a main wager, 3.10, 3.15.3 ...); a
refusal is shown with its clause. Claims on free side-bet slots go to the engine,
which grants them by 3.17.2 and reports the clause.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ui.style import money
from ui.table_view import BET_NAMES

CHIPS = (5, 25, 100, 500, 1000)


class BettingPanel(QWidget):
    def __init__(self, place: Callable[[str, str, Decimal, int | None], bool],
                 remove: Callable[[int], bool], change: Callable[[int, Decimal], bool],
                 claim: Callable[[str, int, list[dict[str, Any]]], bool] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._claim = claim
        self._place = place
        self._remove = remove
        self._change = change
        self.amount = Decimal(0)
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.player = QComboBox()
        self.player.setEditable(True)
        self.player.setMinimumWidth(160)
        self.area = QSpinBox()
        self.area.setRange(1, 7)
        self.area.setPrefix("area ")
        self.bet = QComboBox()
        row.addWidget(QLabel("Player"))
        row.addWidget(self.player)
        row.addWidget(self.area)
        row.addWidget(self.bet)
        self.amount_label = QLabel("0")
        self.amount_label.setStyleSheet("font-size: 28px; font-weight: bold; min-width: 90px;")
        row.addWidget(self.amount_label)
        layout.addLayout(row)
        chips = QGridLayout()
        self.chip_buttons: list[QPushButton] = []
        for i, value in enumerate(CHIPS):
            b = QPushButton(f"+{value}  [F{i + 1}]")
            b.setShortcut(QKeySequence(f"F{i + 1}"))
            b.clicked.connect(lambda _=False, v=value: self.add_chip(v))
            chips.addWidget(b, 0, i)
            self.chip_buttons.append(b)
        clear = QPushButton("Clear amount")
        clear.setShortcut(QKeySequence("Ctrl+Backspace"))
        clear.clicked.connect(self.clear_amount)
        chips.addWidget(clear, 1, 0)
        self.place_button = QPushButton("Place wager [Enter]")
        self.place_button.setProperty("role", "confirm")
        self.place_button.setShortcut(QKeySequence("Return"))
        self.place_button.clicked.connect(self.place)
        chips.addWidget(self.place_button, 1, 1, 1, 2)
        self.change_button = QPushButton("Set amount of selected")
        self.change_button.clicked.connect(self.change_selected)
        chips.addWidget(self.change_button, 1, 3)
        self.remove_button = QPushButton("Remove selected [Del]")
        self.remove_button.setShortcut(QKeySequence("Delete"))
        self.remove_button.setProperty("role", "danger")
        self.remove_button.clicked.connect(self.remove_selected)
        chips.addWidget(self.remove_button, 1, 4)
        layout.addLayout(chips)
        claim_row = QHBoxLayout()
        claim_row.addWidget(QLabel("Claim free side-bet slots (3.17.2):"))
        self.claimants = QLineEdit()
        self.claimants.setPlaceholderText("in the order the chips went down: carol=10, dan=5")
        claim_row.addWidget(self.claimants, 1)
        self.claim_button = QPushButton("Claim")
        self.claim_button.clicked.connect(self.claim)
        claim_row.addWidget(self.claim_button)
        layout.addLayout(claim_row)
        self.slip = QListWidget()
        self.slip.setMaximumHeight(130)
        layout.addWidget(self.slip)

    def configure(self, players: list[str], bets: list[str], areas: int, electronic: bool) -> None:
        current = self.player.currentText()
        self.player.clear()
        self.player.addItems(players)
        if current:
            self.player.setCurrentText(current)
        self.bet.clear()
        for bet in bets:
            self.bet.addItem(BET_NAMES.get(bet, bet), bet)
        self.area.setRange(1, max(1, areas))
        self.area.setVisible(not electronic)

    def show_slip(self, slip: list[dict[str, Any]]) -> None:
        self.slip.clear()
        for w in slip:
            where = f" area {w['area']}" if "area" in w else ""
            if w.get("type") == "claim":
                names = ", ".join(f"{c['player']} {money(c['amount'])}" for c in w["claimants"])
                self.slip.addItem(f"claim {BET_NAMES.get(w['bet'], w['bet'])}{where}: {names}")
                continue
            self.slip.addItem(f"{w.get('player')}{where}: {BET_NAMES.get(w.get('bet', ''), w.get('bet'))} {money(w.get('amount', 0))}")

    def add_chip(self, value: int) -> None:
        self.amount += value
        self.amount_label.setText(money(self.amount))

    def clear_amount(self) -> None:
        self.amount = Decimal(0)
        self.amount_label.setText("0")

    def place(self) -> None:
        player = self.player.currentText().strip()
        bet = self.bet.currentData()
        if not player or self.amount <= 0 or bet is None:
            return
        area = None if self.area.isHidden() else self.area.value()
        if self._place(player, str(bet), self.amount, area):
            self.clear_amount()

    def claim(self) -> None:
        """Several players want the free slots of the chosen side bet on the chosen area."""
        bet = self.bet.currentData()
        claimants: list[dict[str, Any]] = []
        for part in self.claimants.text().split(","):
            name, _, amount = part.partition("=")
            try:
                value = Decimal(amount.strip())
            except ArithmeticError:
                continue
            if name.strip():
                claimants.append({"player": name.strip(), "amount": int(value) if value == int(value) else float(value)})
        if self._claim is not None and bet is not None and claimants and self._claim(
                str(bet), self.area.value(), claimants):
            self.claimants.clear()

    def remove_selected(self) -> None:
        row = self.slip.currentRow()
        if row >= 0:
            self._remove(row)

    def change_selected(self) -> None:
        row = self.slip.currentRow()
        if row >= 0 and self.amount > 0 and self._change(row, self.amount):
            self.clear_amount()
