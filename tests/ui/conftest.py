"""GUI tests: the real window, the real driver on a simulated shoe (pty), a real store file.

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
from dealer_assist.store import TEST_PIN_COST, Store  # noqa: E402
from tests.ui.driving import TableDriver  # noqa: E402
from ui.dealer.app import Table, build_table  # noqa: E402


@pytest.fixture
def make_table(qtbot: Any, tmp_path: Path) -> Iterator[Callable[..., TableDriver]]:
    tables: list[Table] = []

    def make(setup: TableSetup, card_text: str, *, db: Path | None = None,
             users: dict[str, tuple[str, list[str]]] | None = None) -> TableDriver:
        db_path = db or tmp_path / "table.db"
        if users:
            store = Store.open(db_path, pin_cost=TEST_PIN_COST)  # cheap hashes for tests
            for name, (pin, roles) in users.items():
                store.create_user(name, pin, roles)
            store.close()
        table = build_table(setup, db=str(db_path), dealer="ann", sim_cards=list(cards(card_text)),
                            sim_link=str(tmp_path / f"shoe{len(tables)}"))
        tables.append(table)
        qtbot.addWidget(table.window)
        table.window.resize(1600, 1000)
        table.window.show()
        driver = TableDriver(qtbot, table)
        driver.wait_ready()
        return driver

    yield make
    for table in tables:
        table.close()
