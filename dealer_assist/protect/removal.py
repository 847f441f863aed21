"""Effects of removal (EoR): how the player's expectation on a wager changes when one card
leaves a full shoe, per game and deck count (issue 36, Build 2).

EoR(x) = E(shoe - one x) - E(shoe), in units of one unit staked (positive: the card's
removal helps the player).

- **Side bets decided by the first cards** (stage ``initial`` in games/sidebets.py, without a
  wait for the dealer's second card): exact, as fractions. One pass over every ordered pair
  (or triple, with the dealer's first card) of card kinds of the full shoe sums each row's
  combinations and, for each card kind, the same sums weighted by how often the kind
  appears in the combination; the combinations without one particular copy of ``x`` are
  then ``all - weighted_x / copies_x`` (:func:`side_bet_removal`). The tests check it against
  a recomputation over the shoe with the card taken out (:func:`side_bet_return`).
- **The main wager**: the odds engine's combinatorial analysis (odds/main_wager.py, composition-
  dependent optimal play) run on the shoe with one card of each point value removed, with the
  dealer's probabilities exact for the dealer's card only (``exact_cards=0``: the player's
  cards are not removed for the dealer's draws), against the same analysis of the full shoe
  (:func:`main_wager_removal`). Suits do not matter to the main wager: one effect per point value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from dealer_assist.base.cards import Card
from dealer_assist.games import GAMES, INSURANCE_ODDS, composition_for
from dealer_assist.games.sidebets import PayRow, SideBetSpec, SideCards
from dealer_assist.odds.main_wager import analyse
from dealer_assist.odds.rulesets import RuleSet, for_game
from dealer_assist.odds.sheet import chart_of, main_wager_result
from dealer_assist.odds.side_bets import Play, UnrateableBet, rate_remaining
from dealer_assist.odds.tie18 import tie18_exact

Shoe = Mapping[Card, int]  # copies of each card left in the shoe


def full_shoe(game: str, decks: int) -> dict[Card, int]:
    """``decks`` decks of ``game``'s deck (games.py), by card."""
    out: dict[Card, int] = {}
    for c in composition_for(game):
        out[c] = out.get(c, 0) + decks
    return out


def exact_side_bets(game: str) -> tuple[SideBetSpec, ...]:
    """The side bets of ``game`` whose outcome the first two cards (and the dealer's first)
    decide: those this module values exactly."""
    return tuple(s for s in GAMES[game].specs if s.stage == "initial" and s.waits_for_dealer is None)


def _pays(row: PayRow | None) -> Fraction:
    return Fraction(-1) if row is None else row.odds


def _classify(spec: SideBetSpec, cards: Sequence[Card]) -> PayRow | None:
    if spec.needs_dealer_up:
        return spec.classify(SideCards(player=(cards[0], cards[1]), dealer=(cards[2],)))
    return spec.classify(SideCards(player=(cards[0], cards[1])))


_TABLES: dict[tuple[str, str], tuple[tuple[Card, ...], int, list[tuple[tuple[int, ...], int]]]] = {}


def _pay_table(game: str, spec: SideBetSpec) -> tuple[tuple[Card, ...], int, list[tuple[tuple[int, ...], int]]]:
    """(the game's distinct cards, a common denominator D, every ordered combination of
    distinct-card indexes with its pay times D): classified once, counted many times."""
    key = (game, spec.key)
    if key not in _TABLES:
        kinds = tuple(dict.fromkeys(composition_for(game)))
        size = 3 if spec.needs_dealer_up else 2
        denom = 1
        for row in spec.rows:
            denom = denom * row.odds.denominator // _gcd(denom, row.odds.denominator)
        table: list[tuple[tuple[int, ...], int]] = []
        index = range(len(kinds))
        combos = ([(i, j) for i in index for j in index] if size == 2
                  else [(i, j, k) for i in index for j in index for k in index])
        for combo in combos:
            pay = _pays(_classify(spec, [kinds[i] for i in combo]))
            table.append((combo, int(pay * denom)))
        _TABLES[key] = (kinds, denom, table)
    return _TABLES[key]


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def _ways(combo: tuple[int, ...], counts: Sequence[int]) -> int:
    """Ordered ways to draw the distinct cards ``combo`` from ``counts`` without replacement."""
    ways = 1
    for pos, i in enumerate(combo):
        ways *= counts[i] - combo[:pos].count(i)
        if ways <= 0:
            return 0
    return ways


