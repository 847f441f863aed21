"""The station on the dealer's screen: Station setup behind the supervisor PIN (audited,
file rewritten), significant events in the audit log with their round (GLI-24) and in the
review, and the title and status line of a run on the simulated shoe."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from dealer_assist.engine.table_setup import TableSetup
from dealer_assist.service import station
from dealer_assist.store import Store
from tests.ui.driving import TableDriver

MakeTable = Callable[..., TableDriver]
USERS = {"sam": ("482913", ["supervisor"]), "dan": ("730418", ["dealer"])}


def audit(t: TableDriver) -> list[Any]:
    with Store.open_readonly(t.table.store_path) as store:
        return store.audit_entries()


def pin(t: TableDriver, name: str, code: str) -> None:
    dialog = t.window.pin_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.name.setText(name)
    dialog.pin.setText(code)
    t.qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    t.qtbot.waitUntil(lambda: dialog.ok_button.isEnabled(), timeout=10000)


def test_significant_events_in_the_audit_log_with_their_round(make_table: MakeTable) -> None:
    setup = TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1})
    t = make_table(setup, "8H 6D 9S 10C 4S 2C", users=USERS)
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal(3)
    t.qtbot.mouseClick(t.window.report_buttons["power_failure"], Qt.MouseButton.LeftButton)
    t.qtbot.mouseClick(t.window.choice_dialog.buttons["yes"], Qt.MouseButton.LeftButton)  # "Record the power failure"
    t.settled_writes()
    t.qtbot.mouseClick(t.window.report_buttons["refer"], Qt.MouseButton.LeftButton)
    t.qtbot.mouseClick(t.window.choice_dialog.buttons["cards"], Qt.MouseButton.LeftButton)  # "Cards or shoe in doubt"
    t.settled_writes()
    entries = audit(t)
    round_id = t.controller.round_id
    assert isinstance(round_id, int) and round_id > 0
    by_kind = {e.kind: e for e in entries}
    # the shoe answered before any round began: no round
    assert by_kind["shoe_connected"].round_id is None and by_kind["shoe_connected"].actor == "shoe"
    # the power failure (5.29) and the referral (6.1) belong to the round they happened in
    assert by_kind["power_failure"].round_id == round_id
    assert by_kind["power_failure"].actor == "dealer:ann"
    assert by_kind["referral"].round_id == round_id and by_kind["referral"].detail["rule"] == "6.1"
    assert by_kind["referral"].detail["text"].endswith(": Cards or shoe in doubt")  # the dealer's reason

    # and the supervisor's review shows them with the round
    from ui.review.app import ReviewWindow, open_review

    review = open_review(t.table.store_path)
    assert isinstance(review, ReviewWindow)
    t.qtbot.addWidget(review)
    review.open_round(round_id)
    shown = [review.detail.people_table.item(r, 2).text() for r in range(review.detail.people_table.rowCount())]
    assert "power_failure" in shown and "referral" in shown
    # and in its Station events tab, with the round each belongs to (blank between rounds)
    review.tabs.setCurrentWidget(review.station_events)
    table = review.station_events.table
    rows = [(table.item(r, 2).text(), table.item(r, 3).text()) for r in range(table.rowCount())]
    assert ("power_failure", str(round_id)) in rows and ("referral", str(round_id)) in rows
    assert ("shoe_connected", "") in rows
    assert rows.index(("power_failure", str(round_id))) < rows.index(("shoe_connected", ""))  # newest first
    review.close()


LOOK = """
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QLabel
from dealer_assist.cli import main

seen = {}

def look():
    from ui.dealer.main_window import DealerWindow
    window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, DealerWindow))
    label = window.statusBar().findChild(QLabel, "station_status")
    seen.update(title=window.windowTitle(), status=label.text() if label is not None else "",
                socket=label.toolTip() if label is not None else "")

