"""`dealer-assist bench`: rounds per second and time per event through the rules engine.

The set-ups and the timing loop are in dealer_assist/bench/engine.py; this module is the command.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse

from dealer_assist.bench.engine import run_setup
from dealer_assist.cli.common import whole_number
from dealer_assist.games import GAMES


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", default="ace_race", choices=GAMES)
    parser.add_argument(
        "--rounds", type=whole_number(1), default=20000, help="rounds per set-up, 1 or more (default 20000)"
    )
    parser.add_argument("--seed", type=whole_number(0), default=1, help="shuffle seed (default 1)")


def run(args: argparse.Namespace) -> int:
    import dealer_assist.engine.table as table_module

    compiled = table_module.__file__.endswith((".so", ".pyd"))
    print("engine: " + ("compiled with mypyc (scripts/compile_engine.py)" if compiled else
                        "pure Python (for the compiled engine: scripts/compile_engine.py, then "
                        "PYTHONPATH=build/compiled)"))
    setups = (("(a) 5 areas, 1 player each, main only", False),
              ("(b) 7 areas, 3 players each, every side bet", True))
    rules = GAMES[args.game]
    if rules.shared_hand:  # one shared hand: terminals instead of areas
        setups = (("(a) 5 terminals, main only", False), ("(b) 12 terminals, every side bet", True))
    for label, full in setups:
        # Throughput without per-event timers, then the per-event latencies in a second pass.
        speed = run_setup(args.game, full, args.rounds, args.seed, timed=False)
        lat = run_setup(args.game, full, max(args.rounds // 4, 100), args.seed, timed=True)
        print(f"{rules.display_name} {label}:")
        print(f"  {speed['rounds_per_s']:,.0f} rounds/s, {speed['events_per_s']:,.0f} events/s "
              f"({speed['events_per_round']:.1f} events/round, whole round incl. next-event choice)")
        print(f"  apply one event: median {lat['median_us']:.1f} µs, p99 {lat['p99_us']:.1f} µs")
    return 0
