"""The About box: name, version, licence note, the games this build knows and which
rules engine runs.

The version is ``dealer_assist.__version__``, which reads the installed package metadata,
so pyproject.toml stays the one place it is written. The frozen build ships that
metadata (packaging/dealer-assist.spec, ``copy_metadata``), so it shows the same number.

The engine is the one compiled with mypyc (scripts/compile_engine.py; what the app and the
build run when the compile succeeded) or the pure-Python one; they behave the same.
"""

from __future__ import annotations

import html
import platform
from importlib import metadata

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMainWindow,
    QVBoxLayout,
    QWidget,
)

import dealer_assist.engine.table
from dealer_assist import __version__
from dealer_assist.games import GAMES

APP_NAME = "Dealer Assist"

# Libraries shipped inside the installable build, with their licences (for the notice).
THIRD_PARTY = (
    ("Qt 6 and PySide6", "LGPL-3.0"),
    ("pyserial", "BSD-3-Clause"),
    ("sqlite-utils", "Apache-2.0"),
    ("platformdirs", "MIT"),
    ("Python", "PSF-2.0"),
)


def licence() -> str:
    """The project's licence as its metadata states it: pyproject's SPDX ``license`` string
    (``License-Expression``; ``LicenseRef-Proprietary`` is shown as "Proprietary")."""
    try:
        meta = metadata.metadata("dealer-assist")
        values = meta.get_all("License-Expression") or meta.get_all("License") or []
    except metadata.PackageNotFoundError:  # a source tree that was not installed
        values = []
    text = values[0] if values else "LicenseRef-Proprietary"
    return text.removeprefix("LicenseRef-")


def game_names() -> list[str]:
    """The games the rules engine implements, by their rule documents' titles."""
    return [rules.name for rules in GAMES.values()]


def engine_label(module_file: str | None = None) -> str:
    """Which rules engine runs: "compiled (mypyc)" when dealer_assist.engine.table (one of the
    modules mypyc compiles) was imported from an extension module, else "pure Python"."""
    path = dealer_assist.engine.table.__file__ if module_file is None else module_file
    return "compiled (mypyc)" if (path or "").endswith((".so", ".pyd")) else "pure Python"


def about_html() -> str:
    games = "".join(f"<li>{html.escape(name)}</li>" for name in game_names())
    parts = ", ".join(f"{html.escape(name)} ({lic})" for name, lic in THIRD_PARTY)
    return (
        f"<h2>{APP_NAME}</h2>"
        f"<p>Version {html.escape(__version__)}<br>rules engine: {engine_label()}</p>"
        "<p>Dealer assistant for live blackjack tables: reads the card shoe, tracks every "
        "wager, decision and settlement, and cites the casino's rule clause for every ruling.</p>"
        f"<p><b>Games</b></p><ul>{games}</ul>"
        f"<p><b>Licence:</b> {html.escape(licence())}. Not for redistribution outside the "
        "licensed casino.</p>"
        f"<p><small>Includes {parts}. Qt and PySide6 are used under the LGPL-3.0; their "
        "source is available from https://www.qt.io/.<br>"
        f"PySide6 {html.escape(pyside_version)}, Python {html.escape(platform.python_version())}"
        "</small></p>"
    )


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"About {APP_NAME}")
        layout = QVBoxLayout(self)
        self.text = QLabel(about_html())
        self.text.setWordWrap(True)
        self.text.setMinimumWidth(520)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.setSizeConstraint(QVBoxLayout.SizeConstraint.SetFixedSize)  # the whole text, wrapped
        layout.addWidget(self.text)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)


def show_about(parent: QWidget) -> AboutDialog:
    """Open the About box over ``parent`` (window-modal; closes with its button or Esc)."""
    dialog = AboutDialog(parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


def add_about_action(window: QMainWindow) -> QAction:
    """Put "Help > About Dealer Assist" in ``window``'s menu bar; returns the action."""
    menu = window.menuBar().addMenu("&Help")
    action = QAction(f"&About {APP_NAME}", window)
    action.setMenuRole(QAction.MenuRole.AboutRole)

    action.triggered.connect(lambda: show_about(window))
    menu.addAction(action)
    return action
