"""Pay tables of the side bets (section 4 of each game) as small classifiers.

Each classifier takes the cards it looks at and returns the winning row (name, odds,
clause) or None when the wager loses. "Pair" means the same rank (DESIGN.md): J, Q, K
count as their face, so 10-J and K-Q are not pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from dealer_assist.base.cards import Card


@dataclass(frozen=True, slots=True)
class PayRow:
    """A winning row of a pay table."""

    name: str
    odds: Fraction
    clause: str


def _row(name: str, to: int, by: int, clause: str) -> PayRow:
    return PayRow(name, Fraction(to, by), clause)


# Pair wager, 4.1 (Ace Race, Lucky 8, Star Elements).
PAIR: Final = _row("Pair", 11, 1, "4.1")


def pair(a: Card, b: Card) -> PayRow | None:
    """Pair wager: the player's first two cards are a pair (1.1.9, 3.15.1)."""
    return PAIR if a.rank == b.rank else None


# Ace Race wager, Ace Race 4.2 (1.1.1).
ACE_RACE_ROWS: Final = (
    _row("Pair of Aces", 50, 1, "4.2"),
    _row("Suited Pair", 15, 1, "4.2"),
    _row("Coloured Pair", 8, 1, "4.2"),
    _row("Mixed Pair", 5, 1, "4.2"),
    _row("Pair of Aces after Split", 10, 1, "4.2"),
)


def ace_race(a: Card, b: Card) -> PayRow | None:
    """Ace Race wager on the first two cards (1.1.1.1–1.1.1.4)."""
    if a.rank != b.rank:
        return None
    if a.rank == "A":
        return ACE_RACE_ROWS[0]
    if a.suit == b.suit:
        return ACE_RACE_ROWS[1]
    if a.is_red == b.is_red:
        return ACE_RACE_ROWS[2]
    return ACE_RACE_ROWS[3]


def ace_race_after_split(a: Card, b: Card) -> PayRow | None:
    """Ace Race wager placed on a split-aces hand (3.21.1): wins only on a second ace."""
    return ACE_RACE_ROWS[4] if a.rank == "A" and b.rank == "A" else None


# Lucky 8 wager, Lucky 8 4.2 (1.1.8, 1.1.18).
LUCKY8_ROWS: Final = (
    _row("3 suited 8's", 1000, 1, "4.2"),
    _row("3 unsuited 8's", 100, 1, "4.2"),
    _row("2 suited 8's", 10, 1, "4.2"),
    _row("2 unsuited 8's", 5, 1, "4.2"),
    _row("Two of a Kind", 3, 1, "4.2"),
)


def lucky8(p1: Card, p2: Card, dealer: Card) -> PayRow | None:
    """Lucky 8: the player's two cards with the dealer's first card (1.1.8.1–1.1.8.3)."""
    if p1.rank == "8" and p2.rank == "8" and dealer.rank == "8":
        suited = p1.suit == p2.suit == dealer.suit
        return LUCKY8_ROWS[0] if suited else LUCKY8_ROWS[1]
    # Two-card combinations: the player's two cards, or one of them with the dealer's card.
    combos = ((p1, p2), (p1, dealer), (p2, dealer))
    eights = [(x, y) for x, y in combos if x.rank == "8" and y.rank == "8"]
    if eights:
        return LUCKY8_ROWS[2] if any(x.suit == y.suit for x, y in eights) else LUCKY8_ROWS[3]
    # Two of a Kind (1.1.18): same rank, 8s excluded (paid above).
    if any(x.rank == y.rank for x, y in combos):
        return LUCKY8_ROWS[4]
    return None


# Star Elements 4.2, 4.3.
SUPER_SEVENS_ROWS: Final = (
    _row("Three Sevens - Same Element", 4000, 1, "4.2"),
    _row("Three Sevens - Mixed Elements", 400, 1, "4.2"),
    _row("Two Sevens", 40, 1, "4.2"),
)
THREE_STARS_ROWS: Final = (
    _row("3 Stars - Same Element", 500, 1, "4.3"),
    _row("3 Stars - Mixed Elements", 50, 1, "4.3"),
)


