"""The dealer's screen as a crash campaign runs it (tests/ui_service/screen_campaign.py): the
real client screen (ui.dealer.app.build_client_screen, offscreen) on the service's socket,
logged in through the service as dealer ann, playing what the service's round asks for:
two wagers on the slip, stand or let the next card be a hit, confirm the settlement.

    python -m tests.ui_service.screen_player SOCKET SEED

Prints "ready" once logged in. Never exits by itself: the campaign SIGKILLs it."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path
from typing import Any


def main(argv: list[str]) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from ui.common.service_link import ServiceLink
    from ui.dealer.app import build_client_screen

    socket, seed = Path(argv[0]), int(argv[1])
    rng = random.Random(seed)
    app = QApplication(sys.argv[:1])
    link = ServiceLink(socket, "screen", reconnect=False)
    screen = build_client_screen(link, None, socket)
    c = screen.controller
    timer = QTimer()
    timer.setInterval(15)

    def step() -> None:
        st: dict[str, Any] = c.service_state
        if c.store_error or st.get("hold") or st.get("in_flight") or st.get("stray"):
            return  # the campaign's to settle (never seen while only the screen is killed)
        if st.get("concluded"):
            c.confirm_settlement()
            return
        if st.get("betting") and st.get("round_id") is None:
            if not st.get("slip"):
                c.place_wager("p1", "main", 10, 1)
                c.place_wager("p2", "main", 20, 2)
            return
        exp = st.get("expect") or {}
        if exp.get("kind") == "decisions" and c.rnd is not None:  # Electronic: every terminal at once
            for entry in list(getattr(c.rnd.expectation(), "pending", ()))[:1]:
                if "stand" in entry.get("options", ()):
                    c.decide("stand", area=entry.get("area"), hand=entry.get("hand"), player=entry.get("player"))
            return
        if exp.get("kind") == "decision":
            if st.get("tentative"):
                c.confirm_implied_hit()
            elif "stand" in exp.get("options", ()) and rng.random() < 0.3:
                c.decide("stand", area=exp.get("area"), hand=exp.get("hand"), player=exp.get("player"))

    def logged_in(check: Any) -> None:
        if not check.ok:
            print(f"log-in refused: {check}", flush=True)
            app.exit(2)
            return
        c.start_shift("ann")
        print("ready", flush=True)
        timer.start()

    timer.timeout.connect(step)
    c.jobs.log_in("ann", "730418", logged_in)
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
