"""The dealer's app forwarding in the background (ui/floor_link.py): a real QThread, a real
server, the status widget's text as the dealer sees it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import psycopg  # noqa: E402
import pytest  # noqa: E402

from dealer_assist.floor.schema import station_role  # noqa: E402
from dealer_assist.store import Store  # noqa: E402
from tests.floor.conftest import Floor  # noqa: E402
from tests.floor.stations import DOCUMENTS, make_station, record_rounds  # noqa: E402

pytestmark = pytest.mark.gui


def test_the_link_forwards_goes_offline_and_catches_up(floor: Floor, tmp_path: Path, qtbot: Any) -> None:
    from PySide6.QtWidgets import QMainWindow

    from ui.floor_link import FloorLink

    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=len(DOCUMENTS))
    window = QMainWindow()
    qtbot.addWidget(window)
    link = FloorLink(db, url, interval=0.2, parent=window)
    window.statusBar().addPermanentWidget(link.widget)
    window.show()
    link.start()
    try:
        qtbot.waitUntil(lambda: link.widget.text() == f"floor: forwarded up to round {len(DOCUMENTS)}",
                        timeout=30000)
        role = station_role(floor.dbname, "BJ-07")
        with psycopg.connect(floor.admin_url, autocommit=True) as conn:
            conn.execute(f'ALTER ROLE "{role}" NOLOGIN')
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s", (role,))
        with Store.open(db) as store:  # the table plays on while the floor is away
            record_rounds(store, 3)
        qtbot.waitUntil(lambda: link.widget.text().startswith("floor: offline since ")
                        and link.widget.text().endswith(", 3 rounds waiting"), timeout=30000)
        assert link.widget.state is not None and link.widget.state.offline_since is not None
        with psycopg.connect(floor.admin_url, autocommit=True) as conn:
            conn.execute(f'ALTER ROLE "{role}" LOGIN')
        qtbot.waitUntil(lambda: link.widget.text() == f"floor: forwarded up to round {len(DOCUMENTS) + 3}",
                        timeout=30000)
    finally:
        link.stop()
    assert not link.is_running()
