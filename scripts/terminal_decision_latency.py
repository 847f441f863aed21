#!/usr/bin/env python3
"""A decision at one terminal -> every terminal's view and the dealer's screen: prints figures.

Starts `dealer-assist station serve` in its own process (Electronic Blackjack, a simulated
shoe on a real pty, a temporary store, the terminal endpoint on loopback), pairs
``--terminals`` seats with the technician's command and the terminal's pairing, and plays
rounds: every terminal wagers 10, the bets close, the initial deal, then the terminals
stand one after another. For each decision, the time from the deciding terminal sending
`decide` to (a) each terminal holding a `seat` view of that version or newer (told by its
`changed` notification, then asking; its own connection, over TLS) and (b) the dealer's
screen receiving the `round` notification of it. Each seat buys 1000 of credits first (its
wagers are taken from its meter, 1.1.10).

    PYTHONPATH=$PWD python scripts/terminal_decision_latency.py [--terminals 24] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import socket
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
from dealer_assist.service.terminal_client import TerminalConnection, TerminalError, pair  # noqa: E402
from hardware.simulator import SimulatedShoe  # noqa: E402

SUE = {"user": "sue", "pin": "482913"}


def free_pair_of_ports() -> int:
    for _ in range(50):
        with socket.socket() as a, socket.socket() as b:
            a.bind(("127.0.0.1", 0))
            port = int(a.getsockname()[1])
            try:
                b.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
            return port
    raise SystemExit("no two free ports in a row")


class Listener:
    """One terminal's second connection: on each `changed`, its `seat` view; (version, ns) kept."""

    def __init__(self, conn: TerminalConnection) -> None:
        self.conn = conn
        self.seen: list[tuple[int, int]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                note = self.conn.wait_note(0.5)
                if note is None:
                    continue
                view = self.conn.request("seat")
            except (TerminalError, OSError, ValueError):
                return
            self.seen.append((int(view["version"]), time.perf_counter_ns()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--terminals", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="da-terminal-latency-"))
    sim = SimulatedShoe(game="electronic", decks=6, seed=11, penetration=None)
    sim.open()
    port = free_pair_of_ports()
    config = tmp / "station.toml"
    config.write_text(f'[table]\nname = "BENCH"\ngame = "electronic"\ndecks = 6\n[shoe]\nport = "{sim.path}"\n'
                      f'[terminals]\nport = {port}\nhost = "127.0.0.1"\n')
    sock, state = tmp / "station.sock", tmp / "state"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALER_ASSIST")}
    env["PYTHONPATH"] = str(ROOT)
    service = subprocess.Popen([sys.executable, "-m", "dealer_assist", "station", "--config", str(config), "serve",
                                "--state-dir", str(state), "--socket", str(sock), "--log-dir", str(tmp)],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    listeners: list[Listener] = []
    try:
        deadline = time.monotonic() + 60
        while not (sock.exists() and (state / "terminals" / "station.pem").exists()):
            if time.monotonic() > deadline:
                raise SystemExit("the service did not start")
            time.sleep(0.05)
        screen_seen: list[tuple[int, int]] = []

        def on_notify(name: str, data: dict[str, Any]) -> None:
            if name == "round":
                screen_seen.append((int(data["version"]), time.perf_counter_ns()))

        c = ServiceClient(sock, on_notify=on_notify, timeout_s=300)
        c.request("enrol", name="sue", pin=SUE["pin"])
        c.request("add_account", name="ann", new_pin="246810", roles=["dealer"], pin=SUE)
        c.request("change_pin", name="ann", old_pin="246810", new_pin="730418")
        c.request("login", name="ann", pin="730418")
        seats = [f"t{i}" for i in range(1, args.terminals + 1)]
        c.request("set_table", pin=SUE, setup={"game": "electronic", "decks": 6, "areas": 7,
                                               "limits": {"main": [5, 1000]}, "seated": {}, "terminals": seats,
                                               "decision_seconds": 120, "chips": [5, 25, 100]})
        actors: dict[str, TerminalConnection] = {}
        for seat in seats:
            added = subprocess.run([sys.executable, "-m", "dealer_assist", "station", "--config", str(config),
                                    "terminal", "add", seat, "--state-dir", str(state)],
                                   cwd=ROOT, env=env, capture_output=True, text=True, check=True)
            code = added.stdout.split(f"pairing code for seat {seat}: ", 1)[1].split()[0]
            pair("127.0.0.1", port, code, tmp / seat)
            actors[seat] = TerminalConnection("127.0.0.1", port, tmp / seat)
            listeners.append(Listener(TerminalConnection("127.0.0.1", port, tmp / seat)))
            # 1.1.10: a terminal wagers from the credits bought at it (a supervisor's PIN)
            c.request("buy_in", seat=seat, amount=1000, pin=SUE)
        while not c.request("state")["shoe"].get("connected"):
            time.sleep(0.05)
        decisions: list[tuple[int, int]] = []  # (version, ns sent)
        for _ in range(args.rounds):
            for seat in seats:
                actors[seat].request("wager", bet="main", amount=10)
            c.request("no_more_bets")
            while c.request("state")["expect"]["kind"] == "card" and not c.request("state")["concluded"]:
                before = c.request("state")["version"]
                if sim.deal() is None:
                    sim.shuffle()
                    continue
                while c.request("state")["version"] == before:
                    time.sleep(0.005)
            for seat in seats:
                t0 = time.perf_counter_ns()
                try:
                    view = actors[seat].request("decide", action="stand")
                except TerminalError:
                    continue  # a blackjack with nothing to decide, or already done
                decisions.append((int(view["version"]), t0))
            while not c.request("state")["concluded"]:
                if c.request("state")["expect"]["kind"] == "card":
                    if sim.deal() is None:
                        sim.shuffle()
                time.sleep(0.01)
            c.request("next_round")
        time.sleep(1.0)
        to_terminals: list[float] = []
        to_screen: list[float] = []
        for version, t0 in decisions:
            for listener in listeners:
                at = next((t for v, t in listener.seen if v >= version and t >= t0), None)
                if at is not None:
                    to_terminals.append((at - t0) / 1e6)
            at = next((t for v, t in screen_seen if v >= version and t >= t0), None)
            if at is not None:
                to_screen.append((at - t0) / 1e6)
        c.close()
    finally:
        for listener in listeners:
            listener.stop.set()
        service.terminate()
        service.wait(10)
        sim.close()
    load = os.getloadavg()[0]
    for name, times in (("every terminal's seat view", to_terminals), ("the dealer's screen", to_screen)):
        times.sort()
        if not times:
            print(f"{name}: no samples")
            continue
        q = statistics.quantiles(times, n=100)
        print(f"decision -> {name}: {len(times)} samples, p50 {q[49]:.2f} ms, p90 {q[89]:.2f} ms, "
              f"p99 {q[98]:.2f} ms, max {times[-1]:.2f} ms")
    print(f"{args.terminals} terminals, {len(decisions)} decisions, {args.rounds} rounds; load average {load:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
