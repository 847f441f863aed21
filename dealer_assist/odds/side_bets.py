"""Exact probabilities of the side bets' pay-table rows, by enumeration without replacement.

Every bet decided by cards from a fresh shoe is enumerated over ordered card sequences,
each card type weighted by how many copies the shoe still holds, and classified by the
engine's own classifier (dealer_assist.games.sidebets): the pay tables are read from there.
Which positions of the shoe the cards come from does not matter: the cards of a shuffled
shoe are exchangeable, and a card drawn after the players' draws (the dealer's second
card, the dealer's draws in Dueling 8's) is distributed as a fresh card because the
players' draws stop on what they have seen (a stopping time; the remaining shoe's share
of each card is a martingale).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from dealer_assist.base.cards import Card
from dealer_assist.games import composition_for, sidebets
from dealer_assist.games.sidebets import PayRow, SideBetSpec, SideCards


@dataclass
class RowFigure:
    """One pay-table row: its name, odds and probability."""

    name: str
    odds: Fraction
    probability: Fraction | None  # exact where the bet is enumerated
    probability_float: float


@dataclass
class BetFigures:
    """A bet's par-sheet figures: every row, the losing outcome and the derived measures."""

    bet: str
    rows: list[RowFigure]
    method: str
    exact: bool = True
    staked: bool = True  # False: the 6-7-8 bonus, paid on the main wager without a stake of its own
    extra: dict[str, BetFigures] = field(default_factory=dict)  # e.g. Ace Race on a split-aces hand
    lose: Fraction | None = None  # P(no row pays), counted by the enumeration itself

    @property
    def hit_frequency(self) -> float:
        return sum(r.probability_float for r in self.rows)

    @property
    def hit_frequency_exact(self) -> Fraction | None:
        if not self.exact:
            return None
        return sum((r.probability for r in self.rows if r.probability is not None), Fraction(0))

    @property
    def expected_value_exact(self) -> Fraction | None:
        """Expected net result per unit staked (exact)."""
        hit = self.hit_frequency_exact
        if hit is None:
            return None
        win = sum((r.odds * r.probability for r in self.rows if r.probability is not None), Fraction(0))
        return win - (1 - hit) if self.staked else win

    @property
    def expected_value(self) -> float:
        exact = self.expected_value_exact
        if exact is not None:
            return float(exact)
        win = sum(float(r.odds) * r.probability_float for r in self.rows)
        return win - (1 - self.hit_frequency) if self.staked else win

    @property
    def house_edge(self) -> float:
        return -self.expected_value

    @property
    def return_to_player(self) -> float:
        return 1 + self.expected_value if self.staked else self.expected_value

    @property
    def std_dev(self) -> float:
        ev = self.expected_value
        second = sum(float(r.odds) ** 2 * r.probability_float for r in self.rows)
        if self.staked:
            second += 1 - self.hit_frequency
        return math.sqrt(max(second - ev * ev, 0.0))


_LOSE = ""  # the weights' key of sequences no row pays


def _figures(bet: str, table: Sequence[PayRow], weights: dict[str, int], total: int, method: str,
             staked: bool = True) -> BetFigures:
    rows = []
    for row in table:
        p = Fraction(weights.get(row.name, 0), total)
        rows.append(RowFigure(row.name, row.odds, p, float(p)))
    return BetFigures(bet, rows, method, staked=staked, lose=Fraction(weights.get(_LOSE, 0), total))


def _name(row: PayRow | None) -> str:
    return _LOSE if row is None else row.name


def _shoe(game: str, decks: int) -> list[tuple[Card, int]]:
    return [(c, decks) for c in composition_for(game)]


def two_card_weights(game: str, decks: int, classify: Callable[[Card, Card], PayRow | None]) -> tuple[dict[str, int], int]:
    """Ordered pairs of cards from a fresh shoe, counted by the winning row."""
    shoe = _shoe(game, decks)
    n = sum(k for _, k in shoe)
    weights: dict[str, int] = {}
    for a, ka in shoe:
        for b, kb in shoe:
            w = ka * (kb - 1 if b is a else kb)
            if w <= 0:
                continue
            name = _name(classify(a, b))
            weights[name] = weights.get(name, 0) + w
    return weights, n * (n - 1)


