"""The main wager's net result, as a distribution, under the strategy the analysis found.

Gives the hit frequency and the standard deviation the expected value alone does not.
Hands that are not split follow the strategy card by card with the dealer's probabilities
for the cards removed (as the expected values do). Under the printed chart with
``exact_splits`` every split is enumerated card by card (splits.SplitWalker: rows with
rigorous bounds, issue 36). Otherwise split hands follow the analysis' own
model of a split (main_wager.split_value): each hand valued on the pair and its own cards,
its second card weighted by split_card_weights, their number from the resplit chain with
the same constant chance of the pair card; the hands are taken as independent given the
dealer's outcome (which they share); that distribution sums to 1 and its mean is the
analysis' expected value (to floating-point rounding; the tests check both for every game).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache

from dealer_assist.odds import main_wager
from dealer_assist.odds.main_wager import (
    BLACKJACK,
    BUST,
    Comp,
    HandDecision,
    MainWagerResult,
    Versus,
    add_card,
    analyse,
    hand_total,
    split_card_weights,
    split_hand_counts,
)
from dealer_assist.odds.rulesets import RuleSet
from dealer_assist.odds.splits import SplitWalker
from dealer_assist.odds.strategy import Chart

Dist = dict[float, float]

# A split's card sequences less likely than this (as a chance of the whole round) are left
# out of the enumeration; their total is the distribution's ``unresolved`` mass: every row
# is exact to within it (a row's true chance lies in [row, row + unresolved]).
PRUNE = 1e-12


def _put(dist: Dist, x: float, p: float) -> None:
    if p:
        key = round(x, 6)
        dist[key] = dist.get(key, 0.0) + p


@dataclass
class Outcomes:
    """The distribution of the main wager's net result per unit of original wager."""

    dist: Dist
    stake: float = 1.0  # the expected total amount wagered per unit of original wager
    unresolved: float = 0.0  # split sequences left out of the enumeration (PRUNE), in all
    split_method: str = "model"  # "enumerated" (card by card) or "model" (main_wager.split_value)
    # Enumerated: row -> the chance left out that could fall in that row (splits.SplitWalker);
    # the row's true chance lies in [dist[row], dist[row] + bound[row]].
    bound: Dist = field(default_factory=dict)
    prune: float = 0.0  # the enumeration's threshold (a chance of the round)
    split_states: int = 0  # states the enumeration followed

    def interval(self, x: float) -> tuple[float, float]:
        """The row's chance as a rigorous interval (exact rows: a point)."""
        p = self.dist.get(x, 0.0)
        return p, p + self.bound.get(x, 0.0)

    @property
    def mean(self) -> float:
        return sum(x * p for x, p in self.dist.items())

    @property
    def hit_frequency(self) -> float:
        """P(the player's net result is positive)."""
        return sum(p for x, p in self.dist.items() if x > 0)

    @property
    def push(self) -> float:
        return self.dist.get(0.0, 0.0)

    @property
    def element_of_risk(self) -> float:
        """The house's expected win per unit of everything wagered (doubles and splits included)."""
        return -self.mean / self.stake

    @property
    def std_dev(self) -> float:
        m = self.mean
        return math.sqrt(max(sum(x * x * p for x, p in self.dist.items()) - m * m, 0.0))


def _outcome(total: int, k: int) -> int:
    """+1, 0 or -1 for a standing ``total`` against the dealer's outcome ``k`` (17..21, bust)."""
    if k == BUST:
        return 1
    dt = 17 + k
    return 1 if total > dt else 0 if total == dt else -1


