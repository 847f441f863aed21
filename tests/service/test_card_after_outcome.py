"""Issue 34 item 5: a card out of the shoe after the round's outcome, at the station service,
in every game. The round is over (1.1.12) and its outcome stands; the card can lie nowhere
but the discard holder: the rules remove it from play (5.7; 5.6 in Electronic Blackjack:
"removed from play ... the outcome ... shall stand") and it still counts for 5.1. The
service holds it with that reason and the one place the engine gives (the discard); placed
there it is recorded as a ruling, nothing is paid again, and Next round goes on."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from dealer_assist.engine.table_setup import TableSetup, setup_to_json
from dealer_assist.engine.transcript import new_round
from dealer_assist.service.client import ServiceError
from tests.service.conftest import Station

SUE = {"user": "sue", "pin": "482913"}

# game -> (the round's cards in shoe order, the card after the outcome, the clause, p1's net).
# Stand on everything. Table games deal p1, dealer, p1 (3.18): p1 10+Q = 20 against the
# dealer's 9 then 8 = 17 (stands, 3.34): p1 wins 10 (4.3.2). Dueling 8's: the permanent 8♠
# on each side (its 3.4): p1 8+Q = 18 against the dealer's 8+9 = 17: p1 wins 10. Electronic
# (dealer's card in the initial deal, one shared hand): player 10+Q = 20, dealer 9 then 8 = 17.
ROUNDS = {
    "ace_race": ("10S 9H QD 8C", "5D", "5.7"),
    "lucky8": ("10S 9H QD 8C", "5D", "5.7"),
    "star_elements": ("10Fi 9Go QEa 8Wo", "5Ea", "5.7"),
    "dueling8s": ("QH 9D", "5C", "5.7"),
    "electronic": ("10S 9H QD 8C", "5D", "5.6"),
}


def setup_for(game: str) -> TableSetup:
    limits = {"main": [Decimal(5), Decimal(1000)]}
    if game == "electronic":
        return TableSetup(game=game, decks=6, limits=limits, terminals=["t1"])
    return TableSetup(game=game, decks=6, areas=7, limits=limits, seated={"p1": 1})


def play_to_the_outcome(s: Station, c: Any, game: str, cards: int) -> dict[str, Any]:
    """p1 (Electronic: terminal t1) wagers 10 and stands whenever asked; the cards come out
    of the simulated shoe one by one."""
    electronic = game == "electronic"
    c.request("wager", player="t1" if electronic else "p1", bet="main", amount=10,
              **({} if electronic else {"area": 1}))
    state = c.request("state")
    dealt = 0
    for _ in range(20):
        if state["concluded"]:
            return state
        nxt = (state["output"] or {}).get("next") or {"expect": "card"}
        if nxt["expect"] in ("card", "wagers"):  # the first card closes the bets (5.3)
            state = s.deal(c, 1)
            dealt += 1
        elif nxt["expect"] == "decisions":
            p = nxt["pending"][0]
            state = c.request("decide", action="stand", player=p["player"], hand=p["hand"])
        else:
            assert nxt["expect"] == "decision", nxt
            state = c.request("decide", action="stand", area=nxt["area"], hand=nxt["hand"], player=nxt.get("player"))
    raise AssertionError(f"no outcome after {dealt} of {cards} cards: {state['output']}")


@pytest.mark.parametrize("game", list(ROUNDS))
def test_a_card_after_the_outcome_is_discarded_with_its_clause(station: Any, game: str) -> None:
    shoe, extra, clause = ROUNDS[game]
    setup = setup_for(game)
    new_round(setup.config([]))  # the set-up is one the engine opens a round with
    s: Station = station(f"{shoe} {extra}")
    c = s.dealer()
    c.request("set_table", setup=setup_to_json(setup), pin=SUE)
    state = play_to_the_outcome(s, c, game, len(shoe.split()))
    assert state["output"]["status"] == "settled"
    assert state["output"]["net"] == {("t1" if game == "electronic" else "p1"): 10}
    cards_before = [e["card"] for e in state["events"] if e["type"] == "card"]
    assert cards_before == shoe.split()

    # the card after the outcome: held, with the rules' answer and clause
    state = s.deal(c, 1)
    assert state["stray"]["card"] == extra
    reason = state["stray"]["reason"]
    assert "settled" in reason and "removed from play" in reason and f"({clause})" in reason
    assert state["concluded"]
    with pytest.raises(ServiceError, match=f"{extra} is held"):
        c.request("next_round")  # never past a card still in the dealer's hand
    # a player's hand takes no card now (refused with the clause, nothing changed)
    with pytest.raises(ServiceError, match="takes no card now"):
        c.request("place_card", to="player" if game == "electronic" else "area:1/1")
    assert c.request("state")["stray"]["card"] == extra

    # the discard holder: recorded as the ruling, the outcome unchanged
    state = c.request("place_card", to="discard")
    assert state["stray"] is None and state["in_flight"] == []
    out = state["output"]
    assert out["status"] == "settled" and out["net"] == {("t1" if game == "electronic" else "p1"): 10}
    ruling = out["rulings"][-1]
    assert (ruling["rule"], ruling["ruling"]) == (clause, "discarded")
    assert [(m["card"], m["to"]) for m in ruling["moves"]] == [(extra, "discard")]
    assert [e["card"] for e in state["events"] if e["type"] == "card"] == [*cards_before, extra]  # 5.1: counted

    state = c.request("next_round")
    assert state["round_id"] is None and state["betting"]
