"""The technician's side of a station, on the real paths as root with no DESTDIR (issue 23).

Runs only inside the private mount namespace of tests/station_day/namespace.py, one test per
namespace (tests/station_day/test_station.py starts them); outside it every test fails
loudly rather than touch the machine. Named ns_*.py so that pytest does not collect it
directly.
"""

from __future__ import annotations

import grp
import hashlib
import os
import pwd
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.station_day import station as s


@pytest.fixture(autouse=True)
def _namespace() -> None:
    if not s.in_station_namespace():
        pytest.fail("tests/station_day/ns_station.py runs only as root inside "
                    "tests/station_day/namespace.py (run tests/station_day/test_station.py)")


@pytest.fixture
def installed() -> subprocess.CompletedProcess[str]:
    done = s.install()
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture
def dealers(installed: subprocess.CompletedProcess[str]) -> Iterator[list[s.Account]]:
    yield from s.dealers("a", "b")


@pytest.fixture
def shoe(installed: subprocess.CompletedProcess[str]) -> Iterator[str]:
    """``dealer-assist shoe-sim --group dialout``: a pty the service account may open, as the
    udev rule gives the real shoe to group dialout (docs/station.md "Rehearse")."""
    sim = subprocess.Popen([s.COMMAND, "shoe-sim", "--game", "lucky8", "--seed", "3", "--group", "dialout"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert sim.stdout is not None
    path = sim.stdout.readline().strip()
    assert path.startswith("/dev/pts/"), path + (sim.stderr.read() if sim.poll() is not None and sim.stderr else "")
    yield path
    sim.terminate()
    sim.wait(timeout=20)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_install_upgrade_uninstall_as_root_with_no_destdir(installed: subprocess.CompletedProcess[str]) -> None:
    out = installed.stdout
    assert "installed in /opt/dealer-assist" in out and "wrote the template /etc/dealer-assist/station.toml" in out
    assert "systemd is not running" in out  # CI has no systemd: nothing enabled, said so
    # the service account: system, no log-in, home = the state directory, in dialout
    svc = pwd.getpwnam("dealer-assist")
    assert svc.pw_uid < 1000 and svc.pw_dir == "/var/lib/dealer-assist" and svc.pw_shell.endswith("nologin")
    assert grp.getgrgid(svc.pw_gid).gr_name == "dealer-assist"
    assert "dealer-assist" in grp.getgrnam("dialout").gr_mem
    # the program, its command, the unit
    assert Path(s.COMMAND).is_symlink() and os.readlink(s.COMMAND) == "/opt/dealer-assist/dealer-assist"
    version = s.account("dealer-assist").run([s.COMMAND, "--version"])
    assert version.returncode == 0 and version.stdout.startswith("dealer-assist "), version.stderr
    unit = s.UNIT.read_text()
    assert "\nExecStart=/usr/local/bin/dealer-assist station serve\n" in unit
    assert "\nUser=dealer-assist\n" in unit and "\nStateDirectoryMode=0700\n" in unit
    assert (s.mode(s.UNIT), s.owners(s.UNIT)) == (0o644, ("root", "root"))
    if shutil.which("systemd-analyze"):  # systemd's own reading of the unit, where systemd is installed
        verify = s.run(["systemd-analyze", "verify", str(s.UNIT)])
        assert verify.returncode == 0 and verify.stderr == "", verify.stderr
    # the contract's owners and modes
    assert (s.owners(s.STATE), s.mode(s.STATE)) == (("dealer-assist", "dealer-assist"), 0o700)
    assert (s.owners(s.LOG), s.mode(s.LOG)) == (("dealer-assist", "dealer-assist"), 0o750)
    assert (s.owners(s.RUN), s.mode(s.RUN)) == (("dealer-assist", "dealer-assist"), 0o750)
    assert (s.owners(s.CONF), s.mode(s.CONF)) == (("root", "root"), 0o755)
    assert (s.owners(s.CONFIG), s.mode(s.CONFIG)) == (("root", "root"), 0o644)

    # a day's data: a round in the store (made by the service account), a log, a configuration
    recorded = s.record_example_as_service()
    assert recorded.returncode == 0, recorded.stderr
    (s.LOG / "dealer-assist.log").write_text("a day's log\n")
    init = s.run([s.COMMAND, "station", "init", "--force", "--table", "BJ-07", "--pit", "Pit 2"])
    assert init.returncode == 0, init.stderr
    kept = {p: sha(p) for p in (s.STATE / "table.db", s.STATE / "table.db.key", s.CONFIG, s.LOG / "dealer-assist.log")}

    upgrade = s.install()
    assert upgrade.returncode == 0, upgrade.stderr
    assert "kept /etc/dealer-assist/station.toml" in upgrade.stdout and "Migrated" not in upgrade.stdout
    assert {p: sha(p) for p in kept} == kept
    assert len([u for u in pwd.getpwall() if u.pw_name == "dealer-assist"]) == 1

    # the uninstaller the install left behind, run as a technician would
    refused = s.add_dealer("x")
    try:
        as_dealer = refused.run(["/opt/dealer-assist/install.sh", "--uninstall"])
    finally:
        s.remove_account(refused)
    assert as_dealer.returncode == 1 and "run as root" in as_dealer.stderr
    gone = s.run(["/opt/dealer-assist/install.sh", "--uninstall", "--no-udev"])
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert "Dealer Assist removed" in gone.stdout
    assert not s.PROGRAM.exists() and not Path(s.COMMAND).is_symlink() and not s.UNIT.exists()
    assert not list(Path("/usr/local/share").rglob("*com.dealerassist*"))
    assert {p: sha(p) for p in kept} == kept  # the data stays
    assert pwd.getpwnam("dealer-assist").pw_uid == svc.pw_uid  # and the account that owns it


def test_the_shared_layout_is_migrated(tmp_path: Path) -> None:
    """An install of the old layout: group-writable 2770 store directory, 0660 files, the key
    made 0600 by whichever dealer opened the store first, station.toml group-writable."""
    subprocess.run(["groupadd", "--system", "dealer-assist"], check=True)  # absent: namespace.py
    first = s.add_dealer("k")
    try:
        s.STATE.chmod(0o2770)
        os.chown(s.STATE, 0, grp.getgrnam("dealer-assist").gr_gid)
        example = s.EXAMPLES / "lucky8-pair-and-double.json"
        gid = grp.getgrnam("dealer-assist").gr_gid
        done = s.run([str(s.VENV / "bin" / "python"), "-s", "-m", "dealer_assist", "settle", str(example),
                      "--record", str(s.STATE / "table.db")], cwd=str(s.ROOT))
        assert done.returncode == 0, done.stderr
        for p in s.STATE.iterdir():
            p.chmod(0o600 if p.name == "table.db.key" else 0o660)
            os.chown(p, first.uid if p.name == "table.db.key" else 0, gid)
        s.CONF.chmod(0o2775)
        os.chown(s.CONF, 0, gid)
        s.CONFIG.write_text('[table]\nname = "BJ-07"\n')
        s.CONFIG.chmod(0o664)
        os.chown(s.CONFIG, 0, gid)
        s.LOG.chmod(0o2770)
        (s.LOG / "dealer-assist.log").write_text("old log\n")
        (s.LOG / "dealer-assist.log").chmod(0o660)
        before = {p.name: sha(p) for p in s.STATE.iterdir()}

        done = s.install()
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Migrated /var/lib/dealer-assist" in done.stdout
        assert (s.owners(s.STATE), s.mode(s.STATE)) == (("dealer-assist", "dealer-assist"), 0o700)  # setgid gone
        for p in s.STATE.iterdir():
            assert (s.owners(p), s.mode(p)) == (("dealer-assist", "dealer-assist"), 0o600), p
        assert {p.name: sha(p) for p in s.STATE.iterdir()} == before  # moved, not rewritten
        assert (s.owners(s.CONFIG), s.mode(s.CONFIG)) == (("root", "root"), 0o644)
        assert s.CONFIG.read_text() == '[table]\nname = "BJ-07"\n'
        assert s.mode(s.CONF) == 0o755 and s.mode(s.LOG) == 0o750
        assert (s.owners(s.LOG / "dealer-assist.log"), s.mode(s.LOG / "dealer-assist.log")) == (
            ("dealer-assist", "dealer-assist"), 0o640)
        # the service account now verifies the store the dealer made (key and all)
        verify = s.account("dealer-assist").run([s.COMMAND, "history", "verify", "--db", str(s.STATE / "table.db")])
        assert verify.returncode == 0 and verify.stdout.startswith("ok: ") and " 1 rounds" in verify.stdout, (
            verify.stdout + verify.stderr)
        # and the dealer who made it can read none of it any more
        for name in ("table.db", "table.db.key"):
            with pytest.raises(PermissionError):
                _read_as(first, s.STATE / name)
    finally:
        s.remove_account(first)


def _read_as(acct: s.Account, path: Path) -> None:
    """Raise PermissionError when ``acct`` may not read ``path`` (the kernel says so)."""
    done = acct.run(["/bin/cat", str(path)])
    if done.returncode != 0 and "Permission denied" in done.stderr:
        raise PermissionError(done.stderr.strip())
    assert done.returncode == 0, done.stderr


def test_a_dealer_account_reaches_nothing_secret(dealers: list[s.Account]) -> None:
    dealer = dealers[0]
    init = s.run([s.COMMAND, "station", "init", "--force", "--table", "BJ-07",
                  "--floor", "postgresql://station:s3cret-pw@127.0.0.1:5999/floor"])
    assert init.returncode == 0, init.stderr
    assert (s.owners(s.CONFIG), s.mode(s.CONFIG)) == (("root", "root"), 0o644)  # init as root: root's
    assert s.record_example_as_service().returncode == 0
    enrolled = s.enrol_supervisor_as_service("sam", "394817")
    assert enrolled.returncode == 0, enrolled.stderr
    # the PIN hash is in the store (so the test below is about a real hash)
    with sqlite3.connect(s.STATE / "table.db") as conn:
        assert conn.execute("SELECT count(*) FROM users WHERE username = 'sam'").fetchone() == (1,)
    # the floor's password: in floor.secret only, the service account's
    secret = s.STATE / "floor.secret"
    assert secret.read_text() == "s3cret-pw\n"
    assert (s.owners(secret), s.mode(secret)) == (("dealer-assist", "dealer-assist"), 0o600)
    text = s.CONFIG.read_text()
    assert "s3cret" not in text and 'url = "postgresql://station@127.0.0.1:5999/floor"' in text

    assert grp.getgrnam("dealer-assist").gr_gid in dealer.groups
    listing = dealer.run(["/bin/ls", str(s.STATE)])
    assert listing.returncode != 0 and "Permission denied" in listing.stderr
    for name in ("table.db", "table.db-wal", "table.db.key", "table.db.key.head", "floor.secret"):
        with pytest.raises(PermissionError):
            _read_as(dealer, s.STATE / name)
    # the store through the program: refused, nothing shown
    history = dealer.run([s.COMMAND, "history", "list", "--db", str(s.STATE / "table.db")])
    assert history.returncode != 0 and "sam" not in history.stdout and "Traceback" not in history.stderr
    # the configuration: readable, not writable, not replaceable, not re-initialised
    assert _read_as(dealer, s.CONFIG) is None
    before = sha(s.CONFIG)
    append = dealer.run(["/bin/sh", "-c", f"echo '[shoe]' >> {s.CONFIG}"])
    assert append.returncode != 0 and "Permission denied" in append.stderr
    replace = dealer.run(["/bin/sh", "-c", f"echo x > {s.CONF}/new.toml && mv {s.CONF}/new.toml {s.CONFIG}"])
    assert replace.returncode != 0 and "Permission denied" in replace.stderr
    init = dealer.run([s.COMMAND, "station", "init", "--force", "--table", "BJ-99"])
    assert init.returncode == 2 and "only root may write" in init.stderr and init.stderr.count("\n") == 1
    assert sha(s.CONFIG) == before
    # the log: not the dealers' either (the screen logs to the account's own directory)
    write_log = dealer.run(["/bin/sh", "-c", f"echo x >> {s.LOG}/dealer-assist.log"])
    assert write_log.returncode != 0


def test_station_check_finds_each_misconfiguration(dealers: list[s.Account], shoe: str) -> None:
    init = s.run([s.COMMAND, "station", "init", "--force", "--table", "BJ-07", "--pit", "Pit 2", "--shoe", shoe])
    assert init.returncode == 0, init.stderr
    assert s.record_example_as_service().returncode == 0

    status, parts, out = s.station_check()
    assert parts["configuration"].startswith("OK") and "BJ-07 (Pit 2)" in parts["configuration"], out
    assert parts["service account"].startswith("OK") and "in dialout" in parts["service account"], out
    assert parts["files"].startswith("OK") and "file(s) in /var/lib/dealer-assist" in parts["files"], out
    assert parts["service unit"].startswith("--") and "systemd is not running" in parts["service unit"], out
    assert parts["shoe port"].startswith("OK") and "dealer-assist may open it" in parts["shoe port"], out
    assert parts["store"].startswith("OK") and "1 rounds" in parts["store"] and "as dealer-assist" in parts["store"]
    # the service is not running (its part is the service helper's): said so, with how to start it
    assert parts["service"].startswith("FAIL") and "not running" in parts["service"], out
    assert status == 1
    assert not [p for p in s.STATE.iterdir() if s.owners(p)[0] != "dealer-assist"]  # root's check left no file

    # as a dealer: the files in the state directory are not theirs to see; the store neither
    _, as_dealer, out_dealer = s.station_check(dealers[0])
    assert as_dealer["files"].startswith("OK") and "not this account's to see" in as_dealer["files"], out_dealer
    assert as_dealer["store"].startswith("--") and "only the service account" in as_dealer["store"], out_dealer

    def broken(part: str, *words: str) -> None:
        _, found, text = s.station_check()
        assert found[part].startswith("FAIL"), text
        for word in words:
            assert word in found[part], (word, found[part])

    s.STATE.chmod(0o770)
    broken("files", "/var/lib/dealer-assist is dealer-assist:dealer-assist 0770, not dealer-assist:dealer-assist 0700",
           "chmod 0700 /var/lib/dealer-assist")
    s.STATE.chmod(0o700)
    key = s.STATE / "table.db.key"
    os.chown(key, dealers[1].uid, -1)
    broken("files", f"{key} is {dealers[1].name}:dealer-assist 0600", f"chown dealer-assist:dealer-assist {key}")
    os.chown(key, pwd.getpwnam("dealer-assist").pw_uid, -1)
    s.CONFIG.chmod(0o664)
    broken("files", "station.toml is root:root 0664, not root:root 0644")
    s.CONFIG.chmod(0o644)
    subprocess.run(["gpasswd", "-d", "dealer-assist", "dialout"], check=True, capture_output=True)
    broken("service account", "not in group dialout", "usermod -aG dialout dealer-assist")
    broken("shoe port", "dealer-assist may not open it")
    subprocess.run(["usermod", "-aG", "dialout", "dealer-assist"], check=True)
    os.chown(shoe, 0, 0)
    os.chmod(shoe, 0o600)
    broken("shoe port", "root:root 0600", "dealer-assist may not open it")
    s.UNIT.rename(s.UNIT.with_suffix(".away"))
    broken("service unit", "no /etc/systemd/system/dealer-assist.service", "install.sh")
    s.UNIT.with_suffix(".away").rename(s.UNIT)
    s.RUN.chmod(0o755)
    broken("service", "/run/dealer-assist is dealer-assist:dealer-assist 0755")
    s.RUN.chmod(0o750)
    # a stale socket nobody listens on: named as such
    import socket

    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(s.RUN / "station.sock"))
    stale.close()
    os.chown(s.RUN / "station.sock", pwd.getpwnam("dealer-assist").pw_uid, grp.getgrnam("dealer-assist").gr_gid)
    os.chmod(s.RUN / "station.sock", 0o660)
    broken("service", "connection refused")
    Path(s.RUN / "station.sock").unlink()
    s.CONFIG.write_text('[shoe]\nport = "/dev/ttyUSB9"\n')
    broken("shoe port", "/dev/ttyUSB9 does not exist", "plug the shoe in")
    # a store configured elsewhere (store.path): its directory and files are checked too
    elsewhere = s.STATE / "bj07"
    elsewhere.mkdir(mode=0o755)
    os.chown(elsewhere, pwd.getpwnam("dealer-assist").pw_uid, grp.getgrnam("dealer-assist").gr_gid)
    elsewhere.chmod(0o755)
    s.CONFIG.write_text(f'[store]\npath = "{elsewhere}/table.db"\n')
    broken("files", f"{elsewhere} is dealer-assist:dealer-assist 0755, not dealer-assist:dealer-assist 0700")


def test_station_check_reaches_the_floor_with_the_password_of_floor_secret(dealers: list[s.Account]) -> None:
    """A throwaway PostgreSQL floor whose station role needs its password (scram-sha-256)."""
    import psycopg

    from dealer_assist.floor.schema import add_station, init_floor
    from tests.floor.pgserver import Server

    server = Server()
    try:
        dbname = server.create_database()
        admin = server.url(dbname)
        init_floor(admin)
        role = add_station(admin, "BJ-07", "PIT-2").role
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"ALTER ROLE \"{role}\" PASSWORD 'station-pw-7'")
        server.require_password(role)
        url = server.url(dbname, user=role)
        with_password = url.replace(f"//{role}@", f"//{role}:station-pw-7@")
        init = s.run([s.COMMAND, "station", "init", "--force", "--table", "BJ-07", "--floor", with_password])
        assert init.returncode == 0, init.stderr
        assert "station-pw-7" not in s.CONFIG.read_text() and (s.STATE / "floor.secret").read_text() == "station-pw-7\n"

        _, parts, out = s.station_check()
        assert parts["floor"].startswith("OK") and "connected (PostgreSQL" in parts["floor"], out
        # a dealer's account cannot read the password, so cannot log in to the floor as the station
        _, as_dealer, out_dealer = s.station_check(dealers[0])
        assert as_dealer["floor"].startswith("FAIL") and "check as root" in as_dealer["floor"], out_dealer
        # a wrong password in floor.secret: the floor refuses it, the check says so
        (s.STATE / "floor.secret").write_text("not-the-password\n")
        _, wrong, out_wrong = s.station_check()
        assert wrong["floor"].startswith("FAIL") and "password authentication failed" in wrong["floor"], out_wrong
    finally:
        server.stop()