def super_sevens(p1: Card, p2: Card, dealer: Card) -> PayRow | None:
    """Super Star Sevens: two or more 7s among the player's two and the dealer's first card (1.1.17)."""
    sevens = [c for c in (p1, p2, dealer) if c.rank == "7"]
    if len(sevens) == 3:
        same = sevens[0].suit == sevens[1].suit == sevens[2].suit
        return SUPER_SEVENS_ROWS[0] if same else SUPER_SEVENS_ROWS[1]
    if len(sevens) == 2:
        return SUPER_SEVENS_ROWS[2]
    return None


def three_stars(p1: Card, p2: Card, dealer: Card) -> PayRow | None:
    """3 Stars: all three cards are Fu, Lu or Shou (1.1.19)."""
    if p1.is_face and p2.is_face and dealer.is_face:
        same = p1.suit == p2.suit == dealer.suit
        return THREE_STARS_ROWS[0] if same else THREE_STARS_ROWS[1]
    return None


# Electronic 4.2–4.4.
BET_THE_SET_ROWS: Final = (
    _row("Suited Pair", 15, 1, "4.2"),
    _row("Unsuited Pair", 10, 1, "4.2"),
)
ROYAL_MATCH_ROWS: Final = (
    _row("Royal Match 21 (Suited King and Queen)", 25, 1, "4.3"),
    _row("2 Suited Cards", 5, 2, "4.3"),
)
KINGS_BOUNTY_ROWS: Final = (
    _row("2 Kings of Spades + Dealer Blackjack", 1000, 1, "4.4"),
    _row("2 Kings of Spades", 100, 1, "4.4"),
    _row("2 Suited Kings", 30, 1, "4.4"),
    _row("2 Suited Queens, Jacks or 10's", 20, 1, "4.4"),
    _row("Suited 20", 9, 1, "4.4"),
    _row("2 Kings", 6, 1, "4.4"),
    _row("Unsuited 20", 4, 1, "4.4"),
)


def bet_the_set(a: Card, b: Card) -> PayRow | None:
    """Bet the Set 21: the first two Player cards are a pair (3.6.1, 3.4.3)."""
    if a.rank != b.rank:
        return None
    return BET_THE_SET_ROWS[0] if a.suit == b.suit else BET_THE_SET_ROWS[1]


def royal_match(a: Card, b: Card) -> PayRow | None:
    """Royal Match 21: two suited cards; suited King and Queen pays most (3.6.2)."""
    if a.suit != b.suit:
        return None
    if {a.rank, b.rank} == {"K", "Q"}:
        return ROYAL_MATCH_ROWS[0]
    return ROYAL_MATCH_ROWS[1]


def kings_bounty_needs_dealer(a: Card, b: Card) -> bool:
    """Two Kings of Spades: the top row depends on a dealer blackjack not yet known."""
    return a.rank == "K" and b.rank == "K" and a.suit == "S" and b.suit == "S"


def kings_bounty(a: Card, b: Card, dealer_blackjack: bool) -> PayRow | None:
    """Kings Bounty (4.4); "Suited/Unsuited 20" is any two cards totalling 20, A-9 included."""
    if kings_bounty_needs_dealer(a, b):
        return KINGS_BOUNTY_ROWS[0] if dealer_blackjack else KINGS_BOUNTY_ROWS[1]
    suited = a.suit == b.suit
    if a.rank == b.rank == "K":
        return KINGS_BOUNTY_ROWS[2] if suited else KINGS_BOUNTY_ROWS[5]
    if suited and a.rank == b.rank and a.points == 10:
        return KINGS_BOUNTY_ROWS[3]
    total = a.points + b.points
    if a.rank == "A" or b.rank == "A":
        total += 10
    if total == 20:
        return KINGS_BOUNTY_ROWS[4] if suited else KINGS_BOUNTY_ROWS[6]
    return None


