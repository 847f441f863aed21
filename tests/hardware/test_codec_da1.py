"""da1 codec: frames, checksum, sequence, resynchronisation (spec/shoe-protocol.md, codec da1)."""

from __future__ import annotations

import pytest

from dealer_assist.base.cards import card
from hardware.codecs import (
    Da1Codec,
    Da1CommandReader,
    crc16_ccitt_false,
    da1_checksum,
    da1_frame,
    da1_xor_checksum,
    make_codec,
)
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
    ShoeFault,
    ShoeLoaded,
    event_to_json,
)


def frame(seq: int, body: str) -> bytes:
    return da1_frame(f"{seq:04d},{body}")


def test_crc16_ccitt_false_check_value() -> None:
    # spec/shoe-protocol.md: "its check value for `123456789` is `29B1`"
    assert crc16_ccitt_false(b"123456789") == 0x29B1


def test_worked_examples_of_the_spec() -> None:
    # spec/shoe-protocol.md, verbatim: `$0042,CARD,10,H*AF56\r\n`, `$ID?*4914\r\n`
    assert da1_frame("0042,CARD,10,H") == b"$0042,CARD,10,H*AF56\r\n"
    assert da1_checksum(b"0042,CARD,10,H") == 0xAF56
    assert Da1Codec().id_request() == b"$ID?*4914\r\n"
    assert Da1Codec().feed(b"$0042,CARD,10,H*AF56\r\n") == [CardRead(card=card("10H"), seq=42)]
    # ... and of the earlier firmware's da1-xor: `$0042,CARD,10,H*77`, `$ID?*32\r\n`
    assert da1_frame("0042,CARD,10,H", xor=True) == b"$0042,CARD,10,H*77\r\n"
    assert da1_xor_checksum(b"0042,CARD,10,H") == 0x77
    assert make_codec("da1-xor").id_request() == b"$ID?*32\r\n"
    assert make_codec("da1-xor").feed(b"$0042,CARD,10,H*77\r\n") == [CardRead(card=card("10H"), seq=42)]


def test_each_codec_refuses_the_other_checksum() -> None:
    (event,) = Da1Codec().feed(b"$0042,CARD,10,H*77\r\n")
    assert isinstance(event, DecodeError) and event.kind == "malformed"  # two digits, not four
    (event,) = make_codec("da1-xor").feed(b"$0042,CARD,10,H*AF56\r\n")
    assert isinstance(event, DecodeError) and event.kind == "malformed"


def test_checksum_digits_are_uppercase_hex() -> None:
    # 'F' and 'f' differ by one bit: a flip there must not pass as the same number
    (event,) = Da1Codec().feed(b"$0042,CARD,10,H*Af56\r\n")
    assert isinstance(event, DecodeError) and event.kind == "checksum"


def test_every_frame_type_decodes() -> None:
    codec = Da1Codec()
    data = b"".join(
        [
            frame(0, "HELLO,DA-1,2.3,SN42"),
            frame(1, "LOADED"),
            frame(2, "CARD,10,H"),
            frame(3, "CARD,7,Wa"),
            frame(4, "NOREAD"),
            frame(5, "MULTI,2,5,D,9,C"),
            frame(6, "MULTI,3,5,D"),
            frame(7, "CUT"),
            frame(8, "ALIVE"),
            frame(9, "FAULT,JAM,card jam"),
            frame(10, "EMPTY"),
        ]
    )
    assert codec.feed(data, 123) == [
        Hello(model="DA-1", firmware="2.3", serial_number="SN42", seq=0),
        ShoeLoaded(seq=1),
        CardRead(card=card("10H"), seq=2),
        CardRead(card=card("7Wa"), seq=3),
        NoRead(seq=4),
        MultiCard(count=2, cards=(card("5D"), card("9C")), seq=5),
        MultiCard(count=3, cards=(card("5D"),), seq=6),
        CutCard(seq=7),
        Alive(seq=8),
        ShoeFault(code="JAM", text="card jam", seq=9),
        ShoeEmpty(seq=10),
    ]


def test_events_carry_the_arrival_time_given() -> None:
    (event,) = Da1Codec().feed(frame(5, "CARD,A,S"), received_ns=987654321)
    assert event.received_ns == 987654321


def test_frame_split_at_every_byte_gives_the_same_events() -> None:
    data = frame(1, "CARD,Q,S") + frame(2, "MULTI,2,5,D,9,C") + frame(3, "ALIVE")
    whole = Da1Codec().feed(data)
    for cut in range(1, len(data)):
        codec = Da1Codec()
        assert codec.feed(data[:cut]) + codec.feed(data[cut:]) == whole
    codec = Da1Codec()
    one_by_one = [e for b in data for e in codec.feed(bytes([b]))]
    assert one_by_one == whole


