"""``dealer-assist floor serve`` on a floor whose pits read a hot standby (issue 35, items 1 and
6), on a real primary and a real standby (``pg_basebackup -R``; tests/floor/pgserver.py), the
real command as a subprocess (tests/floor/test_floor_serve.py's ``serving``: a pass every 0.5 s;
here link down after 5 s without a heartbeat).

The service judges and raises every alert on the primary and only watches the standby:

- with the standby's replay paused, BJ-08's station beats on the primary while the standby shows
  its heartbeat older than the 5 s (as a standby behind does); BJ-07's station is silent. The
  service raises link down for BJ-07 only — read on the standby it would raise it for BJ-08 as
  well — and so does a pit reading that standby when it checks the alerts (the links read on
  the primary). The state file shows the standby behind; once replay resumes, a pit reading
  the standby sees the service's alert;
- the standby stopped: the service goes on (state ``ok``), says the standby is unreachable in
  its state file and log, and raises link down for BJ-08 when its station falls silent; the
  standby back, it says so, and the pit reading it sees both alerts;
- ``--url`` naming the standby is refused in one line (no alert could be written there).
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

from dealer_assist.floor.forward import Forwarder
from dealer_assist.floor.reader import FloorReader
from dealer_assist.floor.schema import add_station, init_floor, review_role, service_role
from tests.floor.helpers import cli, query
from tests.floor.pgserver import Server
from tests.floor.stations import make_station
from tests.floor.test_floor_serve import serving

STALE = 5  # --stale-after, seconds


def state_of(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def until(what: Callable[[], bool], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        if time.monotonic() > deadline:
            raise AssertionError("not within the time")
        time.sleep(0.25)


def passes(state: Path, count: int) -> None:
    """Wait for ``count`` more passes of the service (its state file's checked_at changes)."""
    for _ in range(count):
        before = state_of(state).get("checked_at")
        until(lambda was=before: state_of(state).get("checked_at") not in (None, was))


def replay(standby: Server, action: str) -> None:
    with psycopg.connect(standby.url(), autocommit=True) as conn:
        conn.execute(f"SELECT pg_wal_replay_{action}()")


def test_floor_serve_raises_on_the_primary_and_a_pit_on_the_standby_sees_it(
        servers: tuple[Server, Server], tmp_path: Path) -> None:
    primary, standby = servers
    dbname = primary.create_database()
    admin = primary.url(dbname)
    init_floor(admin)
    forwarders: dict[str, Forwarder] = {}
    paused = halted = False
    silent = threading.Event()
    try:
        for table in ("BJ-07", "BJ-08"):
            make_station(tmp_path / f"{table}.db", table, "PIT-2", rounds=1)
            forwarders[table] = Forwarder(tmp_path / f"{table}.db",
                                          primary.url(dbname, user=add_station(admin, table, "PIT-2").role))
            assert forwarders[table].forward().rounds == 1
            forwarders[table].heartbeat(0, None, "up")
        service, review = service_role(dbname), review_role(dbname)
        standby.wait_replayed(primary)

        # BJ-08's station beats every 0.5 s on a thread of its own (its forwarder used there
        # only) until it falls silent; BJ-07's is silent from now on
        failures: list[BaseException] = []

        def station_beats() -> None:
            try:
                while not silent.wait(0.5):
                    forwarders["BJ-08"].heartbeat(0, None, "up")
            except BaseException as err:  # reported below
                failures.append(err)

        beating = threading.Thread(target=station_beats, daemon=True)
        beating.start()

        def alerts(url: str = admin) -> list[tuple[str, str, str]]:
            return [(str(t), str(k), str(r)) for t, k, r in query(
                url, "SELECT table_name, kind, raised_by FROM floor.alerts ORDER BY 1, 2")]

        with serving(primary.url(dbname, user=service), tmp_path, "--read-url", standby.url(dbname, user=service),
                     "--stale-after", str(STALE), "--verify-every", "0", "--no-protect") as (state, log):
            until(lambda: state_of(state).get("standby", {}).get("state") == "ok")
            assert state_of(state)["state"] == "ok"

            # the standby stops replaying: it shows BJ-08's heartbeat as it was, older and older
            replay(standby, "pause")
            paused = True
            pit = FloorReader(primary.url(dbname, user=review), standby.url(dbname, user=review))
            try:
                def stale_on_standby() -> bool:
                    seen = {t.table: t.heartbeat_at for t in pit.live()}["BJ-08"]
                    return seen is not None and dt.datetime.now(dt.UTC) - seen > dt.timedelta(seconds=STALE + 1)

                until(stale_on_standby)
                until(lambda: ("BJ-07", "link_down", service) in alerts())
                passes(state, 3)  # BJ-08 stale on the standby for three passes more
                # BJ-07 silent on the primary: raised; BJ-08 beating there: nothing, whatever the standby says
                assert alerts() == [("BJ-07", "link_down", service)]
                watched = state_of(state)["standby"]
                assert watched["state"] == "ok" and watched["behind_bytes"] > 0, watched
                assert watched["lag"].startswith("standby ") and " behind (" in watched["lag"], watched
                # the pit reading the paused standby: the alert not replayed yet, the lag shown
                assert pit.alerts() == []
                lag = pit.replica_lag()
                assert lag is not None and " behind (" in lag.text()
                # its own check reads the links on the primary: no link down for BJ-08 either
                # (window 0: no win band, no par sheet worked out: this check is about the links)
                made = pit.check_alerts("PIT-2", stale_after=dt.timedelta(seconds=STALE), window=dt.timedelta(0))
                assert made == [], query(admin, "SELECT table_name, kind, detail FROM floor.alerts")
                assert alerts() == [("BJ-07", "link_down", service)]

                replay(standby, "resume")
                paused = False
                standby.wait_replayed(primary)
                assert [(a.table, a.kind) for a in pit.alerts()] == [("BJ-07", "link_down")]
                assert alerts(standby.url(dbname)) == [("BJ-07", "link_down", service)]
            finally:
                pit.close()

            # the standby stopped: the service goes on, on the primary
            standby.halt()
            halted = True
            until(lambda: state_of(state).get("standby", {}).get("state") == "unreachable")
            down = state_of(state)
            assert down["state"] == "ok" and down["standby"]["error"], down
            assert " unreachable since " in log.read_text() and "alerts go on being judged and raised on the " \
                "primary" in log.read_text()
            # BJ-08's station falls silent now
            silent.set()
            beating.join(timeout=30)
            assert not failures, failures
            until(lambda: ("BJ-08", "link_down", service) in alerts())
            passes(state, 2)
            assert state_of(state)["state"] == "ok"
            assert state_of(state)["standby"]["state"] == "unreachable"

            standby.start()
            halted = False
            until(lambda: state_of(state).get("standby", {}).get("state") == "ok")
            assert " reachable again at " in log.read_text()
        standby.wait_replayed(primary)
        with FloorReader(primary.url(dbname, user=review), standby.url(dbname, user=review)) as pit:
            assert pit.reads_standby
            assert [(a.table, a.kind) for a in pit.alerts()] == [("BJ-08", "link_down"), ("BJ-07", "link_down")]
    finally:
        silent.set()
        if halted:
            standby.start()
        if paused:
            replay(standby, "resume")
        for forwarder in forwarders.values():
            forwarder.close()
        primary.drop_database(dbname)


def test_floor_serve_refuses_a_standby_as_its_url_and_a_read_url_with_a_password(
        servers: tuple[Server, Server], tmp_path: Path) -> None:
    primary, standby = servers
    dbname = primary.create_database()
    try:
        init_floor(primary.url(dbname))
        standby.wait_replayed(primary)
        state = tmp_path / "state.json"
        done = cli("floor", "serve", "--once", "--url", standby.url(dbname, user=service_role(dbname)),
                   "--state", str(state), "--no-win-band", "--no-protect", "--verify-every", "0")
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stdout + done.stderr
        line = [x for x in done.stdout.splitlines() if "hot standby" in x]
        assert len(line) == 1 and line[0].endswith(
            "is a hot standby (read-only: no alert can be raised there): give --url the primary; the standby "
            "the pits read goes in --read-url"), done.stdout
        assert state_of(state)["state"] == "misconfigured"
        secret = cli("floor", "serve", "--once", "--url", primary.url(dbname, user=service_role(dbname)),
                     "--read-url", standby.url(dbname).replace("@/", ":hunter2@/"), "--state", str(state))
        assert secret.returncode == 2 and "carries a password" in secret.stderr, secret.stderr
        assert "hunter2" not in secret.stderr
    finally:
        primary.drop_database(dbname)


def test_floor_serve_reads_the_standby_from_the_configuration_and_the_flag_overrides_it(
        servers: tuple[Server, Server], tmp_path: Path) -> None:
    """``--config FILE``: the standby watched is the file's ``[floor] read_url`` (as the pit's
    ``review --config``); ``--read-url`` given as well wins. Told apart by what the service finds
    there: the standby is watched as one (``ok``, a lag), the primary named by the flag is no
    standby (``not_standby``)."""
    primary, standby = servers
    dbname = primary.create_database()
    try:
        init_floor(primary.url(dbname))
        standby.wait_replayed(primary)
        service = service_role(dbname)
        config = tmp_path / "station.toml"
        config.write_text(f'[floor]\nread_url = "{standby.url(dbname, user=service)}"\n')
        state = tmp_path / "state.json"
        base = ("floor", "serve", "--once", "--url", primary.url(dbname, user=service), "--state", str(state),
                "--no-win-band", "--no-protect", "--verify-every", "0", "--config", str(config))
        done = cli(*base)
        assert done.returncode == 0, done.stdout + done.stderr
        watched = state_of(state)["standby"]
        assert watched["state"] == "ok" and watched["lag"].startswith("standby "), watched
        # the flag overrides the file: the primary it names is no standby
        done = cli(*base, "--read-url", primary.url(dbname, user=service))
        assert done.returncode == 0, done.stdout + done.stderr
        assert state_of(state)["standby"]["state"] == "not_standby", state_of(state)
        # a file's read_url with a password is refused, in one line, as the pit refuses it
        config.write_text(f'[floor]\nread_url = "{standby.url(dbname).replace("@/", ":hunter2@/")}"\n')
        secret = cli(*base)
        assert secret.returncode == 2 and "floor.read_url carries a password" in secret.stderr, secret.stderr
        assert "hunter2" not in secret.stderr and "Traceback" not in secret.stderr
        # without --config and --read-url nothing is watched
        done = cli(*base[:-2])
        assert done.returncode == 0 and state_of(state).get("standby") is None, state_of(state)
    finally:
        primary.drop_database(dbname)
