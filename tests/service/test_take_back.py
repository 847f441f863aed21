"""Undo through the station service (issue 24 item 4 on a station): op ``take_back``, the
dealer's last input before the next card, audited by the store (``event_withdrawn``)."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from dealer_assist.service.client import ServiceError
from tests.service.conftest import Station


def _audit_kinds(s: Station) -> list[str]:
    assert s.running is not None
    with sqlite3.connect(f"file:{s.state / 'table.db'}?mode=ro", uri=True) as db:
        return [r[0] for r in db.execute("SELECT kind FROM audit ORDER BY id")]


def test_a_stray_stand_is_taken_back_and_the_same_hand_is_asked_again(station: Any) -> None:
    # Lucky 8, one wager of 10 on area 1: 10S to the area, 9H to the dealer, 5D to the area
    # (15). The dealer presses Stand by mistake and takes it back before the next card.
    s: Station = station("10S 9H 5D 6C 8S")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    asked = s.deal(c, 3)["expect"]
    assert (asked["kind"], asked["area"], asked["hand"]) == ("decision", 1, 1)
    before = c.request("state")["events"]
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    state = c.request("take_back")
    assert state["events"] == before  # the Stand left the round
    assert (state["expect"]["kind"], state["expect"]["area"], state["expect"]["hand"]) == ("decision", 1, 1)
    assert "event_withdrawn" in _audit_kinds(s)
    # the round plays on: Hit, 6C -> 21 ends the hand; dealer 9H + 8S = 17 stands; 21 beats 17
    # and the player wins even money (4.3.2): +10
    c.request("decide", action="hit", area=1, hand=1, player="p1")
    state = s.deal(c, 2)
    assert state["output"]["status"] == "settled" and state["output"]["net"] == {"p1": 10}
    rid = state["round_id"]
    assert s.running is not None
    stored = [e.event for e in s.running.store.get_round(rid).events]
    assert [(e["type"], e.get("action")) for e in stored if e["type"] == "decision"] == [("decision", "hit")]


def test_after_the_next_card_the_dealer_cannot_take_back_and_nothing_changes(station: Any) -> None:
    s: Station = station("10S 9H 5D 2C 8S")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 3)
    c.request("decide", action="hit", area=1, hand=1, player="p1")
    before = s.deal(c, 1)  # 2C: 17, still the player's turn
    with pytest.raises(ServiceError) as caught:
        c.request("take_back")
    assert caught.value.code == "refused" and "(5." in caught.value.message
    assert c.request("state")["events"] == before["events"]
    assert "event_withdrawn" not in _audit_kinds(s)
