"""Every 3-bit error of every da1 card frame, through the codec: ``python -m tests.hardware.bit_errors_full``.

Too slow for the test suite (about 12 million frames fed to ``Da1Codec.feed``, a minute or
two on one core); test_codec_bit_errors.py runs the same check on one frame. Together
with that file's linear search it covers all C(n, 3) errors of each frame:

1. errors that change no delimiter ('$', '*', '\\r', '\\n') and make none: the codec cuts
   the frame where it cut the original and compares the check digits with
   ``da1_check_text(body)``, so the linear search of the CRC decides them (the test file);
2. errors that make a delimiter somewhere (a byte turned into '$', '*', '\\r' or '\\n'): fed
   here to the codec, every one;
3. errors that only break delimiters (no '$' left, no '\\n' left, no '*', or the '\\r' turned
   into another character so the check has five characters): they cannot make a frame the
   codec accepts; a random sample of them is fed here to check that.

It prints, per class, how many errors were fed and how many the codec read as a card
(the same card, another card, and whether a sequence gap came with it).
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from itertools import combinations

from hardware.codecs import Da1Codec, da1_frame
from hardware.events import CardRead, DecodeError, Duplicate, SequenceGap
from tests.hardware.test_codec_bit_errors import FRAMES, SEQ, _flip

DELIMITERS = frozenset(b"$*\r\n")
_BEFORE = da1_frame(f"{SEQ - 1:04d},ALIVE")  # the frame before, so that a changed seq shows as a gap


def _makes_delimiter(frame: bytes, bits: tuple[int, ...]) -> bool:
    damaged = _flip(frame, bits)
    return any(damaged[b >> 3] in DELIMITERS and frame[b >> 3] not in DELIMITERS for b in bits)


def delimiter_making_errors(frame: bytes, weight: int = 3) -> set[tuple[int, ...]]:
    """Every ``weight``-bit error that turns some byte into a delimiter it was not."""
    n = len(frame) * 8
    found: set[tuple[int, ...]] = set()
    for pos, byte in enumerate(frame):
        if byte in DELIMITERS:
            continue
        own = range(pos * 8, pos * 8 + 8)
        for k in range(1, weight + 1):
            for inside in combinations(own, k):
                value = byte
                for b in inside:
                    value ^= 0x80 >> (b & 7)
                if value not in DELIMITERS:
                    continue
                others = [b for b in range(n) if b // 8 != pos]
                for rest in combinations(others, weight - k):
                    found.add(tuple(sorted(inside + rest)))
    return found


def classify(codec: Da1Codec, frame: bytes, card: object, damaged: bytes) -> str:
    """'rejected', or how the codec read ``damaged`` after the frame before it."""
    codec.reset()
    codec.forget_sequence()
    codec.feed(_BEFORE)
    events = codec.feed(damaged)
    cards = [e for e in events if isinstance(e, CardRead)]
    others = [e for e in events if not isinstance(e, (CardRead, DecodeError, SequenceGap, Duplicate))]
    if not cards and not others:
        return "rejected"
    gap = any(isinstance(e, (SequenceGap, Duplicate)) for e in events)
    if others:
        return "read as another frame type" + (" with a gap" if gap else "")
    same = all(c.card == card for c in cards)
    return ("read as the same card" if same else "read as ANOTHER card") + (" with a gap" if gap else "")


def main(sample: int = 200_000, seed: int = 15) -> int:
    codec = Da1Codec()
    made: Counter[str] = Counter()
    for card, frame in FRAMES.items():
        for bits in delimiter_making_errors(frame):
            made[classify(codec, frame, card, _flip(frame, bits))] += 1
    print(f"3-bit errors that make a delimiter, {len(FRAMES)} card frames: {sum(made.values())} fed")
    for outcome, count in sorted(made.items()):
        print(f"  {outcome}: {count}")
    rng = random.Random(seed)
    broken: Counter[str] = Counter()
    frames = list(FRAMES.items())
    while sum(broken.values()) < sample:
        card, frame = rng.choice(frames)
        delimiters = [i for i, b in enumerate(frame) if b in DELIMITERS]
        first = rng.choice(delimiters) * 8 + rng.randrange(8)
        rest = rng.sample([b for b in range(len(frame) * 8) if b != first], 2)
        bits = tuple(sorted([first, *rest]))
        if _makes_delimiter(frame, bits):
            continue  # class 2, fed above
        broken[classify(codec, frame, card, _flip(frame, bits))] += 1
    print(f"3-bit errors that break a delimiter and make none: a sample of {sample} fed")
    for outcome, count in sorted(broken.items()):
        print(f"  {outcome}: {count}")
    bad = sum(v for k, v in (made + broken).items() if "ANOTHER" in k and "gap" not in k)
    print(f"read as another card with no sequence gap: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
