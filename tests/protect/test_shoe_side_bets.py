"""The shoe's count gives each side bet's player's expected return on the next round from the
cards left (issue 36, Build 4: op ``shoe_count``'s ``side_bets``; protect/removal.py
``side_bet_edges``), for the five games.

Each case leaves a handful of cards in a 6-deck shoe (every other card seen) and works the
bet out by hand over the orders those cards can come in, from the game's pay clause.
Expected return per unit: (sum over outcomes of pays x ways - ways lost) / all ways."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from dealer_assist.base.cards import Card, parse_card
from dealer_assist.protect.removal import full_shoe
from dealer_assist.service.shoe_count import shoe_figures


def figures_with_left(game: str, left: dict[str, int], decks: int = 6) -> dict[str, Any]:
    """``shoe_count``'s figures when every card of the shoe but ``left`` has been seen."""
    wanted = {parse_card(c): k for c, k in left.items()}
    seen: list[Card] = []
    for card, copies in full_shoe(game, decks).items():
        assert wanted.get(card, 0) <= copies
        seen.extend([card] * (copies - wanted.get(card, 0)))
    out = shoe_figures(game, decks, "S-1", seen, len(seen))
    assert out["on_record"] == len(seen)
    return out


def exact(out: dict[str, Any], bet: str) -> Fraction:
    figure = out["side_bets"][bet]
    assert figure["fraction"] is not None, figure["method"]
    assert figure["edge"] == pytest.approx(float(Fraction(figure["fraction"])))
    return Fraction(figure["fraction"])


def test_lucky8_pair_and_lucky8_from_four_cards_left() -> None:
    out = figures_with_left("lucky8", {"8S": 2, "5C": 1, "5D": 1})
    assert list(out["side_bets"]) == ["pair", "lucky8", "insurance_ace_up"]
    # Pair (4.1, 11 to 1): 4 x 3 = 12 ordered first two cards; a pair: 8S-8S (2 orders), 5C-5D (2 orders).
    assert exact(out, "pair") == Fraction(4 * 11 - 8, 12) == 3
    # Lucky 8 (4.2) on the player's two and the dealer's first card: 4 choices of 3 cards, 6 orders each.
    # 8S 8S 5C and 8S 8S 5D: two suited 8s (10 to 1); 8S 5C 5D (either 8S): Two of a Kind (3 to 1).
    assert exact(out, "lucky8") == Fraction(10 + 10 + 3 + 3, 4) == Fraction(13, 2)
    # Insurance (3.27) needs the dealer's Ace up: no Ace is left, no figure.
    insurance = out["side_bets"]["insurance_ace_up"]
    assert insurance["edge"] is None and "no Ace among the 4 cards left" in insurance["method"]


def test_ace_race_pair_and_ace_race_from_four_cards_left() -> None:
    out = figures_with_left("ace_race", {"AS": 1, "AH": 1, "7S": 1, "7C": 1})
    assert list(out["side_bets"]) == ["pair", "ace_race", "insurance_ace_up"]
    assert exact(out, "pair") == Fraction(4 * 11 - 8, 12) == 3  # 4.1: AS-AH, 7S-7C, 2 orders each
    # Ace Race (4.2): AS-AH a Pair of Aces (50 to 1, 2 orders); 7S-7C both black, suits differ: a
    # Coloured Pair (8 to 1, 2 orders); the other 8 orders lose.
    assert exact(out, "ace_race") == Fraction(2 * 50 + 2 * 8 - 8, 12) == 9
    # Insurance (3.27, 4.1: 2 to 1) given an Ace up: the 3 other cards (an Ace, two 7s) hold no ten.
    assert exact(out, "insurance_ace_up") == Fraction(0, 3) * 3 - 1 == -1


def test_star_elements_three_bets_from_four_cards_left() -> None:
    out = figures_with_left("star_elements", {"KFi": 2, "QFi": 1, "7Wa": 1})
    assert list(out["side_bets"]) == ["pair", "super_sevens", "three_stars", "insurance_ace_up"]
    assert exact(out, "pair") == Fraction(2 * 11 - 10, 12) == 1  # 4.1: only KFi-KFi (2 orders of 12)
    assert exact(out, "super_sevens") == -1  # 4.2 needs two 7s: one is left
    # 3 Stars (4.3): all three cards Fu/Lu/Shou: only KFi KFi QFi (one of the 4 choices of 3 cards,
    # any order), one element: 500 to 1; the 3 choices with 7Wa lose.
    assert exact(out, "three_stars") == Fraction(500 - 3, 4)
    assert out["side_bets"]["insurance_ace_up"]["edge"] is None  # 3.27: no Ace left to be the dealer's


