"""A station service started in-process on a temporary socket, with a simulated shoe on a
real pseudo-terminal (the service's driver opens it by path, as it opens a real shoe)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import dealer_assist.service.station as st
from dealer_assist.base.cards import parse_card
from dealer_assist.service.client import ServiceClient
from dealer_assist.service.serve import Running, ServeOptions, start
from dealer_assist.store.users import TEST_PIN_COST
from hardware.simulator import SimulatedShoe
from hardware.station import attach_shoe


@dataclass
class Station:
    state: Path
    socket: Path
    sim: SimulatedShoe
    running: Running | None = None
    clients: list[ServiceClient] = field(default_factory=list)
    config: str | None = None

    def start(self) -> Running:
        cfg = st.StationConfig(shoe_port=self.sim.path)
        self.running = start(ServeOptions(config=self.config, state_dir=str(self.state), socket=str(self.socket),
                                          pin_cost=TEST_PIN_COST),
                             lambda on_event: attach_shoe(cfg, on_event))
        return self.running

    def stop(self) -> None:
        for c in self.clients:
            c.close()
        self.clients.clear()
        if self.running is not None:
            self.running.stop()
            self.running = None

    def client(self, on_notify: Callable[[str, dict[str, Any]], None] | None = None) -> ServiceClient:
        c = ServiceClient(self.socket, on_notify=on_notify)
        self.clients.append(c)
        return c

    def dealer(self) -> ServiceClient:
        """A screen with dealer ann logged in (sue the supervisor enrolled, ann added)."""
        c = self.client()
        if c.request("state")["needs_enrolment"]:
            c.request("enrol", name="sue", pin="482913")
            assert self.running is not None
            self.running.store.create_user("ann", "730418", ["dealer"])
            self.running.store.create_user("bob", "551903", ["supervisor"])
        c.request("login", name="ann", pin="730418")
        return c

    def deal(self, c: ServiceClient, count: int) -> dict[str, Any]:
        """``count`` cards out of the shoe; waits until the service recorded or held each."""
        before = _seen(c.request("state"))
        for _ in range(count):
            self.sim.deal()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            state = c.request("state")
            if _seen(state) >= before + count:
                return state
            time.sleep(0.02)
        raise AssertionError(f"the service did not take {count} card(s): {state}")


def _seen(state: dict[str, Any]) -> int:
    cards = sum(1 for e in state["events"] if e["type"] == "card")
    return cards + sum(1 for e in state["tentative"] if e["type"] == "card") + len(state["in_flight"]) + \
        (1 if state["stray"] and state["stray"].get("seq") is None else 0)


def make_shoe(cards: str) -> SimulatedShoe:
    sim = SimulatedShoe(game="lucky8", decks=6, cards=[parse_card(c) for c in cards.split()], penetration=None)
    sim.open()
    return sim


@pytest.fixture
def station(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], Station]]:
    monkeypatch.delenv(st.CONFIG_ENV, raising=False)
    made: list[Station] = []

    def make(cards: str) -> Station:
        s = Station(tmp_path / "state", tmp_path / "run" / "station.sock", make_shoe(cards))
        made.append(s)
        s.start()
        wait_connected(s)
        return s

    yield make
    for s in made:
        s.stop()
        s.sim.close()


QUIET_BOUND_S = 60.0  # a bound for a hung service, never a measure of speed


def quiet(table: Station) -> None:
    """The simulated shoe's heartbeat paused, every frame it sent read: a heartbeat sent while
    the service is down would be a restart gap for the dealer to answer
    (tests/service/test_cards_on_record.py), and one between two states a change of the
    table's version of its own (unchanged() compares versions): neither is these tests' subject."""
    table.sim.heartbeat_s = None
    assert table.running is not None
    journal = table.running.service.journal
    deadline = time.monotonic() + QUIET_BOUND_S
    while (journal.read() or {}).get("seq") != table.sim.seq - 1:
        assert time.monotonic() < deadline, "the service never read the shoe's last frame"
        time.sleep(0.02)


def wait_connected(s: Station) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        assert s.running is not None
        if s.running.service.shoe.get("connected"):
            return
        time.sleep(0.02)
    raise AssertionError("the service's driver never connected to the simulated shoe")


def lock_taken_by_another_thread(service: Any) -> bool:
    """Whether another thread (a card from the shoe, say) takes the table's lock now, within 2 s."""
    import threading

    got: list[bool] = []

    def probe() -> None:
        taken = service.lock.acquire(timeout=2)
        got.append(taken)
        if taken:
            service.lock.release()

    t = threading.Thread(target=probe)
    t.start()
    t.join()
    return got == [True]
