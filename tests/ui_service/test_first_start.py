"""Issue 33: a new user types `dealer-assist` (the installed console script) on a machine
with no station configuration and a fresh HOME, AS THEIR OWN OS ACCOUNT: root makes a
throwaway unprivileged account with ``useradd`` in a private mount namespace
(tests/accounts.py, as tests/ui_review/test_review_as_account.py does for a pit supervisor),
with a fresh HOME it owns, its own runtime directory (0700) and XDG directories under its
HOME, an environment of its own (no DEALER_ASSIST_ variable: no development switch; Qt
offscreen), its uid and group and no other. The program starts the station service for that
account (its own store, the simulated shoe, a private socket) and the screen as its client;
the first start offers the supervisor's enrolment, then the log-in, then a round is dealt; a
second start while it runs is refused and breaks nothing; closing the screen stops the
service. While the round is on the screen, root reads /proc and the account's files: the
service runs as the account, child of the screen's process, and its socket, state directory,
store, key and lock are the account's and closed to others as the program says (docs/
station.md, dealer_assist/service/serve.py and station.py). Afterwards everything in the
account's HOME and runtime directory is the account's, and the person's ``dealer-assist
history export`` reads the round back. The person's actions: tests/ui_service/
first_start_screen.py.

This needs root, ``unshare``, ``useradd`` and the installed console script: a missing one is
a failure that says so, never a skip (CI runs the suite as root, with the project installed)."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import dealer_assist.service.station as st
from tests.accounts import account_folder, need_root, proc_facts

ROOT = Path(__file__).resolve().parents[2]
CONSOLE_SCRIPT = Path(sys.executable).parent / "dealer-assist"
DRIVER = Path(__file__).with_name("first_start_screen.py")
NAME = f"danew{os.getpid() % 100000}"  # the new user's account, in the namespace's /etc only
# The accounts a namespace makes are numbered from the machine's /etc, as in every other
# namespace: the tests that make accounts run in one worker, in turn (tests/station_day)
pytestmark = pytest.mark.xdist_group("machine-accounts")


@pytest.fixture
def new_users_folder() -> Iterator[Path]:
    """The new user's HOME (empty) and runtime directory (0700), in a folder in /tmp
    (tests/accounts.py); both are given to the account when it is made."""
    with account_folder("da-first-start-") as base:
        (base / "home").mkdir(mode=0o700)
        (base / "run").mkdir(mode=0o700)
        yield base


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def owner_and_mode(path: Path) -> tuple[int, int, int]:
    """(uid, gid, permission bits) of ``path`` itself (a link is not followed)."""
    found = path.lstat()
    return found.st_uid, found.st_gid, stat.S_IMODE(found.st_mode)


@pytest.mark.timeout(600)
def test_a_new_users_first_start_enrols_logs_in_and_deals_a_round(new_users_folder: Path, tmp_path: Path) -> None:
    need_root("the new user's account")
    if not CONSOLE_SCRIPT.exists():
        pytest.fail(f"no installed dealer-assist console script at {CONSOLE_SCRIPT}: the new user types "
                    "`dealer-assist` (install the project into this venv: pip install -e .; CI has it)")
    # a config file at the site's default place would make this a station: none may exist
    assert not st.default_config_path().exists(), f"this machine is a station ({st.default_config_path()})"
    home, run = new_users_folder / "home", new_users_folder / "run"
    xdg = {"XDG_RUNTIME_DIR": run, "XDG_DATA_HOME": home / ".local" / "share",
           "XDG_STATE_HOME": home / ".local" / "state", "XDG_CONFIG_HOME": home / ".config",
           "XDG_CACHE_HOME": home / ".cache"}
    (tmp_path / "scratch").mkdir()
    command = ["unshare", "--mount", "--propagation", "private",
               sys.executable, "-m", "tests.accounts", str(tmp_path / "scratch"), str(home), NAME, "--give", str(run),
               *[f"--env={k}={v}" for k, v in xdg.items()],
               "--", sys.executable, "-P", str(DRIVER), str(CONSOLE_SCRIPT)]
    sock = run / "dealer-assist" / "station.sock"
    state = home / ".local" / "share" / "dealer-assist"  # the account's data directory: its store
    store = state / "table.db"
    lines: list[str] = []
    running: dict[str, Any] = {}
    with open(tmp_path / "stderr", "w+", encoding="utf-8") as err_file:
        proc = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=err_file, text=True)
        assert proc.stdin is not None and proc.stdout is not None
        try:
            for line in proc.stdout:
                lines.append(line)
                if line.startswith("FIRST dealt"):
                    # the round on the screen, its service running: seen from root
                    said = re.search(r"the station service for this account .* pid (\d+)", "".join(lines))
                    if said:
                        running["service"] = proc_facts(int(said.group(1)))
                        running["parent"] = proc_facts(running["service"].get("ppid", 0)) if running["service"] else {}
                    running["socket"] = owner_and_mode(sock) + (stat.S_ISSOCK(sock.lstat().st_mode),)
                    running["socket_dir"] = owner_and_mode(sock.parent)
                    running["state"] = owner_and_mode(state)
                    running["files"] = {p.name: owner_and_mode(p) for p in state.iterdir()}
                    proc.stdin.write("seen\n")
                    proc.stdin.flush()
            proc.wait(timeout=60)
        finally:
            proc.stdin.close()  # a driver still waiting for "seen" reads the end of its input
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        err_file.seek(0)
        err = err_file.read()
    out = "".join(lines)
    facts_line = [line for line in lines if line.startswith("FIRST facts ")]
    assert proc.returncode == 0 and facts_line, (out[-3000:], err[-3000:])
    facts: dict[str, Any] = json.loads(facts_line[-1][len("FIRST facts "):])
    assert "error" not in facts, (facts.get("error"), err[-3000:])
    assert facts["status"] == 0
    account = json.loads(next(line for line in lines if line.startswith("ACCOUNT "))[len("ACCOUNT "):])
    uid, gid = account["uid"], account["gid"]
    assert account["name"] == NAME and uid != 0 and gid != 0, account

    # the person's process: the account's uid and group, no supplementary group (a log-in's)
    assert (facts["uid"], facts["gid"], facts["groups"]) == (uid, gid, []), facts

    # the service for this account, on its private socket, then the screen as its client
    started = re.search(r"the station service for this account \(local store, SIMULATED SHOE\) on (\S+), pid (\d+)",
                        out)
    assert started, out
    assert started.group(1) == str(sock)
    # the first thing shown is the supervisor's enrolment, never a log-in nobody can pass
    assert facts["first"] == "enrolment"
    assert "The store cannot be read" not in out + err
    assert "SIMULATED SHOE" in facts["window_title"] and "ann" in facts["window_title"]

    # a second start while the first runs: refused, naming the running service; the first
    # went on to deal its round after it
    second = facts["second"]
    assert second["status"] == 1
    assert f"error: Dealer Assist is already running for this account (its station service answers on {sock})" \
        in second["err"]
    assert "shown" not in second["out"]

    # one round dealt from the simulated shoe, settled (or concluded), recorded in the
    # account's own store
    rnd = facts["round"]
    assert rnd["status"] in ("settled", "in_progress") and len(rnd["cards"]) >= 3
    assert store.exists()

    # the service, while the round was on the screen: started by the screen's process (the
    # account's), it runs as the account too: every uid and gid the account's, no other group
    service, parent = running["service"], running["parent"]
    assert service["uids"] == {uid} and service["gids"] == {gid} and service["groups"] == set(), service
    assert service["argv"][service["argv"].index("station"):][:4] == ["station", "serve", "--socket", str(sock)], \
        service["argv"]
    assert service["ppid"] == facts["pid"] and parent["uids"] == {uid}, (service, parent, facts["pid"])
    # its socket the account's, 0600 (docs/station.md: a service with no station.toml), in the
    # account's 0700 directory (dealer_assist/service/launch.py)
    assert running["socket"] == (uid, gid, 0o600, True), running["socket"]
    assert running["socket_dir"] == (uid, gid, 0o700), running["socket_dir"]
    # its state directory 0700: the store, its key, the PIN hashes and the anchor are the
    # service's alone (serve.py); every file in it is opened 0600, its owner's alone: the store
    # and its -wal and -shm, the key and the lock (station.py FILE_MODE, docs/store.md), the
    # head record, the anchor, the shoe's journal, the resume tokens (docs/station.md)
    assert running["state"] == (uid, gid, 0o700), running["state"]
    files = running["files"]
    assert {"table.db", "table.db.key", "table.db.key.head", "table.db.lock"} <= set(files), files
    assert all(tuple(f) == (uid, gid, 0o600) for f in files.values()), files

    # the screen closed: the service was stopped by its PID and its socket removed
    assert not alive(int(started.group(2)))
    assert not sock.exists()
    # everything the program made in the account's HOME and runtime directory is the account's
    made = [home, *home.rglob("*"), run, *run.rglob("*")]
    assert all(p.lstat().st_uid == uid for p in made), [(str(p), p.lstat().st_uid) for p in made]
    # its log in the account's own log directory, nothing for others (applog.LOG_MODE, 0640)
    logs = list((home / ".local" / "state" / "dealer-assist" / "log").glob("*.log*"))
    assert logs and all(owner_and_mode(p) == (uid, gid, 0o640) for p in logs), [(str(p), owner_and_mode(p)) for p in logs]

    # the recorded round is the one the screen showed: its cards, in order
    exported = facts["export"]  # the account's `dealer-assist history export ROUND`: its own store
    assert exported["status"] == 0, exported["err"]
    transcript = json.loads(exported["out"])
    assert [e["card"] for e in transcript["events"] if e["type"] == "card"] == rnd["cards"]
