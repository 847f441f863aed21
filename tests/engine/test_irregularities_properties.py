"""Whatever irregular events arrive, in whatever order: a ruling or a refusal with a
message, never a crash, and a refused event leaves the round exactly as it was."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer_assist.base.cards import Card
from dealer_assist.base.errors import EventFormatError, RuleRefusal
from dealer_assist.engine.transcript import new_round, parse_event, round_output
from dealer_assist.games import composition_for

GAMES = ["ace_race", "lucky8", "star_elements", "dueling8s"]


def _event(rng: random.Random, deck: list[Card], n_events: int) -> dict[str, Any]:
    card = str(rng.choice(deck))
    area = rng.randint(1, 7)
    places = [f"area:{rng.randint(1, 7)}/{rng.randint(1, 2)}", "dealer", "discard", f"area:{area}"]
    k = rng.random()
    if k < 0.45:
        return {"type": "card", "card": card}
    if k < 0.53:
        return {"type": "card", "card": card, "to": rng.choice(places)}
    if k < 0.63:
        action = rng.choice(["hit", "stand", "double", "split", "accept", "refuse", "act", "surrender"])
        return {"type": "decision", "action": action, "area": area}
    if k < 0.67:
        return {"type": "correction", "index": rng.randint(0, max(0, n_events - 1)), "to": rng.choice(places)}
    if k < 0.71:
        cards = [str(rng.choice(deck)) for _ in range(rng.randint(2, 3))]
        return {"type": "multi", "cards": cards, "disclosed": rng.sample(cards, rng.randint(0, len(cards)))}
    if k < 0.75:
        return {"type": "pick", "card": card, "by": rng.choice(["player", "pit_manager"])}
    if k < 0.77:
        return {"type": "power_failure"}
    if k < 0.81:
        return {"type": "withdraw", "player": rng.choice(["p1", "p2", "p3"])}
    if k < 0.83:
        return {"type": "burn", "card": card}
    if k < 0.85:
        return {"type": "resolve", "ruling": rng.choice(["continue", "void"]), "text": "gsm"}
    return {"type": "close_offers"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**32 - 1))
def test_irregular_events_are_ruled_or_refused_and_refusals_change_nothing(game: str, seed: int) -> None:
    rng = random.Random(seed)
    deck = list(composition_for(game))
    rnd = new_round({"game": game, "decks": 6, "areas": 7})
    for player, area in (("p1", rng.randint(1, 3)), ("p2", rng.randint(2, 5)), ("p3", rng.randint(4, 7))):
        rnd.apply(parse_event({"type": "wager", "player": player, "area": area, "bet": "main", "amount": 10}))
    rnd.apply(parse_event({"type": "no_more_bets"}))
    for _ in range(50):
        ev = _event(rng, deck, len(rnd.events))
        before = json.dumps(round_output(rnd), sort_keys=True)
        try:
            rnd.apply(parse_event(ev))
        except (RuleRefusal, EventFormatError) as exc:
            assert exc.message
            assert json.dumps(round_output(rnd), sort_keys=True) == before
        out = round_output(rnd)
        # Every ruling names a clause of section 5 or 6.1 and says what happens.
        for r in out["rulings"]:
            assert r["rule"].split(".")[0] in ("5", "6") and r["text"]
        # Money: a wager never wins more than 2 to 1 here (no side bets are placed).
        for s in out["settlements"]:
            assert -s["stake"] <= s["net"] <= 2 * s["stake"]
