"""An Electronic terminal hand's running totals (issue 26.4): its value without summing its
cards on every question, through a card taken (``add_card``) and a split (``take_last``)."""

from __future__ import annotations

import random
from decimal import Decimal

from dealer_assist.base.cards import cards, standard_deck
from dealer_assist.base.hands import hand_value, is_two_card_21
from dealer_assist.engine.electronic import TerminalHand

STAKE = Decimal(10)


def test_worked_totals() -> None:
    h = TerminalHand(list(cards("AS 6H")), STAKE)
    assert h.value() == (17, True) and h.total() == 17  # soft 17: the ace counts 11 (3.4)
    h.add_card(cards("9C")[0])
    assert h.value() == (16, False)  # 1 + 6 + 9
    h.add_card(cards("KD")[0])
    assert h.total() == 26
    assert TerminalHand(list(cards("KS AD")), STAKE).two_card_21()
    assert not TerminalHand(list(cards("7S 7D 7H")), STAKE).two_card_21()  # 21 in three cards
    aces = TerminalHand(list(cards("AS AD")), STAKE)
    assert aces.value() == (12, True) and not aces.two_card_21()


def test_a_split_takes_the_second_card() -> None:
    h = TerminalHand(list(cards("8S 8D")), STAKE)
    second = h.take_last()
    assert str(second) == "8D" and h.value() == (8, False)
    h.add_card(cards("AH")[0])
    assert h.value() == (19, True)
    a = TerminalHand(list(cards("AS AH")), STAKE)
    a.take_last()
    assert a.value() == (11, True)
    a.add_card(cards("QC")[0])
    assert a.two_card_21() and a.total() == 21  # two cards of 21; on a split it is no blackjack (1.1.1, 3.14.2)


def test_running_totals_agree_with_summing() -> None:
    rng = random.Random(264)
    deck = standard_deck()
    for _ in range(3000):
        h = TerminalHand([rng.choice(deck) for _n in range(rng.randrange(0, 3))], STAKE)
        for _n in range(rng.randrange(0, 6)):
            if h.cards and rng.random() < 0.2:
                h.take_last()
            else:
                h.add_card(rng.choice(deck))
            assert h.value() == hand_value(h.cards)
            assert h.total() == hand_value(h.cards)[0]
            assert h.two_card_21() == is_two_card_21(h.cards)
