"""A supervisor can open the review of a station's store through the station service
(issue 23 item 2): ``dealer-assist review`` (its socket from $DEALER_ASSIST_SOCKET) asks the
supervisor's PIN, the service hands over a read-only copy (op snapshot), and the review
shows the round dealt through the service. The copy holds no PIN hash.

Lucky 8, the shoe's order 10S 9H QD 8C: p1 wagers 10 on area 1; p1 10S, dealer 9H, p1 QD:
20, p1 stands; dealer 8C: 17, the dealer stands on 17. p1 wins 10 at even money (4.3.2)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from dealer_assist.service.client import SOCKET_ENV
from dealer_assist.service.protocol import ProtocolError
from dealer_assist.service.snapshot import fetch_snapshot
from tests.service.conftest import Station
from ui.common.login import PinDialog
from ui.review.app import ReviewWindow


def deal_a_round(s: Station) -> None:
    c = s.dealer()  # sue the supervisor (482913), ann logged in
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 3)
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    state = s.deal(c, 1)
    assert state["output"]["status"] == "settled" and state["output"]["net"] == {"p1": 10}


def test_a_supervisor_can_review_the_stations_store_through_the_service(
        qtbot: Any, station: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from dealer_assist.cli import main

    s: Station = station("10S 9H QD 8C")
    deal_a_round(s)
    monkeypatch.setenv(SOCKET_ENV, str(s.socket))
    seen: dict[str, Any] = {}

    def supervisor() -> None:
        try:
            qtbot.waitUntil(lambda: any(isinstance(w, PinDialog) and w.isVisible()
                                        for w in QApplication.topLevelWidgets()), timeout=20000)
            gate = next(w for w in QApplication.topLevelWidgets() if isinstance(w, PinDialog) and w.isVisible())
            gate.name.setText("ann")  # a dealer is not a supervisor: refused by the service
            gate.pin.setText("730418")
            QTest.keyClick(gate.pin, Qt.Key.Key_Return)
            qtbot.waitUntil(lambda: gate.message.text().startswith("Wrong"), timeout=20000)
            gate.name.setText("sue")
            gate.pin.setText("482913")
            QTest.keyClick(gate.pin, Qt.Key.Key_Return)
            qtbot.waitUntil(lambda: any(isinstance(w, ReviewWindow) and w.isVisible()
                                        for w in QApplication.topLevelWidgets()), timeout=20000)
            review = next(w for w in QApplication.topLevelWidgets() if isinstance(w, ReviewWindow) and w.isVisible())  # not an earlier test's window
            seen["rows"] = review.model.rowCount()
            seen["hashes"] = review.store.read_with(
                lambda conn: conn.execute("SELECT pin_hash, pin_salt FROM users").fetchall())
            rounds = review.store.list_rounds(limit=5)
            seen["round"] = review.store.get_round(rounds[0].id)
            review.close()  # the last window: the review ends
        except BaseException as exc:
            seen["error"] = exc
            QApplication.instance().quit()  # type: ignore[union-attr]

    QTimer.singleShot(0, supervisor)
    assert main(["review"]) == 0
    if "error" in seen:
        raise seen["error"]
    assert seen["rows"] == 1
    assert seen["round"].result["net"] == {"p1": 10}
    assert seen["hashes"] and all(h == b"" and salt == b"" for h, salt in seen["hashes"])


def test_the_copy_is_refused_without_a_supervisors_pin(station: Any, tmp_path: Any) -> None:
    s: Station = station("10S")
    s.dealer()
    with pytest.raises(ProtocolError) as caught:
        fetch_snapshot(s.socket, {"user": "sue", "pin": "000000"}, tmp_path / "copy.db")
    assert caught.value.code == "pin"
    assert not (tmp_path / "copy.db").exists()
