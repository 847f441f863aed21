"""The setup dialog's limits are exact amounts (money never a float): 0.10 / 12.35 stay
0.10 / 12.35; a value in fractions of a cent, a text that is no amount, or a minimum without
its maximum is refused in the dialog naming the clause of limits (3.6; Electronic 2.2); a
set-up an older version remembered with float limits is read exactly."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.engine.table_setup import SETUP_AUDIT_KIND, TableSetup, setup_from_json
from dealer_assist.store import Store
from ui.dealer.setup_dialog import SetupDialog, remembered_setup


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


def test_an_older_remembered_set_up_with_float_limits_loads_exactly(tmp_path: Path) -> None:
    db = tmp_path / "table.db"
    store = Store.open(db)
    # as an older version wrote it: limits as JSON floats
    store.add_audit(SETUP_AUDIT_KIND, actor="dealer:ann", detail={
        "game": "lucky8", "decks": 6, "areas": 7, "limits": {"main": [0.1, 12.5], "lucky8": [2.35, 99.99]},
        "seated": {"p1": 1}, "terminals": [], "decision_seconds": 20, "chips": [5, 25]})
    store.close()
    setup = remembered_setup(str(db))
    assert setup.limits == {"main": [Decimal("0.10"), Decimal("12.50")],
                            "lucky8": [Decimal("2.35"), Decimal("99.99")]}
    assert setup.seated == {"p1": 1} and setup.chips == [5, 25]  # the rest of it kept too


@pytest.mark.parametrize(("game", "clause"), [("lucky8", "3.6"), ("electronic", "2.2")])
def test_a_remembered_limit_in_fractions_of_a_cent_is_left_out_naming_the_clause(
        tmp_path: Path, game: str, clause: str) -> None:
    db = tmp_path / "table.db"
    store = Store.open(db)
    store.add_audit(SETUP_AUDIT_KIND, actor="dealer:ann", detail={
        "game": game, "decks": 6, "areas": 7, "limits": {"main": [0.1, 12.345], "insurance": [1, 50.5]},
        "seated": {"p1": 1}, "terminals": ["t1"], "decision_seconds": 20, "chips": [5, 25]})
    store.close()
    repairs: list[str] = []
    setup = remembered_setup(str(db), repairs)
    assert setup.game == game and setup.limits == {"insurance": [Decimal(1), Decimal("50.50")]}
    assert setup.chips == [5, 25]  # the rest of the remembered setup kept
    [why] = repairs
    assert "12.345 is not a multiple of 0.01" in why and f"({clause})" in why and "main" in why, why
    assert setup_from_json({"game": "lucky8", "limits": "none"}).limits == {}  # no setup: the default
