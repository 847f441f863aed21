"""Taps per round on the dealer's screen (issue 34): count every touch a dealer makes.

    .venv/bin/python scripts/taps_per_round.py [--games ace_race,lucky8] [--size 1280x800] [--log]

The real dealer's window (offscreen, one screen of ``--size``; the real controller, store
file and simulated shoe on a pty) is driven ONLY by simulated clicks on the buttons a dealer
would touch, each one visible, enabled and not clipped away (a button behind a scroll bar or
off the window is refused: the count is of a path a finger can take). The shoe's cards come
from the simulated shoe (a card out of the shoe is not a tap: it is also every hit, the
table's rhythm); a player's name typed for *New player* is counted as keys, apart.

For each game:

- **first round**: 33 wagers placed area by area (tables: the seated player of each of the
  7 areas and one player behind on areas 1-4, each a main wager and the game's first two
  side bets; Electronic: 11 terminals, main and the first two side bets), then *No more bets*;
- that round's play (the heavy round's policy: insurance for the first player of each odd
  area, split of area 1's 8s, a double on 10/11, stand from 12) and **paying**: *Next round*
  once the layout is paid and collected (pay/collect is shown on each hand);
- **repeat round**: *Repeat all*, *No more bets*; the wagers recorded are checked to be the
  first round's;
- **heavy round** (ui/dealer/heavy_round.py's set-up): 21 players, every side bet (Electronic:
  12 terminals), its wagers by taps, then its play by taps (offers, splits with the players
  behind matching, doubles, stands; Electronic: each terminal's decisions keyed at the dealer's
  screen, which the players make at their terminals on a real table).

Prints a table of taps per game per scenario. Not a test: tests/ui/test_taps.py checks that the
driver's taps place exactly the wagers asked for.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import ui.common.qtfix  # noqa: E402, F401  (before any Qt call: keeps PySide6 6.12 from aborting CPython 3.11)

GAMES = ["ace_race", "electronic", "star_elements", "lucky8", "dueling8s"]
Bet = tuple[str, str, int, int | None]  # (player, bet, amount, area)


class TapRefused(RuntimeError):
    """The button a dealer would touch is not there to touch (hidden, disabled, clipped)."""


@dataclass
class Count:
    taps: int = 0
    keys: int = 0  # characters typed (a new player's name)
    what: Counter[str] = field(default_factory=Counter)


class Taps:
    """Drives a running dealer's window (``table``: ui.dealer.app.Table) by taps only."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self.window = table.window
        self.c = table.controller
        self.count = Count()
        self.log: list[str] = []

    # -------------------------------------------------------------- the finger
    def tap(self, widget: Any, what: str) -> None:
        """One touch on ``widget``, which must be on screen for a finger: shown, enabled and
        not clipped away by a scroll area or the window's edge."""
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        if widget is None or not widget.isVisible() or not widget.isEnabled():
            raise TapRefused(f"{what}: not shown or not enabled")
        visible = widget.visibleRegion().boundingRect()
        if visible.width() < widget.width() // 2 or visible.height() < widget.height() // 2:
            raise TapRefused(f"{what}: clipped ({visible.width()}x{visible.height()} of "
                             f"{widget.width()}x{widget.height()} in sight)")
        QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, visible.center())
        self.count.taps += 1
        self.count.what[what.split(" ")[0]] += 1
        self.log.append(what)
        self.settle()

    def type(self, field_: Any, text: str) -> None:
        from PySide6.QtTest import QTest

        QTest.keyClicks(field_, text)
        self.count.keys += len(text)

    def wait(self, done: Callable[[], bool], what: str, seconds: float = 60) -> None:
        from PySide6.QtWidgets import QApplication

        end = time.monotonic() + seconds
        while not done():
            QApplication.processEvents()
            time.sleep(0.002)
            if time.monotonic() > end:
                raise TapRefused(f"timed out waiting for {what}")

    def settle(self) -> None:
        """The screen refreshed (the service recorded every accepted input before it answered)."""
        from PySide6.QtWidgets import QApplication

        for _ in range(3):
            QApplication.processEvents()

    def shown(self, get: Callable[[], Any], what: str) -> Any:
        """Wait for a widget to be there to touch (the screen refreshes after each event)."""
        self.wait(lambda: (w := get()) is not None and w.isVisible() and w.isEnabled(), what, 10)
        return get()

    # -------------------------------------------------------------- betting
    def bet(self, player: str, bet: str, amount: int, area: int | None) -> None:
        """One wager as a dealer taps it: the area (if not chosen), the player (if not chosen;
        a new name by *New player*), the bet (if not chosen), the chips, Place."""
        panel = self.window.betting
        if area is not None and panel.area_number() != area:
            self.tap(panel.area_buttons.get(area), f"area {area}")
        if panel.player_name() != player:
            if player in panel.player_buttons:
                self.tap(panel.player_buttons[player], f"player {player}")
            else:
                self.tap(panel.new_player, "new-player")
                dialog = self.shown(lambda: panel.dialog, "the New player dialog")
                self.type(dialog.field, player)
                self.tap(dialog.ok, "ok (name)")
        if panel.bet_kind() != bet:
            self.tap(panel.bet_buttons.get(bet), f"bet {bet}")
        for chip in chips_for(amount, panel.chips):
            self.tap(panel.chip_buttons[panel.chips.index(chip)], f"chip {chip}")
        before = len(self.c.slip)
        self.tap(panel.place_button, "place")
        if len(self.c.slip) != before + 1:
            raise TapRefused(f"wager {player} {bet} {amount} area {area} refused: {self.c.last_refusal}")

    def prompt(self, key: str) -> None:
        """A button of the prompt (an option like ``stand``, ``no_more_bets``, ``confirm``)."""
        button = self.shown(lambda: self.window.prompt.buttons.get(key), f"the prompt's {key}")
        self.tap(button, key)

    def repeat_all(self) -> None:
        self.tap(self.shown(lambda: self.window.betting.repeat_all_button, "Repeat all"), "repeat-all")

    def recorded_wagers(self) -> list[Bet]:
        """The wagers of the round on the table, as recorded (before *no more bets*)."""
        out: list[Bet] = []
        for e in self.c.events:
            if e.get("type") == "no_more_bets":
                break
            if e.get("type") == "wager" and e.get("hand") is None:
                amount = e["amount"]
                out.append((str(e["player"]), str(e["bet"]), int(amount), e.get("area")))
        return out

    # -------------------------------------------------------------- play
    def deal(self) -> None:
        """The next card out of the simulated shoe (not a tap)."""
        c = self.c
        before = len(c.events)
        assert self.table.sim is not None
        self.table.sim.deal()
        self.wait(lambda: len(c.events) > before or bool(c.implied) or c.stray_card is not None
                  or bool(c.hold_reason), "the card")
        if c.stray_card is not None or (c.hold_reason and len(c.events) == before):
            raise TapRefused(f"card held: {c.stray_reason or c.hold_reason}")
        self.settle()

    def play(self, electronic: bool) -> None:
        """Play the round to its end by the heavy round's policy: cards from the shoe,
        decisions by taps."""
        from ui.common.terminals_panel import TerminalBox
        from ui.dealer.heavy_round import choose_decision

        insured: set[str] = set()
        for _ in range(800):
            self.settle()
            if self.c.concluded:
                return
            rnd = self.c.current
            exp = rnd.expectation()
            if exp.kind == "card":
                self.deal()
                continue
            kind, fields = choose_decision(rnd, exp, insured) or ("", {})
            action = str(fields.get("action", ""))
            if kind == "report":
                self.prompt("close_offers")
            elif exp.kind == "decisions":  # Electronic: the terminal's choice in the action bar
                panel = self.window.terminals
                player = str(fields["player"])
                if panel.selected != player:
                    box = next(b for b in panel.findChildren(TerminalBox) if b.name == player and b.isVisible())
                    self.tap(box, f"terminal {player}")
                slot = (player, action)

                def choice(p: Any = panel, k: tuple[str, str] = slot) -> Any:
                    return p.buttons.get(k)

                self.tap(self.shown(choice, action), f"{action} (terminal)")
            elif action == "hit" and not electronic:
                self.deal()  # the table's rhythm: the card is the hit
            elif exp.offers:  # the policy takes an offer for a player (its button in the offers' grid)
                self.prompt(f"offer:{fields['player']}:{fields['area']}:{action}")
            else:
                followers = exp.extra.get("followers") if exp.extra else None
                self.prompt(action)
                if action in ("split", "double") and followers:
                    dialog = self.shown(lambda: self.window.followers_dialog, "the other players' dialog")
                    for f in followers:  # split: each matches; double: none doubles (the policy)
                        key = "match" if action == "split" else ""
                        self.tap(dialog.buttons[(str(f["player"]), key)], f"{action}-follower {f['player']}")
                    self.tap(dialog.ok, f"{action}-ok")
        raise TapRefused("the round did not end")


