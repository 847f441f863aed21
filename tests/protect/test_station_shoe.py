"""A station records the shoe of every round (issue 36, Build 1): rounds dealt from a simulated
shoe on a pseudo-terminal through the station service; a shuffle (the shoe's LOADED frame)
starts a new shoe id; a restart goes on with the last round's shoe; ``history export``
carries the field."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from dealer_assist.service.client import ServiceClient
from tests.service.conftest import Station, wait_connected

ROOT = Path(__file__).resolve().parents[2]


def one_round(s: Station, c: ServiceClient) -> int:
    """Lucky 8: p1 bets 10 on area 1 and stands on two cards; the dealer stands on 17+."""
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 3)
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    state = s.deal(c, 1)
    assert state["concluded"], state["output"]
    c.request("next_round")
    return int(state["round_id"])


def wait_new_shoe(c: ServiceClient, old: str) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if c.request("state")["config"]["shoe"]["id"] != old:
            return
        time.sleep(0.02)
    raise AssertionError("the shuffle never reached the session")


def test_every_round_names_its_shoe_and_the_cards_before_it(station: Any) -> None:
    # 10+Q = 20 against 9+8 = 17, then 10+Q against 9+8 again (other suits)
    s: Station = station("10S 9H QD 8C 10D 9S QH 8D")
    assert s.running is not None
    c = s.dealer()
    first = one_round(s, c)
    second = one_round(s, c)
    shoe = c.request("state")["config"]["shoe"]["id"]
    s.sim.shuffle()  # LOADED: a freshly shuffled shoe (the same card order again)
    wait_new_shoe(c, shoe)
    third = one_round(s, c)
    s.stop()  # a restart between rounds: the shoe in the box goes on
    s.start()
    wait_connected(s)
    c = s.dealer()
    fourth = one_round(s, c)
    store = s.running.store
    shoes = [store.export_round(r)["shoe"] for r in (first, second, third, fourth)]
    a, b = shoes[0]["id"], shoes[2]["id"]
    assert a != b and a.startswith("S-") and b.startswith("S-")
    assert shoes == [{"id": a, "dealt": 0}, {"id": a, "dealt": 4}, {"id": b, "dealt": 0}, {"id": b, "dealt": 4}]
    path = store.path
    s.stop()
    done = subprocess.run([sys.executable, "-m", "dealer_assist", "history", "--db", str(path), "export",
                           str(second)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["shoe"] == {"id": a, "dealt": 4}
