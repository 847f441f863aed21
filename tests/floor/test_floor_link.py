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


def test_the_station_service_forwards_to_the_configured_floor_service(floor: Floor, tmp_path: Path) -> None:
    """No --floor: the station configuration's [floor] service (docs/station.md) is the link, and
    the station service forwards (issue 23: the screen is its client and forwards nothing). The
    service (host, database, the station's role) is in the pg_service.conf that PGSERVICEFILE
    names, as libpq reads it; nothing of the connection is on the command line."""
    import subprocess
    import sys
    import time

    from dealer_assist.service import station
    from dealer_assist.service.client import ServiceClient

    url = floor.station("BJ-07", "PIT-2")
    role = station_role(floor.dbname, "BJ-07")
    assert url.startswith(f"postgresql://{role}@")
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    store = state / "table.db"
    make_station(store, "BJ-07", "PIT-2", rounds=3)
    services = tmp_path / "pg_service.conf"
    services.write_text(f"[pit2-floor]\nhost={floor.server.socket_dir}\nuser={role}\ndbname={floor.dbname}\n")
    config = tmp_path / "station.toml"
    config.write_text(f'[table]\nname = "BJ-07"\npit = "PIT-2"\ngame = "ace_race"\n'
                      f'[store]\npath = "{store}"\n[floor]\nservice = "pit2-floor"\n')
    env = {k: v for k, v in os.environ.items() if k not in ("DEALER_ASSIST_DEV", station.CONFIG_ENV)}
    env.update({"HOME": str(tmp_path), "PGSERVICEFILE": str(services)})
    sock = tmp_path / "run" / "station.sock"
    serve = [sys.executable, "-m", "dealer_assist", "station", "serve", "--config", str(config),
             "--state-dir", str(state), "--socket", str(sock), "--log-dir", str(tmp_path / "log")]
    checkout = Path(__file__).resolve().parents[2]
    # The store was made here, not by this service: it has rounds and no rollback anchor, so
    # the service's first start refuses to open the table (issue 39, trust at start) until a
    # technician acknowledges it, as on a station whose store was brought from elsewhere.
    first = subprocess.Popen(serve, cwd=checkout, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert first.stdout is not None
    assert first.stdout.readline().startswith("serving on"), first.communicate()
    first.terminate()
    first.communicate(timeout=60)
    ack = subprocess.run([sys.executable, "-m", "dealer_assist", "station", "acknowledge", "--config", str(config),
                          "--state-dir", str(state), "--by", "tech"], cwd=checkout, env=env,
                         capture_output=True, text=True, timeout=60)
    assert ack.returncode == 0 and "anchor" in ack.stdout, (ack.stdout, ack.stderr)
    proc = subprocess.Popen(serve, cwd=checkout, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        rounds: list[tuple[str, int]] = []
        while time.monotonic() < deadline and len(rounds) < 3:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.5)
            with psycopg.connect(floor.admin_url) as conn:
                rounds = [(str(t), int(r)) for t, r in conn.execute(
                    "SELECT table_name, round_id FROM floor.rounds ORDER BY round_id").fetchall()]
        assert rounds == [("BJ-07", 1), ("BJ-07", 2), ("BJ-07", 3)]
        # what a screen would show in its status bar: the service's floor state
        client = ServiceClient(sock, "screen")
        try:
            deadline = time.monotonic() + 30
            text = ""
            while time.monotonic() < deadline and text != "floor: forwarded up to round 3":
                text = str((client.request("state").get("floor") or {}).get("text", ""))
                time.sleep(0.2)
        finally:
            client.close()
        assert text == "floor: forwarded up to round 3"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


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
