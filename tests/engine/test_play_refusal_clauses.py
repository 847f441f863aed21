"""Every refused play decision names the clause of the game's own rules document that
forbids it (issue 26, the bar: "every refusal names the clause"), and leaves the round as it
was. The clause numbers below are read from ../shared/rules/ by hand, per document:

                                     Ace Race  Lucky 8  Star Elements  Dueling 8's
  deciding before the hand's two cards 3.14     3.14       3.14          3.15
  a hand not in turn (dealing order),
    or before the initial deal is done 3.18     3.18       3.18          3.19
  a player who does not control it:
    the seated player controls         3.11     3.11       3.11          3.11
    the wager nearest the dealer       3.12     3.12       3.12          3.12
  a hit on a hand of 21                3.30     3.30       3.30          3.29
  a hit on a split Ace                 3.23.1   3.23.1     3.23.1        (8's only)
  a hit on a doubled hand              3.26.4   3.26.4     3.26.4        3.26.3
  a decision while the hit's card
    is still to come                   3.29     3.29       3.29          3.28
  a decision in the dealer's turn      3.34     3.34       3.34          3.33
  surrender without a wager there      3.25     3.25       3.25          3.20
  an absent player with no wager       5.22     5.22       5.22          5.19
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from dealer_assist.base.cards import parse_card
from dealer_assist.base.errors import RuleRefusal
from dealer_assist.engine.electronic import ElectronicConfig, ElectronicRound
from dealer_assist.engine.events import CardDrawn, Decision, Event, NoMoreBets, Wager
from dealer_assist.engine.table import TableRound
from dealer_assist.engine.transcript import new_round, parse_event
from dealer_assist.games import ELECTRONIC
from tests.engine.helpers import NMB, decide, table, wager

GAMES = ("ace_race", "lucky8", "star_elements", "dueling8s")
D8 = "dueling8s"

CLAUSES: dict[str, dict[str, str]] = {
    "before_cards": {"ace_race": "3.14", "lucky8": "3.14", "star_elements": "3.14", D8: "3.15"},
    "not_in_turn": {"ace_race": "3.18", "lucky8": "3.18", "star_elements": "3.18", D8: "3.19"},
    "seated_controls": {"ace_race": "3.11", "lucky8": "3.11", "star_elements": "3.11", D8: "3.11"},
    "front_controls": {"ace_race": "3.12", "lucky8": "3.12", "star_elements": "3.12", D8: "3.12"},
    "hit_on_21": {"ace_race": "3.30", "lucky8": "3.30", "star_elements": "3.30", D8: "3.29"},
    "hit_split_ace": {"ace_race": "3.23.1", "lucky8": "3.23.1", "star_elements": "3.23.1"},
    "hit_doubled": {"ace_race": "3.26.4", "lucky8": "3.26.4", "star_elements": "3.26.4", D8: "3.26.3"},
    "card_to_come": {"ace_race": "3.29", "lucky8": "3.29", "star_elements": "3.29", D8: "3.28"},
    "dealer_turn": {"ace_race": "3.34", "lucky8": "3.34", "star_elements": "3.34", D8: "3.33"},
    "surrender": {"ace_race": "3.25", "lucky8": "3.25", "star_elements": "3.25", D8: "3.20"},
    "absent": {"ace_race": "5.22", "lucky8": "5.22", "star_elements": "5.22", D8: "5.19"},
}


def _cards(game: str, *ranks: str) -> list[dict[str, Any]]:
    suit = "Fi" if game == "star_elements" else "C"  # Star Elements: elements for suits (2.1)
    return [{"type": "card", "card": r + suit} for r in ranks]


def _deal(game: str, a: tuple[str, ...], b: tuple[str, ...], dealer: str = "5") -> list[dict[str, Any]]:
    """The initial deal to area 1 (a) and area 2 (b) in dealing order (3.18; Dueling 8's 3.19:
    one card each on the permanent 8, none to the dealer)."""
    if game == D8:
        return _cards(game, a[-1], b[-1])
    return _cards(game, a[0], b[0], dealer, a[1], b[1])


def _round(game: str, *events: dict[str, Any], seated: dict[str, int] | None = None,
           extra: tuple[dict[str, Any], ...] = ()) -> TableRound:
    doc = table(game, wager("a", 1, 10), *extra, wager("b", 2, 10), NMB, *events,
                seated=seated if seated is not None else {"a": 1, "b": 2})
    rnd = new_round({k: v for k, v in doc.items() if k != "events"})
    assert isinstance(rnd, TableRound)
    for e in doc["events"]:
        rnd.apply(parse_event(e))
    return rnd


def _snapshot(rnd: TableRound) -> tuple[Any, ...]:
    return (rnd.report(), rnd.view(), rnd.expectation(), list(rnd.events), list(rnd.settlements),
            list(rnd.rulings), list(rnd.control_changes), rnd.status())


def _refused(rnd: TableRound, event: dict[str, Any]) -> RuleRefusal:
    before = _snapshot(rnd)
    with pytest.raises(RuleRefusal) as refused:
        rnd.apply(parse_event(event))
    assert _snapshot(rnd) == before  # a refused event leaves the round exactly as it was
    return refused.value


@pytest.mark.parametrize("game", GAMES)
def test_a_decision_during_the_initial_deal(game: str) -> None:
    # The initial deal but its last card: area 1 has its two cards (Dueling 8's: the permanent
    # 8 and one), area 2 only one (Dueling 8's: the permanent 8).
    rnd = _round(game, *_deal(game, ("9", "7"), ("8", "9"))[:-1])
    assert rnd.phase == "initial"
    err = _refused(rnd, decide("hit", 2, player="b"))  # before b's hand has its two cards
    assert err.clause == CLAUSES["before_cards"][game]
    assert err.message.startswith("no hit decision is possible now")
    err = _refused(rnd, decide("hit", 1, player="a"))  # before the deal has gone round (3.18)
    assert err.clause == CLAUSES["not_in_turn"][game]


@pytest.mark.parametrize("game", GAMES)
def test_a_decision_on_a_hand_not_in_turn(game: str) -> None:
    rnd = _round(game, *_deal(game, ("9", "7"), ("8", "9")))  # a (16) decides first, then b (17)
    err = _refused(rnd, decide("stand", 2, player="b"))
    assert err.clause == CLAUSES["not_in_turn"][game]
    assert "area 1 hand 1 is in play" in err.message


@pytest.mark.parametrize("game", GAMES)
def test_a_decision_by_a_player_who_does_not_control_the_area(game: str) -> None:
    deal = _deal(game, ("9", "7"), ("8", "9"))
    # c wagers behind a on area 1 and a is seated there: a calls its decisions (3.11).
    rnd = _round(game, *deal, extra=(wager("c", 1, 10),))
    err = _refused(rnd, decide("hit", 1, player="c"))
    assert err.clause == CLAUSES["seated_controls"][game]
    # Nobody seated: the wager nearest the dealer (a's, placed first) controls the area (3.12).
    rnd = _round(game, *deal, seated={}, extra=(wager("c", 1, 10),))
    err = _refused(rnd, decide("hit", 1, player="c"))
    assert err.clause == CLAUSES["front_controls"][game]
    assert err.message == "c does not control area 1; a calls its decisions"


@pytest.mark.parametrize("game", GAMES)
def test_a_hit_on_a_hand_of_21(game: str) -> None:
    # a: 9+7 (Dueling 8's: the permanent 8 and a 5) = 16... hits a 5 (an 8) = 21 and is done.
    a, hit = (("8", "5"), "8") if game == D8 else (("9", "7"), "5")
    rnd = _round(game, *_deal(game, a, ("8", "9")), decide("hit", 1, player="a"), *_cards(game, hit))
    assert rnd.report()["areas"][0]["hands"][0]["total"] == 21
    err = _refused(rnd, decide("hit", 1, player="a"))
    assert err.clause == CLAUSES["hit_on_21"][game]


@pytest.mark.parametrize("game", [g for g in GAMES if g != D8])
def test_a_hit_on_a_split_ace(game: str) -> None:
    # a splits A A: each Ace takes one card (7, then 6) and no decision; b (17) is in turn.
    rnd = _round(game, *_deal(game, ("A", "A"), ("8", "9")), decide("split", 1, player="a"),
                 *_cards(game, "7", "6"))
    s = "Fi" if game == "star_elements" else "C"
    assert [h["cards"] for h in rnd.report()["areas"][0]["hands"]] == [[f"A{s}", f"7{s}"], [f"A{s}", f"6{s}"]]
    for hand in (1, 2):
        err = _refused(rnd, decide("hit", 1, hand, player="a"))
        assert err.clause == CLAUSES["hit_split_ace"][game]


@pytest.mark.parametrize("game", GAMES)
def test_a_hit_on_a_doubled_hand(game: str) -> None:
    # a: 6+5 (Dueling 8's: 8+3) = hard 11 doubles and takes one card (a 2): 13, done.
    a = ("8", "3") if game == D8 else ("6", "5")
    rnd = _round(game, *_deal(game, a, ("8", "9")), decide("double", 1, player="a"), *_cards(game, "2"))
    err = _refused(rnd, decide("hit", 1, player="a"))
    assert err.clause == CLAUSES["hit_doubled"][game]


@pytest.mark.parametrize("game", GAMES)
def test_a_decision_while_the_hits_card_is_to_come(game: str) -> None:
    rnd = _round(game, *_deal(game, ("9", "3"), ("8", "9")), decide("hit", 1, player="a"))
    err = _refused(rnd, decide("stand", 1, player="a"))
    assert err.clause == CLAUSES["card_to_come"][game]
    assert err.message == "area 1 hand 1 is waiting for a card, not a decision"


@pytest.mark.parametrize("game", GAMES)
def test_a_decision_in_the_dealers_turn(game: str) -> None:
    rnd = _round(game, *_deal(game, ("9", "7"), ("8", "9")), decide("stand", 1, player="a"),
                 decide("stand", 2, player="b"))
    assert rnd.phase == "dealer"
    err = _refused(rnd, decide("hit", 1, player="a"))
    assert err.clause == CLAUSES["dealer_turn"][game]


@pytest.mark.parametrize("game", GAMES)
def test_a_surrender_by_a_player_without_a_wager_on_the_area(game: str) -> None:
    # The dealer's 5 (Dueling 8's: the permanent 8): surrender is offered (3.25; 3.20) on each
    # player's own original wager; c has one on area 2 only.
    rnd = _round(game, *_deal(game, ("9", "7"), ("8", "9")), extra=(wager("c", 2, 10),))
    assert rnd.phase == "offers"
    err = _refused(rnd, decide("surrender", 1, player="c"))
    assert err.clause == CLAUSES["surrender"][game]
    assert err.message == "c has no main wager on area 1"


@pytest.mark.parametrize("game", GAMES)
def test_an_absent_player_who_has_no_wager(game: str) -> None:
    # 5.22 (Dueling 8's 5.19): a player who placed a wager and is not present to decide.
    rnd = _round(game, *_deal(game, ("9", "7"), ("8", "9")))
    err = _refused(rnd, {"type": "absent", "player": "zoe"})
    assert err.clause == CLAUSES["absent"][game]
    assert err.message == "zoe has no main wager in this round"
    doc = table(game, wager("a", 1, 10))
    betting = new_round({k: v for k, v in doc.items() if k != "events"})
    assert isinstance(betting, TableRound)
    betting.apply(parse_event(doc["events"][0]))
    err = _refused(betting, {"type": "absent", "player": "a"})
    assert err.clause == CLAUSES["absent"][game]


# Electronic Blackjack numbers its own way (../shared/rules/electronic-blackjack.txt): the
# options come after the initial deal (3.9), subsequent cards complete a hand (3.18.2), 21
# draws no more (3.16), the dealer draws once every player's hand is complete (3.19).

def _electronic(*events: Event, players: tuple[str, ...] = ("ann",)) -> ElectronicRound:
    rnd = ElectronicRound(ElectronicConfig(ELECTRONIC, 6, {}))
    for p in players:
        rnd.apply(Wager(p, "main", Decimal(10)))
    rnd.apply(NoMoreBets())
    for e in events:
        rnd.apply(e)
    return rnd


def _card(text: str) -> CardDrawn:
    return CardDrawn(parse_card(text))


def _electronic_refused(rnd: ElectronicRound, event: Event) -> RuleRefusal:
    before = (rnd.report(), rnd.view(), rnd.expectation(), list(rnd.events), list(rnd.settlements))
    with pytest.raises(RuleRefusal) as refused:
        rnd.apply(event)
    assert (rnd.report(), rnd.view(), rnd.expectation(), list(rnd.events), list(rnd.settlements)) == before
    return refused.value


def test_electronic_refusals_name_their_clause() -> None:
    # Player 10H, then the dealer's 5S: the Player's second card is still to come (3.7).
    rnd = _electronic(_card("10H"), _card("5S"))
    assert _electronic_refused(rnd, Decision("hit", None, 1, "ann")).clause == "3.9"
    # Player 10H 3C = 13: ann hits; the subsequent card is due before any decision (3.18.2).
    rnd = _electronic(_card("10H"), _card("5S"), _card("3C"), Decision("hit", None, 1, "ann"))
    err = _electronic_refused(rnd, Decision("stand", None, 1, "ann"))
    assert err.clause == "3.18.2" and err.message == "ann's hand 1 is waiting for a card, not a decision"
    # ann stands on 18: the dealer's turn (3.19).
    rnd = _electronic(_card("10H"), _card("5S"), _card("8C"), Decision("stand", None, 1, "ann"))
    assert rnd.phase == "dealer"
    assert _electronic_refused(rnd, Decision("hit", None, 1, "ann")).clause == "3.19"
    # ann hits 10H 6C = 16 to 21 with 5D and is done while bob still decides: 21 draws no more (3.16).
    rnd = _electronic(_card("10H"), _card("5S"), _card("6C"), Decision("hit", None, 1, "ann"), _card("5D"),
                      players=("ann", "bob"))
    assert rnd.phase == "decisions"
    err = _electronic_refused(rnd, Decision("hit", None, 1, "ann"))
    assert err.clause == "3.16" and err.message == "ann's hand 1 has 21 and takes no more cards"
