"""Rules both engines share come from one place and honour the game's data (issue 14):
Electronic Blackjack's round reads the soft-17, insurance and surrender flags from its
GameRules like the table round does. A variant of the game (the same data with one flag
changed) must change what the round does, and nothing else."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from dealer_assist.base.cards import Card, parse_card
from dealer_assist.engine.electronic import ElectronicConfig, ElectronicRound
from dealer_assist.engine.events import CardDrawn, Decision, NoMoreBets, Wager
from dealer_assist.engine.hand_rules import dealer_stands, offers
from dealer_assist.games import ELECTRONIC, LUCKY8, GameRules


def _cards(text: str) -> list[Card]:
    return [parse_card(c) for c in text.split()]


def test_dealer_stands_reads_the_soft_17_flag() -> None:
    soft17 = _cards("AS 6D")
    assert dealer_stands(ELECTRONIC, soft17)  # Electronic 3.19: stands on every 17
    assert not dealer_stands(replace(ELECTRONIC, dealer_hits_soft_17=True), soft17)
    assert dealer_stands(LUCKY8, _cards("10S 7D")) and not dealer_stands(LUCKY8, _cards("10S 6D"))


def test_offers_read_the_insurance_and_surrender_flags() -> None:
    assert offers(ELECTRONIC, True, False, True) == ["insurance"]
    assert offers(replace(ELECTRONIC, insurance=False), True, False, True) == []
    assert offers(replace(ELECTRONIC, surrender_against_ace=True), True, False, True) == ["insurance", "surrender"]
    assert offers(ELECTRONIC, True, True, True) == ["insurance", "even_money"]
    assert offers(ELECTRONIC, False, False, True) == ["surrender"]
    assert offers(ELECTRONIC, False, False, False) == []  # a split hand may not surrender


def _electronic(rules: GameRules, *cards: str) -> ElectronicRound:
    rnd = ElectronicRound(ElectronicConfig(rules, 6, {}))
    rnd.apply(Wager("ann", "main", Decimal(10)))
    rnd.apply(NoMoreBets())
    for c in cards:
        rnd.apply(CardDrawn(parse_card(c)))
    return rnd


def test_an_electronic_variant_whose_dealer_hits_soft_17_draws_on_it() -> None:
    # Player 10H, dealer AS, Player 8C: 18; ann stands. Dealer AS 6D = soft 17.
    for rules, expected in ((ELECTRONIC, "none"), (replace(ELECTRONIC, dealer_hits_soft_17=True), "card")):
        rnd = _electronic(rules, "10H", "AS", "8C")
        rnd.apply(Decision("stand", None, 1, "ann"))
        rnd.apply(CardDrawn(parse_card("6D")))
        assert rnd.expectation().kind == expected


def test_an_electronic_variant_without_insurance_offers_none() -> None:
    # Player 10H, dealer AS, Player 8C: ann is offered insurance (3.11) unless the game has none.
    assert _electronic(ELECTRONIC, "10H", "AS", "8C").expectation().pending[0]["options"] == [
        "hit", "stand", "double", "insurance"]
    no_insurance = replace(ELECTRONIC, insurance=False)
    assert _electronic(no_insurance, "10H", "AS", "8C").expectation().pending[0]["options"] == [
        "hit", "stand", "double"]