def side_bet_return(game: str, spec: SideBetSpec, shoe: Shoe) -> Fraction:
    """The player's exact expected return per unit on ``spec`` dealt from ``shoe``: every
    ordered pair (triple with the dealer's card) of the cards in it, without replacement."""
    kinds, denom, table = _pay_table(game, spec)
    counts = [shoe.get(c, 0) for c in kinds]
    n = sum(counts)
    total = sum(_ways(combo, counts) * pay for combo, pay in table)
    size = len(table[0][0])
    return Fraction(total, denom * n * (n - 1) * (n - 2 if size == 3 else 1))


@dataclass(frozen=True)
class Removal:
    """One wager's effects of removal at one game and deck count."""

    game: str
    decks: int
    bet: str
    expected_return: Fraction | float  # the player's, full shoe
    effects: dict[str, Fraction | float]  # card (side bets) or point value (main: "A", "2" .. "10")
    method: str


def side_bet_removal(game: str, decks: int, spec: SideBetSpec) -> Removal:
    """Every card's exact effect of removal on ``spec``, in one pass over the full shoe: the
    combinations without one particular copy of ``x`` are all of them less those using it,
    ``sum(pay * occurrences of x) / copies of x`` (module doc)."""
    shoe = full_shoe(game, decks)
    kinds, denom, table = _pay_table(game, spec)
    counts = [shoe.get(c, 0) for c in kinds]
    n = sum(counts)
    size = len(table[0][0])
    total = 0
    weighted = [0] * len(kinds)
    for combo, pay in table:
        value = _ways(combo, counts) * pay
        if value:
            total += value
            for i in combo:
                weighted[i] += value
    falling = denom * n * (n - 1) * (n - 2 if size == 3 else 1)
    falling_less = denom * (n - 1) * (n - 2) * (n - 3 if size == 3 else 1)
    full = Fraction(total, falling)
    effects: dict[str, Fraction | float] = {}
    for i, card in enumerate(kinds):
        if counts[i]:
            effects[str(card)] = Fraction(total * counts[i] - weighted[i], counts[i] * falling_less) - full
    return Removal(game, decks, spec.key, full, effects,
                   "exact: every ordered combination of the first cards, without replacement")


POINT_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")


@dataclass(frozen=True)
class _Removed(RuleSet):
    """A rule set whose shoe lacks ``removed`` cards of each point value (index 0 = aces)."""

    removed: tuple[int, ...] = (0,) * 10

    @property
    def shoe(self) -> tuple[int, ...]:
        return tuple(n * self.decks - r for n, r in zip(self.deck, self.removed, strict=True))


def main_wager_return(game: str, decks: int, removed: Sequence[int] = (0,) * 10, exact_cards: int = 0) -> float:
    """The odds engine's expected return on the main wager (optimal play) with ``removed``
    cards of each point value out of the shoe."""
    base = for_game(game, decks)
    rules = _Removed(**{f: getattr(base, f) for f in base.__dataclass_fields__}, removed=tuple(removed))
    return analyse(rules, exact_cards=exact_cards).expected_return


def main_wager_removal(game: str, decks: int, exact_cards: int = 0) -> Removal:
    """Each point value's effect of removal on the main wager (the engine's analysis, twice)."""
    full = main_wager_return(game, decks, exact_cards=exact_cards)
    effects: dict[str, Fraction | float] = {}
    deck = for_game(game, decks).deck
    for i, name in enumerate(POINT_NAMES):
        if deck[i] == 0:
            continue
        removed = [0] * 10
        removed[i] = 1
        effects[name] = main_wager_return(game, decks, removed, exact_cards) - full
    return Removal(game, decks, "main", full, effects,
                   f"the odds engine's combinatorial analysis (optimal play, exact_cards={exact_cards}) "
                   "of the shoe less one card, minus that of the full shoe")


# ---------------------------------------------------------------------- the shoe in play
@dataclass(frozen=True)
class SideEdge:
    """One side bet's player's expected return per unit staked on the next round, from the
    cards left in the shoe; ``edge`` None when it is not worked out (``method`` says why).
    ``on_main``: a bonus paid on the main wager without a stake of its own (Dueling 8's 6-7-8,
    1.1.2, 4.1.1): ``edge`` is its added return per unit of main wager, inside the main
    wager's figure."""

    bet: str
    edge: Fraction | float | None
    method: str
    name: str = ""  # as the pit reads it (the rules' name of the wager)
    on_main: bool = False


