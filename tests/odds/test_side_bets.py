"""Par sheets: pay-table rows pinned to fractions worked out by hand from the pay tables.

Each expected fraction is counted here from the deck (cards.py's composition of the game)
and the row's definition in the rules, in ordered draws without replacement.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from dealer_assist.games import GAMES
from dealer_assist.odds import side_bets
from dealer_assist.odds.sheet import side_bets_of


def rated(game: str, bet: str, decks: int, first_card_action: dict[int, str] | None = None) -> side_bets.BetFigures:
    """The figures of the game's side bet ``bet``, rated from the stage it settles at."""
    rules = GAMES[game]
    spec = rules.spec(bet) or rules.main_bonus
    assert spec is not None and spec.key == bet
    return side_bets.rate(game, decks, spec, side_bets.Play(first_card_action or {}))


def rows(figures: side_bets.BetFigures) -> dict[str, Fraction | None]:
    return {r.name: r.probability for r in figures.rows}


def test_single_deck_pair_is_three_of_the_other_51() -> None:
    # Lucky 8 at one deck (2.1 allows 1): the second card matches the first's rank in 3 of 51.
    assert rows(rated("lucky8", "pair", 1)) == {"Pair": Fraction(3, 51)}


def test_pair_at_two_decks_and_at_four_element_decks() -> None:
    # Ace Race, 2 decks: 7 of the other 103 cards share the first card's rank (J-Q is no pair).
    assert rows(rated("ace_race", "pair", 2)) == {"Pair": Fraction(7, 103)}
    # Star Elements, 4 decks of 65: each rank has 5 elements x 4 decks = 20 cards, 19 left of 259.
    assert rows(rated("star_elements", "pair", 4)) == {"Pair": Fraction(19, 259)}


def test_lucky8_rows_at_one_deck() -> None:
    n3 = 52 * 51 * 50
    got = rows(rated("lucky8", "lucky8", 1))
    # One deck has one 8 of each suit: no two 8s are suited.
    assert got["3 suited 8's"] == 0
    assert got["2 suited 8's"] == 0
    assert got["3 unsuited 8's"] == Fraction(4 * 3 * 2, n3)
    # Exactly two 8s: which two of the three positions, 4*3 ordered 8s, 48 others.
    assert got["2 unsuited 8's"] == Fraction(3 * 4 * 3 * 48, n3)
    # Two of a Kind (1.1.18), 12 ranks other than 8: three alike (4*3*2) or exactly two (3*4*3*48).
    assert got["Two of a Kind"] == Fraction(12 * (4 * 3 * 2 + 3 * 4 * 3 * 48), n3)


def test_lucky8_suited_eights_at_two_decks() -> None:
    n3 = 104 * 103 * 102
    got = rows(rated("lucky8", "lucky8", 2))
    # 8 eights (two of each suit). Three suited: 8 * 1 * 0 = impossible with 2 decks.
    assert got["3 suited 8's"] == 0
    # Three 8s, not all one suit: 8*7*6 ordered.
    assert got["3 unsuited 8's"] == Fraction(8 * 7 * 6, n3)
    # Exactly two 8s of one suit: positions (3) x an 8 x its twin (1) x a non-8 (96).
    assert got["2 suited 8's"] == Fraction(3 * 8 * 1 * 96, n3)
    assert got["2 unsuited 8's"] == Fraction(3 * 8 * 6 * 96, n3)


def test_royal_match_rows_at_two_decks() -> None:
    # Suited K-Q: a K (8 of 104) then the Q of its suit (2 of 103), or the other way round.
    kq = Fraction(2 * 8 * 2, 104 * 103)
    got = rows(rated("electronic", "royal_match", 2))
    assert got["Royal Match 21 (Suited King and Queen)"] == kq == Fraction(4, 1339)
    # Any two suited cards: 25 of the other 103 share the first card's suit.
    assert got["2 Suited Cards"] == Fraction(25, 103) - kq


