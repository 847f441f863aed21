"""The simulated shoe's controls: deal the next card (F12), burn, and faults on demand.

Each press writes to the simulator's pseudo-terminal on a Worker thread; the card then
comes back through the real driver, exactly as from a shoe at the table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from hardware.simulator import SimulatedShoe
from ui.common.worker import Worker


class SimPanel(QWidget):
    def __init__(self, shoe: SimulatedShoe, worker: Worker, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shoe = shoe
        self.worker = worker
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        label = QLabel("SIMULATED SHOE")
        label.setStyleSheet("font-weight: bold; color: #6a1b9a;")
        layout.addWidget(label)
        self.deal_button = self._button(layout, "Deal card [F12]", lambda: shoe.deal(), "F12")
        self._button(layout, "Burn", lambda: shoe.burn())
        self._button(layout, "Double feed", lambda: shoe.multi(2))
        self._button(layout, "Double feed, 1 unread", lambda: shoe.multi(2, unreadable=1))
        self._button(layout, "Bad checksum", lambda: shoe.deal(corrupt=True))
        def lose_frame() -> None:
            shoe.drop(1)  # this card's frame is lost on the line: the next frame shows the gap
            shoe.deal()

        self._button(layout, "Lose frame", lose_frame)
        self._button(layout, "Unreadable", lambda: shoe.noread())
        self.reread_button = self._button(layout, "Re-read", lambda: shoe.reread())  # the unread card again
        self._button(layout, "Shuffle", lambda: shoe.shuffle())
        layout.addStretch(1)

    def _button(self, layout: QHBoxLayout, text: str, job: Callable[[], Any], key: str | None = None) -> QPushButton:
        b = QPushButton(text)
        b.setStyleSheet("font-size: 15px; min-height: 30px; padding: 4px 8px;")
        if key:
            b.setShortcut(QKeySequence(key))
        b.clicked.connect(lambda: self.worker.submit(job))
        layout.addWidget(b)
        return b
