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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from dealer_assist.base.cards import Card
from dealer_assist.games import GAMES, composition_for
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


CardCounts = Sequence[tuple[Card, int]]  # each distinct card once, with its copies in the shoe


def _shoe(game: str, decks: int) -> list[tuple[Card, int]]:
    return [(c, decks) for c in composition_for(game)]


def two_card_weights(game: str, decks: int, classify: Callable[[Card, Card], PayRow | None],
                     shoe: CardCounts | None = None) -> tuple[dict[str, int], int]:
    """Ordered pairs of cards from a fresh shoe (or ``shoe``, the cards left), counted by the winning row."""
    shoe = shoe if shoe is not None else _shoe(game, decks)
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


def three_card_weights(game: str, decks: int, classify: Callable[[Card, Card, Card], PayRow | None],
                       shoe: CardCounts | None = None) -> tuple[dict[str, int], int]:
    """Ordered (player's first, player's second, dealer's first) cards from a fresh shoe (or
    ``shoe``, the cards left), counted by the winning row."""
    shoe = shoe if shoe is not None else _shoe(game, decks)
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


class UnrateableBet(ValueError):
    """A side bet the odds cannot rate from its stage: named, never rated 0 %."""

    def __init__(self, game: str, spec: SideBetSpec, why: str) -> None:
        super().__init__(f"the odds cannot rate {spec.name!r} ({spec.key}) of {game}: {why}")
        self.bet = spec.key


@dataclass(frozen=True)
class Play:
    """What the main wager's analysis tells the side bets: the strategy's play of each first
    card with a permanent 8 (Dueling 8's), and P(tie) from tie18.py where the game has it."""

    first_card_action: dict[int, str] = field(default_factory=dict)
    tie: float | None = None
    tie_split: float | None = None


def rate(game: str, decks: int, spec: SideBetSpec, play: Play | None = None) -> BetFigures:
    """The figures of ``spec``, enumerated from the stage it settles at (UnrateableBet if none fits)."""
    play = play or Play()
    if spec.stage == "initial" and spec.waits_for_dealer is None and spec.split_hand not in (None, "aces"):
        raise UnrateableBet(game, spec, f"no enumeration of a wager placed on a split hand ({spec.split_hand})")
    figures = _rate(game, _shoe(game, decks), spec, play)
    if spec.stage == "initial" and spec.waits_for_dealer is None and spec.split_hand == "aces" \
            and spec.split_classify is not None:
        figures.extra["after_split"] = _on_split_aces(game, decks, spec)
    return figures


def rate_remaining(game: str, left: Mapping[Card, int], spec: SideBetSpec, play: Play | None = None) -> BetFigures:
    """The figures of the wager on ``spec`` placed before the next round's deal, the cards
    coming from ``left`` (a shoe's remaining cards, by card) instead of a fresh shoe: the same
    enumerations over those counts (the cards left are exchangeable as a fresh shoe's are).
    A wager placed on a split hand is not rated here. UnrateableBet as :func:`rate`."""
    shoe = [(c, k) for c, k in left.items() if k > 0]
    return _rate(game, shoe, spec, play or Play(), "the shoe's remaining cards")


def _rate(game: str, shoe: CardCounts, spec: SideBetSpec, play: Play, source: str = "a full shoe") -> BetFigures:
    """The wager placed before the deal, from ``shoe`` (:func:`rate`, :func:`rate_remaining`)."""
    rules = GAMES[game]
    if spec.stage == "initial":
        if spec.waits_for_dealer is not None:
            return _with_dealer_second(game, shoe, spec)
        return _first_cards(game, shoe, spec)
    if spec.stage == "run" and rules.permanent_eight and spec.run_rank:
        return _run(game, shoe, spec, play.first_card_action.get(_POINTS[spec.run_rank], "stand"))
    if spec.stage == "final" and spec.decided_by == "dealer":
        return _dealer_hand(game, shoe, spec, source)
    if spec.stage == "final" and spec.decided_by == "tie" and play.tie is not None:
        return _tie(spec, play.tie, play.tie_split)
    if spec.stage == "final" and spec.decided_by == "drawn" and rules.permanent_eight:
        return _drawn_to_eight(game, shoe, spec, {v: a in ("hit", "double") for v, a in
                                                  play.first_card_action.items()})
    raise UnrateableBet(game, spec, f"no enumeration for the {spec.stage!r} stage"
                        + (f" decided by {spec.decided_by!r}" if spec.decided_by else ""))


_POINTS = {"A": 1, "J": 10, "Q": 10, "K": 10, **{str(v): v for v in range(2, 11)}}


def _method(game: str, base: str) -> str:
    rules = GAMES[game]
    return base + (f" (the shared Player hand, {rules.clause('shared_hand')})" if rules.shared_hand else "")


