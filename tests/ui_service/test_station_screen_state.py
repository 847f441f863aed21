"""The station's screen draws the service's round in order and cheaply (issue 24 item 7):
a notification older than a reply the screen has shown is not drawn after it (the screen
never goes back a step), and the round it draws is the picture the service's engine made
(issue 33 build 4: no replay on the screen), the same as the whole round replayed.

A real ``station serve`` (in process, tests/service/conftest.py) with the simulated shoe on a
pty. Lucky 8, the shoe's order 10S 9H QD 8C: p1 wagers 10 on area 1; p1 10S, dealer 9H, p1 QD
(20), p1 stands; dealer 8C (17), the dealer stands on 17. 20 beats 17: p1 wins 10 at even
money (4.3.2)."""

from __future__ import annotations

from typing import Any

from dealer_assist.engine.picture import picture_from_json, picture_of
from dealer_assist.engine.session import TableSession
from dealer_assist.engine.table_setup import default_setup
from dealer_assist.engine.transcript import parse_event, round_output
from dealer_assist.service.client import ServiceError
from tests.service.conftest import Station
from ui.common.service_link import ServiceLink
from ui.dealer.controller import TableController


def cards(controller: TableController) -> int:
    return sum(1 for e in controller.events if e["type"] == "card")


def test_the_screen_never_draws_an_older_state_and_draws_the_services_picture(qtbot: Any, station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    link = ServiceLink(s.socket)
    controller = TableController(default_setup(), link)
    try:
        approval = link.ask("enrol", name="sue", pin="482913")["approval"]
        link.ask("add_account", name="ann", new_pin="730418", roles=["dealer"], approval=approval)
        try:
            link.ask("login", name="ann", pin="730418")
        except ServiceError:  # a first PIN is changed at the first log-in
            link.ask("change_pin", name="ann", old_pin="730418", new_pin="246813")
            link.ask("login", name="ann", pin="246813")
        controller.start_shift("ann")
        controller.read_state()
        assert controller.betting
        drawn: list[tuple[bool, int]] = []  # (betting, events) each time the screen would redraw
        controller.changed.connect(lambda: drawn.append((controller.betting, len(controller.events))))
        # two inputs in one turn of the event loop: the slip's notification is read before
        # the reply to *no more bets*, which the screen shows first
        assert controller.place_wager("p1", "main", 10, 1), controller.last_refusal
        assert controller.no_more_bets(), controller.last_refusal
        shown = len(drawn)
        assert drawn[-1] == (False, 2)  # the wager and no_more_bets, drawn from the reply
        qtbot.wait(300)  # the queued notifications are delivered
        assert all(not betting for betting, _ in drawn[shown:]), drawn  # never back to betting
        for n in (1, 2, 3):
            s.sim.deal()
            qtbot.waitUntil(lambda n=n: cards(controller) == n, timeout=10000)  # type: ignore[misc]
        assert controller.rnd is not None and controller.rnd.view().area(1).hands[0].cards == ("10S", "QD")
        assert controller.decide("stand", area=1, hand=1, player="p1"), controller.last_refusal
        s.sim.deal()
        qtbot.waitUntil(lambda: controller.concluded, timeout=10000)
        out = controller.output()
        assert out["status"] == "settled" and out["net"] == {"p1": 10}
        # the same as the whole round replayed from the service's state (here, not on the screen)
        state = link.ask("state")
        replay = TableSession(state["config"])
        rnd = replay.restore(state["config"], [parse_event(e) for e in state["events"]])
        assert round_output(rnd) == out == state["output"]
        assert controller.rnd.picture == picture_of(rnd) == picture_from_json(state["picture"])
        assert cards(controller) == 4
    finally:
        controller.close()
