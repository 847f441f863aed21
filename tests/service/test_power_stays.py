"""After a power failure in a round each player with a wager says once whether they withdraw
or stay (5.29.1 in Lucky 8, lucky-8.txt): the service keeps who must still answer (the
engine's reading, dealer_assist/engine/power_failure.py) in its state for every screen, and
a stay (op ``power_stays``) is audited and kept over a restart. Before, the screen kept the
stays in its own memory: a second screen or a restart asked the player again."""

from __future__ import annotations

from typing import Any

import pytest

from dealer_assist.service.client import ServiceError
from tests.service.conftest import Station, wait_connected


def test_who_must_still_answer_is_the_services_and_a_stay_survives_a_restart(station: Any) -> None:
    # Lucky 8 (the default station: p1, p2, p3 seated on areas 1-3): p1 10 on area 1, p2 20 on
    # area 2; 10S to area 1, 9H to area 2, 5D to the dealer (3.18: each area, then the dealer)
    s: Station = station("10S 9H 5D 6C 8S")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    c.request("wager", player="p2", bet="main", amount=20, area=2)
    state = s.deal(c, 3)
    assert state["power_failure"] is None  # no power failure: nobody is asked
    with pytest.raises(ServiceError) as caught:
        c.request("power_stays", player="p1")
    assert caught.value.clause == "5.29"
    state = c.request("power_failure")
    assert state["power_failure"] == {"players": ["p1", "p2"], "rule": "5.29", "withdraw": True}
    state = c.request("power_stays", player="p1")
    assert state["power_failure"] == {"players": ["p2"], "rule": "5.29", "withdraw": True}
    for who in ("p1", "zed"):  # p1 answered once already; zed has no wager in the round
        before = c.request("state")
        with pytest.raises(ServiceError) as caught:
            c.request("power_stays", player=who)
        assert caught.value.clause == "5.29" and "nothing to answer" in caught.value.message
        after = c.request("state")
        assert after["power_failure"] == before["power_failure"] and after["events"] == before["events"]
    assert s.running is not None
    stays = s.running.store.audit_entries(kind="power_failure_stays")
    assert [(a.detail["player"], a.detail["rule"], a.round_id) for a in stays] == [("p1", "5.29", state["round_id"])]
    # the service restarts mid-round: p1's stay is on record, only p2 is asked
    s.stop()
    s.start()
    wait_connected(s)
    c = s.dealer()
    state = c.request("state")
    assert state["power_failure"] == {"players": ["p2"], "rule": "5.29", "withdraw": True}
    # p2 withdraws: no wager had conclusively won or lost, so the 20 is returned (5.29.1);
    # nobody is left to answer, and p1's round goes on
    state = c.request("withdraw", player="p2")
    assert state["power_failure"] is None
    returned = [x for x in state["output"]["settlements"] if x["player"] == "p2"]
    assert [(x["bet"], x["rule"]) for x in returned] == [("main", "5.29.1")] and state["output"]["net"].get("p2", 0) == 0