def _first_cards(game: str, shoe: CardCounts, spec: SideBetSpec) -> BetFigures:
    """Decided by the player's first two cards, with the dealer's first when ``needs_dealer_up``."""
    rows = tuple(r for r in spec.rows if r not in spec.split_rows)
    if spec.needs_dealer_up:
        w, total = three_card_weights(game, 0, lambda a, b, c: spec.classify(SideCards(player=(a, b), dealer=(c,))),
                                      shoe)
        return _figures(spec.key, rows, w, total, _method(game, _THREE))
    w, total = two_card_weights(game, 0, lambda a, b: spec.classify(SideCards(player=(a, b))), shoe)
    return _figures(spec.key, rows, w, total, _method(game, _TWO))


def _on_split_aces(game: str, decks: int, spec: SideBetSpec) -> BetFigures:
    """Placed on a hand of split aces (Ace Race 3.21.1): wins on the hand's next card."""
    assert spec.split_classify is not None
    # Both aces of the pair are out of the shoe; any other card unseen is exchangeable.
    shoe = _shoe(game, decks)
    n = sum(k for _, k in shoe) - 2
    ace_s, ace_h = Card("A", "S"), Card("A", "H")
    weights: dict[str, int] = {}
    for c, k in shoe:
        left = k - (c is ace_s) - (c is ace_h)
        if left > 0:
            name = _name(spec.split_classify(SideCards(player=(ace_s, c))))
            weights[name] = weights.get(name, 0) + left
    return _figures(spec.key, spec.split_rows, weights, n,
                    "exact: the next card to a hand of split aces, both aces removed (taken over every dealer card)")


