"""Issues 26 and 33 (the odds): a sixth game defined only as data ("Seven Up", invented in
tests/engine/sixth_game: 36 cards A-9; "Lucky Sevens" settled at the interim, "Pat Hand" at
the ``final`` stage) reaches the par sheet and theoretical win without a change to any
product file, each bet rated from the stage it settles at; a bet no stage's enumeration
fits raises, naming the bet, instead of a silent 0 %."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from dealer_assist.engine.transcript import settle_document
from dealer_assist.games import GAMES, GameRules
from dealer_assist.odds.rulesets import usual_decks
from dealer_assist.odds.sheet import par_sheet, side_bets_of
from dealer_assist.odds.side_bets import UnrateableBet
from dealer_assist.odds.theo import StoredRound, house_edges, round_theo, stored_rounds
from dealer_assist.store import record_transcript
from tests.engine.sixth_game.side_bets import pat_hand
from tests.engine.test_sixth_game import SEVEN_UP, C, D, W


@pytest.fixture
def seven_up(monkeypatch: pytest.MonkeyPatch) -> GameRules:
    monkeypatch.setitem(GAMES, "seven_up", SEVEN_UP)
    return SEVEN_UP


def test_the_sixth_games_par_sheet_and_edges(seven_up: GameRules) -> None:
    # Its usual deck count is not written anywhere: 6 is outside its 2.1 range (1-4), so 4.
    assert usual_decks("seven_up") == 4
    sheet = par_sheet("seven_up", 2, with_chart=False)
    # Lucky Sevens at 2 decks: 72 cards, 8 sevens. Ordered first two cards: both sevens 8 x 7,
    # exactly one 2 x 8 x 64, of 72 x 71 = 5112. 77 to 1 and 7 to 1 (its 4.7).
    both, one = Fraction(56, 5112), Fraction(1024, 5112)
    ev = 77 * both + 7 * one - (1 - both - one)
    bet = sheet.bets["lucky_sevens"]
    assert [r.probability for r in bet.rows] == [both, one]
    assert bet.expected_value_exact == ev
    # No tens in its deck: the dealer never has a blackjack, insurance always loses.
    assert sheet.bets["insurance"].house_edge == 1.0
    # The main wager: a real analysis of its own deck, consistent with its distribution.
    assert abs(sum(sheet.outcomes.dist.values()) - 1) < 1e-12
    assert abs(sheet.outcomes.mean - sheet.main.expected_return) < 1e-9
    assert 0 < sheet.main.house_edge < 0.05
    edges = house_edges("seven_up", 2)
    assert edges["lucky_sevens"] == Decimal(repr(round(float(-ev), 10)))
    assert edges["main"] == Decimal(repr(round(sheet.main.house_edge, 10)))
    # Pat Hand, settled at the final stage (its 3.15.8, 4.8: 7 to 1): the dealer stands on its
    # first two cards. No tens, and it hits soft 17: it stands on hard 17-18 (8-9, 9-8, 9-9) and
    # soft 18-20 (A-7, A-8, A-9, either order); A-6 is soft 17 and draws. Ordered pairs of the
    # 72 cards (8 of each rank): 8 x 8 x 8 + 8 x 7 = 568 of 5112 = 1/9. EV 7/9 - 8/9 = -1/9.
    pat = sheet.bets["pat_hand"]
    assert [(r.name, r.odds, r.probability) for r in pat.rows] == [("Dealer Pat Hand", 7, Fraction(568, 5112))]
    assert pat.lose == Fraction(8, 9) and pat.expected_value_exact == Fraction(-1, 9)
    assert edges["pat_hand"] == Decimal(repr(round(1 / 9, 10))) == Decimal("0.1111111111")


def test_the_sixth_games_round_has_its_theoretical_win(seven_up: GameRules, tmp_path: Path) -> None:
    # tests/engine/test_sixth_game.py's round: alice 10 + Lucky Sevens 5, bob 10; alice's 7-7
    # wins the side bet (+385), she loses the main, bob ties.
    doc = {"game": "seven_up", "decks": 2, "areas": 3, "seated": {"alice": 1, "bob": 2},
           "events": [W("alice", 1, 10), W("alice", 1, 5, "lucky_sevens"), W("bob", 2, 10),
                      {"type": "no_more_bets"}, C("7S"), C("9H"), C("6D"), C("7H"), C("9C"),
                      D("stand", 1), D("stand", 2), C("9D"), C("3S")]}
    db = tmp_path / "table.sqlite"
    rid = record_transcript(db, doc, settle_document(doc))
    [rnd] = list(stored_rounds(sqlite3.connect(db), round_ids=[rid]))
    got = round_theo(rnd)
    edges = house_edges("seven_up", 2)
    assert got["alice"].theo == 10 * edges["main"] + 5 * edges["lucky_sevens"]
    assert got["alice"].actual == Decimal(-375) and got["alice"].wagered == Decimal(15)
    assert got["bob"].theo == 10 * edges["main"] and got["bob"].actual == 0
    # The side bet's theo is negative: this invented pay table favours the player.
    assert edges["lucky_sevens"] < 0


def test_the_final_stage_bets_round_has_its_theoretical_win(seven_up: GameRules, tmp_path: Path) -> None:
    # alice 10 + Pat Hand 5: alice 5S 4H, the dealer 8D; she hits 3C (12), stands; the dealer
    # 8D 9D = 17 stands on two cards: Pat Hand +35, the main -10 (tests/engine/test_sixth_game.py).
    doc = {"game": "seven_up", "decks": 2, "areas": 3, "seated": {"alice": 1},
           "events": [W("alice", 1, 10), W("alice", 1, 5, "pat_hand"), {"type": "no_more_bets"},
                      C("5S"), C("8D"), C("4H"), D("hit", 1), C("3C"), D("stand", 1), C("9D")]}
    db = tmp_path / "table.sqlite"
    rid = record_transcript(db, doc, settle_document(doc))
    [rnd] = list(stored_rounds(sqlite3.connect(db), round_ids=[rid]))
    got = round_theo(rnd)["alice"]
    edges = house_edges("seven_up", 2)
    # Theo = stake x house edge per bet (docs/odds.md): 10 on the main, 5 x 1/9 on Pat Hand.
    assert got.theo == 10 * edges["main"] + 5 * Decimal("0.1111111111")
    assert got.actual == Decimal(-25) and got.wagered == Decimal(15)


def _hand_decided(game: GameRules) -> GameRules:
    """Seven Up with a final-stage bet decided by the player's finished hand: no enumeration fits it."""
    from dataclasses import replace

    from dealer_assist.games.sidebets import SideBetSpec

    odd = SideBetSpec("twenty_one", "Twenty-One Bonus", "final", pat_hand, game.specs[1].rows)
    return replace(game, key="seven_up_x", specs=(*game.specs, odd),
                   clauses={**game.clauses, "side.twenty_one": "3.15.9"})


def test_a_bet_the_odds_cannot_rate_raises_naming_it(seven_up: GameRules, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(GAMES, "seven_up_x", _hand_decided(seven_up))
    with pytest.raises(UnrateableBet, match=r"'Twenty-One Bonus' \(twenty_one\) of seven_up_x: no enumeration "
                                            r"for the 'final' stage"):
        side_bets_of("seven_up_x", 2)
    # Theoretical win never counts a bet without a house edge as 0 %: it raises, naming it.
    rnd = StoredRound(1, None, "seven_up", 2, "settled", "2026-01-01T00:00:00Z", None, [],
                      [{"player": "alice", "area": 1, "hand": None, "bet": "twenty_one", "stake": 5,
                        "result": "lose", "net": -5}])
    with pytest.raises(ValueError, match="no house edge for the 'twenty_one' wager of seven_up"):
        round_theo(rnd, lambda game, decks: {"main": Decimal("0.01")})
