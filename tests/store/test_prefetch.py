"""The read-ahead of a store file before verify (dealer_assist/store/prefetch.py): a hint to
the kernel that covers the whole file when it fits in memory, and nothing otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dealer_assist.store import prefetch
from dealer_assist.store.prefetch import CHUNK, Prefetch


@pytest.mark.skipif(not hasattr(os, "posix_fadvise") or prefetch.available_memory() is None,
                    reason="posix_fadvise and /proc/meminfo are Linux's; elsewhere nothing is prefetched")
def test_the_whole_file_is_asked_for_in_chunks(tmp_path: Path) -> None:
    path = tmp_path / "table.db"
    size = 20 * CHUNK + 12345  # 21 chunks, the last one short
    with open(path, "wb") as f:
        f.truncate(size)
    with Prefetch(path) as ahead:
        ahead.wait()
    assert ahead.requested == size


def test_nothing_is_asked_for_a_file_that_does_not_fit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "table.db"
    path.write_bytes(b"\0" * 4096)
    monkeypatch.setattr(prefetch, "available_memory", lambda: 5000)  # four fifths of it: less than the file
    with Prefetch(path) as ahead:
        pass
    assert ahead.requested == 0


def test_nothing_is_asked_without_a_file(tmp_path: Path) -> None:
    with Prefetch(None) as none, Prefetch(tmp_path / "missing.db") as missing:
        pass
    assert none.requested == missing.requested == 0
