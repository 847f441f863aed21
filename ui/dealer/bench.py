"""Benchmark of the dealer's screen (not a test): ``python -m ui.dealer.bench [--cards N] [--rounds N]``.

The product's one path (issue 33): a real ``dealer-assist station serve`` process (its own
state directory, a private socket, the simulated shoe on a pty that the service's driver
opens by path, as tests/ui_service start it) holds the engine, the store and the shoe; the
screen is its client in this process, logged in as a dealer (enrolment, account, log-in
through the socket), the heaviest layout at 1920×1080: seven areas with three players each
and every side bet.

1. Card latency: from a card frame written to the simulated shoe's pty until that card
   is painted in the window (median and p99 over ``--cards`` cards; target p99 <= 16.7 ms,
   one frame at 60 Hz). The path is the real one: pty -> the service's driver thread ->
   engine -> store (durable append, fsync) -> the ``round`` notification -> the screen's
   refresh -> paint. The screen's share is timed from the notification reaching the GUI
   thread; the service's resident size is sampled with the screen's.
2. Launch to first window: a child process runs ``dealer-assist --exit-after-show`` with no
   station configuration, as a user starts it (its own station service first, then the
   screen), and reports its first painted window; measured from spawning it (target <= 1 s).
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
from array import array
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject

from dealer_assist.engine.events import CloseOffers
from dealer_assist.service.ops import Op

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _rss_of(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def _cpu_of(pid: int) -> float:
    """Seconds of CPU (user + system) process ``pid`` has used, all its threads."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


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
        # the figures are kept as machine doubles (8 bytes each): as Python floats and tuples
        # they were ~140 bytes a card, 2.4 KB a round, most of the bench process's growth
        self.latencies = array("d")
        # for each card: frame -> the notification on the GUI thread (NaN: none seen) and its
        # kind (0 other, 1 the round's first, 2 one bringing a settlement, 3 the one after it): the
        # slowest 1 % told apart
        self.to_notice = array("d")
        self.kinds = array("b")
        self.rounds = 0
        self.pending: tuple[str, int, int] | None = None  # card text, card count, start ns
        self.rss: list[tuple[int, float]] = []
        self.service_pid = 0  # on a station: the service's process, whose size is sampled too
        self.service_rss: list[tuple[int, float]] = []
        self.done = False
        # the screen's own share of each card: from the service's notification to the paint, in wall time and
        # in the GUI thread's CPU time (which the machine's load hardly changes); the cards
        # that bring a settlement (interim or final) apart from the others
        self.acked: tuple[int, float] | None = None
        self.screen: dict[bool, tuple[array[float], array[float]]] = {True: (array("d"), array("d")),
                                                                       False: (array("d"), array("d"))}
        self.settled = 0
        # the screen's share of a card starts when the service's ``round`` notification reaches
        # the GUI thread (the service recorded the card before telling anyone)
        link = self.c.link
        link.round_changed.disconnect(self.c.show_notified)
        link.round_changed.connect(self._notified)
        link.round_changed.connect(self.c.show_notified)
        CardFace.first_paint_listener = self._painted
        # the card that ends a round is painted first, its prompt's Next round one paint later
        # (DealerWindow.refresh): from that card's notification to the button placed
        self.next_round_ms = array("d")
        self.notified_ns = 0
        window = table.window
        place = window.show_prompt

        def show_prompt() -> None:
            had = "confirm" in window.prompt.buttons
            place()
            if not had and "confirm" in window.prompt.buttons and self.notified_ns:
                self.next_round_ms.append((time.monotonic_ns() - self.notified_ns) / 1e6)

        window.show_prompt = show_prompt

    def _notified(self, _state: object) -> None:
        self._acknowledged()

    def _acknowledged(self) -> None:
        self.notified_ns = time.monotonic_ns()
        if self.pending is not None and self.acked is None:
            self.acked = (self.notified_ns, time.thread_time())

    def _painted(self, face: Any, now_ns: int) -> None:
        if self.pending is None:
            return
        text, count, start = self.pending
        if face.text == text and self._cards() >= count:
            self.latencies.append((now_ns - start) / 1e6)
            settled = len(self.c.rnd.settlements)
            self.to_notice.append((self.acked[0] - start) / 1e6 if self.acked is not None else float("nan"))
            after = bool(self.kinds) and self.kinds[-1] == 2
            self.kinds.append(2 if settled > self.settled else 1 if count == 1 else 3 if after else 0)
            if self.acked is not None:
                wall_ns, cpu = self.acked
                wall, gui = self.screen[settled > self.settled]
                wall.append((now_ns - wall_ns) / 1e6)
                gui.append((time.thread_time() - cpu) * 1e3)
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
        if self._writing():
            self._later(2)  # the store is writing: look again soon, without spinning
            return
        rnd = c.rnd
        status = rnd.status()
        if status in ("settled", "void"):
            if not self._finished():
                self._later(2)
                return
            sim = self.table.sim
            if self.shuffled:
                if not self._reloaded():  # the new shoe's "loaded" comes through the driver
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
                if self.service_pid:
                    self.service_rss.append((self.rounds, _rss_of(self.service_pid)))
            if self.rounds >= self.rounds_target and len(self.latencies) >= self.cards_target:
                self.done = True
                QCoreApplication.quit()
                return
            c.confirm_settlement()
            self._later(self.pause_ms)
            return
        exp = rnd.expectation()
        if exp.kind == "wagers":
            self._place_wagers()
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

    # the service recorded everything before it answered or told; its driver reads the pty in
    # order, so a new shoe's LOADED always comes before the next round's first card
    def _writing(self) -> bool:
        return False

    def _finished(self) -> bool:
        return True

    def _reloaded(self) -> bool:
        return True

    def _place_wagers(self) -> None:
        from decimal import Decimal

        self.c.place_wagers([(p, b, Decimal(a), area) for p, b, a, area in self.wagers])  # one slip sent

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


