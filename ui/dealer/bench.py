"""Benchmark of the dealer's screen (not a test): ``python -m ui.dealer.bench [--cards N] [--rounds N]``.

1. Card latency: from a card frame written to the simulated shoe's pty until that card
   is painted in the window (median and p99 over ``--cards`` cards; target p99 <= 16.7 ms,
   one frame at 60 Hz). The path is the real one: pty -> driver thread -> Qt signal ->
   engine -> store (durable append, fsync) -> screen refresh -> paint. ``--layout heavy``
   (the default): the heaviest layout at 1920×1080, seven areas with three players each
   and every side bet; ``--layout light``: one player on area 1 (the earlier figures).
2. Launch to first window: a child process runs ``dealer-assist --dealer ...`` and
   reports its first painted window; measured from spawning it (target <= 1 s).
3. Memory: resident set size after ``--rounds`` simulated rounds (each: the wagers,
   no more bets, the deal, stand, the dealer's cards, settlement confirmed), compared
   with the size after the first 10% of them.

``--pause MS`` waits that long after each action and each painted card before the next
(default 0: the next card is dealt the moment the last one is painted, and the first card
of a round the moment *no more bets* is on disk, while its screen is still being painted;
a dealer's hand needs hundreds of milliseconds).

The simulated shoe is shuffled only between rounds (a shuffle mid-round is a new shoe
whose cards the round would count against the old one: a ninth copy, a 5.1 void, and
the card waited for is never painted). ``--timeout`` stops a run that makes no progress.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject

from dealer_assist.engine.events import CloseOffers

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class _Bench(QObject):
    """Plays rounds on the GUI thread, one step per event loop turn, and times each card.

    A QObject: ``QTimer.singleShot(ms, method)`` on a plain object's method keeps a weak
    reference (and PySide's callable) for ever, one per call, with PySide6 6.11 (300 calls:
    +301 weakrefs; on a QObject's method none). The bench's own steps, about 15 a round,
    were the only Python objects that grew over the rounds (issue 24)."""

    def __init__(self, table: Any, cards: int, rounds: int, wagers: list[tuple[str, str, int, int | None]],
                 pause_ms: int = 0) -> None:
        from ui.common.cards import CardFace

        super().__init__()
        self.wagers = wagers
        self.pause_ms = pause_ms  # between one action (or card painted) and the next
        self.shuffled = False
        self.progress = time.monotonic()  # the last card painted or round finished
        self.stalled = ""
        self.table = table
        self.c = table.controller
        self.cards_target = cards
        self.rounds_target = rounds
        self.latencies: list[float] = []
        self.rounds = 0
        self.pending: tuple[str, int, int] | None = None  # card text, card count, start ns
        self.rss: list[tuple[int, float]] = []
        self.done = False
        # the screen's own share of each card: from the store's acknowledgement (the
        # controller's ``changed``, before the window redraws) to the paint, in wall time and
        # in the GUI thread's CPU time (which the machine's load hardly changes); the cards
        # that bring a settlement (interim or final) apart from the others
        self.acked: tuple[int, float] | None = None
        self.screen: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
        self.settled = 0
        window = table.window
        self.c.changed.disconnect(window.refresh)
        self.c.changed.connect(self._acknowledged)
        self.c.changed.connect(window.refresh)
        CardFace.first_paint_listener = self._painted

    def _acknowledged(self) -> None:
        if self.pending is not None and self.acked is None:
            self.acked = (time.monotonic_ns(), time.thread_time())

    def _painted(self, face: Any, now_ns: int) -> None:
        if self.pending is None:
            return
        text, count, start = self.pending
        if face.text == text and self._cards() >= count:
            self.latencies.append((now_ns - start) / 1e6)
            settled = len(self.c.rnd.settlements)
            if self.acked is not None:
                wall_ns, cpu = self.acked
                self.screen[settled > self.settled].append(((now_ns - wall_ns) / 1e6,
                                                            (time.thread_time() - cpu) * 1e3))
            self.settled = settled
            self.acked = None
            self.progress = time.monotonic()
            self.pending = None
            self._later(self.pause_ms)

    def _cards(self) -> int:
        return sum(1 for e in self.c.events if e.get("type") == "card")

    def _later(self, wait_ms: int) -> None:
        from PySide6.QtCore import QTimer

        QTimer.singleShot(wait_ms, self.step)

    def step(self) -> None:
        from PySide6.QtCore import QCoreApplication

        c = self.c
        if self.done:
            return
        if c.unacknowledged:
            self._later(2)  # the store is writing: look again soon, without spinning
            return
        rnd = c.rnd
        status = rnd.status()
        if status in ("settled", "void"):
            if not c.finish_recorded or c.store_worker.busy:
                self._later(2)
                return
            sim = self.table.sim
            if self.shuffled:
                if not c.shoe_reloaded:  # the new shoe's "loaded" comes through the driver
                    self._later(2)
                    return
                self.shuffled = False
            elif sim.remaining < 150:
                sim.shuffle()  # between rounds only: the next round starts on the new shoe
                self.shuffled = True
                self._later(2)
                return
            self.rounds += 1
            self.progress = time.monotonic()
            if self.rounds % max(1, self.rounds_target // 10) == 0:
                self.rss.append((self.rounds, _rss_mb()))
            if self.rounds >= self.rounds_target and len(self.latencies) >= self.cards_target:
                self.done = True
                QCoreApplication.quit()
                return
            c.confirm_settlement()
            self._later(self.pause_ms)
            return
        exp = rnd.expectation()
        if exp.kind == "wagers":
            for player, bet, amount, area in self.wagers:
                c.place_wager(player, bet, amount, area)
            c.no_more_bets()
            self._later(self.pause_ms)
        elif exp.kind == "card":
            sim = self.table.sim
            card = sim.peek()
            self.pending = (str(card), self._cards() + 1, time.monotonic_ns())
            sim.deal()  # the frame is written here; the paint filter stops the clock
        elif exp.kind == "decision":
            if "stand" in exp.options:
                c.decide("stand", area=exp.area, hand=exp.hand)
            else:
                c.submit(CloseOffers())  # insurance / even money declined
            self._later(self.pause_ms)
        else:
            raise SystemExit(f"the benchmark does not know how to go on from {exp}")

    def watch(self, timeout: float) -> None:
        """Called every second: stop a run in which nothing moved for ``timeout`` seconds."""
        from PySide6.QtCore import QCoreApplication

        if not self.done and time.monotonic() - self.progress > timeout:
            c = self.c
            self.stalled = (f"no progress for {timeout:.0f} s at round {self.rounds + 1}, "
                            f"{len(self.latencies)} cards: status {c.rnd.status()}, waiting for "
                            f"{c.rnd.expectation()}, pending card {self.pending}")
            self.done = True
            QCoreApplication.quit()


PLAYERS = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lea", "max", "ned",
           "oli", "pam", "quin", "ray", "sam", "tia", "uma"]


def heavy_wagers(side_bets: tuple[str, ...]) -> list[tuple[str, str, int, int | None]]:
    """Seven areas, three players each, each with a main wager and every side bet."""
    out: list[tuple[str, str, int, int | None]] = []
    for area in range(1, 8):
        for k in range(3):
            player = PLAYERS[3 * (area - 1) + k]
            out.append((player, "main", [100, 25, 50][k], area))
            out += [(player, bet, [10, 5, 5][k], area) for bet in side_bets]
    return out


def card_latency_and_memory(cards: int, rounds: int, *, layout: str = "heavy", size: tuple[int, int] = (1920, 1080),
                            timeout: float = 30, pause_ms: int = 0) -> dict[str, Any]:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from dealer_assist.engine.table_setup import TableSetup
    from dealer_assist.games import GAMES
    from ui.common.collector import collect_between_rounds
    from ui.dealer.app import build_table

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        if layout == "heavy":
            seated = {PLAYERS[3 * (a - 1)]: a for a in range(1, 8)}
            wagers = heavy_wagers(GAMES["lucky8"].side_bets)
        else:
            seated = {"alice": 1}
            wagers = [("alice", "main", 100, 1)]
        setup = TableSetup(game="lucky8", decks=8, areas=7, seated=seated)
        table = build_table(setup, db=str(Path(tmp) / "bench.db"), dealer="bench", sim_seed=11,
                            sim_link=str(Path(tmp) / "shoe"))
        collect_between_rounds()  # as the app does (ui.dealer.app.run)
        table.window.setGeometry(0, 0, *size)
        table.window.show()
        bench = _Bench(table, cards, rounds, wagers, pause_ms)
        watchdog = QTimer()
        watchdog.setInterval(1000)
        watchdog.timeout.connect(lambda: bench.watch(timeout))
        watchdog.start()
        c = table.controller
        end = time.monotonic() + 10
        while not (c.store is not None and c.rnd is not None and c.shoe.connected and c.session_id):
            app.processEvents()
            time.sleep(0.005)
            if time.monotonic() > end:
                raise SystemExit("the window did not get ready")
        rss_start = _rss_mb()
        bench.progress = time.monotonic()
        bench.step()
        app.exec()
        watchdog.stop()
        from ui.common.cards import CardFace

        CardFace.first_paint_listener = None
        table.close()
        lat = sorted(bench.latencies)
    if bench.stalled:
        raise SystemExit(f"error: the benchmark stalled: {bench.stalled}")
    return {
        "screen": bench.screen,
        "cards": len(lat),
        "median_ms": statistics.median(lat),
        "p99_ms": _p99(lat),
        "max_ms": lat[-1],
        "rounds": bench.rounds,
        "rss_start_mb": rss_start,
        "rss": bench.rss,
    }


def _p99(ordered: list[float]) -> float:
    return ordered[max(0, int(len(ordered) * 0.99) - 1)]


def launch_to_first_window() -> float:
    """Seconds from spawning ``dealer-assist`` until its window is painted."""
    with tempfile.TemporaryDirectory() as tmp:
        start = time.monotonic()
        child = subprocess.Popen(
            [sys.executable, "-m", "dealer_assist.cli", "--dealer", "dana", "--db", str(Path(tmp) / "t.db"),
             "--settings", str(Path(tmp) / "s.ini"), "--exit-after-show"],
            stdout=subprocess.PIPE, text=True, env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "DEALER_ASSIST_DEV": "1"},
        )
        assert child.stdout is not None
        line = child.stdout.readline()
        elapsed = time.monotonic() - start
        child.wait(20)  # a child that does not report within 20 s is an error below
        if not line.startswith("shown"):
            raise SystemExit(f"the child did not report its window: {line!r}")
        return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ui.dealer.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--layout", choices=("heavy", "light"), default="heavy")
    parser.add_argument("--size", default="1920x1080", help="window size (default 1920x1080)")
    parser.add_argument("--timeout", type=float, default=30, help="seconds without progress before giving up")
    parser.add_argument("--pause", type=int, default=0, metavar="MS",
                        help="milliseconds between one action or painted card and the next (default 0: at once)")
    args = parser.parse_args(argv)
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    width, _, height = args.size.partition("x")
    launches = [launch_to_first_window() for _ in range(args.launches)]
    print(f"launch to first window: best {min(launches):.2f} s, worst {max(launches):.2f} s "
          f"over {len(launches)} launches (target <= 1 s)")
    result = card_latency_and_memory(args.cards, args.rounds, layout=args.layout,
                                     size=(int(width), int(height)), timeout=args.timeout, pause_ms=args.pause)
    print(f"card frame written -> card painted ({args.layout} layout, {args.size}): "
          f"median {result['median_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms, max {result['max_ms']:.1f} ms "
          f"over {result['cards']} cards in {result['rounds']} rounds, {args.pause} ms between actions "
          f"(target p99 <= 16.7 ms)")
    for settling, what in ((True, "cards bringing a settlement"), (False, "other cards")):
        shares = result["screen"][settling]
        if shares:
            wall = sorted(w for w, _ in shares)
            cpu = sorted(c for _, c in shares)
            print(f"  {what} ({len(shares)}): store acknowledged -> painted median {statistics.median(wall):.1f} ms, "
                  f"p99 {_p99(wall):.1f} ms, max {wall[-1]:.1f} ms; GUI thread CPU median "
                  f"{statistics.median(cpu):.1f} ms, p99 {_p99(cpu):.1f} ms, max {cpu[-1]:.1f} ms")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rss = result["rss"]
    print(f"memory: {result['rss_start_mb']:.1f} MB before the first round; "
          + ", ".join(f"{mb:.1f} MB after {n} rounds" for n, mb in rss))
    if len(rss) >= 2:
        print(f"growth from {rss[0][0]} to {rss[-1][0]} rounds: {rss[-1][1] - rss[0][1]:+.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
