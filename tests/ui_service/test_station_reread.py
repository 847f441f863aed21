"""The dealer's screen on the station path offers Re-read for a card the shoe could not read
(5.1: the other ways are a supervisor's key-in and a void), and the service takes the next
card the shoe reads as that card. A real ``station serve`` in process (tests/service/
conftest.py), the simulated shoe on a pty, the real dealer window offscreen.

Lucky 8, the shoe 10S 9H QD 8C (3.18: p1, the dealer, p1): p1 wagers 10 on area 1; 10S to p1,
then the dealer's card comes out unread. Re-read: the shoe reads 9H, the dealer's card (where
it came out); QD is then p1's second card, 10+Q = 20."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from dealer_assist.engine.table_setup import default_setup
from dealer_assist.service.client import ServiceError
from tests.service.conftest import Station
from ui.common.service_link import ServiceLink
from ui.dealer.controller import TableController
from ui.dealer.main_window import DealerWindow


def cards(controller: TableController) -> list[str]:
    return [e["card"] for e in controller.events if e["type"] == "card"]


def test_the_station_screen_shows_reread_for_an_unread_card_and_the_service_takes_the_reading(
        qtbot: Any, station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    link = ServiceLink(s.socket)
    controller = TableController(default_setup(), link)
    window = DealerWindow(controller)
    qtbot.addWidget(window)
    try:
        approval = link.ask("enrol", name="sue", pin="482913")["approval"]
        link.ask("add_account", name="ann", new_pin="730418", roles=["dealer"], approval=approval)
        try:
            link.ask("login", name="ann", pin="730418")
        except ServiceError:  # a first PIN is changed at the first log-in
            link.ask("change_pin", name="ann", old_pin="730418", new_pin="246813")
            link.ask("login", name="ann", pin="246813")
        controller.start_shift("ann")
        controller.read_state()
        window.show()
        status = window.shoe_status
        assert controller.place_wager("p1", "main", 10, 1), controller.last_refusal
        assert controller.no_more_bets(), controller.last_refusal
        s.sim.deal()
        qtbot.waitUntil(lambda: cards(controller) == ["10S"], timeout=10000)
        assert controller.hold_unread == 0 and not status.hold_box.isVisibleTo(window)

        s.sim.noread()  # 9H comes out unread
        qtbot.waitUntil(lambda: status.hold_box.isVisibleTo(window), timeout=10000)
        assert controller.hold_unread == 1  # the service's count, not an in-process shoe event
        assert status.reread_button.isVisibleTo(window) and status.void_button.isVisibleTo(window)
        assert not status.confirm_button.isEnabled()  # a card did come out: "no card missed" is no answer
        assert status.key_button.text() == "Key in card (PIN)"

        qtbot.mouseClick(status.reread_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "re-read: put the unread card through the shoe's reader again (5.1"
                        in status.hold_text.text(), timeout=10000)
        s.sim.reread()  # the same card through the reader: 9H
        qtbot.waitUntil(lambda: not status.hold_box.isVisibleTo(window), timeout=10000)
        assert cards(controller) == ["10S", "9H"] and controller.hold_unread == 0
        s.sim.deal()  # QD: p1's second card (3.18)
        qtbot.waitUntil(lambda: cards(controller) == ["10S", "9H", "QD"], timeout=10000)
        out = controller.output()
        assert out["dealer"]["cards"] == ["9H"] and out["areas"][0]["hands"][0]["total"] == 20

        # nothing unread now: the service refuses, naming 5.1, and the screen says so
        refusals: list[str] = []
        controller.refused.connect(refusals.append)
        assert not controller.reread()
        assert refusals and "nothing to re-read" in refusals[-1] and "(5.1)" in refusals[-1]
    finally:
        controller.close()


def test_the_station_screen_asks_a_supervisors_pin_to_key_in_an_unread_card(qtbot: Any, station: Any) -> None:
    """The other way forward (5.1): the dealer keys in 9H, the screen asks for a supervisor's
    name and PIN (the card came out unread), and the service places it: the dealer's card."""
    s: Station = station("10S 9H QD 8C")
    link = ServiceLink(s.socket)
    controller = TableController(default_setup(), link)
    window = DealerWindow(controller)
    qtbot.addWidget(window)
    try:
        approval = link.ask("enrol", name="sue", pin="482913")["approval"]
        link.ask("add_account", name="ann", new_pin="730418", roles=["dealer"], approval=approval)
        try:
            link.ask("login", name="ann", pin="730418")
        except ServiceError:
            link.ask("change_pin", name="ann", old_pin="730418", new_pin="246813")
            link.ask("login", name="ann", pin="246813")
        controller.start_shift("ann")
        controller.read_state()
        window.show()
        status = window.shoe_status
        assert controller.place_wager("p1", "main", 10, 1), controller.last_refusal
        assert controller.no_more_bets(), controller.last_refusal
        s.sim.deal()
        qtbot.waitUntil(lambda: cards(controller) == ["10S"], timeout=10000)
        s.sim.noread()
        qtbot.waitUntil(lambda: status.hold_box.isVisibleTo(window), timeout=10000)
        status.key_in.setText("9H")
        qtbot.mouseClick(status.key_button, Qt.MouseButton.LeftButton)
        dialog = window.pin_dialog
        assert dialog is not None and dialog.isVisible()
        dialog.name.setText("sue")
        dialog.pin.setText("482913")
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: cards(controller) == ["10S", "9H"], timeout=10000)
        qtbot.waitUntil(lambda: not status.hold_box.isVisibleTo(window), timeout=10000)
        assert controller.output()["dealer"]["cards"] == ["9H"]
    finally:
        controller.close()
