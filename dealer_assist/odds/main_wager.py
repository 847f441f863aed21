"""The main wager's house edge by combinatorial analysis (binary floats: a statistic, not money).

Method (docs/odds.md has the details):

* For each dealer first card and each initial player hand, every decision is taken on the
  exact composition of the cards seen (the player's cards and the dealer's first card are
  removed from the shoe), and the dealer's final-total probabilities are computed exactly
  for the cards removed, by a recursion over the dealer's draws without replacement.
* Hit and stand are compared recursively on the exact composition of every hand reached
  (composition-dependent optimal play); double, split and surrender on the initial hand.
* Splits: each split hand is valued on the composition of the pair and its own cards only
  (the other split hands' cards are not removed), and resplits are counted with a constant
  chance of drawing the pair card (the method of the Wizard of Odds' "Appendix 9" tables).
* With a hole card (the standard US game) the dealer peeks: hands are valued given that the
  dealer has no blackjack. Without one, a dealer blackjack is one more dealer outcome, and
  what it takes from doubled and split hands follows the game (all, or the original wager).
* Insurance and even money are separate decisions and are never taken here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from dealer_assist.odds.rulesets import RuleSet
from dealer_assist.odds.strategy import Chart

# Dealer outcome vector: 17, 18, 19, 20, 21, bust, blackjack.
BUST = 5
BLACKJACK = 6
Comp = tuple[int, ...]  # the player's cards taken from the shoe, by point value (index 0 = aces)

ACTIONS = ("stand", "hit", "double", "split", "surrender")


@dataclass
class HandDecision:
    """The best play of one initial hand against one dealer card, with every option's value."""

    cards: tuple[int, ...]  # point values (1 = ace), the permanent 8 included
    up: int
    probability: float
    values: dict[str, float]
    best: str


@dataclass
class MainWagerResult:
    rules: RuleSet
    expected_return: float  # per unit of original wager (negative: the house's edge)
    decisions: list[HandDecision] = field(default_factory=list)
    # The chosen play of the Dueling 8's hands the side bets look at: (first card) -> action.
    first_card_action: dict[int, str] = field(default_factory=dict)
    main_bonus_hit: dict[int, bool] = field(default_factory=dict)

    @property
    def house_edge(self) -> float:
        return -self.expected_return


def add_card(comp: Comp, v: int) -> Comp:
    lst = list(comp)
    lst[v - 1] += 1
    return tuple(lst)


def hand_total(hard: int, ace: bool) -> int:
    return hard + 10 if ace and hard + 10 <= 21 else hard


