"""The layout: the dealer's hand and every playing area (tables), read from the round.

Shows, per area, the main wagers (player, amount, position, who controls), the side
bets, every hand's cards as the shoe read them, total (soft/hard), blackjack, bust and
doubled, split hands side by side. Everything comes from the engine's round and
``round_output``; nothing here decides a rule.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ui.cards import CardRow
from ui.style import money

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
    label.setStyleSheet(f"font-size: {size}px; font-weight: {'bold' if bold else 'normal'};")
    label.setWordWrap(True)
    return label


class HandBox(QWidget):
    """One hand: its cards, total and badges."""

    def __init__(self, number: int | None, cards: list[str], total: int, soft: bool, *,
                 badges: list[str], stakes: str = "", printed_first: bool = False) -> None:
        super().__init__()
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
        layout = QVBoxLayout(self)
        layout.addWidget(_label("DEALER", size=22, bold=True))
        dealer = output.get("dealer", {"cards": [], "total": 0})
        cards = list(dealer["cards"])
        total, soft = rnd.dealer_value() if hasattr(rnd, "dealer_value") else (dealer["total"], False)
        badges = []
        if total > 21:
            badges.append("BUST")
        layout.addWidget(HandBox(None, cards, total, soft, badges=badges,
                                 printed_first=bool(rnd.rules.permanent_eight)))


class AreaBox(QFrame):
    """One playing area."""

    def __init__(self, rnd: Any, number: int, *, in_turn: int | None) -> None:
        super().__init__()
        self.setProperty("role", "area")
        self.setProperty("turn", "true" if in_turn is not None else "false")
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
            layout.addWidget(_label("no wager", size=16))
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
        for i, hand in enumerate(area.hands, start=1):
            total, soft = hand.value()
            badges = []
            if getattr(rnd, "_is_blackjack", None) and rnd._is_blackjack(hand):
                badges.append("BLACKJACK")
            if hand.busted or total > 21:
                badges.append("BUST")
            if hand.doubled:
                badges.append("DOUBLED")
            if in_turn == i:
                badges.append("\u25c0 IN TURN")
            stakes = ", ".join(f"{p} {money(v)}" for p, v in hand.stakes.items()) if len(area.hands) > 1 else ""
            box = HandBox(i if len(area.hands) > 1 else None, [str(c) for c in hand.cards], total, soft,
                          badges=badges, stakes=stakes, printed_first=permanent and i == 1)
            hands_row.addWidget(box)
        if area.surrendered:
            layout.addWidget(_label("SURRENDERED: " + ", ".join(sorted(area.surrendered)), size=16, bold=True))
        layout.addLayout(hands_row)
        layout.addStretch(1)


class TableView(QWidget):
    """The dealer and the areas (tables); the shared Player hand (Electronic)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(4, 4, 4, 4)
        self.area_boxes: dict[int, AreaBox] = {}
        self.dealer_box: QWidget | None = None
        self._holder: QWidget | None = None

    def refresh(self, rnd: Any, output: dict[str, Any], expectation: Any) -> None:
        if self._holder is not None:
            self._layout.removeWidget(self._holder)
            self._holder.hide()
            self._holder.deleteLater()
        holder = QWidget()
        grid = QVBoxLayout(holder)
        grid.setContentsMargins(0, 0, 0, 0)
        self.dealer_box = DealerBox(rnd, output)
        grid.addWidget(self.dealer_box)
        self.area_boxes = {}
        if rnd.rules.shared_hand:
            cards = output.get("player_cards", [])
            box = QFrame()
            box.setProperty("role", "area")
            inner = QVBoxLayout(box)
            inner.addWidget(_label("PLAYER HAND (shared)", size=20, bold=True))
            inner.addWidget(CardRow(list(cards)))
            grid.addWidget(box)
        else:
            areas = QGridLayout()
            turn_area = expectation.area if expectation.kind == "decision" else None
            card_target = expectation.target if expectation.kind == "card" else None
            count = rnd.config.areas
            for number in range(1, count + 1):
                in_turn = None
                if turn_area == number:
                    in_turn = expectation.hand
                elif card_target and card_target.startswith(f"area:{number}/"):
                    in_turn = int(card_target.split("/")[1])
                box = AreaBox(rnd, number, in_turn=in_turn)
                self.area_boxes[number] = box
                # areas are numbered from the dealer's left (first base = 1): left to right
                areas.addWidget(box, (number - 1) // 4 if count > 5 else 0,
                                (number - 1) % 4 if count > 5 else number - 1)
            grid.addLayout(areas)
        self._layout.addWidget(holder)
        self._holder = holder
