"""Rulings on irregularities: the clause, one sentence, the card moves (the service's settle output's ``rulings``).

The choices a ruling gives (accept or refuse a card, withdraw, act, pick) appear as
legal options in the prompt, because the engine reports them in its "next".
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ui.common.cards import card_label
from ui.dealer.prompt import target_words


def move_words(move: dict[str, Any]) -> str:
    return f"{card_label(move['card'])}: {target_words(move['from'])} \u2192 {target_words(move['to'])}"


class RulingPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("Rulings")
        self.title.setProperty("role", "title")
        layout.addWidget(self.title)
        self.body = QLabel("")
        self.body.setWordWrap(True)
        self.body.setStyleSheet("font-size: 20px; background: #fff3cd; padding: 8px;")
        layout.addWidget(self.body)
        self.rulings: list[dict[str, Any]] = []

    def show_rulings(self, rulings: list[dict[str, Any]], claims: list[dict[str, Any]]) -> None:
        self.rulings = rulings
        lines = []
        for r in rulings:
            text = f"<b>{r['rule']}</b> ({r['ruling']}): {r['text']}"
            moves = "<br>".join("&nbsp;&nbsp;" + move_words(m) for m in r.get("moves", []))
            lines.append(text + ("<br>" + moves if moves else ""))
        for c in claims:
            lines.append(f"<b>{c['rule']}</b> claim: granted {', '.join(c['granted']) or 'nobody'}"
                         + (f"; refused {', '.join(c['refused'])}" if c["refused"] else ""))
        self.body.setText("<br>".join(lines))
        self.setVisible(bool(lines))