class Versus:
    """Everything against one dealer first card ``up``."""

    def __init__(self, rules: RuleSet, up: int, exact_cards: int, chart: Chart | None = None) -> None:
        self.rules = rules
        self.chart = chart  # None: the optimal play; else the printed chart's (strategy.py)
        self.exact_cards = exact_cards
        self.up = up
        shoe = list(rules.shoe)
        if not rules.permanent_eight:
            shoe[up - 1] -= 1  # the dealer's first card left the shoe
        self.shoe = tuple(shoe)
        self.n = sum(shoe)
        self.h17 = rules.hits_soft_17
        self.can_bj = rules.blackjack_pays is not None and up in (1, 10)
        self.peek = self.can_bj and rules.hole_card == "peek"
        self.enhc = self.can_bj and rules.hole_card != "peek"
        # Peek: the hole card is known not to complete a blackjack.
        self.excluded = (10 if up == 1 else 1) if self.peek else 0
        self._dealer: dict[Comp, tuple[float, ...]] = {}
        self._hs: dict[tuple[Comp, int, bool, int, bool], float] = {}
        self._hits: set[tuple[Comp, int, bool, int, bool]] = set()  # where hitting was the better play

    # ------------------------------------------------------------ the shoe
    def draw_probs(self, comp: Comp) -> list[float]:
        """P(next card has value v+1) for the player, the cards of ``comp`` removed."""
        counts = [self.shoe[i] - comp[i] for i in range(10)]
        n = self.n - sum(comp)
        if not self.peek:
            return [c / n for c in counts]
        # The hole card is a card not completing the dealer's blackjack (peek): it is
        # uniformly one of the other n - c_x cards and is not available to the player.
        x = self.excluded - 1
        others = n - counts[x]
        return [(c - (c / others if i != x else 0.0)) / (n - 1) for i, c in enumerate(counts)]

    def dealer(self, comp: Comp) -> tuple[float, ...]:
        """The dealer's final outcome probabilities, the player's cards ``comp`` removed."""
        found = self._dealer.get(comp)
        if found is not None:
            return found
        if sum(comp) > self.exact_cards:
            # Beyond ``exact_cards`` player cards the dealer's probabilities are those with the
            # first ``exact_cards`` of them removed (the highest values are left out first).
            lst = list(comp)
            extra = sum(comp) - self.exact_cards
            for i in range(9, -1, -1):
                take = min(extra, lst[i])
                lst[i] -= take
                extra -= take
            result = self.dealer(tuple(lst))
            self._dealer[comp] = result
            return result
        counts = [self.shoe[i] - comp[i] for i in range(10)]
        result = dealer_outcomes(counts, self.up, self.h17, self.peek, self.enhc)
        self._dealer[comp] = result
        return result

    def dealer_bj_probability(self, comp: Comp) -> float:
        """P(the dealer's second card completes a blackjack), the cards of ``comp`` removed."""
        if not self.can_bj:
            return 0.0
        x = (10 if self.up == 1 else 1) - 1
        return (self.shoe[x] - comp[x]) / (self.n - sum(comp))

    # ------------------------------------------------------------ values
    def stand_parts(self, comp: Comp, total: int) -> tuple[float, float]:
        """(value of standing on ``total`` apart from a dealer blackjack, P(dealer blackjack))."""
        d = self.dealer(comp)
        ev = d[BUST]
        for k in range(5):
            dt = 17 + k
            if total > dt:
                ev += d[k]
            elif total < dt:
                ev -= d[k]
        return ev, d[BLACKJACK]

    def hit_stand(self, comp: Comp, hard: int, ace: bool, bj_cost: int, split_aces: bool = False) -> float:
        """Best of hit and stand for a hand of one unit; a dealer blackjack costs ``bj_cost`` units."""
        key = (comp, hard, ace, bj_cost, split_aces)
        found = self._hs.get(key)
        if found is not None:
            return found
        total = hand_total(hard, ace)
        ev, pbj = self.stand_parts(comp, total)
        best = ev - bj_cost * pbj
        if total < 21 and not split_aces and (hard < 17 or (ace and hard + 10 <= 21 and hard + 10 < 19)):
            # Hitting a hard 17 or more, or a soft 19 or more, is never the better play.
            hit = self.hit_value(comp, hard, ace, bj_cost)
            chart = self.chart
            if (hit > best) if chart is None else chart.hits(hard, ace, self.up):
                best = hit
                self._hits.add(key)
        self._hs[key] = best
        return best

    def plays_hit(self, comp: Comp, hard: int, ace: bool, bj_cost: int) -> bool:
        """Whether the strategy hits this hand (rather than stands)."""
        self.hit_stand(comp, hard, ace, bj_cost)
        return (comp, hard, ace, bj_cost, False) in self._hits

    def hit_value(self, comp: Comp, hard: int, ace: bool, bj_cost: int) -> float:
        probs = self.draw_probs(comp)
        value = 0.0
        for i in range(10):
            p = probs[i]
            if p <= 0.0:
                continue
            v = i + 1
            h = hard + v
            if h > 21:
                value -= p
            else:
                value += p * self.hit_stand(add_card(comp, v), h, ace or v == 1, bj_cost)
        return value

    def double_value(self, comp: Comp, hard: int, ace: bool, bj_cost: int) -> float:
        """Double: one card, two units; a dealer blackjack takes ``bj_cost`` units of a standing hand."""
        probs = self.draw_probs(comp)
        value = 0.0
        for i in range(10):
            p = probs[i]
            if p <= 0.0:
                continue
            v = i + 1
            h = hard + v
            if h > 21:
                value -= 2 * p
            else:
                nc = add_card(comp, v)
                ev, pbj = self.stand_parts(nc, hand_total(h, ace or v == 1))
                value += p * (2 * ev - bj_cost * pbj)
        return value

    def split_doubles(self, comp: Comp, hard: int, ace: bool, bj_cost: int) -> bool:
        """Whether a two-card hand formed by splitting doubles (``bj_cost``: per unit, undoubled)."""
        if not (self.rules.double_after_split and self.may_double(hard, ace) and hand_total(hard, ace) < 21):
            return False
        if self.chart is not None:
            return self.chart.doubles(hard, ace, self.up)
        return self.double_value(comp, hard, ace, 2 * bj_cost) > self.hit_stand(comp, hard, ace, bj_cost)

    def may_double(self, hard: int, ace: bool) -> bool:
        if self.rules.double_hard_10_11_only:
            # Ace Race 3.26.1: a hard total of 10 or 11 (A-9 would count as hard 10 under
            # 3.4.2 but is a soft 20 and never doubled: left out).
            return not ace and hard in (10, 11)
        return True

    def split_value(self, v: int, comp: Comp) -> float:
        """Split a pair of ``v`` (cards ``comp`` from the shoe): the expected total of all hands."""
        rules = self.rules
        aces = v == 1
        original_rule = self.enhc and rules.hole_card == "none_original"
        per_hand_bj = 0 if original_rule else 1
        probs = self.draw_probs(comp)
        base = (v, v == 1)

        def hand_value(i: int) -> float:
            c = i + 1
            hard = base[0] + c
            ace = base[1] or c == 1
            nc = add_card(comp, c)
            if aces:  # one card to each ace (3.23.1); 21 there is not a blackjack (3.21.1)
                ev, pbj = self.stand_parts(nc, hand_total(hard, ace))
                return ev - per_hand_bj * pbj
            if self.split_doubles(nc, hard, ace, per_hand_bj):
                return self.double_value(nc, hard, ace, 2 * per_hand_bj)
            return self.hit_stand(nc, hard, ace, per_hand_bj)

        values = [hand_value(i) if probs[i] > 0 else 0.0 for i in range(10)]
        q = probs[v - 1]
        any_card = sum(probs[i] * values[i] for i in range(10))
        max_hands = 2 if aces else rules.max_hands
        n_other, n_any = split_hand_counts(q, max_hands)
        other = (any_card - q * values[v - 1]) / (1 - q) if q < 1 else 0.0
        value = n_other * other + n_any * any_card
        if original_rule:
            # Lucky 8 4.5 / Electronic 4.7: the hands that did not bust lose one original
            # wager in total to a dealer blackjack (taken as: at least one hand stands), with
            # P(dealer blackjack) as the split hands see it: averaged over where a hand ends,
            # its second card weighted as above (outcomes.py's distribution uses the same).
            d0 = self.dealer(comp)[BLACKJACK]
            seen = 0.0
            for i, w in enumerate(split_card_weights(probs, v, n_other, n_any)):
                if w > 0:
                    c = i + 1
                    seen += w * self.blackjack_seen(add_card(comp, c), v + c, aces or c == 1, aces, d0)
            value -= seen
        return value

    def blackjack_seen(self, comp: Comp, hard: int, ace: bool, split_aces: bool, bust_bj: float) -> float:
        """P(dealer blackjack) averaged over where a split hand of two cards ends as the strategy
        plays it (its cards removed; ``bust_bj`` where it busts), no per-hand blackjack cost."""
        if split_aces:
            return self.dealer(comp)[BLACKJACK]
        if self.split_doubles(comp, hard, ace, 0):
            probs = self.draw_probs(comp)
            return sum(p * (bust_bj if hard + i + 1 > 21 else self.dealer(add_card(comp, i + 1))[BLACKJACK])
                       for i, p in enumerate(probs) if p > 0)
        if hand_total(hard, ace) < 21 and self.plays_hit(comp, hard, ace, 0):
            probs = self.draw_probs(comp)
            return sum(p * (bust_bj if hard + i + 1 > 21 else
                            self.blackjack_seen(add_card(comp, i + 1), hard + i + 1, ace or i == 0, False, bust_bj))
                       for i, p in enumerate(probs) if p > 0)
        return self.dealer(comp)[BLACKJACK]