def chips_for(amount: int, chips: tuple[int, ...]) -> list[int]:
    """The fewest chips for ``amount`` (largest first), as a dealer counts them."""
    out: list[int] = []
    for chip in sorted(chips, reverse=True):
        while amount >= chip:
            out.append(chip)
            amount -= chip
    if amount:
        raise ValueError(f"no chips make {amount}")
    return out


def first_round_bets(setup: Any) -> list[Bet]:
    """33 wagers: 11 players (Electronic: terminals) each a main wager and two side bets."""
    from ui.dealer.heavy_round import PLAYERS

    sides = list(setup.rules.side_bets)[:2]
    if setup.electronic:
        out: list[Bet] = []
        for n, t in enumerate(setup.terminals[:11]):
            out += [(t, "main", 25 * (1 + n % 4), None), *((t, s, 5 * (1 + n % 2), None) for s in sides)]
        return out
    out = []
    for area in range(1, 8):
        seated = PLAYERS[3 * (area - 1)]
        out += [(seated, "main", 100, area), *((seated, s, 10, area) for s in sides)]
        if area <= 4:  # one player behind
            behind = PLAYERS[3 * (area - 1) + 1]
            out += [(behind, "main", 25, area), *((behind, s, 5, area) for s in sides)]
    return out


def open_table(setup: Any, bets: list[Bet], tmp: str, size: tuple[int, int], name: str) -> Any:
    from dealer_assist.base.cards import parse_card
    from ui.common.screen_fit import fill_screen
    from ui.dealer.heavy_round import plan
    from ui.dealer.local_station import start_local_station

    cards = plan(setup, bets)
    folder = Path(tmp) / name
    folder.mkdir()
    table = start_local_station(folder, 0, setup, [parse_card(c) for c in cards], db=folder / "table.db")
    fill_screen(table.window)
    taps = Taps(table)
    c = table.controller
    taps.wait(lambda: c.rnd is not None and c.shoe.connected, "the table")
    taps.settle()
    return taps