INSURANCE_ACE_UP = "insurance_ace_up"  # the key of insurance's row: its figure holds given an Ace up
INSURANCE_NAME = "Insurance, if the dealer's first card is an Ace"


def remaining(game: str, decks: int, seen: Iterable[Card]) -> dict[Card, int]:
    """The cards of ``decks`` decks of ``game`` less those ``seen`` (a card seen more often
    than the shoe holds it, or not of the game's deck, takes nothing away)."""
    left = full_shoe(game, decks)
    for card in seen:
        if left.get(card, 0) > 0:
            left[card] -= 1
    return left


def _needs(spec: SideBetSpec) -> int:
    """Cards the bet's enumeration takes from the shoe at the least."""
    if spec.waits_for_dealer is not None:
        return 4  # the player's two, the dealer's two (Kings Bounty 4.4)
    if spec.needs_dealer_up or spec.stage == "run":
        return 3
    return 2


TIE_SHOE = 20  # Tie on 18 is worked out from this many cards left (a shoe is cut long before)


def side_bet_edges(game: str, decks: int, seen: Iterable[Card]) -> list[SideEdge]:
    """Each side bet of ``game`` (its layout's order), the wager placed before the next round's
    deal, over the shoe's remaining composition (:func:`remaining`), then the bonus the game
    pays on the main wager (Dueling 8's 6-7-8, :func:`bonus_edge`) and insurance given the
    dealer's Ace up (:func:`insurance_edge`) where the game offers them. Cards that left the
    shoe unseen (burns, cards not on record) do not change it: they are exchangeable with the
    cards left, so the expectation given what was seen is that of this composition.

    Exact (a fraction) for the bets the first cards decide (:func:`side_bet_return`); the other
    stages by the odds' enumerations over the same counts (odds/side_bets.py ``rate_remaining``):
    Kings Bounty with the dealer's two cards, Superb 8's with the play of 8-8 of the full shoe's
    strategy, 21+ by the dealer's draws, Tie on 18 by tie18.py with the printed chart (binary
    floating point, one area heads-up), the 6-7-8 bonus over the two cards drawn to the
    permanent 8 with the full shoe's play of 8-6 and 8-7. A bet the odds cannot rate, or a shoe
    too short for it, has no figure and says why."""
    left = remaining(game, decks, seen)
    n = sum(left.values())
    rules = GAMES[game]
    exact = {s.key for s in exact_side_bets(game)}
    out: list[SideEdge] = []
    play: Play | None = None
    wagers = [*rules.specs, *([rules.main_bonus] if rules.main_bonus is not None else [])]
    for spec in wagers:
        on_main = spec is rules.main_bonus
        need = _needs(spec)
        if n < need:
            out.append(SideEdge(spec.key, None, f"not worked out: {n} card(s) left, the bet takes {need}",
                                f"{spec.name}, paid on the main wager" if on_main else spec.name, on_main))
            continue
        if spec.key in exact:
            out.append(SideEdge(spec.key, side_bet_return(game, spec, left),
                                f"exact: every ordered combination of the first cards of the {n} cards left",
                                spec.name))
            continue
        if spec.decided_by == "tie" and n < TIE_SHOE:
            out.append(SideEdge(spec.key, None, f"not worked out: {n} cards left, fewer than {TIE_SHOE}: the area's "
                                                "and the dealer's cards could run out (tie18.py takes a shoe that "
                                                "cannot)", spec.name))
            continue
        if play is None:
            play = _play(game, decks, left)
        if on_main:
            out.append(bonus_edge(game, left, spec, play))
            continue
        try:
            figures = rate_remaining(game, left, spec, play)
        except UnrateableBet as err:
            out.append(SideEdge(spec.key, None, f"not worked out: {err}", spec.name))
            continue
        if figures.lose is not None and figures.hit_frequency_exact is not None \
                and figures.hit_frequency_exact + figures.lose != 1:
            out.append(SideEdge(spec.key, None, f"not worked out: the {n} cards left may run out "
                                                "before the bet is decided", spec.name))
            continue
        edge = figures.expected_value_exact if figures.exact else figures.expected_value
        out.append(SideEdge(spec.key, edge, f"{figures.method}; over the {n} cards left", spec.name))
    if rules.insurance:
        out.append(insurance_edge(game, left))
    return out


