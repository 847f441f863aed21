"""Station > Station setup…: a supervisor edits the station's configuration file.

Behind the supervisor PIN (checked by the store, which audits the approval). Saving
writes the TOML file atomically (dealer_assist.service.station.save_config) and records an audit
entry ``station_config`` with every changed setting, old -> new. The shoe, the store and
the table take the new settings at the next start (the dialog says so).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from dealer_assist.games import GAMES
from dealer_assist.service import station
from dealer_assist.service.station import StationConfig, StationError
from ui.common.login import ask_supervisor
from ui.common.screen_fit import ScreenDialog

log = logging.getLogger(__name__)
AUDIT_KIND = "station_config"


def parse_limits(text: str) -> dict[str, tuple[Decimal, Decimal]]:
    """``main=10-500, pair=5-100`` -> limits; StationError naming the bad part."""
    out: dict[str, tuple[Decimal, Decimal]] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        kind, sep, span = part.partition("=")
        low, dash, high = span.partition("-")
        if not sep or not dash or not kind.strip():
            raise StationError(f"limits: write kind=min-max, e.g. main=10-500 (not {part!r})")
        doc = {"table": {"limits": {kind.strip(): [low.strip(), high.strip()]}}}
        out.update(station.parse_config(doc).limits)
    return out


def format_limits(limits: dict[str, tuple[Decimal, Decimal]]) -> str:
    return ", ".join(f"{k}={lo}-{hi}" for k, (lo, hi) in sorted(limits.items()))


def floor_entry(text: str) -> dict[str, str]:
    """The ``[floor]`` table for what the field holds: a URL goes to ``url``, a name to ``service``."""
    text = text.strip()
    return {"url": text} if text.startswith(("postgresql://", "postgres://")) else {"service": text}


class StationSetupDialog(ScreenDialog):
    """The station's settings as a form; ``saved(cfg, changes)`` after a successful save."""

    def __init__(self, cfg: StationConfig, path: Path, supervisor: str,
                 on_saved: Callable[[StationConfig, dict[str, list[Any]]], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Station setup")
        self.cfg = cfg
        self.path = path
        self.supervisor = supervisor
        self._on_saved = on_saved
        layout = QVBoxLayout(self)
        intro = QLabel(f"Configuration file {path}. Changes take effect when Dealer Assist is "
                       "next started; each change is recorded in the audit log.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.table = QLineEdit(cfg.table)
        self.pit = QLineEdit(cfg.pit)
        self.game = QComboBox()
        self.game.addItem("(as last set up at the table)", "")
        for key, rules in GAMES.items():
            self.game.addItem(rules.name, key)
        self.game.setCurrentIndex(max(self.game.findData(cfg.game), 0))
        self.decks = QSpinBox()
        self.decks.setRange(0, 8)
        self.decks.setSpecialValueText("(as set up)")
        self.decks.setValue(cfg.decks or 0)
        self.areas = QSpinBox()
        self.areas.setRange(0, 7)
        self.areas.setSpecialValueText("(as set up)")
        self.areas.setValue(cfg.areas or 0)
        self.limits = QLineEdit(format_limits(cfg.limits))
        self.limits.setPlaceholderText("main=10-500, pair=5-100")
        self.shoe_port = QLineEdit(cfg.shoe_port)
        self.shoe_port.setPlaceholderText("empty: simulated shoe; e.g. /dev/dealer-shoe")
        self.codec = QComboBox()
        for name in station.CODECS:
            self.codec.addItem(name, name)
        self.codec.setCurrentIndex(max(self.codec.findData(cfg.codec), 0))
        self.baud = QSpinBox()
        self.baud.setRange(50, 4_000_000)
        self.baud.setValue(cfg.baud)
        self.store = QLineEdit(cfg.store)
        self.store.setPlaceholderText(str(station.site_data_dir() / station.STORE_NAME))
        # the floor database: a pg_service.conf name or a postgresql:// URL (its password in
        # floor.secret), whichever [floor] holds; saving keeps it where it was
        self.floor = QLineEdit(cfg.floor_database or cfg.floor_service)
        self.floor.setPlaceholderText("PostgreSQL service name or postgresql://user@host/db; empty: none")
        for label, widget in (("Table name", self.table), ("Pit", self.pit), ("Game", self.game),
                              ("Decks", self.decks), ("Playing areas", self.areas), ("Limits", self.limits),
                              ("Shoe port", self.shoe_port), ("Shoe wire format", self.codec),
                              ("Baud", self.baud), ("Store file", self.store), ("Floor database", self.floor)):
            form.addRow(label, widget)
        layout.addLayout(form)
        self.message = QLabel("")
        self.message.setProperty("role", "refusal")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        buttons = QHBoxLayout()
        self.save_button = QPushButton("Save")
        self.save_button.setProperty("role", "confirm")
        self.save_button.clicked.connect(self.save)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        buttons.addWidget(self.save_button)
        buttons.addWidget(cancel)
        layout.addLayout(buttons)

    def entered(self) -> StationConfig:
        """The configuration as entered; StationError names a bad field."""
        doc: dict[str, Any] = {
            "table": {"name": self.table.text(), "pit": self.pit.text(), "game": self.game.currentData()},
            "shoe": {"port": self.shoe_port.text(), "codec": self.codec.currentData(), "baud": self.baud.value()},
            "store": {"path": self.store.text()},
            "floor": floor_entry(self.floor.text()),
        }
        if self.decks.value():
            doc["table"]["decks"] = self.decks.value()
        if self.areas.value():
            doc["table"]["areas"] = self.areas.value()
        cfg = station.parse_config(doc, self.cfg.source)
        # the pit's [floor] read_url is not edited here: kept as it was
        return replace(cfg, limits=parse_limits(self.limits.text()), floor_read_url=self.cfg.floor_read_url)

    def save(self) -> None:
        try:
            new = self.entered()
            if new.store:
                station.check_store_directory(Path(new.store))
            changes = station.config_changes(self.cfg, new)
            if changes:
                station.save_config(new, self.path)
        except StationError as exc:
            self.message.setText(str(exc))
            return
        log.info("station configuration %s changed by %s: %s", self.path, self.supervisor, changes)
        self._on_saved(new, changes)
        self.accept()


def add_station_action(window: QMainWindow, controller: Any, cfg: StationConfig | None, store: Path) -> QAction:
    """Station > Station setup… in the window's menu bar."""
    # the Station menu the log-in flow made (ui/common/accounts.py), else a new one
    menu = next((a.menu() for a in window.menuBar().actions()
                 if a.menu() is not None and a.text().replace("&", "") == "Station"), None)
    if not isinstance(menu, QMenu):
        menu = window.menuBar().addMenu("&Station")
    menu.addSeparator()
    action = QAction("Station setup\u2026", window)
    action.setObjectName("station_setup_action")
    menu.addAction(action)
    current: dict[str, StationConfig] = {"cfg": cfg or StationConfig(source=None)}
    path = cfg.source if cfg is not None and cfg.source is not None else station.config_location(None)[0]

    def open_setup() -> None:
        def approved(name: str, approval: int | None) -> None:
            def saved(new: StationConfig, changes: dict[str, list[Any]]) -> None:
                current["cfg"] = new
                if changes:
                    detail = {"file": str(path), "changes": changes}
                    controller.audit(AUDIT_KIND, detail, actor=f"supervisor:{name}")

            dialog = StationSetupDialog(current["cfg"], path, name, saved, window)
            window.station_setup_dialog = dialog  # type: ignore[attr-defined]  # tests find it
            dialog.open()

        dialog = ask_supervisor(window, controller, "station_setup", "Station setup",
                                "Supervisor PIN required to change the station's setup", approved)
        window.pin_dialog = dialog  # type: ignore[attr-defined]
        dialog.open()

    action.triggered.connect(open_setup)
    window.station_setup_action = action  # type: ignore[attr-defined]
    return action