def close_table(taps: Taps) -> None:
    from PySide6.QtWidgets import QApplication

    taps.table.close()
    taps.window.deleteLater()
    for _ in range(5):
        QApplication.processEvents()


def place_all(taps: Taps, bets: list[Bet]) -> Count:
    start = Count(taps.count.taps, taps.count.keys)
    for bet in bets:
        taps.bet(*bet)
    taps.prompt("no_more_bets")
    if sorted(taps.recorded_wagers(), key=str) != sorted(bets, key=str):
        raise TapRefused(f"recorded wagers differ from those tapped: {taps.recorded_wagers()}")
    return since(taps, start)


def since(taps: Taps, start: Count) -> Count:
    return Count(taps.count.taps - start.taps, taps.count.keys - start.keys)


def measure(game: str, size: tuple[int, int], log: bool) -> dict[str, Any]:
    from ui.dealer.heavy_round import heavy_setup, wagers

    setup = heavy_setup(game)
    electronic = bool(setup.electronic)
    out: dict[str, Any] = {"game": game}
    with tempfile.TemporaryDirectory() as tmp:
        bets = first_round_bets(setup)
        taps = open_table(setup, bets, tmp, size, "first")
        out["wagers"] = len(bets)
        out["window"] = f"{taps.window.width()}x{taps.window.height()}"
        first = place_all(taps, bets)
        out["first"], out["first_keys"] = first.taps, first.keys
        start = Count(taps.count.taps)
        taps.play(electronic)
        out["play33"] = since(taps, start).taps
        start = Count(taps.count.taps)
        taps.prompt("confirm")  # paid and collected: Next round
        out["paying"] = since(taps, start).taps
        start = Count(taps.count.taps)
        taps.repeat_all()
        taps.prompt("no_more_bets")
        if sorted(taps.recorded_wagers(), key=str) != sorted(bets, key=str):
            raise TapRefused("Repeat all did not place the first round's wagers")
        out["repeat"] = since(taps, start).taps
        if log:
            print(game, "33 wagers:", json.dumps(taps.log), file=sys.stderr)
        close_table(taps)
        heavy = wagers(setup)
        taps = open_table(setup, heavy, tmp, size, "heavy")
        out["heavy_wagers"] = len(heavy)
        placed = place_all(taps, heavy)
        out["heavy_bets"], out["heavy_keys"] = placed.taps, placed.keys
        start = Count(taps.count.taps)
        before = Counter(taps.count.what)
        taps.play(electronic)
        out["heavy_play"] = since(taps, start).taps
        out["heavy_play_what"] = dict(taps.count.what - before)
        start = Count(taps.count.taps)
        taps.prompt("confirm")
        out["heavy_paying"] = since(taps, start).taps
        if log:
            print(game, "heavy:", json.dumps(taps.log), file=sys.stderr)
        close_table(taps)
    return out