def bonus_edge(game: str, left: Shoe, spec: SideBetSpec, play: Play) -> SideEdge:
    """The bonus ``game`` pays on the main wager (Dueling 8's 6-7-8, 1.1.2, 4.1, 4.1.1: 1 to 1,
    5 to 1 all spades, whatever the hand's outcome): its added return per unit of main wager on
    the next round, exact over every ordered pair of the two cards drawn to the permanent 8
    from ``left`` (odds/side_bets.py), given ``play`` (:func:`_play`: the full shoe's play of
    8-6 and 8-7, as the par sheet takes it). Never below 0: it has no stake of its own."""
    n = sum(left.values())
    try:
        figures = rate_remaining(game, left, spec, play)
    except UnrateableBet as err:
        return SideEdge(spec.key, None, f"not worked out: {err}", f"{spec.name}, paid on the main wager", True)
    plays = ", ".join(f"8-{v}: {play.first_card_action.get(v, 'stand')}" for v in (6, 7))
    return SideEdge(spec.key, figures.expected_value_exact,
                    f"{figures.method}; over the {n} cards left; per unit of main wager ({spec.rows[0].clause}: "
                    "paid whatever the outcome), inside the main wager's figure; the play of the permanent 8 "
                    f"as the par sheet takes it ({plays})", f"{spec.name}, paid on the main wager", True)


def insurance_edge(game: str, left: Shoe) -> SideEdge:
    """Insurance (``game``'s 3.27, Electronic's 3.11; 2 to 1, 4.1) on the next round given the
    dealer's first card is an Ace: it wins when the dealer's second card is a ten-value card
    (J, Q, K, 10; Star Elements' Fu, Lu, Shou, 10). That Ace is one of the ``left`` cards; the
    second card is any of the others alike (the players' cards, unseen when the figure is
    read, are exchangeable with it): P = tens / (cards left - 1), exact. No figure when no Ace
    is left (the condition cannot happen)."""
    rules = GAMES[game]
    n = sum(left.values())
    aces = sum(k for c, k in left.items() if c.is_ace)
    tens = sum(k for c, k in left.items() if c.points == 10)
    where = f"{rules.clause('insurance')}, {rules.clause('pays')}"
    if aces == 0 or n < 2:
        why = (f"no Ace among the {n} cards left: the dealer's first card cannot be one" if aces == 0
               else "the Ace is the last card: no second card for the dealer")
        return SideEdge(INSURANCE_ACE_UP, None, f"not worked out ({where}): {why}", INSURANCE_NAME)
    p = Fraction(tens, n - 1)
    odds = INSURANCE_ODDS
    return SideEdge(INSURANCE_ACE_UP, p * (odds + 1) - 1,
                    f"exact, given the dealer's first card is an Ace ({where}: {odds.numerator} to "
                    f"{odds.denominator}): {tens} ten-value cards among the {n - 1} cards left besides that "
                    "Ace", INSURANCE_NAME)


def wager_label(game: str, key: str) -> str:
    """A figure's name in the floor's alert text: ``main wager``, ``side bet pair``, the bonus
    and insurance by their own names (the latter's condition, the Ace up, in it)."""
    if key == "main":
        return "main wager"
    if key == INSURANCE_ACE_UP:
        return "insurance if the dealer's first card is an Ace"
    bonus = GAMES[game].main_bonus if game in GAMES else None
    if bonus is not None and key == bonus.key:
        return f"{bonus.name} paid on the main wager"
    return f"side bet {key}"


def _play(game: str, decks: int, left: Shoe) -> Play:
    """What the side bets of a permanent-8 game need of the main wager (odds/sheet.py as the par
    sheet takes it): the play of the 8 with each first card, and P(tie on 18) from the cards left."""
    if not for_game(game, decks).permanent_eight:
        return Play()
    main, _ = main_wager_result(game, decks)
    base = for_game(game, decks)
    by_points = [0] * 10
    for card, k in left.items():
        by_points[card.points - 1] += k
    gone = tuple(full - k for full, k in zip(base.shoe, by_points, strict=True))
    rules = _Removed(**{f: getattr(base, f) for f in base.__dataclass_fields__}, removed=gone)
    return Play(dict(main.first_card_action), tie18_exact(rules, chart_of(game, decks)).first_hand)
