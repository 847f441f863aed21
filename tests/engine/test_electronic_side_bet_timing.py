"""When an Electronic terminal's Bet the Set 21 and Royal Match 21 wagers are settled.

Electronic 3.6.1 and 3.6.2 decide both by "the first two cards dealt to the Player" (the
shared Player cards, 3.8) and 4.2 / 4.3 give the odds; no clause says at what moment a
terminal's wager is paid. spec/round-script.md ("Phases") puts the interim settlement at
the offers' closing, and "in electronic each terminal's offers close at its own first play
decision": the engine settles a terminal's side bets there. The amounts are the same
whenever that is, which these rounds, worked by hand, show.

Shared cards K♥ (Player), 5♦ (Dealer), Q♥ (Player): K♥Q♥ is a Royal Match 21, suited King
and Queen, 25 to 1 (4.3): +125 on 5; it is no pair (1.1.9: KQ is not a Pair), so Bet the Set
loses (3.6.1): -5. The dealer draws 10♣ (15) and 2♠ (17) and stands (3.19); 20 beats 17:
each main wager of 10 wins 1 to 1 (4.5.2).
"""

from __future__ import annotations

from typing import Any

from tests.engine.helpers import NMB, bet, cards, entries, one, settle, table

WAGERS = (bet("t1", 10), bet("t1", 5, "royal_match"),
          bet("t2", 10), bet("t2", 5, "royal_match"), bet("t2", 5, "bet_the_set"))
DEAL = cards("KH", "5D", "QH")
DEALER = cards("10C", "2S")


def stand(player: str) -> dict[str, Any]:
    return {"type": "decision", "player": player, "action": "stand"}


def test_a_terminals_side_bets_settle_at_its_own_first_play_decision() -> None:
    mid = settle(table("electronic", *WAGERS, NMB, *DEAL, stand("t1")))
    e = one(mid, "t1", "royal_match")
    assert (e["result"], e["net"], e["rule"], e["stage"]) == ("win", 125, "4.3", "interim")
    assert e["row"] == "Royal Match 21 (Suited King and Queen)"
    # t2 has not decided: its offers are open, its interim settlement has not taken place
    assert entries(mid, "t2", "royal_match") == [] and entries(mid, "t2", "bet_the_set") == []

    out = settle(table("electronic", *WAGERS, NMB, *DEAL, stand("t1"), stand("t2"), *DEALER))
    assert out["status"] == "settled"
    rm, bts = one(out, "t2", "royal_match"), one(out, "t2", "bet_the_set")
    assert (rm["net"], rm["stage"]) == (125, "interim")
    assert (bts["result"], bts["net"], bts["rule"], bts["stage"]) == ("lose", -5, "3.6.1", "interim")
    assert out["net"] == {"t1": 135, "t2": 130}


def test_the_order_the_terminals_act_in_changes_no_amount() -> None:
    first = settle(table("electronic", *WAGERS, NMB, *DEAL, stand("t1"), stand("t2"), *DEALER))
    second = settle(table("electronic", *WAGERS, NMB, *DEAL, stand("t2"), stand("t1"), *DEALER))

    def amounts(out: dict[str, Any]) -> set[tuple[str, str, int]]:
        return {(s["player"], s["bet"], s["net"]) for s in out["settlements"]}

    expected = {("t1", "royal_match", 125), ("t1", "main", 10),
                ("t2", "royal_match", 125), ("t2", "bet_the_set", -5), ("t2", "main", 10)}
    assert amounts(first) == amounts(second) == expected
    assert first["net"] == second["net"] == {"t1": 135, "t2": 130}


def test_a_void_returns_a_side_bet_already_paid_as_well_as_one_not_yet_settled() -> None:
    # 5.1.1: the round is void, every wager of it returned, settled or not: when a
    # terminal's side bet was paid cannot change what a void gives back.
    doc = table("electronic", *WAGERS, NMB, *DEAL, stand("t1"),
                {"type": "void", "reason": "unshuffled cards", "rule": "5.1"})
    out = settle(doc)
    assert out["status"] == "void"
    returned = {(s["player"], s["bet"]) for s in out["settlements"] if s["result"] == "returned" and s["net"] == 0}
    assert returned == {("t1", "main"), ("t1", "royal_match"), ("t2", "main"), ("t2", "royal_match"),
                        ("t2", "bet_the_set")}
    assert len(out["settlements"]) == 5