def three_card_weights(game: str, decks: int,
                       classify: Callable[[Card, Card, Card], PayRow | None]) -> tuple[dict[str, int], int]:
    """Ordered (player's first, player's second, dealer's first) cards, counted by the winning row."""
    shoe = _shoe(game, decks)
    n = sum(k for _, k in shoe)
    weights: dict[str, int] = {}
    for a, ka in shoe:
        for b, kb in shoe:
            wab = ka * (kb - 1 if b is a else kb)
            if wab <= 0:
                continue
            for c, kc in shoe:
                w = wab * (kc - (c is a) - (c is b))
                if w <= 0:
                    continue
                name = _name(classify(a, b, c))
                weights[name] = weights.get(name, 0) + w
    return weights, n * (n - 1) * (n - 2)


_TWO = "exact: every ordered pair of the player's first two cards, without replacement"
_THREE = ("exact: every ordered triple (player's two cards, dealer's first card), without replacement "
          "(the dealing order 3.18 does not change the probabilities: the cards are exchangeable)")


def from_classifier(game: str, decks: int, spec: SideBetSpec) -> BetFigures | None:
    """A side bet decided by the player's first two cards (with the dealer's first card when it
    needs it), from the bet's own classifier: exact, for a game defined only as data. None
    for a bet decided later (a run of cards, the finished hands, the dealer's second card)."""
    if spec.stage != "initial" or spec.waits_for_dealer is not None:
        return None
    if spec.needs_dealer_up:
        w, total = three_card_weights(game, decks, lambda a, b, c: spec.classify(SideCards(player=(a, b), dealer=(c,))))
        return _figures(spec.key, spec.rows, w, total, _THREE)
    w, total = two_card_weights(game, decks, lambda a, b: spec.classify(SideCards(player=(a, b))))
    return _figures(spec.key, spec.rows, w, total, _TWO)


def pair(game: str, decks: int) -> BetFigures:
    """Pair wager 11:1 (3.15.1, 4.1): same rank (DESIGN.md), J/Q/K as their face."""
    w, total = two_card_weights(game, decks, sidebets.pair)
    return _figures("pair", (sidebets.PAIR,), w, total, _TWO)


def ace_race(decks: int) -> BetFigures:
    """Ace Race wager (1.1.1, 4.2) on the first two cards, and on a split-aces hand (3.21.1)."""
    w, total = two_card_weights("ace_race", decks, sidebets.ace_race)
    figures = _figures("ace_race", sidebets.ACE_RACE_ROWS[:4], w, total, _TWO)
    # 3.21.1: placed on a hand of split aces; wins when that hand's next card is an ace.
    # Both aces of the pair are out of the shoe; any other card unseen is exchangeable.
    shoe = _shoe("ace_race", decks)
    n = sum(k for _, k in shoe) - 2
    ace_s, ace_h = Card("A", "S"), Card("A", "H")
    weights: dict[str, int] = {}
    for c, k in shoe:
        left = k - (c is ace_s) - (c is ace_h)
        if left > 0:
            name = _name(sidebets.ace_race_after_split(ace_s, c))
            weights[name] = weights.get(name, 0) + left
    figures.extra["after_split"] = _figures(
        "ace_race", sidebets.ACE_RACE_ROWS[4:], weights, n,
        "exact: the next card to a hand of split aces, both aces removed (taken over every dealer card)")
    return figures


def lucky8(decks: int) -> BetFigures:
    w, total = three_card_weights("lucky8", decks, sidebets.lucky8)
    return _figures("lucky8", sidebets.LUCKY8_ROWS, w, total, _THREE)


def super_sevens(decks: int) -> BetFigures:
    w, total = three_card_weights("star_elements", decks, sidebets.super_sevens)
    return _figures("super_sevens", sidebets.SUPER_SEVENS_ROWS, w, total, _THREE)


def three_stars(decks: int) -> BetFigures:
    w, total = three_card_weights("star_elements", decks, sidebets.three_stars)
    return _figures("three_stars", sidebets.THREE_STARS_ROWS, w, total, _THREE)


def bet_the_set(decks: int) -> BetFigures:
    w, total = two_card_weights("electronic", decks, sidebets.bet_the_set)
    return _figures("bet_the_set", sidebets.BET_THE_SET_ROWS, w, total, _TWO + " (the shared Player hand, 3.8)")


