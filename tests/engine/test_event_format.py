"""The engine's event parser and formatter are a pair: ``parse_event(event_to_transcript(e)) == e``
for every event of every kind the parser can make (spec/round-script.md "Events"), also
through JSON text as the store writes it and ``settle`` reads it (cents as Decimals)."""

from __future__ import annotations

import json
import typing
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer_assist.base.cards import ELEMENT_SUITS, RANKS, STANDARD_SUITS, Card
from dealer_assist.base.errors import EventFormatError
from dealer_assist.engine.events import (
    DECISION_ACTIONS,
    Absent,
    Burn,
    CardDrawn,
    Claim,
    Claimant,
    CloseOffers,
    Correction,
    Decision,
    Event,
    Multi,
    NoMoreBets,
    Pick,
    PowerFailure,
    Resolve,
    Target,
    Timeout,
    Void,
    Wager,
    Withdraw,
)
from dealer_assist.engine.transcript import event_to_transcript, parse_event

cards = st.sampled_from([Card(r, s) for r in RANKS for s in (*STANDARD_SUITS, *ELEMENT_SUITS)])
# A name is one line of printable text (a control character or line break is refused).
names = st.text(st.characters(categories=("L", "N", "P", "S", "Zs", "M")), min_size=1, max_size=12)
# Amounts: positive whole cents up to the largest amount (money.MAX_AMOUNT).
amounts = st.integers(1, 100_000_000_000).map(lambda cents: Decimal(cents) / 100)
small = st.integers(-5, 20)
targets = st.one_of(
    st.sampled_from([Target("dealer"), Target("discard"), Target("player"), Target("shoe")]),
    st.builds(Target, st.just("area"), st.integers(1, 12), st.integers(1, 4)),
)
followers = st.dictionaries(names, st.one_of(st.sampled_from(["match", "stay"]), amounts), max_size=3).map(
    lambda d: tuple(d.items()))

EVENTS: dict[type, st.SearchStrategy[Event]] = {
    Wager: st.builds(Wager, names, names, amounts, st.none() | small, st.none() | small),
    Claim: st.builds(Claim, names, small, st.lists(st.builds(Claimant, names, amounts), min_size=1, max_size=3)
                     .map(tuple), st.none() | names),
    NoMoreBets: st.just(NoMoreBets()),
    Burn: st.builds(Burn, cards),
    CardDrawn: st.builds(CardDrawn, cards, st.none() | targets, st.booleans(), st.none() | st.integers(0, 2**40)),
    Multi: st.builds(Multi, st.lists(cards, min_size=2, max_size=5).map(tuple),
                     st.lists(cards, max_size=3).map(tuple), st.booleans()),
    Pick: st.builds(Pick, cards, st.sampled_from(["player", "pit_manager"]), st.none() | names),
    Correction: st.builds(Correction, small, targets),
    Decision: st.builds(Decision, st.sampled_from(DECISION_ACTIONS), st.none() | small, st.none() | small,
                        st.none() | names, st.none() | amounts, followers),
    CloseOffers: st.just(CloseOffers()),
    Timeout: st.builds(Timeout, names),
    Absent: st.builds(Absent, names),
    PowerFailure: st.just(PowerFailure()),
    Withdraw: st.builds(Withdraw, names, st.none() | small),
    Void: st.builds(Void, st.text(max_size=20), st.text(max_size=6)),
    Resolve: st.builds(Resolve, st.sampled_from(["continue", "void"]), st.text(max_size=20)),
}


def test_every_event_kind_has_a_strategy() -> None:
    assert set(EVENTS) == set(typing.get_args(Event))


@settings(max_examples=400)
@given(st.one_of(*EVENTS.values()))
def test_parse_inverts_format(event: Event) -> None:
    raw = event_to_transcript(event)
    assert raw["type"] == event.type
    assert parse_event(raw) == event
    # as the store writes it and settle reads it back: JSON text, fractions as Decimals
    text = json.dumps(raw, ensure_ascii=False)
    assert parse_event(json.loads(text, parse_float=Decimal)) == event


@settings(max_examples=200)
@given(st.one_of(*EVENTS.values()))
def test_format_of_a_parsed_transcript_is_a_fixed_point(event: Event) -> None:
    raw = event_to_transcript(event)
    assert event_to_transcript(parse_event(raw)) == raw


def test_hand_written_forms() -> None:
    """The transcript objects of spec/round-script.md, written out by hand."""
    assert event_to_transcript(Wager("alice", "main", Decimal("25.50"), area=3)) == {
        "type": "wager", "player": "alice", "bet": "main", "amount": 25.5, "area": 3}
    assert event_to_transcript(CardDrawn(Card("10", "H"), Target("area", 3, 2), face_up=True, shoe_seq=41)) == {
        "type": "card", "card": "10H", "shoe_seq": 41, "face_up": True, "to": "area:3/2"}
    assert event_to_transcript(Decision("split", area=2, hand=1, followers=(("bob", "match"),))) == {
        "type": "decision", "action": "split", "area": 2, "hand": 1, "followers": {"bob": "match"}}
    assert event_to_transcript(Decision("double", player="t1", amount=Decimal(10))) == {
        "type": "decision", "action": "double", "player": "t1", "amount": 10}
    assert event_to_transcript(NoMoreBets()) == {"type": "no_more_bets"}
    assert event_to_transcript(Correction(4, Target("dealer"))) == {"type": "correction", "index": 4, "to": "dealer"}


def test_shoe_seq_that_is_no_number_is_ignored_as_before() -> None:
    # settle never read shoe_seq; a transcript with an odd one settles as it always did
    assert parse_event({"type": "card", "card": "AS", "shoe_seq": "x"}) == CardDrawn(Card("A", "S"))


@pytest.mark.parametrize(("raw", "quoted"), [
    ({"type": "wager", "player": "al\nice", "bet": "main", "amount": 5}, "'al\\nice'"),
    ({"type": "wager", "player": "alice", "bet": "main", "amount": 5.005}, "5.005"),
    ({"type": "card", "card": "11H"}, "11H"),
    ({"type": "card", "card": "AS", "to": "area:0"}, "area:0"),
    ({"type": "decision", "action": "fold"}, "'fold'"),
    ({"type": "shuffle"}, "'shuffle'"),
])
def test_refusals_quote_the_bad_input(raw: dict[str, object], quoted: str) -> None:
    with pytest.raises(EventFormatError) as info:
        parse_event(raw)
    assert quoted in info.value.message
