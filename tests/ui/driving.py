"""Driving the dealer's window the way a dealer does: buttons, chips, the simulated shoe's Deal."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from dealer_assist.service.ops import Op
from ui.dealer.local_station import LocalStation

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def round_events(controller: Any) -> list[Any]:
    """The round's events as the service holds them, typed: those recorded, then the
    tentative implied hit and its card (the screen holds no engine round to ask)."""
    from dealer_assist.engine.transcript import parse_event

    return [*(parse_event(e) for e in controller.events), *controller.implied]


class TableDriver:
    def __init__(self, qtbot: Any, table: LocalStation) -> None:
        self.qtbot = qtbot
        self.table = table
        self.window = table.window
        self.controller = table.controller

    def wait_ready(self) -> None:
        c = self.controller
        self.qtbot.waitUntil(lambda: bool(c.service_state) and c.shoe.connected, timeout=10000)

    def settled_writes(self) -> None:
        """The service recorded every accepted input before it answered: what is left is the
        notifications already queued for the GUI thread (and so the screen), and a round's
        result, which the service writes once the screens are told of its last card and before
        it takes anything else (docs/station.md): this screen's next request, as a supervisor's
        would be, finds it on disk."""
        from PySide6.QtWidgets import QApplication

        QApplication.processEvents()
        self.controller.link.client.request(Op.STATE)

    # betting -------------------------------------------------------------------------
    def bet(self, player: str, bet: str, chips: list[int], area: int | None = None) -> None:
        """Tap the area, the player on it, the bet kind, the chips, then Place."""
        panel = self.window.betting
        click = Qt.MouseButton.LeftButton
        if area is not None:
            self.qtbot.mouseClick(panel.area_buttons[area], click)
        if player in panel.player_buttons:
            self.qtbot.mouseClick(panel.player_buttons[player], click)
        else:
            panel.set_player(player)  # a new name: what "New player" gives
        self.qtbot.mouseClick(panel.bet_buttons[bet], click)
        for chip in chips:
            self.qtbot.mouseClick(panel.chip_buttons[panel.chips.index(chip)], click)
        self.qtbot.mouseClick(panel.place_button, click)

    def press(self, key: str) -> None:
        """Press the prompt's button ``key`` (an option like "stand", or "no_more_bets")."""
        self.qtbot.waitUntil(lambda: key in self.window.prompt.buttons, timeout=5000)
        self.qtbot.mouseClick(self.window.prompt.buttons[key], Qt.MouseButton.LeftButton)
        self.settled_writes()

    def deal(self, count: int = 1) -> None:
        """Press the simulated shoe's Deal button; wait until the card is recorded and shown."""
        for _ in range(count):
            before = self._cards_recorded()
            self.qtbot.mouseClick(self.deal_button(), Qt.MouseButton.LeftButton)
            self.qtbot.waitUntil(lambda b=before: self._cards_recorded() > b, timeout=5000)
            self.settled_writes()

    def deal_button(self) -> Any:
        """The simulated shoe's *Deal a card* on the window's tool bar (the service deals)."""
        return self.sim_button("deal")

    def sim_button(self, fault: str) -> Any:
        """The simulated shoe's button for ``fault`` (dealer_assist/service/sim_faults.py) on
        the window's tool bar: the service does it on its shoe."""
        from PySide6.QtGui import QAction
        from PySide6.QtWidgets import QToolBar

        bar = self.window.findChild(QToolBar, "simulated_shoe")
        action = self.window.findChild(QAction, f"sim_{fault}")
        assert bar is not None and action is not None, f"no simulated shoe's {fault} on the screen"
        return bar.widgetForAction(action)

    def sim(self, fault: str) -> None:
        """Tap the simulated shoe's ``fault`` (deal, noread, double, damaged, lost_frame ...)."""
        self.qtbot.mouseClick(self.sim_button(fault), Qt.MouseButton.LeftButton)

    def _cards_recorded(self) -> int:
        # an implied hit's card is shown at once and stored with the next event
        implied = [e.type for e in self.controller.implied]  # typed events, not yet stored
        kinds = [*(e.get("type") for e in self.controller.events), *implied]
        return sum(1 for kind in kinds if kind in ("card", "burn"))

    # reading the screen ------------------------------------------------------------------
    def settlement_rows(self) -> list[tuple[str, str, str, str, str, str]]:
        """(player, area, wager, pay/collect, rule, stage) of every row of the settlement panel."""
        panel = self.window.settlement
        return [
            (panel.cell(r, "Player"), panel.cell(r, "Area"), panel.cell(r, "Wager"),
             panel.cell(r, "Pay / collect"), panel.cell(r, "Rule"), panel.cell(r, "Stage"))
            for r in range(panel.row_count())
        ]

    def screenshot(self, name: str) -> None:
        """Save docs/screenshots/NAME.png when DA_SCREENSHOTS is set (for reviewing the screens)."""
        if not os.environ.get("DA_SCREENSHOTS"):
            return
        self.qtbot.wait(100)  # let the queued show events of rebuilt widgets run
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.window.grab().save(str(SCREENSHOTS / f"{name}.png"))