def royal_match(decks: int) -> BetFigures:
    w, total = two_card_weights("electronic", decks, sidebets.royal_match)
    return _figures("royal_match", sidebets.ROYAL_MATCH_ROWS, w, total, _TWO + " (the shared Player hand, 3.8)")


def kings_bounty(decks: int) -> BetFigures:
    """Kings Bounty (4.4): two cards, and for two Kings of Spades the dealer's first two cards."""
    shoe = _shoe("electronic", decks)
    n = sum(k for _, k in shoe)
    total = n * (n - 1) * (n - 2) * (n - 3)
    weights: dict[str, int] = {}
    for a, ka in shoe:
        for b, kb in shoe:
            wab = ka * (kb - 1 if b is a else kb)
            if wab <= 0:
                continue
            if not sidebets.kings_bounty_needs_dealer(a, b):
                name = _name(sidebets.kings_bounty(a, b, False))
                weights[name] = weights.get(name, 0) + wab * (n - 2) * (n - 3)
                continue
            # Two Kings of Spades: the dealer's first card and (after the players) second card.
            for c, kc in shoe:
                wc = kc - (c is a) - (c is b)
                if wc <= 0:
                    continue
                for d, kd in shoe:
                    wd = kd - (d is a) - (d is b) - (d is c)
                    if wd <= 0:
                        continue
                    bj = c.points + d.points == 11 and (c.is_ace or d.is_ace)
                    name = _name(sidebets.kings_bounty(a, b, bj))
                    weights[name] = weights.get(name, 0) + wab * wc * wd
    return _figures("kings_bounty", sidebets.KINGS_BOUNTY_ROWS, weights, total,
                    "exact: the shared Player hand's two cards; for two Kings of Spades also the dealer's "
                    "first card and second card (drawn after the players: still a fresh card, see the method)")


def insurance(game: str, decks: int) -> BetFigures:
    """Insurance 2:1 (3.27; Electronic 3.11): the dealer's second card is a ten, the first an ace."""
    shoe = _shoe(game, decks)
    n = sum(k for _, k in shoe)
    aces = sum(k for c, k in shoe if c.is_ace)
    tens = sum(k for c, k in shoe if c.points == 10)
    # Averaged over the player's own cards (exchangeable): P(ten | the first card an ace).
    p = Fraction(tens, n - 1)
    row = PayRow("Insurance", Fraction(2, 1), "4.1")
    figures = BetFigures("insurance", [RowFigure(row.name, row.odds, p, float(p))], lose=Fraction(n - 1 - tens, n - 1),
                         method="exact: P(dealer's second card is a ten | first card an ace), "
                         f"{tens} tens among the {n - 1} other cards ({aces} aces in the shoe)")
    return figures


def superb8(decks: int, action_on_eights: str) -> BetFigures:
    """Superb 8's (1.1.15, 4.2): the run of 8s from the permanent 8♠, given the play of 8-8.

    ``action_on_eights``: the strategy's play of the permanent 8 with a dealt 8 (split, hit,
    double, stand or surrender). After a split every hand needs cards, so the area always
    gets the next two cards; hitting or doubling 16 gets one; standing none.
    """
    shoe = _shoe("dueling8s", decks)
    n = sum(k for _, k in shoe)
    eight = Card("8", "S")
    weights: dict[str, int] = {}
    dealt_after = {"split": 2, "hit": 1, "double": 1}.get(action_on_eights, 0)
    for a, ka in shoe:
        for b, kb in shoe:
            wab = ka * (kb - 1 if b is a else kb)
            if wab <= 0:
                continue
            for c, kc in shoe:
                w = wab * (kc - (c is a) - (c is b))
                if w <= 0:
                    continue
                dealt = [a]
                if a.rank == "8":
                    dealt += [b, c][:dealt_after]
                run = [eight]
                for x in dealt:
                    if x.rank != "8":
                        break
                    run.append(x)
                name = _name(sidebets.superb8(run))
                weights[name] = weights.get(name, 0) + w
    return _figures("superb8", sidebets.SUPERB8_ROWS, weights, n * (n - 1) * (n - 2),
                    "exact: the first three cards dealt to the area, without replacement, with the "
                    f"strategy's play of 8-8 against the 8 ({action_on_eights})")


