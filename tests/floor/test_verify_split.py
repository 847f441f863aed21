"""How a table's verify shares its rounds among its parts (no server needed): every seq of the
range in exactly one part, in order; the first part has fewer rounds by the audit chain's weight,
since its connection walks the audit chain once its rounds are done."""

from __future__ import annotations

import pytest

from dealer_assist.floor.reader import AUDIT_ENTRY_WEIGHT, verify_split


def _seqs(ranges: list[tuple[int, int]]) -> list[int]:
    return [seq for lo, hi in ranges for seq in range(lo, hi + 1)]


@pytest.mark.parametrize(("lo", "hi", "audit", "parts"), [
    (1, 10080, 12961, 2), (21601, 31680, 12961, 2), (1, 6, 0, 3), (1, 7, 0, 1), (3, 3, 40, 2),
    (1, 2, 1000, 2), (10, 1009, 500, 4), (1, 5, 0, 8)])
def test_every_seq_in_one_part_in_order(lo: int, hi: int, audit: int, parts: int) -> None:
    ranges = verify_split(lo, hi, audit, parts)
    assert _seqs(ranges) == list(range(lo, hi + 1))
    assert 1 <= len(ranges) <= parts
    assert all(a <= b for a, b in ranges)


def test_no_rounds_no_parts() -> None:
    assert verify_split(5, 4, 300, 2) == []  # (an empty range: the audit chain is walked alone)


def test_the_first_part_leaves_room_for_the_audit_chain() -> None:
    # a week of the bench's table: 10,080 rounds, 12,961 audit entries
    first, second = verify_split(1, 10080, 12961, 2)
    rounds_first, rounds_second = first[1] - first[0] + 1, second[1] - second[0] + 1
    assert rounds_first + rounds_second == 10080
    # the two parts' work (in rounds' worth) within a round of each other
    assert abs(rounds_first + AUDIT_ENTRY_WEIGHT * 12961 - rounds_second) <= 1
    # with no audit entries, halves; with more audit work than half, the first part one round
    assert verify_split(1, 10, 0, 2) == [(1, 5), (6, 10)]
    assert verify_split(1, 10, 10**6, 2) == [(1, 1), (2, 10)]
    # three parts: the two after the first share the rest equally
    a, b, c = verify_split(1, 1000, 1000, 3)
    assert b[1] - b[0] == c[1] - c[0]