# Dueling 8's 4.1–4.3.
SUPERB8_ROWS: Final = (
    _row("Four 8's (All Spades)", 8000, 1, "4.2"),
    _row("Four 8's (Excluding all Spades)", 800, 1, "4.2"),
    _row("Three 8's", 8, 1, "4.2"),
    _row("Two 8's", 3, 1, "4.2"),
)
PLUS21_ROWS: Final = {
    8: _row("Dealer Busts with 8 cards", 800, 1, "4.3"),
    7: _row("Dealer Busts with 7 cards", 80, 1, "4.3"),
    6: _row("Dealer Busts with 6 cards", 35, 1, "4.3"),
    5: _row("Dealer Busts with 5 cards", 8, 1, "4.3"),
    4: _row("Dealer Busts with 4 cards", 3, 1, "4.3"),
    3: _row("Dealer Busts with 3 cards", 2, 1, "4.3"),
}
TIE18: Final = _row("Tie on 18", 8, 1, "4.1")
BONUS678_ROWS: Final = (
    _row("Bonus 6-7-8 (All Spades)", 5, 1, "4.1.1"),
    _row("Bonus 6-7-8 (Excluding all Spades)", 1, 1, "4.1.1"),
)


def superb8(run: Sequence[Card]) -> PayRow | None:
    """Superb 8's on the consecutive 8s dealt to an area, the permanent 8♠ first (4.2.1, 4.2.2)."""
    n = len(run)
    if n >= 4:
        first_four = run[:4]
        return SUPERB8_ROWS[0] if all(c.suit == "S" for c in first_four) else SUPERB8_ROWS[1]
    if n == 3:
        return SUPERB8_ROWS[2]
    if n == 2:
        return SUPERB8_ROWS[3]
    return None


def plus21(dealer_cards: int, dealer_busted: bool) -> PayRow | None:
    """21+ wager: the dealer busts; odds by the dealer's number of cards (4.3)."""
    if not dealer_busted:
        return None
    return PLUS21_ROWS.get(dealer_cards)


def bonus678(hand: Sequence[Card]) -> PayRow | None:
    """6-7-8 Bonus: the two cards drawn to the permanent 8 are a 6 and a 7 (1.1.2, 4.1)."""
    if len(hand) != 3 or hand[0].rank != "8":
        return None
    if {hand[1].rank, hand[2].rank} != {"6", "7"}:
        return None
    if all(c.suit == "S" for c in hand):
        return BONUS678_ROWS[0]
    return BONUS678_ROWS[1]


# ---------------------------------------------------------------------- side bets as data
@dataclass(frozen=True, slots=True)
class SideCards:
    """What a side bet's classifier may look at."""

    player: Sequence[Card]  # the hand's cards (the first two decide an "initial" bet)
    dealer: Sequence[Card] = ()  # the dealer's cards so far, the first card first
    run: Sequence[Card] = ()  # a "run" bet's consecutive cards (Superb 8's, 4.2.2)
    hand_total: int = 0
    hand_busted: bool = False
    dealer_total: int = 0
    dealer_blackjack: bool = False


Classifier = Callable[[SideCards], "PayRow | None"]


@dataclass(frozen=True)
class SideBetSpec:
    """One side bet: what the engine needs to take, place and settle it.

    ``stage`` says when the cards decide it: ``initial`` (the player's first two cards, and
    the dealer's first card when ``needs_dealer_up``: settled at the interim), ``run`` (a run
    of ``run_rank`` cards from the area's first card on: settled when another card comes),
    ``final`` (the finished hands: settled at the end; ``decided_by`` says which: ``dealer``
    the dealer's finished hand, ``tie`` the hand's and the dealer's totals, ``drawn`` the cards
    drawn to the permanent 8). The odds rate a bet from its stage (dealer_assist.odds.side_bets
    ``rate``). The pay table's clause numbers are on its rows; the wager's own clause is the
    game's ``side.<key>`` concept.
    """

    key: str  # the transcript's bet kind
    name: str  # for people
    stage: str
    classify: Classifier
    rows: tuple[PayRow, ...]
    needs_dealer_up: bool = False
    # The top row waits for the dealer's second card (Kings Bounty's two K♠ + dealer blackjack).
    waits_for_dealer: Callable[[SideCards], bool] | None = None
    # It may also be placed on a split hand: "aces" (Ace Race 3.21.1) or "any" (Tie on 18 3.23.1),
    # with the game's clause concept for that, and how such a wager is classified.
    split_hand: str | None = None
    split_concept: str = ""
    split_follower_concept: str = ""  # "only players who matched the split" (Dueling 8's 3.25)
    split_classify: Classifier | None = None
    loses_on_bust: bool = False  # lost at once when its hand busts (Tie on 18)
    run_rank: str = ""
    dealer_draws_for_it: bool = False  # the dealer draws while it is unsettled (3.33.1)
    dealer_cards_paid: int = 0  # a dealer bust with more cards has no row: 6.1 (21+)
    decided_by: str = ""  # a ``final`` bet: "dealer", "tie" or "drawn" (see above)
    split_rows: tuple[PayRow, ...] = ()  # the rows paid only on a wager placed on a split hand


