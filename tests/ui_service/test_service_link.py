"""The Qt side of the station service: notifications arrive as signals on the GUI thread,
requests run off it and answer there."""

from __future__ import annotations

import threading
from typing import Any

from dealer_assist.service.client import ServiceError
from tests.service.conftest import Station
from ui.common.service_link import ServiceLink


def test_a_card_from_the_shoe_reaches_the_window_as_a_signal(qtbot: Any, station: Any) -> None:
    s: Station = station("10S 9H")
    link = ServiceLink(s.socket)
    try:
        answers: list[tuple[Any, ServiceError | None]] = []
        link.request("enrol", lambda r, e: answers.append((r, e)), name="sue", pin="482913")
        qtbot.waitUntil(lambda: len(answers) == 1, timeout=10000)
        assert answers[0][1] is None and answers[0][0]["enrolled"] == "sue"
        assert s.running is not None
        s.running.store.create_user("ann", "730418", ["dealer"])
        link.request("login", lambda r, e: answers.append((r, e)), name="ann", pin="730418")
        link.request("wager", lambda r, e: answers.append((r, e)), player="p1", bet="main", amount=10, area=1)
        qtbot.waitUntil(lambda: len(answers) == 3, timeout=10000)
        threads: list[bool] = []
        rounds: list[dict[str, Any]] = []

        def on_round(data: dict[str, Any]) -> None:
            threads.append(threading.current_thread() is threading.main_thread())
            rounds.append(data)

        link.round_changed.connect(on_round)
        s.sim.deal()
        qtbot.waitUntil(lambda: any(e["type"] == "card" for r in rounds for e in r["events"]), timeout=10000)
        assert all(threads)  # painted on the GUI thread
        card = next(e for r in rounds for e in r["events"] if e["type"] == "card")
        assert card["card"] == "10S"
        link.request("void", lambda r, e: answers.append((r, e)), reason="x", rule="5.2")
        qtbot.waitUntil(lambda: len(answers) == 4, timeout=10000)
        assert answers[3][1] is not None and answers[3][1].code == "pin"
    finally:
        link.close()
