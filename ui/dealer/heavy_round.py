"""Look at the dealer's screen: a full round of a game with the heaviest set-up, on screen.

``python -m ui.dealer.heavy_round --game lucky8 --size 1280x800 --out docs/screenshots``
(``scripts/screens_all.sh``: every game at every table screen size, under Xvfb).

Every area holds three players, each with a main wager and every side bet; the dealer's
first card is an ace, so every player is offered insurance (where the game has it);
area 1 is split and resplit to four hands; a hand doubles; the other hands are hit by
dealing their card (the table's rhythm: no key for a hit) or stand. Electronic: twelve
terminals with every side bet. The cards are chosen beforehand by playing the same round
on the engine alone, then the window plays it for real: the simulated shoe (a pty, the
real driver, the station service's) delivers each card, decisions go through the
controller to the service (ui/dealer/local_station.py: the station's one path).

Run under an X server of the given size (``Xvfb :5 -screen 0 1280x800x24``, ``DISPLAY=:5``)
to take the screenshots with ImageMagick's ``import -window root``; with
``QT_QPA_PLATFORM=offscreen`` the window's own ``grab()`` is saved instead.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ui.common.qtfix  # noqa: F401  (first: keeps PySide6 6.12 from aborting CPython 3.11)
from dealer_assist.engine.events import CloseOffers
from dealer_assist.engine.round_api import HandView

PLAYERS = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lea", "max", "ned",
           "oli", "pam", "quin", "ray", "sam", "tia", "uma"]
TERMINALS = [f"t{n}" for n in range(1, 13)]  # the most terminals this table is configured for
SPLIT_TO = 4  # area 1 (Electronic: the terminals split as far as the rules allow)


def heavy_setup(game: str) -> Any:
    from decimal import Decimal

    from dealer_assist.engine.table_setup import TableSetup
    from dealer_assist.games import GAMES

    rules = GAMES[game]
    limits = {"main": [Decimal(5), Decimal(1000)], **{bet: [Decimal(1), Decimal(200)] for bet in rules.side_bets}}
    decks = min(6, rules.deck_range[1])
    if rules.shared_hand:
        return TableSetup(game=game, decks=decks, limits=limits, terminals=list(TERMINALS), decision_seconds=120)  # the most 3.18.1 allows
    seated = {PLAYERS[3 * (a - 1)]: a for a in range(1, 8)}
    return TableSetup(game=game, decks=decks, areas=7, limits=limits, seated=seated)


def wagers(setup: Any) -> list[tuple[str, str, int, int | None]]:
    """(player, bet, amount, area): every player a main wager and every side bet."""
    out: list[tuple[str, str, int, int | None]] = []
    sides = list(setup.rules.side_bets)
    if setup.electronic:
        for n, t in enumerate(setup.terminals):
            out.append((t, "main", 25 * (1 + n % 4), None))
            out += [(t, bet, 5 * (1 + n % 2), None) for bet in sides]
        return out
    for area in range(1, 8):
        for k in range(3):
            p = PLAYERS[3 * (area - 1) + k]
            out.append((p, "main", [100, 25, 50][k], area))
            out += [(p, bet, [10, 5, 5][k], area) for bet in sides]
    return out


class Cards:
    """Picks the cards of the scripted round from the game's own shoe (5.1 holds)."""

    def __init__(self, game: str, decks: int) -> None:
        from dealer_assist.games import composition_for

        self.pool = [str(c) for c in composition_for(game)] * decks
        self.cycle = 0

    def take(self, ranks: list[str]) -> str:
        from dealer_assist.base.cards import parse_card

        for rank in ranks:
            for i, text in enumerate(self.pool):
                if parse_card(text).rank == rank:
                    return self.pool.pop(i)
        return self.pool.pop(0)


