"""The terminal's table: the dealer's cards and the shared Player hand as they come (3.7,
3.8), this seat's own hands (a split's, a hit's), each wager's result, and this seat's
decision buttons with the time left (3.9, 3.17). Only paints the seat's view; the options
shown are the ones the service says are open."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from PySide6.QtCore import QSize
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from dealer_assist.games import GAMES
from ui.common.cards import CARD_H, CARD_W, CardRow, card_label
from ui.common.labels import sized_label
from ui.common.style import TOUCH, px, signed
from ui.terminal.bets import RESULT_WORDS

__all__ = ["ACTION_WORDS", "HandsPanel"]

ACTION_WORDS = {"hit": "Hit", "stand": "Stand", "double": "Double", "split": "Split", "surrender": "Surrender",
                "insurance": "Insurance", "even_money": "Even money", "no_insurance": "No insurance",
                "decline": "No thanks"}


class CardsBox(QFrame):
    """A titled row of cards on the felt (the dealer's, or the shared Player hand)."""

    def __init__(self, role: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setProperty("role", role)
        box = self.box = QVBoxLayout(self)
        box.setContentsMargins(px(10), px(6), px(10), px(8))
        box.setSpacing(px(4))
        head = QHBoxLayout()
        self.title = sized_label(19, True)
        self.title.setText(title)
        self.total = sized_label(22, True)
        self.total.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        head.addWidget(self.title, 1)
        head.addWidget(self.total)
        box.addLayout(head)
        self.card_size = QSize(px(CARD_W), px(CARD_H))
        self.cards: list[str] = []
        self.row = CardRow([], card_size=self.card_size)
        box.addWidget(self.row)
        self.lines = sized_label(17, True)  # own hands and results under the cards
        self.lines.setWordWrap(True)
        box.addWidget(self.lines)
        self.lines.hide()

    def show_cards(self, cards: list[str], total: str) -> None:
        if cards[:len(self.cards)] == self.cards:
            for c in cards[len(self.cards):]:
                self.row.add(c)  # a card as it comes: the row is not rebuilt
        else:
            old = self.row
            self.row = CardRow(cards, card_size=self.card_size)
            self.box.replaceWidget(old, self.row)
            old.hide()
            old.deleteLater()
        self.cards = list(cards)
        self.total.setText(total)

    def show_lines(self, text: str) -> None:
        self.lines.setText(text)
        self.lines.setVisible(bool(text))


class HandsPanel(QWidget):
    def __init__(self, decide: Callable[[str], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._decide = decide
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(px(8))
        self.dealer = CardsBox("dealer", "Dealer")
        self.player = CardsBox("area", "Player hand (shared)")
        self.rules: Any = None  # the seat view's game (its clause numbers), once a view came
        box.addWidget(self.dealer)
        box.addWidget(self.player)
        box.addStretch(1)
        self.prompt = sized_label(20, True)
        self.prompt.setWordWrap(True)
        ask = QHBoxLayout()  # the prompt and its time (3.17) above the choices: the row is theirs
        ask.setSpacing(px(6))
        ask.addWidget(self.prompt, 1)
        self.countdown = sized_label(24, True)
        self.countdown.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.countdown.hide()
        ask.addWidget(self.countdown)
        box.addLayout(ask)
        self.options_box = QHBoxLayout()
        self.options_box.setSpacing(px(6))
        box.addLayout(self.options_box)
        self.options: dict[str, QPushButton] = {}
        self.by_dealer = False  # a supervisor's override: the dealer enters this seat's decisions (3.17)
        self.asked = False  # a decision of this seat's is awaited

    def show_view(self, view: dict[str, Any], pending: dict[str, Any] | None, by_dealer: bool = False) -> None:
        """The cards, this seat's hands and results, its decision; ``by_dealer``: a supervisor's
        override is in force (3.17): the decision is shown with its time, no choice offered."""
        self.by_dealer = by_dealer
        names = {str(b.get("bet")): str(b.get("name")) for b in view.get("layout") or []}
        self.rules = GAMES.get(str((view.get("config") or {}).get("game") or ""))
        self.player.title.setText(f"Player hand (shared, {self.clause('shared_hand')})")
        dealer = view.get("dealer") or {}
        dealer_cards = list(dealer.get("cards") or [])
        self.dealer.show_cards(dealer_cards, str(dealer.get("total") or "") if dealer_cards else "")
        hands = [h for p in view.get("hands") or [] for h in p.get("hands") or []]
        shared = list(view.get("player_cards") or [])
        one = hands[0] if len(hands) == 1 else None
        self.player.show_cards(one["cards"] if one else shared, str(one.get("total", "")) if one else "")
        lines = self._own_lines(hands, view.get("settlements") or [], names)
        if any(e.get("type") == "timeout" for e in view.get("events") or []):  # this seat's own events only
            lines = "\n".join(filter(None, [f"No decision in time: the default strategy played "
                                             f"({self.clause('no_selection')})", lines]))
        self._show_options(pending)  # the choices gone first, then the results: never both (the height)
        self.player.show_lines(lines)

    @staticmethod
    def _own_lines(hands: list[dict[str, Any]], settlements: list[dict[str, Any]], names: dict[str, str]) -> str:
        """A split's hands each with its cards and total; each wager's result (4.1-4.8)."""
        lines = []
        if len(hands) > 1:
            for h in hands:
                cards = " ".join(card_label(c) for c in h.get("cards") or [])
                lines.append(f"Hand {h.get('hand')}: {cards} = {h.get('total')}")
        for s in settlements:
            bet = str(s.get("bet", ""))
            what = names.get(bet) or bet.replace("_", " ").capitalize()
            if s.get("hand") is not None and len(hands) > 1:
                what += f" hand {s['hand']}"
            result = RESULT_WORDS.get(str(s.get("result")), str(s.get("result", "")).upper())
            lines.append(f"{what}: {result} {signed(Decimal(str(s.get('net', 0))))}  ({s.get('rule')})")
        return "\n".join(lines)

    def _show_options(self, pending: dict[str, Any] | None) -> None:
        options = [] if self.by_dealer else [str(o) for o in (pending or {}).get("options") or []]
        if list(self.options) != options:
            for b in self.options.values():
                self.options_box.removeWidget(b)
                b.hide()
                b.deleteLater()
            self.options = {}
            for option in options:
                b = QPushButton(ACTION_WORDS.get(option, option.replace("_", " ").capitalize()))
                b.setProperty("role", "go")
                b.setStyleSheet(f"font-size: {px(18)}px; padding: 2px 2px;")
                b.ensurePolished()
                wide = b.fontMetrics().horizontalAdvance(b.text()) + px(8) + 16  # the word whole, padding, border
                b.setMinimumSize(max(px(TOUCH + 16), wide), px(TOUCH + 8))
                b.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
                b.clicked.connect(lambda _=False, o=option: self._decide(o))
                self.options_box.addWidget(b, 1)
                self.options[option] = b
        self.asked = pending is not None
        if pending is not None:
            hand = pending.get("hand")
            on = f" on hand {hand}" if hand is not None else ""
            self.prompt.setText(f"The dealer enters your decision{on} ({self.clause('decision_time')})"
                                if self.by_dealer else f"Your decision{on} ({self.clause('options')})")
        else:
            self.prompt.setText("")
            self.show_seconds(None)

    def clause(self, concept: str) -> str:
        """The seat's game's clause for ``concept`` (the rule document's numbering)."""
        return self.rules.clause(concept) if self.rules is not None and self.rules.has(concept) else "?"

    def show_seconds(self, seconds: int | None) -> None:
        """The decision's time left (3.17), or nothing when the service gives none."""
        text = f"{seconds} s" if seconds is not None and (self.options or self.by_dealer and self.asked) else ""
        self.countdown.setText(text)
        self.countdown.setVisible(bool(text))
