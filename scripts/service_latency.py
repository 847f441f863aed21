#!/usr/bin/env python3
"""Card frame -> event in the screen, through the station service: prints figures.

Starts `dealer-assist station serve` in its own process on a temporary station (a
simulated shoe on a real pty as the configured shoe port, a temporary store), connects as
a screen, logs a dealer in and deals rounds of Lucky 8; for each card, the time from the
shoe writing the frame to the screen receiving the notification that carries the recorded
card (the service wrote it to the store, fsynced, before notifying).

    PYTHONPATH=$PWD python scripts/service_latency.py [--cards 1000] [--pin-flood 2]

``--pin-flood N``: the same cards measured twice, quiet and then while N connections send
wrong PINs for fresh names as fast as they are answered (issue 39: the PIN checks run on
their own worker, outside the table's lock); both figures are printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dealer_assist.service.client import ServiceClient, ServiceError  # noqa: E402
from hardware.simulator import SimulatedShoe  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--pin-flood", type=int, default=0, metavar="N",
                        help="also measure while N connections send wrong PINs")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="da-latency-"))
    sim = SimulatedShoe(game="lucky8", decks=8, seed=7, penetration=None)
    sim.open()
    config = tmp / "station.toml"
    config.write_text(f'[table]\nname = "BENCH"\ngame = "lucky8"\ndecks = 8\n[shoe]\nport = "{sim.path}"\n')
    sock = tmp / "station.sock"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALER_ASSIST")}
    env["PYTHONPATH"] = str(ROOT)
    service = subprocess.Popen([sys.executable, "-m", "dealer_assist", "station", "--config", str(config), "serve",
                                "--state-dir", str(tmp / "state"), "--socket", str(sock), "--log-dir", str(tmp)],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not sock.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        arrived = threading.Condition()
        cards_seen: list[tuple[int, int]] = []  # (cards in the round's record, ns)

        def on_notify(name: str, data: dict[str, Any]) -> None:
            if name == "round":
                now = time.perf_counter_ns()
                n = sum(1 for e in data.get("events", []) + data.get("tentative", []) if e["type"] == "card")
                with arrived:
                    cards_seen.append((n, now))
                    arrived.notify_all()

        c = ServiceClient(sock, on_notify=on_notify, timeout_s=300)
        c.request("enrol", name="sue", pin="482913")
        c.request("add_account", name="ann", new_pin="246810", roles=["dealer"], pin={"user": "sue", "pin": "482913"})
        c.request("change_pin", name="ann", old_pin="246810", new_pin="730418")
        c.request("login", name="ann", pin="730418")
        while not c.request("state")["shoe"].get("connected"):
            time.sleep(0.05)
        def measure(count: int) -> list[float]:
            times: list[float] = []
            while len(times) < count:
                state = c.request("state")
                if state["concluded"] or state["output"]["status"] != "in_progress":
                    c.request("next_round")
                    state = c.request("state")
                if state["betting"]:
                    c.request("wager", player="p1", bet="main", amount=10, area=1)
                    c.request("wager", player="p2", bet="main", amount=10, area=2)
                    state = c.request("state")
                exp = state["expect"]
                if exp["kind"] == "decision" and exp["options"] and "stand" in exp["options"] and \
                        len([e for e in state["events"] if e["type"] == "card"]) % 3 == 0:
                    c.request("decide", action="stand", area=exp["area"], hand=exp["hand"], player=exp["player"])
                    continue
                if exp["kind"] not in ("card", "decision", "wagers"):
                    c.request("next_round") if state["concluded"] else time.sleep(0.01)
                    continue
                before = sum(1 for e in state["events"] + state["tentative"] if e["type"] == "card")
                with arrived:
                    cards_seen.clear()
                t0 = time.perf_counter_ns()
                if sim.deal() is None:
                    sim.shuffle()
                    continue
                with arrived:
                    got = arrived.wait_for(lambda: any(n > before for n, _ in cards_seen), timeout=120)  # noqa: B023 - waited for here
                    stamp = next((t for n, t in cards_seen if n > before), None)
                if got and stamp is not None:
                    times.append((stamp - t0) / 1e6)
                else:
                    c.request("release_hold") if c.request("state")["hold"] else None
                    if c.request("state")["stray"]:
                        c.request("void", reason="bench", rule="5.2", pin={"user": "sue", "pin": "482913"})
            return sorted(times)

        results: list[tuple[str, list[float], dict[str, int]]] = [("quiet", measure(args.cards), {})]
        if args.pin_flood:
            stop = threading.Event()
            answers: dict[str, int] = {}

            def flood(n: int) -> None:
                guesser = ServiceClient(sock, timeout_s=300)
                i = 0
                while not stop.is_set():
                    i += 1
                    try:
                        guesser.request("login", name=f"guess-{n}-{i}", pin="135792")
                        code = "ok"
                    except ServiceError as exc:
                        code = exc.code
                    answers[code] = answers.get(code, 0) + 1
                guesser.close()

            threads = [threading.Thread(target=flood, args=(n,), daemon=True) for n in range(args.pin_flood)]
            for t in threads:
                t.start()
            time.sleep(2)  # the flood under way
            results.append((f"{args.pin_flood} connections sending wrong PINs", measure(args.cards), answers))
            stop.set()
        c.close()
    finally:
        service.terminate()
        service.wait(10)
        sim.close()
    print(f"card frame -> screen notification through the service (load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores)")
    for label, times, answers in results:
        def p(q: float, t: list[float] = times) -> float:
            return t[min(len(t) - 1, int(q * len(t)))]

        print(f"  {label}: {len(times)} cards: p50 {p(0.50):.2f} ms  p90 {p(0.90):.2f} ms  p99 {p(0.99):.2f} ms  "
              f"max {times[-1]:.2f} ms  mean {statistics.fmean(times):.2f} ms"
              + (f"; PIN answers during it: {dict(sorted(answers.items()))}" if answers else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
