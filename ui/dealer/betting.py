"""Betting before "no more bets": place, change and remove wagers quickly, by touch.

Player and area are chosen from lists (a new player by *New player…*), the amount by
chips (keys F1-F5: every press adds a chip, none is lost) or the on-screen keypad;
Enter places it, Delete removes the selected wager. The engine checks each wager as it
is placed (limits, positions, side bet needs a main wager, 3.10, 3.15.3 ...); a refusal
is shown with its clause. Claims on free side-bet slots go to the engine, which grants
them by 3.17.2 and reports the clause.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from functools import partial
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.common.amount_keypad import AmountKeypad
from ui.common.keys import bind
from ui.common.style import money, px
from ui.common.table_view import BET_NAMES

CHIPS = (5, 25, 100, 500, 1000)


class TextDialog(QDialog):
    """A question in words, one text field, OK and Cancel."""

    def __init__(self, title: str, question: str, placeholder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        layout = QVBoxLayout(self)
        ask = QLabel(question)
        ask.setWordWrap(True)
        ask.setProperty("role", "title")
        layout.addWidget(ask)
        self.field = QLineEdit()
        self.field.setProperty("letters", True)
        self.field.setPlaceholderText(placeholder)
        layout.addWidget(self.field)
        row = QHBoxLayout()
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        self.ok = QPushButton("OK")
        self.ok.setProperty("role", "confirm")
        self.ok.clicked.connect(self.accept)
        row.addWidget(cancel)
        row.addWidget(self.ok)
        layout.addLayout(row)

    def text(self) -> str:
        return self.field.text().strip()


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
        self.dialog: QDialog | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(px(4))
        row = QHBoxLayout()
        self.player = QComboBox()  # not editable: a letter key is a shortcut, never typed here
        self.player.setMinimumWidth(px(110))
        self.new_player = QPushButton("New player")
        self.new_player.clicked.connect(self.ask_new_player)
        self.area = QComboBox()
        row.addWidget(self.player, 3)
        row.addWidget(self.area, 2)
        layout.addLayout(row)
        row2 = QHBoxLayout()
        self.bet = QComboBox()
        row2.addWidget(self.bet, 2)
        self.amount_label = QLabel("0")
        self.amount_label.setStyleSheet(f"font-size: {px(30)}px; font-weight: bold; background: white; padding: 0 6px;")
        row2.addWidget(self.amount_label, 1)
        keypad = QPushButton("Keypad")
        keypad.clicked.connect(self.open_keypad)
        row2.addWidget(keypad)
        clear = QPushButton("Clear")
        bind(clear, "Ctrl+Backspace", self.clear_amount)
        clear.clicked.connect(self.clear_amount)
        row2.addWidget(clear)
        layout.addLayout(row2)
        chips = QGridLayout()
        chips.setSpacing(px(4))
        self.chip_buttons: list[QPushButton] = []
        for i, value in enumerate(CHIPS):
            b = QPushButton(f"+{value}\nF{i + 1}")
            b.setMinimumHeight(px(56))
            b.setStyleSheet("QPushButton { border-radius: 24px; background: #fff3e0; }")
            # a QShortcut, not the button's own: every press adds a chip (ten presses, ten chips)
            bind(b, f"F{i + 1}", partial(self.add_chip, value))
            b.clicked.connect(lambda _=False, v=value: self.add_chip(v))
            chips.addWidget(b, 0, i)
            self.chip_buttons.append(b)
        layout.addLayout(chips)
        self.place_button = QPushButton("Place wager (Enter)")
        self.place_button.setProperty("role", "place")
        bind(self.place_button, "Return", self.place)
        bind(self.place_button, "Enter", self.place)
        self.place_button.clicked.connect(self.place)
        layout.addWidget(self.place_button)
        self.slip = QListWidget()
        layout.addWidget(self.slip, 1)
        row3 = QGridLayout()
        row3.setSpacing(px(4))
        self.change_button = QPushButton("Set amount")
        self.change_button.clicked.connect(self.change_selected)
        row3.addWidget(self.change_button, 0, 0)
        self.remove_button = QPushButton("Remove (Del)")
        bind(self.remove_button, "Delete", self.remove_selected)
        self.remove_button.setProperty("role", "danger")
        self.remove_button.clicked.connect(self.remove_selected)
        row3.addWidget(self.remove_button, 0, 1)
        row3.addWidget(self.new_player, 1, 0)
        self.claim_button = QPushButton("Claim slots")
        self.claim_button.clicked.connect(self.ask_claim)
        row3.addWidget(self.claim_button, 1, 1)
        layout.addLayout(row3)

    def configure(self, players: list[str], bets: list[str], areas: int, electronic: bool) -> None:
        current = self.player.currentText()
        self.player.clear()
        self.player.addItems(players)
        if current:
            self.set_player(current)
        self.bet.clear()
        for bet in bets:
            self.bet.addItem(BET_NAMES.get(bet, bet), bet)
        area = self.area.currentData()
        self.area.clear()
        for n in range(1, max(1, areas) + 1):
            self.area.addItem(f"area {n}", n)
        if area is not None:
            self.set_area(int(area))
        self.area.setVisible(not electronic)

    def set_player(self, name: str) -> None:
        if self.player.findText(name) < 0:
            self.player.addItem(name)
        self.player.setCurrentIndex(self.player.findText(name))

    def set_area(self, number: int) -> None:
        index = self.area.findData(number)
        if index >= 0:
            self.area.setCurrentIndex(index)

    def ask_new_player(self) -> None:
        dialog = TextDialog("New player", "Name of the player who places a wager:", "name", self)
        self.dialog = dialog
        def accepted() -> None:
            if dialog.text():
                self.set_player(dialog.text())

        dialog.accepted.connect(accepted)
        dialog.open()

    def open_keypad(self) -> None:
        dialog = AmountKeypad("Amount of the wager:", self)
        self.dialog = dialog

        def accepted() -> None:
            value = dialog.amount()
            if value is not None:
                self.amount = value
                self.amount_label.setText(money(value))

        dialog.accepted.connect(accepted)
        dialog.open()

    def show_slip(self, slip: list[dict[str, Any]]) -> None:
        self.slip.clear()
        for w in slip:
            where = f" area {w['area']}" if "area" in w else ""
            if w.get("type") == "claim":
                names = ", ".join(f"{c['player']} {money(c['amount'])}" for c in w["claimants"])
                self.slip.addItem(f"claim {BET_NAMES.get(w['bet'], w['bet'])}{where}: {names}")
                continue
            self.slip.addItem(f"{w.get('player')}{where}: {BET_NAMES.get(w.get('bet', ''), w.get('bet'))} "
                              f"{money(w.get('amount', 0))}")

    def add_chip(self, value: int) -> None:
        self.amount += value
        self.amount_label.setText(money(self.amount))

    def clear_amount(self) -> None:
        self.amount = Decimal(0)
        self.amount_label.setText("0")

    def place(self) -> None:
        if not self.isVisible():
            return
        player = self.player.currentText().strip()
        bet = self.bet.currentData()
        if not player or self.amount <= 0 or bet is None:
            return
        area = None if self.area.isHidden() else int(self.area.currentData())
        if self._place(player, str(bet), self.amount, area):
            self.clear_amount()

    def ask_claim(self) -> None:
        bet = self.bet.currentData()
        name = BET_NAMES.get(str(bet), str(bet))
        dialog = TextDialog("Claim free side-bet slots",
                            f"Players who have not agreed want the free {name} slots on "
                            f"{self.area.currentText()} (3.17.2). In the order their chips went down:",
                            "carol=10, dan=5", self)
        self.dialog = dialog
        dialog.accepted.connect(lambda: self.claim(dialog.text()))
        dialog.open()

    def claim(self, text: str) -> bool:
        """Several players want the free slots of the chosen side bet on the chosen area."""
        bet = self.bet.currentData()
        claimants: list[dict[str, Any]] = []
        for part in text.split(","):
            name, _, amount = part.partition("=")
            try:
                value = Decimal(amount.strip())
            except ArithmeticError:
                continue
            if name.strip():
                claimants.append({"player": name.strip(), "amount": int(value) if value == int(value) else float(value)})
        area = self.area.currentData()
        return bool(self._claim is not None and bet is not None and claimants and area is not None
                    and self._claim(str(bet), int(area), claimants))

    def remove_selected(self) -> None:
        row = self.slip.currentRow()
        if row >= 0:
            self._remove(row)

    def change_selected(self) -> None:
        row = self.slip.currentRow()
        if row >= 0 and self.amount > 0 and self._change(row, self.amount):
            self.clear_amount()
