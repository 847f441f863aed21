"""Betting before "no more bets", by touch (issue 24 item 2): no drop-down list.

Tap an area (keys Ctrl+1-9), then a player on it (Alt+1-9; *New player* for a name,
Ctrl+N), the bet as a large toggle (Shift+F1-F8), then chips (the table's own chip values
from its setup, keys F1-F8: every press adds a chip, none is lost) or the keypad; Enter
places it. *Repeat all* places the whole table's wagers of the last round again
(Ctrl+R), *Repeat player* the chosen player's (Ctrl+Shift+R); *Clear area* removes the
chosen area's wagers from the slip (Ctrl+Delete); Delete removes the selected wager. The
engine checks each wager as it is placed (limits, positions, side bet needs a main wager,
3.10, 3.15.3 ...); a refusal is shown with its clause and leaves the slip as it was.
Claims on free side-bet slots go to the engine, which grants them by 3.17.2.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from functools import partial
from typing import Any

from PySide6.QtWidgets import (
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

from dealer_assist.engine.table_setup import DEFAULT_CHIPS, MAX_CHIPS
from ui.common.amount_keypad import AmountKeypad
from ui.common.fit_words import fit_words
from ui.common.keys import bind
from ui.common.screen_fit import ScreenDialog
from ui.common.style import DISABLED_LOOK, money, px
from ui.common.table_view import BET_NAMES

CHIPS = DEFAULT_CHIPS  # the default chip values (a table's own are in its setup)


def _toggle(text: str, tip: str) -> QPushButton:
    """A large toggle button (area, player, bet)."""
    b = fit_words(QPushButton(text))
    b.setCheckable(True)
    b.setAutoDefault(False)
    b.setProperty("role", "toggle")
    if tip:
        b.setToolTip(tip)
    return b


def _clear(grid: QGridLayout, buttons: dict[Any, QPushButton]) -> None:
    for b in buttons.values():
        grid.removeWidget(b)
        b.hide()  # out of the layout, never laid out again: not left on screen until deleted
        b.deleteLater()
    buttons.clear()


class TextDialog(ScreenDialog):
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
        cancel.setAutoDefault(False)
        cancel.clicked.connect(self.reject)
        self.ok = QPushButton("OK")
        self.ok.setProperty("role", "confirm")
        self.ok.setDefault(True)  # Enter keeps what was typed (issue 24: it used to discard the name)
        self.ok.clicked.connect(self.accept)
        row.addWidget(cancel)
        row.addWidget(self.ok)
        layout.addLayout(row)

    def text(self) -> str:
        return self.field.text().strip()


class BettingPanel(QWidget):
    """Area, player and bet as large toggles, chips, the slip; the last round's wagers again."""

    def __init__(self, place: Callable[[str, str, Decimal, int | None], bool],
                 remove: Callable[[int], bool], change: Callable[[int, Decimal], bool],
                 claim: Callable[[str, int, list[dict[str, Any]]], bool] | None = None,
                 parent: QWidget | None = None, *,
                 place_many: Callable[[list[tuple[str, str, Decimal, int | None]]], bool] | None = None) -> None:
        super().__init__(parent)
        self._claim = claim
        self._place = place
        self._place_many = place_many
        self._remove = remove
        self._change = change
        self.amount = Decimal(0)
        self.dialog: QDialog | None = None
        self.chips: tuple[int, ...] = ()
        self.electronic = False
        self.claim_clause = ""  # the game's clause for claiming free side-bet slots (set up by configure)
        self.seated: dict[str, int] = {}
        self.last_round: list[tuple[str, str, Decimal, int | None]] = []  # (player, bet, amount, area)
        self._slip: list[dict[str, Any]] = []
        self._player = ""
        self._area: int | None = None
        self._bet: str | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(px(3))
        # every control in sight at 1280×800 and 1366×768 (issue 34): one row each for the
        # areas, the area's players (with New player), the bets, the amount, the chips; Place
        # beside Repeat all; the slip's actions on one row
        self.area_row = QGridLayout()
        self.area_row.setSpacing(px(3))
        self.area_buttons: dict[int, QPushButton] = {}
        layout.addLayout(self.area_row)
        self.player_grid = QGridLayout()
        self.player_grid.setSpacing(px(3))
        self.player_buttons: dict[str, QPushButton] = {}
        layout.addLayout(self.player_grid)
        self.new_player = fit_words(QPushButton("New player"))
        self.new_player.setStyleSheet(f"font-size: {px(16)}px; padding: 2px 2px;")
        bind(self.new_player, "Ctrl+N", self.ask_new_player)
        self.new_player.clicked.connect(self.ask_new_player)
        self.bet_row = QGridLayout()
        self.bet_row.setSpacing(px(3))
        self.bet_buttons: dict[str, QPushButton] = {}
        layout.addLayout(self.bet_row)
        self.chip_row = QGridLayout()
        self.chip_row.setSpacing(px(3))
        self.chip_buttons: list[QPushButton] = []
        layout.addLayout(self.chip_row)
        self.place_button = fit_words(QPushButton("Place (Enter)"))
        self.place_button.setProperty("role", "place")
        bind(self.place_button, "Return", self.place)
        bind(self.place_button, "Enter", self.place)
        self.place_button.clicked.connect(self.place)
        row2 = QHBoxLayout()  # the amount, Place, the keypad, clear: one row
        self.amount_label = QLabel("0")
        self.amount_label.setStyleSheet(f"font-size: {px(30)}px; font-weight: bold; background: white; padding: 0 6px;")
        row2.addWidget(self.amount_label)
        row2.addWidget(self.place_button, 1)
        keypad = QPushButton("Keypad")
        keypad.clicked.connect(self.open_keypad)
        row2.addWidget(keypad)
        clear = QPushButton("Clear")
        bind(clear, "Ctrl+Backspace", self.clear_amount)
        clear.clicked.connect(self.clear_amount)
        row2.addWidget(clear)
        layout.addLayout(row2)
        repeat = QGridLayout()
        repeat.setSpacing(px(3))
        self.repeat_all_button = fit_words(QPushButton("Repeat\nall"))
        bind(self.repeat_all_button, "Ctrl+R", self.repeat_all)
        self.repeat_all_button.clicked.connect(self.repeat_all)
        self.repeat_all_button.setToolTip("the whole table's wagers of the last round again (key: Ctrl+R)")
        self.repeat_player_button = fit_words(QPushButton("Repeat\nplayer"))
        bind(self.repeat_player_button, "Ctrl+Shift+R", self.repeat_player)
        self.repeat_player_button.clicked.connect(self.repeat_player)
        self.clear_area_button = fit_words(QPushButton("Clear\narea"))
        self.clear_area_button.setProperty("role", "danger")
        bind(self.clear_area_button, "Ctrl+Delete", self.clear_area)
        self.clear_area_button.clicked.connect(self.clear_area)
        for b in (self.repeat_all_button, self.repeat_player_button, self.clear_area_button):
            b.setStyleSheet(f"font-size: {px(16)}px;")  # two lines in a 48 px button
        repeat.addWidget(self.repeat_all_button, 0, 0)
        repeat.addWidget(self.repeat_player_button, 0, 1)
        repeat.addWidget(self.clear_area_button, 0, 2)
        layout.addLayout(repeat)
        self.slip = QListWidget()  # a list: it scrolls inside itself
        self.slip.setMinimumHeight(px(56))
        layout.addWidget(self.slip, 1)
        row3 = QGridLayout()
        row3.setSpacing(px(3))
        self.change_button = fit_words(QPushButton("Set amount"))
        self.change_button.clicked.connect(self.change_selected)
        row3.addWidget(self.change_button, 0, 0)
        self.remove_button = fit_words(QPushButton("Remove"))
        self.remove_button.setToolTip("the selected wager (key: Del)")
        bind(self.remove_button, "Delete", self.remove_selected)
        self.remove_button.setProperty("role", "danger")
        self.remove_button.clicked.connect(self.remove_selected)
        row3.addWidget(self.remove_button, 0, 1)
        self.claim_button = fit_words(QPushButton("Claim slots"))
        self.claim_button.clicked.connect(self.ask_claim)
        row3.addWidget(self.claim_button, 0, 2)
        for b in (self.change_button, self.remove_button, self.claim_button):
            b.setStyleSheet(f"font-size: {px(16)}px; padding: 2px 2px;")
        layout.addLayout(row3)
        # keys for the toggles: bound once, acting on whatever buttons the setup made
        for n in range(1, 10):
            bind(self, f"Ctrl+{n}", partial(self._area_key, n))
            bind(self, f"Alt+{n}", partial(self._player_key, n))
        for n in range(1, MAX_CHIPS + 1):
            # a QShortcut, not the button's own: every press adds a chip (ten presses, ten chips)
            bind(self, f"F{n}", partial(self._chip_key, n))
            bind(self, f"Shift+F{n}", partial(self._bet_key, n))

    # ------------------------------------------------------------------ set-up
    def configure(self, players: list[str], bets: list[str], areas: int, electronic: bool,
                  chips: tuple[int, ...] | list[int] = DEFAULT_CHIPS, seated: dict[str, int] | None = None,
                  claim_clause: str = "") -> None:
        """The table's areas, bets and chip values (from its setup); players: the seated
        ones, or Electronic's terminals."""
        self.electronic = electronic
        self.claim_clause = claim_clause
        self.seated = dict(seated or {})
        self._known = list(players)
        _clear(self.area_row, self.area_buttons)
        if not electronic:
            for n in range(1, max(1, areas) + 1):
                b = _toggle(str(n), f"key: Ctrl+{n}")
                b.clicked.connect(lambda _=False, n=n: self.set_area(n))
                self.area_row.addWidget(b, 0, n - 1)  # 1-7 in one row
                self.area_buttons[n] = b
        _clear(self.bet_row, self.bet_buttons)
        columns = max(1, len(bets)) if len(bets) <= 4 else 3  # one row (a long name on two lines)
        for i, bet in enumerate(bets):
            name = BET_NAMES.get(bet, bet)
            if len(bets) > 3 and len(name) > 9 and " " in name:
                name = "\n".join(name.rsplit(" ", 1))
            b = _toggle(name, f"{BET_NAMES.get(bet, bet)} (key: Shift+F{i + 1})")
            b.clicked.connect(lambda _=False, bet=bet: self.set_bet(bet))
            self.bet_row.addWidget(b, i // columns, i % columns)
            self.bet_buttons[bet] = b
        if tuple(chips) != self.chips:
            self.chips = tuple(chips)
            for b in self.chip_buttons:
                self.chip_row.removeWidget(b)
                b.hide()
                b.deleteLater()
            self.chip_buttons = []
            for i, value in enumerate(self.chips):
                b = QPushButton(f"+{money(value)}")
                b.setStyleSheet(f"QPushButton {{ border-radius: 22px; background: #fff3e0; padding: 2px 1px; font-size: {px(17)}px; "
                                f"min-width: {px(44)}px; }} QPushButton:disabled {{ {DISABLED_LOOK} }}")
                b.setToolTip(f"key: F{i + 1}")
                b.clicked.connect(lambda _=False, v=value: self.add_chip(v))
                self.chip_row.addWidget(b, i // 8, i % 8)  # one row (up to eight chips)
                self.chip_buttons.append(b)
        self.set_bet(self._bet if self._bet in self.bet_buttons else (bets[0] if bets else None))
        if electronic:
            self._area = None
            self._show_players()
        else:
            self.set_area(self._area if self._area in self.area_buttons else 1)
        if self._player and (not electronic or self._player in self._known):  # a terminal stays one
            self.set_player(self._player)
        elif electronic:
            self._player = ""

    # ------------------------------------------------------------------ choices
    def players_at(self, area: int | None) -> list[str]:
        """The players to offer on ``area``: seated there, or who bet there this or last round."""
        if self.electronic or area is None:
            return list(self._known)
        names = [p for p, a in self.seated.items() if a == area]
        names += [p for p, _, _, a in self.last_round if a == area]
        names += [str(w.get("player")) for w in self._slip if w.get("area") == area and w.get("player")]
        return list(dict.fromkeys(names))

    def _show_players(self, extra: str | None = None) -> None:
        names = self.players_at(self._area)
        if extra and extra not in names:
            names.append(extra)
        if list(self.player_buttons) == names:
            return
        _clear(self.player_grid, self.player_buttons)
        self.player_grid.removeWidget(self.new_player)
        columns = 7 if self.electronic else 4  # twelve terminals in two rows
        for i, name in enumerate(names):
            b = _toggle(name, f"key: Alt+{i + 1}" if i < 9 else "")
            b.clicked.connect(lambda _=False, n=name: self.set_player(n))
            self.player_grid.addWidget(b, i // columns, i % columns)
            self.player_buttons[name] = b
        cell = len(names) + (1 if len(names) % columns == columns - 1 else 0)  # two cells wide, after them
        self.player_grid.addWidget(self.new_player, cell // columns, cell % columns, 1, min(2, columns))

    def set_area(self, number: int) -> None:
        if number not in self.area_buttons:
            return
        self._area = number
        for n, b in self.area_buttons.items():
            b.setChecked(n == number)
        self._show_players()
        names = list(self.player_buttons)
        if self._player not in names:  # the area's first player, as the dealer would take
            self._player = names[0] if names else ""
        for name, b in self.player_buttons.items():
            b.setChecked(name == self._player)

    def set_player(self, name: str) -> None:
        self._player = name
        self._show_players(extra=name)
        for n, b in self.player_buttons.items():
            b.setChecked(n == name)

    def set_bet(self, bet: str | None) -> None:
        self._bet = bet
        for key, b in self.bet_buttons.items():
            b.setChecked(key == bet)

    def player_name(self) -> str:
        return self._player

    def area_number(self) -> int | None:
        return None if self.electronic else self._area

    def bet_kind(self) -> str | None:
        return self._bet

    def _area_key(self, n: int) -> None:
        if self.isVisible():
            self.set_area(n)

    def _player_key(self, n: int) -> None:
        names = list(self.player_buttons)
        if self.isVisible() and 0 < n <= len(names):
            self.set_player(names[n - 1])

    def _bet_key(self, n: int) -> None:
        bets = list(self.bet_buttons)
        if self.isVisible() and 0 < n <= len(bets):
            self.set_bet(bets[n - 1])

    def _chip_key(self, n: int) -> None:
        if self.isVisible() and 0 < n <= len(self.chips):
            self.add_chip(self.chips[n - 1])

    def ask_new_player(self) -> None:
        if not self.isVisible():
            return
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
        self._slip = list(slip)
        self.slip.clear()
        for w in slip:
            where = f" area {w['area']}" if "area" in w else ""
            if w.get("type") == "claim":
                names = ", ".join(f"{c['player']} {money(c['amount'])}" for c in w["claimants"])
                self.slip.addItem(f"claim {BET_NAMES.get(w['bet'], w['bet'])}{where}: {names}")
                continue
            self.slip.addItem(f"{w.get('player')}{where}: {BET_NAMES.get(w.get('bet', ''), w.get('bet'))} "
                              f"{money(w.get('amount', 0))}")
        self.repeat_all_button.setEnabled(bool(self.last_round))
        self.repeat_player_button.setEnabled(any(p == self._player for p, *_ in self.last_round))

    def remember_round(self, events: list[dict[str, Any]]) -> None:
        """The wagers of a round that began (transcript events up to *no more bets*): what
        *Repeat* places next round."""
        wagers: list[tuple[str, str, Decimal, int | None]] = []
        for e in events:
            if e.get("type") == "no_more_bets":
                break
            if e.get("type") == "wager" and e.get("hand") is None:
                wagers.append((str(e["player"]), str(e["bet"]), Decimal(str(e["amount"])), e.get("area")))
        if wagers:
            self.last_round = wagers

    # ------------------------------------------------------------------ actions
    def add_chip(self, value: int) -> None:
        self.amount += value
        self.amount_label.setText(money(self.amount))

    def clear_amount(self) -> None:
        self.amount = Decimal(0)
        self.amount_label.setText("0")

    def place(self) -> None:
        if not self.isVisible():
            return
        player = self._player.strip()
        bet = self._bet
        if not player or self.amount <= 0 or bet is None:
            return
        if self._place(player, str(bet), self.amount, self.area_number()):
            self.clear_amount()

    def repeat_all(self) -> bool:
        """Last round's wagers of the whole table, again (all or none)."""
        if not self.isVisible() or not self.last_round or self._place_many is None:
            return False
        return self._place_many(list(self.last_round))

    def repeat_player(self) -> bool:
        """Last round's wagers of the chosen player, again."""
        mine = [w for w in self.last_round if w[0] == self._player]
        if not self.isVisible() or not mine or self._place_many is None:
            return False
        return self._place_many(mine)

    def clear_area(self) -> None:
        """Remove the chosen area's wagers (Electronic: the chosen terminal's) from the slip."""
        if not self.isVisible():
            return
        if self.electronic:
            rows = [i for i, w in enumerate(self._slip) if w.get("player") == self._player]
        else:
            rows = [i for i, w in enumerate(self._slip) if w.get("area") == self._area]
        for row in reversed(rows):  # from the end: the earlier rows keep their numbers
            self._remove(row)

    def ask_claim(self) -> None:
        bet = self._bet
        name = BET_NAMES.get(str(bet), str(bet))
        dialog = TextDialog("Claim free side-bet slots",
                            f"Players who have not agreed want the free {name} slots on "
                            f"area {self._area} ({self.claim_clause}). In the order their chips went down:",
                            "carol=10, dan=5", self)
        self.dialog = dialog
        dialog.accepted.connect(lambda: self.claim(dialog.text()))
        dialog.open()

    def claim(self, text: str) -> bool:
        """Several players want the free slots of the chosen side bet on the chosen area."""
        bet = self._bet
        claimants: list[dict[str, Any]] = []
        for part in text.split(","):
            name, _, amount = part.partition("=")
            try:
                value = Decimal(amount.strip())
            except ArithmeticError:
                continue
            if name.strip():
                claimants.append({"player": name.strip(), "amount": int(value) if value == int(value) else float(value)})
        area = self._area
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
