"""The phase machine (issue 26.3): a round's phases follow engine/phase.py's moves, and a
move the machine does not list is refused."""

from __future__ import annotations

import pytest

from dealer_assist.engine.phase import ELECTRONIC_MOVES, TABLE_MOVES
from dealer_assist.engine.table import TableRound
from dealer_assist.engine.transcript import new_round, parse_event
from tests.engine.helpers import NMB, bet, cards, decide, table, wager


def _phases(doc: dict[str, object]) -> list[str]:
    rnd = new_round({k: v for k, v in doc.items() if k != "events"})
    seen = [rnd.phase]
    for e in doc["events"]:  # type: ignore[attr-defined]
        rnd.apply(parse_event(e))
        if rnd.phase != seen[-1]:
            seen.append(rnd.phase)
    return seen


def test_a_table_round_goes_betting_initial_offers_play_dealer_settled() -> None:
    # Deal (3.18): area 1 9H, area 2 8S, dealer 5D, area 1 7C, area 2 9S. Area 1 (16) hits 10S
    # and busts; area 2 stands on 17; the dealer 5D KD = 15 draws 3C: 18 (3.34), settled.
    doc = table("lucky8", wager("a", 1, 10), wager("b", 2, 10), NMB, *cards("9H", "8S", "5D", "7C", "9S"),
                decide("hit", 1), *cards("10S"), decide("stand", 2), *cards("KD", "3C"))
    assert _phases(doc) == ["betting", "initial", "offers", "play", "dealer", "settled"]


def test_an_electronic_round_goes_betting_initial_decisions_dealer_settled() -> None:
    doc = table("electronic", bet("t1", 10), NMB, *cards("9H", "7D", "QC"), decide("stand", player="t1"),
                *cards("KS"))
    assert _phases(doc) == ["betting", "initial", "decisions", "dealer", "settled"]


def test_a_move_the_machine_does_not_list_is_refused() -> None:
    rnd = new_round({"game": "ace_race", "decks": 6, "areas": 7})
    assert isinstance(rnd, TableRound)
    with pytest.raises(RuntimeError, match="from phase 'betting' to 'dealer'"):
        rnd.st.enter("dealer")  # the round's state keeps the phase and its machine
    assert rnd.phase == "betting"
    assert "betting" not in TABLE_MOVES["void"] and not ELECTRONIC_MOVES["void"]
    for moves in (TABLE_MOVES, ELECTRONIC_MOVES):
        for to in moves.values():
            assert to <= set(moves)  # every phase moved to has its own moves