def station_latency_and_memory(cards: int, rounds: int, *, size: tuple[int, int] = (1920, 1080),
                               timeout: float = 30, pause_ms: int = 0) -> dict[str, Any]:
    """The heavy layout on the station's path: ``station serve`` as its own process (own state
    directory, private socket, the simulated shoe on a pty opened by path, as
    tests/ui_service starts it), the screen its client in this process, logged in."""
    import types

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from dealer_assist.games import GAMES
    from dealer_assist.service.client import ServiceError
    from dealer_assist.service.station import StationError
    from hardware.local_station import start_station_process
    from ui.common.cards import CardFace
    from ui.common.collector import collect_between_rounds
    from ui.common.service_link import ServiceLink
    from ui.dealer.app import build_client_screen

    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        try:  # the service's process and its simulated shoe (hardware/local_station.py)
            station = start_station_process(Path(tmp), table="BENCH", pit="PIT-1", game="lucky8", decks=8, areas=7,
                                            seed=11)
        except StationError as exc:
            raise SystemExit(str(exc)) from None
        service, sim, sock = station.process, station.sim, station.socket
        link: Any = None
        table: Any = None
        try:
            link = ServiceLink(sock, "screen")
            # the first supervisor enrols and adds the dealer, who logs in (as tests/ui_service do)
            approval = link.client.request(Op.ENROL, name="sue", pin="482913")["approval"]
            link.client.request(Op.ADD_ACCOUNT, name="ann", new_pin="730418", roles=["dealer"], approval=approval)
            try:
                link.client.request(Op.LOGIN, name="ann", pin="730418")
            except ServiceError as exc:  # a first PIN is changed at the first log-in
                if exc.code != "pin":
                    raise
                link.client.request(Op.CHANGE_PIN, name="ann", old_pin="730418", new_pin="246813")
                link.client.request(Op.LOGIN, name="ann", pin="246813")
            screen = build_client_screen(link, None, sock, "lucky8")
            c = screen.controller
            c.start_shift("ann")
            table = types.SimpleNamespace(controller=c, window=screen.window, sim=sim)
            collect_between_rounds()
            screen.window.setGeometry(0, 0, *size)
            screen.window.show()
            deadline = time.monotonic() + 10
            while not (c.rnd is not None and c.shoe.connected):
                app.processEvents()
                time.sleep(0.005)
                if time.monotonic() > deadline:
                    raise SystemExit(f"the screen did not get ready: shoe {c.service_state.get('shoe')}")
            bench = _Bench(table, cards, rounds, heavy_wagers(GAMES["lucky8"].side_bets), pause_ms)
            watchdog = QTimer()
            watchdog.setInterval(1000)
            watchdog.timeout.connect(lambda: bench.watch(timeout))
            watchdog.start()
            rss_start, service_start = _rss_mb(), _rss_of(service.pid)
            bench.service_pid = service.pid
            cpu_start = (_cpu_of(service.pid), time.process_time())
            bytes_start = (link.client.bytes_in, link.client.notice_bytes)
            bench.progress = time.monotonic()
            bench.step()
            app.exec()
            watchdog.stop()
            CardFace.first_paint_listener = None
            cpu = (_cpu_of(service.pid) - cpu_start[0], time.process_time() - cpu_start[1])
            received = (link.client.bytes_in - bytes_start[0], link.client.notice_bytes - bytes_start[1])
        finally:
            if table is not None:
                table.controller.close()
                table.window.close()
            elif link is not None:
                link.close()
            station.stop()
        lat = sorted(bench.latencies)
    if bench.stalled:
        raise SystemExit(f"error: the benchmark stalled: {bench.stalled}")
    return {
        "screen": bench.screen, "next_round_ms": sorted(bench.next_round_ms),
        "slowest": _slowest(bench.latencies, bench.to_notice, bench.kinds), "cards": len(lat), "median_ms": statistics.median(lat), "p99_ms": _p99(lat),
        "max_ms": lat[-1], "rounds": bench.rounds, "rss_start_mb": rss_start, "rss": bench.rss,
        "service_rss_start_mb": service_start, "service_rss": bench.service_rss,
        "service_cpu_s": cpu[0], "screen_cpu_s": cpu[1], "bytes_in": received[0], "notice_bytes": received[1],
    }


