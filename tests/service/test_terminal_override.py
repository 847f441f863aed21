"""The dealer no longer decides for a seat whose player has a Player Terminal (issue 38,
build 5; Electronic Blackjack 1.1.10, 3.9, 3.17): the service refuses the dealer's decision
for a paired seat unless a supervisor overrode that terminal this round (a broken screen),
audited ``terminal_override``. A real service with its TLS terminal endpoint on loopback,
the dealer's screen on its socket, the cards from a simulated shoe in a fixed order.

Results worked by hand from electronic-blackjack.txt: Player, Dealer, Player for the initial
deal (3.7), the later cards in the order the hands take them (3.18.2), the dealer draws to 16
and stands on 17 (3.19)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from dealer_assist.service.client import ServiceClient, ServiceError
from dealer_assist.service.terminal_client import TerminalError
from hardware.simulator import HEARTBEAT_S
from tests.service.conftest import quiet, wait_connected
from tests.service.test_terminal_play import (  # noqa: F401 (a fixture)
    electronic,
    of_type,
    results_by_player,
    two_terminals,
    unchanged,
    until,
)
from tests.service.test_terminals import SUE, TerminalStation, paired


def test_the_dealers_decision_for_a_paired_seat_needs_a_supervisors_override(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:  # noqa: F811 (the fixture)
    # Cards: Player 10S, Dealer 9H, Player 6D (3.7): the shared hand is hard 16 against 9.
    # t1 (a terminal, main 10) cannot use its screen: after the supervisor's override the
    # dealer hits for it: 4C -> 20, and stands. t3 (no terminal, main 10 from its credits)
    # stands on 16, as the dealer enters it (no override needed). The dealer draws 8C: 9 + 8
    # = 17, stands (3.19). t1: 20 beats 17, +10 (4.5.2); t3: 16 loses to 17, -10.
    table = electronic("10S 9H 6D 4C 8C", decision_seconds=120)
    assert table.running is not None
    store = table.running.store
    screen = table.dealer()
    term = paired(table, "t1", tmp_path / "t1")
    term.request("wager", bet="main", amount=10)
    screen.request("wager", player="t3", bet="main", amount=10)
    screen.request("no_more_bets")
    state = table.deal(screen, 3)
    assert (state["paired"], state["overrides"]) == (["t1"], {})
    assert until(screen, lambda s: s["linked"] == ["t1"])["linked"] == ["t1"]  # its terminal is up
    assert set(state["clocks"]) == {"t1", "t3"}  # both decide, each on the service's clock (3.17)

    before = screen.request("state")
    for action in ("stand", "hit"):
        with pytest.raises(ServiceError) as refused:
            screen.request("decide", player="t1", action=action)
        assert refused.value.code == "refused" and refused.value.clause == "3.17", refused.value.message
        assert "seat t1's player decides at its own Player Terminal (1.1.10)" in refused.value.message
        unchanged(screen, before)
    screen.request("decide", player="t3", action="stand")  # no terminal paired: the dealer's, as before

    # a wrong PIN: refused, nothing overridden, no override audited
    before = screen.request("state")
    with pytest.raises(ServiceError) as wrong:
        screen.request("terminal_override", seat="t1", pin={"user": "sue", "pin": "000000"})
    assert wrong.value.code == "pin"
    unchanged(screen, before)
    assert screen.request("state")["overrides"] == {} and store.audit_entries(kind="terminal_override") == []
    with pytest.raises(ServiceError) as still:
        screen.request("decide", player="t1", action="hit")
    assert still.value.clause == "3.17"
    # no terminal to override at t3 (1.1.10)
    with pytest.raises(ServiceError) as none:
        screen.request("terminal_override", seat="t3", pin=SUE)
    assert none.value.code == "refused" and none.value.clause == "1.1.10"

    # the supervisor's PIN: the override, audited; the dealer enters t1's decisions this round
    state = screen.request("terminal_override", seat="t1", pin=SUE)
    assert state["overrides"] == {"t1": "sue"}
    (entry,) = store.audit_entries(kind="terminal_override")
    assert entry.actor == "supervisor:sue" and entry.round_id == state["round_id"]
    assert {k: entry.detail[k] for k in ("seat", "dealer", "rule")} == {"seat": "t1", "dealer": "ann", "rule": "3.17"}
    assert [e.id for e in store.audit_entries(kind="override")] == [entry.detail["approval"]]  # the PIN's approval
    with pytest.raises(ServiceError) as twice:
        screen.request("terminal_override", seat="t1", pin=SUE)
    assert twice.value.clause == "3.17" and "overridden already" in twice.value.message
    screen.request("decide", player="t1", action="hit")
    table.deal(screen, 1)  # 4C: 10 + 6 + 4 = 20
    screen.request("decide", player="t1", action="stand")
    table.deal(screen, 1)  # the dealer's 8C: 17
    state = until(screen, lambda s: s["concluded"])
    assert of_type(state, "decision") == [{"type": "decision", "player": "t3", "action": "stand"},
                                          {"type": "decision", "player": "t1", "action": "hit"},
                                          {"type": "decision", "player": "t1", "action": "stand"}]
    assert of_type(state, "timeout") == []
    nets = {s["player"]: (s["result"], s["net"]) for s in state["output"]["settlements"]}
    assert nets == {"t1": ("win", 10), "t3": ("lose", -10)}
    assert term.request("seat")["net"] == {"t1": 10}

    # the override was for that round: the next one is the terminal's again
    state = screen.request("next_round")
    assert state["overrides"] == {}
    term.close()


def test_an_override_by_the_screens_approval_and_one_refused_under_5_9_1(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:  # noqa: F811 (the fixture)
    # The screen asks the supervisor's PIN first (op approve, kind override, as for a void) and
    # sends the approval with the override. t2's terminal placed its wager and went down: 5.9.1
    # gives it the default decision, which no override replaces.
    # Cards: Player 10S, Dealer 9H, Player 6D: hard 16. t2's default stands on hard 12 or more
    # (3.18.1) at once (its terminal is down, 5.9.1).
    table = electronic("10S 9H 6D", decision_seconds=120)
    assert table.running is not None
    service = table.running.service
    screen = table.dealer()
    t1, t2 = two_terminals(table, tmp_path)
    t1.request("wager", bet="main", amount=10)
    t2.request("wager", bet="main", amount=10)
    screen.request("no_more_bets")
    t2.close()
    until(screen, lambda s: s["linked"] == ["t1"])  # the screens are told it went down
    assert "t2" in service.interrupted
    table.deal(screen, 3)
    state = until(screen, lambda s: of_type(s, "timeout") == [{"type": "timeout", "player": "t2"}])
    granted = screen.request("approve", user="sue", pin="482913", kind="override", detail={"seat": "t2"})
    with pytest.raises(ServiceError) as down:
        screen.request("terminal_override", seat="t2", approval=granted["approval"])
    assert down.value.clause == "5.9.1" and "the default decision applies" in down.value.message
    unchanged(screen, state)

    granted = screen.request("approve", user="sue", pin="482913", kind="override", detail={"seat": "t1"})
    state = screen.request("terminal_override", seat="t1", approval=granted["approval"])
    assert state["overrides"] == {"t1": "sue"}
    with pytest.raises(ServiceError) as used:  # an approval serves once
        screen.request("terminal_override", seat="t1", approval=granted["approval"])
    assert used.value.code in ("pin", "refused")
    screen.request("decide", player="t1", action="stand")
    assert of_type(screen.request("state"), "decision") == [{"type": "decision", "player": "t1", "action": "stand"}]
    t1.close()


def test_an_override_survives_a_restart_of_the_service_mid_round(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:  # noqa: F811 (the fixture)
    # As the first test: Player 10S, Dealer 9H, Player 6D (3.7): hard 16 against 9. The
    # supervisor overrides t1's terminal, then the service restarts before the dealer enters
    # t1's decision. The override is this round's (audited terminal_override): after the
    # restart the dealer still enters t1's decisions: hit 4C -> 20, stand; t3 stands on 16; the
    # dealer's 8C makes 17 and stands (3.19). t1: 20 beats 17, +10 (4.5.2); t3: 16 loses, -10.
    table = electronic("10S 9H 6D 4C 8C", decision_seconds=120)
    screen = table.dealer()
    paired(table, "t1", tmp_path / "t1").close()  # paired, its terminal not up: t1's wager from the screen
    screen.request("wager", player="t1", bet="main", amount=10)  # (a terminal's, dropped, would be 5.9.1's)
    screen.request("wager", player="t3", bet="main", amount=10)
    screen.request("no_more_bets")
    table.deal(screen, 3)
    state = screen.request("terminal_override", seat="t1", pin=SUE)
    assert state["overrides"] == {"t1": "sue"}
    round_id = state["round_id"]

    table.stop()
    table.start()
    wait_connected(table)
    screen = table.dealer()
    state = screen.request("state")
    assert state["round_id"] == round_id and state["restored"] is True
    assert state["overrides"] == {"t1": "sue"}  # from the audit entry, not from memory
    screen.request("decide", player="t3", action="stand")
    screen.request("decide", player="t1", action="hit")  # refused (3.17) had the override been lost
    table.deal(screen, 1)  # 4C: 10 + 6 + 4 = 20
    screen.request("decide", player="t1", action="stand")
    table.deal(screen, 1)  # the dealer's 8C: 17
    state = until(screen, lambda s: s["concluded"])
    nets = {s["player"]: (s["result"], s["net"]) for s in state["output"]["settlements"]}
    assert nets == {"t1": ("win", 10), "t3": ("lose", -10)}
    assert table.running is not None
    assert len(table.running.store.audit_entries(kind="terminal_override")) == 1  # restored, not audited again
    assert screen.request("next_round")["overrides"] == {}  # for that round only


def restart(table: TerminalStation) -> ServiceClient:
    """The service stopped and started again on the same SQLite file (the shoe's heartbeat
    paused meanwhile, ``quiet``); a dealer's screen on it."""
    quiet(table)
    table.stop()
    table.start()
    wait_connected(table)
    table.sim.heartbeat_s = HEARTBEAT_S
    return table.dealer()


