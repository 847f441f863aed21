"""A dealer's window that plays rounds of all five games until it is killed (issue 15).

``python -m tests.ui.crash_table DB INTENTS SEED [--finish]``: the real window (offscreen),
the real controller and a real store file; cards reach the controller the way the shoe's
cards do (``on_shoe_event(CardRead)``), decisions and wagers through the controller's
dealer actions. It plays round after round, cycling through the five games, and waits
for every write to be on disk before the next action, as the dealer waits for the screen.

On start it reports on stdout what the window restored (``RESTORED id events concluded held``
or ``FRESH``), then ``PLAYING``. Each round whose start the store acknowledged is written
to INTENTS as ``START id wagers`` (the wagers the dealer placed) and each finished round
as ``DONE id``, so the parent can check that nothing acknowledged was lost. A card dealt while
the hand in turn may hit or double is an implied hit that Double may still claim; once it is
on screen (so on disk) it is written as ``SHOWN id card``: the parent checks that the round
recorded it. ``STUCK why``
means the window showed a state the dealer could not act on (exit 3). With ``--finish``
the window finishes the restored round (if any), closes the store and exits 0.
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

os.environ["QT_QPA_PLATFORM"] = "offscreen"

from PySide6.QtWidgets import QApplication  # noqa: E402

from dealer_assist.bench.simulate import Shoe  # noqa: E402
from dealer_assist.engine.events import CloseOffers  # noqa: E402
from dealer_assist.engine.table_setup import TableSetup
from dealer_assist.games import GAMES  # noqa: E402
from hardware.events import CardRead, ShoeLoaded  # noqa: E402
from ui.dealer.controller import TableController  # noqa: E402
from ui.dealer.main_window import DealerWindow  # noqa: E402

GAME_CYCLE = ("lucky8", "ace_race", "star_elements", "dueling8s", "electronic")
TABLE_PLAYERS = {"alice": 1, "bob": 2, "carol": 3}
TERMINALS = ["t1", "t2", "t3"]


class Stuck(Exception):
    """The window shows a state the dealer cannot act on."""


def setup_for(game: str) -> TableSetup:
    if GAMES[game].shared_hand:
        return TableSetup(game=game, decks=6, terminals=list(TERMINALS))
    return TableSetup(game=game, decks=6, areas=5, seated=dict(TABLE_PLAYERS))


def pump_until(app: QApplication, condition: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise Stuck(f"timed out waiting for {what}")
        app.processEvents()
        time.sleep(0.001)


class Dealer:
    def __init__(self, app: QApplication, controller: TableController, intents: Any, rng: random.Random) -> None:
        self.app = app
        self.c = controller
        self.intents = intents
        self.rng = rng
        self.shoe: Shoe | None = None
        self.shoe_game = ""

    def settle_writes(self) -> None:
        c = self.c
        pump_until(self.app, lambda: c.unacknowledged == 0, "the store")
        if c.store_error:
            raise Stuck(f"store error: {c.store_error}")

    def fresh_shoe(self) -> None:
        """A freshly shuffled shoe is loaded (the controller then starts 5.1's count again)."""
        self.shoe_game = self.c.rules.key
        self.shoe = Shoe(self.shoe_game, 6, self.rng.randrange(1 << 30))
        self.shoe.shuffle()
        self.c.on_shoe_event(ShoeLoaded(seq=None))

    def the_shoe(self) -> Shoe:
        c = self.c
        if self.shoe is None or self.shoe_game != c.rules.key:  # a restored round's game
            self.shoe_game = c.rules.key
            self.shoe = Shoe(self.shoe_game, 6, self.rng.randrange(1 << 30))
            self.shoe.shuffle()
        return self.shoe

    def card(self) -> None:
        c = self.c
        shoe = self.the_shoe()
        before = len(c.events)
        for _ in range(5):
            c.on_shoe_event(CardRead(card=next(shoe), seq=None))
            if len(c.events) > before:
                return
        raise Stuck(f"every card refused: {c.last_refusal}")

    def decide(self) -> None:
        c = self.c
        exp = c.expectation()
        if exp.kind == "decisions":
            pending = exp.pending[0]
            options = [o for o in pending["options"] if o in ("hit", "stand")] or ["stand"]
            action = self.rng.choice(options)
            if not c.decide(action, hand=pending.get("hand"), player=pending["player"]):
                if not c.decide("stand", hand=pending.get("hand"), player=pending["player"]):
                    raise Stuck(f"decision refused: {c.last_refusal}")
            return
        if exp.area is not None and "hit" in exp.options and "double" in exp.options and self.rng.random() < 0.5:
            self.implied_card()
            return
        if exp.area is None or exp.hand is None or "stand" not in exp.options:
            if not c.submit(CloseOffers()):
                raise Stuck(f"close_offers refused: {c.last_refusal}")
            return
        options = [o for o in exp.options if o in ("hit", "stand")]
        action = self.rng.choice(options)
        if not c.decide(action, area=exp.area, hand=exp.hand):
            if not c.decide("stand", area=exp.area, hand=exp.hand):
                raise Stuck(f"decision refused: {c.last_refusal}")

    def implied_card(self) -> None:
        """The player signals a hit and the dealer deals without a key: an implied hit that Double
        may still claim; sometimes the dealer then presses Double for it."""
        c = self.c
        card = next(self.the_shoe())
        c.on_shoe_event(CardRead(card=card, seq=None))
        self.settle_writes()
        if c.stray_card is not None:
            raise Stuck(f"implied card held: {c.stray_reason}")
        if c.implied:
            self.intents.write(f"SHOWN {c.round_id} {card}\n")
            self.intents.flush()
            if self.rng.random() < 0.3 and not c.double_last_card():
                raise Stuck(f"double refused: {c.last_refusal}")

    def answer_held(self) -> None:
        """After a restart: the implied card read before the stop, Hit or Double."""
        c = self.c
        if self.rng.random() < 0.5:
            ok = c.confirm_implied_hit()
        else:
            ok = c.double_last_card() or c.confirm_implied_hit()
        if not ok:
            raise Stuck(f"the held card could not be answered: {c.last_refusal}")

    def play_out(self) -> None:
        """Answer what the round expects until it is over (the dealer acts on the screen)."""
        c = self.c
        for _ in range(400):
            self.settle_writes()
            if c.implied_held:
                self.answer_held()
                continue
            if c.concluded:
                return
            exp = c.expectation()
            if exp.kind == "card":
                self.card()
            elif exp.kind in ("decision", "decisions"):
                self.decide()
            elif exp.kind == "wagers":
                if not c.no_more_bets():
                    raise Stuck(f"no more bets refused: {c.last_refusal}")
            else:
                raise Stuck(f"round {c.round_id} expects {exp.kind!r} ({exp.text or exp.rule})")
        raise Stuck(f"round {c.round_id} did not end")

    def finish_round(self) -> None:
        c = self.c
        self.play_out()
        self.settle_writes()
        pump_until(self.app, lambda: c.round_id is not None and c.round_id > 0, "the round's id")
        self.intents.write(f"DONE {c.round_id}\n")
        self.intents.flush()
        if not c.confirm_settlement():
            raise Stuck("confirm refused")

    def new_round(self, game: str) -> None:
        c = self.c
        if not c.apply_setup(setup_for(game)):
            raise Stuck(f"setup refused: {c.last_refusal}")
        self.fresh_shoe()
        players = TERMINALS if GAMES[game].shared_hand else list(TABLE_PLAYERS)
        placed = 0
        for player in players:
            area = None if GAMES[game].shared_hand else TABLE_PLAYERS[player]
            if c.place_wager(player, "main", self.rng.choice((10, 25, 50, 100)), area):
                placed += 1
            if self.rng.random() < 0.5:
                side = self.rng.choice(GAMES[game].side_bets)
                if c.place_wager(player, side, 5, area):
                    placed += 1
        if not c.no_more_bets():
            raise Stuck(f"no more bets refused: {c.last_refusal}")
        self.settle_writes()
        pump_until(self.app, lambda: c.round_id is not None and c.round_id > 0, "the round's id")
        self.intents.write(f"START {c.round_id} {placed}\n")
        self.intents.flush()
        self.finish_round()


def main() -> int:
    db, intents_path, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    finish_only = "--finish" in sys.argv[4:]
    rng = random.Random(seed)
    app = QApplication([])
    controller = TableController(setup_for(GAME_CYCLE[seed % len(GAME_CYCLE)]), "ann")
    window = DealerWindow(controller, sim_panel=None)
    window.resize(1400, 900)
    window.show()
    opened: list[bool] = []
    controller.open_store(db, opened.append)
    with open(intents_path, "a", encoding="utf-8") as intents:
        dealer = Dealer(app, controller, intents, rng)
        try:
            pump_until(app, lambda: bool(opened) and controller.session_id is not None, "the store to open")
            if not opened[0]:
                raise Stuck(f"the store did not open: {controller.store_error}")
            c = controller
            if c.restored:
                print(f"RESTORED {c.round_id} {len(c.events)} {int(c.concluded)} {int(c.implied_held)}",
                      flush=True)
                if c.betting:
                    raise Stuck("restored a round in betting")
                dealer.finish_round()
            else:
                print("FRESH", flush=True)
            if finish_only:
                dealer.settle_writes()
                controller.close()
                print("CLEAN", flush=True)
                return 0
            print("PLAYING", flush=True)
            n = seed
            while True:
                dealer.new_round(GAME_CYCLE[n % len(GAME_CYCLE)])
                n += 1
        except Stuck as exc:
            print(f"STUCK {exc}", flush=True)
            return 3


if __name__ == "__main__":
    sys.exit(main())
