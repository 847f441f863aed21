"""Screenshots of the player terminal's window (issue 38) in every phase it can reach.

    QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/shot_terminal.py [--out docs/screenshots]

A station service with its terminal endpoint on loopback (tests/ui_terminal/terminal_table.py:
real TLS, terminal t1 paired, its window offscreen), an Electronic Blackjack table with a
decision time of 15 s (3.17). The player's own doings are the terminal's own buttons (chips,
bet spots, Place bet, Repeat bet, the decisions, Cash out); the dealer's screen only closes
the bets, takes the rounds off the table and, under a supervisor's override (3.17), enters
t1's wager and decision in round 4. The shoe's order, round by round (3.7: Player, Dealer,
Player, then the cards the hands take, 3.18.2, and the dealer's, 3.19):

  0. t1 has no credits (1.1.10): "no credits"; a supervisor buys it 500 at the dealer's screen.
  1. 8S 9H 8D, 3C KH, 10C, 7D 8H: t1 places 25 on the main wager and 5 on Bet the Set 21 and
     builds 5 on Kings Bounty ("bets open"); the dealer's screen says "No more bets" ("no more
     bets"); the pair of 8s against 9: hit, stand, double, split, surrender, with the countdown
     ("decision"); t1 splits, doubles hand 1 (8 3 + K = 21), stands on hand 2 (8 10 = 18); the
     dealer's 9 7 8 busts ("settled").
  2. AS AH KD: a blackjack against the dealer's Ace: even money offered (3.10.1,
     "even money"); t1 takes it and is paid 1 to 1 at once (no hand waits on the dealer).
  3. 10S AD 6C, 7H: 16 against an Ace: insurance offered (3.11, "insurance"); t1 does not
     decide: its time runs out and the default strategy stands on hard 16 (3.18, 3.18.1); the
     dealer's A 7 = 18 stands ("default decision").
  4. 10H 9C 9S, 8D: a supervisor overrides t1's terminal while the bets are open; the dealer
     places t1's 25 and decides for it ("override": the countdown, no choice offered).
  5. Between rounds the station stops ("reconnecting"), then starts again; t1 cashes out
     ("voucher": the meter 0, the last rounds).

Saves terminal-<NN>-<phase>-<W>x<H>.png at 1024x768 and 1920x1080 (the window's own picture).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import ui.common.qtfix  # noqa: E402, F401  (before any Qt call: keeps PySide6 6.12 from aborting CPython 3.11)

SIZES = [(1024, 768), (1920, 1080)]
CARDS = ("8S 9H 8D 3C KH 10C 7D 8H"  # round 1
         " AS AH KD"  # round 2
         " 10S AD 6C 7H"  # round 3
         " 10H 9C 9S 8D")  # round 4
DECISION_SECONDS = 15


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    args = parser.parse_args()
    from PySide6.QtWidgets import QApplication, QPushButton

    from tests.ui_terminal.terminal_table import SEAT, TerminalTable, wait_for

    app = QApplication(sys.argv[:1])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        t = TerminalTable(Path(tmp), CARDS, decision_seconds=DECISION_SECONDS, credited=("t2",))
        try:
            w = t.open_window(SIZES[0])
            c = t.controller
            shot = [0]

            def until(check: Callable[[], object], what: str, seconds: float = 15) -> None:
                wait_for(app.processEvents, lambda: bool(check()), what, seconds)

            def shoot(phase: str) -> None:
                for size in SIZES:
                    w.resize(*size)
                    for _ in range(30):
                        app.processEvents()
                    path = out / f"terminal-{shot[0]:02d}-{phase}-{size[0]}x{size[1]}.png"
                    w.grab().save(str(path))
                    print(path)
                shot[0] += 1
                w.resize(*SIZES[0])
                for _ in range(30):
                    app.processEvents()

            def touch(button: QPushButton) -> None:
                """The player's touch on one of the terminal's own buttons, then its answer."""
                assert button.isVisible() and button.isEnabled(), button.text()
                button.click()
                until(lambda: c.sending == 0, f"the answer to {button.text()!r}")
                assert not w.refusal.isVisible(), w.refusal.text()

            def decide(option: str) -> None:
                until(lambda: option in w.hands.options and w.hands.options[option].isVisible(),
                      f"t1's choice {option}")
                touch(w.hands.options[option])
                until(lambda: option not in w.hands.options or c.pending is None, f"{option} taken")

            def settle() -> None:
                until(lambda: c.view.get("concluded"), "the round settled")

            def next_round() -> None:
                t.screen.request("next_round")
                until(lambda: c.betting and not c.view.get("concluded"), "the next round's bets open")

            # 0: no credits yet (1.1.10)
            until(lambda: c.layout and c.chips, "the layout and the chips")
            shoot("no-credits")
            t.buy_in()
            until(lambda: c.view.get("meter") == 500, "the credits bought")

            # 1: the player bets at the terminal; a pair to decide; split, double, stand
            touch(w.chips.buttons[25])
            touch(w.bets.spots["main"])
            touch(w.chips.buttons[5])
            touch(w.bets.spots["bet_the_set"])
            touch(w.place_button)
            until(lambda: c.placed() == {"main": 25, "bet_the_set": 5}, "round 1's wagers")
            touch(w.bets.spots["kings_bounty"])  # built, not placed yet
            shoot("bets-open")
            t.screen.request("no_more_bets")  # 3.2
            until(lambda: not c.betting, '"No more bets"')
            shoot("no-more-bets")
            t.deal(3)  # 8S 9H 8D
            until(lambda: "split" in w.hands.options and w.hands.countdown.isVisible(), "round 1's decision")
            print("options:", list(w.hands.options))
            shoot("decision")
            decide("split")
            t.deal(1)  # 3C to hand 1 (3.13.1): 11
            decide("double")
            t.deal(1)  # KH: 21, one card only (3.15.4)
            t.deal(1)  # 10C to hand 2: 18
            decide("stand")
            t.deal(2)  # the dealer's 7D 8H: 9 7 8 = 24
            settle()
            shoot("settled")

            # 2: even money (3.10.1)
            next_round()
            touch(w.repeat_button)
            touch(w.place_button)
            until(lambda: c.placed() == {"main": 25, "bet_the_set": 5}, "round 2's wagers")
            t.deal(3)  # AS AH KD
            until(lambda: "even_money" in w.hands.options, "even money offered")
            print("options:", list(w.hands.options))
            shoot("even-money")
            decide("even_money")
            settle()  # paid 1 to 1 at once (3.10.1): no other hand waits on the dealer's cards

            # 3: insurance offered; no decision: the default strategy (3.18)
            next_round()
            touch(w.repeat_button)
            touch(w.place_button)
            until(lambda: c.placed() == {"main": 25, "bet_the_set": 5}, "round 3's wagers")
            t.deal(3)  # 10S AD 6C
            until(lambda: "insurance" in w.hands.options and w.hands.countdown.isVisible(), "insurance offered")
            print("options:", list(w.hands.options))
            shoot("insurance")
            until(lambda: not w.hands.options, "the time-out", DECISION_SECONDS + 15)
            t.deal(1)  # the dealer's 7H: A 7 = soft 18
            settle()
            shoot("default-decision")

            # 4: a supervisor's override: the dealer enters t1's wager and decision (3.17)
            next_round()
            t.override()
            until(lambda: c.override is not None, "the override shown")
            t.screen.request("wager", player=SEAT, bet="main", amount=25)
            t.deal(3)  # 10H 9C 9S
            until(lambda: c.pending is not None and w.hands.countdown.isVisible(), "round 4's decision")
            shoot("override")
            t.screen.request("decide", player=SEAT, action="stand", hand=1)
            t.deal(1)  # the dealer's 8D: 17
            settle()

            # 5: the station goes away and comes back; cash-out
            next_round()
            t.station.stop()
            until(lambda: w.link_notice.isVisible(), "the link's notice")
            shoot("reconnecting")
            t.station.start()
            t.screen = t.station.dealer()
            until(lambda: not w.link_notice.isVisible(), "connected again", 30)
            until(lambda: w.cash_out_button.isEnabled(), "cash-out offered")
            touch(w.cash_out_button)
            until(lambda: c.voucher is not None, "the voucher")
            shoot("voucher")
        finally:
            t.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
