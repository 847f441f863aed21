"""Run a dealer's window in a child process, play part of a round, then wait to be killed.

``python -m tests.ui.recording_table DB LINK``: Lucky 8, alice main 100 on area 1; no more
bets; the shoe deals 8♥ (area 1), 6♦ (dealer), 9♠ (area 1). Prints READY once every event
is on disk, then sleeps until SIGKILL.
"""

from __future__ import annotations

import os
import sys
import time

os.environ["QT_QPA_PLATFORM"] = "offscreen"

from PySide6.QtWidgets import QApplication  # noqa: E402

from dealer_assist.cards import cards  # noqa: E402
from ui.app import build_table  # noqa: E402
from ui.controller import TableSetup  # noqa: E402


def pump_until(app: QApplication, condition: object, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > end:
            raise SystemExit("timed out")
        app.processEvents()
        time.sleep(0.005)


def main() -> None:
    db, link = sys.argv[1], sys.argv[2]
    app = QApplication([])
    setup = TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1})
    table = build_table(setup, db=db, dealer="ann", sim_cards=list(cards("8H 6D 9S 10C 4S 2C")), sim_link=link)
    c = table.controller
    pump_until(app, lambda: c.store is not None and c.rnd is not None and c.shoe.connected)
    c.place_wager("alice", "main", 100, 1)
    c.no_more_bets()
    for n in range(1, 4):
        assert table.sim is not None
        table.sim.deal()
        pump_until(app, lambda n=n: sum(e["type"] == "card" for e in c.events) == n and c.unacknowledged == 0)
    print("READY", flush=True)
    while True:
        app.processEvents()
        time.sleep(0.05)


if __name__ == "__main__":
    main()
