"""Issue 34 item 6: on a station whose shoe is the service's simulator, the screen offers every
fault the simulator has (hardware/simulator.py: NOREAD and its re-read, double feeds, a
damaged frame, a lost frame, a lost shoe) through op ``sim_deal``; each reaches the service
through the real driver as from a shoe at the table."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

import dealer_assist.service.station as st
from dealer_assist.service.client import ServiceClient, ServiceError
from dealer_assist.service.serve import Running, ServeOptions, start
from dealer_assist.store.users import TEST_PIN_COST
from hardware.station import attach_shoe
from tests.service.conftest import Station, make_shoe, wait_connected

# what the simulator can do to the line or the cards (issue 34 item 6's list and the rest;
# its re-read answers the dealer's op reread, 5.1)
EVERY_FAULT = {"deal", "burn", "noread", "reread", "double", "double_unread", "damaged", "lost_frame", "lost_shoe"}


class SimStation(Station):
    """The service with the simulator as its shoe, as ``dealer-assist`` starts it for an
    account with no station configuration (serve.py: ServeOptions.simulators)."""

    def start(self) -> Running:
        cfg = st.StationConfig(shoe_port=self.sim.path)
        self.running = start(ServeOptions(state_dir=str(self.state), socket=str(self.socket), pin_cost=TEST_PIN_COST,
                                          simulators=[self.sim]),
                             lambda on_event: attach_shoe(cfg, on_event))
        return self.running


def until(c: ServiceClient, what: str, done: Callable[[dict[str, Any]], bool], seconds: float = 20) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = c.request("state")
        if done(state):
            return state
        time.sleep(0.05)
    raise AssertionError(f"waited {seconds:g} s for {what}: {state}")


def test_every_fault_of_the_simulated_shoe_is_offered_and_reaches_the_service(tmp_path: Any,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(st.CONFIG_ENV, raising=False)
    s = SimStation(tmp_path / "state", tmp_path / "run" / "station.sock", make_shoe("10S 9H QD 8C 5D 6C 7H"))
    s.start()
    try:
        wait_connected(s)
        c = s.dealer()
        state = c.request("state")
        assert state["simulated_shoe"] is True
        assert {key for key, _words in state["sim_faults"]} == EVERY_FAULT
        assert all(words for _key, words in state["sim_faults"])

        c.request("wager", player="p1", bet="main", amount=10, area=1)
        c.request("sim_deal", fault="deal")  # 10S to p1: the bets close (5.3)
        until(c, "the first card", lambda st_: any(e["type"] == "card" for e in st_["events"]))
        # NOREAD: the card came out unread; the service holds the table (5.1), the card in flight
        c.request("sim_deal", fault="noread")
        state = until(c, "the hold for the unread card", lambda st_: bool(st_["hold"]))
        assert [f["card"] for f in state["in_flight"]] == ["?"]
        # the dealer re-reads it (op reread), the simulator reads that card: 9H, the dealer's (3.18)
        c.request("reread")
        c.request("sim_deal", fault="reread")
        state = until(c, "the unread card read again", lambda st_: not st_["hold"])
        assert [e["card"] for e in state["events"] if e["type"] == "card"] == ["10S", "9H"]
        assert state["output"]["dealer"]["cards"] == ["9H"] and state["in_flight"] == []
        # the shoe lost (its cable out): the service sees it lost, then back
        c.request("sim_deal", fault="lost_shoe")
        until(c, "the shoe lost", lambda st_: not st_["shoe"]["connected"])
        until(c, "the shoe back", lambda st_: st_["shoe"]["connected"])

        with pytest.raises(ServiceError) as caught:
            c.request("sim_deal", fault="explode")
        assert caught.value.code == "bad_request" and "lost_shoe" in caught.value.message
    finally:
        s.stop()
        s.sim.close()
