"""``dealer-assist station check`` against a real pseudo-terminal shoe (the hardware
simulator), a real silent pty, real store files and real TCP sockets."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer_assist.service import station
from hardware.simulator import SimulatedShoe

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT.parent / "shared" / "examples" / "lucky8-pair-and-double.json"  # ../shared beside the checkout
if not EXAMPLE.exists():
    EXAMPLE = Path("/work/shared/examples/lucky8-pair-and-double.json")


def check(config: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer_assist", "station", "check", "--config", str(config)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60, env={**os.environ, **env})


def lines(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """part -> its line, e.g. "shoe" -> "OK   shoe: answers ID?: ..."."""
    out = {}
    for line in done.stdout.splitlines():
        if ":" in line and line[:4].strip() in ("OK", "FAIL", "--"):
            out[line[5:].split(":", 1)[0]] = line
    return out


def config(tmp_path: Path, port: str, store: Path, floor: str = "") -> Path:
    path = tmp_path / "station.toml"
    path.write_text(f'[table]\nname = "BJ-07"\npit = "Pit 2"\n[shoe]\nport = "{port}"\n'
                    f'[store]\npath = "{store}"\n[floor]\nservice = "{floor}"\n')
    return path


@pytest.fixture
def shoe() -> Iterator[SimulatedShoe]:
    sim = SimulatedShoe(game="lucky8", decks=6, seed=7, codec="da1")
    sim.open()
    yield sim
    sim.close()


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A real store with one recorded round (settle --record)."""
    path = tmp_path / "table.db"
    done = subprocess.run([sys.executable, "-m", "dealer_assist", "settle", str(EXAMPLE), "--record", str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return path


def test_every_part_ok(tmp_path: Path, shoe: SimulatedShoe, store: Path) -> None:
    done = check(config(tmp_path, shoe.path, store))
    parts = lines(done)
    assert done.returncode == 0, done.stdout + done.stderr
    assert parts["configuration"].startswith("OK") and "BJ-07 (Pit 2)" in parts["configuration"]
    assert parts["shoe port"].startswith("OK")
    # the simulator answers ID? with its HELLO (spec/shoe-protocol.md)
    assert parts["shoe"].startswith("OK") and "answers ID?" in parts["shoe"]
    assert parts["store"].startswith("OK") and "1 rounds, hash chains intact" in parts["store"]
    assert parts["disk"].startswith("OK") and "MB free" in parts["disk"]
    assert parts["floor"].startswith("--") and "not configured" in parts["floor"]
    assert done.stdout.rstrip().endswith("station ready")


def test_a_silent_device_is_reported(tmp_path: Path, store: Path) -> None:
    master, slave = os.openpty()  # a serial device with nothing behind it
    try:
        done = check(config(tmp_path, os.ttyname(slave), store))
    finally:
        os.close(master)
        os.close(slave)
    parts = lines(done)
    assert done.returncode == 1
    assert parts["shoe port"].startswith("OK")
    assert parts["shoe"].startswith("FAIL") and "no answer to ID?" in parts["shoe"]
    assert "switched on" in parts["shoe"]
    assert done.stdout.rstrip().endswith("1 part(s) to fix")


def test_missing_port_and_missing_store_directory(tmp_path: Path) -> None:
    done = check(config(tmp_path, str(tmp_path / "ttyUSB9"), tmp_path / "nodir" / "table.db"))
    parts = lines(done)
    assert done.returncode == 1
    assert parts["shoe port"].startswith("FAIL") and "does not exist" in parts["shoe port"]
    assert "shoe" not in parts  # nothing to ask ID? on
    assert parts["store"].startswith("FAIL") and "no directory" in parts["store"] and "install" in parts["store"]
    assert not (tmp_path / "nodir").exists()


def test_a_tampered_store_fails(tmp_path: Path, shoe: SimulatedShoe, store: Path) -> None:
    with sqlite3.connect(store) as conn:
        row_id, text = conn.execute("SELECT id, event_json FROM events WHERE event_json LIKE '%wager%' "
                                    "ORDER BY id LIMIT 1").fetchone()
        conn.execute("UPDATE events SET event_json = ? WHERE id = ?",
                     (json.dumps({**json.loads(text), "amount": 1000}), row_id))
    done = check(config(tmp_path, shoe.path, store))
    parts = lines(done)
    assert done.returncode == 1
    assert parts["store"].startswith("FAIL") and "hash chains broken" in parts["store"]


def test_a_store_that_is_not_a_store(tmp_path: Path, shoe: SimulatedShoe) -> None:
    other = tmp_path / "notes.db"
    other.write_bytes(b"not a database at all" * 100)
    done = check(config(tmp_path, shoe.path, other))
    parts = lines(done)
    assert done.returncode == 1 and parts["store"].startswith("FAIL")


def test_no_configuration_is_a_failed_check(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "dealer_assist", "station", "check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "DEALER_ASSIST_CONFIG": "", "HOME": str(tmp_path),
                               "XDG_DATA_HOME": str(tmp_path / "data")})
    if Path("/etc/dealer-assist/station.toml").exists():  # a configured machine: not this case
        pytest.fail("this test expects no /etc/dealer-assist/station.toml on the test machine")
    parts = lines(done)
    assert done.returncode == 1
    assert parts["configuration"].startswith("FAIL") and "station init" in parts["configuration"]
    assert parts["shoe port"].startswith("FAIL") and "simulated" in parts["shoe port"]


def test_bad_configuration_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "station.toml"
    path.write_text("[shoe]\nbaud = -1\n")
    done = check(path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: ") and "shoe.baud" in done.stderr and done.stderr.count("\n") == 1


def test_floor_by_tcp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without psycopg the check connects to the service file's host and port (real sockets)."""
    listening = socket.create_server(("127.0.0.1", 0))
    open_port = listening.getsockname()[1]
    closed = socket.create_server(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    closed.close()  # nothing listens there now
    services = tmp_path / "pg_service.conf"
    services.write_text(f"[floor]\nhost=127.0.0.1\nport={open_port}\n[gone]\nhost=127.0.0.1\nport={closed_port}\n")
    monkeypatch.setenv("PGSERVICEFILE", str(services))
    try:
        up = station.check_floor("floor", tcp_only=True)
        down = station.check_floor("gone", tcp_only=True)
        unknown = station.check_floor("pit9", tcp_only=True)
    finally:
        listening.close()
    assert up.ok and f"127.0.0.1:{open_port}" in up.text
    assert not down.ok and "cannot reach" in down.text and str(closed_port) in down.text
    assert not unknown.ok and "pg_service.conf" in unknown.text
    assert station.check_floor("").skipped


def test_a_port_held_by_the_running_screen(tmp_path: Path, shoe: SimulatedShoe, store: Path) -> None:
    """The dealer's screen opens the shoe exclusively: the check says so instead of hanging."""
    from hardware.driver import ShoeDriver

    holder = ShoeDriver(shoe.path, lambda event: None)
    holder.start(require_open=True)
    try:
        done = check(config(tmp_path, shoe.path, store))
    finally:
        holder.stop()
    parts = lines(done)
    assert done.returncode == 1
    assert parts["shoe"].startswith("FAIL") and "cannot open" in parts["shoe"] and "close it" in parts["shoe"]


def test_floor_on_a_real_postgresql_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The floor's own client connects to the service (a throwaway PostgreSQL server)."""
    from tests.floor.pgserver import ADMIN, Server

    server = Server()
    services = tmp_path / "pg_service.conf"
    services.write_text(f"[floor]\nhost={server.socket_dir}\nuser={ADMIN}\ndbname=postgres\n"
                        f"[elsewhere]\nhost={tmp_path / 'nosock'}\nuser={ADMIN}\ndbname=postgres\n")
    monkeypatch.setenv("PGSERVICEFILE", str(services))
    try:
        up = station.check_floor("floor")
        elsewhere = station.check_floor("elsewhere")
        unknown = station.check_floor("pit9")
    finally:
        server.stop()
    assert up.ok and up.text.startswith("service floor: connected (PostgreSQL 1"), up.text
    assert not elsewhere.ok and "cannot connect" in elsewhere.text and "floor server runs" in elsewhere.text
    assert not unknown.ok and "pit9" in unknown.text