class _Play:
    """Walks the strategy of one dealer card and accumulates the net results."""

    def __init__(self, vs: Versus, exact_splits: bool = False, prune: float = PRUNE) -> None:
        self.vs = vs
        self.exact_splits = exact_splits
        self.prune = prune
        self.walker: SplitWalker | None = None
        self.bound: Dist = {}
        self.states = 0
        self._played: dict[tuple[Comp, int, bool, int], Dist] = {}
        rules = vs.rules
        self.bj_cost = 1 if vs.enhc else 0
        self.dbl_cost = (2 if rules.hole_card == "none_all" else 1) if vs.enhc else 0
        self.staked = 0.0  # sum of probability x total amount wagered, per unit of original wager
        self.unresolved = 0.0  # the chance of the split card sequences left out (PRUNE)

    def stand(self, comp: Comp, total: int, bet: float, bj_cost: float, dist: Dist, p: float) -> None:
        d = self.vs.dealer(comp)
        win = d[BUST]
        push = lose = 0.0
        for k in range(5):
            dt = 17 + k
            if total > dt:
                win += d[k]
            elif total == dt:
                push += d[k]
            else:
                lose += d[k]
        _put(dist, bet, p * win)
        _put(dist, 0.0, p * push)
        _put(dist, -bet, p * lose)
        _put(dist, -bj_cost, p * d[BLACKJACK])

    def play(self, comp: Comp, hard: int, ace: bool, bj_cost: int, dist: Dist, p: float) -> None:
        """Hit or stand as the strategy does from this hand on."""
        key = (comp, hard, ace, bj_cost)
        found = self._played.get(key)
        if found is None:
            found = {}
            vs = self.vs
            total = hand_total(hard, ace)
            if total < 21 and vs.plays_hit(comp, hard, ace, bj_cost):
                self.hit(comp, hard, ace, bj_cost, found, 1.0)
            else:
                self.stand(comp, total, 1.0, bj_cost, found, 1.0)
            self._played[key] = found
        for x, w in found.items():
            dist[x] = dist.get(x, 0.0) + p * w

    def hit(self, comp: Comp, hard: int, ace: bool, bj_cost: int, dist: Dist, p: float) -> None:
        probs = self.vs.draw_probs(comp)
        for i in range(10):
            pi = probs[i]
            if pi <= 0:
                continue
            h = hard + i + 1
            if h > 21:
                _put(dist, -1.0, p * pi)
            else:
                self.play(add_card(comp, i + 1), h, ace or i == 0, bj_cost, dist, p * pi)

    def double(self, comp: Comp, hard: int, ace: bool, bj_cost: float, dist: Dist, p: float) -> None:
        probs = self.vs.draw_probs(comp)
        for i in range(10):
            pi = probs[i]
            if pi <= 0:
                continue
            h = hard + i + 1
            if h > 21:
                _put(dist, -2.0, p * pi)
            else:
                self.stand(add_card(comp, i + 1), hand_total(h, ace or i == 0), 2.0, bj_cost, dist, p * pi)

    # ------------------------------------------------------------ splits
    def split(self, v: int, comp: Comp, dist: Dist, p: float) -> None:
        """Every split of a pair of ``v`` under the chart, enumerated card by card by
        splits.SplitWalker (issue 36; tests/odds/test_split_enumeration checks it against
        every order of small shoes in exact fractions); the optimal play: the model."""
        vs = self.vs
        if vs.chart is None or not self.exact_splits:
            # Composition-dependent play: a decision at every composition reached is out of
            # reach card by card; the optimal play keeps the analysis' model of a split. The
            # chart's enumeration is what the sheets print (sheet.chart_distribution).
            self.split_model(v, comp, dist, p)
            return
        if self.walker is None:
            self.walker = SplitWalker(vs)
        rows = self.walker.split(v, comp, p, self.prune)
        for x, w in rows.dist.items():
            _put(dist, x, w)
        for x, w in rows.bound.items():
            self.bound[x] = self.bound.get(x, 0.0) + w
        self.unresolved += rows.unresolved
        self.staked += rows.staked
        self.states += rows.states

    def split_model(self, v: int, comp: Comp, dist: Dist, p: float) -> None:
        """The optimal play's splits: the analysis' model (main_wager.split_value), not enumerated."""
        vs = self.vs
        rules = vs.rules
        aces = v == 1
        original_rule = vs.enhc and rules.hole_card == "none_original"
        per_hand_bj = 0 if original_rule else 1
        probs = vs.draw_probs(comp)
        q = probs[v - 1]
        d0 = vs.dealer(comp)
        max_hands = 2 if aces else rules.max_hands
        n_other, n_any = split_hand_counts(q, max_hands)
        # joint[k]: one hand's net result with the dealer's outcome k (k = 6: blackjack).
        # A hand's second card: not the pair card for the hands completed while resplits
        # were allowed (n_other of them on average), any card for the others (n_any).
        joint: list[Dist] = [{} for _ in range(7)]
        per_hand = 0.0  # the expected amount on one split hand (2 where it doubles)
        for i, weight in enumerate(split_card_weights(probs, v, n_other, n_any)):
            if weight <= 0:
                continue
            c = i + 1
            nc, hard, ace = add_card(comp, c), v + c, aces or c == 1
            per_hand += weight * (2.0 if not aces and vs.split_doubles(nc, hard, ace, per_hand_bj) else 1.0)
            self._hand(add_card(comp, c), v + c, aces or c == 1, aces, per_hand_bj, joint, weight, d0)
        self.staked += p * (n_other + n_any) * per_hand
        # The hands, as many as the resplit chain makes (split_hand_number: the same constant
        # chance q of the pair card as the analysis' split_hand_counts), are independent given
        # the dealer's outcome k, each distributed as joint[k] / mass_k, with P(k) = mass_k (the
        # dealer's outcome as a split hand sees it). So each hand's own distribution is joint,
        # whose mean is the analysis' value of a split hand, and E[number of hands] is the
        # analysis' n_other + n_any: the mean is the analysis' split value.
        n_dist = split_hand_number(q, max_hands)
        for k in range(7):
            mass = sum(joint[k].values())
            if mass <= 0:
                continue
            one = {x: w / mass for x, w in joint[k].items()}
            # Lucky 8 4.5 / Electronic 4.7: one original wager to a dealer blackjack
            # (main_wager.split_value: with P(blackjack) = mass_6 as the hands see it).
            shift = -1.0 if (original_rule and k == BLACKJACK) else 0.0
            for n, pn in n_dist.items():
                total = _convolve_power(tuple(sorted(one.items())), n)
                for x, w in total.items():
                    _put(dist, x + shift, p * mass * pn * w)

    def _hand(self, comp: Comp, hard: int, ace: bool, split_aces: bool, bj_cost: int,
              joint: list[Dist], p: float, d0: tuple[float, ...]) -> None:
        """One split hand's final states, spread over the dealer's outcomes."""
        vs = self.vs
        total = hand_total(hard, ace)
        finals: list[tuple[Comp, int, float, float]] = []  # (comp, total, bet, probability)
        busts: list[tuple[float, float]] = []  # (bet, probability)
        if split_aces:
            finals.append((comp, total, 1.0, 1.0))
        else:
            if vs.split_doubles(comp, hard, ace, bj_cost):
                probs = vs.draw_probs(comp)
                for i in range(10):
                    if probs[i] <= 0:
                        continue
                    h = hard + i + 1
                    if h > 21:
                        busts.append((2.0, probs[i]))
                    else:
                        finals.append((add_card(comp, i + 1), hand_total(h, ace or i == 0), 2.0, probs[i]))
            else:
                self._finals(comp, hard, ace, bj_cost, 1.0, finals, busts)
        for c, t, bet, w in finals:
            d = vs.dealer(c)
            for k in range(6):
                _put(joint[k], bet * _outcome(t, k), p * w * d[k])
            _put(joint[BLACKJACK], -bet * bj_cost, p * w * d[BLACKJACK])
        for bet, w in busts:
            for k in range(7):
                _put(joint[k], -bet, p * w * d0[k])

    def _finals(self, comp: Comp, hard: int, ace: bool, bj_cost: int, w: float,
                finals: list[tuple[Comp, int, float, float]], busts: list[tuple[float, float]]) -> None:
        vs = self.vs
        total = hand_total(hard, ace)
        if total < 21 and vs.plays_hit(comp, hard, ace, bj_cost):
            probs = vs.draw_probs(comp)
            for i in range(10):
                pi = probs[i]
                if pi <= 0:
                    continue
                h = hard + i + 1
                if h > 21:
                    busts.append((1.0, w * pi))
                else:
                    self._finals(add_card(comp, i + 1), h, ace or i == 0, bj_cost, w * pi, finals, busts)
        else:
            finals.append((comp, total, 1.0, w))


