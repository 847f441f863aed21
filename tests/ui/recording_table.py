"""Run a station (its service and the dealer's screen) in a child process, play part of a
round, then wait to be killed: a power failure of the whole station.

``python -m tests.ui.recording_table DB LINK``: Lucky 8, alice main 100 on area 1; no more
bets; the shoe deals 8♥ (area 1), 6♦ (dealer), 9♠ (area 1). Prints READY once every event
is on disk, then sleeps until SIGKILL.

``... DB LINK --implied``: the shoe deals 6♥ (area 1), 9♦ (dealer), 5♣ (area 1): alice has
11 and may hit or double; then 10♠ without a key pressed, an implied hit that Double may
still claim (not yet an event). READY once that card is on disk as the pending entry and on
screen: the moment a crash used to lose the card.

The service and its state are those of ui/dealer/local_station.py for DB, so the test's next
table on DB is the restart of this one.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ["QT_QPA_PLATFORM"] = "offscreen"

from PySide6.QtWidgets import QApplication  # noqa: E402

from dealer_assist.base.cards import cards  # noqa: E402
from dealer_assist.engine.table_setup import TableSetup  # noqa: E402
from ui.common.cards import CardFace  # noqa: E402
from ui.dealer.local_station import start_local_station  # noqa: E402


def pump_until(app: QApplication, condition: object, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > end:
            raise SystemExit("timed out")
        app.processEvents()
        time.sleep(0.005)


def main() -> None:
    db, link = Path(sys.argv[1]), Path(sys.argv[2])
    app = QApplication([])
    implied = "--implied" in sys.argv[3:]
    setup = TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1})
    order = "6H 9D 5C 10S 8C" if implied else "8H 6D 9S 10C 4S 2C"
    link.mkdir(parents=True, exist_ok=True)
    table = start_local_station(link, 0, setup, list(cards(order)), db=db)
    c = table.controller
    table.window.show()
    pump_until(app, lambda: c.rnd is not None and c.shoe.connected)
    assert c.place_wager("alice", "main", 100, 1), c.last_refusal
    assert c.no_more_bets(), c.last_refusal
    for n in range(1, 4):
        table.sim.deal()
        pump_until(app, lambda n=n: sum(e["type"] == "card" for e in c.events) == n)
    if implied:
        table.sim.deal()  # 10♠: the player signalled; no key pressed
        pump_until(app, lambda: bool(c.implied))
        faces = [f.text for f in table.window.table_view.area_boxes[1].findChildren(CardFace)]
        assert faces == ["6H", "5C", "10S"], faces  # shown, and Double may still claim it
        assert "double" in table.window.prompt.buttons
    print("READY", flush=True)
    while True:
        app.processEvents()
        time.sleep(0.05)


if __name__ == "__main__":
    main()