def _with_dealer_second(game: str, shoe: CardCounts, spec: SideBetSpec) -> BetFigures:
    """Two cards, and where ``waits_for_dealer`` the dealer's first two cards (Kings Bounty 4.4)."""
    assert spec.waits_for_dealer is not None
    n = sum(k for _, k in shoe)
    total = n * (n - 1) * (n - 2) * (n - 3)
    weights: dict[str, int] = {}
    for a, ka in shoe:
        for b, kb in shoe:
            wab = ka * (kb - 1 if b is a else kb)
            if wab <= 0:
                continue
            if not spec.waits_for_dealer(SideCards(player=(a, b))):
                name = _name(spec.classify(SideCards(player=(a, b))))
                weights[name] = weights.get(name, 0) + wab * (n - 2) * (n - 3)
                continue
            # The dealer's first card and (after the players) second card.
            for c, kc in shoe:
                wc = kc - (c is a) - (c is b)
                if wc <= 0:
                    continue
                for d, kd in shoe:
                    wd = kd - (d is a) - (d is b) - (d is c)
                    if wd <= 0:
                        continue
                    bj = c.points + d.points == 11 and (c.is_ace or d.is_ace)
                    name = _name(spec.classify(SideCards(player=(a, b), dealer=(c, d), dealer_blackjack=bj)))
                    weights[name] = weights.get(name, 0) + wab * wc * wd
    where = "the shared Player hand's" if GAMES[game].shared_hand else "the player's"
    return _figures(spec.key, spec.rows, weights, total,
                    f"exact: {where} two cards; for two Kings of Spades also the dealer's "
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


def _run(game: str, shoe: CardCounts, spec: SideBetSpec, action_on_pair: str) -> BetFigures:
    """A run of ``run_rank`` cards from the permanent 8♠ (Superb 8's 1.1.15, 4.2), given the play of 8-8.

    ``action_on_pair``: the strategy's play of the permanent 8 with a dealt 8 (split, hit,
    double, stand or surrender). After a split every hand needs cards, so the area always
    gets the next two cards; hitting or doubling 16 gets one; standing none.
    """
    n = sum(k for _, k in shoe)
    eight = Card("8", "S")
    weights: dict[str, int] = {}
    dealt_after = {"split": 2, "hit": 1, "double": 1}.get(action_on_pair, 0)
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
                if a.rank == spec.run_rank:
                    dealt += [b, c][:dealt_after]
                run = [eight]
                for x in dealt:
                    if x.rank != spec.run_rank:
                        break
                    run.append(x)
                name = _name(spec.classify(SideCards((), run=run)))
                weights[name] = weights.get(name, 0) + w
    return _figures(spec.key, spec.rows, weights, n * (n - 1) * (n - 2),
                    "exact: the first three cards dealt to the area, without replacement, with the "
                    f"strategy's play of 8-8 against the 8 ({action_on_pair})")


_BY_POINTS = tuple(Card("A" if v == 1 else str(v), "S") for v in range(1, 11))


def _dealer_hand(game: str, shoe: CardCounts, spec: SideBetSpec, source: str = "a full shoe") -> BetFigures:
    """Decided by the dealer's finished hand: its number of cards and its total (21+ 4.3).

    The dealer's cards, by point value, from the permanent 8 (or from none) to a standing
    total (3.33/3.34: stands on 17, hits soft 17 where the game does) or a bust; the
    classifier sees cards of those point values (a bet decided by ranks or suits is not of
    this kind)."""
    rules = GAMES[game]
    counts = [0] * 10
    for c, k in shoe:
        counts[c.points - 1] += k
    n0 = sum(counts)
    start = (Card("8", "S"),) if rules.permanent_eight else ()
    # sums[(k, row)]: total over draw sequences of k cards, classified ``row``, of the product of counts.
    sums: dict[tuple[int, str], int] = {}
    drawn: list[Card] = []

    def rec(hard: int, ace: bool, product: int) -> None:
        total = hard + 10 if ace and hard + 10 <= 21 else hard
        soft = total != hard
        finished = hard > 21 or total > 17 or total == 17 and not (soft and rules.dealer_hits_soft_17)
        if finished:
            cards = start + tuple(drawn)
            name = _name(spec.classify(SideCards((), dealer=cards, dealer_total=total,
                                                 dealer_blackjack=len(cards) == 2 and total == 21)))
            key = (len(drawn), name)
            sums[key] = sums.get(key, 0) + product
            return
        for i in range(10):
            c = counts[i]
            if c:
                counts[i] = c - 1
                drawn.append(_BY_POINTS[i])
                rec(hard + i + 1, ace or i == 0, product * c)
                drawn.pop()
                counts[i] = c

    rec(sum(c.points for c in start), any(c.is_ace for c in start), 1)
    weights: dict[str, Fraction] = {}
    for (k, name), s in sums.items():
        weights[name] = weights.get(name, Fraction(0)) + Fraction(s, math.perm(n0, k))
    rows = [RowFigure(r.name, r.odds, weights.get(r.name, Fraction(0)), float(weights.get(r.name, Fraction(0))))
            for r in spec.rows]
    origin = "from the permanent 8" if rules.permanent_eight else "from the first"
    unpaid = (f"a bust with {spec.dealer_cards_paid + 1} or more cards has no row and loses" if spec.dealer_cards_paid
              else "a hand no row names loses")
    return BetFigures(spec.key, rows, lose=weights.get(_LOSE, Fraction(0)),
                      method=f"exact: every sequence of the dealer's draws {origin} to a standing total "
                      f"or a bust, without replacement from {source} ({unpaid})")


def _drawn_to_eight(game: str, shoe: CardCounts, spec: SideBetSpec, draws_on: dict[int, bool]) -> BetFigures:
    """Paid on the main wager on the cards drawn to the permanent 8 (6-7-8 Bonus 1.1.2, 4.1).

    ``draws_on[v]``: whether the strategy draws (hits or doubles) on the permanent 8 with a ``v``.
    """
    n = sum(k for _, k in shoe)
    eight = Card("8", "S")
    weights: dict[str, int] = {}
    for a, ka in shoe:
        for b, kb in shoe:
            w = ka * (kb - 1 if b is a else kb)
            if w <= 0:
                continue
            # Without a draw to the 8 and this card, the hand is not 8-6-7.
            row = spec.classify(SideCards((eight, a, b))) if draws_on.get(a.points, False) else None
            name = _name(row)
            weights[name] = weights.get(name, 0) + w
    return _figures(spec.key, spec.rows, weights, n * (n - 1),
                    "exact: the player's first two drawn cards, without replacement, where the strategy "
                    "draws to 8-6 and 8-7; paid on the main wager, no stake of its own", staked=False)


def _tie(spec: SideBetSpec, probability: float, split_probability: float | None = None) -> BetFigures:
    """Tie on 18 (1.1.16, 4.1: 8 to 1) from tie18.py's exact probabilities: the wager placed
    before the deal and (``split_probability``) one placed on a hand formed by splitting."""
    [row] = spec.rows
    figures = BetFigures(spec.key, [RowFigure(row.name, row.odds, None, probability)], exact=False,
                         method="exact, card by card without replacement: the area's play by the printed chart "
                         "and the dealer's draws from the permanent 8, every resplit (3.23.3) included "
                         "(tie18.py, by exchangeability of the shoe's order); one area heads-up; binary "
                         "floating point")
    if split_probability is not None:
        figures.extra["on_split_hand"] = BetFigures(
            spec.key, [RowFigure(row.name, row.odds, None, split_probability)], exact=False,
            method="per wager placed on a hand formed by splitting 8s (3.23.1): expected wins over "
                   "expected wagers on those hands, exact as the first hand's")
    return figures
