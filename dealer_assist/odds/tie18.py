"""Dueling 8's Tie on 18 (1.1.16, 3.23.1), exactly, on the first hand and on every split hand.

The wager wins when the hand it is on and the dealer both end on 18 (8 to 1). The area's
play is the printed chart's (strategy.py). Cards come without replacement from the shoe
(the permanent 8s are not in it, 3.14): the first card; for 8-8 the split (3.23): each hand
gets its second card in turn and is completed before the next gets its own, an 8 as a
split hand's second card is split again while the area has fewer than ``max_hands`` hands
(3.23.3); each hand plays by its total (a two-card hand may double, 3.26.2); then the
dealer draws from the permanent 8 to 17 (3.33) from what is left.

Exact by exchangeability, without enumerating every hand's cards. Cut the shoe's order into
blocks: the split hands' second cards (with the 8s split again), each hand's further cards
(its "play"), the dealer's draws. Whether a block is complete depends only on its own cards
and on blocks before it that decide its rule (a second card on the 8s split so far; a
hand's play on its two cards; the dealer's draws on nothing). Any order of given block
contents is equally likely (a product of falling factorials of the card counts over the
shoe's), so the blocks may be taken in another order that keeps those dependencies: for
hand k, the second cards up to hand k's, then hand k's play, then the dealer's draws, then
the rest. P(hand k exists and ties) is therefore a sum over the second cards dealt up to
hand k and hand k's own cards only, with the dealer's P(18) for exactly those removed: the
cards of the other hands' play cannot change it. The figures are exact (binary floating
point) for a single area played heads-up against the dealer; other areas' cards are not
modelled. The test checks them against every order of a small shoe played card by card.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from dealer_assist.odds.rulesets import RuleSet
from dealer_assist.odds.strategy import Chart

UP = 8  # the dealer's permanent 8 (3.14)


@dataclass(frozen=True)
class Tie18:
    first_hand: float  # P(tie) of the wager placed before the deal (on the first hand formed)
    split_hands: float  # per wager placed on a hand formed by splitting (3.23.1): wins / wagers
    by_hand: tuple[float, ...]  # P(tie | hand k exists), k = 2 .. max_hands, in the order formed
    hands_expected: tuple[float, ...]  # P(hand k exists), k = 2 .. max_hands, per split of 8s
    p_split: float  # P(the area splits 8s)


def _total(hard: int, ace: bool) -> int:
    return hard + 10 if ace and hard + 10 <= 21 else hard


def tie18_exact(rules: RuleSet, chart: Chart) -> Tie18:
    shoe = rules.shoe
    n0 = sum(shoe)
    max_hands = rules.max_hands
    eighteen = dealer_eighteens(rules.hits_soft_17)

    @cache
    def d18(removed: tuple[int, ...]) -> float:
        """P(the dealer ends on 18 from the permanent 8), ``removed`` out of the shoe."""
        left = [shoe[i] - removed[i] for i in range(10)]
        n = n0 - sum(removed)
        total = 0.0
        for orders, need, m in eighteen:
            w = orders
            for i, k in need:
                c = left[i]
                for j in range(k):
                    w *= c - j
            if w:
                total += w / _falling(n, m)
        return total

    def draws(removed: tuple[int, ...]) -> list[tuple[int, float, tuple[int, ...]]]:
        n = n0 - sum(removed)
        out = []
        for i in range(10):
            c = shoe[i] - removed[i]
            if c > 0:
                lst = list(removed)
                lst[i] += 1
                out.append((i + 1, c / n, tuple(lst)))
        return out

    @cache
    def played(removed: tuple[int, ...], hard: int, ace: bool) -> float:
        """P(a hand hit or stood by the chart ends on 18 and the dealer too), from ``removed``."""
        if hard > 18:
            return 0.0  # a hard 19 or more never comes down to 18
        if not chart.hits(hard, ace, UP):
            return d18(removed) if _total(hard, ace) == 18 else 0.0
        return sum(p * played(nr, hard + v, ace or v == 1) for v, p, nr in draws(removed))

    @cache
    def doubled(removed: tuple[int, ...], hard: int, ace: bool) -> float:
        """The same for a doubled hand: one card, then it stands (3.26)."""
        return sum(p * d18(nr) for v, p, nr in draws(removed)
                   if hard + v <= 21 and _total(hard + v, ace or v == 1) == 18)

    def split_hand(removed: tuple[int, ...], v: int) -> float:
        """A hand of 8 and its second card ``v`` formed by splitting (it may double, 3.26.2)."""
        hard, ace = UP + v, v == 1
        return doubled(removed, hard, ace) if chart.doubles(hard, ace, UP) else played(removed, hard, ace)

    # A vector: P(hand k exists and ties) for k = 1..max_hands, then P(hand k exists).
    Vec = tuple[float, ...]

    @cache
    def second_cards(removed: tuple[int, ...], hands: int, idx: int) -> Vec:
        """Hand ``idx`` (1-based) gets its second card next; ``hands`` exist; ``removed``: the
        first card and the second cards dealt so far (the other hands' play is not needed)."""
        if idx > hands:
            return (0.0,) * max_hands + tuple(1.0 if k <= hands else 0.0 for k in range(1, max_hands + 1))
        acc = [0.0] * (2 * max_hands)
        for v, p, nr in draws(removed):
            if v == UP and hands < max_hands:
                sub = second_cards(nr, hands + 1, idx)  # 3.23.3: split again
                tie = 0.0
            else:
                sub = second_cards(nr, hands, idx + 1)
                tie = split_hand(nr, v)
            for j in range(2 * max_hands):
                acc[j] += p * sub[j]
            acc[idx - 1] += p * tie
        return tuple(acc)

    # The first card dealt to the permanent 8 (a surrendered hand's wager loses: no tie).
    first = 0.0
    split_vec = [0.0] * (2 * max_hands)
    p_split = 0.0
    zero = (0,) * 10
    for v, p, nr in draws(zero):
        hard, ace = UP + v, v == 1
        action = chart.initial_action(UP, v, UP, _allowed(v == UP))
        if action == "split":
            p_split += p
            vec = second_cards(nr, 2, 1)  # the dealt 8 is the second hand's first card
            for j in range(2 * max_hands):
                split_vec[j] += p * vec[j]
            first += p * vec[0]
        elif action == "double":
            first += p * doubled(nr, hard, ace)
        elif action == "hit":
            first += p * played(nr, hard, ace)
        elif action == "stand":
            first += p * (d18(nr) if _total(hard, ace) == 18 else 0.0)
    ties = split_vec[:max_hands]
    formed = split_vec[max_hands:]
    wins = sum(ties[1:])
    wagers = sum(formed[1:])
    return Tie18(
        first_hand=first,
        split_hands=wins / wagers if wagers else 0.0,
        by_hand=tuple(t / f if f else 0.0 for t, f in zip(ties[1:], formed[1:], strict=True)),
        hands_expected=tuple(f / p_split if p_split else 0.0 for f in formed[1:]),
        p_split=p_split,
    )


def _allowed(pair: bool) -> Callable[[str], bool]:
    """What the first two cards may do: split only a pair of 8s (1.1.11)."""
    return lambda action: action != "split" or pair


def _falling(n: int, m: int) -> int:
    out = 1
    for j in range(m):
        out *= n - j
    return out


@cache
def dealer_eighteens(h17: bool) -> tuple[tuple[int, tuple[tuple[int, int], ...], int], ...]:
    """The dealer's draws from the permanent 8 that end on 18 (3.33), by multiset: (number of
    orders in which the dealer draws exactly these cards and stops on 18, (value index, count)
    pairs, number of cards). Any one order of m given cards has the same probability
    (product of the counts' falling factorials over the shoe's), so P(18) is a sum over these."""
    found: dict[tuple[int, ...], int] = {}

    def walk(hard: int, ace: bool, drawn: list[int]) -> None:
        total = hard + 10 if ace and hard + 10 <= 21 else hard
        if total >= 17 and not (h17 and total == 17 and ace and hard == 7):
            if total == 18:
                key = tuple(drawn.count(v) for v in range(1, 11))
                found[key] = found.get(key, 0) + 1
            return
        for v in range(1, 11):
            drawn.append(v)
            walk(hard + v, ace or v == 1, drawn)
            drawn.pop()

    walk(UP, False, [])
    return tuple((orders, tuple((i, k) for i, k in enumerate(key) if k), sum(key)) for key, orders in found.items())
