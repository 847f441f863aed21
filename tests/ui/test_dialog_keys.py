"""Enter in every dialog submits that dialog's default action and never closes the program;
a saved setup that does not fit never stops the start; setup names what is wrong
(issue 24 items 4 and 6)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from PySide6.QtCore import Qt

from dealer_assist.engine.table_setup import TableSetup
from tests.ui.driving import TableDriver
from ui.common.amount_keypad import AmountKeypad
from ui.common.login import PinDialog
from ui.dealer.setup_dialog import SetupDialog

MakeTable = Callable[..., TableDriver]
LUCKY8 = TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1})


def test_enter_after_the_pin_logs_in_and_never_closes_the_window(make_table: MakeTable) -> None:
    t = make_table(LUCKY8, "8H 6D 8S", users={"sue": ("482913", ["supervisor"]), "dee": ("730418", ["dealer"])},
                   login=False)
    shifts = t.table.screen.shifts
    shifts.start()
    t.qtbot.waitUntil(lambda: isinstance(shifts.dialog, PinDialog) and shifts.dialog.isVisible(), timeout=5000)
    login = shifts.dialog
    assert isinstance(login, PinDialog)
    login.name.setText("dee")
    login.pin.setFocus()
    t.qtbot.keyClicks(login.pin, "730418")
    t.qtbot.keyClick(login.pin, Qt.Key.Key_Return)
    t.qtbot.waitUntil(lambda: t.controller.dealer == "dee", timeout=15000)
    assert t.window.isVisible() and not login.isVisible()


def test_enter_in_the_amount_keypad_takes_the_amount(make_table: MakeTable) -> None:
    t = make_table(LUCKY8, "8H 6D 8S")
    t.window.betting.open_keypad()
    pad = t.window.betting.dialog
    assert isinstance(pad, AmountKeypad)
    t.qtbot.waitUntil(pad.isVisible, timeout=2000)
    for key in "75":
        pad.press(key)
    t.qtbot.keyClick(pad, Qt.Key.Key_Return)
    assert not pad.isVisible() and pad.result() == pad.DialogCode.Accepted
    assert t.window.betting.amount == Decimal(75)


def test_setup_names_what_is_wrong_and_enter_never_cancels(make_table: MakeTable) -> None:
    t = make_table(LUCKY8, "8H 6D 8S")
    t.window.open_setup()
    dialog = t.window.setup_dialog
    assert isinstance(dialog, SetupDialog)
    t.qtbot.waitUntil(dialog.isVisible, timeout=2000)
    low, high = dialog.limits["main"]
    low.setText("100")
    high.setText("5")
    t.qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert dialog.isVisible()  # not taken, not cancelled
    assert dialog.problem.text() == ("This setup cannot be used: limits: main minimum 100 is above its "
                                     "maximum 5. Change it, or Cancel.")
    high.setText("500")
    dialog.chips.setText("10, 50, 250")
    t.qtbot.keyClick(dialog, Qt.Key.Key_Return)
    t.qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=2000)
    pin = t.window.pin_dialog  # the station changes the set-up after a supervisor's PIN
    t.qtbot.waitUntil(lambda: pin is not None and pin.isVisible(), timeout=2000)
    pin.name.setText("sue")
    pin.pin.setText("482913")
    t.qtbot.mouseClick(pin.ok_button, Qt.MouseButton.LeftButton)
    t.qtbot.waitUntil(lambda: t.controller.setup.chips == [10, 50, 250], timeout=10000)
    assert t.controller.setup.limits == {"main": [100, 500]}
    assert t.controller.setup.chips == [10, 50, 250]


def test_menus_and_dialog_words_are_readable(make_table: MakeTable) -> None:
    # issue 24: 13 px menus and dialog labels; now at least 17 px (the window's ordinary type)
    from PySide6.QtWidgets import QLabel, QMenu

    t = make_table(LUCKY8, "8H 6D 8S")
    bar = t.window.menuBar()
    bar.ensurePolished()
    assert bar.font().pixelSize() >= 17
    menus = [m for m in t.window.findChildren(QMenu)]
    assert menus
    for menu in menus:
        menu.ensurePolished()
        assert menu.font().pixelSize() >= 17, menu.title()
    t.window.betting.ask_new_player()
    dialog = t.window.betting.dialog
    t.qtbot.waitUntil(dialog.isVisible, timeout=2000)
    sizes = [label.font().pixelSize() for label in dialog.findChildren(QLabel)]
    assert sizes and min(sizes) >= 17
