"""Screenshots of the player terminal's window (issue 38, build 2) in each phase it can reach.

    QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/shot_terminal.py [--out docs/screenshots]

A station service with its terminal endpoint on loopback (tests/ui_terminal/terminal_table.py:
real TLS, terminal t1 paired, 500 of credits bought for it), an Electronic Blackjack table, the shoe's order 10S 9H QD 8C
then 8S AH 8D 7C. Round 1 is played to its settlement (the last rounds' history); round 2 is
pictured: bets open (t1's 25 on the main wager and 5 on Bet the Set 21 placed, 5 more on
Kings Bounty being built), cards dealt (t1's decision; the dealer shows an Ace), settled.
The wagers and decisions are sent by the dealer's screen for t1 (until the service takes a
terminal's own). Saves terminal-<phase>-<W>x<H>.png at 1024x768 and 1920x1080 (the window's
own picture).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import ui.common.qtfix  # noqa: E402, F401  (before any Qt call: keeps PySide6 6.12 from aborting CPython 3.11)

SIZES = [(1024, 768), (1920, 1080)]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    args = parser.parse_args()
    from PySide6.QtWidgets import QApplication

    from tests.ui_terminal.terminal_table import SEAT, TerminalTable, wait_for

    app = QApplication(sys.argv[:1])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        t = TerminalTable(Path(tmp), "10S 9H QD 8C 8S AH 8D 7C")
        try:
            w = t.open_window(SIZES[0])
            c = t.controller

            def until(check: object, what: str) -> None:
                wait_for(app.processEvents, check, what)  # type: ignore[arg-type]

            def shoot(phase: str) -> None:
                for size in SIZES:
                    w.resize(*size)
                    for _ in range(30):
                        app.processEvents()
                    path = out / f"terminal-{phase}-{size[0]}x{size[1]}.png"
                    w.grab().save(str(path))
                    print(path)

            # round 1: to its settlement (history)
            until(lambda: bool(c.layout), "the layout")
            t.screen.request("wager", player=SEAT, bet="main", amount=10)
            t.screen.request("wager", player=SEAT, bet="royal_match", amount=5)
            t.deal(3)
            until(lambda: c.pending is not None, "round 1's decision")
            t.override()  # a supervisor's override: the dealer's screen enters t1's decision (3.17)
            t.screen.request("decide", player=SEAT, action="stand", hand=1)
            t.deal(1)
            until(lambda: bool(c.view.get("concluded")), "round 1 settled")
            t.screen.request("next_round")
            until(lambda: c.betting and not c.view.get("concluded"), "round 2's bets open")
            # round 2
            t.screen.request("wager", player=SEAT, bet="main", amount=25)
            t.screen.request("wager", player=SEAT, bet="bet_the_set", amount=5)
            until(lambda: c.placed().get("bet_the_set") is not None, "round 2's wagers")
            c.choose_chip(5)
            c.add_chip("kings_bounty")
            shoot("1-bets-open")
            t.deal(3)
            until(lambda: c.pending is not None, "round 2's decision")
            print("options:", c.pending["options"] if c.pending else None)
            shoot("2-cards-dealt")
            t.override()  # a supervisor's override: the dealer's screen enters t1's decision (3.17)
            t.screen.request("decide", player=SEAT, action="stand", hand=1)
            until(lambda: c.pending is None, "decided")
            t.deal(1)  # 7C: the dealer's soft 18 stands (3.19)
            until(lambda: bool(c.view.get("concluded")), "round 2 settled")
            shoot("3-settled")
        finally:
            t.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
