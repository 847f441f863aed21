"""Refusals that named no clause now name the game's own (each game numbers its rules
differently), and a refused event still leaves the round exactly as it was.

Each expected clause is read from the game's rule document in /work/shared/rules/ (the line
is named beside it); the round's events and its settle output are compared before and after
the refused event.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.base.errors import EventFormatError, RuleRefusal
from dealer_assist.engine.retraction import retraction
from dealer_assist.engine.transcript import new_round, parse_event, round_output
from tests.engine.helpers import CLOSE, NMB, bet, cards, decide, refusal, table, wager

EXAMPLES = Path("/work/shared/examples")
TABLE_GAMES = ("ace_race", "lucky8", "star_elements", "dueling8s")
ALL_GAMES = (*TABLE_GAMES, "electronic")

# Star Elements' deck has five elements instead of the four suits (2.1).
_SUITS = {"star_elements": {"S": "Fi", "D": "Go", "H": "Wa", "C": "Ea"}}

# "Round of play" (the round concludes when the outcome is announced / established):
ROUND_OF_PLAY = {
    "ace_race": "1.1.12",  # ace-race.txt line 41
    "lucky8": "1.1.12",  # lucky-8.txt line 40
    "star_elements": "1.1.12",  # star-elements.txt line 30
    "dueling8s": "1.1.9",  # dueling-8s.txt line 27
    "electronic": "1.1.12",  # electronic-blackjack.txt line 34 ("when an outcome is established")
}
# "2.2 The layout for this game is as shown in Appendix ... with: Playing areas for the
# placement of wagers" (ace-race.txt 52, lucky-8.txt 54, star-elements.txt 43, dueling-8s.txt
# 44); Electronic 2.2: "The layouts for this game are as shown in the Player Terminals".
LAYOUT = "2.2"
# The side bets a player "may also place" (ace-race.txt 81, lucky-8.txt 82, star-elements.txt
# 74: 3.15; dueling-8s.txt 3.16, line 73; electronic-blackjack.txt 3.6).
SIDE_BETS = {"ace_race": "3.15", "lucky8": "3.15", "star_elements": "3.15", "dueling8s": "3.16",
             "electronic": "3.6"}
# Closing the offers: the dealer offers insurance and announces it closed (3.27.1, ace-race.txt
# 127, likewise Lucky 8 and Star Elements); Dueling 8's has no insurance, its offer is the
# surrender (3.20.1, dueling-8s.txt 90); Electronic's insurance is 3.11.
OFFERS = {"ace_race": "3.27.1", "lucky8": "3.27.1", "star_elements": "3.27.1", "dueling8s": "3.20.1",
          "electronic": "3.11"}


def _cards(game: str, *names: str) -> list[dict[str, Any]]:
    suits = _SUITS.get(game, {})
    return cards(*(n[:-1] + suits.get(n[-1], n[-1]) for n in names))


def _round(doc: dict[str, Any]) -> Any:
    rnd = new_round({k: v for k, v in doc.items() if k != "events"})
    for e in doc["events"]:
        rnd.apply(parse_event(e))
    return rnd


def _betting(game: str) -> Any:
    """Bets open: one main wager (a terminal's at Electronic, area 1 at a table)."""
    return _round(table(game, bet("t1", 10) if game == "electronic" else wager("a", 1, 10)))


def _settled(game: str) -> Any:
    """A settled round of ``game``: the shared example where there is one, else area 1 10♥ 9♣
    = 19 stands against the dealer's 10♦ 7♠ = 17 (Ace Race's dealer stands on hard 17)."""
    example = {"lucky8": "lucky8-pair-and-double.json", "dueling8s": "dueling8s-split-and-superb8.json",
               "electronic": "electronic-shared-hand.json"}.get(game)
    if example is not None:
        doc = json.loads((EXAMPLES / example).read_text(encoding="utf-8"))
    else:
        doc = table(game, wager("a", 1, 10), NMB, *_cards(game, "10H", "10D", "9C"), decide("stand", 1),
                    *_cards(game, "7S"))
    rnd = _round(doc)
    assert round_output(rnd)["status"] == "settled"
    return rnd


def _refused(rnd: Any, event: dict[str, Any], error: type[Exception] = RuleRefusal) -> Any:
    """Apply ``event``, which must be refused; the round's events and settle output unchanged."""
    events, output = list(rnd.events), json.dumps(round_output(rnd), sort_keys=True)
    with pytest.raises(error) as info:
        rnd.apply(parse_event(event))
    assert list(rnd.events) == events
    assert json.dumps(round_output(rnd), sort_keys=True) == output
    return info.value


@pytest.mark.parametrize("game", ALL_GAMES)
def test_an_event_after_the_settlement_cites_the_round_of_play(game: str) -> None:
    rnd = _settled(game)
    event = decide("stand", player="t1") if game == "electronic" else decide("stand", 1)
    refused = _refused(rnd, event)
    assert refused.message == "the round is settled; no further events"
    assert refused.clause == ROUND_OF_PLAY[game]


@pytest.mark.parametrize("game", ALL_GAMES)
def test_undo_after_the_settlement_cites_the_round_of_play(game: str) -> None:
    rnd = _settled(game)
    events = list(rnd.events)
    with pytest.raises(RuleRefusal) as info:
        retraction(rnd, events, supervisor=True)
    assert info.value.clause == ROUND_OF_PLAY[game] and "concluded" in info.value.message
    assert list(rnd.events) == events


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_an_area_not_on_the_layout_cites_the_layout(game: str) -> None:
    refused = _refused(_betting(game), wager("b", 9, 10))
    assert refused.clause == LAYOUT and "area 9 is not on this layout of 7 areas" in refused.message
    # settle's one line says it the same way, the clause last
    line = refusal(table(game, wager("b", 9, 10)))
    assert line == "event 0 (wager main, area 9, player b): area 9 is not on this layout of 7 areas (2.2)"


def test_an_electronic_wager_on_an_area_cites_the_terminal_layout() -> None:
    refused = _refused(_betting("electronic"), wager("t2", 3, 10))
    assert refused.clause == LAYOUT  # electronic-blackjack.txt 2.2: the layouts are on the Player Terminals


@pytest.mark.parametrize("game", ALL_GAMES)
def test_a_wager_the_game_has_not_cites_its_side_bets(game: str) -> None:
    event = bet("t2", 5, "lucky9") if game == "electronic" else wager("b", 2, 5, "lucky9")
    refused = _refused(_betting(game), event)
    assert refused.clause == SIDE_BETS[game] and "has no 'lucky9' wager" in refused.message


@pytest.mark.parametrize("game", ALL_GAMES)
def test_closing_offers_while_none_are_open_cites_the_offer(game: str) -> None:
    refused = _refused(_betting(game), CLOSE)
    assert refused.message == "no offers are open" and refused.clause == OFFERS[game]


@pytest.mark.parametrize("game", ALL_GAMES)
def test_a_resolve_with_nothing_referred_cites_the_referral(game: str) -> None:
    # 6.1 in every game: an irregularity not covered is referred to the Gaming Shift Manager
    # (ace-race.txt 248, lucky-8.txt 250, star-elements.txt 240, dueling-8s.txt 223,
    # electronic-blackjack.txt 194); nothing referred: nothing to resolve
    refused = _refused(_betting(game), {"type": "resolve", "ruling": "continue"})
    assert refused.clause == "6.1"


def test_electronic_claim_withdraw_pick_and_decisions_cite_their_clauses() -> None:
    rnd = _round(table("electronic", bet("t1", 10), bet("t2", 10), NMB, *cards("9S", "10H", "7C")))
    # 3.8 (electronic-blackjack.txt 60): all players share the Player hand: no side-bet slot
    # to claim on an area, and a decision names no area
    claim = {"type": "claim", "bet": "bet_the_set", "area": 1, "claimants": [{"player": "t2", "amount": 5}]}
    assert _refused(rnd, claim).clause == "3.8"
    assert _refused(rnd, decide("stand", 1, player="t1")).clause == "3.8"
    # 3.9 (line 61): each player's options are given on the Player Terminal: a decision names it
    assert _refused(rnd, decide("stand")).clause == "3.9"
    # 5.4 (line 170): after "No more bets" no wager may be withdrawn
    assert _refused(rnd, {"type": "withdraw", "player": "t1"}).clause == "5.4"
    # 5.8 (line 174): cards drawn together in an unknown order void the round: nobody picks
    assert _refused(rnd, {"type": "pick", "card": "5C", "by": "pit_manager"}).clause == "5.8"
    # the round goes on as if nothing had been refused: t1 stands on 16
    rnd.apply(parse_event(decide("stand", player="t1")))


@pytest.mark.parametrize("game", ALL_GAMES)
def test_a_correction_of_an_event_that_does_not_exist_is_malformed_input(game: str) -> None:
    # no rule decides it: the index names no event, so it is bad input (one line, no clause),
    # and the round is left as it was
    doc = table(game, bet("t1", 10) if game == "electronic" else wager("a", 1, 10), NMB,
                *_cards(game, "9S"))
    to = "player" if game == "electronic" else "area:1/1"
    bad = {"type": "correction", "index": 40, "to": to}
    _refused(_round(doc), bad, EventFormatError)
    doc["events"].append(bad)
    assert refusal(doc) == "event 3 (correction): there is no event 40 yet"


def test_dueling8s_insurance_is_not_among_its_options() -> None:
    # dueling-8s.txt line 72, 3.15: stand, take cards, split, surrender or double: no
    # insurance (its 3.27 is Stand, so no insurance sub-rule may be cited there)
    rnd = _round(table("dueling8s", wager("a", 2, 20), NMB, *cards("8C")))
    refused = _refused(rnd, decide("insurance", 2))
    assert (refused.message, refused.clause) == ("Dueling 8's 21+ has no insurance", "3.15")


# "If more than one Player wishes to take another Player's ... wager, preference shall be given
# to:" -- each claimant has one place in that order: 3.17.2 (ace-race.txt 89, lucky-8.txt 90,
# star-elements.txt 82), 3.18.2 in Dueling 8's (dueling-8s.txt 82)
CLAIM = {"ace_race": "3.17.2", "lucky8": "3.17.2", "star_elements": "3.17.2", "dueling8s": "3.18.2"}


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_a_claim_naming_a_player_twice_cites_the_claims_order(game: str) -> None:
    side = {"dueling8s": "tie18", "lucky8": "lucky8", "ace_race": "ace_race", "star_elements": "pair"}[game]
    claim = {"type": "claim", "bet": side, "area": 1,
             "claimants": [{"player": "b", "amount": 5}, {"player": "b", "amount": 5}]}
    refused = _refused(_betting(game), claim)
    assert (refused.message, refused.clause) == ("a claim lists each claimant once", CLAIM[game])
