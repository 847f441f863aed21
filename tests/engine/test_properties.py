"""Properties of any legal round: every wager settled once, within its odds, nets add up.

Rounds are played through the engine from a shuffled shoe; every decision is a random
choice among the legal options the round itself lists (offers included).
"""

from __future__ import annotations

import random
from collections import Counter
from decimal import Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from dealer_assist.bench.simulate import (
    Shoe,
    electronic_wagers,
    play,
    random_strategy,
    table_wagers,
)
from dealer_assist.engine.transcript import new_round, round_output
from dealer_assist.games import GAMES


def _play(game: str, seed: int, per_area: int, side_bets: bool) -> tuple[object, dict[str, object]]:
    rng = random.Random(seed)
    shoe = Shoe(game, GAMES[game].deck_range[1], seed)
    shoe.round_start()
    if game == "electronic":
        rnd = new_round({"game": game, "decks": 6})
        wagers = electronic_wagers(rng.randint(1, 5), side_bets, rng)
    else:
        areas = rng.randint(GAMES[game].area_range[0], 7)
        rnd = new_round({"game": game, "decks": GAMES[game].deck_range[1], "areas": areas})
        wagers = table_wagers(game, rng.randint(1, areas), per_area, side_bets, rng)
    for w in wagers:
        rnd.apply(w)  # type: ignore[attr-defined]
    play(rnd, iter(shoe), random_strategy, rng, take_offers=True)
    return rnd, round_output(rnd)


@settings(max_examples=60, deadline=None)
@given(
    game=st.sampled_from(sorted(GAMES)),
    seed=st.integers(0, 2**32),
    per_area=st.integers(1, 3),
    side_bets=st.booleans(),
)
def test_every_wager_settles_once_within_the_table_odds(game: str, seed: int, per_area: int, side_bets: bool) -> None:
    rnd, out = _play(game, seed, per_area, side_bets)
    assert out["status"] in ("settled", "referred")
    if out["status"] == "referred":  # Dueling 8's: a dealer bust with 9+ cards (6.1)
        assert out["next"]["expect"] == "ruling" and out["next"]["rule"] == "6.1"
        return
    top = Fraction(GAMES[game].top_odds)
    per_player: dict[str, Decimal] = {}
    for e in out["settlements"]:
        stake, net = Decimal(str(e["stake"])), Decimal(str(e["net"]))
        per_player[e["player"]] = per_player.get(e["player"], Decimal(0)) + net
        # No wager loses more than its stake or wins more than stake × the table's top odds.
        assert -stake <= net <= stake * top.numerator / top.denominator, e
        assert e["rule"], e
        if e["result"] in ("push", "returned"):
            assert net == 0
    # The players' nets and the house's net sum to zero: the house pays exactly what players win.
    house = -sum(per_player.values(), Decimal(0))
    assert {p: Decimal(str(v)) for p, v in out["net"].items()} == per_player
    assert house + sum(per_player.values(), Decimal(0)) == 0
    # Every side wager placed has exactly one entry; every main wager at least one.
    placed_side = Counter((w.player, w.bet) for w in rnd.events if getattr(w, "type", "") == "wager" and w.bet != "main")  # type: ignore[attr-defined]
    settled_side = Counter((e["player"], e["bet"]) for e in out["settlements"]
                           if e["bet"] not in ("main", "insurance", "bonus678") and e["rule"] not in ("5.27", "5.24"))
    assert placed_side == settled_side
    mains = {w.player for w in rnd.events if getattr(w, "type", "") == "wager" and w.bet == "main"}  # type: ignore[attr-defined]
    assert mains == {e["player"] for e in out["settlements"] if e["bet"] == "main"}


@settings(max_examples=40, deadline=None)
@given(game=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32))
def test_replaying_the_events_gives_the_same_round(game: str, seed: int) -> None:
    rnd, out = _play(game, seed, 2, True)
    header: dict[str, object] = {"game": game, "decks": GAMES[game].deck_range[1]}
    if game != "electronic":
        header["areas"] = rnd.config.areas  # type: ignore[attr-defined]
    again = new_round(header)
    for ev in rnd.events:  # type: ignore[attr-defined]
        again.apply(ev)
    assert round_output(again) == out