@cache
def _convolve_power(one: tuple[tuple[float, float], ...], n: int) -> Dist:
    out: Dist = {0.0: 1.0}
    for _ in range(n):
        nxt: Dist = {}
        for x, p in out.items():
            for y, w in one:
                _put(nxt, x + y, p * w)
        out = nxt
    return out


@cache
def split_hand_number(q: float, max_hands: int) -> dict[int, float]:
    """P(a split ends with n hands), resplitting while fewer than ``max_hands`` (chance q a draw)."""
    out: dict[int, float] = {}

    def walk(hands: int, pending: int, p: float) -> None:
        if pending == 0:
            out[hands] = out.get(hands, 0.0) + p
            return
        if hands < max_hands:
            walk(hands + 1, pending + 1, p * q)
            walk(hands, pending - 1, p * (1 - q))
        else:
            walk(hands, pending - 1, p)

    walk(2, 2, 1.0)
    return out


def initial_outcomes(play: _Play, decision: HandDecision, comp: Comp, dist: Dist, p: float) -> None:
    """The net results of one initial hand played as ``decision`` says."""
    vs = play.vs
    rules = vs.rules
    cards = decision.cards
    hard = sum(cards)
    ace = 1 in cards
    total = hand_total(hard, ace)
    if rules.blackjack_pays is not None and len(cards) == 2 and total == 21 and not rules.permanent_eight:
        pbj = vs.dealer_bj_probability(comp)
        _put(dist, float(rules.blackjack_pays), p * (1 - pbj))
        _put(dist, 0.0, p * pbj)
        play.staked += p
        return
    if vs.peek:
        pbj = vs.dealer_bj_probability(comp)
        _put(dist, -1.0, p * pbj)
        play.staked += p * pbj
        p *= 1 - pbj
    best = decision.best
    if best != "split":
        play.staked += p * (2.0 if best == "double" else 1.0)
    if best == "surrender":
        _put(dist, -0.5, p)
    elif best == "stand":
        play.stand(comp, total, 1.0, play.bj_cost, dist, p)
    elif best == "double":
        sub: Dist = {}
        play.double(comp, hard, ace, play.dbl_cost, sub, 1.0)
        _bonus(play, cards, comp, sub, dist, p, doubled=True)
    elif best == "hit":
        sub = {}
        play.hit(comp, hard, ace, play.bj_cost, sub, 1.0)
        _bonus(play, cards, comp, sub, dist, p, doubled=False)
    elif best == "split":
        play.split(cards[0], comp, dist, p)