app = QApplication(sys.argv[:1])
QTimer.singleShot(0, look)  # before --exit-after-show's own timer quits
status = main(sys.argv[1:])
print(json.dumps({"exit": status, **seen}))
"""


def test_simulated_run_says_so_in_title_and_status(tmp_path: Path) -> None:
    """The real start-up path with no configuration (the account's station service on the
    simulated shoe, then the screen as its client), in its own process."""
    import json
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items()
           if k not in (station.CONFIG_ENV, "DEALER_ASSIST_DEV", "DEALER_ASSIST_SOCKET")}
    env.update(QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_DATA_HOME=str(tmp_path / "data"), XDG_RUNTIME_DIR=str(tmp_path / "run"))
    (tmp_path / "run").mkdir(mode=0o700)
    if Path("/etc/dealer-assist/station.toml").exists():
        raise AssertionError("this test expects a machine without /etc/dealer-assist/station.toml")
    done = subprocess.run([sys.executable, "-c", LOOK, "--exit-after-show"],
                          cwd=Path(__file__).resolve().parents[2], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["exit"] == 0
    # nobody has logged in yet (the first start enrols the supervisor)
    assert seen["title"].startswith("Dealer Assist \u2014 SIMULATED SHOE \u2014 demonstration, not a live table")
    sock = tmp_path / "run" / "dealer-assist" / "station.sock"
    assert seen["status"] == "SIMULATED SHOE \u00b7 no station configuration (development)"
    assert seen["socket"] == f"station service {sock}"  # (its tooltip)
    assert (tmp_path / "data" / "dealer-assist" / "table.db").exists()  # the service's store, the account's
    log = tmp_path / "state" / "dealer-assist" / "log" / "dealer-assist.log"
    assert f"screen connected to the station service {sock}" in log.read_text()


def test_configured_station_runs_its_shoe_and_store(tmp_path: Path) -> None:
    """With a configuration the screen is a client of the station service (issue 23): its
    table in the title, the service's shoe (a real pty simulator) and store; the screen opens
    neither. --game, a setup change without the supervisor's PIN, is refused there."""
    import json
    import os
    import subprocess
    import sys
    import time

    from dealer_assist.service.client import SOCKET_ENV
    from dealer_assist.service.probe import handshake
    from hardware.simulator import SimulatedShoe

    shoe = SimulatedShoe(game="lucky8", decks=6, seed=3, codec="da1")
    shoe.open()
    store = tmp_path / "bj07.db"
    config = tmp_path / "station.toml"
    sock = tmp_path / "run" / "station.sock"
    config.write_text(f'[table]\nname = "BJ-07"\npit = "Pit 2"\ngame = "lucky8"\n'
                      f'[shoe]\nport = "{shoe.path}"\n[store]\npath = "{store}"\n')
    env = {k: v for k, v in os.environ.items() if k != "DEALER_ASSIST_DEV"}
    env.update({"QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path),
                "XDG_STATE_HOME": str(tmp_path / "state"), station.CONFIG_ENV: str(config), SOCKET_ENV: str(sock)})
    root = Path(__file__).resolve().parents[2]
    service = subprocess.Popen([sys.executable, "-m", "dealer_assist", "station", "serve", "--state-dir",
                                str(tmp_path / "service"), "--socket", str(sock), "--log-dir", str(tmp_path / "log")],
                               cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not (sock.exists() and handshake(sock, timeout_s=1).ok):
            assert service.poll() is None and time.monotonic() < deadline, service.stderr
            time.sleep(0.1)
        # no --dealer on a station (issue 23): the log-in is asked for; the window is shown
        done = subprocess.run([sys.executable, "-c", LOOK, "--exit-after-show"], cwd=root, env=env,
                              capture_output=True, text=True, timeout=120)
        game = subprocess.run([sys.executable, "-m", "dealer_assist", "--game", "ace_race"], cwd=root, env=env,
                              capture_output=True, text=True, timeout=120)
    finally:
        service.terminate()
        service.wait(timeout=30)
        shoe.close()
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["title"] == "Dealer Assist \u2014 BJ-07 (Pit 2)"
    assert seen["status"] == f"shoe of the station \u00b7 configuration {config}"
    assert seen["socket"] == f"station service {sock}"  # (its tooltip)
    assert store.exists() and (store.stat().st_mode & 0o777) == 0o600  # made by the service
    assert game.returncode == 2 and "--game" in game.stderr and "station serve" in game.stderr, game.stderr