def choose_card(rnd: Any, exp: Any, cards: Cards) -> str:
    target = exp.target or ""
    layout = rnd.view()  # the engine's typed view of the round
    electronic = layout.shared_hand
    if target == "dealer":
        if len(layout.dealer.cards) == (1 if layout.dealer.printed_first else 0):
            return cards.take(["A"] if rnd.rules.insurance else ["6"])
        return cards.take(["7", "6", "9"])  # ... the dealer stands or draws
    if target.startswith("area:1/") or (electronic and target == "players"):
        hands = layout.area(1).hands if not electronic else ()
        if not electronic and len(hands) < SPLIT_TO:
            return cards.take(["8"])  # the pair that is split and resplit
        if electronic and len(layout.player_cards) < 3:
            return cards.take(["8"])
        return cards.take(["3", "2", "9", "K"])
    if target.startswith("area:2/"):
        return cards.take(["6", "5", "10", "K"])  # 6 + 5 = 11: a double
    cards.cycle += 1
    return cards.take([["10", "K", "Q"], ["9", "7"], ["5", "4", "3"], ["J", "2"]][cards.cycle % 4])


def choose_decision(rnd: Any, exp: Any, insured: set[str]) -> tuple[str, dict[str, Any]] | None:
    """The policy of the scripted round: ('decide'|'report', fields); ``insured``: the players
    who took insurance so far (the policy's own memory)."""
    layout = rnd.view()
    if exp.kind == "decisions":  # Electronic: the first pending terminal
        p = exp.pending[0]
        t = next(t for t in layout.terminals if t.player == p["player"])
        total = t.hands[p["hand"] - 1].total
        if "split" in p["options"]:
            return "decide", {"action": "split", "player": p["player"], "hand": p["hand"]}
        if "double" in p["options"] and total in (10, 11):
            return "decide", {"action": "double", "player": p["player"], "hand": p["hand"]}
        action = "hit" if total < 12 and "hit" in p["options"] else "stand"
        return "decide", {"action": action, "player": p["player"], "hand": p["hand"]}
    if exp.offers:
        # the first player of each odd area takes insurance (or surrenders), then the offers close
        for offer in exp.offers:
            area = offer["area"]
            first = layout.area(area).wagers[0].player
            if area % 2 and offer["player"] == first and "insurance" in offer["options"] and first not in insured:
                insured.add(first)
                return "decide", {"action": "insurance", "area": area, "hand": 1, "player": first}
        return "report", {"kind": "close_offers"}
    options = exp.options
    area = layout.area(exp.area)
    total = area.hands[exp.hand - 1].total
    if "split" in options and exp.area == 1 and len(area.hands) < SPLIT_TO:
        return "decide", {"action": "split", "area": exp.area, "hand": exp.hand,
                          "followers": {w.player: "match" for w in area.wagers if w.player != exp.player}}
    if "double" in options and total in (10, 11):
        return "decide", {"action": "double", "area": exp.area, "hand": exp.hand,
                          "followers": {w.player: "" for w in area.wagers if w.player != exp.player} or None}
    if "hit" in options and total < 12:
        return "decide", {"action": "hit", "area": exp.area, "hand": exp.hand}
    if "stand" in options:
        return "decide", {"action": "stand", "area": exp.area, "hand": exp.hand}
    return "decide", {"action": options[0], "area": exp.area, "hand": exp.hand}


def plan(setup: Any, bets: list[tuple[str, str, int, int | None]] | None = None) -> list[str]:
    """Play the round on the engine alone and return the cards it takes, in order
    (``bets``: the round's wagers, the heavy set of :func:`wagers` when not given)."""
    from decimal import Decimal

    from dealer_assist.base.cards import parse_card
    from dealer_assist.engine.events import CardDrawn, Decision, NoMoreBets, Wager
    from dealer_assist.engine.transcript import new_round

    rnd = new_round(setup.config([]))
    for player, bet, amount, area in wagers(setup) if bets is None else bets:
        rnd.apply(Wager(player, bet, Decimal(str(amount)), area))
    rnd.apply(NoMoreBets())
    cards = Cards(setup.game, setup.decks)
    dealt: list[str] = []
    insured: set[str] = set()
    for _ in range(400):
        if rnd.status() != "in_progress":
            break
        exp = rnd.expectation()
        if exp.kind == "card":
            card = choose_card(rnd, exp, cards)
            dealt.append(card)
            rnd.apply(CardDrawn(parse_card(card)))
            continue
        step = choose_decision(rnd, exp, insured)
        if step is None:
            break
        kind, fields = step
        if kind == "report":  # the policy's only report: the offers close
            rnd.apply(CloseOffers())
            continue
        followers = tuple((p, v) for p, v in (fields.get("followers") or {}).items() if v != "")
        rnd.apply(Decision(fields["action"], None if setup.electronic else fields.get("area"), fields.get("hand"),
                           fields.get("player"), None, followers))
    return dealt


