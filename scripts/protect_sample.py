"""A sample store for ``dealer-assist protect`` (issue 36): one Lucky 8 table (6 decks) dealt
through the engine from shuffled shoes cut at 75 %, every hand played by the printed chart
(bench/simulate.py, surrender included); ``counter`` bets 1-2-4-6-8 units by the game's true count (bench/protect.py's
ramp), ``flat`` 2.5 units. Every round recorded with its shoe (spec/round-script.md).

    python scripts/protect_sample.py STORE [--rounds 300] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
from decimal import Decimal

from dealer_assist.bench.protect import UNIT, ramp
from dealer_assist.bench.simulate import Shoe, chart_event, chart_strategy
from dealer_assist.engine.events import NoMoreBets, Wager
from dealer_assist.engine.transcript import event_to_transcript, new_round, settle_document
from dealer_assist.odds.sheet import chart_of
from dealer_assist.protect.counts import count_for
from dealer_assist.store import record_transcript


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("store")
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    game, decks = "lucky8", 6
    count = count_for(game, decks)
    assert count is not None
    chart = chart_of(game, decks)
    strategy = chart_strategy(chart)
    rng = random.Random(args.seed)
    shoe = Shoe(game, decks, args.seed, reserve=count.shoe_size // 4)
    shoes = 0
    header = {"game": game, "decks": decks, "areas": 7, "seated": {"counter": 1, "flat": 2}}
    for _ in range(args.rounds):
        before = shoe.pos
        shoe.round_start()
        if shoe.pos < before or shoes == 0:
            shoes += 1
        start = shoe.pos
        tc = count.true_count(shoe.cards[:start], start)
        rnd = new_round(header)
        rnd.apply(Wager("counter", "main", Decimal(ramp(tc) * UNIT), 1))
        rnd.apply(Wager("flat", "main", Decimal(25), 2))
        rnd.apply(NoMoreBets())
        while (event := chart_event(rnd, rnd.expectation(), shoe, chart, strategy, rng)) is not None:
            rnd.apply(event)
        doc = {**header, "shoe": {"id": f"S-{args.seed}-{shoes}", "dealt": start},
               "events": [event_to_transcript(e) for e in rnd.events]}
        record_transcript(args.store, doc, settle_document(doc), table="T1")


if __name__ == "__main__":
    main()