def test_noise_between_frames_is_skipped() -> None:
    codec = Da1Codec()
    data = b"\x00\xffgarbage\r\n" + frame(1, "CARD,2,C") + b"*\n\n#@!" + frame(2, "CARD,3,C") + b"tail"
    assert codec.feed(data) == [CardRead(card=card("2C"), seq=1), CardRead(card=card("3C"), seq=2)]
    assert codec.noise_bytes == len(b"\x00\xffgarbage\r\n") + len(b"*\n\n#@!") + len(b"tail")


def test_bad_checksum_is_an_error_and_the_next_frame_shows_the_gap() -> None:
    codec = Da1Codec()
    good = frame(2, "CARD,K,H")
    bad = good[:-4] + b"00\r\n"  # wrong checksum digits
    assert bad != good
    events = codec.feed(frame(1, "ALIVE") + bad + frame(3, "CARD,4,D"))
    assert [type(e) for e in events] == [Alive, DecodeError, SequenceGap, CardRead]
    assert isinstance(events[1], DecodeError) and events[1].kind == "checksum"
    assert events[2] == SequenceGap(lost=1, seq=3)
    assert event_to_json(events[2]) == {"event": "gap", "lost": 1, "seq": 3}


def test_unknown_type_is_reported_and_keeps_the_sequence() -> None:
    codec = Da1Codec()
    events = codec.feed(frame(1, "ALIVE") + frame(2, "TELEPORT,1") + frame(3, "ALIVE"))
    assert [type(e) for e in events] == [Alive, DecodeError, Alive]
    assert isinstance(events[1], DecodeError) and events[1].kind == "unknown_type"
    assert events[1].seq == 2


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        (b"$0001,CARD,10,H*7\r\n", "malformed"),  # one hex digit
        (b"$0001,CARD,10,H\r\n", "malformed"),  # no checksum
        (da1_frame("01,CARD,10,H"), "malformed"),  # seq not four digits
        (da1_frame("0001,CARD,10"), "malformed"),  # missing suit
        (da1_frame("0001,CARD,1,H"), "bad_card"),
        (da1_frame("0001,CARD,10,X"), "bad_card"),
        (da1_frame("0001,MULTI,1,5,D,9,C"), "malformed"),  # more cards than count
        (da1_frame("0001,ALIVE,extra"), "malformed"),
        (b"$0001,CARD,10,H*ZZZZ\r\n", "checksum"),
    ],
)
def test_bad_frames_are_errors_never_events(raw: bytes, kind: str) -> None:
    events = Da1Codec().feed(raw)
    assert len(events) == 1
    assert isinstance(events[0], DecodeError) and events[0].kind == kind


def test_dollar_inside_a_frame_starts_a_new_one() -> None:
    codec = Da1Codec()
    events = codec.feed(b"$0001,CAR" + frame(2, "CARD,8,S"))
    assert events == [DecodeError(kind="truncated", detail="$0001,CAR"), CardRead(card=card("8S"), seq=2)]


def test_oversize_frame_is_dropped_and_the_codec_resynchronises() -> None:
    codec = Da1Codec()
    long_text = "x" * 120
    data = b"$0001,FAULT,JAM," + long_text.encode() + b"*0000\r\n" + frame(2, "CARD,9,D")
    for chunked in (False, True):
        codec = Da1Codec()
        events = (
            [e for i in range(0, len(data), 7) for e in codec.feed(data[i : i + 7])]
            if chunked
            else codec.feed(data)
        )
        assert [type(e) for e in events] == [DecodeError, CardRead]
        assert isinstance(events[0], DecodeError) and events[0].kind == "oversize"


def test_frame_of_exactly_84_bytes_is_accepted() -> None:
    # spec: "A frame is at most 84 bytes from `$` to `\n`"
    text = "x" * 100
    for n in range(40, 80):
        raw = frame(1, "FAULT,E1," + text[:n])
        if len(raw) == 84:
            break
    assert len(raw) == 84
    assert Da1Codec().feed(raw) == [ShoeFault(code="E1", text=text[:n], seq=1)]
    assert isinstance(Da1Codec().feed(frame(1, "FAULT,E1," + text[: n + 1]))[0], DecodeError)


def test_gap_counts_lost_frames_modulo_10000() -> None:
    codec = Da1Codec()
    events = codec.feed(frame(9998, "ALIVE") + frame(1, "CARD,2,H"))
    assert events[1] == SequenceGap(lost=2, seq=1)  # 9999 and 0000 lost


