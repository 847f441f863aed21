"""Issue 33 finding (a): an area that received no cards has ALL its wagers returned (5.14),
side bets settled at the interim settlement included — worked by hand from the rules text.

Star Elements, Lucky 8 and Ace Race word it alike:
- 5.14: "If a playing area with a valid wager has not received cards and the interim
  settlement has taken place or the subsequent deal has commenced, that wager shall be
  returned to the Player."
- 5.15: cards dealt to a playing area with no wager after the interim settlement "shall be
  removed and placed in the discard holder".
- The side bets are decided on "the first two cards dealt to the Player" (3.15.1 Pair;
  Ace Race 3.15.2; with the Dealer's first card: Lucky 8 3.15.2 / 1.1.8, Star Elements
  3.15.2, 3.15.3 / 1.1.17, 1.1.19). An area that received no cards was dealt no cards: the
  interim settlement paid or took its side bets on cards that lay on another area (and are
  now discarded, 5.15), so it had nothing to decide them on. 5.14 returns "that wager" of the
  area — each wager placed there — and 5.25's "wagers ... previously lost shall not be
  returned" is about a withdrawal after 5.12/5.15/5.16/5.23, not about 5.14. So the side
  bets are returned with the main wager: a paid one is taken back, a lost one given back;
  the player nets 0 on the area.

The round (events numbered from 0): bob 10 main + 5 Pair + 5 on the game's other side bet
on area 2, carol 10 on area 3; no more bets (4); cards X (5, area 2), 9H (6, area 3),
KD (7, dealer), Y (8, area 2), 8D (9, area 3); the offers close (10: surrender was offered
against the K; the interim settlement takes place). Then both of bob's cards are found on
area 5, which has no wager: Y (11), then X (12). After the first: 5.15 discards Y and area 2
has one card (5.16); after the second area 2 has received no cards: 5.14.
"""

from __future__ import annotations

from typing import Any

import pytest

from dealer_assist.engine.transcript import settle_document
from tests.engine.test_irregularities import NMB, W, cs, doc, g

CLOSE = {"type": "close_offers"}

# game -> (its other side bet, X, Y, what the interim settlement did with bob's two side bets)
CASES: dict[str, tuple[str, str, str, dict[str, float]]] = {
    # 7-7: a Pair (4.1, 11 to 1: +55); Super Star Sevens: two 7s among 7, 7 and the dealer's K
    # (4.2 "Two Sevens", 40 to 1: +200).
    "star_elements": ("super_sevens", "7C", "7S", {"pair": 55, "super_sevens": 200}),
    # 8-8: a Pair (+55); Lucky 8: 8C 8S with the dealer's K: two unsuited 8s (4.2, 5 to 1: +25).
    "lucky8": ("lucky8", "8C", "8S", {"pair": 55, "lucky8": 25}),
    # 5C 5S: a Pair (+55); Ace Race: two black fives of different suits, a coloured pair
    # (1.1.1.3, 4.2: 8 to 1, +40).
    "ace_race": ("ace_race", "5C", "5S", {"pair": 55, "ace_race": 40}),
}


def _round(game: str, side: str, x: str, y: str, *, found: bool) -> dict[str, Any]:
    events: list[Any] = [W("bob", 2, 10), W("bob", 2, 5, "pair"), W("bob", 2, 5, side), W("carol", 3, 10), NMB,
                         cs(game, f"{x} 9H KD {y} 8D"), CLOSE]
    if found:
        events += [{"type": "correction", "index": 8, "to": "area:5"},
                   {"type": "correction", "index": 5, "to": "area:5"}]
    return doc(game, *events)


def _bob(out: dict[str, Any]) -> dict[str, tuple[str, float, str]]:
    got: dict[str, tuple[str, float, str]] = {}
    for s in out["settlements"]:
        if s["player"] == "bob":
            assert s["bet"] not in got, out["settlements"]  # one settlement per wager
            got[s["bet"]] = (s["result"], s["net"], s["rule"])
    return got


@pytest.mark.parametrize("game", list(CASES))
def test_side_bets_won_at_the_interim_are_returned_with_the_area_5_14(game: str) -> None:
    side, x, y, paid = CASES[game]
    # Without the finding the interim settlement pays both side bets (the hand-worked amounts).
    before = _bob(settle_document(_round(game, side, x, y, found=False)))
    assert {bet: before[bet][:2] for bet in ("pair", side)} == {bet: ("win", amount) for bet, amount in paid.items()}
    out = settle_document(_round(game, side, x, y, found=True))
    assert [(r["index"], r["rule"], r["ruling"]) for r in out["rulings"]][-2:] == [
        (12, "5.15", "discarded"), (12, "5.14", "returned")]
    assert _bob(out) == {"main": ("returned", 0, "5.14"), "pair": ("returned", 0, "5.14"),
                         side: ("returned", 0, "5.14")}
    assert out["net"]["bob"] == 0
    assert out["next"]["area"] == 3  # play goes on with carol
    # The dealer is told which interim settlements are undone.
    names = {"super_sevens": "Super Star 7s", "lucky8": "Lucky 8", "ace_race": "Ace Race"}
    assert (f"its wagers are returned, bob's Pair and bob's {names[side]} too, though settled at the interim"
            in out["rulings"][-1]["text"])


@pytest.mark.parametrize("game", list(CASES))
def test_side_bets_lost_at_the_interim_are_returned_with_the_area_5_14(game: str) -> None:
    side = CASES[game][0]
    # 5C 6S with the dealer's KD: no pair, no 7s or 8s, not all stars: both side bets lost
    # at the interim (3.15.1, 3.15.2, 3.15.3) — until the area is found to have received no cards.
    before = _bob(settle_document(_round(game, side, "5C", "6S", found=False)))
    assert {bet: before[bet][:2] for bet in ("pair", side)} == {"pair": ("lose", -5), side: ("lose", -5)}
    out = settle_document(_round(game, side, "5C", "6S", found=True))
    assert _bob(out) == {"main": ("returned", 0, "5.14"), "pair": ("returned", 0, "5.14"),
                         side: ("returned", 0, "5.14")}
    assert out["net"]["bob"] == 0
    # carol's hand is untouched: 9H 8D still to play
    assert {a["area"]: [h["cards"] for h in a["hands"]] for a in out["areas"]}[3] == [
        [g(game, "9H"), g(game, "8D")]]
