"""The floor service (issue 35, item 1): ``dealer-assist floor serve`` started as systemd would,
with no pit window open, on a real server. Short intervals for the test (pass every 0.5 s, link
down after 3 s without a heartbeat); the defaults are 10 s and 30 s.

- BJ-07 plays a round and its station goes silent: link down is raised (within the 60 s the
  issue allows: here within seconds), by the service, with nobody looking.
- BJ-08 closes on schedule: its session ends (the session_end entry is forwarded) and its station
  goes off: no link down, no pace alert — the state file lists it as closed.
- BJ-09's session began two hours ago, it played two rounds then, and its station still beats:
  it has a pace, 0 rounds in the last hour (under 30): a pace alert. BJ-07, a table whose
  session began now, has no pace yet: none for it.
- A round of BJ-09 changed on the floor after it was forwarded (its house net, by someone with
  the administrator's account): verify, run by the service, fails and is raised against BJ-09.
- While PostgreSQL is stopped the service says "floor unreachable" in its own state file and
  log, from outside the database, and says when contact is back.
"""

from __future__ import annotations

import datetime as dt
import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.floor.forward import Forwarder
from dealer_assist.floor.schema import add_station, init_floor, service_role
from tests.floor.conftest import Floor
from tests.floor.helpers import ROOT, query
from tests.floor.pgserver import Server
from tests.floor.stations import make_station, open_station, record_rounds
from tests.floor.test_partitions import recorded_at


@contextmanager
def serving(url: str, tmp: Path, *extra: str) -> Iterator[tuple[Path, Path]]:
    state, log = tmp / "floor-state.json", tmp / "floor.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "dealer_assist", "floor", "serve", "--url", url, "--state", str(state),
         "--log", str(log), "--interval", "0.5", "--stale-after", "3", "--no-win-band", *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        yield state, log
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            _out, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            _out, err = process.communicate()
        assert "Traceback" not in err, err


def _state(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _until(what: Callable[[], bool], timeout: float, between: Callable[[], None] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        if time.monotonic() > deadline:
            raise AssertionError("not within the time")
        if between is not None:
            between()
        time.sleep(0.25)


def test_link_down_is_raised_with_no_window_and_a_table_closed_on_schedule_raises_nothing(
        floor: Floor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    urls = {t: floor.station(t, "PIT-2") for t in ("BJ-07", "BJ-08", "BJ-09")}
    now = dt.datetime.now(dt.UTC)
    # BJ-07: one round just now, then its station falls silent
    make_station(tmp_path / "bj07.db", "BJ-07", "PIT-2", rounds=1)
    # BJ-08: one round, then its session ends on schedule and the station is switched off
    with open_station(tmp_path / "bj08.db") as store:
        store.claim_table("BJ-08", "PIT-2")
        record_rounds(store, 1)
        session = store.current_session()
        assert session is not None
        store.end_session(int(session["id"]))
    # BJ-09: its session and two rounds two hours ago; its station still beats
    with recorded_at(monkeypatch, now - dt.timedelta(hours=2)):
        make_station(tmp_path / "bj09.db", "BJ-09", "PIT-2", rounds=2)
    forwarders = {t: Forwarder(tmp_path / f"{t.lower().replace('-', '')}.db", urls[t]) for t in urls}
    for forwarder in forwarders.values():
        forwarder.forward()
        forwarder.heartbeat(0, None, "up")
    assert query(floor.admin_url, "SELECT table_name FROM floor.audit WHERE kind = 'session_end'") == [("BJ-08",)]
    query(floor.admin_url, "UPDATE floor.rounds SET house_net = house_net - 1 WHERE table_name = 'BJ-09' "
          "AND round_id = 2 RETURNING 1")
    service = floor.server.url(floor.dbname, user=service_role(floor.dbname))
    silent_at = time.monotonic()

    def alerts() -> list[tuple[str, str]]:
        return [(str(t), str(k)) for t, k in query(floor.admin_url,
                                                   "SELECT table_name, kind FROM floor.alerts ORDER BY 1, 2")]

    with serving(service, tmp_path, "--verify-every", "1") as (state, log):
        beat = forwarders["BJ-09"]
        _until(lambda: ("BJ-07", "link_down") in alerts(), 60, lambda: beat.heartbeat(0, None, "up"))
        assert time.monotonic() - silent_at < 60
        # a few passes more: still nothing for the closed table, no pace for a table without one
        passes = _state(state).get("checked_at")
        for _ in range(3):
            _until(lambda before=passes: _state(state).get("checked_at") != before, 30,
                   lambda: beat.heartbeat(0, None, "up"))
            passes = _state(state).get("checked_at")
        assert alerts() == [("BJ-07", "link_down"), ("BJ-09", "pace"), ("BJ-09", "verify_failed")]
        seen = _state(state)
        assert seen["state"] == "ok" and seen["closed"] == ["BJ-08"], seen
        ((detail,),) = query(floor.admin_url, "SELECT detail FROM floor.alerts WHERE kind = 'pace'")
        assert detail == "0 rounds in the last hour (under 30)"
        ((detail,),) = query(floor.admin_url, "SELECT detail FROM floor.alerts WHERE kind = 'verify_failed'")
        assert detail.startswith("verify failed: ") and "round 2" in detail, detail
        assert "verify failed" in log.read_text()
        ((raised_by,),) = query(floor.admin_url, "SELECT DISTINCT raised_by FROM floor.alerts")
        assert raised_by == service_role(floor.dbname)
    for forwarder in forwarders.values():
        forwarder.close()


def test_floor_unreachable_is_said_from_outside_the_database(tmp_path: Path) -> None:
    server = Server()
    try:
        db = server.create_database()
        admin = server.url(db)
        init_floor(admin)
        add_station(admin, "BJ-07", "PIT-2")
        with serving(server.url(db, user=service_role(db)), tmp_path) as (state, log):
            _until(lambda: _state(state).get("state") == "ok", 60)
            contact = _state(state)["last_contact"]
            server.halt()
            _until(lambda: _state(state).get("state") == "unreachable", 60)
            down = _state(state)
            assert down["last_contact"] >= contact and down["since"] > down["last_contact"], down
            assert down["error"], down
            assert "floor unreachable since " in log.read_text()
            server.start()
            _until(lambda: _state(state).get("state") == "ok", 60)
            assert "floor reachable again at " in log.read_text()
            assert _state(state)["last_contact"] > down["since"]
    finally:
        server.stop()
