"""Issue 27: the printed chart's edge, the distribution, side-bet rows, Dueling 8's exact Tie on 18."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from fractions import Fraction

import pytest

from dealer_assist.games import GAMES
from dealer_assist.odds.main_wager import (
    BLACKJACK,
    BUST,
    EXACT_CARDS,
    Comp,
    Versus,
    add_card,
    hand_total,
)
from dealer_assist.odds.rulesets import for_game, usual_decks
from dealer_assist.odds.sheet import (
    chart_of,
    chart_result,
    main_wager_result,
    par_sheet,
    side_bets_of,
)
from dealer_assist.odds.strategy import Chart
from dealer_assist.odds.tie18 import dealer_eighteens, tie18_exact


def _case(game: str, decks: int) -> object:
    """One game at one deck count, in one worker: its analysis (seconds; cached per process by
    dealer_assist.odds.sheet) is worked out once for both tests below, not once in each worker."""
    return pytest.param(game, decks, marks=pytest.mark.xdist_group(f"odds-{game}-{decks}"))


ALL = [_case(g, n) for g, r in GAMES.items() for n in range(r.deck_range[0], r.deck_range[1] + 1)]


@pytest.mark.parametrize(("game", "decks"), ALL)
def test_chart_returns_no_more_than_the_optimal_play(game: str, decks: int) -> None:
    optimal, _ = main_wager_result(game, decks)
    chart, _ = chart_result(game, decks)
    # The chart is one of the plays the optimisation chose among: it cannot return more.
    assert chart.expected_return <= optimal.expected_return + 1e-12
    # And it is a sensible chart: within half a percentage point of the optimum.
    assert optimal.expected_return - chart.expected_return < 0.005


# The usual deck count and 1, 2, 6, 8 decks where 2.1 of the game allows them.
DISTRIBUTION_CASES = [_case(g, n) for g, r in GAMES.items() for n in sorted({1, 2, 6, 8, usual_decks(g)})
                      if r.deck_range[0] <= n <= r.deck_range[1]]


@pytest.mark.parametrize(("game", "decks"), DISTRIBUTION_CASES)
def test_distribution_sums_to_one_and_its_mean_is_the_edge(game: str, decks: int) -> None:
    for res, out in (main_wager_result(game, decks), chart_result(game, decks)):
        assert abs(sum(out.dist.values()) - 1.0) < 1e-12
        assert min(out.dist) >= -8 and max(out.dist) <= 8 + 5  # 4 doubled hands; Dueling 8's bonus pays on top
        # The split hands follow the analysis' own model of a split, so the mean is its
        # expected value but for floating-point rounding.
        assert abs(out.mean - res.expected_return) < 1e-9
        # Element of risk: the same expected loss over more money wagered (doubles, splits).
        assert out.stake > 1.0
        assert out.element_of_risk == pytest.approx(-out.mean / out.stake)
        assert 0 < out.push < 0.2


@pytest.mark.parametrize("game", list(GAMES))
def test_side_bet_rows_sum_to_exactly_one_and_their_contributions_to_the_return(game: str) -> None:
    n = usual_decks(game)
    for name, b in par_sheet(game, n, with_chart=False).bets.items():
        if not b.exact or not b.staked:
            continue
        assert b.lose is not None
        total = sum((r.probability for r in b.rows if r.probability is not None), Fraction(0)) + b.lose
        assert total == 1, name
        ev = sum((r.odds * r.probability for r in b.rows if r.probability is not None), Fraction(0)) - b.lose
        assert ev == b.expected_value_exact, name


def test_dealer_eighteens_match_the_dealer_recursion() -> None:
    from dealer_assist.odds.main_wager import dealer_outcomes

    # One shoe from the permanent 8: 8 + 10 (one card), 8 + 5 + 5, 8 + A... (soft 19 stands).
    counts = [2, 1, 1, 0, 2, 0, 0, 0, 0, 3]
    n = sum(counts)
    p = 0.0
    for orders, need, m in dealer_eighteens(False):
        w = orders
        for i, k in need:
            for j in range(k):
                w *= counts[i] - j
        denom = 1
        for j in range(m):
            denom *= n - j
        p += w / denom
    assert p == pytest.approx(dealer_outcomes(counts, 8, False, False, False)[1], abs=1e-15)


# ------------------------------------------------------------------ Tie on 18, enumerated by brute force
def _chart_small() -> Chart:
    """A plain chart against the 8: double 10 and 11, split 8s, hit hard 16 or less, stand soft 18+."""
    cells = {}
    for t in range(4, 22):
        cells[("hard", t, 8)] = "Dh" if t in (10, 11) else "H" if t < 17 else "S"
    for t in range(12, 22):
        cells[("soft", t, 8)] = "H" if t < 18 else "S"
    cells[("pair", 8, 8)] = "P"
    return Chart(cells)


def _orders(left: dict[int, int]) -> Iterator[tuple[int, ...]]:
    """Every distinct order of a multiset of cards (each as likely as any other when shuffled)."""
    if not any(left.values()):
        yield ()
        return
    for v in sorted(left):
        if left[v]:
            left[v] -= 1
            for rest in _orders(left):
                yield (v, *rest)
            left[v] += 1


def _brute_force(deck: dict[int, int], chart: Chart, max_hands: int) -> tuple[Fraction, list[Fraction], list[Fraction]]:
    """Every order of a small shoe, each equally likely, played as the rules say (3.23: the
    first hand is completed first; 3.23.3: an 8 as a split hand's second card splits again,
    the new hand right after it, as the engine does). Returns P(tie) of the first hand and,
    by position 2..max_hands, P(hand exists and ties) and P(hand exists)."""
    orders = list(_orders(dict(deck)))
    first = Fraction(0)
    ties = [Fraction(0)] * (max_hands + 1)
    formed = [Fraction(0)] * (max_hands + 1)
    w = Fraction(1, len(orders))
    for order in orders:
        it = iter(order)
        hands = [[8, next(it)]]

        def total(h: list[int]) -> tuple[int, bool]:
            hard = sum(h)
            return (hard + 10, True) if 1 in h and hard + 10 <= 21 else (hard, False)

        i = 0
        split = hands[0][1] == 8
        if split:
            hands = [[8], [8]]
        finals = []
        while i < len(hands):
            h = hands[i]
            if len(h) == 1:
                h.append(next(it))
                if h[1] == 8 and len(hands) < max_hands:
                    hands.insert(i + 1, [h.pop()])
                    continue
            t, soft = total(h)
            if chart.doubles(sum(h), 1 in h, 8) and len(h) == 2:
                h.append(next(it))
            else:
                while t < 21 and chart.hits(sum(h), 1 in h, 8):
                    h.append(next(it))
                    t, soft = total(h)
            t, _ = total(h)
            finals.append(t if sum(h) <= 21 else 0)
            i += 1
        dealer = [8]
        while True:
            t, soft = total(dealer)
            if t >= 17:
                break
            dealer.append(next(it))
        d18 = total(dealer)[0] == 18
        if finals[0] == 18 and d18:
            first += w
        if split:
            for k in range(2, len(hands) + 1):
                formed[k] += w
                if finals[k - 1] == 18 and d18:
                    ties[k] += w
    return first, ties, formed


def test_tie18_exact_against_every_order_of_a_small_shoe() -> None:
    # 8s to split (three in the shoe: up to four hands), a 2 to double, tens for 18, an ace
    # for a soft hand; no order runs out of cards (at most 8 to the area, 3 left to the dealer).
    deck = {8: 3, 10: 5, 9: 1, 1: 1, 2: 1}
    values = tuple(deck.get(v, 0) for v in range(1, 11))
    rules = replace(for_game("dueling8s", 3), deck=values, decks=1)
    chart = _chart_small()
    first, ties, formed = _brute_force(deck, chart, rules.max_hands)
    got = tie18_exact(rules, chart)
    assert got.first_hand == pytest.approx(float(first), abs=1e-12)
    wins = sum(ties[2:], Fraction(0))
    wagers = sum(formed[2:], Fraction(0))
    assert got.split_hands == pytest.approx(float(wins / wagers), abs=1e-12)
    for k in range(2, rules.max_hands + 1):
        if formed[k]:
            assert got.by_hand[k - 2] == pytest.approx(float(ties[k] / formed[k]), abs=1e-12)
    assert formed[4] > 0  # the shoe reaches four hands in some orders


def test_tie18_exact_against_every_order_of_a_shoe_with_an_8_kept_at_four_hands() -> None:
    # Four 8s in the shoe: the first dealt splits, two more split again (four hands), the fourth
    # may come as a second card at four hands and stay (8-8 = 16 hits: a 2 makes 18); 8-2
    # doubles; 8-10 is 18. Twelve cards: no order runs out.
    deck = {8: 4, 10: 7, 2: 1}
    rules = replace(for_game("dueling8s", 3), deck=tuple(deck.get(v, 0) for v in range(1, 11)), decks=1)
    chart = _chart_small()
    first, ties, formed = _brute_force(deck, chart, rules.max_hands)
    got = tie18_exact(rules, chart)
    assert got.first_hand == pytest.approx(float(first), abs=1e-12)
    assert got.split_hands == pytest.approx(float(sum(ties[2:], Fraction(0)) / sum(formed[2:], Fraction(0))),
                                            abs=1e-12)
    for k in range(2, rules.max_hands + 1):
        assert got.by_hand[k - 2] == pytest.approx(float(ties[k] / formed[k]), abs=1e-12)
    assert got.first_hand > 0 and ties[4] > 0  # the case is not empty: ties happen, at the fourth hand too


def test_exact_tie18_figures_reach_the_sheet() -> None:
    """The sheet's Tie on 18 rows carry tie18.py's figures."""
    deck = {8: 3, 10: 5, 9: 1, 1: 1, 2: 1}
    rules = replace(for_game("dueling8s", 3), deck=tuple(deck.get(v, 0) for v in range(1, 11)), decks=1)
    t = tie18_exact(rules, _chart_small())
    bets = side_bets_of("dueling8s", 3, {8: "split"}, t.first_hand, t.split_hands)
    assert bets["tie18"].rows[0].probability_float == t.first_hand
    assert bets["tie18"].extra["on_split_hand"].rows[0].probability_float == t.split_hands
    assert bets["tie18"].method.startswith("exact")
    assert bets["tie18"].house_edge == pytest.approx(1 - 9 * t.first_hand)
    assert chart_of("dueling8s", 3).cells[("pair", 8, 8)] == "P"


# ------------------------------------------------------------------ doubling for less (3.26) or not (Electronic 3.15)
def test_only_electronic_doubles_for_the_full_wager_only() -> None:
    # Electronic 1.1.2/3.15: "an amount equal to his original wager"; the others' 3.26:
    # "equal to or less than".
    assert {g for g in GAMES if for_game(g).double_equal_only} == {"electronic"}
    assert "for the full wager only" in for_game("electronic").describe()
    assert "for the full wager only" not in for_game("lucky8").describe()


def _double_for(vs: Versus, comp: Comp, hard: int, ace: bool, x: float, takes_all: bool) -> float:
    """A double of ``x`` more units (one card, then stand), from the dealer's probabilities;
    a dealer blackjack takes 1 + x units (``takes_all``) or the original unit."""
    value = 0.0
    for i, p in enumerate(vs.draw_probs(comp)):
        if p <= 0:
            continue
        if hard + i + 1 > 21:
            value -= (1 + x) * p
            continue
        total = hand_total(hard + i + 1, ace or i == 0)
        dealer = vs.dealer(add_card(comp, i + 1))
        net = dealer[BUST] + sum(dealer[k] * ((total > 17 + k) - (total < 17 + k)) for k in range(5))
        value += p * ((1 + x) * net - ((1 + x) if takes_all else 1) * dealer[BLACKJACK])
    return value


@pytest.mark.parametrize(("game", "decks"), [("lucky8", 1), ("ace_race", 2), ("star_elements", 4)])
def test_a_double_for_less_never_plays_better_than_the_full_double_or_none(game: str, decks: int) -> None:
    """Where 3.26 allows doubling for less, the analysis still values only the full double: a
    double of x more units never beats both the full double and not doubling."""
    rules = for_game(game, decks)
    optimal, _ = main_wager_result(game, decks)
    takes_all = rules.hole_card == "none_all"  # a dealer blackjack takes the doubled amount too
    checked = 0
    versus: dict[int, Versus] = {}
    for d in optimal.decisions:
        if "double" not in d.values:
            continue
        vs = versus.setdefault(d.up, Versus(rules, d.up, EXACT_CARDS))
        comp = add_card(add_card((0,) * 10, d.cards[0]), d.cards[1])
        hard, ace = sum(d.cards), 1 in d.cards
        assert _double_for(vs, comp, hard, ace, 1.0, takes_all) == pytest.approx(d.values["double"], abs=1e-12)
        others = max(v for k, v in d.values.items() if k != "double")
        for x in (0.25, 0.5, 0.75):
            assert _double_for(vs, comp, hard, ace, x, takes_all) <= max(d.values["double"], others) + 1e-12, \
                (d.cards, d.up, x)
        checked += 1
    assert checked > 50  # every two-card hand that may double, against every dealer card
