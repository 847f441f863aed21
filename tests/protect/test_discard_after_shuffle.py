"""A card set aside between rounds after a shuffle (issue 36): it left the new shoe after the
shuffle and before the next round's first card, so the next round's ``shoe.dealt`` counts it
(spec/round-script.md ``shoe``: the cards that "left it since that shuffle before this round's
first card", burns included; 5.1 counts it too). Its face is on record in the round's header
(``shoe_dealt``): the station's count, ``history export``, the protect report and the floor's
shoe reading all count that card, never the last card of the round before the shuffle (which
was the old shoe's).

Through the real service and a simulated Lucky 8 shoe on a pseudo-terminal that deals the
same card order again from its first card after a shuffle. Lucky 8's count at 6 decks
(tests/protect/test_station_count.py): A -1, 2..7 +1, 8 0, 9 10 -1; 312 cards."""

from __future__ import annotations

from typing import Any

import pytest

from dealer_assist.base.cards import parse_card
from dealer_assist.protect.counts import count_for
from dealer_assist.protect.live import shoe_conditions
from dealer_assist.protect.report import carried_in, rebuild_counts, store_rounds
from tests.protect.test_shuffle_mid_round import _export
from tests.protect.test_station_count import read
from tests.protect.test_station_shoe import one_round, wait_new_shoe
from tests.service.conftest import Station, wait_connected

SUE = {"user": "sue", "pin": "482913"}  # a supervisor (tests/service/conftest.py)
# round A, shoe S1: p1 5S, dealer 9H, p1 6D, dealer 8C (17, stands)
# LOADED between rounds: S2 deals 5S 9H 6D 8C AS ... again
# 5S out of S2 with no wager down: held, set aside by a supervisor (+1)
# round B, shoe S2 (1 out): p1 9H, dealer 6D, p1 8C (17) stands; dealer +AS = soft 17 stands (3.34)
CARDS = "5S 9H 6D 8C AS 10D"


def test_a_card_set_aside_after_a_shuffle_counts_in_the_new_shoe_everywhere(station: Any) -> None:
    s: Station = station(CARDS)
    c = s.dealer()
    s1 = c.request("state")["config"]["shoe"]["id"]
    a = one_round(s, c)
    s.sim.shuffle()
    wait_new_shoe(c, s1)
    s2 = c.request("state")["config"]["shoe"]["id"]
    assert c.request("state")["config"]["shoe"] == {"id": s2, "dealt": 0}
    assert s.deal(c, 1)["stray"]["card"] == "5S"
    state = c.request("set_aside", pin=SUE)
    # 5S left S2 after its shuffle, before round B's first card: dealt 1, its face listed
    assert state["config"]["shoe"] == {"id": s2, "dealt": 1} and state["config"]["shoe_dealt"] == ["5S"]
    before = read(c)
    # 5S (+1), not round A's last card 8C (0) of the old shoe
    assert (before["shoe"], before["cards_out"], before["on_record"], before["running_count"]) == (s2, 1, 1, 1)
    assert before["true_count"] == pytest.approx(1 / (311 / 52))
    b = one_round(s, c)
    after = read(c)  # +1, then 9H 6D 8C AS: -1 +1 0 -1
    assert (after["shoe"], after["cards_out"], after["on_record"], after["running_count"]) == (s2, 5, 5, 0)

    assert s.running is not None
    store = s.running.store
    assert store.export_round(b)["shoe"] == {"id": s2, "dealt": 1}
    rows = store_rounds(store)
    by_id = {r.round_id: r for r in rows}
    assert by_id[a].shoe_id == s1 and by_id[b].shoe_id == s2
    table = by_id[b].table
    assert {k: [str(x) for x in v] for k, v in carried_in(rows).items()} == {(table, s2): ["5S"]}
    rebuild_counts(rows)
    assert [str(x) for x in by_id[b].seen] == ["5S"]
    assert by_id[b].true_count == pytest.approx(1 / (311 / 52))  # as the station said before round B
    # the floor's reading of the shoe in play after round B: 5 of S2's cards, 5S among them
    lucky8 = count_for("lucky8", 6)
    assert lucky8 is not None
    edge = lucky8.edge([parse_card(x) for x in "5S 9H 6D 8C AS".split()], 5)
    (condition,) = shoe_conditions(rows, -1.0)  # any edge is over -100 %
    assert condition.subject == s2 and "(5 of 312 cards out, 5 on record)" in condition.detail
    assert f"main wager {edge * 100:+.2f} %" in condition.detail
    assert after["edge"] == pytest.approx(edge)
    path = store.path
    s.stop()
    exported = _export(path, b)  # history export, the installed command's
    assert exported["shoe"] == {"id": s2, "dealt": 1} and exported["shoe_dealt"] == ["5S"]


def test_a_restart_keeps_the_shuffled_shoe_and_the_cards_set_aside(station: Any) -> None:
    """The shuffle's shoe id and the cards set aside are on record (audit ``shoe_loaded``,
    ``card_set_aside``): a restart between rounds deals the next round from that shoe with
    them counted, as without the restart. Same cards as above, then 10D set aside after round
    B: S2 has 5S, B's 9H 6D 8C AS and 10D out: +1 -1 +1 0 -1 -1 = -1, 6 cards."""
    s: Station = station(CARDS)
    c = s.dealer()
    s1 = c.request("state")["config"]["shoe"]["id"]
    one_round(s, c)
    s.sim.shuffle()
    wait_new_shoe(c, s1)
    s2 = c.request("state")["config"]["shoe"]["id"]
    assert s.deal(c, 1)["stray"]["card"] == "5S"
    c.request("set_aside", pin=SUE)
    s.stop()
    s.start()
    wait_connected(s)
    c = s.dealer()
    config = c.request("state")["config"]
    assert config["shoe"] == {"id": s2, "dealt": 1} and config["shoe_dealt"] == ["5S"]
    assert (read(c)["running_count"], read(c)["cards_out"]) == (1, 1)
    one_round(s, c)
    assert s.deal(c, 1)["stray"]["card"] == "10D"
    c.request("set_aside", pin=SUE)
    s.stop()
    s.start()
    wait_connected(s)
    c = s.dealer()
    config = c.request("state")["config"]
    assert config["shoe"] == {"id": s2, "dealt": 6}
    assert config["shoe_dealt"] == ["5S", "9H", "6D", "8C", "AS", "10D"]
    count = read(c)
    assert (count["shoe"], count["cards_out"], count["on_record"], count["running_count"]) == (s2, 6, 6, -1)
