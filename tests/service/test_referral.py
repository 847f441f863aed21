"""A referral (6.1: "If an irregularity occurs that is not covered by these rules, it shall be
referred for the decision of the Gaming Shift Manager") through the station service: op
``refer`` records it (audit, the round "referred"), no card is assigned and no input taken
until the shift manager's decision, op ``resolve`` under a supervisor's PIN: continue or void.

Lucky 8, the shoe's order 10S 9H QD 8C. p1 wagers 10 on area 1; p1 10S, dealer 9H; referred.
QD comes out while referred: held in flight, not assigned. Continue: QD is p1's (20), p1
stands, dealer 8C: 17, stands (Lucky 8); 20 beats 17, p1 wins 10 at even money (4.3.2).
"""

from __future__ import annotations

from typing import Any

import pytest

from dealer_assist.service.client import ServiceClient, ServiceError
from tests.service.conftest import Station

BOB = {"user": "bob", "pin": "551903"}  # a supervisor (tests/service/conftest.py)


def cards(state: dict[str, Any]) -> list[str]:
    return [e["card"] for e in state["events"] if e["type"] == "card"]


def referred_round(s: Station) -> tuple[ServiceClient, dict[str, Any]]:
    c = s.dealer()
    with pytest.raises(ServiceError) as early:
        c.request("refer", text="a player says the shoe was changed")  # no round yet
    assert early.value.code == "refused" and early.value.clause == "6.1"
    c.request("set_slip", wagers=[{"player": "p1", "bet": "main", "amount": 10, "area": 1}])
    s.deal(c, 2)
    state = c.request("refer", text="a player says the shoe was changed")
    assert state["referral"]["rule"] == "6.1" and state["referral"]["text"] == "a player says the shoe was changed"
    return c, state


def test_a_referral_holds_the_round_until_the_shift_manager_continues_it(station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    c, state = referred_round(s)
    assert s.running is not None
    rid = state["round_id"]
    assert s.running.store.find_open_round().status == "referred"  # on record, not ended
    before = state["events"]
    with pytest.raises(ServiceError) as held:
        c.request("decide", action="stand", area=1, hand=1, player="p1")
    assert held.value.code == "refused" and held.value.clause == "6.1"
    state = s.deal(c, 1)  # QD: in flight, not assigned while referred
    assert state["events"] == before and [f["card"] for f in state["in_flight"]] == ["QD"]
    with pytest.raises(ServiceError) as no_pin:
        c.request("resolve", ruling="continue")
    assert no_pin.value.code == "pin"
    with pytest.raises(ServiceError) as wrong:
        c.request("resolve", ruling="continue", pin={"user": "bob", "pin": "000000"})
    assert wrong.value.code == "pin"
    assert c.request("state")["referral"] is not None
    state = c.request("resolve", ruling="continue", pin=BOB)
    assert state["referral"] is None and cards(state) == ["10S", "9H", "QD"] and state["in_flight"] == []
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    state = s.deal(c, 1)
    assert state["concluded"] and state["output"]["status"] == "settled" and state["output"]["net"] == {"p1": 10}
    audit = s.running.store.audit_entries(round_id=rid, kind="referral")
    resolved = s.running.store.audit_entries(round_id=rid, kind="referral_resolved")
    assert [e.detail["text"] for e in audit] == ["a player says the shoe was changed"]
    assert audit[0].actor == "dealer:ann"
    assert [(e.actor, e.detail["ruling"], e.detail["rule"]) for e in resolved] == [("supervisor:bob", "continue", "6.1")]


def test_the_shift_manager_voids_a_referred_round_and_a_restart_keeps_the_referral(station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    c, state = referred_round(s)
    rid = state["round_id"]
    assert s.running is not None
    s.running.stop()  # the service goes away while referred (as after a crash)
    s.running = None
    s.start()
    c = s.dealer()
    state = c.request("state")
    assert state["round_id"] == rid and state["referral"]["text"] == "a player says the shoe was changed"
    approval = c.request("approve", user="bob", pin="551903", kind="resolve", detail={})["approval"]
    state = c.request("resolve", ruling="void", approval=approval)  # as the screen asks (one PIN, "resolve")
    assert state["referral"] is None
    last = state["events"][-1]
    assert last["type"] == "void" and last["rule"] == "6.1", last
    assert state["output"]["status"] == "void" and state["output"]["net"] == {"p1": 0}  # the wager returned


def test_a_void_under_6_1_without_a_referral_is_refused(station: Any) -> None:
    s: Station = station("10S 9H")
    c = s.dealer()
    c.request("set_slip", wagers=[{"player": "p1", "bet": "main", "amount": 10, "area": 1}])
    before = s.deal(c, 2)["events"]
    with pytest.raises(ServiceError) as refused:
        c.request("void", reason="no referral", rule="6.1", pin=BOB)
    assert refused.value.code == "refused" and refused.value.clause == "6.1"
    assert c.request("state")["events"] == before
