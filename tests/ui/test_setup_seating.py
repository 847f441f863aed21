"""The setup dialog seats players by area (issue 34: no "player=area" text): one name field
per playing area, enabled up to the table's areas; Electronic has no areas to seat."""

from __future__ import annotations

from typing import Any

from dealer_assist.engine.table_setup import TableSetup
from ui.dealer.setup_dialog import SetupDialog


def test_a_name_field_per_area(qtbot: Any) -> None:
    dialog = SetupDialog(TableSetup(game="lucky8", areas=7, seated={"ann": 1, "bob": 3}))
    qtbot.addWidget(dialog)
    assert (dialog.seats[1].text(), dialog.seats[2].text(), dialog.seats[3].text()) == ("ann", "", "bob")
    assert [n for n, f in dialog.seats.items() if f.isEnabled()] == [1, 2, 3, 4, 5, 6, 7]  # the table's seven
    dialog.seats[7].setText(" cat ")
    dialog.seats[1].clear()
    assert dialog.result_setup().seated == {"bob": 3, "cat": 7}
    dialog.areas.setValue(5)  # Lucky 8's fewest (Appendix A): area 7 is gone, cat is not seated
    assert dialog.areas.value() == 5 and not dialog.seats[7].isEnabled()
    assert dialog.result_setup().seated == {"bob": 3}


def test_electronic_seats_nobody(qtbot: Any) -> None:
    dialog = SetupDialog(TableSetup(game="lucky8", seated={"ann": 1}))
    qtbot.addWidget(dialog)
    dialog.game.setCurrentIndex(dialog.game.findData("electronic"))
    assert not any(f.isEnabled() for f in dialog.seats.values()) and dialog.terminals.isEnabled()
    assert dialog.result_setup().seated == {}
