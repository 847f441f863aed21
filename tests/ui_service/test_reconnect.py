"""The dealer's screen reconnects by itself when the station service is killed (SIGKILL) and
started again, as systemd restarts it after a crash: the status bar says "reconnecting to the
station service…", the dealer's shift is resumed with no PIN (the service's resume token), the
round is re-read from the service, the betting slip the crash lost is sent again, and nothing
is sent twice.

Lucky 8, the shoe's order 10S 9H QD 8C. p1 wagers 10 on area 1; p1 10S, dealer 9H, p1 QD:
20, p1 stands; dealer 8C: 17, the dealer stands on 17. 20 beats 17: p1 wins 10 at even money
(4.3.2). The service is killed once with the wager on the slip (before any card) and once
after two cards: the round ends with exactly four cards and p1 +10.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import dealer_assist.service.station as st
from dealer_assist.cli.common import DEV_MODE_VARIABLE
from dealer_assist.service.client import SOCKET_ENV, ServiceClient
from dealer_assist.service.probe import handshake
from tests.service.conftest import make_shoe
from ui.common.login import PinDialog
from ui.common.service_link import RECONNECTING, ServiceLink

DEALER, FIRST_PIN, DEALER_PIN = "ann", "246810", "730418"


class Service:
    def __init__(self, tmp_path: Path) -> None:
        self.sim = make_shoe("10S 9H QD 8C")
        self.config = tmp_path / "station.toml"
        self.state = tmp_path / "state"
        self.socket = tmp_path / "run" / "station.sock"
        self.log = tmp_path / "log"
        self.config.write_text(st.render_config(st.StationConfig(
            table="BJ-07", pit="PIT-2", game="lucky8", shoe_port=self.sim.path, store=str(self.state / "table.db"))))
        self.env = {k: v for k, v in os.environ.items() if k not in (DEV_MODE_VARIABLE, SOCKET_ENV, st.CONFIG_ENV)}
        self.proc: subprocess.Popen[str] | None = None
        self.starts = 0

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "dealer_assist", "station", "serve", "--config", str(self.config),
             "--state-dir", str(self.state), "--socket", str(self.socket), "--log-dir", str(self.log)],
            env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
        self.starts += 1
        deadline = time.monotonic() + 30
        while not (self.socket.exists() and handshake(self.socket, timeout_s=1).ok):
            assert self.proc.poll() is None, "the service stopped at its start"
            assert time.monotonic() < deadline, "the service did not answer within 30 s"
            time.sleep(0.1)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=30)
            self.proc = None


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Service]:
    for name in (DEV_MODE_VARIABLE, st.CONFIG_ENV):
        monkeypatch.delenv(name, raising=False)
    s = Service(tmp_path)
    s.start()
    try:
        yield s
    finally:
        s.stop()
        s.sim.close()


def accounts(socket: Path) -> None:
    """Supervisor sue enrolled; dealer ann added by her and her first PIN changed."""
    c = ServiceClient(socket, "cli")
    try:
        approval = c.request("enrol", name="sue", pin="482913")["approval"]
        c.request("add_account", name=DEALER, new_pin=FIRST_PIN, roles=["dealer"], approval=approval)
        c.request("change_pin", name=DEALER, old_pin=FIRST_PIN, new_pin=DEALER_PIN)
    finally:
        c.close()


def cards(events: list[dict[str, Any]]) -> list[str]:
    return [e["card"] for e in events if e["type"] == "card"]


def test_the_screen_reconnects_to_a_killed_and_restarted_service_and_the_round_goes_on(
        qtbot: Any, service: Service) -> None:
    from PySide6.QtWidgets import QLabel

    from ui.dealer.app import build_client_screen

    accounts(service.socket)
    link = ServiceLink(service.socket, "screen")
    screen = build_client_screen(link, None, service.socket)
    controller, window = screen.controller, screen.window
    bar = window.findChild(QLabel, "station_link")
    holds: list[str] = []

    def seen(expected: list[str]) -> None:
        """The cards on the screen; a hold first if the shoe sent a frame (its heartbeat) while the
        service was down: the dealer checks the table, no card is missing, and releases it."""
        qtbot.waitUntil(lambda: cards(controller.events) == expected or bool(controller.service_state.get("hold")),
                        timeout=20000)
        if controller.service_state.get("hold"):
            holds.append(controller.service_state["hold"])
            assert controller.release_hold(), controller.last_refusal
        qtbot.waitUntil(lambda: cards(controller.events) == expected, timeout=20000)

    try:
        answers: list[Any] = []
        controller.jobs.log_in(DEALER, DEALER_PIN, answers.append)
        qtbot.waitUntil(lambda: bool(answers), timeout=20000)
        assert answers[0].ok, answers[0]
        controller.start_shift(DEALER)  # what the log-in dialog does (ui.common.accounts.Shifts)
        assert controller.place_wager("p1", "main", 10, 1), controller.last_refusal

        # 1. killed with the wager on the slip (the service held it in memory only)
        service.kill()
        qtbot.waitUntil(lambda: bar.text() == RECONNECTING, timeout=20000)
        assert controller.store_error == RECONNECTING
        service.start()
        qtbot.waitUntil(lambda: bar.text() == "" and not controller.store_error, timeout=30000)
        qtbot.waitUntil(lambda: len(controller.service_state.get("slip") or []) == 1, timeout=20000)
        wager = controller.service_state["slip"][0]
        assert (wager["player"], wager["area"], str(wager["amount"])) == ("p1", 1, "10")
        assert controller.dealer == DEALER  # resumed: no log-in dialog
        assert not any(isinstance(w, PinDialog) and w.isVisible() for w in window.findChildren(PinDialog))

        # 2. killed after two cards: the round re-read, nothing twice
        service.sim.deal()
        service.sim.deal()
        seen(["10S", "9H"])
        before = list(controller.events)
        service.kill()
        qtbot.waitUntil(lambda: bar.text() == RECONNECTING, timeout=20000)
        refused_while_away = controller.decide("stand", area=1, hand=1, player="p1")
        service.start()
        qtbot.waitUntil(lambda: bar.text() == "" and not controller.store_error, timeout=30000)
        assert refused_while_away is False  # refused with the reason, not queued to be sent later
        assert controller.events == before  # the same round, re-read from the service
        service.sim.deal()
        seen(["10S", "9H", "QD"])
        assert controller.decide("stand", area=1, hand=1, player="p1"), controller.last_refusal
        service.sim.deal()
        qtbot.waitUntil(lambda: controller.concluded, timeout=20000)
        out = controller.output()
        assert out["status"] == "settled" and out["net"] == {"p1": 10}
        assert cards(controller.events) == ["10S", "9H", "QD", "8C"]
        assert [e["type"] for e in controller.events].count("decision") == 1
        assert controller.confirm_settlement()
    finally:
        controller.close()
        window.close()
    service.stop()
    store = str(service.state / "table.db")
    verify = subprocess.run([sys.executable, "-m", "dealer_assist", "history", "verify", "--db", store],
                            env=service.env, capture_output=True, text=True)
    assert verify.returncode == 0 and " 1 round" in verify.stdout, verify.stdout + verify.stderr
    listed = subprocess.run([sys.executable, "-m", "dealer_assist", "history", "list", "--db", store],
                            env=service.env, capture_output=True, text=True)
    rows = listed.stdout.splitlines()[1:]
    assert len(rows) == 1 and "settled" in rows[0] and "p1 +10," in rows[0], listed.stdout
    assert service.starts == 3
