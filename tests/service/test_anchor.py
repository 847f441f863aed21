"""The rollback anchor and the rule that refuses an older store."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealer_assist.service.anchor import SLOT, Anchor, read_anchor, rollback_problem, write_anchor

KEY = b"k" * 32


def test_the_newest_valid_slot_is_read_and_a_torn_one_left(tmp_path: Path) -> None:
    path = tmp_path / "round-anchor"
    write_anchor(path, Anchor(4, 40), KEY, 0)
    write_anchor(path, Anchor(5, 47), KEY, 1)
    assert read_anchor(path, KEY) == Anchor(5, 47)
    data = bytearray(path.read_bytes())
    data[SLOT + 3:SLOT + 9] = b"XXXXXX"  # the write of slot 1 torn by a power cut
    path.write_bytes(bytes(data))
    assert read_anchor(path, KEY) == Anchor(4, 40)  # the older one: a weaker bound, no alarm


def test_an_anchor_under_another_key_is_a_problem_not_none(tmp_path: Path) -> None:
    path = tmp_path / "round-anchor"
    write_anchor(path, Anchor(4, 40), b"x" * 32, 0)
    with pytest.raises(ValueError, match="does not match the station key"):
        read_anchor(path, KEY)
    assert read_anchor(tmp_path / "none", KEY) is None


@pytest.mark.parametrize(("anchor", "newest", "generation", "head", "words"), [
    (Anchor(9, 90), 8, 95, None, "newest round is 8, but the service recorded round 9"),
    (Anchor(9, 90), 9, 89, None, "commit 89, but the service saw commit 90"),
    (None, 3, 30, 31, "older than its head record (commit 31)"),
    (Anchor(9, 90), 9, 90, 90, ""),
    (Anchor(9, 90), 12, 130, 120, ""),
])
def test_a_store_older_than_either_anchor_is_named(anchor: Anchor | None, newest: int, generation: int,
                                                   head: int | None, words: str) -> None:
    problem = rollback_problem(anchor, newest, generation, head)
    assert (words in problem) if words else problem == ""
