"""3-bit errors that make or break a frame delimiter, through the codec, on one frame.

``python -m tests.hardware.bit_errors_full`` runs this for every card frame (too slow for
the suite); see its docstring for how the three classes of errors cover all of them.
"""

from __future__ import annotations

from dealer_assist.base.cards import card
from hardware.codecs import Da1Codec
from tests.hardware.bit_errors_full import DELIMITERS, classify, delimiter_making_errors
from tests.hardware.test_codec_bit_errors import FRAMES, _flip


def test_every_delimiter_making_three_bit_error_of_one_frame_is_rejected() -> None:
    c = card("10H")
    frame = FRAMES[c]
    errors = delimiter_making_errors(frame)
    # e.g. the ',' before the rank made a '$' (0x2C -> 0x24) with two more flips anywhere
    assert any(frame[b >> 3] == ord(",") and _flip(frame, (b,))[b >> 3] == ord("$") for p in errors for b in p)
    for bits in errors:
        damaged = _flip(frame, bits)
        assert any(damaged[b >> 3] in DELIMITERS and damaged[b >> 3] != frame[b >> 3] for b in bits)
    codec = Da1Codec()
    read = {bits: classify(codec, frame, c, _flip(frame, bits)) for bits in errors}
    # one error is read, as the same card: the three flips that turn '\r' into '\n' (0x0D ^ 0x0A)
    r = (len(frame) - 2) * 8
    assert {bits for bits, outcome in read.items() if outcome != "rejected"} == {(r + 5, r + 6, r + 7)}
    assert read[(r + 5, r + 6, r + 7)] == "read as the same card"
