"""The main wager's combinatorial analysis: its parts worked by hand, and published exact figures.

Published figures: the Wizard of Odds, Blackjack "Appendix 9" (expected return of the whole
game under composition-dependent play, resplits to 4 hands except aces, one card to split
aces, blackjack 3:2, no surrender), pages 1ds17r4 and euro-6dh17r4. The goal is 0.01
percentage point (0.0001 of a unit).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from dealer_assist.odds.main_wager import analyse, dealer_outcomes, split_hand_counts
from dealer_assist.odds.rulesets import for_game, standard


def test_dealer_outcomes_peek_and_no_hole_card() -> None:
    # A shoe of one ace and one 7 (index 0 = aces, 6 = sevens); the dealer shows a ten.
    counts = [1, 0, 0, 0, 0, 0, 1, 0, 0, 0]
    # No hole card: the ace (a blackjack) or the 7 (17) with one chance in two each.
    got = dealer_outcomes(list(counts), 10, False, False, True)
    assert got == (0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5)
    # Peek: the hole card is known not to be the ace, so the dealer has 17.
    got = dealer_outcomes(list(counts), 10, False, True, False)
    assert got == (1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


def test_dealer_hits_soft_17_only_under_h17() -> None:
    # The dealer shows an ace; the shoe holds one 6 and three 4s (index 5 = sixes, 3 = fours).
    counts = [0, 0, 0, 3, 0, 1, 0, 0, 0, 0]
    # S17: a 6 first (1/4) makes soft 17 and stands. A 4 first (3/4) makes soft 15, which draws
    # from 4,4,6: the 6 (1/3) makes soft 21, a 4 (2/3) soft 19.
    s17 = dealer_outcomes(list(counts), 1, False, False, False)
    assert s17 == pytest.approx((1 / 4, 0, 3 / 4 * 2 / 3, 0, 3 / 4 * 1 / 3, 0, 0))
    # H17: the soft 17 draws a 4: soft 21.
    h17 = dealer_outcomes(list(counts), 1, True, False, False)
    assert h17 == pytest.approx((0, 0, 3 / 4 * 2 / 3, 0, 1 / 4 + 3 / 4 * 1 / 3, 0, 0))


def test_split_hand_counts_by_hand() -> None:
    # No resplit: the two hands each take any card.
    assert split_hand_counts(0.1, 2) == (0.0, 2.0)
    q = 0.1
    # Up to 3 hands: expected hands 2 + P(at least one pair card among the first two draws).
    other, any_card = split_hand_counts(q, 3)
    assert other == pytest.approx((1 - q) * (2 - q))
    assert other + any_card == pytest.approx(2 + 2 * q - q * q)


@pytest.mark.parametrize(("decks", "h17", "hole", "das", "published"), [
    (1, False, "peek", True, 0.001839),  # wizardofodds.com/games/blackjack/appendix/9/1ds17r4/
    (6, True, "none_all", True, -0.0072705),  # .../appendix/9/euro-6dh17r4/
    (6, True, "none_all", False, -0.0086975),  # .../appendix/9/euro-6dh17r4/
])
def test_standard_rule_sets_against_published_figures(decks: int, h17: bool, hole: str, das: bool,
                                                        published: float) -> None:
    result = analyse(standard(decks, h17=h17, das=das, hole_card=hole))
    assert result.expected_return == pytest.approx(published, abs=0.0001)


def test_six_to_five_costs_the_blackjacks_difference() -> None:
    # Paying 6:5 instead of 3:2 changes only the player's blackjacks that the dealer does not tie:
    # 0.3 x P(player blackjack, no dealer blackjack); the rest of the analysis is unchanged.
    three_two = analyse(standard(6, h17=False, das=True))
    six_five = analyse(standard(6, h17=False, das=True, blackjack=Fraction(6, 5)))
    n = 312
    p_bj = 2 * 24 / n * 96 / (n - 1)  # an ace and a ten, either order
    # Against the dealer's cards: P(no dealer blackjack | the player's A-10 removed), by the up card.
    no_dealer_bj = 1 - (23 / 310 * 95 / 309 + 95 / 310 * 23 / 309)
    assert three_two.expected_return - six_five.expected_return == pytest.approx(0.3 * p_bj * no_dealer_bj, rel=1e-9)


def test_games_read_their_rules_from_games_py() -> None:
    ace_race = for_game("ace_race", 6)
    assert ace_race.hits_soft_17 and ace_race.double_hard_10_11_only and ace_race.hole_card == "none_all"
    lucky8 = for_game("lucky8", 6)
    assert not lucky8.hits_soft_17 and lucky8.hole_card == "none_original"
    dueling = for_game("dueling8s", 3)
    assert dueling.permanent_eight and dueling.split_value == 8 and dueling.deck[9] == 12  # J, Q, K only
    star = for_game("star_elements", 4)
    assert sum(star.deck) == 65 and star.deck[9] == 20


def test_dueling8s_plays() -> None:
    result = analyse(for_game("dueling8s", 6))
    # 8-8 splits (3.21); 8-2 and 8-3 (10, 11) double against the dealer's 8; 8-J (18) stands.
    assert result.first_card_action[8] == "split"
    assert result.first_card_action[2] == "double" and result.first_card_action[3] == "double"
    assert result.first_card_action[10] == "stand"


def test_outcome_distribution_of_the_main_wager() -> None:
    from dealer_assist.odds.outcomes import analyse_with_outcomes, split_hand_number

    result, outcomes = analyse_with_outcomes(standard(6, h17=False, das=True))
    assert sum(outcomes.dist.values()) == pytest.approx(1.0, abs=1e-12)
    # Its mean is the analysis' expected value (splits follow the analysis' model of them).
    assert abs(outcomes.mean - result.expected_return) < 1e-9
    # A blackjack pays 1.5: P = P(A-10) x P(no dealer blackjack), as in the 6:5 test above.
    p_bj = 2 * 24 / 312 * 96 / 311 * (1 - (23 / 310 * 95 / 309 + 95 / 310 * 23 / 309))
    assert outcomes.dist[1.5] == pytest.approx(p_bj, rel=1e-9)
    # Blackjack's standard deviation is about 1.15 units; a net win about 43 % of rounds.
    assert 1.1 < outcomes.std_dev < 1.2
    assert 0.42 < outcomes.hit_frequency < 0.45
    # The number of split hands: 2, or 3 when one of the first two draws is the pair card...
    q = 0.1
    assert split_hand_number(q, 3) == pytest.approx({2: (1 - q) ** 2, 3: 1 - (1 - q) ** 2})
