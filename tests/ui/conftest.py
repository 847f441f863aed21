"""GUI tests: the real window as a client of a real station service (in this process, on the
test's store file), whose driver reads a simulated shoe on a pty (ui/dealer/local_station.py):
the one path a station runs (issue 33).

QT_QPA_PLATFORM=offscreen is set before Qt is imported anywhere.
"""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"

from collections.abc import Callable, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402

from dealer_assist.base.cards import cards  # noqa: E402
from dealer_assist.engine.table_setup import TableSetup  # noqa: E402
from tests.ui.driving import TableDriver  # noqa: E402
from ui.dealer.local_station import LocalStation, start_local_station  # noqa: E402


@pytest.fixture
def make_table(qtbot: Any, tmp_path: Path) -> Iterator[Callable[..., TableDriver]]:
    """The dealer's screen on a station service of its own (ui/dealer/local_station.py)."""
    tables: list[LocalStation] = []

    def make(setup: TableSetup | None, card_text: str, *, db: Path | None = None,
             users: dict[str, tuple[str, list[str]]] | None = None, login: bool = True,
             codec: str = "da1") -> TableDriver:
        table = start_local_station(tmp_path, len(tables), setup, list(cards(card_text)),
                            db=db or tmp_path / "table.db", users=users, login=login, codec=codec)
        tables.append(table)
        qtbot.addWidget(table.window)
        table.window.resize(1600, 1000)
        table.window.show()
        table.window.activateWindow()  # the dealer's screen in front: its keys go to it
        qtbot.waitUntil(table.window.isActiveWindow, timeout=5000)
        driver = TableDriver(qtbot, table)
        driver.wait_ready()
        return driver

    yield make
    for table in tables:
        table.close()
