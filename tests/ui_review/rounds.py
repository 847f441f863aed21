"""Round transcripts of every game for the review tests, with their outcomes worked by hand.

The three examples of ../shared/examples are used as they are (their nets are worked in
their README); the others are written here, each with its arithmetic.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

# ../shared beside the checkout; DEALER_ASSIST_SHARED when the checkout is a worktree elsewhere
EXAMPLES = Path(os.environ.get("DEALER_ASSIST_SHARED", Path(__file__).resolve().parents[3] / "shared")) / "examples"


def example(name: str) -> dict[str, Any]:
    with open(EXAMPLES / name, encoding="utf-8") as handle:
        document: dict[str, Any] = json.load(handle)
    return document


def _w(player: str, area: int, bet: str, amount: Any) -> dict[str, Any]:
    return {"type": "wager", "player": player, "area": area, "bet": bet, "amount": amount}


def _c(card: str, **extra: Any) -> dict[str, Any]:
    return {"type": "card", "card": card, **extra}


# Ace Race, live (session of dealer ann). alice: main 25, pair 5. Deal: AS to area 1, 9D to the
# dealer, KH to area 1: A-K is a Blackjack, paid 6 to 5 (4.1, winning by 4.3.1): 25 * 6/5 = +30.
# A-K is not a pair (3.4.x: same rank): the pair wager loses (3.15.1): -5. alice net +25.
ACE_RACE: dict[str, Any] = {
    "game": "ace_race", "decks": 6, "areas": 5, "seated": {"alice": 1},
    "limits": {"main": [10, 5000], "pair": [5, 500]},
    "events": [_w("alice", 1, "main", 25), _w("alice", 1, "pair", 5), {"type": "no_more_bets"},
               _c("AS"), _c("9D"), _c("KH")],
}

# Lucky 8, live (session of dealer ben), with an irregularity. alice main 20 on area 1, bob
# main 40 on area 3. The shoe deals 10S (area 1), 9C which the dealer puts on area 1 instead of
# area 3, 5D (dealer), 8H (area 1), 10D (area 3). Initial deal incomplete before the interim
# settlement: the cards are reconstructed (lucky-8 5.13), 9C moves from area 1 to area 3, so
# alice has 10S 8H = 18 and bob 9C 10D = 19. Both stand; the dealer 5D 10C = 15 draws 9H = 24
# and busts: each wins 1 to 1 (4.1; lucky-8 4.3.3): alice +20, bob +40.
LUCKY8_RULING: dict[str, Any] = {
    "game": "lucky8", "decks": 6, "areas": 7, "seated": {"alice": 1, "bob": 3},
    "events": [_w("alice", 1, "main", 20), _w("bob", 3, "main", 40), {"type": "no_more_bets"},
               _c("10S"), _c("9C", to="area:1"), _c("5D"), _c("8H"), _c("10D"),
               {"type": "decision", "area": 1, "action": "stand"},
               {"type": "decision", "area": 3, "action": "stand"},
               _c("10C"), _c("9H")],
}

# Lucky 8, live (dealer ben): an extra card is found; the supervisor voids the round (5.1.1):
# every wager is returned, net 0.
LUCKY8_VOID: dict[str, Any] = {
    "game": "lucky8", "decks": 6, "areas": 7, "seated": {"alice": 1},
    "events": [_w("alice", 1, "main", 10), {"type": "no_more_bets"}, _c("4S"), _c("6D"),
               {"type": "void", "reason": "extra card found in the shoe", "rule": "5.1"}],
}

# Star Elements, a transcript. bob main 50 on area 2: 10 Fire, 7 Gold (dealer), 8 Water = 18,
# stands; the dealer 7 + 9 Earth = 16 draws 10 Wood = 26 and busts: bob wins 1 to 1 (4.1,
# star-elements 4.4.3): +50.
STAR_ELEMENTS: dict[str, Any] = {
    "game": "star_elements", "decks": 6, "areas": 7, "seated": {"bob": 2},
    "events": [_w("bob", 2, "main", 50), {"type": "no_more_bets"}, _c("10Fi"), _c("7Go"), _c("8Wa"),
               {"type": "decision", "area": 2, "action": "stand"}, _c("9Ea"), _c("10Wo")],
}