class Shooter:
    """Takes the screenshots; ``check(name, window)``, if given, is called at each instead."""

    def __init__(self, app: Any, window: Any, out: Path, prefix: str,
                 check: Callable[[str, Any], None] | None = None) -> None:
        self.app = app
        self.window = window
        self.out = out
        self.prefix = prefix
        self.check = check
        self.x11 = bool(os.environ.get("DISPLAY")) and os.environ.get("QT_QPA_PLATFORM") != "offscreen"

    def settle(self, seconds: float = 0.4) -> None:
        """The window laid out and painted: offscreen, once Qt is idle (ui/common/idle.py);
        under an X server, ``seconds`` (the server paints the screenshot on its own time)."""
        if not self.x11:
            from ui.common.idle import wait_idle

            wait_idle()
            return
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.app.processEvents()
            time.sleep(0.01)

    def shot(self, name: str) -> Path | None:
        self.settle()
        if self.check is not None:
            self.check(name, self.window)
            return None
        self.out.mkdir(parents=True, exist_ok=True)
        path = self.out / f"{self.prefix}_{name}.png"
        if self.x11:
            subprocess.run(["import", "-window", "root", str(path)], check=True)
        else:
            self.window.grab().save(str(path))
        print(path)
        return path


def run(game: str, size: tuple[int, int], out: Path, check: Callable[[str, Any], None] | None = None,
        db_dir: str | None = None, review: bool = False,
        after_event: Callable[[str, Any], None] | None = None, keep: Path | None = None) -> None:
    """The heavy round of ``game`` at ``size``; ``after_event(what, window)`` after every
    event is on disk and shown; ``keep``: a folder the round's store file (with its key and
    head record) is copied to once the table is closed (the review's layout test)."""
    from PySide6.QtWidgets import QApplication

    from dealer_assist.base.cards import parse_card
    from ui.dealer.local_station import start_local_station

    app = QApplication.instance() or QApplication([])
    setup = heavy_setup(game)
    cards = plan(setup)
    with tempfile.TemporaryDirectory(dir=db_dir) as tmp:
        # the station's one path: the service in this process, the window its client
        table = start_local_station(Path(tmp), 0, setup, [parse_card(c) for c in cards], db=Path(tmp) / "screens.db")
        window = table.window
        from PySide6.QtWidgets import QToolBar

        bar = window.findChild(QToolBar, "simulated_shoe")
        if bar is not None:  # this script deals the cards: the screen as a station's shoe leaves it
            bar.hide()
        window.setGeometry(0, 0, *size)
        window.show()
        shooter = Shooter(app, window, out, f"{game}_{size[0]}x{size[1]}", check)
        play(app, window, table.controller, table.sim, setup, shooter,
             after_event=None if after_event is None else (lambda what: after_event(what, window)))
        if review:
            _review_shot(app, table, size, out, shooter)
        table.close()
        window.deleteLater()
        if keep is not None:
            import shutil

            keep.mkdir(parents=True, exist_ok=True)
            for file in Path(tmp).glob("screens.db*"):  # the file, its key and head record
                shutil.copyfile(file, keep / file.name)


