"""Property tests of the codecs: round trips, any chunking, and corruption never gives a wrong card."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from dealer_assist.base.cards import ELEMENT_SUITS, RANKS, STANDARD_SUITS, Card, make_card
from hardware.codecs import BeetekCodec, Da1Codec
from hardware.events import (
    Alive,
    CardRead,
    CutCard,
    DecodeError,
    Duplicate,
    Hello,
    MultiCard,
    NoRead,
    SequenceGap,
    ShoeEmpty,
    ShoeEvent,
    ShoeFault,
    ShoeLoaded,
    ShoeWarning,
)

cards = st.builds(make_card, st.sampled_from(RANKS), st.sampled_from(STANDARD_SUITS + ELEMENT_SUITS))
# Letters only in identity fields and codes: no field can look like a 4-digit sequence number.
names = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij-.", min_size=1, max_size=10)
words = st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=6), min_size=0, max_size=4)
free_text = words.map(" ".join)


@st.composite
def multis(draw: st.DrawFn) -> MultiCard:
    count = draw(st.integers(1, 5))
    read = draw(st.lists(cards, max_size=count))
    return MultiCard(count=count, cards=tuple(read))


da1_events = st.one_of(
    st.builds(lambda c: CardRead(card=c), cards),
    st.just(NoRead()),
    st.just(CutCard()),
    st.just(ShoeLoaded()),
    st.just(ShoeEmpty()),
    st.just(Alive()),
    multis(),
    st.builds(lambda c, t: ShoeFault(code=c, text=t), names, free_text),
    st.builds(lambda m, f, s: Hello(model=m, firmware=f, serial_number=s), names, names, names),
)

NOT_A_CARD = (DecodeError, SequenceGap, Duplicate)


def with_seq(events: list[ShoeEvent], start: int) -> list[ShoeEvent]:
    return [dataclasses.replace(e, seq=(start + i) % 10000) for i, e in enumerate(events)]


def da1_stream(events: list[ShoeEvent], *, xor: bool = False) -> bytes:
    codec = Da1Codec(xor=xor)
    return b"".join(codec.encode(e, e.seq or 0) for e in events)


def feed_in_chunks(codec: Da1Codec | BeetekCodec, data: bytes, cuts: list[int]) -> list[ShoeEvent]:
    bounds = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    out: list[ShoeEvent] = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        out += codec.feed(data[a:b])
    return out


def is_subsequence(part: list[ShoeEvent], whole: list[ShoeEvent]) -> bool:
    it = iter(whole)
    return all(any(p == w for w in it) for p in part)


@given(st.lists(da1_events, max_size=30), st.integers(0, 9999), st.lists(st.integers(0, 10_000), max_size=12))
@settings(deadline=None)  # no per-example time limit: the machine may be busy
def test_da1_round_trip_in_any_chunks(events: list[ShoeEvent], start: int, cuts: list[int]) -> None:
    sent = with_seq(events, start)
    data = da1_stream(sent)
    assert feed_in_chunks(Da1Codec(), data, cuts) == sent


@given(st.lists(da1_events, max_size=30), st.integers(0, 9999), st.lists(st.integers(0, 10_000), max_size=12))
@settings(deadline=None)
def test_da1_xor_round_trip_in_any_chunks(events: list[ShoeEvent], start: int, cuts: list[int]) -> None:
    # the earlier firmware's frames (two hex digits of XOR) through the da1-xor codec
    sent = with_seq(events, start)
    data = da1_stream(sent, xor=True)
    assert feed_in_chunks(Da1Codec(xor=True), data, cuts) == sent
    # and never through the CRC codec: every frame is refused there
    assert all(isinstance(e, DecodeError) for e in Da1Codec().feed(data))


@given(
    st.lists(da1_events, min_size=1, max_size=20),
    st.integers(0, 9999),
    st.data(),
)
@settings(max_examples=300, deadline=None)
def test_da1_one_corrupted_byte_never_gives_a_wrong_card(
    events: list[ShoeEvent], start: int, data: st.DataObject
) -> None:
    sent = with_seq(events, start)
    # frames before and after: the driver has a sequence to compare with, and the
    # next frame shows any loss
    prologue = Alive(seq=(start - 1) % 10000)
    sentinel = Alive(seq=(start + len(sent)) % 10000)
    codec = Da1Codec()
    assert codec.feed(da1_stream([prologue])) == [prologue]
    stream = bytearray(da1_stream([*sent, sentinel]))
    index = data.draw(st.integers(0, len(stream) - 1), label="index")
    value = data.draw(st.integers(0, 255).filter(lambda v: v != stream[index]), label="value")
    stream[index] = value
    out = feed_in_chunks(codec, bytes(stream), data.draw(st.lists(st.integers(0, 4000), max_size=5)))
    good = [e for e in out if not isinstance(e, NOT_A_CARD) and e != sentinel]
    # only events that were sent, in their order: never a wrong card
    assert is_subsequence(good, sent), (good, sent)
    # anything lost is reported (error or gap), so the dealer checks the last card
    if good != sent:
        assert any(isinstance(e, (DecodeError, SequenceGap)) for e in out)


@given(st.binary(max_size=400), st.lists(st.integers(0, 400), max_size=8))
@settings(deadline=None)  # no per-example time limit: the machine may be busy
def test_da1_any_bytes_decode_without_exceptions(data: bytes, cuts: list[int]) -> None:
    out = feed_in_chunks(Da1Codec(), data, cuts)
    assert all(isinstance(e, ShoeEvent) for e in out)


@given(
    st.lists(st.sampled_from([b"$", b"*", b"\r\n", b",", b"0042", b"CARD", b"10", b"H", b"77", b"AF56", b"ALIVE"]), max_size=60)
)
@settings(deadline=None)  # no per-example time limit: the machine may be busy
def test_da1_frame_like_bytes_decode_without_exceptions(parts: list[bytes]) -> None:
    out = Da1Codec().feed(b"".join(parts))
    assert all(isinstance(e, ShoeEvent) for e in out)


code_like = st.from_regex(r"[A-Z]{1,3}[0-9]{1,4}", fullmatch=True)
beetek_events = st.one_of(
    st.builds(lambda c, b: CardRead(card=c, burn=b), cards, st.booleans()),
    st.just(NoRead()),
    st.builds(lambda c, t: ShoeFault(code=c, text=t), code_like, free_text),
    # an alarm without a code: its text must not start like one
    st.builds(lambda t: ShoeFault(code="ALARM", text="x" + t), free_text),
    st.builds(lambda h: ShoeWarning(code="0x" + h), st.from_regex(r"[0-9A-F]{1,4}", fullmatch=True)),
)


@given(st.lists(beetek_events, max_size=30), st.lists(st.integers(0, 10_000), max_size=12))
@settings(deadline=None)  # no per-example time limit: the machine may be busy
def test_beetek_round_trip_in_any_chunks(events: list[ShoeEvent], cuts: list[int]) -> None:
    codec = BeetekCodec()
    data = b"".join(codec.encode(e) for e in events)
    assert feed_in_chunks(BeetekCodec(), data, cuts) == events


@given(st.binary(max_size=400), st.lists(st.integers(0, 400), max_size=8))
@settings(deadline=None)  # no per-example time limit: the machine may be busy
def test_beetek_any_bytes_decode_without_exceptions(data: bytes, cuts: list[int]) -> None:
    out = feed_in_chunks(BeetekCodec(), data, cuts)
    assert all(isinstance(e, ShoeEvent) for e in out)
    assert all(isinstance(e.card, Card) for e in out if isinstance(e, CardRead))