def screen_config(size: tuple[int, int], tmp: str) -> str:
    path = Path(tmp) / "screen.json"
    path.write_text(json.dumps({"screens": [{"name": "table", "x": 0, "y": 0, "width": size[0], "height": size[1],
                                              "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    return str(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--size", default="1280x800", help="the table screen (default: the smallest)")
    parser.add_argument("--log", action="store_true", help="every tap, in order, on stderr")
    args = parser.parse_args()
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in GAMES]
    w, _, h = args.size.partition("x")
    if unknown or not (w.isdigit() and h.isdigit()):
        print(f"error: unknown game {', '.join(unknown)} (one of {', '.join(GAMES)})" if unknown
              else f"error: --size {args.size!r} is not WIDTHxHEIGHT", file=sys.stderr)
        return 2
    size = (int(w), int(h))
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={screen_config(size, tmp)}"
        from PySide6.QtCore import QtMsgType, qInstallMessageHandler
        from PySide6.QtWidgets import QApplication

        def quiet(kind: QtMsgType, _context: object, text: str) -> None:
            if "propagateSizeHints" not in text:  # the offscreen platform's note on every dialog
                print(text, file=sys.stderr)

        qInstallMessageHandler(quiet)
        app = QApplication.instance() or QApplication([])
        rows = []
        for game in games:
            try:
                rows.append(measure(game, size, args.log))
            except TapRefused as exc:
                print(f"error: {game}: {exc}", file=sys.stderr)
                return 1
        del app
    windows = ", ".join(sorted({r["window"] for r in rows}))
    print(f"Taps per round on a {size[0]}x{size[1]} screen (the window {windows}; keys: letters of new players' names)")
    head = ("game", "wagers", "first round", "its play", "paying", "repeat round",
            "heavy wagers", "heavy bets", "heavy play", "heavy paying")
    print(" | ".join(head))
    for r in rows:
        print(" | ".join(str(x) for x in (
            r["game"], r["wagers"], f"{r['first']} (+{r['first_keys']} keys)", r["play33"], r["paying"], r["repeat"],
            r["heavy_wagers"], f"{r['heavy_bets']} (+{r['heavy_keys']} keys)", r["heavy_play"], r["heavy_paying"])))
    for r in rows:
        print(f"{r['game']} heavy play: " + ", ".join(f"{k} {v}" for k, v in sorted(r["heavy_play_what"].items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
