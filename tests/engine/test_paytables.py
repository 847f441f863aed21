"""Every row of every side-bet pay table (section 4 of each game), from the cards."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dealer_assist.base.cards import card, cards
from dealer_assist.games import GAMES
from dealer_assist.games import sidebets as sb


def odds(row: sb.PayRow | None) -> Fraction | None:
    return None if row is None else row.odds


# Pair wager 11 to 1 (Ace Race/Lucky 8/Star Elements 4.1); a pair is the same rank (DESIGN.md).
@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("7H 7S", Fraction(11)),
        ("KH KD", Fraction(11)),
        ("10H JH", None),  # 10-J may be split but is no pair (3.4.4)
        ("KS QS", None),
        ("QFi QWa", Fraction(11)),  # Lu and Lu (Star Elements 1.1.9)
        ("AS 2S", None),
    ],
)
def test_pair_wager(hand: str, expected: Fraction | None) -> None:
    a, b = cards(hand)
    assert odds(sb.pair(a, b)) == expected


# Ace Race 4.2 and 1.1.1: every row.
@pytest.mark.parametrize(
    ("hand", "row", "pays"),
    [
        ("AS AH", "Pair of Aces", 50),          # 1.1.1.3 suited or unsuited
        ("AD AD", "Pair of Aces", 50),
        ("9C 9C", "Suited Pair", 15),           # 1.1.1.4 identical
        ("9H 9D", "Coloured Pair", 8),          # 1.1.1.1 both red, different suit
        ("QS QC", "Coloured Pair", 8),          # both black
        ("9H 9S", "Mixed Pair", 5),             # 1.1.1.2 red and black
        ("KD QD", None, None),                  # faces count as their face (3.4.4)
        ("10H JH", None, None),
    ],
)
def test_ace_race_rows(hand: str, row: str | None, pays: int | None) -> None:
    a, b = cards(hand)
    got = sb.ace_race(a, b)
    assert (got.name if got else None) == row
    assert odds(got) == (Fraction(pays) if pays else None)


def test_ace_race_after_split_pays_10_to_1_only_on_a_second_ace() -> None:
    assert odds(sb.ace_race_after_split(card("AS"), card("AD"))) == Fraction(10)
    assert sb.ace_race_after_split(card("AS"), card("KD")) is None


# Lucky 8 4.2 with 1.1.8 and 1.1.18 (player's two cards + dealer's first card).
@pytest.mark.parametrize(
    ("player", "dealer", "row", "pays"),
    [
        ("8H 8H", "8H", "3 suited 8's", 1000),
        ("8H 8D", "8H", "3 unsuited 8's", 100),
        ("8C 8C", "5D", "2 suited 8's", 10),      # player's two cards
        ("8C 3S", "8C", "2 suited 8's", 10),      # one player card + dealer card
        ("8C 3S", "8D", "2 unsuited 8's", 5),     # the README example (bob)
        ("7H 7D", "2S", "Two of a Kind", 3),      # 1.1.18.1
        ("KH 4D", "KS", "Two of a Kind", 3),      # 1.1.18.2 with the dealer's card
        ("KH QH", "5S", None, None),              # faces are their face for Two of a Kind
        ("2H 3D", "4S", None, None),
    ],
)
def test_lucky8_rows(player: str, dealer: str, row: str | None, pays: int | None) -> None:
    a, b = cards(player)
    got = sb.lucky8(a, b, card(dealer))
    assert (got.name if got else None) == row
    assert odds(got) == (Fraction(pays) if pays else None)


# Star Elements 4.2 (Super Star Sevens) and 4.3 (3 Stars).
@pytest.mark.parametrize(
    ("three", "fn", "pays"),
    [
        ("7Fi 7Fi 7Fi", sb.super_sevens, 4000),
        ("7Fi 7Wa 7Fi", sb.super_sevens, 400),
        ("7Go 2Ea 7Wo", sb.super_sevens, 40),
        ("7Go 2Ea 8Wo", sb.super_sevens, None),
        ("JWo QWo KWo", sb.three_stars, 500),     # Fu, Lu, Shou of Wood
        ("JWo QEa KWo", sb.three_stars, 50),
        ("JWo 10Wo KWo", sb.three_stars, None),   # a 10 is not a Star card
    ],
)
def test_star_elements_rows(three: str, fn, pays: int | None) -> None:  # type: ignore[no-untyped-def]
    p1, p2, d = cards(three)
    assert odds(fn(p1, p2, d)) == (Fraction(pays) if pays else None)


# Electronic 4.2 Bet the Set, 4.3 Royal Match, 4.4 Kings Bounty.
@pytest.mark.parametrize(
    ("hand", "pays"),
    [("9S 9S", 15), ("9S 9H", 10), ("KS QS", None), ("10D JD", None)],
)
def test_bet_the_set_rows(hand: str, pays: int | None) -> None:
    a, b = cards(hand)
    assert odds(sb.bet_the_set(a, b)) == (Fraction(pays) if pays else None)


@pytest.mark.parametrize(
    ("hand", "pays"),
    [("KH QH", Fraction(25)), ("QC KC", Fraction(25)), ("2D 9D", Fraction(5, 2)), ("KH QD", None)],
)
def test_royal_match_rows(hand: str, pays: Fraction | None) -> None:
    a, b = cards(hand)
    assert odds(sb.royal_match(a, b)) == pays


@pytest.mark.parametrize(
    ("hand", "dealer_bj", "row", "pays"),
    [
        ("KS KS", True, "2 Kings of Spades + Dealer Blackjack", 1000),
        ("KS KS", False, "2 Kings of Spades", 100),
        ("KH KH", False, "2 Suited Kings", 30),
        ("QD QD", False, "2 Suited Queens, Jacks or 10's", 20),
        ("10C 10C", False, "2 Suited Queens, Jacks or 10's", 20),
        ("QD JD", False, "Suited 20", 9),
        ("AH 9H", False, "Suited 20", 9),           # A-9 totals 20 (DESIGN.md reading)
        ("KH KC", False, "2 Kings", 6),
        ("QD QS", False, "Unsuited 20", 4),
        ("AH 9C", False, "Unsuited 20", 4),
        ("KH 9C", False, None, None),
    ],
)
def test_kings_bounty_rows(hand: str, dealer_bj: bool, row: str | None, pays: int | None) -> None:
    a, b = cards(hand)
    got = sb.kings_bounty(a, b, dealer_bj)
    assert (got.name if got else None) == row
    assert odds(got) == (Fraction(pays) if pays else None)


# Dueling 8's 4.2 (Superb 8's: the permanent 8♠ starts the run), 4.3 (21+), 4.1 (6-7-8 bonus).
@pytest.mark.parametrize(
    ("run", "pays"),
    [
        ("8S 8S 8S 8S", 8000),
        ("8S 8S 8H 8S", 800),
        ("8S 8D 8C", 8),
        ("8S 8C", 3),
        ("8S", None),
        ("8S 8S 8S 8S 8S", 8000),   # paid once, to the highest payout (4.2.2)
    ],
)
def test_superb8_rows(run: str, pays: int | None) -> None:
    assert odds(sb.superb8(cards(run))) == (Fraction(pays) if pays else None)


@pytest.mark.parametrize(("n", "pays"), [(3, 2), (4, 3), (5, 8), (6, 35), (7, 80), (8, 800)])
def test_plus21_rows(n: int, pays: int) -> None:
    assert odds(sb.plus21(n, True)) == Fraction(pays)
    assert sb.plus21(n, False) is None


def test_plus21_has_no_row_for_nine_cards() -> None:
    assert sb.plus21(9, True) is None


@pytest.mark.parametrize(
    ("hand", "pays"),
    [("8S 6S 7S", 5), ("8S 7S 6S", 5), ("8S 6H 7S", 1), ("8S 6H 6S", None), ("8S 6H 7S 2C", None)],
)
def test_bonus678_rows(hand: str, pays: int | None) -> None:
    assert odds(sb.bonus678(cards(hand))) == (Fraction(pays) if pays else None)


def test_top_odds_per_game() -> None:
    assert GAMES["ace_race"].top_odds == 50
    assert GAMES["lucky8"].top_odds == 1000
    assert GAMES["star_elements"].top_odds == 4000
    assert GAMES["electronic"].top_odds == 1000
    assert GAMES["dueling8s"].top_odds == 8000
