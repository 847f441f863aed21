"""Panels that ask the dealer before play goes on.

:class:`StrayCardPanel`: a card arrived that fits no reading (the round refused it). It
is never thrown away and never given to a hand silently: it is held here, with a large
button for each place it may lie; no other card is assigned until the dealer answers.
The answer is sent to the engine as the card with ``to`` (spec/round-script.md), and
the engine rules on it (section 5).

:class:`PowerFailurePanel`: after a power failure (5.29.1; 5.26.1 in Dueling 8's), each
player with wagers in the round: *Withdraw* or *Stays*. The engine decides whether a
withdrawal is allowed and refuses it with its clause otherwise.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ui.common.cards import card_label
from ui.common.style import px
from ui.dealer.prompt import target_words


class StrayCardPanel(QWidget):
    def __init__(self, place: Callable[[str], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._place = place
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.headline = QLabel("")
        self.headline.setProperty("role", "prompt")
        self.headline.setWordWrap(True)
        self.headline.setStyleSheet("background: #ffcc80; padding: 6px;")
        layout.addWidget(self.headline)
        self.reason = QLabel("")
        self.reason.setWordWrap(True)
        layout.addWidget(self.reason)
        self._grid = QGridLayout()
        self._grid.setSpacing(px(4))
        layout.addLayout(self._grid)
        self.buttons: dict[str, QPushButton] = {}
        self._shown: tuple[str | None, tuple[str, ...], str] = (None, (), "")
        self.hide()

    def show_card(self, card: str | None, targets: list[str], reason: str) -> None:
        if (card, tuple(targets), reason) == self._shown:
            return
        self._shown = (card, tuple(targets), reason)
        for b in self.buttons.values():
            self._grid.removeWidget(b)
            b.hide()
            b.deleteLater()
        self.buttons = {}
        if card is None:
            self.hide()
            return
        self.headline.setText(f"HELD: {card_label(card)} fits no reading. Where does it lie?")
        self.reason.setText(reason)
        for i, target in enumerate(targets):
            b = QPushButton(target_words(target))
            b.setMinimumHeight(px(56))
            b.clicked.connect(lambda _=False, t=target: self._place(t))
            self._grid.addWidget(b, i // 3, i % 3)
            self.buttons[target] = b
        self.show()


class PowerFailurePanel(QWidget):
    def __init__(self, withdraw: Callable[[str | None, int | None], None], stays: Callable[[str], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._withdraw = withdraw
        self._stays = stays
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("")
        self.title.setProperty("role", "title")
        self.title.setWordWrap(True)
        layout.addWidget(self.title)
        self._grid = QGridLayout()
        layout.addLayout(self._grid)
        self.buttons: dict[tuple[str, str], QPushButton] = {}
        self._shown: tuple[tuple[str, ...], str, bool] = ((), "", True)
        self.hide()

    def show_players(self, players: tuple[list[str], str, bool]) -> None:
        """``players``: the names still to answer, the clause, and whether the game lets them
        withdraw (where it does not, the round continues and each stays)."""
        names, clause, withdraw = players
        if (tuple(names), clause, withdraw) == self._shown:
            return
        self._shown = (tuple(names), clause, withdraw)
        for b in self.buttons.values():
            self._grid.removeWidget(b)
            b.hide()
            b.deleteLater()
        self.buttons = {}
        for label in self.findChildren(QLabel):
            if label is not self.title:
                self._grid.removeWidget(label)
                label.deleteLater()
        if not names:
            self.hide()
            return
        self.title.setText(f"Power failure ({clause}): does each player withdraw or stay?" if withdraw else
                           f"Power failure ({clause}): the round continues; confirm that each player stays")
        for row, name in enumerate(names):
            self._grid.addWidget(QLabel(name), row, 0)
            if withdraw:
                w = QPushButton(f"Withdraw {name}")
                w.setProperty("role", "danger")
                w.clicked.connect(lambda _=False, p=name: self._withdraw(p, None))
                self._grid.addWidget(w, row, 1)
                self.buttons[(name, "withdraw")] = w
            s = QPushButton(f"{name} stays")
            s.clicked.connect(lambda _=False, p=name: self._stays(p))
            self._grid.addWidget(s, row, 2)
            self.buttons[(name, "stay")] = s
        self.show()
