"""A shuffle while a round is still being dealt (issue 36): the cards that finish that round
come out of the freshly loaded shoe, so they are that shoe's — the next round's header says so
(spec/round-script.md ``shoe``: the cards that "left it since that shuffle before this round's
first card"), ``history export`` carries it, the station's count (op ``shoe_count``) and the
report's rebuild (protect/report.py) count them, each card in exactly one shoe.

Through the real service, a simulated Lucky 8 shoe on a pseudo-terminal: after the shuffle
(LOADED) the simulated shoe deals the same card order again from its first card.

Lucky 8's own count at 6 decks (tests/protect/test_station_count.py): A -1, 2..7 +1, 8 0,
9 10 -1; 6 decks of 52 = 312 cards."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import pytest

from dealer_assist.protect.report import rebuild_counts, round_row
from dealer_assist.service.client import ServiceClient
from tests.protect.test_station_count import read
from tests.protect.test_station_shoe import ROOT
from tests.service.conftest import Station, wait_connected

# The card list, dealt in order (p1, dealer, p1, then the dealer draws; Lucky 8's dealer stands
# on 17 or more):
#   round A, old shoe S1:  p1 2S, dealer 3H, p1 5D                      3 cards, then LOADED
#   round A, new shoe S2:  p1 stands on 7; dealer 3H +2S 5, +3H 8, +5D 13, +10C 23 (bust)
#                          4 cards out of S2: 2S +1, 3H +1, 5D +1, 10C -1 = running +2
#   round B, shoe S2:      p1 9S, dealer 10H, p1 10D (19), stands; dealer +7C = 17, stands
#                          4 more: 9S -1, 10H -1, 10D -1, 7C +1 = -2, running 0 after 8 out
CARDS = "2S 3H 5D 10C 9S 10H 10D 7C"


def _wait_shuffle_recorded(s: Station) -> None:
    assert s.running is not None
    deadline = time.monotonic() + 10
    while not s.running.store.audit_entries(kind="shoe_loaded") and time.monotonic() < deadline:
        time.sleep(0.02)
    assert s.running.store.audit_entries(kind="shoe_loaded"), "the shuffle never reached the service"


def _round_a(s: Station, c: ServiceClient) -> tuple[int, str, str]:
    """Round A with the shuffle after its first three cards; returns (its id, S1, S2 as the
    count names it right after the shuffle)."""
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 3)
    old = c.request("state")["config"]["shoe"]["id"]
    before = read(c)
    assert (before["shoe"], before["running_count"], before["cards_out"]) == (old, 3, 3)  # 2S 3H 5D: +3
    s.sim.shuffle()
    _wait_shuffle_recorded(s)
    shuffled = read(c)
    # the new shoe, nothing out of it yet: a full shoe (0 out, running 0)
    assert shuffled["shoe"] not in (None, old)
    assert (shuffled["running_count"], shuffled["cards_out"], shuffled["true_count"]) == (0, 0, 0.0)
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    state = s.deal(c, 4)
    assert state["concluded"], state["output"]
    # the dealer's 2S 3H 5D 10C came out of the new shoe: 4 out, running +2, 308 left
    mid = read(c)
    assert (mid["shoe"], mid["running_count"], mid["cards_out"], mid["on_record"]) == (shuffled["shoe"], 2, 4, 4)
    assert mid["true_count"] == pytest.approx(2 / (308 / 52))  # 0.3377
    return int(state["round_id"]), old, str(shuffled["shoe"])


def _round_b(s: Station, c: ServiceClient) -> int:
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 3)
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    state = s.deal(c, 1)
    assert state["concluded"], state["output"]
    c.request("next_round")
    return int(state["round_id"])


def _export(path: Any, round_id: int) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "dealer_assist", "history", "--db", str(path), "export",
                           str(round_id)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


@pytest.mark.parametrize("restart", [False, True], ids=["live", "restart-between-rounds"])
def test_the_cards_after_a_mid_round_shuffle_count_in_the_new_shoe(station: Any, restart: bool) -> None:
    s: Station = station(CARDS)
    c = s.dealer()
    a, old, new = _round_a(s, c)
    c.request("next_round")
    if restart:  # the shuffle is on record: a restart still knows round A's last 4 cards are S2's
        s.stop()
        s.start()
        wait_connected(s)
        c = s.dealer()
    # round B's header: dealt from S2, 4 cards of it out before its first card
    assert c.request("state")["config"]["shoe"] == {"id": new, "dealt": 4}
    nxt = read(c)
    assert (nxt["shoe"], nxt["running_count"], nxt["cards_out"]) == (new, 2, 4)
    b = _round_b(s, c)
    after = read(c)  # 8 out of S2: +2 - 2 = 0
    assert (after["shoe"], after["running_count"], after["cards_out"]) == (new, 0, 8)
    assert s.running is not None
    store = s.running.store
    assert store.export_round(a)["shoe"] == {"id": old, "dealt": 0}
    assert store.export_round(b)["shoe"] == {"id": new, "dealt": 4}

    rows = [round_row(r, "t", "", {k: v for k, v in doc.items() if k != "events"}, doc["events"])
            for r, doc in ((r, store.export_round(r)) for r in (a, b))]
    rebuild_counts(rows)
    # round B's true count at its start: running +2 over 308 cards left, as the station said
    assert [str(card) for card in rows[1].seen] == ["2S", "3H", "5D", "10C"]
    assert rows[1].true_count == pytest.approx(2 / (308 / 52))
    assert rows[0].true_count == 0.0 and rows[0].seen == []
    path = store.path
    s.stop()
    assert _export(path, b)["shoe"] == {"id": new, "dealt": 4}
    assert _export(path, a)["shoe"] == {"id": old, "dealt": 0}


def _row(round_id: int, shoe: str, dealt: int, cards: str) -> Any:
    events = [{"type": "card", "card": c} for c in cards.split()]
    return round_row(round_id, "T1", f"2026-11-29T10:0{round_id}:00+00:00",
                     {"game": "lucky8", "decks": 6, "shoe": {"id": shoe, "dealt": dealt}}, events)


def test_the_floor_takes_a_new_shoes_first_cards_from_the_round_before_it() -> None:
    """The reading the floor service and ``protect`` share (report.carried_in): round 2 is S2's
    first round on record and says 3 cards of S2 were out before it, so they are round 1's
    last 3 (4C 5D 6H: +3). Round 3 goes on in S2 after round 2's 2 cards (10S 10H: -2)."""
    from dealer_assist.protect.live import shoe_conditions
    from dealer_assist.protect.report import carried_in

    rounds = [_row(1, "S1", 40, "9S 9H 4C 5D 6H"), _row(2, "S2", 3, "10S 10H"), _row(3, "S2", 5, "2C")]
    assert {k: [str(c) for c in v] for k, v in carried_in(rounds).items()} == {("T1", "S2"): ["4C", "5D", "6H"]}
    rebuild_counts(rounds)
    assert rounds[1].true_count == pytest.approx(3 / (309 / 52))  # +3 with 312 - 3 left
    assert rounds[2].true_count == pytest.approx(1 / (307 / 52))  # +3 - 2 with 312 - 5 left
    # the floor's shoe alert counts them too: 6 cards of S2 out, all 6 faces known
    (condition,) = shoe_conditions(rounds, -1.0)  # any edge is over a level of -100 %
    assert condition.subject == "S2" and "(6 of 312 cards out, 6 on record)" in condition.detail
    # a round of the same shoe before, or no round before: nothing is carried
    assert carried_in([_row(1, "S2", 0, "9S"), _row(2, "S2", 1, "2C")]) == {}
    assert carried_in([_row(2, "S2", 3, "2C")]) == {}
