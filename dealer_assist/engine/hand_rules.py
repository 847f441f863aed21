"""Rules both kinds of round share, written once (``table.TableRound`` and
``electronic.ElectronicRound`` call these; what differs between the games is data on
``GameRules``, never a test of the game's key).

- blackjack and bust (1.1.1/1.1.2; 3.32), the dealer's drawing rule with the game's
  soft-17 flag (3.34; Electronic 3.19), the fixed rule of an absent player or a terminal
  that timed out (5.22; Electronic 3.18.1);
- the offers (insurance, even money, surrender) honouring the game's ``insurance`` and
  ``surrender_against_ace`` flags;
- the refusals of a double or a split, one text and one clause concept each;
- "original wager lost once" against a dealer blackjack (Lucky 8 4.5, Electronic 3.15.5).

Refusal helpers return ``(message, concept)`` or None: they run for every option a round
lists, and only a refused decision looks its clause up.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from dealer_assist.base.cards import Card
from dealer_assist.base.hands import RunningHand, hand_value, is_two_card_21
from dealer_assist.base.money import ZERO
from dealer_assist.base.settlement import dealer_blackjack_concept
from dealer_assist.games import GameRules


def dealer_stands(rules: GameRules, dealer: list[Card]) -> bool:
    """The dealer's hand is complete (3.34; Electronic 3.19): a blackjack, over 17, or 17
    unless it is soft and the game's dealer hits soft 17 (Ace Race)."""
    if rules.blackjack_odds is not None and is_two_card_21(dealer):
        return True
    total, soft = hand_value(dealer)
    if total > 17:
        return True
    if total == 17:
        return not (soft and rules.dealer_hits_soft_17)
    return False


def fixed_rule_draws(cards: list[Card], aces_fixed_at_one: int = 0) -> bool:
    """5.22 (absent player) and Electronic 3.18.1 (default strategy): draw while the hard
    total is 11 or less or a soft total is under 17."""
    total, soft = hand_value(cards, aces_fixed_at_one)
    return draws_by_fixed_rule(total, soft)


def draws_by_fixed_rule(total: int, soft: bool) -> bool:
    """``fixed_rule_draws`` for a hand whose value is known: hard 11 or less, soft under 17."""
    return total <= 16 if soft else total <= 11


def offers(rules: GameRules, dealer_ace: bool, blackjack: bool, one_hand: bool, *, may_insure: bool = True,
           may_take_even_money: bool = True, may_surrender: bool = True) -> list[str]:
    """The offers open to one player after the initial deal, in the spec's order."""
    out: list[str] = []
    if dealer_ace and rules.insurance and may_insure:
        out.append("insurance")
    if dealer_ace and blackjack and rules.insurance and may_take_even_money:
        out.append("even_money")
    if (rules.surrender_against_ace or not dealer_ace) and not blackjack and one_hand and may_surrender:
        out.append("surrender")
    return out


def double_refusal(rules: GameRules, cards: list[Card], split_aces: bool, from_split: bool,
                   total: int | None = None) -> tuple[str, str] | None:
    """Why this hand may not be doubled (message, clause concept), or None.

    ``total`` is the hand's best total when the caller has it already."""
    if len(cards) != 2:
        return "only the first two cards may be doubled", "double.first_two"
    if split_aces:
        return "split aces may not be doubled", "double.split_aces"
    if total is None:
        total = hand_value(cards)[0]
    if total >= 21:  # a blackjack totals 21 too
        return "a blackjack or a total of 21 may not be doubled", "twenty_one_stops"
    # The hard total of the two cards, every ace counted 1 (1.1.5).
    if rules.double_hard_10_11_only and cards[0].points + cards[1].points not in (10, 11):
        concept = "double.split_pair" if from_split else "double.hard_total"
        return f"{rules.short_name} doubles only on hard 10 or 11", concept
    return None


def is_pair(rules: GameRules, a: Card, b: Card) -> bool:
    """Two cards the game lets a player split (3.21: the same point value; a pair of 8s
    only in Dueling 8's)."""
    return a.rank == "8" == b.rank if rules.split_eights_only else a.points == b.points


def finished_hand(hand: RunningHand, split_aces: bool, doubled: bool, busted: bool,
                  bust_concept: str, lost: str) -> tuple[str, str] | None:
    """Why a hand takes no more decisions (the text and the concept of the clause), or None
    when it simply stood or was surrendered: a split Ace's one card (3.23.1; Electronic
    3.14.1), a double's one card (3.26.4; 3.15.4), bust (3.32; 4.6.2), 21 (3.30; 3.16).
    ``bust_concept`` and ``lost`` ("its wager has lost") are the round's own words."""
    if split_aces and len(hand.cards) >= 2:
        return "is a split Ace: it receives one card and no further decision", "split.aces_one_card"
    if doubled and len(hand.cards) >= 3:
        return "was doubled and receives only one additional card", "double.one_card"
    total = hand.total()
    if busted or total > 21:
        return f"is bust on {total}: {lost}", bust_concept
    if total == 21:
        return "has 21 and takes no more cards", "twenty_one_stops"
    return None


def split_refusal(rules: GameRules, cards: list[Card], hands: int, aces_split: bool) -> tuple[str, str] | None:
    """Why this hand may not be split (message, clause concept), or None. ``hands`` is how
    many hands the player (area or terminal) holds; ``aces_split`` whether aces were split."""
    if len(cards) != 2:
        return "only two cards may be split", "split"
    a, b = cards
    if not is_pair(rules, a, b):
        if rules.split_eights_only:
            return f"{rules.short_name} splits only a pair of 8s", "split"
        return "only two cards of the same point value may be split", "split"
    if hands >= rules.max_hands:
        return f"no more than {rules.max_hands} hands may be formed", "split.max_hands"
    if a.rank == "A" and aces_split:
        return SPLIT_ACES_AGAIN
    return None


# A hand formed by splitting aces is never split again: aces split only once, and a split
# ace takes one card and no decision (3.22.1/3.23.1; Electronic 3.14.3/3.14.1).
SPLIT_ACES_AGAIN: Final = ("split aces may not be split again: aces are split only once and each split ace "
                           "receives one card, with no further decision", "split.aces_again")


class OriginalWagerOnce:
    """Against a dealer blackjack, a player's split or doubled hands that did not bust lose
    one original wager in total where the game says so (Lucky 8 4.5, Electronic 3.15.5;
    DESIGN.md); elsewhere they lose everything on them."""

    __slots__ = ("rules", "charged")

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        self.charged: set[str] = set()

    def settle(self, player: str, result: str, net: Decimal, concept: str, from_split: bool, doubled: bool,
               original: Decimal) -> tuple[str, Decimal, str]:
        """(result, net, concept) for a hand the main rule settled as (result, net, concept)."""
        if concept != "lose.dealer_blackjack" or not (from_split or doubled):
            return result, net, concept
        concept = dealer_blackjack_concept(from_split)
        if self.rules.dealer_blackjack_vs_doubled == "original":
            if player in self.charged:
                return "returned", ZERO, concept
            self.charged.add(player)
            return result, -original, concept
        return result, net, concept
