"""Games are data (issues 14, 33): a sixth game, defined entirely in two files of its own
(tests/engine/sixth_game: the game module and its side bets) — its own deck, its own clause
numbers and two side bets with their own pay tables — plays and settles a full round
through ``settle``'s code path (the transcript text in, the settle output out) without a
change to any product file. The game is registered only for the test (monkeypatch).

"Seven Up" (invented for this test): a 36-card deck (A-9 of four suits, no tens or
faces), the dealer hits soft 17; a "Lucky Sevens" side bet on the player's first two
cards, settled at the interim: both 7s pays 77 to 1, one 7 pays 7 to 1 (its 4.7), lost
otherwise (its 3.15.7); and a "Pat Hand" side bet settled at the ``final`` stage: the dealer
stands on its first two cards, 7 to 1 (its 4.8), lost otherwise (its 3.15.8).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from dealer_assist.base.errors import TranscriptError
from dealer_assist.engine.transcript import settle_text
from dealer_assist.games import GAMES, GameRules
from tests.engine.sixth_game.seven_up import SEVEN_UP

__all__ = ["SEVEN_UP", "C", "D", "W"]


@pytest.fixture
def seven_up(monkeypatch: pytest.MonkeyPatch) -> GameRules:
    monkeypatch.setitem(GAMES, "seven_up", SEVEN_UP)
    return SEVEN_UP


def transcript(*events: dict[str, Any]) -> str:
    return json.dumps({"game": "seven_up", "decks": 2, "areas": 3, "seated": {"alice": 1, "bob": 2},
                       "events": list(events)})


def W(player: str, area: int, amount: int, bet: str = "main") -> dict[str, Any]:
    return {"type": "wager", "player": player, "area": area, "bet": bet, "amount": amount}


def C(card: str) -> dict[str, Any]:
    return {"type": "card", "card": card}


def D(action: str, area: int) -> dict[str, Any]:
    return {"type": "decision", "action": action, "area": area}


def test_a_sixth_game_plays_and_settles_a_full_round(seven_up: GameRules) -> None:
    # alice 10 + Lucky Sevens 5 on area 1, bob 10 on area 2. Deal: alice 7S, bob 9H, dealer 6D,
    # alice 7H (14, two sevens: 77 to 1 = +385 at the interim), bob 9C (18). Both stand.
    # The dealer 6D 9D = 15 draws 3S: 18, stands. alice 14 loses 10 (its 4.4.9); bob 18 ties (4.6.9).
    out = settle_text(transcript(W("alice", 1, 10), W("alice", 1, 5, "lucky_sevens"), W("bob", 2, 10),
                                 {"type": "no_more_bets"}, C("7S"), C("9H"), C("6D"), C("7H"), C("9C"),
                                 D("stand", 1), D("stand", 2), C("9D"), C("3S")))
    assert out["game"] == "seven_up" and out["status"] == "settled"
    got = [(s["player"], s["bet"], s["result"], s["net"], s["rule"], s["stage"], s.get("row"))
           for s in out["settlements"]]
    assert got == [
        ("alice", "lucky_sevens", "win", 385, "4.7", "interim", "Two Sevens"),
        ("alice", "main", "lose", -10, "4.4.9", "final", None),
        ("bob", "main", "push", 0, "4.6.9", "final", None),
    ]
    assert out["net"] == {"alice": 375, "bob": 0}
    assert out["dealer"] == {"cards": ["6D", "9D", "3S"], "total": 18}


def test_a_sixth_games_side_bet_loses_with_its_own_clause_and_shows_its_name(seven_up: GameRules) -> None:
    # alice 5S 9H, dealer 6D: no seven: the Lucky Sevens wager loses at the interim (its 3.15.7).
    out = settle_text(transcript(W("alice", 1, 10), W("alice", 1, 5, "lucky_sevens"), {"type": "no_more_bets"},
                                 C("5S"), C("6D"), C("9H"), D("stand", 1)))
    side = [s for s in out["settlements"] if s["bet"] == "lucky_sevens"]
    assert [(s["result"], s["net"], s["rule"]) for s in side] == [("lose", -5, "3.15.7")]
    assert seven_up.bet_name("lucky_sevens") == "Lucky Sevens" and seven_up.top_odds == 77


def test_a_card_outside_the_sixth_games_deck_voids_the_round(seven_up: GameRules) -> None:
    # Its deck has no tens: a 10H cannot come from its shoe (5.1, its own 5.1.7): void, stakes returned.
    out = settle_text(transcript(W("alice", 1, 10), {"type": "no_more_bets"}, C("10H")))
    assert out["status"] == "void" and out["rulings"][0]["rule"] == "5.1.7"


def test_without_registration_the_sixth_game_is_unknown() -> None:
    with pytest.raises(TranscriptError, match="unknown game 'seven_up'"):
        settle_text(transcript())


def test_the_bench_plays_the_sixth_game_at_its_usual_deck_count(seven_up: GameRules) -> None:
    # No deck count is written anywhere for it: 6 is outside its 2.1 range (1-4), so 4.
    from dealer_assist.bench.engine import run_setup

    assert seven_up.decks_usual == 4 and GAMES["lucky8"].decks_usual == 6
    out = run_setup("seven_up", True, 30, 1, timed=False)  # 7 areas, 3 players, its side bet too
    assert out["events_per_round"] > 20


def test_the_sixth_game_and_its_side_bet_are_named_from_the_game(seven_up: GameRules) -> None:
    # The mappings the screen, the review and the bench read: the game's list name (its short
    # name here) and its side bet's spec name; the five games keep their wording.
    from dealer_assist.games.names import GAME_NAMES, BetNames

    assert GAME_NAMES["seven_up"] == "Seven Up" and "seven_up" in list(GAME_NAMES)
    assert GAME_NAMES["dueling8s"] == "Dueling 8's 21+" and GAME_NAMES["electronic"] == "Electronic"
    names = BetNames({"main": "Main"})
    assert names["lucky_sevens"] == "Lucky Sevens" and "lucky_sevens" in list(names)
    assert names.get("no_such_bet", "raw") == "raw"


def test_a_side_bet_settled_at_the_final_stage_pays_on_the_dealers_finished_hand(seven_up: GameRules) -> None:
    # alice 10 + Pat Hand 5 on area 1, bob 10 + Pat Hand 5 on area 2 (rounds 1 and 2 below).
    # Round 1: alice 5S, bob 9H, dealer 8D, alice 4H (9), bob 8C (17). alice hits 3C (12) and
    # stands; bob stands. The dealer 8D 9D = 17 stands (H17 hits only a soft 17): the dealer drew
    # no card: Pat Hand wins 7 to 1 at the final stage (its 4.8): +35 each. alice 12 loses 10
    # (its 4.4.9); bob 17 ties (its 4.6.9).
    deal = (C("5S"), C("9H"), C("8D"), C("4H"), C("8C"), D("hit", 1), C("3C"), D("stand", 1), D("stand", 2))
    bets = (W("alice", 1, 10), W("alice", 1, 5, "pat_hand"), W("bob", 2, 10), W("bob", 2, 5, "pat_hand"),
            {"type": "no_more_bets"})
    out = settle_text(transcript(*bets, *deal, C("9D")))
    got = [(s["player"], s["bet"], s["result"], s["net"], s["rule"], s["stage"], s.get("row"))
           for s in out["settlements"]]
    assert sorted(got) == [
        ("alice", "main", "lose", -10, "4.4.9", "final", None),
        ("alice", "pat_hand", "win", 35, "4.8", "final", "Dealer Pat Hand"),
        ("bob", "main", "push", 0, "4.6.9", "final", None),
        ("bob", "pat_hand", "win", 35, "4.8", "final", "Dealer Pat Hand"),
    ]
    # Round 2: the dealer's 8D 6D = 14 draws 3S: 17 in three cards: Pat Hand loses (its 3.15.8);
    # alice 12 loses, bob 17 ties.
    out = settle_text(transcript(*bets, *deal, C("6D"), C("3S")))
    side = sorted((s["player"], s["result"], s["net"], s["rule"], s["stage"]) for s in out["settlements"]
                  if s["bet"] == "pat_hand")
    assert side == [("alice", "lose", -5, "3.15.8", "final"), ("bob", "lose", -5, "3.15.8", "final")]
    assert out["net"] == {"alice": -15, "bob": -5}