def test_bet_the_set_rows_at_two_decks() -> None:
    got = rows(rated("electronic", "bet_the_set", 2))
    assert got["Suited Pair"] == Fraction(1, 103)  # the first card's twin
    assert got["Unsuited Pair"] == Fraction(6, 103)  # same rank, the other three suits, two decks


def test_kings_bounty_top_rows_at_two_decks() -> None:
    got = rows(rated("electronic", "kings_bounty", 2))
    both_ks = Fraction(2, 104) * Fraction(1, 103)
    # With both K-spades out: 8 aces and 30 ten-value cards among 102; ace then ten or ten then ace.
    dealer_bj = Fraction(2 * 8 * 30, 102 * 101)
    assert got["2 Kings of Spades + Dealer Blackjack"] == both_ks * dealer_bj
    assert got["2 Kings of Spades"] == both_ks * (1 - dealer_bj)
    # Two suited kings other than spades: 3 suits, a king (2 of 104) then its twin (1 of 103).
    assert got["2 Suited Kings"] == Fraction(3 * 2 * 1, 104 * 103)


def test_kings_bounty_twenty_includes_ace_nine() -> None:
    # DESIGN.md: "Suited 20" is any two suited cards totalling 20 that no higher row pays, A-9 included.
    got = rows(rated("electronic", "kings_bounty", 2))
    n2 = 104 * 103
    # Suited: A-9 (8 aces x 2 nines of its suit, both orders) and two different suited ten-values:
    # 10-J,10-Q,10-K,J-Q,J-K,Q-K = 6 rank pairs x 4 suits x 2 x 2 copies x 2 orders.
    suited = 2 * (8 * 2) + 6 * 4 * 2 * 2 * 2
    assert got["Suited 20"] == Fraction(suited, n2)


def test_star_elements_three_card_rows_at_four_decks() -> None:
    n3 = 260 * 259 * 258
    sevens = rows(rated("star_elements", "super_sevens", 4))
    # 20 sevens, 4 of each element.
    same = 20 * 3 * 2
    assert sevens["Three Sevens - Same Element"] == Fraction(same, n3)
    assert sevens["Three Sevens - Mixed Elements"] == Fraction(20 * 19 * 18 - same, n3)
    assert sevens["Two Sevens"] == Fraction(3 * 20 * 19 * 240, n3)
    stars = rows(rated("star_elements", "three_stars", 4))
    # 60 star cards (Fu, Lu, Shou x 5 elements x 4 decks), 12 per element.
    same_el = 5 * 12 * 11 * 10
    assert stars["3 Stars - Same Element"] == Fraction(same_el, n3)
    assert stars["3 Stars - Mixed Elements"] == Fraction(60 * 59 * 58 - same_el, n3)


def test_ace_race_rows_at_two_decks() -> None:
    got = rows(rated("ace_race", "ace_race", 2))
    n2 = 104 * 103
    assert got["Pair of Aces"] == Fraction(8 * 7, n2)
    # A non-ace (96) then: its twin (suited), the same rank in the other suit of its colour
    # (2 copies), or in the two suits of the other colour (4 copies).
    assert got["Suited Pair"] == Fraction(96 * 1, n2)
    assert got["Coloured Pair"] == Fraction(96 * 2, n2)
    assert got["Mixed Pair"] == Fraction(96 * 4, n2)
    after = rows(rated("ace_race", "ace_race", 2).extra["after_split"])
    assert after["Pair of Aces after Split"] == Fraction(6, 102)  # 6 aces left of 102


def test_superb8_rows_at_three_decks() -> None:
    n3 = 144 * 143 * 142
    # 12 eights in 3 decks of 48 (3 of them 8 of spades), 132 other cards.
    split = rows(rated("dueling8s", "superb8", 3, {8: "split"}))
    assert split["Four 8's (All Spades)"] == Fraction(3 * 2 * 1, n3)
    assert split["Four 8's (Excluding all Spades)"] == Fraction(12 * 11 * 10 - 6, n3)
    assert split["Three 8's"] == Fraction(12 * 11 * 132, n3)
    assert split["Two 8's"] == Fraction(12 * 132, 144 * 143)
    # Hitting 8-8 (16) instead: a third 8 busts the hand at 24 and ends the run (4.2.2).
    hit = rows(rated("dueling8s", "superb8", 3, {8: "hit"}))
    assert hit["Four 8's (All Spades)"] == 0 and hit["Four 8's (Excluding all Spades)"] == 0
    assert hit["Three 8's"] == Fraction(12 * 11, 144 * 143)


