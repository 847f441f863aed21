"""A station's first day end to end (issue 23, "Done means", the first item), with no
development switch anywhere: no --dealer, no DEALER_ASSIST_DEV, no DESTDIR.

Run by test_station.py as root in a fresh private mount namespace (tests/station_day/
namespace.py). install.sh runs on this source tree (--from-venv: a PyInstaller build takes
minutes; packaging/check_build.sh checks the build's install). Then, as a technician would:
a throwaway PostgreSQL floor (its server runs as ``postgres``) with the table's station
role and a password; ``station init --floor URL`` (the password goes to floor.secret, never
to station.toml); two dealers' accounts made with useradd (group dealer-assist only); a
shoe-sim on a pty of group dialout; ``station serve`` started AS THE SERVICE ACCOUNT (no
systemd in CI). Each dealer's own process (its OS account) runs the real dealer's screen
offscreen (day_screen.py): dealer A enrols the first supervisor through the real dialog,
adds the dealers, logs in, deals a Lucky 8 round, the supervisor changes the game to Ace
Race through Setup (the supervisor's PIN, the service's op set_table), A deals an Ace Race
round and ends the shift; dealer B logs in after A's end of shift on the same store, deals,
and the supervisor voids B's round with the PIN. Finally, as root, ``dealer-assist history
--db URL list`` shows the table's three rounds on the floor under its name.

The shoe's order (--cards): 10S 9H QD 8C | 10S 9H QD 8C | 10D.
Round 1, Lucky 8 (ann): p1 wagers 10 on area 1; p1 10S, dealer 9H, p1 QD: 20, stands;
dealer 8C: 17, stands (Lucky 8's dealer stands on 17). 20 beats 17: p1 wins 10 at even
money (4.3.2): net p1 +10.
Round 2, Ace Race (ann), the same cards: the dealer stands on hard 17 (3.34); 20 beats 17
(4.3.2), even money: net p1 +10.
Round 3, Ace Race (bob): p1 wagers 10, p1 10D; a supervisor voids the round (5.1): every
wager returned, net p1 0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.service.probe import handshake
from tests.floor.pgserver import Server
from tests.station_day import station as s

TABLE, PIT = "BJ-07", "PIT-2"
CARDS = "10S 9H QD 8C 10S 9H QD 8C 10D 9C"
STATION_PASSWORD = "station-pw-7"
HERE = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def _namespace() -> None:
    if not s.in_station_namespace():
        pytest.fail("runs only inside tests/station_day/namespace.py (see test_station.py)")


@pytest.fixture
def floor() -> Iterator[tuple[str, str]]:
    """A throwaway floor: its schema, the table's station role with a password; (the URL a
    technician pastes into station init, with the password; the floor's admin URL)."""
    import psycopg

    from dealer_assist.floor.schema import add_station, init_floor

    server = Server()
    try:
        dbname = server.create_database()
        admin = server.url(dbname)
        init_floor(admin)
        role = add_station(admin, TABLE, PIT).role
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"ALTER ROLE \"{role}\" PASSWORD '{STATION_PASSWORD}'")
        server.require_password(role)
        url = server.url(dbname, user=role).replace(f"{role}@", f"{role}:{STATION_PASSWORD}@")
        yield url, admin
    finally:
        server.stop()


