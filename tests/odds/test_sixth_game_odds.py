"""Issue 26 (item 5, the odds): a sixth game defined only as data ("Seven Up", invented in
tests/engine/test_sixth_game.py: 36 cards A-9, one side bet "Lucky Sevens") reaches the par
sheet and theoretical win without a change to any product file."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from dealer_assist.engine.transcript import settle_document
from dealer_assist.games import GAMES, GameRules
from dealer_assist.odds.rulesets import usual_decks
from dealer_assist.odds.sheet import par_sheet
from dealer_assist.odds.theo import house_edges, round_theo, stored_rounds
from dealer_assist.store import record_transcript
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