def test_plus21_three_card_bust_at_three_decks() -> None:
    # The dealer's 8 draws x (2..8: 8-A is a soft 19) then busts on y > 13 - x:
    # x=4: tens (36); x=5: 9 or ten (48); x=6: 8,9,ten (60); x=7: 7 (11 left),8,9,ten (71);
    # x=8: 6,7,8 (11 left),9,ten (83); x=2,3 cannot bust on one card.
    three = Fraction(12 * (36 + 48 + 60 + 71 + 83), 144 * 143)
    assert rows(rated("dueling8s", "plus21", 3))["Dealer Busts with 3 cards"] == three


def test_bonus678_rows_at_three_decks() -> None:
    figures = rated("dueling8s", "bonus678", 3, {6: "hit", 7: "double"})
    got = rows(figures)
    spades = Fraction(2 * 3 * 3, 144 * 143)  # 6S then 7S or 7S then 6S, 3 of each
    assert got["Bonus 6-7-8 (All Spades)"] == spades
    assert got["Bonus 6-7-8 (Excluding all Spades)"] == Fraction(2 * 12 * 12, 144 * 143) - spades
    assert not figures.staked
    # Standing on 8-7 (15) forfeits the draws that start with a 7.
    half = rows(rated("dueling8s", "bonus678", 3, {6: "hit", 7: "stand"}))
    assert half["Bonus 6-7-8 (Excluding all Spades)"] == Fraction(12 * 12 - 3 * 3, 144 * 143)


def test_insurance_at_six_decks() -> None:
    # 96 ten-value cards among the 311 cards other than the dealer's ace.
    assert rows(side_bets.insurance("lucky8", 6)) == {"Insurance": Fraction(96, 311)}
    # Star Elements: 6 x 20 ten-values among 389.
    assert rows(side_bets.insurance("star_elements", 6)) == {"Insurance": Fraction(120, 389)}


def test_house_edge_from_the_rows() -> None:
    # Pair 11:1 at one deck: 12 * 1/17 - 1 = -5/17 returned per unit: edge 5/17.
    figures = rated("lucky8", "pair", 1)
    assert figures.expected_value_exact == Fraction(-5, 17)
    assert figures.house_edge == pytest.approx(5 / 17)
    assert figures.return_to_player == pytest.approx(12 / 17)
    # Variance: 121 * 1/17 + 1 * 16/17 - (5/17)^2.
    assert figures.std_dev == pytest.approx((137 / 17 - 25 / 289) ** 0.5)


EXACT_BETS = ["pair", "ace_race", "lucky8", "super_sevens", "three_stars", "bet_the_set", "royal_match",
              "kings_bounty", "superb8", "plus21", "bonus678", "insurance"]


@pytest.mark.parametrize("game", list(GAMES))
def test_each_bets_rows_and_its_losing_outcome_sum_to_one(game: str) -> None:
    lo, hi = GAMES[game].deck_range
    for decks in sorted({lo, hi}):
        # Dueling 8's: any play of the permanent 8 with its first card keeps the sum at 1.
        bets = side_bets_of(game, decks, {8: "split", 6: "hit", 7: "stand"}, tie18=0.1)
        for name, figures in bets.items():
            for f in [figures, *figures.extra.values()]:
                if name not in EXACT_BETS:
                    assert not f.exact
                    continue
                assert f.lose is not None
                total = sum((r.probability for r in f.rows if r.probability is not None), Fraction(0))
                assert total + f.lose == 1, (game, decks, name)