@pytest.fixture
def station(floor: tuple[str, str]) -> Iterator[dict[str, Any]]:
    done = s.install()
    assert done.returncode == 0, done.stdout + done.stderr
    shared = Path(tempfile.mkdtemp(prefix="dealer-assist-day-"))  # the namespace's /tmp
    shared.chmod(0o755)  # the dealers' accounts read the screen's script here
    cards = shared / "cards.txt"
    cards.write_text(CARDS + "\n")
    cards.chmod(0o644)
    screen = shared / "day_screen.py"  # where a dealer's account can read it
    shutil.copy(HERE / "day_screen.py", screen)
    screen.chmod(0o644)
    sim = subprocess.Popen([s.COMMAND, "shoe-sim", "--game", "lucky8", "--cards", str(cards), "--group", "dialout",
                            "--link", "/run/dealer-shoe-sim"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           text=True)
    service: subprocess.Popen[str] | None = None
    try:
        assert sim.stdout is not None and sim.stdout.readline().strip() == "/run/dealer-shoe-sim"
        init = s.run([s.COMMAND, "station", "init", "--force", "--table", TABLE, "--pit", PIT, "--game", "lucky8",
                      "--shoe", "/run/dealer-shoe-sim", "--floor", floor[0]])
        assert init.returncode == 0, init.stdout + init.stderr
        assert STATION_PASSWORD not in s.CONFIG.read_text()  # the password is in floor.secret only
        os.environ["DAY_ENROL_CODE"] = enrol_code(init.stdout)  # root's one-time code, read out to dealer A  # the password is in floor.secret only
        service = s.account(s.SERVICE).popen([s.COMMAND, "station", "serve"], stdout=subprocess.DEVNULL,
                                             stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while not handshake(s.RUN / "station.sock", timeout_s=1).ok:
            assert service.poll() is None, service.communicate()
            assert time.monotonic() < deadline, "the service did not answer within 30 s"
            time.sleep(0.2)
        status, _, out = s.station_check()
        assert status == 0 and out.rstrip().endswith("station ready"), out
        with _dealers() as (a, b):
            yield {"a": a, "b": b, "sim": sim, "screen": screen, "floor": floor}
    finally:
        if service is not None:
            service.terminate()
            service.wait(timeout=30)
        sim.terminate()
        sim.wait(timeout=10)


def enrol_code(said: str) -> str:
    """The one-time enrolment code `station init` printed to root (issue 39)."""
    marker = "enrolment code for the first supervisor: "
    assert marker in said, said
    return said.split(marker, 1)[1].split()[0]


def _dealers() -> Any:
    import contextlib

    return contextlib.contextmanager(s.dealers)("a", "b")


def screen_session(acct: s.Account, who: str, screen: Path, sim: subprocess.Popen[str]) -> dict[str, Any]:
    """day_screen.py as ``acct`` (its own process, offscreen); deals the cards it asks for out
    of the shoe-sim; its facts."""
    env = acct.env(QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(s.PROGRAM / "lib"),
                   DAY_ENROL_CODE=os.environ.get("DAY_ENROL_CODE", ""))
    proc = acct.popen([str(s.VENV / "bin" / "python"), "-s", "-P", str(screen), who], env=env,
                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None and sim.stdin is not None and sim.stdout is not None
    facts: dict[str, Any] = {}
    dealt: list[str] = []
    try:
        for line in proc.stdout:
            if line.startswith("DAY deal "):
                for _ in range(int(json.loads(line[len("DAY deal "):]))):
                    sim.stdin.write("\n")
                    sim.stdin.flush()
                    out = sim.stdout.readline()
                    assert out.startswith("card "), out
                    dealt.append(out.split()[1])
                proc.stdin.write("dealt\n")
                proc.stdin.flush()
            elif line.startswith("DAY facts "):
                facts = json.loads(line[len("DAY facts "):])
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read() if proc.stderr else ""
    assert proc.returncode == 0 and "error" not in facts, (facts.get("error"), err[-3000:])
    facts["dealt"] = dealt
    return facts


def test_a_stations_first_day(station: dict[str, Any]) -> None:
    a, b, sim, screen = station["a"], station["b"], station["sim"], station["screen"]
    _, admin = station["floor"]

    day_a = screen_session(a, "a", screen, sim)
    assert day_a["dealt"] == CARDS.split()[:8]
    assert all(TABLE in t for t in day_a["titles"]), day_a["titles"]
    one, two = day_a["rounds"]
    assert (one["game"], one["status"], one["net"]) == ("lucky8", "settled", {"p1": 10}), one
    assert one["cards"] == ["10S", "9H", "QD", "8C"]
    assert (two["game"], two["status"], two["net"]) == ("ace_race", "settled", {"p1": 10}), two
    assert two["cards"] == ["10S", "9H", "QD", "8C"]
    assert day_a["setup_limits"] == {"main": [10, 500]}
    assert "ann's shift ended" in day_a["after_end"]

    day_b = screen_session(b, "b", screen, sim)
    assert day_b["dealt"] == ["10D"]
    [three] = day_b["rounds"]
    assert (three["game"], three["status"], three["net"]) == ("ace_race", "void", {"p1": 0}), three

    # the store, read as the service account: three rounds, each under the dealer who dealt it
    svc = s.account(s.SERVICE)
    verify = svc.run([s.COMMAND, "history", "verify", "--db", str(s.STATE / "table.db")])
    assert verify.returncode == 0 and " 3 rounds" in verify.stdout, verify.stdout + verify.stderr
    query = ("import sqlite3, json; db = sqlite3.connect('file:/var/lib/dealer-assist/table.db?mode=ro', uri=True); "
             "print(json.dumps(db.execute('SELECT r.id, s.dealer FROM rounds r JOIN sessions s "
             "ON r.session_id = s.id ORDER BY r.id').fetchall())); "
             "print(json.dumps(db.execute(\"SELECT actor, json_extract(detail_json, '$.changes.game') FROM audit "
             "WHERE kind = 'table_setup_changed'\").fetchall()))")
    dealt = svc.run([str(s.VENV / "bin" / "python"), "-s", "-P", "-c", query])
    lines = dealt.stdout.splitlines()
    assert len(lines) == 2, dealt.stdout + dealt.stderr
    assert json.loads(lines[0]) == [[1, "ann"], [2, "ann"], [3, "bob"]], dealt.stdout
    assert json.loads(lines[1]) == [["supervisor:sue", '["lucky8","ace_race"]']], dealt.stdout

    # the floor: forwarded by the service (no screen open now), listed as root under the table's name
    deadline = time.monotonic() + 60
    while True:
        listed = s.run([s.COMMAND, "history", "--db", admin, "list", "--table", TABLE, "--json"])
        rows = json.loads(listed.stdout) if listed.returncode == 0 and listed.stdout.startswith("[") else []
        if listed.returncode == 0 and len(rows) >= 3:
            break
        if time.monotonic() > deadline:
            print(listed.stdout + listed.stderr, s.CONFIG.read_text(), (s.LOG / "dealer-assist.log").read_text())
            pytest.fail("the floor does not list the table's three rounds (the service's log above)")
        time.sleep(0.5)
    shown = sorted((r["id"], r["table"], r["game"], r["status"]) for r in rows)
    assert shown == [(1, TABLE, "lucky8", "settled"), (2, TABLE, "ace_race", "settled"),
                     (3, TABLE, "ace_race", "void")], rows
    assert [r["net"] for r in sorted(rows, key=lambda r: r["id"])] == [{"p1": 10}, {"p1": 10}, {"p1": 0}], rows
    table_view = s.run([s.COMMAND, "history", "--db", admin, "list"])
    assert table_view.returncode == 0 and table_view.stdout.count(TABLE) == 3, table_view.stdout
