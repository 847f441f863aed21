#!/usr/bin/env python3
"""Card frame -> event in the screen, through the station service: prints figures.

Starts `dealer-assist station serve` in its own process on a temporary station (a
simulated shoe on a real pty as the configured shoe port, a temporary store), connects as
a screen, logs a dealer in and deals rounds of Lucky 8; for each card, the time from the
shoe writing the frame to the screen receiving the notification that carries the recorded
card (the service wrote it to the store, fsynced, before notifying).

    PYTHONPATH=$PWD python scripts/service_latency.py [--cards 1000]
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

from dealer_assist.service.client import ServiceClient  # noqa: E402
from hardware.simulator import SimulatedShoe  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1000)
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

        c = ServiceClient(sock, on_notify=on_notify)
        c.request("enrol", name="sue", pin="482913")
        c.request("add_account", name="ann", new_pin="246810", roles=["dealer"], pin={"user": "sue", "pin": "482913"})
        c.request("change_pin", name="ann", old_pin="246810", new_pin="730418")
        c.request("login", name="ann", pin="730418")
        while not c.request("state")["shoe"].get("connected"):
            time.sleep(0.05)
        times: list[float] = []
        while len(times) < args.cards:
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
                got = arrived.wait_for(lambda b=before: any(n > b for n, _ in cards_seen), timeout=5)
                stamp = next((t for n, t in cards_seen if n > before), None)
            if got and stamp is not None:
                times.append((stamp - t0) / 1e6)
            else:
                c.request("release_hold") if c.request("state")["hold"] else None
                if c.request("state")["stray"]:
                    c.request("void", reason="bench", rule="5.2", pin={"user": "sue", "pin": "482913"})
        c.close()
    finally:
        service.terminate()
        service.wait(10)
        sim.close()
    times.sort()
    p = lambda q: times[min(len(times) - 1, int(q * len(times)))]  # noqa: E731
    print(f"card frame -> screen notification through the service, {len(times)} cards "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"  p50 {p(0.50):.2f} ms  p90 {p(0.90):.2f} ms  p99 {p(0.99):.2f} ms  max {times[-1]:.2f} ms  "
          f"mean {statistics.fmean(times):.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
