"""The screen's Setup dialog on a station: a client of the service, it changes the table's
set-up only through op ``set_table`` after a supervisor's PIN (the PIN dialog opens when the
dealer presses OK); a refusal (a wager is on the layout: 3.6) is shown with the service's
words and the set-up stays as it was."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from dealer_assist.service.table import SETUP_CHANGED_KIND
from tests.service.conftest import Station
from ui.common.service_link import ServiceLink


def logged_in_screen(qtbot: Any, s: Station) -> Any:
    from ui.dealer.app import build_client_screen

    s.dealer().close()  # sue enrolled, ann (dealer) and bob (supervisor) added
    link = ServiceLink(s.socket, "screen")
    screen = build_client_screen(link, None, s.socket)
    answers: list[Any] = []
    screen.controller.jobs.log_in("ann", "730418", answers.append)
    qtbot.waitUntil(lambda: bool(answers), timeout=20000)
    assert answers[0].ok, answers[0]
    screen.controller.start_shift("ann")  # what the log-in dialog does (ui.common.accounts.Shifts)
    return screen


def choose_ace_race(qtbot: Any, window: Any) -> None:
    window.open_setup()
    dialog = window.setup_dialog
    dialog.game.setCurrentIndex(dialog.game.findData("ace_race"))
    dialog.areas.setValue(6)
    low, high = dialog.limits["main"]
    low.setText("10")
    high.setText("500")
    dialog.accept()  # OK: checked by the screen's engine, then the supervisor's PIN
    qtbot.waitUntil(lambda: window.pin_dialog is not None and window.pin_dialog.isVisible(), timeout=20000)


def supervisor_pin(qtbot: Any, window: Any, user: str, pin: str) -> None:
    dialog = window.pin_dialog
    dialog.name.setText(user)
    dialog.pin.setFocus()
    dialog.pin.setText(pin)
    QTest.keyClick(dialog.pin, Qt.Key.Key_Return)


def test_the_setup_dialog_changes_the_game_through_the_service_after_the_pin(qtbot: Any, station: Any) -> None:
    s: Station = station("10S 9H")
    screen = logged_in_screen(qtbot, s)
    controller, window = screen.controller, screen.window
    try:
        assert controller.config["game"] == "lucky8" and controller.setup_approval == "setup"
        choose_ace_race(qtbot, window)
        pin = window.pin_dialog
        supervisor_pin(qtbot, window, "bob", "000000")  # wrong: refused, nothing changed
        qtbot.waitUntil(lambda: pin.message.text().startswith("Wrong"), timeout=20000)
        assert controller.config["game"] == "lucky8"
        pin.reject()  # the supervisor cancels: the set-up stays as it was
        assert controller.config["game"] == "lucky8"
        assert s.running is not None and s.running.store.audit_entries(kind=SETUP_CHANGED_KIND) == []

        choose_ace_race(qtbot, window)
        supervisor_pin(qtbot, window, "bob", "551903")
        qtbot.waitUntil(lambda: controller.config.get("game") == "ace_race", timeout=20000)
        assert controller.config["areas"] == 6 and controller.config["limits"] == {"main": [10, 500]}
        assert controller.setup.game == "ace_race" and controller.setup.areas == 6
        [entry] = s.running.store.audit_entries(kind=SETUP_CHANGED_KIND)
        assert entry.actor == "supervisor:bob" and entry.detail["changes"]["game"] == ["lucky8", "ace_race"]

        # a wager on the layout: the service refuses the change naming 3.6, the set-up stays
        assert controller.place_wager("p1", "main", 10, 1), controller.last_refusal
        window.open_setup()
        dialog = window.setup_dialog
        dialog.game.setCurrentIndex(dialog.game.findData("lucky8"))
        dialog.areas.setValue(7)
        dialog.accept()
        qtbot.waitUntil(lambda: window.pin_dialog is not None and window.pin_dialog.isVisible(), timeout=20000)
        supervisor_pin(qtbot, window, "bob", "551903")
        qtbot.waitUntil(lambda: "between rounds" in controller.last_refusal, timeout=20000)
        assert controller.last_refusal.endswith("(3.6)"), controller.last_refusal
        assert controller.config["game"] == "ace_race" and len(s.running.store.audit_entries(
            kind=SETUP_CHANGED_KIND)) == 1
    finally:
        controller.close()
        window.close()


def test_limits_in_cents_typed_in_the_dialog_reach_the_service_exactly(qtbot: Any, station: Any) -> None:
    from decimal import Decimal

    s: Station = station("10S 9H")
    screen = logged_in_screen(qtbot, s)
    controller, window = screen.controller, screen.window
    try:
        window.open_setup()
        dialog = window.setup_dialog
        low, high = dialog.limits["main"]
        low.setText("0.10")
        high.setText("12.35")
        dialog.accept()
        qtbot.waitUntil(lambda: window.pin_dialog is not None and window.pin_dialog.isVisible(), timeout=20000)
        supervisor_pin(qtbot, window, "bob", "551903")
        qtbot.waitUntil(lambda: bool(controller.config.get("limits")), timeout=20000)
        assert s.running is not None
        assert s.running.service.setup.limits == {"main": [Decimal("0.10"), Decimal("12.35")]}
        assert controller.config["limits"] == {"main": [Decimal("0.1"), Decimal("12.35")]}
        assert controller.setup.limits == {"main": [Decimal("0.10"), Decimal("12.35")]}
        assert all(type(v) is Decimal for v in controller.setup.limits["main"])
    finally:
        controller.close()
        window.close()