def split_card_weights(probs: list[float], v: int, n_other: float, n_any: float) -> list[float]:
    """The chance a split hand's second card has each value, averaged over the split's hands:
    ``n_other`` hands (on average) take a card that is not the pair card ``v`` (they were
    completed while they could still be split again), ``n_any`` take any card."""
    q = probs[v - 1]
    return [(n_any * p + (n_other * p / (1 - q) if i + 1 != v else 0.0)) / (n_other + n_any) if p > 0 else 0.0
            for i, p in enumerate(probs)]


@cache
def split_hand_counts(q: float, max_hands: int) -> tuple[float, float]:
    """Expected number of split hands whose second card is not the pair card (resplit while
    fewer than ``max_hands``), and of hands completed when no more resplits are allowed."""

    @cache
    def f(hands: int, pending: int) -> tuple[float, float]:
        if pending == 0:
            return (0.0, 0.0)
        if hands < max_hands:
            a1, b1 = f(hands + 1, pending + 1)
            a2, b2 = f(hands, pending - 1)
            return (q * a1 + (1 - q) * (a2 + 1), q * b1 + (1 - q) * b2)
        a, b = f(hands, pending - 1)
        return (a, b + 1)

    return f(2, 2)


def dealer_outcomes(counts: list[int], up: int, h17: bool, peek: bool, enhc: bool) -> tuple[float, ...]:
    """P(dealer ends on 17..21, busts, has blackjack) drawing from ``counts`` (by value).

    ``peek``: the second card is known not to complete a blackjack. ``enhc``: a blackjack on
    the second card is its own outcome. The first card ``up`` is not in ``counts``.

    A forward recursion over the multiset of cards the dealer has drawn: every order of
    drawing the same cards has the same probability without replacement, and the total
    (hence whether the dealer draws on) depends on the multiset only.
    """
    res = [0.0] * 7
    n0 = sum(counts)
    excluded = (10 if up == 1 else 1) if (peek or enhc) and up in (1, 10) else 0
    # level: key (drawn cards, 4 bits per value) -> [probability, hard total, ace, cards drawn]
    level: dict[int, list[float]] = {}
    # The second card: with a peek it is not the blackjack card; without a hole card the
    # blackjack is an outcome of its own.
    denom = n0 - counts[excluded - 1] if peek and excluded else n0
    for i in range(10):
        c = counts[i]
        if not c:
            continue
        if excluded and i + 1 == excluded:
            if enhc:
                res[BLACKJACK] += c / n0
            continue
        _step(level, res, 1 << (4 * i), c / denom, up + i + 1, up == 1 or i == 0, h17)
    drawn = 1
    while level:
        nxt: dict[int, list[float]] = {}
        n = n0 - drawn
        get = nxt.get
        for key, (p, hard_f, ace_f) in level.items():
            ace0 = ace_f > 0.5
            hard0 = int(hard_f)
            k = key
            for i in range(10):
                c = counts[i] - (k & 15)
                k >>= 4
                if c <= 0:
                    continue
                q = p * c / n
                hard = hard0 + i + 1
                ace = ace0 or i == 0
                # _step, inlined (the hot loop): a final total, or the state carried on.
                total = hard + 10 if ace and hard <= 11 else hard
                if total >= 17 and not (h17 and total == 17 and ace and hard == 7):
                    res[BUST if total > 21 else total - 17] += q
                    continue
                nkey = key + (1 << (4 * i))
                state = get(nkey)
                if state is None:
                    nxt[nkey] = [q, float(hard), 1.0 if ace else 0.0]
                else:
                    state[0] += q
        level = nxt
        drawn += 1
    return tuple(res)


