#!/usr/bin/env python3
"""Player terminals over TLS (issue 38, build 1): prints figures.

Starts the station service in-process on a temporary state directory with its terminal
endpoint on loopback (simulated shoe), pairs ``--terminals`` terminals (real openssl), and
measures: a pairing, a mutual-TLS connection with its hello, and the ``seat`` op's round
trip (p50/p99), quiet and again while ``--held`` connections hold their handshakes open.

    PYTHONPATH=$PWD python scripts/terminal_latency.py [--terminals 4] [--requests 500] [--held 200]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dealer_assist.service.serve import ServeOptions, start  # noqa: E402
from dealer_assist.service.terminal_ca import TerminalCA  # noqa: E402
from dealer_assist.service.terminal_client import TerminalConnection, pair  # noqa: E402
from dealer_assist.store.users import TEST_PIN_COST  # noqa: E402


def ms(values: list[float]) -> str:
    q = statistics.quantiles(values, n=100) if len(values) > 1 else values * 99
    return f"p50 {statistics.median(values) * 1000:.2f} ms, p99 {q[98] * 1000:.2f} ms (n={len(values)})"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--terminals", type=int, default=4)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--held", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        running = start(ServeOptions(state_dir=str(base / "state"), socket=str(base / "s.sock"),
                                     pin_cost=TEST_PIN_COST, terminals=("127.0.0.1", 0)))
        try:
            assert running.terminals is not None
            port = running.terminals.port
            ca = TerminalCA(base / "state")
            pairings, connects, trips = [], [], []
            conns = []
            for i in range(args.terminals):
                code, _ = ca.add_code(f"t{i + 1}")
                t0 = time.perf_counter()
                pair("127.0.0.1", port, code, base / f"t{i + 1}")
                pairings.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                conns.append(TerminalConnection("127.0.0.1", port, base / f"t{i + 1}"))
                connects.append(time.perf_counter() - t0)
            for n in range(args.requests):
                t0 = time.perf_counter()
                conns[n % len(conns)].request("seat")
                trips.append(time.perf_counter() - t0)
            print(f"pairing (openssl key, CSR, signing): {ms(pairings)}")
            print(f"mutual TLS connect + hello: {ms(connects)}")
            print(f"op seat round trip, quiet: {ms(trips)}")
            held = [socket.create_connection(("127.0.0.1", port)) for _ in range(args.held)]
            trips, connects = [], []
            for n in range(args.requests):
                t0 = time.perf_counter()
                conns[n % len(conns)].request("seat")
                trips.append(time.perf_counter() - t0)
            for i in range(args.terminals):
                t0 = time.perf_counter()
                TerminalConnection("127.0.0.1", port, base / f"t{i + 1}").close()
                connects.append(time.perf_counter() - t0)
            print(f"with {args.held} held handshakes: op seat {ms(trips)}; a new terminal's connect {ms(connects)}")
            for s in held:
                s.close()
            for c in conns:
                c.close()
        finally:
            running.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
