"""Undo (issue 24 item 4), for all five games: the dealer takes back a stray decision before
the next card and the same hand is asked again; once the next card is recorded the dealer's
undo is refused with the reason and the clause (cards dealt on it are reconstructed, rules
5.6.1, Electronic 5.2); a supervisor takes back further, one step at a time, and a shoe
card taken back is a card in hand again (in flight), never lost."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from dealer_assist.base.cards import parse_card
from dealer_assist.base.errors import RuleRefusal
from dealer_assist.engine.events import CardDrawn, Decision, Wager
from dealer_assist.engine.session import TableSession

GAMES = ["ace_race", "electronic", "star_elements", "lucky8", "dueling8s"]
SUIT = {"star_elements": "Fi"}
# the clause under which cards dealt on a wrong decision are reconstructed
RECONSTRUCT = {"electronic": "5.2"}


def _table(game: str) -> TableSession:
    header: dict[str, Any] = {"game": game, "decks": 6}
    if game != "electronic":
        header["areas"] = 5
    session = TableSession(header)
    for area, player in ((1, "p1"), (2, "p2")):
        session.apply(Wager(player, "main", Decimal(20), None if game == "electronic" else area))
    session.close_bets()
    # 7, 9, 7, 9 ... until the first decision: nobody holds a blackjack or a pair
    n = 0
    while session.round.expectation().kind == "card":
        session.card(CardDrawn(parse_card(("9" if n % 2 else "7") + SUIT.get(game, "C")), shoe_seq=n))
        n += 1
    return session


def _stand(session: TableSession, player: str, area: int) -> None:
    shared = session.round.rules.shared_hand
    session.apply(Decision("stand", None if shared else area, 1, player))


def _asked(session: TableSession) -> list[tuple[Any, ...]]:
    """Who is asked for a decision now: (area, hand, player, options) each."""
    exp = session.round.expectation()
    if exp.kind == "decisions":  # Electronic: every terminal at once
        return [(None, p["hand"], p["player"], tuple(p["options"])) for p in exp.pending]
    assert exp.kind == "decision"
    return [(exp.area, exp.hand, exp.player, exp.options)]


@pytest.mark.parametrize("game", GAMES)
def test_a_stray_stand_undone_asks_the_same_hand_again(game: str) -> None:
    session = _table(game)
    before_events = list(session.round.events)
    asked = _asked(session)
    assert ("p1" in [a[2] for a in asked]) and "stand" in asked[0][3]
    _stand(session, "p1", 1)
    # p1 has stood: p1 is no longer asked (the next hand, or the other terminal, is)
    assert "p1" not in [a[2] for a in _asked(session)]
    assert session.take_back_refusal() == ""
    taken = session.take_back()
    assert [e.type for e in taken.events] == ["decision"] and taken.cards == ()
    assert "stand" in taken.describe
    assert list(session.round.events) == before_events
    assert _asked(session) == asked  # the same hand's decision, the same options


@pytest.mark.parametrize("game", GAMES)
def test_undo_is_refused_once_the_next_card_is_recorded(game: str) -> None:
    session = _table(game)
    _stand(session, "p1", 1)
    if game == "electronic":  # the shared hand takes a card once every terminal has decided
        session.apply(Decision("hit", None, 1, "p2"))
    step = session.card(CardDrawn(parse_card("2" + SUIT.get(game, "C")), shoe_seq=99))
    assert not step.held
    events = list(session.round.events)
    why = session.take_back_refusal()
    clause = RECONSTRUCT.get(game, "5.6.1")
    assert "(2" in why and "before the next card" in why and f"({clause})" in why
    assert "supervisor" in why
    with pytest.raises(RuleRefusal) as refused:
        session.take_back()
    assert str(refused.value) == why
    assert list(session.round.events) == events  # refused: the round exactly as it was
    # a supervisor may: first the hit and its card (the card is in flight again), then the stand
    session.confirm_tentative()
    taken = session.take_back(supervisor=True)
    assert [e.type for e in taken.events] == ["decision", "card"]
    assert taken.events[0].action == "hit"  # type: ignore[union-attr]
    assert (99, "2" + SUIT.get(game, "C")) in session.unrecorded()
    taken = session.take_back(supervisor=True)
    assert taken.events[0].action == "stand"  # type: ignore[union-attr]
    assert "p1" in [a[2] for a in _asked(session)]


@pytest.mark.parametrize("game", GAMES)
def test_nothing_before_the_bets_closed_is_taken_back(game: str) -> None:
    session = _table(game)
    # the last events are the initial deal's cards: the dealer may not take a shoe card back
    assert "before the next card" in session.take_back_refusal()
    # a supervisor takes back cards down to no_more_bets, never the slip or the closing (5.3)
    while session.take_back_refusal(supervisor=True) == "":
        session.take_back(supervisor=True)
    assert [e.type for e in session.round.events] == ["wager", "wager", "no_more_bets"]
    assert "(5.3)" in session.take_back_refusal(supervisor=True)


@pytest.mark.parametrize("game", ["ace_race", "star_elements", "lucky8"])
def test_nothing_an_interim_settlement_was_made_on_is_taken_back(game: str) -> None:
    # p1 stands; the next card, a 10, is p2's implied hit: 9 + 7 = 16, + 10 = 26 exceeds 21 and
    # the wager loses at once (3.32): the money has moved, not even a supervisor takes the card
    # back. (Dueling 8's deals one card before the decisions: p2's 9 + 10 is no bust.)
    session = _table(game)
    _stand(session, "p1", 1)
    session.card(CardDrawn(parse_card("10" + SUIT.get(game, "C")), shoe_seq=99))
    session.confirm_tentative()
    events = list(session.round.events)
    lost = [s for s in session.round.settlements if s.player == "p2" and s.bet == "main"]
    assert [(s.result, s.net) for s in lost] == [("lose", Decimal(-20))]
    why = session.take_back_refusal(supervisor=True)
    assert "interim settlement" in why
    with pytest.raises(RuleRefusal):
        session.take_back(supervisor=True)
    assert list(session.round.events) == events