FAKE_SYSTEMCTL = """#!/bin/sh
# systemctl as install.sh and station check call it: each call logged, the unit's state in a file
echo "$*" >> /tmp/systemctl.calls
case "$1" in
  is-active) state=$(cat /tmp/systemctl.active 2>/dev/null || echo inactive)
             [ "$2" = --quiet ] || echo "$state"; [ "$state" = active ]; exit $? ;;
  is-enabled) [ -e /etc/systemd/system/multi-user.target.wants/dealer-assist.service ] && echo enabled || echo disabled ;;
  enable) mkdir -p /etc/systemd/system/multi-user.target.wants
          ln -sf ../dealer-assist.service /etc/systemd/system/multi-user.target.wants/dealer-assist.service ;;
  disable) rm -f /etc/systemd/system/multi-user.target.wants/dealer-assist.service ;;
esac
exit 0
"""


def test_with_systemd_running_install_enables_upgrade_restarts_uninstall_disables(tmp_path: Path) -> None:
    """systemd cannot run here: /run/systemd/system (sd_booted) is made in this namespace and
    a systemctl that logs its calls stands in, to test what install.sh and station check ask
    of systemd when it runs — not systemd itself (packaging tests run systemd-analyze verify)."""
    Path("/run/systemd/system").mkdir(parents=True, exist_ok=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "systemctl").write_text(FAKE_SYSTEMCTL)
    (bin_dir / "systemctl").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    env.pop("DESTDIR", None)
    calls = Path("/tmp/systemctl.calls")

    def install(*args: str) -> subprocess.CompletedProcess[str]:
        return s.run([str(s.INSTALL), "--from-venv", str(s.VENV), "--no-udev", *args], env=env)

    first = install()
    assert first.returncode == 0, first.stdout + first.stderr
    assert calls.read_text().splitlines() == ["daemon-reload", "enable dealer-assist.service",
                                              "is-active --quiet dealer-assist.service"]
    assert "the service is enabled; start it after station init: systemctl start dealer-assist.service" in first.stdout
    # with systemd, /run/dealer-assist is systemd's to make (RuntimeDirectory=), not install.sh's
    assert s.owners(s.RUN) == ("root", "root")

    Path("/tmp/systemctl.active").write_text("active\n")
    calls.unlink()
    upgrade = install()
    assert upgrade.returncode == 0, upgrade.stderr
    assert "restart dealer-assist.service" in calls.read_text().splitlines()
    assert "the service was running: restarted on the new version" in upgrade.stdout

    check = s.run([s.COMMAND, "station", "check"], env=env)
    unit_line = next(line for line in check.stdout.splitlines() if line[5:].startswith("service unit:"))
    assert unit_line.startswith("OK") and "installed, enabled and active" in unit_line, check.stdout
    Path("/tmp/systemctl.active").write_text("failed\n")
    check = s.run([s.COMMAND, "station", "check"], env=env)
    unit_line = next(line for line in check.stdout.splitlines() if line[5:].startswith("service unit:"))
    assert unit_line.startswith("FAIL") and "is failed" in unit_line and "journalctl -u" in unit_line, check.stdout

    calls.unlink()
    gone = s.run(["/opt/dealer-assist/install.sh", "--uninstall", "--no-udev"], env=env)
    assert gone.returncode == 0, gone.stderr
    assert calls.read_text().splitlines() == ["disable --now dealer-assist.service", "daemon-reload"]
    assert not s.UNIT.exists() and not Path("/etc/systemd/system/multi-user.target.wants/dealer-assist.service").exists()