def test_an_override_made_while_the_bets_are_open_survives_a_restart_until_its_round_ends(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:  # noqa: F811 (the fixture)
    # The supervisor overrides t1's terminal before the round has an id (bets open, no round on
    # the table yet), then the service restarts twice: with the bets open (the override is
    # still there: the round it is for has not begun) and after that round ended (it is gone).
    # Cards: Player 10S, Dealer 9H, Player 6D (3.7): hard 16 against 9. The dealer enters t1's
    # decisions: hit 4C -> 20, stand; t3 stands on 16; the dealer's 8C makes 17 and stands
    # (3.19). t1: 20 beats 17, +10 (4.5.2); t3: 16 under 17, -10 (4.6.1).
    table = electronic("10S 9H 6D 4C 8C", decision_seconds=120)
    screen = table.dealer()
    paired(table, "t1", tmp_path / "t1").close()  # its screen cannot be used: the terminal is off
    state = screen.request("terminal_override", seat="t1", pin=SUE)
    assert (state["round_id"], state["betting"], state["overrides"]) == (None, True, {"t1": "sue"})
    assert table.running is not None
    (entry,) = table.running.store.audit_entries(kind="terminal_override")
    assert entry.round_id is None and entry.detail["after_round"] is None  # no round before it

    screen = restart(table)
    state = screen.request("state")
    assert (state["round_id"], state["betting"]) == (None, True)
    assert state["overrides"] == {"t1": "sue"}  # lost before: _restore_overrides read the open round only
    screen.request("wager", player="t1", bet="main", amount=10)  # from t1's credits (1.1.10)
    screen.request("wager", player="t3", bet="main", amount=10)
    round_id = screen.request("no_more_bets")["round_id"]
    table.deal(screen, 3)
    screen.request("decide", player="t1", action="hit")  # refused (3.17) had the override been lost
    table.deal(screen, 1)  # 4C: 10 + 6 + 4 = 20
    screen.request("decide", player="t1", action="stand")
    screen.request("decide", player="t3", action="stand")
    table.deal(screen, 1)  # the dealer's 8C: 17
    state = until(screen, lambda s: s["concluded"])
    nets = results_by_player(state)
    assert nets == {"t1": ("win", 10, "4.5.2"), "t3": ("lose", -10, "4.6.1")}
    assert state["round_id"] == round_id and state["overrides"] == {"t1": "sue"}  # until next_round

    screen = restart(table)  # the round ended (on record) before the dealer confirmed it
    state = screen.request("state")
    assert (state["round_id"], state["betting"], state["overrides"]) == (None, True, {})
    assert table.running is not None
    assert len(table.running.store.audit_entries(kind="terminal_override")) == 1


def test_an_override_from_the_bets_restored_mid_round_and_dropped_after_the_round(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:  # noqa: F811 (the fixture)
    # Round 1 (no override): Player 10S, Dealer 9H, Player 6D: hard 16; t3 stands; the dealer's
    # 8C: 17 (3.19); t3 -10 (4.6.1). Round 2: the supervisor overrides t1's terminal while
    # its bets are open (audited with no round id, after round 1); the round begins, then the
    # service restarts mid-round. Cards: Player 5S, Dealer 7H, Player 5D: hard 10 against 7.
    # The dealer enters t1's hit: 9C -> 19, stand; t3 stands on 10; the dealer's 10D makes 17,
    # stands. t1: 19 beats 17, +10 (4.5.2); t3: 10 under 17, -10 (4.6.1). After round 2 the
    # override is gone, also after a further restart.
    table = electronic("10S 9H 6D 8C 5S 7H 5D 9C 10D", decision_seconds=120)
    screen = table.dealer()
    paired(table, "t1", tmp_path / "t1").close()
    screen.request("wager", player="t3", bet="main", amount=10)
    first = screen.request("no_more_bets")["round_id"]
    table.deal(screen, 3)
    screen.request("decide", player="t3", action="stand")
    table.deal(screen, 1)
    state = until(screen, lambda s: s["concluded"])
    assert [(s["player"], s["net"]) for s in state["output"]["settlements"]] == [("t3", -10)]
    assert screen.request("next_round")["overrides"] == {}

    state = screen.request("terminal_override", seat="t1", pin=SUE)
    assert (state["round_id"], state["overrides"]) == (None, {"t1": "sue"})
    screen.request("wager", player="t1", bet="main", amount=10)
    screen.request("wager", player="t3", bet="main", amount=10)
    second = screen.request("no_more_bets")["round_id"]
    assert second is not None and second != first
    table.deal(screen, 3)
    assert table.running is not None
    (entry,) = table.running.store.audit_entries(kind="terminal_override")
    assert entry.round_id is None and entry.detail["after_round"] == first

    screen = restart(table)
    state = screen.request("state")
    assert state["round_id"] == second and state["restored"] is True
    assert state["overrides"] == {"t1": "sue"}  # the entry of its bets, before it had an id
    screen.request("decide", player="t1", action="hit")  # refused (3.17) had the override been lost
    table.deal(screen, 1)  # 9C: 5 + 5 + 9 = 19
    screen.request("decide", player="t1", action="stand")
    screen.request("decide", player="t3", action="stand")
    table.deal(screen, 1)  # the dealer's 10D: 17
    state = until(screen, lambda s: s["concluded"])
    nets = results_by_player(state)
    assert nets == {"t1": ("win", 10, "4.5.2"), "t3": ("lose", -10, "4.6.1")}
    assert screen.request("next_round")["overrides"] == {}

    screen = restart(table)  # between rounds again: the override was round 2's, which ended
    state = screen.request("state")
    assert (state["round_id"], state["betting"], state["overrides"]) == (None, True, {})


def test_an_overridden_terminal_that_drops_is_decided_by_the_dealer_not_by_5_9_1(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:  # noqa: F811 (the fixture)
    # 5.9.1 against an override (the reading: TableService._default_at_once, docs/station.md).
    # t1 and t2 wager 10 at their terminals; the bets close on them (their wagers accepted).
    # The supervisor overrides t1's terminal (its screen broken); then both terminals drop.
    # Cards: Player 10S, Dealer 9H, Player 2D (3.7): hard 12 against 9.
    # t2, not overridden: 5.9.1, the default decision at once: hard 12 reached, it stands
    # (3.18.1). t1, overridden: its decisions are the dealer's, not its terminal's, so its
    # drop is no 5.9.1: it keeps its decision time (3.17), also over a restart, and the dealer
    # enters hit: 8C -> 20, stand. Dealer 9H 8D = 17 stands (3.19).
    # t1: 20 beats 17, +10 (4.5.2); t2: 12 under 17, -10 (4.6.1).
    table = electronic("10S 9H 2D 8C 8D", decision_seconds=120)
    screen = table.dealer()
    t1, t2 = two_terminals(table, tmp_path)
    t1.request("wager", bet="main", amount=10)
    t2.request("wager", bet="main", amount=10)
    round_id = screen.request("no_more_bets")["round_id"]
    assert screen.request("terminal_override", seat="t1", pin=SUE)["overrides"] == {"t1": "sue"}
    t1.close()
    t2.close()
    until(screen, lambda s: s["linked"] == [])
    table.deal(screen, 3)
    state = until(screen, lambda s: of_type(s, "timeout") != [])
    assert of_type(state, "timeout") == [{"type": "timeout", "player": "t2"}]  # 5.9.1, t2 only
    assert 0 < state["clocks"]["t1"] <= 120  # t1's decision time counts (3.17)

    screen = restart(table)  # t1 down and overridden, both on record: still the dealer's
    state = screen.request("state")
    assert state["round_id"] == round_id and state["overrides"] == {"t1": "sue"}
    assert 0 < until(screen, lambda s: "t1" in s["clocks"])["clocks"]["t1"] <= 120
    screen.request("decide", player="t1", action="hit")  # refused had 5.9.1 played t1 (3.18)
    table.deal(screen, 1)  # 8C: 10 + 2 + 8 = 20
    screen.request("decide", player="t1", action="stand")
    table.deal(screen, 1)  # the dealer's 8D: 17
    state = until(screen, lambda s: s["concluded"])
    nets = results_by_player(state)
    assert nets == {"t1": ("win", 10, "4.5.2"), "t2": ("lose", -10, "4.6.1")}
    assert of_type(state, "timeout") == [{"type": "timeout", "player": "t2"}]
    assert of_type(state, "decision") == [{"type": "decision", "player": "t1", "action": "hit"},
                                          {"type": "decision", "player": "t1", "action": "stand"}]
    assert table.running is not None
    store = table.running.store
    downs = [a.detail["seat"] for a in store.audit_entries(round_id=round_id, kind="terminal_down")]
    assert sorted(downs) == ["t1", "t2"]  # both drops on record: the link's state
    interrupted = store.audit_entries(kind="terminal_interrupted")
    assert [(a.detail["seat"], a.detail["rule"]) for a in interrupted] == [("t2", "5.9.1")]


def test_an_overridden_terminal_still_connected_is_refused_its_own_wagers_and_decisions(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:  # noqa: F811 (the fixture)
    # One source of a seat's decisions (3.9, 3.17): once a supervisor overrode t1's terminal
    # for the round, the dealer enters t1's decisions and wagers; t1's terminal, still
    # connected, is refused its own (naming 3.17), the round as it was, until the round ends.
    # Cards: Player 10S, Dealer 9H, Player 6D (3.7): hard 16 against 9. t1 (main 10 placed at
    # its terminal before the override) hits through the dealer: 4C -> 20, stands. t2 (its
    # own terminal, main 10, not overridden) stands on 16 there. The dealer draws 8C: 17,
    # stands (3.19). t1: 20 beats 17, +10 (4.5.2); t2: 16 loses to 17, -10. Meters: each
    # bought 1000 (the fixture): t1 1000 + 10 = 1010, t2 1000 - 10 = 990.
    table = electronic("10S 9H 6D 4C 8C", decision_seconds=120)
    screen = table.dealer()
    t1, t2 = two_terminals(table, tmp_path)
    t1.request("wager", bet="main", amount=10)
    t2.request("wager", bet="main", amount=10)
    state = screen.request("terminal_override", seat="t1", pin=SUE)  # while the bets are open
    assert state["overrides"] == {"t1": "sue"}
    view = t1.request("seat")
    assert view["override"] == {"supervisor": "sue", "rule": "3.17"} and view["betting"] is True
    assert t2.request("seat")["override"] is None

    def refused_at_t1(op: str, **args: object) -> None:
        before, meter = screen.request("state"), t1.request("seat")["meter"]
        with pytest.raises(TerminalError) as refused:
            t1.request(op, **args)
        assert refused.value.code == "refused" and refused.value.clause == "3.17", refused.value.message
        assert "overridden by supervisor sue" in refused.value.message
        unchanged(screen, before)
        assert t1.request("seat")["meter"] == meter

    refused_at_t1("wager", bet="main", amount=10)  # no wager of its own while the dealer's (3.17)
    refused_at_t1("withdraw")  # its wager on the slip stays: the dealer would withdraw it
    assert screen.request("state")["slip"] == [{"type": "wager", "player": "t1", "bet": "main", "amount": 10},
                                               {"type": "wager", "player": "t2", "bet": "main", "amount": 10}]
    screen.request("no_more_bets")
    table.deal(screen, 3)
    assert until(screen, lambda s: set(s["clocks"]) == {"t1", "t2"})  # t1 keeps its decision time (3.17)
    for action in ("hit", "stand", "double", "surrender"):
        refused_at_t1("decide", action=action)
    assert t1.request("seat")["next"]["pending"][0]["player"] == "t1"  # still awaited, now from the dealer
    t2.request("decide", action="stand")  # t2's terminal decides for t2, as before
    screen.request("decide", player="t1", action="hit")  # the dealer, as t1's player says
    table.deal(screen, 1)  # 4C: 20
    refused_at_t1("decide", action="stand")
    screen.request("decide", player="t1", action="stand")
    table.deal(screen, 1)  # the dealer's 8C: 17
    state = until(screen, lambda s: s["concluded"])
    assert of_type(state, "decision") == [{"type": "decision", "player": "t2", "action": "stand"},
                                          {"type": "decision", "player": "t1", "action": "hit"},
                                          {"type": "decision", "player": "t1", "action": "stand"}]
    assert of_type(state, "timeout") == []
    nets = {s["player"]: (s["result"], s["net"]) for s in state["output"]["settlements"]}
    assert nets == {"t1": ("win", 10), "t2": ("lose", -10)}

    # the round's end ends the override: t1's terminal wagers again
    screen.request("next_round")
    view = t1.request("seat")
    assert view["override"] is None and view["meter"] == 1010 and t2.request("seat")["meter"] == 990
    t1.request("wager", bet="main", amount=5)
    assert screen.request("state")["slip"] == [{"type": "wager", "player": "t1", "bet": "main", "amount": 5}]
    t1.close()
    t2.close()
