"""Benchmark of the dealer's screen (not a test): ``python -m ui.bench [--cards N] [--rounds N]``.

1. Card latency: from a card frame written to the simulated shoe's pty until that card
   is painted in the window (median and p99 over ``--cards`` cards; target p99 <= 50 ms).
   The path is the real one: pty -> driver thread -> Qt signal -> engine -> store
   (durable append, fsync) -> screen refresh -> paint.
2. Launch to first window: a child process runs ``dealer-assist --dealer ...`` and
   reports its first painted window; measured from spawning it (target <= 2 s).
3. Memory: resident set size after ``--rounds`` simulated rounds (each: one wager,
   no more bets, the deal, stand, the dealer's cards, settlement confirmed), compared
   with the size after the first 10% of them.
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

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class _Bench:
    """Plays rounds on the GUI thread, one step per event loop turn, and times each card."""

    def __init__(self, table: Any, cards: int, rounds: int) -> None:
        from ui.cards import CardFace

        self.table = table
        self.c = table.controller
        self.cards_target = cards
        self.rounds_target = rounds
        self.latencies: list[float] = []
        self.rounds = 0
        self.pending: tuple[str, int, int] | None = None  # card text, card count, start ns
        self.rss: list[tuple[int, float]] = []
        self.done = False
        CardFace.first_paint_listener = self._painted

    def _painted(self, face: Any, now_ns: int) -> None:
        if self.pending is None:
            return
        text, count, start = self.pending
        if face.text == text and self._cards() >= count:
            self.latencies.append((now_ns - start) / 1e6)
            self.pending = None
            self._later()

    def _cards(self) -> int:
        return sum(1 for e in self.c.events if e.get("type") == "card")

    def _later(self, wait_ms: int = 0) -> None:
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
            if c._finished_at != len(c.events) or c.store_worker._pending:
                self._later(2)
                return
            self.rounds += 1
            if self.rounds % max(1, self.rounds_target // 10) == 0:
                self.rss.append((self.rounds, _rss_mb()))
            if self.rounds >= self.rounds_target and len(self.latencies) >= self.cards_target:
                self.done = True
                QCoreApplication.quit()
                return
            c.confirm_settlement()
            self._later()
            return
        exp = rnd.expectation()
        if exp.kind == "wagers":
            c.place_wager("alice", "main", 100, 1)
            c.no_more_bets()
            self._later()
        elif exp.kind == "card":
            sim = self.table.sim
            if sim.remaining < 20:
                sim.shuffle()
            card = sim.peek()
            self.pending = (str(card), self._cards() + 1, time.monotonic_ns())
            sim.deal()  # the frame is written here; the paint filter stops the clock
        elif exp.kind == "decision":
            if "stand" in exp.options:
                c.decide("stand", area=exp.area, hand=exp.hand)
            else:
                c.report("close_offers")  # insurance / even money declined
            self._later()
        else:
            raise SystemExit(f"the benchmark does not know how to go on from {exp}")


def card_latency_and_memory(cards: int, rounds: int) -> dict[str, Any]:
    from PySide6.QtWidgets import QApplication

    from ui.app import build_table
    from ui.controller import TableSetup

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        setup = TableSetup(game="lucky8", decks=8, areas=7, seated={"alice": 1})
        table = build_table(setup, db=str(Path(tmp) / "bench.db"), dealer="bench", sim_seed=11,
                            sim_link=str(Path(tmp) / "shoe"))
        table.window.resize(1600, 1000)
        table.window.show()
        bench = _Bench(table, cards, rounds)
        c = table.controller
        end = time.monotonic() + 10
        while not (c.store is not None and c.rnd is not None and c.shoe.connected and c.session_id):
            app.processEvents()
            time.sleep(0.005)
            if time.monotonic() > end:
                raise SystemExit("the window did not get ready")
        rss_start = _rss_mb()
        bench.step()
        app.exec()
        from ui.cards import CardFace

        CardFace.first_paint_listener = None
        table.close()
        lat = sorted(bench.latencies)
    return {
        "cards": len(lat),
        "median_ms": statistics.median(lat),
        "p99_ms": lat[max(0, int(len(lat) * 0.99) - 1)],
        "max_ms": lat[-1],
        "rounds": bench.rounds,
        "rss_start_mb": rss_start,
        "rss": bench.rss,
    }


def launch_to_first_window() -> float:
    """Seconds from spawning ``dealer-assist`` until its window is painted."""
    with tempfile.TemporaryDirectory() as tmp:
        start = time.monotonic()
        child = subprocess.Popen(
            [sys.executable, "-m", "dealer_assist.cli", "--dealer", "bench", "--db", str(Path(tmp) / "t.db"),
             "--settings", str(Path(tmp) / "s.ini"), "--exit-after-show"],
            stdout=subprocess.PIPE, text=True, env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "DEALER_ASSIST_DEV": "1"},
        )
        assert child.stdout is not None
        line = child.stdout.readline()
        elapsed = time.monotonic() - start
        child.wait(20)
        if not line.startswith("shown"):
            raise SystemExit(f"the child did not report its window: {line!r}")
        return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ui.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--launches", type=int, default=3)
    args = parser.parse_args(argv)
    launches = [launch_to_first_window() for _ in range(args.launches)]
    print(f"launch to first window: best {min(launches):.2f} s, worst {max(launches):.2f} s "
          f"over {len(launches)} launches (target <= 2 s)")
    result = card_latency_and_memory(args.cards, args.rounds)
    print(f"card frame written -> card painted: median {result['median_ms']:.1f} ms, "
          f"p99 {result['p99_ms']:.1f} ms, max {result['max_ms']:.1f} ms over {result['cards']} cards "
          f"(target p99 <= 50 ms)")
    rss = result["rss"]
    print(f"memory: {result['rss_start_mb']:.1f} MB before the first round; "
          + ", ".join(f"{mb:.1f} MB after {n} rounds" for n, mb in rss))
    if len(rss) >= 2:
        print(f"growth from {rss[0][0]} to {rss[-1][0]} rounds: {rss[-1][1] - rss[0][1]:+.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