def _step(level: dict[int, list[float]], res: list[float], key: int, p: float, hard: int, ace: bool,
          h17: bool) -> None:
    """The dealer has drawn to ``hard``/``ace``: record a final total or carry the state on."""
    total = hard + 10 if ace and hard + 10 <= 21 else hard
    if total >= 17 and not (h17 and total == 17 and ace and hard == 7):
        res[BUST if total > 21 else total - 17] += p
        return
    state = level.get(key)
    if state is None:
        level[key] = [p, float(hard), 1.0 if ace else 0.0]
    else:
        state[0] += p


def _initial_hands(rules: RuleSet, shoe: tuple[int, ...]) -> list[tuple[tuple[int, ...], Comp, float]]:
    """The initial hands (values incl. the permanent 8, cards from the shoe, probability)."""
    n = sum(shoe)
    out: list[tuple[tuple[int, ...], Comp, float]] = []
    if rules.permanent_eight:
        for i in range(10):
            if shoe[i]:
                comp = add_card((0,) * 10, i + 1)
                out.append(((8, i + 1), comp, shoe[i] / n))
        return out
    for i in range(10):
        for j in range(i, 10):
            if i == j:
                p = shoe[i] * (shoe[i] - 1) / (n * (n - 1))
            else:
                p = 2 * shoe[i] * shoe[j] / (n * (n - 1))
            if p > 0:
                out.append(((i + 1, j + 1), add_card(add_card((0,) * 10, i + 1), j + 1), p))
    return out


