"""A dealer can deal a round on the screen of a station whose service owns the store and the
shoe (issue 23 items 2-4): the real entry point (``dealer-assist`` with no --dealer and no
development switch, its socket from $DEALER_ASSIST_SOCKET as the contract allows) against a
real ``dealer-assist station serve`` process on a temporary socket and store, the shoe a
simulated shoe on a real pseudo-terminal that the service's driver opens by path.

Lucky 8, the shoe's order 10S 9H QD 8C. p1 wagers 10 on area 1; p1 10S, dealer 9H, p1 QD:
20, p1 stands; dealer 8C: 17, the dealer stands on 17 (Lucky 8). 20 beats 17: p1 wins 10
at even money (4.3.2), so the store has one settled round with p1 +10.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

import dealer_assist.service.station as st
from dealer_assist.cli.common import DEV_MODE_VARIABLE
from dealer_assist.service.client import SOCKET_ENV
from dealer_assist.service.probe import handshake
from tests.service.conftest import make_shoe
from ui.common.accounts import AccountsDialog, EnrolmentDialog
from ui.common.login import PinDialog

SUPERVISOR, SUPERVISOR_PIN = "sue", "482913"
DEALER, FIRST_PIN, DEALER_PIN = "ann", "246810", "730418"


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """``station serve`` as its own process: configured table BJ-07 (Lucky 8), the shoe on a pty."""
    sim = make_shoe("10S 9H QD 8C")
    config = tmp_path / "station.toml"
    state = tmp_path / "state"
    socket = tmp_path / "run" / "station.sock"
    config.write_text(st.render_config(st.StationConfig(table="BJ-07", pit="PIT-2", game="lucky8",
                                                        shoe_port=sim.path, store=str(state / "table.db"))))
    env = {k: v for k, v in os.environ.items() if k not in (DEV_MODE_VARIABLE, SOCKET_ENV, st.CONFIG_ENV)}
    proc = subprocess.Popen([sys.executable, "-m", "dealer_assist", "station", "serve", "--config", str(config),
                             "--state-dir", str(state), "--socket", str(socket), "--log-dir", str(tmp_path / "log")],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not (socket.exists() and handshake(socket, timeout_s=1).ok):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the service did not answer within 30 s"
        time.sleep(0.1)
    for name in (DEV_MODE_VARIABLE, st.CONFIG_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(SOCKET_ENV, str(socket))
    try:
        yield {"sim": sim, "config": config, "state": state, "proc": proc, "env": env}
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        sim.close()


def shown(kind: type[QWidget]) -> Any:
    found = [w for w in QApplication.allWidgets() if isinstance(w, kind) and w.isVisible()]
    return found[-1] if found else None


def enter(field: Any, text: str) -> None:
    field.setFocus()
    field.setText(text)
    QTest.keyClick(field, Qt.Key.Key_Return)


def test_a_dealer_can_enrol_log_in_and_deal_a_round_through_the_station_service(
        qtbot: Any, service: dict[str, Any]) -> None:
    from dealer_assist.cli import main
    from ui.dealer.main_window import DealerWindow

    sim = service["sim"]
    seen: dict[str, Any] = {}

    def dealer_day() -> None:
        try:
            # first start: no accounts, so the screen asks to enrol the first supervisor
            qtbot.waitUntil(lambda: shown(EnrolmentDialog) is not None, timeout=20000)
            enrol = shown(EnrolmentDialog)
            enrol.name.setText(SUPERVISOR)
            enter(enrol.name, SUPERVISOR)  # Enter on the name moves on, never closes anything
            assert enrol.isVisible()
            enrol.pin.setText(SUPERVISOR_PIN)
            enter(enrol.pin_again, SUPERVISOR_PIN)
            # the supervisor adds the dealer straight after (the service checks the approval)
            qtbot.waitUntil(lambda: shown(AccountsDialog) is not None, timeout=20000)
            accounts = shown(AccountsDialog)
            accounts.name.setText(DEALER)
            accounts.pin.setText(FIRST_PIN)
            accounts.pin_again.setText(FIRST_PIN)
            accounts.add_button.click()
            qtbot.waitUntil(lambda: "ann added" in accounts.message.text(), timeout=20000)
            seen["added_role"] = accounts.message.property("role")
            accounts.close_button.click()
            # the log-in: the first PIN must be changed, then the shift starts
            qtbot.waitUntil(lambda: shown(PinDialog) is not None and shown(PinDialog).windowTitle() == "Log in",
                            timeout=20000)
            login = shown(PinDialog)
            login.name.setText(DEALER)
            enter(login.pin, "999999")  # a wrong PIN's Enter: refused by the service, the program stays
            qtbot.waitUntil(lambda: login.message.text().startswith("Wrong"), timeout=20000)
            seen["wrong_pin"] = (login.isVisible(), login.message.property("role"))
            enter(login.pin, FIRST_PIN)
            qtbot.waitUntil(lambda: login.changing, timeout=20000)
            login.new_pin.setText(DEALER_PIN)
            enter(login.new_pin_again, DEALER_PIN)
            window = shown(DealerWindow)
            controller = window.controller
            qtbot.waitUntil(lambda: controller.dealer == DEALER, timeout=20000)
            seen["title"] = window.windowTitle()
            # the round: the wager on the slip, the cards from the shoe through the service
            assert controller.place_wager("p1", "main", 10, 1), controller.last_refusal
            for _ in range(3):
                sim.deal()
            qtbot.waitUntil(lambda: sum(1 for e in controller.events if e["type"] == "card") == 3, timeout=20000)
            # a refused input: the service's words, naming the clause, and the round unchanged
            before = list(controller.events)
            seen["refused"] = controller.place_wager("p2", "main", 10, 2)  # the bets closed with the first card
            seen["refusal"] = controller.last_refusal
            seen["unchanged"] = controller.events == before
            # 6.1: referred to the Gaming Shift Manager through the service; input waits for the decision
            controller.refer("player disputes the count")
            seen["refer"] = (controller.referred, controller.events == before, controller.store_error)
            seen["refused_while_referred"] = (controller.decide("stand", area=1, hand=1, player="p1"),
                                              controller.last_refusal)
            checks: list[Any] = []
            controller.approve(SUPERVISOR, SUPERVISOR_PIN, "resolve", checks.append)
            qtbot.waitUntil(lambda: bool(checks), timeout=20000)
            assert checks[0].ok, checks[0]
            seen["continued"] = (controller.resolve_referral("continue", SUPERVISOR, checks[0].approval),
                                 controller.referred)
            assert controller.decide("stand", area=1, hand=1, player="p1"), controller.last_refusal
            sim.deal()
            qtbot.waitUntil(lambda: controller.concluded, timeout=20000)
            seen["output"] = controller.output()
            seen["round_id"] = controller.round_id
            assert controller.confirm_settlement()
            seen["betting_again"] = controller.betting
            window.close()
        except BaseException as exc:  # the test fails with it, after the window closed
            seen["error"] = exc
            for w in QApplication.topLevelWidgets():
                w.close()
            QApplication.instance().quit()  # type: ignore[union-attr]

    QTimer.singleShot(0, dealer_day)
    status = main([])  # `dealer-assist`: no --dealer, no development switch
    if "error" in seen:
        raise seen["error"]
    assert status == 0
    assert "BJ-07" in seen["title"] and "ann" in seen["title"]
    assert seen["added_role"] == "notice"  # success is not shown in the refusal's red
    assert seen["wrong_pin"] == (True, "refusal")
    out = seen["output"]
    assert out["status"] == "settled" and out["net"] == {"p1": 10}
    assert seen["refused"] is False and seen["unchanged"] is True
    assert re.fullmatch(r"Refused \(wager [^)]*\): .*\(\d+(\.\d+)+\)", seen["refusal"]), seen["refusal"]  # names the clause
    assert seen["betting_again"] is True
    refer_text, refer_unchanged, refer_error = seen["refer"]
    assert refer_text.endswith("player disputes the count (6.1)") and refer_unchanged and refer_error == "", seen["refer"]
    assert seen["refused_while_referred"][0] is False and seen["refused_while_referred"][1].endswith("(6.1)")
    assert seen["continued"] == (True, "")
    # the store has the round: the service stopped, `history verify` and `list` on its file
    service["proc"].terminate()
    service["proc"].wait(timeout=30)
    store = str(service["state"] / "table.db")
    verify = subprocess.run([sys.executable, "-m", "dealer_assist", "history", "verify", "--db", store],
                            env=service["env"], capture_output=True, text=True)
    assert verify.returncode == 0 and " 1 round" in verify.stdout, verify.stdout + verify.stderr
    listed = subprocess.run([sys.executable, "-m", "dealer_assist", "history", "list", "--db", store],
                            env=service["env"], capture_output=True, text=True)
    rows = listed.stdout.splitlines()[1:]
    assert len(rows) == 1 and "settled" in rows[0] and "p1 +10," in rows[0], listed.stdout


def test_cancelling_the_first_start_closes_the_screen(qtbot: Any, service: dict[str, Any]) -> None:
    from dealer_assist.cli import main
    from ui.dealer.main_window import DealerWindow

    seen: dict[str, Any] = {}

    def cancel() -> None:
        try:
            qtbot.waitUntil(lambda: shown(EnrolmentDialog) is not None, timeout=20000)
            seen["window"] = shown(DealerWindow)
            shown(EnrolmentDialog).cancel_button.click()  # "Quit": nobody deals without an account
        except BaseException as exc:
            seen["error"] = exc
            QApplication.instance().quit()  # type: ignore[union-attr]

    QTimer.singleShot(0, cancel)
    assert main([]) == 0
    if "error" in seen:
        raise seen["error"]
    assert seen["window"] is not None and not seen["window"].isVisible()
    # nothing was recorded: the store has no account and no round
    state = service["state"]
    verify = subprocess.run([sys.executable, "-m", "dealer_assist", "history", "list", "--db",
                             str(state / "table.db")], env=service["env"], capture_output=True, text=True)
    assert verify.returncode == 0 and len(verify.stdout.splitlines()) <= 1, verify.stdout + verify.stderr
