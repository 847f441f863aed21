"""Detection benchmark of ``dealer-assist protect`` (issue 36): tables of seven players dealt
through the engine from shuffled shoes (bench/simulate.py, the chart's basic play), each
player betting by a rule; the count and the flag are protect's own (counts.py, report.py).

Players (unit 10): ``spread`` counts with the game's count and bets 1 unit below a true
count of 2, then 2, 4, 6 and 8 units at 2, 3, 4, 5+; ``wonging`` bets the same only at a true
count of 1 or more and sits out otherwise; ``flat`` 2.5 units always; ``random`` 1, 2.5, 5 or
10 units at random; ``martingale`` doubles after a loss (to 8 units) and starts over after a
win; ``paroli`` doubles after a win, three times at most, and starts over after a loss.

    python -m dealer_assist.bench.protect [--game lucky8] [--decks 6] [--tables 215] [--rounds 500]
"""

from __future__ import annotations

import argparse
import math
import random
import time
from dataclasses import dataclass, field
from decimal import Decimal

from dealer_assist.bench.simulate import Shoe, basic_strategy, play
from dealer_assist.engine.events import NoMoreBets, Wager
from dealer_assist.engine.transcript import new_round
from dealer_assist.games import GAMES
from dealer_assist.protect.counts import Count, count_for
from dealer_assist.protect.report import spread_flagged
from dealer_assist.protect.stats import fit

UNIT = 10
KINDS = ("spread", "wonging", "flat", "random", "martingale", "paroli")
COUNTERS = ("spread", "wonging")
CHECKPOINTS = (50, 100, 150, 200, 300, 400, 500)


def ramp(tc: float) -> int:
    """Units of a 1-8 spread at true count ``tc``."""
    return 1 if tc < 2 else 2 if tc < 3 else 4 if tc < 4 else 6 if tc < 5 else 8


@dataclass
class Player:
    name: str
    kind: str
    rng: random.Random
    units: float = 1.0  # the progression's next wager (martingale, paroli)
    wins: int = 0
    xs: list[float] = field(default_factory=list)
    ys: list[float] = field(default_factory=list)
    flagged_at: dict[int, bool] = field(default_factory=dict)

    def wager(self, tc: float) -> float | None:
        if self.kind == "spread":
            return ramp(tc) * UNIT
        if self.kind == "wonging":
            return ramp(tc) * UNIT if tc >= 1 else None
        if self.kind == "flat":
            return 2.5 * UNIT
        if self.kind == "random":
            return (1, 2.5, 5, 10)[int(self.rng.random() * 4)] * UNIT
        return self.units * UNIT

    def settled(self, net: Decimal) -> None:
        if self.kind == "martingale":
            self.units = 1 if net > 0 else min(self.units * 2, 8) if net < 0 else self.units
        elif self.kind == "paroli":
            if net > 0 and self.wins < 3:
                self.wins += 1
                self.units *= 2
            elif net != 0:
                self.wins, self.units = 0, 1


def run_table(game: str, decks: int, count: Count, seed: int, rounds: int, players: list[Player],
              penetration: float = 0.75) -> None:
    rng = random.Random(seed)
    shoe = Shoe(game, decks, seed, reserve=int(count.shoe_size * (1 - penetration)))
    electronic = GAMES[game].shared_hand
    for number in range(1, rounds + 1):
        shoe.round_start()
        start = shoe.pos
        seen = shoe.cards[:start]
        tc = count.true_count(seen, start)
        rnd = new_round({"game": game, "decks": decks, "areas": 7})
        betting: list[Player] = []
        for area, p in enumerate(players, start=1):
            amount = p.wager(tc)
            if amount is None:
                continue
            rnd.apply(Wager(p.name, "main", Decimal(str(amount)), None if electronic else area))
            p.xs.append(tc)
            p.ys.append(amount)
            betting.append(p)
        if betting:
            rnd.apply(NoMoreBets())
            play(rnd, shoe, basic_strategy, rng)
            nets: dict[str, Decimal] = {}
            for s in rnd.settlements:
                nets[s.player] = nets.get(s.player, Decimal(0)) + s.net
            for p in betting:
                p.settled(nets.get(p.name, Decimal(0)))
        if number in CHECKPOINTS:
            for p in players:
                p.flagged_at[number] = spread_flagged(fit(p.xs, p.ys), len(p.xs))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="lucky8", choices=list(GAMES))
    parser.add_argument("--decks", type=int, default=6)
    parser.add_argument("--tables", type=int, default=215)
    parser.add_argument("--rounds", type=int, default=500)
    parser.add_argument("--seed", type=int, default=36)
    args = parser.parse_args(argv)
    count = count_for(args.game, args.decks)
    if count is None:
        raise SystemExit(f"error: no count for {args.game}")
    start = time.monotonic()
    everyone: list[Player] = []
    for t in range(args.tables):
        players = [Player(f"p{t}-{i}", KINDS[(t * 7 + i) % len(KINDS)], random.Random(args.seed * 1_000_003 + t * 7 + i))
                   for i in range(7)]
        run_table(args.game, args.decks, count, args.seed * 7919 + t, args.rounds, players)
        everyone.extend(players)
    took = time.monotonic() - start
    print(f"{args.game}, {args.decks} decks, 75 % penetration; count {count.tags} "
          f"(betting correlation {count.betting_correlation:.3f}); {args.tables} tables x {args.rounds} rounds "
          f"in {took:.0f} s; flag: slope > 0, p < 0.001, >= 10 rounds")
    print("kind          players  " + "  ".join(f"{c:>6}" for c in CHECKPOINTS if c <= args.rounds))
    for kind in KINDS:
        group = [p for p in everyone if p.kind == kind]
        rates = [sum(p.flagged_at.get(c, False) for p in group) / len(group) for c in CHECKPOINTS if c <= args.rounds]
        print(f"{kind:<12} {len(group):>8}  " + "  ".join(f"{r * 100:5.1f}%" for r in rates))
    noncounters = [p for p in everyone if p.kind not in COUNTERS]
    counters = [p for p in everyone if p.kind in COUNTERS]
    at = min(300, args.rounds)
    hit = sum(p.flagged_at.get(at, False) for p in counters)
    false = sum(p.flagged_at.get(args.rounds, False) for p in noncounters)
    print(f"counters flagged within {at} rounds: {hit}/{len(counters)} = {hit / max(len(counters), 1) * 100:.1f} %"
          f" (95 % interval half-width {196 * math.sqrt(max(hit, 1) / max(len(counters), 1) * (1 - hit / max(len(counters), 1)) / max(len(counters), 1)):.1f} pts)")
    print(f"non-counters flagged over {args.rounds} rounds: {false}/{len(noncounters)} = "
          f"{false / max(len(noncounters), 1) * 100:.2f} %")


if __name__ == "__main__":
    main()
