"""The dealer's screen shows the Player Terminals read-only (issue 38, build 5; Electronic
Blackjack 1.1.10, 3.9, 3.17): a real station service with its TLS terminal endpoint on
loopback (tests/ui_terminal/terminal_table.py: t1 paired, t1 and t2 with credits), the
dealer's real window offscreen as the service's client, driven by its buttons.

By hand (electronic-blackjack.txt): Player 10S, Dealer 9H, Player 6D (3.7): the shared hand
is hard 16 against 9. t1 (its terminal, main 10) and t2 (no terminal, main 10 entered by the
dealer) both stand. The dealer's 8C: 9 + 8 = 17 stands (3.19). 16 loses to 17: each loses its
10 (the dealer collects 10 from each)."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from dealer_assist.service.ops import Op
from tests.ui_terminal.terminal_table import SEAT, TerminalTable
from ui.common.style import money


def dealer_screen(table: TerminalTable) -> Any:
    """The dealer's screen on the station's socket, dealer ann logged in (the store's ann)."""
    from ui.common.service_link import ServiceLink
    from ui.dealer.app import build_client_screen

    link = ServiceLink(table.station.socket, "screen")
    link.ask(Op.LOGIN, name="ann", pin="730418")
    screen = build_client_screen(link, None, table.station.socket)
    screen.controller.start_shift("ann")
    return screen


def box_texts(panel: Any, seat: str) -> list[str]:
    box = next(b for b in panel._boxes if getattr(b, "name", None) == seat)
    return [label.text() for label in box.findChildren(QLabel)]


def test_the_dealers_panel_shows_a_paired_terminal_read_only_and_overrides_it_behind_the_pin(
        qtbot: Any, tmp_path: Path) -> None:
    table = TerminalTable(tmp_path, "10S 9H 6D 8C", decision_seconds=120)
    screen = None
    try:
        table.first.request("wager", bet="main", amount=10)  # t1 at its own terminal (1.1.10)
        table.screen.request("wager", player="t2", bet="main", amount=10)  # t2: no terminal, the dealer's
        screen = dealer_screen(table)
        window, controller = screen.window, screen.controller
        window.resize(1280, 800)
        window.show()
        panel = window.terminals
        table.screen.request("no_more_bets")
        table.deal(3)
        qtbot.waitUntil(lambda: set(panel.countdowns) == {SEAT, "t2"}, timeout=15000)
        assert (controller.paired, controller.linked) == ([SEAT], [SEAT])

        # t1: its terminal's state with the service's countdown (3.17), no choice of it on the panel
        shown = re.fullmatch(r"H1 terminal: (\d+) s left", panel.states[SEAT].text())
        assert shown is not None and 0 < int(shown.group(1)) <= 120, panel.states[SEAT].text()
        assert panel.tags[SEAT].text() == "TERMINAL" and "t2" not in panel.tags
        assert not [key for key in panel.buttons if key[0] == SEAT]
        panel.select(SEAT)  # touching its box chooses nothing for it
        assert panel.selected == "t2" and set(panel.buttons) == {("t2", o) for o in
                                                                 ("hit", "stand", "double", "surrender")}
        assert set(panel.override_buttons) == {SEAT}  # t2 has no terminal: nothing to override

        # the supervisor's override behind the PIN: a wrong PIN changes nothing
        qtbot.mouseClick(panel.override_buttons[SEAT], Qt.MouseButton.LeftButton)
        dialog = window.pin_dialog
        assert dialog is not None and dialog.isVisible()
        dialog.name.setText("sue")
        dialog.pin.setText("000000")
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: dialog.message.text() not in ("", "checking\u2026"), timeout=15000)
        assert dialog.isVisible() and "wrong" in dialog.message.text().lower() and controller.overrides == {}
        assert table.station.running is not None
        store = table.station.running.store
        assert store.audit_entries(kind="terminal_override") == []
        dialog.pin.setText("482913")
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: controller.overrides == {SEAT: "sue"}, timeout=15000)
        (entry,) = store.audit_entries(kind="terminal_override")
        assert entry.actor == "supervisor:sue" and entry.detail["seat"] == SEAT

        # now the dealer enters t1's decision on the panel, as for t2
        qtbot.waitUntil(lambda: not panel.override_buttons, timeout=15000)
        assert panel.tags[SEAT].text() == "OVERRIDE \u00b7 sue"
        panel.select(SEAT)
        assert panel.selected == SEAT and (SEAT, "stand") in panel.buttons
        qtbot.mouseClick(panel.buttons[(SEAT, "stand")], Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: panel.selected == "t2" and ("t2", "stand") in panel.buttons, timeout=15000)
        qtbot.mouseClick(panel.buttons[("t2", "stand")], Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: controller.expectation().kind == "card", timeout=15000)
        table.deal(1)  # 8C: the dealer's 17
        qtbot.waitUntil(lambda: controller.concluded, timeout=15000)
        decisions = [(e["player"], e["action"]) for e in table.screen.request("state")["events"]
                     if e["type"] == "decision"]
        assert decisions == [(SEAT, "stand"), ("t2", "stand")]
        collect = f"COLLECT {money(Decimal(10))}"  # 16 loses 10 to 17
        qtbot.waitUntil(lambda: collect in box_texts(panel, SEAT) and collect in box_texts(panel, "t2"),
                        timeout=15000)

        # the terminal goes down: its box says so (5.9)
        table.first.close()
        qtbot.waitUntil(lambda: SEAT in panel.states and panel.states[SEAT].text() == "terminal down (5.9)",
                        timeout=15000)
    finally:
        if screen is not None:
            screen.controller.close()
            screen.window.close()
        table.close()
