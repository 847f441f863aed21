"""A decision takes one validation path whether or not the round was asked first (issue 14):
the outcome must be the same as when nobody asked the round what it expects first.

Two rounds get the same events: one is asked ``expectation()`` before every event (the
dealer's screen does this), the other never is. Random play decisions, legal or not, on
random areas, hands and players must be accepted or refused alike, with the same clause,
and the two rounds must settle identically.
"""

from __future__ import annotations

import random
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from dealer_assist.base.errors import RuleRefusal
from dealer_assist.bench.simulate import (
    Shoe,
    electronic_wagers,
    next_event,
    random_strategy,
    table_wagers,
)
from dealer_assist.engine.events import Decision, Event
from dealer_assist.engine.transcript import new_round, round_output
from dealer_assist.games import GAMES

TABLE_GAMES = sorted(g for g in GAMES if g != "electronic")


def _outcome(rnd: object, ev: Event) -> tuple[str, str | None] | None:
    try:
        rnd.apply(ev)  # type: ignore[attr-defined]
    except RuleRefusal as refusal:
        return refusal.message, refusal.clause
    return None


@settings(max_examples=60, deadline=None)
@given(game=st.sampled_from(TABLE_GAMES), seed=st.integers(0, 2**32), per_area=st.integers(1, 3))
def test_asked_and_unasked_rounds_accept_and_refuse_alike(game: str, seed: int, per_area: int) -> None:
    rng = random.Random(seed)
    rules = GAMES[game]
    decks = rules.deck_range[1]
    shoe = Shoe(game, decks, seed)
    shoe.round_start()
    header = {"game": game, "decks": decks, "areas": 7, "limits": {"main": [10, 100]}}
    asked, blind = new_round(header), new_round(header)
    wagers = table_wagers(game, rng.randint(1, 7), per_area, rng.random() < 0.5, rng)
    for w in wagers:
        assert _outcome(asked, w) == _outcome(blind, w)
    players = sorted({w.player for w in wagers})  # type: ignore[attr-defined]
    refused = 0
    for _ in range(400):
        exp = asked.expectation()
        if exp.kind == "decision" and rng.random() < 0.6:
            # Any play decision, often not the one the round listed (wrong area, hand,
            # player, an option it did not list, a double for a random amount).
            action = rng.choice(("hit", "stand", "double", "split"))
            area = exp.area if rng.random() < 0.7 else rng.randint(1, 7)
            hand = exp.hand if rng.random() < 0.7 else rng.randint(1, 4)
            player = None if rng.random() < 0.5 else rng.choice([*players, exp.player or players[0]])
            amount = None
            if action == "double" and rng.random() < 0.4:
                amount = Decimal(rng.choice((1, 5, 10, 25, 100, 500)))
            ev: Event = Decision(action, area, hand, player, amount)
            asked.expectation()  # the screen asked before the dealer acted
            first, second = _outcome(asked, ev), _outcome(blind, ev)
            assert first == second, ev
            refused += first is not None
            continue
        step = next_event(asked, exp, iter(shoe), random_strategy, rng, take_offers=True)
        if step is None:
            break
        assert _outcome(asked, step) == _outcome(blind, step), step
    assert round_output(asked) == round_output(blind)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), terminals=st.integers(1, 6), side_bets=st.booleans())
def test_electronic_asked_and_unasked_rounds_accept_and_refuse_alike(seed: int, terminals: int,
                                                                      side_bets: bool) -> None:
    """The same for Electronic Blackjack: random decisions by random terminals, legal or not."""
    rng = random.Random(seed)
    shoe = Shoe("electronic", 6, seed)
    shoe.round_start()
    header = {"game": "electronic", "decks": 6, "limits": {"main": [10, 100]}}
    asked, blind = new_round(header), new_round(header)
    wagers = electronic_wagers(terminals, side_bets, rng)
    for w in wagers:
        assert _outcome(asked, w) == _outcome(blind, w)
    players = sorted({w.player for w in wagers})  # type: ignore[attr-defined]
    for _ in range(300):
        exp = asked.expectation()
        if exp.kind == "decisions" and rng.random() < 0.6:
            pending = rng.choice(exp.pending)
            action = rng.choice(("hit", "stand", "double", "split", "surrender", "insurance", "even_money"))
            player = pending["player"] if rng.random() < 0.8 else rng.choice(players)
            hand = pending["hand"] if rng.random() < 0.8 else rng.randint(1, 3)
            amount = Decimal(rng.choice((5, 10, 25, 50))) if action == "double" and rng.random() < 0.3 else None
            ev: Event = Decision(action, None, hand, player, amount)
            asked.expectation()
            assert _outcome(asked, ev) == _outcome(blind, ev), ev
            continue
        step = next_event(asked, exp, iter(shoe), random_strategy, rng, take_offers=True)
        if step is None:
            break
        assert _outcome(asked, step) == _outcome(blind, step), step
    assert round_output(asked) == round_output(blind)
