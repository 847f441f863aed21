"""Screenshots: the dealer's screen with the Player Terminals read-only (issue 38, build 5).

    Xvfb :9 -screen 0 1280x800x24 &
    DISPLAY=:9 QT_QPA_PLATFORM=xcb .venv/bin/python scripts/shot_dealer_terminals.py --size 1280x800

A station service with its terminal endpoint on loopback (real TLS), Electronic Blackjack with
six terminal seats, 500 of credits bought for each (a supervisor's PIN). t1-t4 have paired
terminals (headless, tests/service/test_terminals.py's pairing); t5 and t6 have none (the
dealer enters their decisions, as before). The shoe: Player 10S, Dealer 9H, Player 6D (hard 16
against 9), then 4C, 8C.

- deciding: t1 (25 main, 5 Royal Match) deciding at its terminal, the service's countdown, no
  choice of it on the dealer's panel, its Override (PIN) button; t2 stood at its terminal
  (done); t3's terminal overridden by supervisor sue (the dealer chooses for it); t4's terminal
  went down after its wager was accepted (5.9.1: the default decision, 3.18); t5 and t6 the
  dealer's, t5's choices in the action bar.
- settled: t1 hit (4C: 20) and stood at its terminal, the others stood on 16; the dealer's
  9H 8C = 17 stands (3.19): t1 wins 25 (PAY 25), its Royal Match loses (10S 6D not suited);
  the others lose their wagers.

Under an X server the root window is taken with ImageMagick's ``import``; with
``QT_QPA_PLATFORM=offscreen`` the window's own picture. Saves
dealer_terminals_<phase>_<W>x<H>.png.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import ui.common.qtfix  # noqa: E402, F401  (before any Qt call: keeps PySide6 6.12 from aborting CPython 3.11)

SEATS = ["t1", "t2", "t3", "t4", "t5", "t6"]
SUE = {"user": "sue", "pin": "482913"}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", default="1280x800")
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    args = parser.parse_args()
    w, _, h = args.size.partition("x")
    size = (int(w), int(h))
    os.environ.pop("DEALER_ASSIST_CONFIG", None)  # no station configuration: a development station
    from PySide6.QtWidgets import QApplication

    from dealer_assist.engine.table_setup import TableSetup, setup_to_json
    from dealer_assist.service.ops import Op
    from tests.service.conftest import make_shoe, wait_connected
    from tests.service.test_terminals import TerminalStation, paired
    from ui.common.service_link import ServiceLink
    from ui.dealer.app import build_client_screen

    app = QApplication.instance() or QApplication(sys.argv[:1])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    def until(check: Callable[[], bool], what: str) -> None:
        end = time.monotonic() + 20
        while not check():
            if time.monotonic() > end:
                raise SystemExit(f"error: not shown: {what}")
            app.processEvents()
            time.sleep(0.01)

    def shoot(window: Any, phase: str) -> None:
        end = time.monotonic() + 0.6
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.01)
        path = out / f"dealer_terminals_{phase}_{size[0]}x{size[1]}.png"
        if os.environ.get("DISPLAY") and os.environ.get("QT_QPA_PLATFORM") != "offscreen":
            subprocess.run(["import", "-window", "root", str(path)], check=True)
        else:
            window.grab().save(str(path))
        print(path)

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        station = TerminalStation(base / "state", base / "run" / "station.sock", make_shoe("10S 9H 6D 4C 8C"))
        station.start()
        screen = None
        try:
            wait_connected(station)
            client = station.dealer()
            setup = TableSetup(game="electronic", decks=6, terminals=list(SEATS), decision_seconds=90,
                               limits={"main": [Decimal(5), Decimal(1000)], "royal_match": [Decimal(1), Decimal(100)]})
            client.request("set_table", setup=setup_to_json(setup), pin=SUE)
            for seat in SEATS:
                client.request("buy_in", seat=seat, amount=500, pin=SUE)
            terms = {seat: paired(station, seat, base / seat) for seat in SEATS[:4]}
            terms["t1"].request("wager", bet="main", amount=25)
            terms["t1"].request("wager", bet="royal_match", amount=5)
            for seat, amount in (("t2", 10), ("t3", 50), ("t4", 10)):
                terms[seat].request("wager", bet="main", amount=amount)
            for seat, amount in (("t5", 20), ("t6", 15)):
                client.request("wager", player=seat, bet="main", amount=amount)

            link = ServiceLink(station.socket, "screen")
            link.ask(Op.LOGIN, name="ann", pin="730418")
            screen = build_client_screen(link, None, station.socket)
            screen.controller.start_shift("ann")
            window, controller = screen.window, screen.controller
            window.setGeometry(0, 0, *size)
            window.show()
            client.request("no_more_bets")
            terms["t4"].close()  # its wager accepted, then down (5.9.1)
            until(lambda: controller.linked == ["t1", "t2", "t3"], "t4 down")
            station.deal(client, 3)
            terms["t2"].request("decide", action="stand")
            client.request("terminal_override", seat="t3", pin=SUE)
            panel = window.terminals
            until(lambda: set(panel.countdowns) == {"t1", "t3", "t5", "t6"} and "t3" in controller.overrides,
                  "the decisions")
            shoot(window, "deciding")

            terms["t1"].request("decide", action="hit")
            station.deal(client, 1)  # 4C: t1's 20
            terms["t1"].request("decide", action="stand")
            for seat in ("t3", "t5", "t6"):
                client.request("decide", player=seat, action="stand")
            station.deal(client, 1)  # 8C: the dealer's 17
            until(lambda: controller.concluded and all(panel.states.get(s) for s in ("t1", "t2")), "the settlement")
            shoot(window, "settled")
        finally:
            if screen is not None:
                screen.controller.close()
                screen.window.close()
            station.stop()
            station.sim.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
