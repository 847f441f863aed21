"""Shoe driver benchmark (not a test): ``python -m hardware.bench``.

1. Latency: from just before a frame is written to the pty until the driver's event
   callback runs, one frame at a time (median and p99; target p99 <= 2 ms).
2. Throughput at 115200 baud: frames paced at the line rate of 115200 8N1 (10 bits a
   byte) must all arrive (zero loss); then frames as fast as the pty takes them, to
   show the headroom. A pty ignores the baud rate, so the pacing is done here.
3. CPU use of an idle connected driver (da1, heartbeat once a second) over ~10 s, with
   the simulated shoe in a separate process so only the driver is measured.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

from dealer_assist.games import composition_for
from hardware.codecs import Da1Codec
from hardware.driver import ShoeDriver
from hardware.events import CardRead, Connected, DecodeError, SequenceGap, ShoeEvent
from hardware.simulator import SimulatedShoe


def _frames(count: int) -> list[bytes]:
    """``count`` CARD frames with sequence numbers 2, 3, ... (after HELLO 0000 and LOADED 0001)."""
    codec = Da1Codec()
    cards = composition_for("ace_race")
    return [codec.encode(CardRead(card=cards[i % len(cards)]), i + 2) for i in range(count)]


class _Counter:
    def __init__(self) -> None:
        self.cards = 0
        self.problems = 0
        self.last_ns = 0
        self.connected = threading.Event()
        self.card_seen = threading.Event()

    def __call__(self, event: ShoeEvent) -> None:
        now = time.monotonic_ns()
        if isinstance(event, CardRead):
            self.cards += 1
            self.last_ns = now
            self.card_seen.set()
        elif isinstance(event, (DecodeError, SequenceGap)):
            self.problems += 1
        elif isinstance(event, Connected):
            self.connected.set()


def _connected_pair(baud: int) -> tuple[SimulatedShoe, ShoeDriver, _Counter]:
    shoe = SimulatedShoe(seed=1, heartbeat_s=None, write_timeout_s=5.0)
    shoe.open()
    counter = _Counter()
    driver = ShoeDriver(shoe.path, counter, baud=baud)
    driver.start(require_open=True)
    if not counter.connected.wait(5):
        raise RuntimeError("driver did not connect to the simulated shoe")
    return shoe, driver, counter


def _restart_sequence(shoe: SimulatedShoe, driver: ShoeDriver) -> None:
    """Make frame seq 1 follow without a gap: a power-on HELLO (seq 0000) first."""
    shoe.power_on()  # HELLO 0000 + LOADED 0001
    time.sleep(0.2)


def latency(frames: int) -> tuple[float, float, float]:
    shoe, driver, counter = _connected_pair(9600)
    try:
        data = _frames(frames)
        _restart_sequence(shoe, driver)
        samples: list[int] = []
        for frame in data:
            counter.card_seen.clear()
            start = time.monotonic_ns()
            shoe.send_raw(frame)
            if not counter.card_seen.wait(5):
                raise RuntimeError("a frame was not delivered")
            samples.append(counter.last_ns - start)
        if counter.problems:
            raise RuntimeError(f"{counter.problems} frames lost or garbled")
    finally:
        driver.stop()
        shoe.close()
    ms = sorted(s / 1e6 for s in samples)
    return statistics.median(ms), ms[int(len(ms) * 0.99) - 1], ms[-1]


def throughput(seconds: float, baud: int, paced: bool) -> tuple[float, int, int]:
    """(frames per second, frames sent, frames lost or garbled)."""
    shoe, driver, counter = _connected_pair(baud)
    try:
        _restart_sequence(shoe, driver)
        start_count = counter.cards
        frame_s = len(_frames(1)[0]) * 10 / baud  # 10 bits per byte on the wire
        total = int(seconds / frame_s) if paced else 20_000
        data = _frames(total)
        begin_ns = time.monotonic_ns()
        begin = time.perf_counter()
        if paced:
            for i, frame in enumerate(data):
                due = begin + i * frame_s
                while time.perf_counter() < due:
                    time.sleep(0.0005)
                shoe.send_raw(frame)
        else:
            for i in range(0, len(data), 50):  # one write of 50 frames at a time
                shoe.send_raw(b"".join(data[i : i + 50]))
        deadline = time.monotonic() + 10
        while counter.cards - start_count < total and time.monotonic() < deadline:
            time.sleep(0.001)
        elapsed_s = (counter.last_ns - begin_ns) / 1e9
        received = counter.cards - start_count
        lost = total - received + counter.problems
    finally:
        driver.stop()
        shoe.close()
    return received / max(elapsed_s, 1e-9), total, lost


def idle_cpu(seconds: float) -> float:
    """Percent of one core used by this process (the driver) while the shoe is idle."""
    sim = subprocess.Popen(
        [sys.executable, "-m", "dealer_assist", "shoe-sim", "--seed", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert sim.stdout is not None
        path = sim.stdout.readline().strip()
        counter = _Counter()
        driver = ShoeDriver(path, counter)
        driver.start(require_open=True)
        if not counter.connected.wait(5):
            raise RuntimeError("driver did not connect to shoe-sim")
        cpu0, wall0 = time.process_time(), time.monotonic()
        time.sleep(seconds)
        cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
        connected = driver.connected
        driver.stop()
        if not connected:
            raise RuntimeError("the driver lost the idle shoe")
    finally:
        sim.terminate()
        sim.wait(5)
    return 100.0 * cpu / wall


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hardware.bench", description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=10_000, help="frames for the latency run")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of the paced throughput run")
    parser.add_argument("--idle-seconds", type=float, default=10.0, help="length of the idle CPU run")
    args = parser.parse_args(argv)
    try:
        median, p99, worst = latency(args.frames)
        print(f"latency, last byte written -> callback, {args.frames} frames: "
              f"median {median:.3f} ms, p99 {p99:.3f} ms, max {worst:.3f} ms "
              f"(target p99 <= 2 ms: {'met' if p99 <= 2 else 'NOT met'})", flush=True)
        rate, sent, lost = throughput(args.seconds, 115200, paced=True)
        print(f"throughput paced at 115200 baud: {rate:.0f} frames/s, {sent} frames, {lost} lost", flush=True)
        rate, sent, lost = throughput(0, 115200, paced=False)
        print(f"throughput unpaced (pty as fast as it goes): {rate:.0f} frames/s, {sent} frames, {lost} lost", flush=True)
        cpu = idle_cpu(args.idle_seconds)
        print(f"idle connected driver CPU over {args.idle_seconds:g} s: {cpu:.2f} % of one core "
              f"(target < 1 %: {'met' if cpu < 1 else 'NOT met'})", flush=True)
    except (RuntimeError, OSError) as exc:
        print(f"bench: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