def test_electronic_three_bets_from_four_cards_left() -> None:
    out = figures_with_left("electronic", {"KS": 2, "AH": 1, "QH": 1})
    assert list(out["side_bets"]) == ["bet_the_set", "royal_match", "kings_bounty", "insurance_ace_up"]
    # Bet the Set (4.2): KS-KS a Suited Pair (15 to 1), 2 orders of 12.
    assert exact(out, "bet_the_set") == Fraction(2 * 15 - 10, 12) == Fraction(5, 3)
    # Royal Match (4.3): suited two: KS-KS and AH-QH (5 to 2, 2 orders each), no suited K and Q.
    assert exact(out, "royal_match") == Fraction(4 * Fraction(5, 2) - 8, 12) == Fraction(1, 6)
    # Kings Bounty (4.4), over the 4 x 3 x 2 x 1 = 24 orders of the player's two and the dealer's
    # two cards: KS-KS (4 orders) leaves AH QH to the dealer, a blackjack: 1000 to 1; KS-QH (8):
    # an unsuited 20, 4 to 1; KS-AH (8) and AH-QH (4) total 21: lose.
    assert exact(out, "kings_bounty") == Fraction(4 * 1000 + 8 * 4 - 8 - 4, 24) == Fraction(335, 2)
    # Insurance (3.11, 4.1: 2 to 1) given the AH up: the other 3 cards (KS KS QH) are all tens.
    assert exact(out, "insurance_ace_up") == Fraction(3, 3) * 3 - 1 == 2


def test_dueling8s_tie_and_21_plus_from_tens_and_nines() -> None:
    # 20 ten-valued cards and 10 nines left (the shoe has no 10s: J Q K, 2.1).
    out = figures_with_left("dueling8s", {"KS": 6, "KH": 6, "KD": 6, "KC": 2, "9S": 6, "9H": 4})
    # the 6-7-8 bonus after the side bets; no insurance row (Dueling 8's has none)
    assert list(out["side_bets"]) == ["superb8", "tie18", "plus21", "bonus678"]
    assert exact(out, "superb8") == -1  # 4.2 needs an 8 dealt to the permanent 8: none is left
    # 21+ (4.3): the dealer's 8 takes a ten (18) or a nine (17) and stands (3.33): never busts.
    assert exact(out, "plus21") == -1
    assert exact(out, "bonus678") == 0  # 1.1.2: no 6 or 7 left to draw to the 8; no stake to lose
    # Tie on 18 (4.1, 8 to 1): the area's 8 with a ten stands on 18 (with a nine on 17); the
    # dealer's 8 then takes a ten: 20/30 x 19/29; worked out in floating point (tie18.py).
    tie = out["side_bets"]["tie18"]
    assert tie["fraction"] is None
    p = Fraction(20, 30) * Fraction(19, 29)
    assert tie["edge"] == pytest.approx(float(9 * p - 1), abs=1e-12)  # 85/29 = +293 %


def test_superb8_and_21_plus_from_three_cards_and_short_shoes_say_so() -> None:
    out = figures_with_left("dueling8s", {"8S": 1, "8H": 1, "KS": 1})
    # Superb 8's (4.2): the area's first card an 8 is split from the permanent 8♠ (the strategy's
    # play of 8-8), so the next two cards come to the area too; 6 orders of the 3 cards:
    # 8 8 K (2 orders): three 8s in a row, 8 to 1; 8 K 8 (2): two 8s, 3 to 1; K first (2): lose.
    assert exact(out, "superb8") == Fraction(2 * 8 + 2 * 3 - 2, 6) == Fraction(10, 3)
    # 21+ (4.3): the dealer's 8 takes an 8 (2/3): 16, draws again (8 or K): busts with 3 cards,
    # 2 to 1; takes the K (1/3): 18, stands, lose.
    assert exact(out, "plus21") == Fraction(2, 3) * 2 - Fraction(1, 3) == 1
    tie = out["side_bets"]["tie18"]
    assert tie["edge"] is None and "3 cards left, fewer than 20" in tie["method"]

    short = figures_with_left("dueling8s", {"2S": 1, "3S": 1})
    # The dealer's 8 + 2 + 3 = 13 must draw again from an empty shoe: no figure, said so.
    assert short["side_bets"]["plus21"]["edge"] is None
    assert "may run out" in short["side_bets"]["plus21"]["method"]
    assert "2 card(s) left, the bet takes 3" in short["side_bets"]["superb8"]["method"]

    three = figures_with_left("electronic", {"KS": 2, "AH": 1})
    assert exact(three, "bet_the_set") == Fraction(2 * 15 - 4, 6)  # KS-KS, 2 orders of 6
    kb = three["side_bets"]["kings_bounty"]
    assert kb["edge"] is None and kb["fraction"] is None and "3 card(s) left, the bet takes 4" in kb["method"]