def plus21(decks: int) -> BetFigures:
    """21+ (1.1.1, 4.3): the dealer's permanent 8 plus draws to 17 (3.33), busting with n cards."""
    counts = [0] * 10
    for c in composition_for("dueling8s"):
        counts[c.points - 1] += decks
    n0 = sum(counts)
    # sums[k]: total over draw sequences of k cards ending in a bust of the product of counts.
    sums: dict[int, int] = {}
    stands: dict[int, int] = {}

    def rec(hard: int, ace: bool, product: int, k: int) -> None:
        total = hard + 10 if ace and hard + 10 <= 21 else hard
        if hard > 21:
            sums[k] = sums.get(k, 0) + product
            return
        if total >= 17:
            stands[k] = stands.get(k, 0) + product
            return
        for i in range(10):
            c = counts[i]
            if c:
                counts[i] = c - 1
                rec(hard + i + 1, ace or i == 0, product * c, k + 1)
                counts[i] = c

    rec(8, False, 1, 0)
    weights: dict[str, Fraction] = {}
    for k, s in sums.items():
        # The permanent 8 counts as one of the dealer's cards.
        name = _name(sidebets.plus21(k + 1, True))
        weights[name] = weights.get(name, Fraction(0)) + Fraction(s, math.perm(n0, k))
    for k, s in stands.items():
        weights[_LOSE] = weights.get(_LOSE, Fraction(0)) + Fraction(s, math.perm(n0, k))
    rows = [RowFigure(r.name, r.odds, weights.get(r.name, Fraction(0)), float(weights.get(r.name, Fraction(0))))
            for r in sidebets.PLUS21_ROWS.values()]
    return BetFigures("plus21", rows, lose=weights.get(_LOSE, Fraction(0)),
                      method="exact: every sequence of the dealer's draws from the permanent 8 to a standing total "
                      "or a bust, without replacement from a full shoe (a bust with 9 or more cards has no row "
                      "and loses)")


def bonus678(decks: int, draws_on: dict[int, bool]) -> BetFigures:
    """6-7-8 Bonus (1.1.2, 4.1): paid on the main wager when the two cards drawn to the 8 are 6 and 7.

    ``draws_on[v]``: whether the strategy draws (hits or doubles) on the permanent 8 with a ``v``.
    """
    shoe = _shoe("dueling8s", decks)
    n = sum(k for _, k in shoe)
    eight = Card("8", "S")
    weights: dict[str, int] = {}
    for a, ka in shoe:
        for b, kb in shoe:
            w = ka * (kb - 1 if b is a else kb)
            if w <= 0:
                continue
            # Without a draw to the 8 and this card, the hand is not 8-6-7.
            row = sidebets.bonus678([eight, a, b]) if draws_on.get(a.points, False) else None
            name = _name(row)
            weights[name] = weights.get(name, 0) + w
    return _figures("bonus678", sidebets.BONUS678_ROWS, weights, n * (n - 1),
                    "exact: the player's first two drawn cards, without replacement, where the strategy "
                    "draws to 8-6 and 8-7; paid on the main wager, no stake of its own", staked=False)


def tie18(probability: float, split_probability: float | None = None) -> BetFigures:
    """Tie on 18 (1.1.16, 4.1: 8 to 1) from tie18.py's exact probabilities: the wager placed
    before the deal and (``split_probability``) one placed on a hand formed by splitting."""
    row = sidebets.TIE18
    figures = BetFigures("tie18", [RowFigure(row.name, row.odds, None, probability)], exact=False,
                         method="exact, card by card without replacement: the area's play by the printed chart "
                         "and the dealer's draws from the permanent 8, every resplit (3.23.3) included "
                         "(tie18.py, by exchangeability of the shoe's order); one area heads-up; binary "
                         "floating point")
    if split_probability is not None:
        figures.extra["on_split_hand"] = BetFigures(
            "tie18", [RowFigure(row.name, row.odds, None, split_probability)], exact=False,
            method="per wager placed on a hand formed by splitting 8s (3.23.1): expected wins over "
                   "expected wagers on those hands, exact as the first hand's")
    return figures
