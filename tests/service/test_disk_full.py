"""A full disk mid-round (issue 39 item 4), against a real service with the shoe on a pty and
its store on a small tmpfs: nothing is shown to a screen before it is on disk, the table
holds with a clear message while the disk is full, and once space returns every card dealt
meanwhile is recorded, in order."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import dealer_assist.service.station as st
from tests.service.conftest import Station, make_shoe, wait_connected

CARDS = "10S 9H QD 8C 7D 6H 5S 4C 3D 2H KS JH 10C 9D 8S"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    where = tmp_path / "disk"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"a tmpfs cannot be mounted here (root and mount(2) needed): {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def on_disk(db: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [json.loads(raw)["card"] for (raw,) in conn.execute(
            "SELECT event_json FROM events ORDER BY round_id, seq") if json.loads(raw).get("type") == "card"]
    finally:
        conn.close()


def fill(where: Path) -> Path:
    filler = where / "filler"
    with filler.open("wb") as out:
        with contextlib.suppress(OSError):
            while True:
                out.write(b"\0" * 65536)
                out.flush()
    with contextlib.suppress(OSError), filler.open("ab") as out:  # the last pages too
        while True:
            out.write(b"\0" * 512)
            out.flush()
    return filler


def test_a_full_disk_mid_round_shows_nothing_not_on_disk_and_loses_no_card(
        small_disk: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(st.CONFIG_ENV, raising=False)
    s = Station(small_disk / "state", tmp_path / "run" / "station.sock", make_shoe(CARDS))
    db = s.state / "table.db"
    shown_not_on_disk: list[str] = []

    def screen(name: str, data: dict[str, Any]) -> None:  # a screen: what it is shown, against the file
        if name == "round":
            shown = [e["card"] for e in data["events"] if e["type"] == "card"]
            stored = on_disk(db)
            if shown != stored[:len(shown)] or len(shown) > len(stored):
                shown_not_on_disk.append(f"shown {shown}, on disk {stored}")
            if data["tentative"] and len(shown) + 1 > len(stored) + 1:
                shown_not_on_disk.append(f"tentative {data['tentative']}")

    try:
        s.start()
        wait_connected(s)
        c = s.dealer()
        watcher = s.client(on_notify=screen)
        watcher.request("state")
        for area in (1, 2, 3, 4, 5):
            c.request("wager", player=f"p{area}", bet="main", amount=10, area=area)
        s.deal(c, 2)
        filler = fill(small_disk)
        with pytest.raises(OSError) as full:
            (small_disk / "one-more").write_bytes(b"x" * 4096)
        assert full.value.errno == errno.ENOSPC
        dealt = 2
        held = ""
        while dealt < 9:  # cards dealt while the disk is full, until the store refuses one and after
            s.sim.deal()
            dealt += 1
            time.sleep(0.3)
            held = held or c.request("state")["store_error"]
        assert "full" in held and "holds" in held, held  # the reason, and what the table does
        state = c.request("state")
        assert len(on_disk(db)) < dealt  # some cards wait: not shown either (checked as they came)
        shown = [e["card"] for e in state["events"] if e["type"] == "card"]
        assert shown == on_disk(db)[:len(shown)]
        filler.unlink()  # space returns
        deadline = time.monotonic() + 20
        while (c.request("state")["store_error"] or len(on_disk(db)) < dealt) and time.monotonic() < deadline:
            time.sleep(0.1)
        state = c.request("state")
        assert state["store_error"] == "" and state["hold"] == ""
        assert on_disk(db) == CARDS.split()[:dealt]  # every card, in the order it came out
        assert [e["card"] for e in state["events"] if e["type"] == "card"] == CARDS.split()[:dealt]
        time.sleep(0.3)  # the last broadcasts reach the watcher
        assert shown_not_on_disk == []
    finally:
        s.stop()
        s.sim.close()
        threading.Event().wait(0.05)
        with contextlib.suppress(OSError):
            os.sync()
