"""The layout: the dealer's hand and every playing area (tables), read from the round.

Shows, per area, the main wagers (player, amount, position, who controls), the side
bets, every hand's cards as the shoe read them, total (soft/hard), blackjack, bust and
doubled, split hands side by side. Everything comes from the engine's round and
``round_output``; nothing here decides a rule.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ui.cards import CardDropMixin, CardRow, DropTarget
from ui.style import money

AREA_MIN_W = 190
AREA_H = 250
DEALER_H = 190

BET_NAMES = {
    "main": "Main", "pair": "Pair", "ace_race": "Ace Race", "lucky8": "Lucky 8",
    "super_sevens": "Super Star 7s", "three_stars": "3 Stars", "superb8": "Superb 8's",
    "tie18": "Tie on 18", "plus21": "21+", "bet_the_set": "Bet the Set 21",
    "royal_match": "Royal Match 21", "kings_bounty": "Kings Bounty", "insurance": "Insurance",
    "bonus678": "6-7-8 bonus",
}


def total_text(total: int, soft: bool, cards: int) -> str:
    """``soft 17`` / ``hard 17``."""
    if cards == 0:
        return ""
    return f"{'soft' if soft else 'hard'} {total}" if total <= 21 else f"{total}"


def _label(text: str, *, size: int = 18, bold: bool = False) -> QLabel:
    label = QLabel(text)
    font = QFont(label.font())  # a font, not a style sheet: cheap to build on every card
    font.setPixelSize(size)
    font.setBold(bold)
    label.setFont(font)
    return label


class HandBox(DropTarget):
    """One hand: its cards, total and badges; a card dragged here lies in this hand."""

    def __init__(self, number: int | None, cards: list[str], total: int, soft: bool, *,
                 badges: list[str], stakes: str = "", printed_first: bool = False,
                 target: str = "dealer") -> None:
        super().__init__(target)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        head = (f"Hand {number}  " if number is not None else "") + total_text(total, soft, len(cards))
        if badges:
            head += "  " + "  ".join(badges)
        self.title = _label(head, size=20, bold=True)
        layout.addWidget(self.title)
        if stakes:
            layout.addWidget(_label(stakes, size=16))
        self.cards = CardRow(cards, printed_first=printed_first)
        layout.addWidget(self.cards)


class DealerBox(QFrame):
    def __init__(self, rnd: Any, output: dict[str, Any]) -> None:
        super().__init__()
        self.setProperty("role", "dealer")
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(DEALER_H)
        layout = QVBoxLayout(self)
        layout.addWidget(_label("DEALER", size=22, bold=True))
        dealer = output.get("dealer", {"cards": [], "total": 0})
        cards = list(dealer["cards"])
        view = rnd.view().dealer  # the engine's typed view (round_api.DealerView)
        total, soft = view.total, view.soft
        badges = []
        if total > 21:
            badges.append("BUST")
        layout.addWidget(HandBox(None, cards, total, soft, badges=badges,
                                 printed_first=bool(rnd.rules.permanent_eight), target="dealer"))


class AreaBox(CardDropMixin, QFrame):
    """One playing area; a card dropped on it (outside a hand) lies in its first hand."""

    def __init__(self, rnd: Any, number: int, *, in_turn: int | None) -> None:
        super().__init__()
        self.drop_target = f"area:{number}/1"
        self.setAcceptDrops(True)
        self._build(rnd, number, in_turn)

    def _build(self, rnd: Any, number: int, in_turn: int | None) -> None:
        self.setProperty("role", "area")
        self.setProperty("turn", "true" if in_turn is not None else "false")
        # a fixed height: a new card changes at most this row's widths, never the table's height
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(AREA_MIN_W)
        self.setFixedHeight(AREA_H)
        self.number = number
        layout = QVBoxLayout(self)
        layout.setSpacing(4)
        area = rnd.areas.get(number)
        seated = [p for p, a in rnd.config.seated.items() if a == number]
        title = f"AREA {number}"
        if area is not None and area.controller:
            title += f"   control: {area.controller}"
        elif seated:
            title += f"   seat: {seated[0]}"
        layout.addWidget(_label(title, size=20, bold=True))
        if area is None:
            empty = DropTarget(f"area:{number}/1")  # a card can still land here (5.15)
            inner = QVBoxLayout(empty)
            inner.addWidget(_label("no wager", size=16))
            layout.addWidget(empty)
            layout.addStretch(1)
            return
        for w in area.wagers:
            extra = ""
            if w.amount != w.placed:
                extra = f" (placed {money(w.placed)}, max {money(w.amount)})"
            layout.addWidget(_label(f"#{w.position} {w.player}: {money(w.amount)}{extra}", size=18))
        sides = [f"{BET_NAMES.get(s.bet, s.bet)} {s.player} {money(s.amount)}" for s in area.sides]
        if sides:
            layout.addWidget(_label("Side: " + ", ".join(sides), size=16))
        hands_row = QHBoxLayout()
        permanent = bool(rnd.rules.permanent_eight)
        hand_views = rnd.view().areas[number - 1].hands  # the engine's badges (round_api.HandView)
        for i, hand in enumerate(area.hands, start=1):
            total, soft = hand.value()
            badges = []
            if hand_views[i - 1].blackjack:
                badges.append("BLACKJACK")
            if hand.busted or total > 21:
                badges.append("BUST")
            if hand.doubled:
                badges.append("DOUBLED")
            if in_turn == i:
                badges.append("\u25c0 IN TURN")
            stakes = ", ".join(f"{p} {money(v)}" for p, v in hand.stakes.items()) if len(area.hands) > 1 else ""
            box = HandBox(i if len(area.hands) > 1 else None, [str(c) for c in hand.cards], total, soft,
                          badges=badges, stakes=stakes, printed_first=permanent and i == 1,
                          target=f"area:{number}/{i}")
            hands_row.addWidget(box)
        if area.surrendered:
            layout.addWidget(_label("SURRENDERED: " + ", ".join(sorted(area.surrendered)), size=16, bold=True))
        layout.addLayout(hands_row)
        layout.addStretch(1)


def _area_signature(rnd: Any, number: int, in_turn: int | None) -> tuple[Any, ...]:
    """Everything an AreaBox shows: rebuild the box only when this changes."""
    area = rnd.areas.get(number)
    if area is None:
        return (number, None, in_turn)
    return (
        number, in_turn, area.controller,
        tuple((w.player, w.amount, w.placed, w.position) for w in area.wagers),
        tuple((s.bet, s.player, s.amount) for s in area.sides),
        tuple((tuple(map(str, h.cards)), h.busted, h.doubled, tuple(h.stakes.items())) for h in area.hands),
        tuple(sorted(area.surrendered)),
    )


class TableView(QWidget):
    """The dealer and the areas (tables); the shared Player hand (Electronic).

    Boxes are rebuilt only when what they show changed, so a card repaints one area.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(4, 4, 4, 4)
        self.area_boxes: dict[int, AreaBox] = {}
        self.dealer_box: QWidget | None = None
        self.shared_box: QWidget | None = None
        self._grid = QGridLayout()
        self._layout.addLayout(self._grid)
        self._layout.addStretch(1)
        self._dealer_sig: Any = None
        self._shared_sig: Any = None
        self._area_sigs: dict[int, Any] = {}
        self._shape: Any = None

    def _replace(self, old: QWidget | None, new: QWidget, row: int, column: int, span: int = 1) -> None:
        if old is not None:
            self._grid.removeWidget(old)
            old.hide()
            old.deleteLater()
        self._grid.addWidget(new, row, column, 1, span)

    def refresh(self, rnd: Any, output: dict[str, Any], expectation: Any) -> None:
        shared = bool(rnd.rules.shared_hand)
        count = 0 if shared else rnd.config.areas
        shape = (shared, count, rnd.rules.key)
        columns = 4 if count > 5 else max(count, 1)
        if shape != self._shape:
            for w in [self.dealer_box, self.shared_box, *self.area_boxes.values()]:
                if w is not None:
                    self._grid.removeWidget(w)
                    w.hide()
                    w.deleteLater()
            self.dealer_box = self.shared_box = None
            self.area_boxes = {}
            self._dealer_sig = self._shared_sig = None
            self._area_sigs = {}
            self._shape = shape
        dealer_sig = (tuple(output.get("dealer", {}).get("cards", [])),)
        if dealer_sig != self._dealer_sig:
            dealer_box = DealerBox(rnd, output)
            self._replace(self.dealer_box, dealer_box, 0, 0, columns)
            self.dealer_box = dealer_box
            self._dealer_sig = dealer_sig
        if shared:
            cards = list(output.get("player_cards", []))
            if (tuple(cards),) != self._shared_sig:
                frame = QFrame()
                frame.setProperty("role", "area")
                frame.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
                frame.setFixedHeight(DEALER_H + 20)
                inner = QVBoxLayout(frame)
                inner.addWidget(_label("PLAYER HAND (shared)", size=20, bold=True))
                inner.addWidget(CardRow(cards))
                self._replace(self.shared_box, frame, 1, 0, columns)
                self.shared_box = frame
                self._shared_sig = (tuple(cards),)
            return
        turn_area = expectation.area if expectation.kind == "decision" else None
        card_target = expectation.target if expectation.kind == "card" else None
        for number in range(1, count + 1):
            in_turn = None
            if turn_area == number:
                in_turn = expectation.hand
            elif card_target and card_target.startswith(f"area:{number}/"):
                in_turn = int(card_target.split("/")[1])
            sig = _area_signature(rnd, number, in_turn)
            if sig == self._area_sigs.get(number):
                continue
            area_box = AreaBox(rnd, number, in_turn=in_turn)
            # areas are numbered from the dealer's left (first base = 1): left to right
            index = number - 1
            self._replace(self.area_boxes.get(number), area_box, 1 + index // columns, index % columns)
            self.area_boxes[number] = area_box
            self._area_sigs[number] = sig
