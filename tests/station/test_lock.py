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


def test_second_dealer_screen_refuses_to_start(tmp_path: Path) -> None:
    # another Dealer Assist holds the account's store (the one `dealer-assist` with no
    # configuration gives its own station service): the service refuses to start, naming the
    # holder, and so does the screen; the store is not touched
    store = tmp_path / "data" / "dealer-assist" / "table.db"
    store.parent.mkdir(parents=True)
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(store)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        env = {k: v for k, v in os.environ.items() if k not in ("DEALER_ASSIST_CONFIG", "DEALER_ASSIST_DEV",
                                                                 "DEALER_ASSIST_SOCKET")}
        env.update(QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"),
                   XDG_DATA_HOME=str(tmp_path / "data"), XDG_RUNTIME_DIR=str(tmp_path / "run"))
        (tmp_path / "run").mkdir(mode=0o700)
        done = subprocess.run([sys.executable, "-m", "dealer_assist", "--exit-after-show"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=30)
    assert done.returncode == 1
    assert "shown" not in done.stdout
    assert done.stderr.startswith("error: ")
    assert f"PID {proc.pid}" in done.stderr and "in use by another Dealer Assist" in done.stderr
    assert not store.exists()  # the store was not touched
