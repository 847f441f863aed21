"""The connection budget (issue 25, item 6): many stations forward at once through PgBouncer in
transaction mode, capped at a few server connections for the whole floor database. A real
PgBouncer (the Debian package) in front of the test server; skipped, saying so, where the
binary is not installed."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from dealer_assist.floor.forward import Forwarder
from dealer_assist.floor.schema import station_role
from tests.floor.conftest import Floor
from tests.floor.helpers import query
from tests.floor.stations import bulk_station

STATIONS = 12
MAX_SERVER_CONNECTIONS = 3


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def bouncer(floor: Floor) -> Iterator[int]:
    binary = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    if not os.path.exists(binary):
        # scripts/dev.py test installs it (as root on Debian); CI must never skip this
        if os.environ.get("CI"):
            pytest.fail("pgbouncer is not installed (scripts/dev.py installs it as root)")
        pytest.skip("pgbouncer is not installed (Debian: apt-get install pgbouncer)")
    root = Path(tempfile.mkdtemp(prefix="da-pgbouncer-"))
    port = _free_port()
    users = [station_role(floor.dbname, f"BJ-{n:02d}") for n in range(STATIONS)]
    (root / "users.txt").write_text("".join(f'"{u}" ""\n' for u in users))
    (root / "pgbouncer.ini").write_text(
        f"[databases]\n{floor.dbname} = host={floor.server.socket_dir} dbname={floor.dbname}\n"
        f"[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        f"auth_type = trust\nauth_file = {root / 'users.txt'}\npool_mode = transaction\n"
        f"default_pool_size = 2\nmax_db_connections = {MAX_SERVER_CONNECTIONS}\nmax_client_conn = 500\n"
        "ignore_startup_parameters = options,extra_float_digits\n"
        f"logfile = {root / 'pgbouncer.log'}\npidfile = {root / 'pgbouncer.pid'}\n")
    kwargs: dict[str, object] = {}
    if os.geteuid() == 0:  # PgBouncer refuses to run as root
        account = pwd.getpwnam("postgres")
        os.chown(root, account.pw_uid, account.pw_gid)
        for f in root.iterdir():
            os.chown(f, account.pw_uid, account.pw_gid)
        kwargs = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
    proc = subprocess.Popen([binary, str(root / "pgbouncer.ini")], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, **kwargs)  # type: ignore[call-overload]
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(root, ignore_errors=True)


def test_many_stations_forward_through_pgbouncer_in_transaction_mode(
        floor: Floor, bouncer: int, tmp_path: Path) -> None:
    urls = {}
    for n in range(STATIONS):
        table = f"BJ-{n:02d}"
        floor.station(table, "PIT-2")
        bulk_station(tmp_path / f"{table}.db", table, "PIT-2", 30, start=n)
        urls[table] = f"postgresql://{station_role(floor.dbname, table)}@127.0.0.1:{bouncer}/{floor.dbname}"
    # the server bounds reach a pooled connection as the role's own settings
    with psycopg.connect(urls["BJ-00"]) as conn:
        assert conn.execute("SHOW idle_in_transaction_session_timeout").fetchone() == ("15s",)
    peak = [0]  # server backends of the stations' roles working at once (active or in a transaction)
    done: dict[str, int] = {}
    errors: list[BaseException] = []
    stop = threading.Event()

    def watch() -> None:
        roles = [station_role(floor.dbname, t) for t in urls]
        with psycopg.connect(floor.admin_url, autocommit=True) as conn:
            while not stop.is_set():
                (count,) = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE usename = ANY(%s) AND state <> 'idle'",
                                        (roles,)).fetchone() or (0,)
                peak[0] = max(peak[0], int(count))
                stop.wait(0.02)

    def forward(table: str) -> None:
        try:
            with Forwarder(tmp_path / f"{table}.db", urls[table], batch=5) as forwarder:
                done[table] = forwarder.forward().rounds
                forwarder.heartbeat(0, None, "up")
        except BaseException as err:  # handed to the test
            errors.append(err)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    workers = [threading.Thread(target=forward, args=(t,)) for t in urls]
    for w in workers:
        w.start()
    for w in workers:
        w.join(300)
    stop.set()
    watcher.join(10)
    assert not errors, errors
    assert done == {t: 30 for t in urls}
    assert query(floor.admin_url, "SELECT count(*) FROM floor.rounds") == [(STATIONS * 30,)]
    # (an idle server connection PgBouncer is closing to open one for another station's pool may
    # be seen beside the three for a moment: it does no work)
    assert 1 <= peak[0] <= MAX_SERVER_CONNECTIONS, peak
