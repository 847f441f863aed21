"""The service forwards the table's rounds to the floor itself, under the station's table
name, with no screen involved (a throwaway PostgreSQL server, as in tests/floor); the
floor's last round is the second rollback anchor."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import psycopg
import pytest

from tests.floor.conftest import Floor, floor, floor_db, pg_server  # noqa: F401 - fixtures
from tests.service.conftest import Station, make_shoe, wait_connected


def test_the_service_forwards_its_rounds_to_the_floor(floor: Floor, tmp_path: Path,  # noqa: F811
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    url = floor.station("BJ-07", "PIT-2")
    role = url.split("://", 1)[1].split("@", 1)[0]
    services = tmp_path / "pg_service.conf"
    services.write_text(f"[pit2-floor]\nhost={floor.server.socket_dir}\nuser={role}\ndbname={floor.dbname}\n")
    monkeypatch.setenv("PGSERVICEFILE", str(services))
    config = tmp_path / "station.toml"
    config.write_text('[table]\nname = "BJ-07"\npit = "PIT-2"\ngame = "lucky8"\n[floor]\nservice = "pit2-floor"\n')
    s = Station(tmp_path / "state", tmp_path / "run" / "s.sock", make_shoe("10S 9H QD 8C"), config=str(config))
    old = tmp_path / "old"
    try:
        s.start()
        wait_connected(s)
        c = s.dealer()
        s.stop()  # a copy of the store before the round (accounts only)
        old.mkdir()
        for f in s.state.glob("table.db*"):
            shutil.copy2(f, old / f.name)
        s.start()
        wait_connected(s)
        c = s.dealer()
        c.request("wager", player="p1", bet="main", amount=10, area=1)
        s.deal(c, 3)
        c.request("decide", action="stand", area=1, hand=1, player="p1")
        state = s.deal(c, 1)
        rid = state["round_id"]
        assert state["output"]["net"] == {"p1": 10}  # 20 against the dealer's 17 (4.3.2)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            link = c.request("state")["floor"] or {}
            if (link.get("forwarded_up_to") or 0) >= rid:
                break
            time.sleep(0.2)
        assert (link.get("forwarded_up_to") or 0) >= rid, link
        s.stop()
        # the older copy put back, the anchor and the head file gone: the floor still knows
        for f in old.iterdir():
            shutil.copy2(f, s.state / f.name)
        (s.state / "round-anchor").unlink()
        (s.state / "table.db.key.head").unlink()
        s.start()
        state = s.client().request("state")
        assert f"the floor holds round {rid} of BJ-07" in state["refused"]
    finally:
        s.stop()
        s.sim.close()
    with psycopg.connect(floor.admin_url) as conn:
        rows = conn.execute("SELECT table_name, round_id FROM floor.rounds ORDER BY round_id").fetchall()
    assert rows == [("BJ-07", rid)]


def test_the_forwarders_password_file_is_the_services_alone_and_escaped(tmp_path: Path) -> None:
    """floor.secret's password as libpq's password file (PGPASSFILE), 0600; ':' and '\\' escaped
    as libpq reads them (a password with both still matches the one line)."""
    from dealer_assist.service.forwarding import floor_passfile

    path = floor_passfile(tmp_path, "pa:ss\\word")
    assert path.read_text() == "*:*:*:*:pa\\:ss\\\\word\n"
    assert path.stat().st_mode & 0o777 == 0o600
    path.chmod(0o644)
    floor_passfile(tmp_path, "other")  # written again at every start, owner-only again
    assert path.read_text() == "*:*:*:*:other\n" and path.stat().st_mode & 0o777 == 0o600
