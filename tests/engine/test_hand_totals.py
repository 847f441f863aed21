"""A hand's running totals (issue 26.4): the value of its cards without summing them on
every question, kept by every change the deal and section 5 make (base.hands.RunningHand)."""

from __future__ import annotations

import random

from dealer_assist.base.cards import cards, standard_deck
from dealer_assist.base.hands import hand_value
from dealer_assist.engine.table_state import Hand


def test_worked_totals() -> None:
    h = Hand(list(cards("AS 6H")))
    assert h.value() == (17, True)  # soft 17: the ace counts 11 (1.1.13)
    h.add_card(cards("9C")[0])
    assert h.value() == (16, False) and h.total() == 16  # 1 + 6 + 9
    h.add_card(cards("KD")[0])
    assert h.total() == 26
    bj = Hand(list(cards("KS AD")))
    assert bj.two_card_21() and bj.value() == (21, True)
    assert not Hand(list(cards("7S 7D 7H"))).two_card_21()  # 21, not with two cards
    assert not Hand(list(cards("AS AD"))).two_card_21()  # 12, soft


def test_split_takes_the_second_card() -> None:
    h = Hand(list(cards("8S 8D")))
    second = h.take_last()
    assert str(second) == "8D" and h.value() == (8, False)
    h.add_card(cards("AH")[0])
    assert h.value() == (19, True)


def test_aces_fixed_at_one() -> None:
    h = Hand(list(cards("AS 9D")))  # Ace Race 3.4.2: a doubled hand's first-two-card aces count 1
    h.aces_fixed = 1
    assert h.value() == (10, False)
    h.add_card(cards("AH")[0])  # a third-card ace may count 11
    assert h.value() == (21, True)


def test_section_5_corrections_keep_the_totals() -> None:
    h = Hand(list(cards("5S AD 6D")))
    assert h.value() == (12, False)  # 5 + 1 + 6: the ace counts 1
    h.remove_card(cards("AD")[0])  # a card found where it does not belong
    assert h.cards == list(cards("5S 6D")) and h.value() == (11, False)
    h.add_card(cards("KH")[0])  # as section 5 places a card
    assert h.total() == 21
    h.keep_first(1)  # as the 5.21 reconstruction cuts a hand back
    assert h.cards == list(cards("5S")) and h.value() == (5, False)
    h.add_card(cards("AS")[0])
    assert h.value() == (16, True)
    h.keep_first(0)  # 5.16: the one card discarded
    assert h.cards == [] and h.value() == (0, False)


def test_the_last_copy_is_the_one_removed() -> None:
    h = Hand(list(cards("AS 5D AS")))  # two copies of the ace of spades (a multi-deck shoe)
    h.remove_card(cards("AS")[0])
    assert h.cards == list(cards("AS 5D")) and h.value() == (16, True)


def test_running_totals_agree_with_summing() -> None:
    rng = random.Random(26)
    deck = standard_deck()
    for _ in range(2000):
        h = Hand([])
        for _n in range(rng.randrange(1, 7)):
            h.add_card(rng.choice(deck))
            if rng.random() < 0.1 and len(h.cards) > 1:
                h.take_last()
            if rng.random() < 0.05:
                h.remove_card(rng.choice(h.cards))
            if rng.random() < 0.05:
                h.keep_first(rng.randrange(len(h.cards) + 1))
            h.aces_fixed = rng.choice((0, 0, 1))
            assert h.value() == hand_value(h.cards, h.aces_fixed)
