"""Dueling 8's Tie on 18 (1.1.16, 3.23.1), exactly, on the first hand and on every split hand.

The wager wins when the hand it is on and the dealer both end on 18 (8 to 1). The area's
play is the printed chart's (strategy.py), which for Dueling 8's is the optimal play of every
two- and three-card hand. Everything is enumerated card by card without replacement from the
shoe (the permanent 8s are not in it, 3.14): the first card; for 8-8 the split (3.23): the
first hand is dealt and completed before the second gets its second card, an 8 as a split
hand's second card is split again while the area has fewer than ``max_hands`` hands
(3.23.3; the new hand waits its turn behind the others); each hand plays by its total (a
two-card hand may double, 3.26.2); then the dealer draws from the permanent 8 to 17 (3.33)
from what is left. The dealer's P(18) is computed for the exact cards left (every card of
every hand of the area removed), so the figures are exact (binary floating point) for a
single area played heads-up against the dealer. Other areas' cards are not modelled.
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


def tie18_exact(rules: RuleSet, chart: Chart) -> Tie18:
    shoe = rules.shoe
    n0 = sum(shoe)
    max_hands = rules.max_hands
    h17 = rules.hits_soft_17

    eighteen = dealer_eighteens(h17)

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

    # A vector: (E[D18 at the end], E[1{hand k ends on 18} x D18] for k = 1..max_hands,
    # P(hand k is formed) for k = 1..max_hands), given the cards removed so far.
    Vec = tuple[float, ...]
    width = 1 + 2 * max_hands

    def add(acc: list[float], p: float, v: Vec) -> None:
        for j in range(width):
            acc[j] += p * v[j]

    @cache
    def after(removed: tuple[int, ...], hands: int, idx: int) -> Vec:
        """Hand ``idx`` (1-based) is next to get its second card; ``hands`` exist."""
        if idx > hands:
            formed = tuple(1.0 if k <= hands else 0.0 for k in range(1, max_hands + 1))
            return (d18(removed),) + (0.0,) * max_hands + formed
        return second_card(removed, hands, idx)

    @cache
    def second_card(removed: tuple[int, ...], hands: int, idx: int) -> Vec:
        acc = [0.0] * width
        for v, p, nr in draws(removed):
            if v == UP and hands < max_hands:
                add(acc, p, second_card(nr, hands + 1, idx))  # 3.23.3: split again
            else:
                hard, ace = UP + v, v == 1
                if chart.doubles(hard, ace, UP):
                    add(acc, p, one_card(nr, hands, idx, hard, ace))
                else:
                    add(acc, p, play(nr, hands, idx, hard, ace))
        return tuple(acc)

    def finish(removed: tuple[int, ...], hands: int, idx: int, total: int) -> Vec:
        nxt = after(removed, hands, idx + 1)
        if total != 18:
            return nxt
        lst = list(nxt)
        lst[idx] += nxt[0]
        return tuple(lst)

    @cache
    def one_card(removed: tuple[int, ...], hands: int, idx: int, hard: int, ace: bool) -> Vec:
        acc = [0.0] * width
        for v, p, nr in draws(removed):
            h = hard + v
            a = ace or v == 1
            total = h + 10 if a and h + 10 <= 21 else h
            add(acc, p, finish(nr, hands, idx, total if h <= 21 else 0))
        return tuple(acc)

    @cache
    def play(removed: tuple[int, ...], hands: int, idx: int, hard: int, ace: bool) -> Vec:
        total = hard + 10 if ace and hard + 10 <= 21 else hard
        if hard > 21:
            return finish(removed, hands, idx, 0)
        if not chart.hits(hard, ace, UP):
            return finish(removed, hands, idx, total)
        acc = [0.0] * width
        for v, p, nr in draws(removed):
            add(acc, p, play(nr, hands, idx, hard + v, ace or v == 1))
        return tuple(acc)

    # The first card dealt to the permanent 8 (a surrendered hand's wager loses: no tie).
    first = 0.0
    split_vec = [0.0] * width
    p_split = 0.0
    zero = (0,) * 10
    for v, p, nr in draws(zero):
        hard, ace = UP + v, v == 1
        action = chart.initial_action(UP, v, UP, _allowed(v == UP))
        if action == "split":
            p_split += p
            vec = second_card(nr, 2, 1)  # the dealt 8 is the second hand's first card
            add(split_vec, p, vec)
            first += p * vec[1]
        elif action == "double":
            first += p * one_card(nr, 1, 1, hard, ace)[1]
        elif action == "hit":
            first += p * play(nr, 1, 1, hard, ace)[1]
        elif action == "stand":
            first += p * finish(nr, 1, 1, hard + 10 if ace and hard + 10 <= 21 else hard)[1]
    ties = split_vec[1:1 + max_hands]
    formed = split_vec[1 + max_hands:]
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
