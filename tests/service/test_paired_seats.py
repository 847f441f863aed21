"""A seat paired to a Player Terminal at Electronic Blackjack (issue 38; 1.1.10, 3.17, 5.9):
the dealer's `withdraw`, `absent` and `claim` for it are refused naming the clause, the round
as it was, unless a supervisor overrode that terminal this round; and which of its seats
placed their wager at the terminal and which terminals are down survive a restart of the
service mid-round (5.9.1). A real service with its TLS terminal endpoint on loopback, the
dealer's screen on its socket, a real SQLite file, the cards from a simulated shoe in order.

Results worked by hand from electronic-blackjack.txt: Player, Dealer, Player for the initial
deal (3.7), the shared hand's later cards in the order the hands take them (3.18.2), the
default strategy draws to hard 12 or soft 17 (3.18.1), the dealer draws to 16 and stands on
17 (3.19)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.service.client import ServiceClient, ServiceError
from dealer_assist.service.terminal_client import TerminalConnection, TerminalError
from hardware.simulator import HEARTBEAT_S
from tests.service.conftest import quiet, wait_connected
from tests.service.test_terminal_play import (  # noqa: F401 (a fixture)
    LIVENESS_S,
    electronic,
    of_type,
    results_by_player,
    two_terminals,
    unchanged,
    until,
)
from tests.service.test_terminals import SUE, TerminalStation, paired


def refused(screen: ServiceClient, op: str, clause: str, words: str, **args: Any) -> None:
    """``op`` refused naming ``clause`` (a one-line message saying ``words``), the round as it was."""
    before = screen.request("state")
    with pytest.raises(ServiceError) as caught:
        screen.request(op, **args)
    assert caught.value.code == "refused" and caught.value.clause == clause, (op, caught.value.message)
    assert words in caught.value.message and "\n" not in caught.value.message, caught.value.message
    unchanged(screen, before)
    assert screen.request("state")["power_failure"] == before["power_failure"]




def claim_for(seat: str) -> dict[str, Any]:
    return {"bet": "main", "area": 1, "claimants": [{"player": seat, "amount": 5}]}


def test_the_dealers_withdraw_absent_and_claim_for_a_paired_seat_are_refused_with_the_clause(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:  # noqa: F811 (the fixture)
    # t1 and t2 wager 10 at their terminals; t3 (no terminal paired) 10 from the dealer's screen.
    # Cards: Player 10S, Dealer 9H, Player 6D (3.7): the shared hand is hard 16 against 9.
    # t2's terminal goes down after "No more bets": its wager was accepted, so the default
    # decision applies at once (5.9.1): 16 is hard 12 or more, it stands (3.18.1). The dealer
    # says t3 is absent: the default, it stands. t1's terminal is overridden by a supervisor,
    # then the dealer says t1 is absent: it stands. The dealer draws 4C (13), 8C (21) (3.19).
    # Every seat's 16 is under 21: each loses its 10 (4.6.1).
    table = electronic("10S 9H 6D 4C 8C", decision_seconds=120)
    screen = table.dealer()
    t1, t2 = two_terminals(table, tmp_path)
    t1.request("wager", bet="main", amount=10)
    t2.request("wager", bet="main", amount=10)
    screen.request("wager", player="t3", bet="main", amount=10)

    # bets open: the player withdraws at the terminal (1.1.10, 5.4); its wagers are placed there
    refused(screen, "withdraw", "1.1.10", "seat t1's player withdraws its wagers at its own Player Terminal",
            player="t1")
    refused(screen, "claim", "1.1.10", "seat t1's player places its wagers at its own Player Terminal",
            **claim_for("t1"))

    screen.request("no_more_bets")
    t2.close()
    until(screen, lambda s: s["linked"] == ["t1"])  # the service saw t2's terminal go
    refused(screen, "withdraw", "5.4", 'no wager may be withdrawn after "No more bets" (5.4)', player="t1")
    refused(screen, "claim", "5.3", 'no wager may be placed after "No more bets" (5.3)', **claim_for("t1"))
    refused(screen, "absent", "3.17", "seat t1's player decides at its own Player Terminal, which is connected",
            player="t1")
    refused(screen, "absent", "5.9.1", "seat t2's terminal went down after its wager was accepted", player="t2")

    table.deal(screen, 3)
    until(screen, lambda s: of_type(s, "timeout") == [{"type": "timeout", "player": "t2"}])
    screen.request("absent", player="t3")  # no terminal paired: the dealer's, as before
    refused(screen, "absent", "3.17", "within the time it shows (3.17)", player="t1")
    screen.request("terminal_override", seat="t1", pin=SUE)
    screen.request("absent", player="t1")  # overridden: the dealer says its player is away (3.18)
    table.deal(screen, 2)
    state = until(screen, lambda s: s["concluded"])
    assert of_type(state, "absent") == [{"type": "absent", "player": "t3"}, {"type": "absent", "player": "t1"}]
    assert of_type(state, "withdraw") == [] and of_type(state, "claim") == []
    nets = results_by_player(state)
    assert nets == {seat: ("lose", -10, "4.6.1") for seat in ("t1", "t2", "t3")}
    t1.close()


def test_the_dealer_says_absent_for_a_down_terminals_seat_whose_wager_the_screen_placed(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:  # noqa: F811 (the fixture)
    # t1's terminal is paired and down; the dealer's screen placed its 10 (from its credits), so
    # 5.9.1 (a wager accepted at the terminal) does not apply and its terminal shows nothing:
    # the dealer says its player is away. Player 10S, Dealer 9H, Player 6D: hard 16, the
    # default stands (3.18.1); the dealer's 8C makes 17 (3.19): 16 loses 10 (4.6.1).
    table = electronic("10S 9H 6D 8C", decision_seconds=120)
    screen = table.dealer()
    paired(table, "t1", tmp_path / "t1").close()
    until(screen, lambda s: s["paired"] == ["t1"] and s["linked"] == [])
    screen.request("wager", player="t1", bet="main", amount=10)
    screen.request("no_more_bets")
    table.deal(screen, 3)
    screen.request("absent", player="t1")
    table.deal(screen, 1)
    state = until(screen, lambda s: s["concluded"])
    assert of_type(state, "absent") == [{"type": "absent", "player": "t1"}] and of_type(state, "timeout") == []
    (settled,) = state["output"]["settlements"]
    assert (settled["player"], settled["result"], settled["net"], settled["rule"]) == ("t1", "lose", -10, "4.6.1")


def test_an_overridden_terminals_wager_is_withdrawn_before_no_more_bets_and_a_power_failure_keeps_it(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:  # noqa: F811 (the fixture)
    # t1's terminal cannot be used: with a supervisor's override the dealer withdraws its 10
    # from the slip, as the terminal would before "No more bets" (5.4): its meter is 1000
    # again. t1's player wagers 20 through the dealer (its terminal's own wager is refused
    # while overridden, 3.17). After the deal a power failure: the round continues (5.9), t1's
    # accepted wager plays the default decision (5.9.1): no withdrawal; the dealer's answer
    # for it is that it stays (op power_stays).
    table = electronic("10S 9H 6D", decision_seconds=120)
    screen = table.dealer()
    t1 = paired(table, "t1", tmp_path / "t1")
    t1.request("wager", bet="main", amount=10)
    assert t1.request("seat")["meter"] == 990
    assert screen.request("terminal_override", seat="t1", pin=SUE)["overrides"] == {"t1": "sue"}
    state = screen.request("withdraw", player="t1")
    assert state["slip"] == [] and t1.request("seat")["meter"] == 1000
    refused(screen, "withdraw", "5.4", "nothing to withdraw: seat t1 has no wager on the slip", player="t1")
    with pytest.raises(TerminalError) as own:  # overridden: the dealer places t1's wagers this round (3.17)
        t1.request("wager", bet="main", amount=20)
    assert own.value.clause == "3.17" and screen.request("state")["slip"] == []
    screen.request("wager", player="t1", bet="main", amount=20)  # as t1's player asks the dealer
    screen.request("no_more_bets")
    table.deal(screen, 3)
    state = screen.request("power_failure")
    assert state["power_failure"] == {"players": ["t1"], "rule": "5.9", "withdraw": False}  # 5.9: it continues
    refused(screen, "withdraw", "5.9", "after the power failure the round continues (5.9)", player="t1")
    state = screen.request("power_stays", player="t1")
    assert state["power_failure"] is None
    assert of_type(state, "wager") == [{"type": "wager", "player": "t1", "bet": "main", "amount": 20}]
    t1.close()


def test_a_terminal_down_before_a_restart_mid_round_gets_the_default_decision_at_once(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:  # noqa: F811 (the fixture)
    # decision_seconds 120 (the most): `until` gives up after 60 s, so a seat given its full
    # time would fail the test. t1, t2, t3 wager 10 each at their terminals. t3's terminal goes
    # down before "No more bets", t1's after it; t2's goes down and comes back. The service
    # stops and starts again on the same SQLite file before the deal; t2's terminal connects
    # again. t3's terminal was down when the bets closed: the closing of bets never took place
    # on it, its wager was not accepted and it takes no part (5.9.2, audited
    # `terminal_not_accepted`; the round starts without it, so the restart cannot bring it
    # back). Cards: Player 5S, Dealer 9H, Player 4D (3.7): hard 9. t1, down after its wager
    # was accepted, gets the default decision at once (5.9.1, 3.18): it draws 2C -> 11, KD -> 21
    # and stops (3.18.1). t2 gets its decision time and stands on 9 at its terminal. Dealer 9H
    # 8C = 17 stands (3.19). t1: 21 beats 17, +10 (4.5.2); t2: 9 under 17, -10 (4.6.1); t3: none.
    table = electronic("5S 9H 4D 2C KD 8C", decision_seconds=120)
    screen = table.dealer()
    terms = {seat: paired(table, seat, tmp_path / seat) for seat in ("t1", "t2", "t3")}
    for term in terms.values():
        term.request("wager", bet="main", amount=10)
    terms["t3"].close()
    until(screen, lambda s: s["linked"] == ["t1", "t2"])
    round_id = screen.request("no_more_bets")["round_id"]
    terms["t1"].close()
    until(screen, lambda s: s["linked"] == ["t2"])
    terms["t2"].close()
    until(screen, lambda s: s["linked"] == [])
    terms["t2"] = TerminalConnection("127.0.0.1", table.port, tmp_path / "t2")
    until(screen, lambda s: s["linked"] == ["t2"])

    quiet(table)
    table.stop()
    table.start()
    wait_connected(table)
    table.sim.heartbeat_s = HEARTBEAT_S
    screen = table.dealer()
    state = screen.request("state")
    assert state["round_id"] == round_id and state["restored"] is True and state["gap"] is None
    terms["t2"] = TerminalConnection("127.0.0.1", table.port, tmp_path / "t2")
    until(screen, lambda s: s["linked"] == ["t2"])
    table.deal(screen, 3)
    state = until(screen, lambda s: len(of_type(s, "timeout")) == 1)
    assert [e["player"] for e in of_type(state, "timeout")] == ["t1"]
    nxt = terms["t2"].request("seat")["next"]
    assert nxt["pending"] == [{"player": "t2", "hand": 1, "options": ["hit", "stand", "double", "surrender"]}]
    assert 0 < nxt["seconds_left"] <= 120  # its decision time, counting (3.17)
    terms["t2"].request("decide", action="stand")
    table.deal(screen, 3)
    state = until(screen, lambda s: s["concluded"])
    nets = results_by_player(state)
    assert nets == {"t1": ("win", 10, "4.5.2"), "t2": ("lose", -10, "4.6.1")}
    assert of_type(state, "decision") == [{"type": "decision", "player": "t2", "action": "stand"}]

    # on record: each wager as its terminal's, each drop and return in the round, and the
    # service's own stop none (the terminals connected then decide once back)
    assert table.running is not None
    store = table.running.store
    detail = store.get_round(round_id)
    assert detail is not None
    assert [(e.actor, e.event["player"]) for e in detail.events if e.event["type"] == "wager"] == [
        ("terminal:t1", "t1"), ("terminal:t2", "t2")]
    links = [(a.kind, a.detail["seat"]) for a in store.audit_entries(round_id=round_id)
             if a.kind in ("terminal_down", "terminal_back")]
    assert links == [("terminal_down", "t1"), ("terminal_down", "t2"), ("terminal_back", "t2")]
    (unaccepted,) = store.audit_entries(kind="terminal_not_accepted")
    assert (unaccepted.round_id, unaccepted.detail) == (round_id, {
        "seat": "t3", "rule": "5.9.2", "wagers": [{"type": "wager", "player": "t3", "bet": "main", "amount": 10}]})
    interrupted = store.audit_entries(kind="terminal_interrupted")
    assert [a.detail["seat"] for a in interrupted] == ["t1"]
    assert {a.detail["rule"] for a in interrupted} == {"5.9.1"}
    terms["t2"].close()
