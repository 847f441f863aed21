"""The dealer's app forwarding in the background (ui/dealer/floor_link.py): a real QThread, a real
server, the status widget's text as the dealer sees it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import psycopg  # noqa: E402
import pytest  # noqa: E402

from dealer_assist.floor.schema import station_role  # noqa: E402
from tests.floor.conftest import Floor  # noqa: E402
from tests.floor.stations import DOCUMENTS, make_station, open_station, record_rounds  # noqa: E402

pytestmark = pytest.mark.gui


def test_the_link_forwards_goes_offline_and_catches_up(floor: Floor, tmp_path: Path, qtbot: Any) -> None:
    from PySide6.QtWidgets import QMainWindow

    from ui.dealer.floor_link import FloorLink

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
        with open_station(db) as store:  # the table plays on while the floor is away
            record_rounds(store, 3)
        # the server answers and refuses the account: misconfigured, not a link that is down
        qtbot.waitUntil(lambda: link.widget.text().startswith("floor: misconfigured — ")
                        and "is not permitted to log in" in link.widget.text()
                        and link.widget.text().endswith("; 3 rounds waiting"), timeout=30000)
        assert link.widget.state is not None and link.widget.state.condition == "misconfigured"
        assert link.widget.state.offline_since is None
        with psycopg.connect(floor.admin_url, autocommit=True) as conn:
            conn.execute(f'ALTER ROLE "{role}" LOGIN')
        qtbot.waitUntil(lambda: link.widget.text() == f"floor: forwarded up to round {len(DOCUMENTS) + 3}",
                        timeout=30000)
    finally:
        link.stop()
    assert not link.is_running()


# The real dealer's app in its own process: waits (up to a minute) for the floor link's line
# in the status bar to report the forwarded rounds, then quits and prints what it saw.
APP = """
import json, sys, time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from dealer_assist.cli import main

seen = {"link": None}
began = time.monotonic()

def look():
    from ui.dealer.floor_link import FloorLinkStatus
    from ui.dealer.main_window import DealerWindow
    windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, DealerWindow)]
    link = windows[0].statusBar().findChild(FloorLinkStatus) if windows else None
    seen["link"] = link.text() if link is not None else None
    if (seen["link"] or "").startswith("floor: forwarded up to round") or time.monotonic() - began > 60:
        QApplication.instance().quit()
    else:
        QTimer.singleShot(100, look)

app = QApplication(sys.argv[:1])
QTimer.singleShot(100, look)
status = main(sys.argv[1:])
print(json.dumps({"exit": status, **seen}))
"""


def test_the_app_forwards_to_the_configured_floor_service(floor: Floor, tmp_path: Path) -> None:
    """No --floor: the station configuration's [floor] service (docs/station.md) is the link.
    The service (host, database, the station's role) is in the pg_service.conf that
    PGSERVICEFILE names, as libpq reads it; nothing of the connection is on the command line."""
    import json
    import subprocess
    import sys

    from dealer_assist.service import station

    url = floor.station("BJ-07", "PIT-2")
    role = station_role(floor.dbname, "BJ-07")
    assert url.startswith(f"postgresql://{role}@")
    store = tmp_path / "bj07.db"
    make_station(store, "BJ-07", "PIT-2", rounds=3)
    services = tmp_path / "pg_service.conf"
    services.write_text(f"[pit2-floor]\nhost={floor.server.socket_dir}\nuser={role}\ndbname={floor.dbname}\n")
    config = tmp_path / "station.toml"
    config.write_text(f'[table]\nname = "BJ-07"\npit = "PIT-2"\ngame = "ace_race"\n'
                      f'[store]\npath = "{store}"\n[floor]\nservice = "pit2-floor"\n')
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path),
           "XDG_STATE_HOME": str(tmp_path / "state"), station.CONFIG_ENV: str(config),
           "PGSERVICEFILE": str(services), "DEALER_ASSIST_DEV": "1"}
    done = subprocess.run([sys.executable, "-c", APP, "--dealer", "ann"], cwd=Path(__file__).resolve().parents[2],
                          env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen == {"exit": 0, "link": "floor: forwarded up to round 3"}
    with psycopg.connect(floor.admin_url) as conn:
        assert conn.execute("SELECT table_name, round_id FROM floor.rounds ORDER BY round_id").fetchall() == [
            ("BJ-07", 1), ("BJ-07", 2), ("BJ-07", 3)]


def test_the_floor_link_is_floor_option_else_the_configured_service(tmp_path: Path) -> None:
    from dealer_assist.service import station

    path = tmp_path / "station.toml"
    path.write_text('[table]\nname = "BJ-07"\n[floor]\nservice = "pit2-floor"\n')
    configured = station.load_config(path)
    path.write_text('[table]\nname = "BJ-07"\n')
    unconfigured = station.load_config(path)
    assert station.floor_url(configured) == "service=pit2-floor"
    assert station.floor_url(configured, "service=other") == "service=other"  # --floor URL overrides
    assert station.floor_url(unconfigured) is None and station.floor_url(None) is None
    assert station.floor_url(None, "postgresql://floor.example/floor") == "postgresql://floor.example/floor"
