"""beetek codec: the plain text a shoe in the field sends (spec/shoe-protocol.md, codec beetek)."""

from __future__ import annotations

from dealer_assist.base.cards import card
from hardware.codecs import BeetekCodec, make_codec
from hardware.events import CardRead, DecodeError, NoRead, ShoeFault, ShoeWarning

SAMPLE = (
    b" [Game]<Card:4S> "
    b" [Manual Burn Cards]<Card:10H> "
    b" [Game]<Card:TD> "
    b" [Game]<Game> "
    b" [Game]<Alarm:E3 Card Not Read> "
    b" [GameAlarm]<Alarm:Shoe door open> "
    b"<W0x01>"
)
EXPECTED = [
    CardRead(card=card("4S")),
    CardRead(card=card("10H"), burn=True),
    CardRead(card=card("10D")),
    NoRead(),
    ShoeFault(code="E3", text="Card Not Read"),
    ShoeFault(code="ALARM", text="Shoe door open"),
    ShoeWarning(code="0x01"),
]


def test_messages_of_the_spec_decode() -> None:
    events = BeetekCodec().feed(SAMPLE, received_ns=55)
    assert events == EXPECTED
    assert all(e.seq is None and e.received_ns == 55 for e in events)


def test_split_at_every_byte_gives_the_same_events() -> None:
    for cut in range(1, len(SAMPLE)):
        codec = BeetekCodec()
        assert codec.feed(SAMPLE[:cut]) + codec.feed(SAMPLE[cut:]) == EXPECTED


def test_noise_outside_tokens_is_skipped() -> None:
    codec = BeetekCodec()
    assert codec.feed(b"\x00\x13 hello \r\n [Game]<Card:AC> ###") == [CardRead(card=card("AC"))]
    assert codec.noise_bytes > 0


def test_bad_card_and_unknown_body_are_errors() -> None:
    events = BeetekCodec().feed(b"[Game]<Card:1X>[Game]<Teleport>[Game] x")
    kinds = [e.kind for e in events if isinstance(e, DecodeError)]
    assert kinds == ["bad_card", "unknown_type", "malformed"]
    assert len(events) == 3


def test_token_cut_short_by_a_new_one_is_reported() -> None:
    events = BeetekCodec().feed(b"[Game]<Card:4[Game]<Card:5S>")
    assert [type(e) for e in events] == [DecodeError, CardRead]
    assert isinstance(events[0], DecodeError) and events[0].kind == "truncated"


def test_oversize_token_is_dropped_and_decoding_resumes() -> None:
    events = BeetekCodec().feed(b"[Game]<Alarm:" + b"x" * 300 + b"> [Game]<Card:9H>")
    assert [type(e) for e in events] == [DecodeError, CardRead]
    assert isinstance(events[0], DecodeError) and events[0].kind == "oversize"


def test_no_id_request_no_guarantee() -> None:
    codec = make_codec("beetek")
    assert codec.id_request() is None
    assert codec.guaranteed is False
    assert make_codec("da1").guaranteed is True
