"""Two shuffles while one round is dealt (issue 36): the shoe the first one loads gives the
round some cards and is shuffled again before the round ends. No round names that shoe, so its
cards are on record through the shuffles' audit entries ({replaces, shoe, at}: the second one
replaces the middle shoe) and every reader splits the round's cards by them: each card out of
the shoe against exactly one shoe (protect/report.py ``shoe_spans``).

Through the real service, a simulated Lucky 8 shoe on a pseudo-terminal that deals the same
card order again from its first card after each shuffle (LOADED). Lucky 8's count at 6 decks
(tests/protect/test_station_count.py): A -1, 2..7 +1, 8 0, 9 10 -1; 312 cards."""

from __future__ import annotations

import time
from typing import Any

import pytest

from dealer_assist.protect.live import shoe_conditions
from dealer_assist.protect.report import rebuild_counts, round_row, shoe_spans, store_rounds
from dealer_assist.service.client import ServiceClient
from tests.protect.test_station_count import read
from tests.service.conftest import Station, wait_connected

# Round A, dealt in order (p1, dealer, p1; the dealer draws to 17 or more, 3.34):
#   shoe S1: p1 2S, dealer 3H, p1 5D                      3 cards (+3), then LOADED (S2, at 3)
#   shoe S2: p1 stands on 7; dealer 3H +2S = 5            1 card (+1), then LOADED (S3, at 4)
#   shoe S3: dealer +2S 7, +3H 10, +5D 15, +10C 25 bust   4 cards: +1 +1 +1 -1 = +2
# Round B, shoe S3 (4 out): p1 9S, dealer 10H, p1 10D (19) stands; dealer +7C = 17 stands
CARDS = "2S 3H 5D 10C 9S 10H 10D 7C"


def shuffles(s: Station) -> list[dict[str, Any]]:
    assert s.running is not None
    return [e.detail for e in s.running.store.audit_entries(kind="shoe_loaded")]


def shuffle(s: Station, c: ServiceClient, then: int) -> dict[str, Any]:
    """LOADED, waited for until its audit entry is there (``then`` entries in all); the count."""
    s.sim.shuffle()
    deadline = time.monotonic() + 10
    while len(shuffles(s)) < then and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(shuffles(s)) == then, "the shuffle never reached the service"
    return read(c)


@pytest.mark.parametrize("restart", [False, True], ids=["live", "restart-between-the-shuffles"])
def test_every_card_of_a_round_shuffled_twice_is_on_record_against_its_shoe(station: Any, restart: bool) -> None:
    s: Station = station(CARDS)
    c = s.dealer()
    s1 = c.request("state")["config"]["shoe"]["id"]
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 3)
    first = shuffle(s, c, 1)
    s2 = first["shoe"]
    assert s2 not in (None, s1) and (first["running_count"], first["cards_out"]) == (0, 0)
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    s.deal(c, 1)  # the dealer's 2S, out of S2
    middle = read(c)
    assert (middle["shoe"], middle["running_count"], middle["cards_out"]) == (s2, 1, 1)
    if restart:  # the round open, its first shuffle on record: a restart keeps S2 as the shoe in play
        s.stop()
        s.start()
        wait_connected(s)
        c = s.dealer()
        assert read(c) == middle
    second = shuffle(s, c, 2)
    s3 = second["shoe"]
    assert s3 not in (None, s1, s2) and (second["running_count"], second["cards_out"]) == (0, 0)
    # the second shuffle ends the middle shoe S2 (not S1, which the first one ended)
    assert shuffles(s) == [{"replaces": s1, "shoe": s2, "at": 3}, {"replaces": s2, "shoe": s3, "at": 4}]
    state = s.deal(c, 4)
    assert state["concluded"], state["output"]
    a = int(state["round_id"])
    after_a = read(c)  # S3: 2S 3H 5D 10C, +2
    assert (after_a["shoe"], after_a["running_count"], after_a["cards_out"]) == (s3, 2, 4)
    c.request("next_round")
    assert c.request("state")["config"]["shoe"] == {"id": s3, "dealt": 4}
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 3)
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    b = int(s.deal(c, 1)["round_id"])
    c.request("next_round")
    assert (read(c)["shoe"], read(c)["running_count"], read(c)["cards_out"]) == (s3, 0, 8)

    assert s.running is not None
    rows = {r.round_id: r for r in store_rounds(s.running.store)}
    spans = [(shoe, " ".join(str(card) for card in cards)) for shoe, cards in shoe_spans(rows[a])]
    assert spans == [(s1, "2S 3H 5D"), (s2, "2S"), (s3, "2S 3H 5D 10C")]
    assert sum(len(cards) for _, cards in shoe_spans(rows[a])) == len(rows[a].cards) == 8
    assert rows[b].shuffles == [] and rows[b].shoe_id == s3
    rebuild_counts(list(rows.values()))
    # round B starts from S3's 4 cards (+2, 308 left), as the station said
    assert [str(card) for card in rows[b].seen] == ["2S", "3H", "5D", "10C"]
    assert rows[b].true_count == pytest.approx(2 / (308 / 52))


def _row(round_id: int, shoe: str, dealt: int, cards: str, shuffled: list[tuple[str, int]]) -> Any:
    r = round_row(round_id, "T1", f"2026-11-29T10:0{round_id}:00+00:00",
                  {"game": "lucky8", "decks": 6, "shoe": {"id": shoe, "dealt": dealt}},
                  [{"type": "card", "card": c} for c in cards.split()])
    r.shuffles = shuffled
    return r


def test_the_floor_reads_the_shoe_in_play_after_two_shuffles_in_the_latest_round() -> None:
    # round 7 of S1 (10 out before it): 9S 9H out of S1, shuffled (S2 at 2): 4C out of S2,
    # shuffled again (S3 at 3): 5D 6H out of S3. The shoe in play is S3, 2 cards out (+2).
    last = _row(7, "S1", 10, "9S 9H 4C 5D 6H", [("S2", 2), ("S3", 3)])
    assert [(shoe, [str(c) for c in cards]) for shoe, cards in shoe_spans(last)] == [
        ("S1", ["9S", "9H"]), ("S2", ["4C"]), ("S3", ["5D", "6H"])]
    (condition,) = shoe_conditions([_row(6, "S1", 0, "2C 3C 4C 5C 6C 7C 8C 9C 10C JC", []), last], -1.0)
    assert condition.subject == "S3" and "(2 of 312 cards out, 2 on record)" in condition.detail
    # the next round of S3 (2 out before it) counts the same two cards, not S1's or S2's
    nxt = _row(8, "S3", 2, "10S", [])
    rows = [last, nxt]
    rebuild_counts(rows)
    assert [str(c) for c in nxt.seen] == ["5D", "6H"]