def play(app: Any, window: Any, c: Any, sim: Any, setup: Any, shooter: Shooter,
         after_event: Callable[[str], None] | None = None) -> None:
    """Play the heavy round on a running window: the wagers, then each card and decision
    through the controller and the simulated shoe; ``after_event(what)`` after every event
    is on disk (and shown)."""
    def done(what: str) -> None:
        if after_event is not None:  # the service answered: the event is recorded
            shooter.settle(0.05)
            after_event(what)

    wait(app, lambda: c.rnd is not None and c.shoe.connected, "the table")  # the service's state
    for player, bet, amount, area in wagers(setup):
        if not c.place_wager(player, bet, amount, area):
            raise SystemExit(f"wager refused: {c.last_refusal}")
        done(f"wager {player} {bet}")
    window.refresh()
    shooter.shot("1_betting")
    c.no_more_bets()
    done("no more bets")
    shots = {"offers": False, "split": False}
    insured: set[str] = set()
    for _ in range(600):
        app.processEvents()
        rnd = c.current
        if c.concluded:
            break
        exp = rnd.expectation()
        if exp.kind == "card":
            _deal_and_wait(app, c, sim, "the card")
            if c.stray_card is not None:
                raise SystemExit(f"card held: {c.stray_reason}")
            done(f"card {c.events[-1] if c.events else ''}")
            continue
        if exp.offers and not shots["offers"]:
            shots["offers"] = True
            shooter.shot("2_offers")
        if exp.kind == "decisions" and not shots["split"] and any(
                len(t.hands) > 1 for t in rnd.view().terminals):
            shots["split"] = True
            shooter.shot("3_play")
        if (exp.kind == "decision" and not shots["split"] and not rnd.rules.shared_hand
                and len(_hands_of_area_1(rnd)) >= SPLIT_TO
                and exp.area is not None and exp.area >= 2):
            shots["split"] = True
            shooter.shot("3_play")
        kind, fields = choose_decision(rnd, exp, insured) or ("", {})
        if kind == "report":  # the policy's only report: the offers close
            c.submit(CloseOffers())
            done("close offers")
        elif fields.get("action") == "hit" and not setup.electronic:
            _deal_and_wait(app, c, sim, "the hit")  # the table's rhythm: the card is the hit
            done("hit by its card")
        else:
            followers = fields.pop("followers", None)
            if followers:
                followers = {p: v for p, v in followers.items() if v != ""} or None
            if not c.decide(fields.pop("action"), followers=followers, **fields):
                raise SystemExit(f"decision refused: {c.last_refusal}")
            done(f"decision {exp.area}/{exp.hand}")
    if not shots["split"]:
        shooter.shot("3_play")
    shooter.shot("4_settled")
    if shooter.check is None:  # the pictures: the settlement's Details opened as well
        details = window.settlement.clauses_button
        details.setChecked(True)
        shooter.shot("4_details")
        details.setChecked(False)


def _review_shot(app: Any, table: Any, size: tuple[int, int], out: Path, shooter: Shooter) -> None:
    """The review's replay of the round just played: the same layout widget, at the end."""
    from ui.review.app import ReviewWindow, open_review

    c = table.controller
    wait(app, lambda: c.concluded, "the settle output")  # recorded with the round's last event
    review = open_review(str(table.store_path), None, supervisor="sam")
    assert isinstance(review, ReviewWindow)
    review.setGeometry(0, 0, *size)
    review.show()
    review.raise_()
    shooter.settle(0.5)
    rid = review.model.rows[0].id
    review.select_round(rid)
    shooter.window = review
    shooter.shot("5_review")
    full = review.detail.open_full_replay()  # the replay on the whole screen: no scrolling
    assert full is not None
    shooter.window = full
    shooter.shot("6_replay")
    full.close()
    review.close()


def _deal_and_wait(app: Any, c: Any, sim: Any, what: str) -> None:
    before = len(c.events)
    sim.deal()
    # a hold (a frame lost on the line, e.g. after the shoe's link dropped and its port was
    # reopened: the port's input is flushed) keeps every later card: say so, never a timeout
    wait(app, lambda: len(c.events) > before or bool(c.implied) or c.stray_card is not None
         or bool(c.hold_reason), what)
    if c.hold_reason and len(c.events) == before:
        raise SystemExit(f"{what} is held: {c.hold_reason}")


def wait(app: Any, done: Callable[[], bool], what: str, seconds: float = 60) -> None:  # a loaded machine
    end = time.monotonic() + seconds
    while not done():
        app.processEvents()
        time.sleep(0.005)
        if time.monotonic() > end:
            raise SystemExit(f"timed out waiting for {what}")



def _hands_of_area_1(rnd: Any) -> tuple[HandView, ...]:  # an engine round, or the screen's ShownRound
    area = rnd.view().area(1)
    return () if area is None else area.hands


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--size", default="1280x800")
    parser.add_argument("--out", default="docs/screenshots")
    parser.add_argument("--review", action="store_true", help="also the review's replay of the round")
    args = parser.parse_args()
    w, _, h = args.size.partition("x")
    run(args.game, (int(w), int(h)), Path(args.out), review=args.review)
    return 0


if __name__ == "__main__":
    sys.exit(main())