def test_wrap_from_9999_to_0000_is_no_gap() -> None:
    codec = Da1Codec()
    events = codec.feed(frame(9999, "ALIVE") + frame(0, "ALIVE") + frame(1, "ALIVE"))
    assert events == [Alive(seq=9999), Alive(seq=0), Alive(seq=1)]


def test_duplicate_frame_is_reported_once_and_not_repeated_as_a_card() -> None:
    codec = Da1Codec()
    f = frame(12, "CARD,J,C")
    events = codec.feed(f + f + frame(13, "ALIVE"))
    assert events == [CardRead(card=card("JC"), seq=12), Duplicate(seq=12), Alive(seq=13)]


def test_power_on_hello_restarts_the_sequence_and_says_a_frame_may_be_lost() -> None:
    codec = Da1Codec()
    # the shoe restarted after frame 500: whatever it sent just before may never have
    # arrived (a card, a NOREAD), so the restart is reported like a gap of unknown size
    events = codec.feed(frame(500, "ALIVE") + frame(0, "HELLO,M,F,S") + frame(1, "ALIVE"))
    assert [type(e) for e in events] == [Alive, SequenceGap, Hello, Alive]
    assert events[1] == SequenceGap(lost=0, seq=0, restart=True)
    assert event_to_json(events[1]) == {"event": "gap", "lost": 0, "restart": True, "seq": 0}
    # HELLO 0000 right after 9999 is the plain successor: nothing to report
    codec = Da1Codec()
    events = codec.feed(frame(9999, "ALIVE") + frame(0, "HELLO,M,F,S"))
    assert not any(isinstance(e, SequenceGap) for e in events)
    # the very first frame heard (the app just started) has nothing before it
    assert Da1Codec().feed(frame(0, "HELLO,M,F,S"))[0] == Hello(model="M", firmware="F", serial_number="S", seq=0)
    events = codec.feed(frame(1, "ALIVE"))
    # an ID? answer mid-sequence is an ordinary frame
    events = codec.feed(frame(5, "HELLO,M,F,S"))
    assert events[0] == SequenceGap(lost=3, seq=5)


def test_reset_drops_the_partial_frame_but_not_the_sequence() -> None:
    codec = Da1Codec()
    codec.feed(frame(1, "ALIVE") + b"$0002,CA")
    codec.reset()
    assert codec.feed(b"RD,2,H*0000\r\n") == []  # tail of the old frame is noise
    assert codec.feed(frame(4, "ALIVE")) == [SequenceGap(lost=2, seq=4), Alive(seq=4)]


def test_encode_and_decode_agree() -> None:
    codec = make_codec("da1")
    event = MultiCard(count=3, cards=(card("AS"), card("10Fi")), seq=77)
    assert codec.feed(codec.encode(event, 77)) == [event]


def test_free_text_commas_become_semicolons() -> None:
    codec = Da1Codec()
    raw = codec.encode(ShoeFault(code="LID", text="lid open, close it"), 3)
    assert codec.feed(raw) == [ShoeFault(code="LID", text="lid open; close it", seq=3)]


def test_id_request_and_command_reader() -> None:
    request = Da1Codec().id_request()
    assert request == da1_frame("ID?")
    reader = Da1CommandReader()
    assert reader.feed(b"noise" + request[:4]) == []
    assert reader.feed(request[4:] + b"$ID?*0000\r\n" + request) == ["ID?", "ID?"]
    # the earlier firmware's reader takes only the XOR form
    old = Da1CommandReader(xor=True)
    assert old.feed(b"$ID?*4914\r\n$ID?*32\r\n") == ["ID?"]


def test_unknown_codec_name() -> None:
    with pytest.raises(ValueError, match="unknown codec"):
        make_codec("nmea")


def test_a_noread_lost_before_a_restart_is_not_silent() -> None:
    # found by test_codec_properties: NOREAD 9999 arrives with its '$' destroyed (noise,
    # skipped per the spec), then the shoe restarts with HELLO 0000. The driver must still
    # tell the dealer that a card may be missing.
    codec = Da1Codec()
    codec.feed(frame(9998, "ALIVE"))
    broken = b"\x00" + frame(9999, "NOREAD")[1:]
    events = codec.feed(broken + frame(0, "HELLO,M,F,S") + frame(1, "ALIVE"))
    assert not any(isinstance(e, NoRead) for e in events)
    assert SequenceGap(lost=0, seq=0, restart=True) in events
