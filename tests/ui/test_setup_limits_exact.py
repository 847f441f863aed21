"""The setup dialog's limits are exact amounts (money never a float): 0.10 / 12.35 stay
0.10 / 12.35; a value in fractions of a cent, a text that is no amount, or a minimum without
its maximum is refused in the dialog naming the clause of limits (3.6; Electronic 2.2). (A
set-up an older version remembered with float limits: tests/service/test_table_setup.py.)"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from dealer_assist.engine.table_setup import TableSetup
from ui.dealer.setup_dialog import SetupDialog


def dialog_with(qtbot: Any, game: str, low: str, high: str) -> SetupDialog:
    dialog = SetupDialog(TableSetup(game="lucky8", seated={"p1": 1}))
    qtbot.addWidget(dialog)
    dialog.game.setCurrentIndex(dialog.game.findData(game))
    lo, hi = dialog.limits["main"]
    lo.setText(low)
    hi.setText(high)
    return dialog


def test_cents_stay_exact(qtbot: Any) -> None:
    dialog = dialog_with(qtbot, "ace_race", "0.10", "12.35")
    dialog.accept()
    assert dialog.result() == SetupDialog.DialogCode.Accepted and not dialog.problem.isVisibleTo(dialog)
    setup = dialog.result_setup()
    assert setup.limits == {"main": [Decimal("0.10"), Decimal("12.35")]}
    assert all(type(v) is Decimal for v in setup.limits["main"])
    assert setup.config([])["limits"] == {"main": [Decimal("0.10"), Decimal("12.35")]}


@pytest.mark.parametrize(("game", "low", "high", "clause", "words"), [
    ("lucky8", "0.10", "12.345", "3.6", "12.345 is not a multiple of 0.01"),
    ("dueling8s", "1.001", "50", "3.6", "1.001 is not a multiple of 0.01"),
    ("electronic", "5", "99.999", "2.2", "99.999 is not a multiple of 0.01"),
    ("star_elements", "ten", "50", "3.6", "ten / 50 is not an amount"),
    ("ace_race", "10", "", "3.6", "needs both its minimum and its maximum"),
])
def test_a_limit_that_is_no_amount_in_cents_is_refused_naming_the_clause(
        qtbot: Any, game: str, low: str, high: str, clause: str, words: str) -> None:
    dialog = dialog_with(qtbot, game, low, high)
    dialog.accept()
    assert dialog.result() != SetupDialog.DialogCode.Accepted  # the dialog stays open, entries kept
    text = dialog.problem.text()
    assert words in text and f"({clause})" in text, text
    assert dialog.limits["main"][0].text() == low and dialog.limits["main"][1].text() == high