# Player cards removed exactly for the dealer's probabilities (see Versus.dealer).
EXACT_CARDS = 3


def analyse(rules: RuleSet, progress: Callable[[int], None] | None = None,
            exact_cards: int = EXACT_CARDS,
            on_hand: Callable[[Versus, HandDecision, Comp], None] | None = None,
            chart: Chart | None = None) -> MainWagerResult:
    """The main wager's expected return under composition-dependent optimal play, or under
    the printed ``chart``'s play (strategy.py).

    ``on_hand`` is told every initial hand with its decision (outcomes.py walks the play).
    """
    result = MainWagerResult(rules=rules, expected_return=0.0)
    full = rules.shoe
    n_full = sum(full)
    ups = [8] if rules.permanent_eight else list(range(1, 11))
    total = 0.0
    for up in ups:
        p_up = 1.0 if rules.permanent_eight else full[up - 1] / n_full
        vs = Versus(rules, up, exact_cards, chart)
        ev_up = 0.0
        for cards, comp, p_hand in _initial_hands(rules, vs.shoe):
            value, values, best = _initial_value(vs, cards, comp)
            ev_up += p_hand * value
            decision = HandDecision(cards, up, p_up * p_hand, values, best)
            result.decisions.append(decision)
            if on_hand is not None:
                on_hand(vs, decision, comp)
            if rules.permanent_eight:
                result.first_card_action[cards[1]] = best
        total += p_up * ev_up
        if progress is not None:
            progress(up)
    result.expected_return = total
    return result


def _initial_value(vs: Versus, cards: tuple[int, ...], comp: Comp) -> tuple[float, dict[str, float], str]:
    """(value of the best play, each option's value, the best option) of an initial hand."""
    rules = vs.rules
    hard = sum(cards)
    ace = 1 in cards
    total = hand_total(hard, ace)
    bj_rule = vs.can_bj
    if rules.blackjack_pays is not None and len(cards) == 2 and total == 21 and not rules.permanent_eight:
        pays = float(rules.blackjack_pays)
        pbj = vs.dealer_bj_probability(comp) if bj_rule else 0.0
        return pays * (1 - pbj), {"stand": pays * (1 - pbj)}, "stand"
    values: dict[str, float] = {}
    bj_cost = 1 if vs.enhc else 0
    dbl_cost = (2 if rules.hole_card == "none_all" else 1) if vs.enhc else 0
    ev, pbj = vs.stand_parts(comp, total)
    values["stand"] = ev - bj_cost * pbj
    if total < 21:
        values["hit"] = vs.hit_value(comp, hard, ace, bj_cost)
        if vs.may_double(hard, ace):
            values["double"] = vs.double_value(comp, hard, ace, dbl_cost)
    if rules.main_bonus is not None and cards[1] in (6, 7):
        # Dueling 8's 1.1.2, 4.1.1: a 7 (or 6) drawn next pays the bonus on the original wager.
        other = 13 - cards[1]
        probs = vs.draw_probs(comp)
        spades, plain = rules.main_bonus
        # A given 6 or 7 is a spade with chance 1/4 (one suit in four), independently.
        bonus = probs[other - 1] * (float(plain) + (float(spades) - float(plain)) / 16)
        for k in ("hit", "double"):
            if k in values:
                values[k] += bonus
    pair = len(cards) == 2 and cards[0] == cards[1]
    if pair and (rules.split_value is None or cards[0] == rules.split_value):
        split_comp = comp
        values["split"] = vs.split_value(cards[0], split_comp)
    if rules.surrender == "late" or rules.surrender == "early" or (
            rules.surrender == "early_not_ace" and vs.up != 1):
        values["surrender"] = -0.5
    if vs.chart is not None:
        best = vs.chart.initial_action(cards[0], cards[1], vs.up, lambda a: a in values)
    else:
        best = max(values, key=lambda k: values[k])
    value = values[best]
    if vs.peek:
        # Values above are given no dealer blackjack; with one, the hand loses one unit.
        pbj = vs.dealer_bj_probability(comp)
        value = -pbj + (1 - pbj) * value
    return value, values, best



def initial_value(vs: Versus, cards: tuple[int, ...], comp: Comp) -> tuple[float, dict[str, float], str]:
    """(value of the best play, each option's value, the best option) of an initial hand
    (protect/play.py asks it of a shoe shifted by a count)."""
    return _initial_value(vs, cards, comp)
