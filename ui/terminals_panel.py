"""Electronic Blackjack: a panel of terminals, each with its hands, pending decision and countdown.

The decision time (3.18) is counted here; when it runs out the controller sends a
``timeout`` event and the engine plays that terminal by the default strategy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ui.cards import CardRow
from ui.prompt import OPTION_WORDS
from ui.style import money
from ui.table_view import BET_NAMES, total_text


class TerminalsPanel(QWidget):
    def __init__(self, decide: Callable[[str, str, int], None], timeout: Callable[[str], None],
                 seconds: int = 20, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._decide = decide
        self._timeout = timeout
        self.seconds = seconds
        self.deadlines: dict[str, int] = {}  # terminal -> seconds left
        self.buttons: dict[tuple[str, str], QPushButton] = {}
        self.countdowns: dict[str, QLabel] = {}
        self._grid = QGridLayout(self)
        self._boxes: list[QWidget] = []
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self._tick)

    def refresh(self, rnd: Any) -> None:
        for box in self._boxes:
            self._grid.removeWidget(box)
            box.hide()
            box.deleteLater()
        self._boxes = []
        self.buttons = {}
        self.countdowns = {}
        exp = rnd.expectation()
        pending = {p["player"]: p for p in exp.pending} if exp.kind == "decisions" else {}
        for name in list(self.deadlines):
            if name not in pending:
                del self.deadlines[name]
        for name in pending:
            self.deadlines.setdefault(name, self.seconds)
        for n, terminal in enumerate(rnd.terminals.values()):
            box = QFrame()
            box.setProperty("role", "area")
            box.setProperty("turn", "true" if terminal.player in pending else "false")
            layout = QVBoxLayout(box)
            head = f"TERMINAL {terminal.player}   main {money(terminal.main)}"
            title = QLabel(head)
            title.setStyleSheet("font-size: 20px; font-weight: bold;")
            layout.addWidget(title)
            if terminal.sides:
                layout.addWidget(QLabel("Side: " + ", ".join(
                    f"{BET_NAMES.get(k, k)} {money(v)}" for k, v in terminal.sides.items())))
            row = QHBoxLayout()
            for i, hand in enumerate(terminal.hands, start=1):
                total, soft = hand.value()
                badges = (" BUST" if total > 21 else "") + (" DOUBLED" if hand.doubled else "")
                col = QVBoxLayout()
                col.addWidget(QLabel(f"Hand {i}: {total_text(total, soft, len(hand.cards))}{badges}"))
                col.addWidget(CardRow([str(c) for c in hand.cards]))
                row.addLayout(col)
            layout.addLayout(row)
            if terminal.player in pending:
                p = pending[terminal.player]
                countdown = QLabel(self._countdown_text(p["hand"], self.deadlines[terminal.player]))
                countdown.setProperty("hand", p["hand"])
                self.countdowns[terminal.player] = countdown
                layout.addWidget(countdown)
                buttons = QHBoxLayout()
                for option in p["options"]:
                    b = QPushButton(OPTION_WORDS.get(option, option))
                    b.clicked.connect(lambda _=False, o=option, t=terminal.player, h=p["hand"]: self._decide(o, t, h))
                    buttons.addWidget(b)
                    self.buttons[(terminal.player, option)] = b
                layout.addLayout(buttons)
            elif terminal.default_play:
                layout.addWidget(QLabel("played by the default strategy (3.18)"))
            self._grid.addWidget(box, n // 3, n % 3)
            self._boxes.append(box)
        if self.deadlines and not self._timer.isActive():
            self._timer.start()
        elif not self.deadlines:
            self._timer.stop()

    @staticmethod
    def _countdown_text(hand: int, seconds: int) -> str:
        return f"Hand {hand} to decide \u2014 {seconds} s left"

    def _tick(self) -> None:
        expired = []
        for name in list(self.deadlines):
            self.deadlines[name] -= 1
            label = self.countdowns.get(name)
            if label is not None:
                label.setText(self._countdown_text(int(label.property("hand")), self.deadlines[name]))
            if self.deadlines[name] <= 0:
                expired.append(name)
        for name in expired:
            del self.deadlines[name]
            self._timeout(name)
