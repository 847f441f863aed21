"""One dealer's screen per store: a real second process holds the lock (dealer_assist/service/station.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer_assist.service import station
from dealer_assist.service.station import StationLock, StoreInUse

ROOT = Path(__file__).resolve().parents[2]

HOLDER = """
import sys
from pathlib import Path
from dealer_assist.service.station import StationLock
lock = StationLock(Path(sys.argv[1]))
lock.acquire()
print("held", flush=True)
sys.stdin.readline()  # hold until the test closes our standard input
lock.release()
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path / "table.db")], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline() == "held\n"
    yield proc
    if proc.poll() is None:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=30)


def test_second_holder_is_refused_naming_the_first(tmp_path: Path, holder: subprocess.Popen[str]) -> None:
    lock = StationLock(tmp_path / "table.db")
    with pytest.raises(StoreInUse) as caught:
        lock.acquire()
    message = str(caught.value)
    assert f"PID {holder.pid}" in message
    assert f"account {station.account_name()}" in message
    assert str(tmp_path / "table.db") in message
    assert not lock.held


def test_lock_is_free_once_the_holder_ends(tmp_path: Path, holder: subprocess.Popen[str]) -> None:
    holder.kill()  # however it ends (here: killed), the kernel drops the lock
    holder.wait(timeout=30)
    with StationLock(tmp_path / "table.db") as lock:
        assert lock.held
        assert lock.path.read_text() == f"{os.getpid()} {station.account_name()}\n"


def test_second_dealer_screen_refuses_to_start(tmp_path: Path, holder: subprocess.Popen[str]) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path),
           "XDG_STATE_HOME": str(tmp_path / "state"), "DEALER_ASSIST_CONFIG": "",
           "DEALER_ASSIST_DEV": "1"}  # --dealer: a development run
    env.pop("DEALER_ASSIST_CONFIG")
    done = subprocess.run([sys.executable, "-m", "dealer_assist", "--db", str(tmp_path / "table.db"),
                           "--dealer", "ann", "--exit-after-show"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "shown" not in done.stdout
    assert done.stderr.startswith("error: ")
    assert f"PID {holder.pid}" in done.stderr and "in use by another Dealer Assist" in done.stderr
    assert not (tmp_path / "table.db").exists()  # the store was not touched
