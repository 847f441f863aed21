"""Kill the station at random moments and count what was lost (issues 15, 23).

    .venv/bin/python scripts/crash_test.py [--kills 300] [--seed 15] [--keep DIR] [--screen-client]

The table runs only in the station service (issue 33): by default the service is SIGKILLed
while the campaign deals (tests/service/crash_campaign.py); ``--screen-client`` kills the
dealer's screen as a client of a running service (tests/ui_service/screen_campaign.py).
Prints the figures; exit 1 if anything was lost. (The in-process window's campaign went with
the in-process table.)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=300)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--max-delay", type=float, default=2.0, help="longest wait before a kill, seconds")
    parser.add_argument("--keep", metavar="DIR", help="keep the store file in DIR")
    parser.add_argument("--service", action="store_true",
                        help="kill the station service (the default; tests/service/crash_campaign.py)")
    parser.add_argument("--screen-client", action="store_true",
                        help="kill the dealer's screen as a client of a running station service (issue 23; "
                             "tests/ui_service/screen_campaign.py)")
    parser.add_argument("--minutes", type=float, help="--screen-client: stop killing after this wall time")
    parser.add_argument("--game", default="lucky8", help="--screen-client: the station's game")
    args = parser.parse_args()
    if args.screen_client:
        return _screen_client(args)
    return _service(args)


def _service(args: argparse.Namespace) -> int:
    from tests.service.crash_campaign import run as run_service

    with tempfile.TemporaryDirectory() as tmp:
        where = Path(args.keep) if args.keep else Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        figures = run_service(where, args.kills, seed=args.seed, max_delay=min(args.max_delay, 1.5))
    print("\n".join(figures.lines()))
    for name, ids in (("stuck", figures.stuck), ("results missing", figures.results_missing),
                      ("cards lost", figures.cards_lost), ("missing at a count", figures.count_misses),
                      ("refused", figures.refusals)):
        if ids:
            print(f"  {name}: {ids[:20]}")
    bad = figures.stuck or figures.results_missing or figures.cards_lost or figures.count_misses or figures.refusals
    return 0 if not bad and figures.verify == "ok" else 1


def _screen_client(args: argparse.Namespace) -> int:
    from tests.ui_service.screen_campaign import run as run_screen

    with tempfile.TemporaryDirectory() as tmp:
        where = Path(args.keep) if args.keep else Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        figures, lines = run_screen(where, args.kills, seed=args.seed, max_delay=args.max_delay,
                                    budget_s=args.minutes * 60 if args.minutes else None, game=args.game)
    print("\n".join(lines))
    for name, ids in (("stuck", figures.stuck), ("results missing", figures.results_missing),
                      ("cards lost", figures.cards_lost)):
        if ids:
            print(f"  {name}: {ids[:20]}")
    return 0 if not (figures.stuck or figures.results_missing or figures.cards_lost) and figures.verify == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
