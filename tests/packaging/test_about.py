"""Help > About: the version pyproject.toml gives, the running engine, the licence note, the five games."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import tomllib  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtGui import QTextDocument  # noqa: E402
from PySide6.QtWidgets import QMainWindow  # noqa: E402

import dealer_assist.engine.table  # noqa: E402
from ui.common.about import AboutDialog, add_about_action, engine_label  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.gui


def shown_text(dialog: AboutDialog) -> str:
    doc = QTextDocument()
    doc.setHtml(dialog.text.text())
    return doc.toPlainText()


def test_about_box_shows_pyproject_version_licence_and_games(qtbot: Any) -> None:
    with open(ROOT / "pyproject.toml", "rb") as f:
        version = tomllib.load(f)["project"]["version"]
    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    text = shown_text(dialog)
    assert dialog.windowTitle() == "About Dealer Assist"
    assert f"Version {version}\n" in text
    # The engine that runs here: the test suite imports the sources, so pure Python; under
    # PYTHONPATH=build/compiled it would be the compiled one.
    compiled = dealer_assist.engine.table.__file__.endswith((".so", ".pyd"))
    engine = "compiled (mypyc)" if compiled else "pure Python"
    assert f"\nrules engine: {engine}\n" in text
    # pyproject: license = "LicenseRef-Proprietary" (SPDX), shown without the LicenseRef- prefix
    assert "Licence: Proprietary." in text
    assert "LGPL-3.0" in text  # the bundled Qt's licence must be stated
    # The five rule documents' titles (../shared/rules/*.txt), one line each.
    games = text.split("Games\n", 1)[1].split("\nLicence", 1)[0].split("\n")
    assert sorted(games) == ["Blackjack Ace Race", "Blackjack Lucky 8", "Dueling 8's 21+",
                             "Electronic Blackjack", "Star Elements Blackjack"]


def test_engine_label_names_a_compiled_module_compiled() -> None:
    assert engine_label("/b/compiled/dealer_assist/table.cpython-311-x86_64-linux-gnu.so") == "compiled (mypyc)"
    assert engine_label(r"C:\app\_internal\dealer_assist\table.cp311-win_amd64.pyd") == "compiled (mypyc)"
    assert engine_label("/work/main/dealer_assist/engine/table.py") == "pure Python"
    assert engine_label("/app/_internal/dealer_assist/table.pyc") == "pure Python"


def test_help_menu_opens_the_about_box(qtbot: Any) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    action = add_about_action(window)
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus == ["&Help"]
    assert window.menuBar().actions()[0].menu().actions() == [action]
    assert window.findChild(AboutDialog) is None
    action.trigger()
    dialog = window.findChild(AboutDialog)
    assert dialog is not None and dialog.isVisible()
    dialog.reject()
    qtbot.waitUntil(lambda: window.findChild(AboutDialog) is None)  # deleted on close


def test_dealer_window_has_the_about_action(qtbot: Any, tmp_path: Any) -> None:
    from ui.dealer.local_station import start_local_station

    table = start_local_station(tmp_path, 0, None, [], db=tmp_path / "table.db")  # the station's screen
    qtbot.addWidget(table.window)
    try:
        help_menu = [a for a in table.window.menuBar().actions() if a.text() == "&Help"]
        assert len(help_menu) == 1
        assert [a.text() for a in help_menu[0].menu().actions()] == ["&About Dealer Assist"]
    finally:
        table.close()