def _two(c: SideCards) -> tuple[Card, Card]:
    return c.player[0], c.player[1]


PAIR_SPEC: Final[SideBetSpec] = SideBetSpec("pair", "Pair", "initial", lambda c: pair(*_two(c)), (PAIR,))
ACE_RACE_SPEC: Final[SideBetSpec] = SideBetSpec(
    "ace_race", "Ace Race", "initial", lambda c: ace_race(*_two(c)), ACE_RACE_ROWS,
    split_hand="aces", split_concept="split.ace_race_wager", split_rows=ACE_RACE_ROWS[4:],
    split_classify=lambda c: ace_race_after_split(*_two(c)) if len(c.player) >= 2 else None,
)
LUCKY8_SPEC: Final[SideBetSpec] = SideBetSpec(
    "lucky8", "Lucky 8", "initial", lambda c: lucky8(c.player[0], c.player[1], c.dealer[0]), LUCKY8_ROWS,
    needs_dealer_up=True,
)
SUPER_SEVENS_SPEC: Final[SideBetSpec] = SideBetSpec(
    "super_sevens", "Super Star 7s", "initial", lambda c: super_sevens(c.player[0], c.player[1], c.dealer[0]),
    SUPER_SEVENS_ROWS, needs_dealer_up=True,
)
THREE_STARS_SPEC: Final[SideBetSpec] = SideBetSpec(
    "three_stars", "3 Stars", "initial", lambda c: three_stars(c.player[0], c.player[1], c.dealer[0]),
    THREE_STARS_ROWS, needs_dealer_up=True,
)
SUPERB8_SPEC: Final[SideBetSpec] = SideBetSpec("superb8", "Superb 8's", "run", lambda c: superb8(c.run), SUPERB8_ROWS,
                                  run_rank="8")
TIE18_SPEC: Final[SideBetSpec] = SideBetSpec(
    "tie18", "Tie on 18", "final",
    lambda c: TIE18 if not c.hand_busted and c.hand_total == 18 and c.dealer_total == 18 else None, (TIE18,),
    split_hand="any", split_concept="split.tie18", split_follower_concept="split.follower_tie18",
    loses_on_bust=True, decided_by="tie",
)
PLUS21_SPEC: Final[SideBetSpec] = SideBetSpec(
    "plus21", "21+", "final", lambda c: plus21(len(c.dealer), c.dealer_total > 21), tuple(PLUS21_ROWS.values()),
    dealer_draws_for_it=True, dealer_cards_paid=max(PLUS21_ROWS), decided_by="dealer",
)
BONUS678_SPEC: Final[SideBetSpec] = SideBetSpec("bonus678", "6-7-8 bonus", "final", lambda c: bonus678(c.player),
                                   BONUS678_ROWS, decided_by="drawn")
BET_THE_SET_SPEC: Final[SideBetSpec] = SideBetSpec("bet_the_set", "Bet the Set 21", "initial",
                                      lambda c: bet_the_set(*_two(c)), BET_THE_SET_ROWS)
ROYAL_MATCH_SPEC: Final[SideBetSpec] = SideBetSpec("royal_match", "Royal Match 21", "initial",
                                      lambda c: royal_match(*_two(c)), ROYAL_MATCH_ROWS)
KINGS_BOUNTY_SPEC: Final[SideBetSpec] = SideBetSpec(
    "kings_bounty", "Kings Bounty", "initial", lambda c: kings_bounty(*_two(c), c.dealer_blackjack),
    KINGS_BOUNTY_ROWS, waits_for_dealer=lambda c: kings_bounty_needs_dealer(*_two(c)),
)
