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


def _shuffles_on_record(s: Station) -> int:
    assert s.running is not None
    return len(s.running.store.audit_entries(kind="shoe_loaded"))


def test_a_shuffle_is_on_record_so_a_restart_deals_from_the_new_shoe(station: Any) -> None:
    """A shuffle the service saw, then a restart before the next round (between rounds, and
    with the round it came in still open): the next round is dealt from the new shoe, counted
    from 0 — not the old shoe's count going on past the cards it holds (a kill campaign found
    an open round recorded with 521 cards out of a 416-card shoe, which then never replayed)."""
    s: Station = station("10S 9H QD 8C 10D 9S QH 8D")
    c = s.dealer()
    first = one_round(s, c)
    old = c.request("state")["config"]["shoe"]["id"]
    s.sim.shuffle()  # between rounds
    wait_new_shoe(c, old)
    s.stop()
    s.start()
    wait_connected(s)
    c = s.dealer()
    second = one_round(s, c)
    # a shuffle while a round is in play, then a restart with that round open
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 3)
    before = _shuffles_on_record(s)
    s.sim.shuffle()
    deadline = time.monotonic() + 10
    while _shuffles_on_record(s) == before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _shuffles_on_record(s) == before + 1
    s.stop()
    s.start()
    wait_connected(s)
    c = s.dealer()
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    state = s.deal(c, 1)
    assert state["concluded"], state["output"]
    third = int(state["round_id"])
    c.request("next_round")
    fourth = one_round(s, c)
    assert s.running is not None
    store = s.running.store
    shoes = [store.export_round(r)["shoe"] for r in (first, second, third, fourth)]
    assert shoes[0]["id"] == old and shoes[0]["dealt"] == 0
    assert shoes[1]["id"] != old and shoes[1]["dealt"] == 0  # the new shoe, not old + 4
    assert shoes[2] == {"id": shoes[1]["id"], "dealt": 4}  # the shoe it was dealt from
    # shuffled in round 3 after its first 3 cards (10D 9S QH): the dealer's second card (10S,
    # the new shoe's first) came out of the new shoe, so round 4 finds 1 card of it out
    assert shoes[3]["id"] not in (old, shoes[1]["id"]) and shoes[3]["dealt"] == 1