def _bonus(play: _Play, cards: tuple[int, ...], comp: Comp, sub: Dist, dist: Dist, p: float,
           doubled: bool) -> None:
    """Adds ``sub`` to ``dist``; for Dueling 8's 8-6 or 8-7 the 6-7-8 bonus on the 7 (or 6) drawn."""
    vs = play.vs
    rules = vs.rules
    if rules.main_bonus is None or cards[1] not in (6, 7):
        for x, w in sub.items():
            _put(dist, x, p * w)
        return
    other = 13 - cards[1]
    probs = vs.draw_probs(comp)
    p_other = probs[other - 1]
    # The hand 8-6-7 is 21: it stands (or, doubled, is done) and wins or ties the dealer.
    bonus_branch: Dist = {}
    nc = add_card(comp, other)
    play.stand(nc, 21, 2.0 if doubled else 1.0, 0.0, bonus_branch, p_other)
    rest = dict(sub)
    for x, w in bonus_branch.items():
        rest[x] = rest.get(x, 0.0) - w
    for x, w in rest.items():
        _put(dist, x, p * w)
    spades, plain = rules.main_bonus
    for x, w in bonus_branch.items():
        _put(dist, x + float(spades), p * w / 16)  # both the 6 and the 7 spades: 1 in 16
        _put(dist, x + float(plain), p * w * 15 / 16)


def analyse_with_outcomes(rules: RuleSet, exact_cards: int | None = None,
                          chart: Chart | None = None, exact_splits: bool = False,
                          prune: float = PRUNE) -> tuple[MainWagerResult, Outcomes]:
    """The main wager's analysis and the distribution of its net result under that play."""
    dist: Dist = {}
    plays: dict[int, _Play] = {}  # one walker (and its memo) per dealer card

    def hand(vs: Versus, decision: HandDecision, comp: Comp) -> None:
        play = plays.get(vs.up)
        if play is None or play.vs is not vs:
            play = plays[vs.up] = _Play(vs, exact_splits, prune)
        initial_outcomes(play, decision, comp, dist, decision.probability)

    result = analyse(rules, exact_cards=main_wager.EXACT_CARDS if exact_cards is None else exact_cards,
                     on_hand=hand, chart=chart)
    enumerated = exact_splits and chart is not None
    bound: Dist = {}
    for play in plays.values():
        for x, w in play.bound.items():
            bound[x] = bound.get(x, 0.0) + w
    return result, Outcomes(dist, sum(play.staked for play in plays.values()),
                            sum(play.unresolved for play in plays.values()),
                            "enumerated" if enumerated else "model", bound, prune if enumerated else 0.0,
                            sum(play.states for play in plays.values()))


def split_outcomes(vs: Versus, v: int, comp: Comp, exact: bool = True,
                   prune: float = PRUNE) -> tuple[Dist, float]:
    """The net results of splitting a pair of ``v`` (``comp``: the pair) against ``vs``'s dealer
    card: (distribution, unresolved mass); ``exact``: enumerated card by card (needs a chart,
    splits.SplitWalker), else the analysis' model of a split."""
    walker = _Play(vs, exact, prune)
    dist: Dist = {}
    walker.split(v, comp, dist, 1.0)
    return dist, walker.unresolved


def split_bounds(vs: Versus, v: int, comp: Comp, prune: float) -> tuple[Dist, Dist, float]:
    """(rows, bound per row, chance bounded rather than enumerated) of a split enumerated with
    ``prune`` (splits.SplitWalker)."""
    rows = SplitWalker(vs).split(v, comp, 1.0, prune)
    return rows.dist, rows.bound, rows.unresolved
