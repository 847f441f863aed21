"""The error of protect's linear edge estimate (counts.Count.edge) against the odds engine's
analysis of the actual remaining shoe (removal.main_wager_return, the same method the effects
come from), on shoes dealt at random to a given depth.

    python scripts/protect_edge_error.py [--game lucky8] [--decks 6] [--shoes 6] [--depth 0.5]
"""

from __future__ import annotations

import argparse
import math
import random

from dealer_assist.games import GAMES
from dealer_assist.protect.counts import count_for
from dealer_assist.protect.removal import main_wager_return


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="lucky8")
    parser.add_argument("--decks", type=int, default=6)
    parser.add_argument("--shoes", type=int, default=6)
    parser.add_argument("--depth", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=36)
    args = parser.parse_args()
    count = count_for(args.game, args.decks)
    assert count is not None
    rng = random.Random(args.seed)
    cards = list(GAMES[args.game].composition) * args.decks
    errors = []
    for _ in range(args.shoes):
        rng.shuffle(cards)
        seen = cards[:int(len(cards) * args.depth)]
        removed = [0] * 10
        for c in seen:
            removed[c.points - 1] += 1
        exact = main_wager_return(args.game, args.decks, removed)
        estimate = count.edge(seen, len(seen))
        errors.append(estimate - exact)
        print(f"true count {count.true_count(seen, len(seen)):+6.2f}: engine {exact * 100:+.3f} %, "
              f"estimate {estimate * 100:+.3f} %, error {(estimate - exact) * 100:+.3f} pts", flush=True)
    rms = math.sqrt(sum(e * e for e in errors) / len(errors))
    print(f"{args.game} {args.decks} decks, {args.depth:.0%} dealt, {len(errors)} shoes: "
          f"mean error {sum(errors) / len(errors) * 100:+.3f} pts, rms {rms * 100:.3f} pts")


if __name__ == "__main__":
    main()
