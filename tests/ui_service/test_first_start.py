"""Issue 33: a new user types `dealer-assist` (the installed console script) on a machine
with no station configuration and a fresh HOME. The program starts the station service for
that account (its own store, the simulated shoe, a private socket) and the screen as its
client; the first start offers the supervisor's enrolment, then the log-in, then a round is
dealt; a second start while it runs is refused and breaks nothing; closing the screen stops
the service. The person's actions: tests/ui_service/first_start_screen.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import dealer_assist.service.station as st

ROOT = Path(__file__).resolve().parents[2]
CONSOLE_SCRIPT = Path(sys.executable).parent / "dealer-assist"
DRIVER = Path(__file__).with_name("first_start_screen.py")


def fresh_account(tmp_path: Path) -> dict[str, str]:
    """A new user's environment: a fresh HOME and XDG directories, no station configuration,
    no development switch, no service socket; Qt offscreen."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DEALER_ASSIST_", "XDG_")) and k != st.CONFIG_ENV}
    home = tmp_path / "home"
    run = tmp_path / "run"
    home.mkdir()
    run.mkdir(mode=0o700)
    env.update(HOME=str(home), XDG_RUNTIME_DIR=str(run), XDG_DATA_HOME=str(home / ".local" / "share"),
               XDG_STATE_HOME=str(home / ".local" / "state"), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_CACHE_HOME=str(home / ".cache"), QT_QPA_PLATFORM="offscreen")
    # a config file at the site's default place would make this a station: none may exist
    assert not st.default_config_path().exists(), f"this machine is a station ({st.default_config_path()})"
    return env


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.skipif(not CONSOLE_SCRIPT.exists(), reason="no installed dealer-assist console script in this venv")
def test_a_new_users_first_start_enrols_logs_in_and_deals_a_round(tmp_path: Path) -> None:
    env = fresh_account(tmp_path)
    done = subprocess.run([sys.executable, "-P", str(DRIVER), str(CONSOLE_SCRIPT)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    facts_line = [line for line in done.stdout.splitlines() if line.startswith("FIRST facts ")]
    assert facts_line, (done.stdout[-3000:], done.stderr[-3000:])
    facts: dict[str, Any] = json.loads(facts_line[-1][len("FIRST facts "):])
    assert "error" not in facts, (facts.get("error"), done.stderr[-3000:])
    assert facts["status"] == 0

    # the service for this account, on its private socket, then the screen as its client
    sock = tmp_path / "run" / "dealer-assist" / "station.sock"
    started = re.search(r"the station service for this account \(local store, SIMULATED SHOE\) on (\S+), pid (\d+)",
                        done.stdout)
    assert started, done.stdout
    assert started.group(1) == str(sock)
    # the first thing shown is the supervisor's enrolment, never a log-in nobody can pass
    assert facts["first"] == "enrolment"
    assert "The store cannot be read" not in done.stdout + done.stderr
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
    store = tmp_path / "home" / ".local" / "share" / "dealer-assist" / "table.db"
    assert store.exists()

    # the screen closed: the service was stopped by its PID and its socket removed
    assert not alive(int(started.group(2)))
    assert not sock.exists()

    # the recorded round is the one the screen showed: its cards, in order
    exported = subprocess.run([str(CONSOLE_SCRIPT), "history", "--db", str(store), "export", str(rnd["round_id"])],
                              env=env, capture_output=True, text=True, timeout=120)
    assert exported.returncode == 0, exported.stderr
    transcript = json.loads(exported.stdout)
    assert [e["card"] for e in transcript["events"] if e["type"] == "card"] == rnd["cards"]