def _slowest(latencies: array[float], to_notice: array[float], kinds: array[int]) -> dict[str, Any]:
    """The slowest 1 % of the cards (at least one): how many of each kind, and how much of
    their time was before the notification reached the screen's GUI thread."""
    order = sorted(range(len(latencies)), key=latencies.__getitem__, reverse=True)[:max(1, len(latencies) // 100)]
    before = sorted(to_notice[i] for i in order if to_notice[i] == to_notice[i])
    return {"count": len(order), "kinds": [sum(1 for i in order if kinds[i] == k) for k in (0, 1, 2, 3)],
            "to_notice_ms": before, "total_ms": sorted(latencies[i] for i in order)}


def _p99(ordered: list[float]) -> float:
    return ordered[max(0, int(len(ordered) * 0.99) - 1)]


def launch_to_first_window() -> float:
    """Seconds from spawning ``dealer-assist`` (no station configuration: this account's
    service, then the screen) until its window is painted; a private home, data and runtime
    directory, so each launch is a first start."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(home), "XDG_RUNTIME_DIR": str(home),
               "XDG_DATA_HOME": str(home / "data"), "XDG_STATE_HOME": str(home / "state")}
        # as on a user's machine: bytecode is written and read (the test command's
        # PYTHONDONTWRITEBYTECODE would make every launch compile every module again)
        for name in ("DEALER_ASSIST_DEV", "DEALER_ASSIST_SOCKET", "DEALER_ASSIST_CONFIG", "PYTHONDONTWRITEBYTECODE"):
            env.pop(name, None)
        start = time.monotonic()
        child = subprocess.Popen([sys.executable, "-m", "dealer_assist.cli", "--exit-after-show"],
                                 stdout=subprocess.PIPE, text=True, env=env)
        assert child.stdout is not None
        line = child.stdout.readline()
        while line and not line.startswith("shown"):  # the service's line comes first
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
    parser.add_argument("--size", default="1920x1080", help="window size (default 1920x1080)")
    parser.add_argument("--timeout", type=float, default=30, help="seconds without progress before giving up")
    parser.add_argument("--pause", type=int, default=0, metavar="MS",
                        help="milliseconds between one action or painted card and the next (default 0: at once)")
    args = parser.parse_args(argv)
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    width, _, height = args.size.partition("x")
    launches = [launch_to_first_window() for _ in range(args.launches)]
    if launches:
        print(f"launch to first window: best {min(launches):.2f} s, worst {max(launches):.2f} s "
              f"over {len(launches)} launches (target <= 1 s)")
    size = (int(width), int(height))
    result = station_latency_and_memory(args.cards, args.rounds, size=size, timeout=args.timeout,
                                        pause_ms=args.pause)
    layout = "station service, heavy"
    share_from = "service's notification"
    print(f"card frame written -> card painted ({layout} layout, {args.size}): "
          f"median {result['median_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms, max {result['max_ms']:.1f} ms "
          f"over {result['cards']} cards in {result['rounds']} rounds, {args.pause} ms between actions "
          f"(target p99 <= 16.7 ms)")
    for settling, what in ((True, "cards bringing a settlement"), (False, "other cards")):
        walls, cpus = result["screen"][settling]
        if walls:
            wall, cpu = sorted(walls), sorted(cpus)
            print(f"  {what} ({len(wall)}): {share_from} -> painted median {statistics.median(wall):.1f} ms, "
                  f"p99 {_p99(wall):.1f} ms, max {wall[-1]:.1f} ms; GUI thread CPU median "
                  f"{statistics.median(cpu):.1f} ms, p99 {_p99(cpu):.1f} ms, max {cpu[-1]:.1f} ms")
    slow = result["slowest"]
    if slow["count"] and slow["to_notice_ms"]:
        other, first, settling, after = slow["kinds"]
        before = slow["to_notice_ms"]
        print(f"  the slowest 1 % ({slow['count']} cards, {slow['total_ms'][0]:.1f}-{slow['total_ms'][-1]:.1f} ms): "
              f"{settling} bringing a settlement, {after} the card after one, {first} a round's first, {other} other; "
              f"frame -> notification on "
              f"the GUI thread median {statistics.median(before):.1f} ms, max {before[-1]:.1f} ms")
    placed = result["next_round_ms"]
    if placed:
        print(f"  the round's last card: its notification -> the prompt's Next round placed (one paint after the "
              f"card) median {statistics.median(placed):.1f} ms, p99 {_p99(placed):.1f} ms, max {placed[-1]:.1f} ms "
              f"over {len(placed)} rounds")
    cards = result["cards"]
    print(f"per card dealt ({cards} cards, the whole round's traffic and work divided by them): the service "
          f"{result['service_cpu_s'] * 1e3 / cards:.1f} ms CPU, the screen's process "
          f"{result['screen_cpu_s'] * 1e3 / cards:.1f} ms CPU; the screen received {result['bytes_in'] / cards:,.0f} "
          f"bytes ({result['notice_bytes'] / cards:,.0f} of them notifications)")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rss = result["rss"]
    print(f"memory: {result['rss_start_mb']:.1f} MB before the first round; "
          + ", ".join(f"{mb:.1f} MB after {n} rounds" for n, mb in rss))
    if len(rss) >= 2:
        print(f"growth from {rss[0][0]} to {rss[-1][0]} rounds: {rss[-1][1] - rss[0][1]:+.1f} MB")
    served = result.get("service_rss") or []
    if served:
        print(f"the service's memory: {result['service_rss_start_mb']:.1f} MB before the first round; "
              + ", ".join(f"{mb:.1f} MB after {n} rounds" for n, mb in served)
              + f" ({served[-1][1] - served[0][1]:+.1f} MB from {served[0][0]} to {served[-1][0]} rounds)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
