"""Player terminals play for their own seat (issue 38, builds 2, 4 and 6; Electronic
Blackjack 1.1.10, 3.1, 3.2, 3.17, 3.18, 5.9): a real service with its TLS terminal endpoint
on loopback, the terminals paired by the technician's commands, the dealer's screen on the
service's socket, the cards from a simulated shoe on a pseudo-terminal in a fixed order.

Every result below is worked out by hand from electronic-blackjack.txt: Player, Dealer,
Player for the initial deal (3.7), then the subsequent cards in the order the terminals
take them (3.18.2), the dealer draws to 16 and stands on 17 (3.19)."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import dealer_assist.service.station as st
from dealer_assist.engine.table_setup import TableSetup, setup_to_json
from dealer_assist.service.client import ServiceClient, ServiceError
from dealer_assist.service.terminal_client import TerminalConnection, TerminalError
from dealer_assist.store.common import StoreError
from tests.service.conftest import make_shoe, quiet, wait_connected
from tests.service.test_terminals import ROOT, SUE, TerminalStation, add_code, cli, paired

LIVENESS_S = 60.0  # a bound for a hung service, never a measure of speed



@pytest.fixture
def electronic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., TerminalStation]]:
    """A station with terminals, its shoe holding ``cards`` in order, set up for Electronic
    Blackjack (main 5-1000) with ``decision_seconds``, each of ``credited`` seats with 1000 of
    credits bought (a supervisor's PIN at the dealer's screen)."""
    monkeypatch.delenv(st.CONFIG_ENV, raising=False)
    made: list[TerminalStation] = []

    def make(cards: str, decision_seconds: int = 20, credited: tuple[str, ...] = ("t1", "t2", "t3")) -> TerminalStation:
        s = TerminalStation(tmp_path / "state", tmp_path / "run" / "station.sock", make_shoe(cards))
        made.append(s)
        s.start()
        wait_connected(s)
        setup = TableSetup(game="electronic", decks=6, limits={"main": [Decimal(5), Decimal(1000)]},
                           terminals=["t1", "t2", "t3"], decision_seconds=decision_seconds)
        dealer = s.dealer()
        dealer.request("set_table", setup=setup_to_json(setup), pin=SUE)
        for seat in credited:  # 1.1.10: a terminal wagers from the credits bought at it
            dealer.request("buy_in", seat=seat, amount=1000, pin=SUE)
        return s

    yield make
    for s in made:
        s.stop()
        s.sim.close()


def until(screen: ServiceClient, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The service's state once ``done`` holds of it."""
    deadline = time.monotonic() + LIVENESS_S
    while True:
        state = screen.request("state")
        if done(state):
            return state
        assert time.monotonic() < deadline, f"the service never got there: {state['output']}"
        time.sleep(0.05)


def of_type(state: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in state["events"] if e["type"] == kind]


def results_by_player(state: dict[str, Any]) -> dict[str, tuple[str, Any, str]]:
    """Each settlement of the round's output as player -> (result, net, rule)."""
    return {s["player"]: (s["result"], s["net"], s["rule"]) for s in state["output"]["settlements"]}


def two_terminals(table: TerminalStation, directory: Path) -> tuple[TerminalConnection, TerminalConnection]:
    """Terminals paired to seats t1 and t2, connected."""
    return paired(table, "t1", directory / "t1"), paired(table, "t2", directory / "t2")


def unchanged(screen: ServiceClient, before: dict[str, Any]) -> None:
    after = screen.request("state")
    assert (after["version"], after["events"], after["slip"]) == (before["version"], before["events"], before["slip"])


def test_a_terminal_wagers_and_decides_for_its_own_seat_only(electronic: Callable[..., TerminalStation],
                                                             tmp_path: Path) -> None:
    # Cards: Player 10S, Dealer 9H, Player 6D (3.7): the shared hand is hard 16 against 9.
    # t1 (a terminal, main 10) hits: 4C -> 20, then stands. The dealer draws 8C: 9 + 8 = 17,
    # stands (3.19). 20 beats 17: t1 wins 1 to 1 (4.1), +10 under 4.5.2.
    table = electronic("10S 9H 6D 4C 8C")
    quiet(table)  # a heartbeat between two states is a change of its own (unchanged() compares versions)
    screen = table.dealer()
    term = paired(table, "t1", tmp_path / "t1")

    view = term.request("wager", bet="main", amount=25)  # no player: the seat is filled in
    assert screen.request("state")["slip"] == [{"type": "wager", "player": "t1", "bet": "main",
                                                             "amount": 25}]
    assert view["slip"] == [{"type": "wager", "player": "t1", "bet": "main", "amount": 25}]
    term.request("withdraw")  # before "No more bets" a wager may be withdrawn (5.4, read the other way)
    assert screen.request("state")["slip"] == []
    term.request("wager", player="t1", bet="main", amount=10)

    before = screen.request("state")
    for op, args in (("wager", {"player": "t2", "bet": "main", "amount": 10}),
                     ("withdraw", {"player": "t2"}),
                     ("decide", {"player": "t2", "action": "stand"}),
                     ("decide", {"action": "double", "followers": {"t2": 10}})):
        with pytest.raises(TerminalError) as refused:
            term.request(op, **args)
        assert refused.value.code == "refused" and refused.value.clause == "1.1.10", refused.value.message
        unchanged(screen, before)

    screen.request("no_more_bets")  # 3.2: the terminals show "No more bets"
    assert term.request("seat")["betting"] is False
    before = screen.request("state")
    with pytest.raises(TerminalError) as closed:
        term.request("wager", bet="main", amount=10)
    assert closed.value.code == "refused" and closed.value.clause == "3.2" and "No more bets" in closed.value.message
    with pytest.raises(TerminalError) as late:
        term.request("withdraw")
    assert late.value.clause == "5.4"
    unchanged(screen, before)

    table.deal(screen, 3)
    seat = term.request("seat")
    assert seat["next"]["pending"] == [{"player": "t1", "hand": 1, "options": ["hit", "stand", "double", "surrender"]}]
    term.request("decide", action="hit")
    table.deal(screen, 1)
    term.request("decide", player="t1", action="stand")
    table.deal(screen, 1)
    state = until(screen, lambda s: s["concluded"])
    assert of_type(state, "decision") == [{"type": "decision", "player": "t1", "action": "hit"},
                                          {"type": "decision", "player": "t1", "action": "stand"}]
    assert of_type(state, "timeout") == []
    (settled,) = state["output"]["settlements"]
    assert (settled["player"], settled["result"], settled["net"], settled["rule"]) == ("t1", "win", 10, "4.5.2")
    assert term.request("seat")["net"] == {"t1": 10}


def test_a_terminal_that_does_not_decide_is_timed_out_by_the_service_once(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:
    # decision_seconds 5: the least the set-up takes (table_setup.DECISION_SECONDS).
    # Cards: Player 5S, Dealer 9H, Player 4D: hard 9. t1 (main 10) never decides; its time
    # runs out and the service records "timeout" (3.17, 3.18): the default strategy draws to
    # hard 12 or soft 17 (3.18.1): 2C -> 11, draws again: KD -> 21, stops (3.16). Dealer 9H 8C
    # = 17 stands (3.19). 21 beats 17: +10 (4.5.2).
    table = electronic("5S 9H 4D 2C KD 8C", decision_seconds=5)
    screen = table.dealer()
    term = paired(table, "t1", tmp_path / "t1")
    term.request("wager", bet="main", amount=10)
    screen.request("no_more_bets")
    started = dt.datetime.now(dt.UTC)
    table.deal(screen, 3)
    view = term.request("seat")
    if not of_type(screen.request("state"), "timeout"):  # (it may have run out already on a slow machine)
        nxt = view["next"]
        assert nxt["pending"][0]["player"] == "t1" and 0 <= nxt["seconds_left"] <= 5
        ends = dt.datetime.fromisoformat(nxt["deadline"].replace("Z", "+00:00"))
        assert started <= ends  # the wall time it ends: after the deal began (5 s after the decisions opened)
    state = until(screen, lambda s: bool(of_type(s, "timeout")))
    assert of_type(state, "timeout") == [{"type": "timeout", "player": "t1"}]
    with pytest.raises(TerminalError) as too_late:  # its own decision after the time-out: refused (3.18)
        term.request("decide", action="stand")
    assert too_late.value.clause == "3.18.1"
    screen.request("timeout", player="t1")  # the dealer's screen counted too: nothing decided twice
    table.deal(screen, 3)
    state = until(screen, lambda s: s["concluded"])
    assert of_type(state, "timeout") == [{"type": "timeout", "player": "t1"}]
    assert of_type(state, "decision") == []
    (hand,) = state["output"]["players"][0]["hands"]
    assert hand["cards"] == ["5S", "4D", "2C", "KD"] and hand["total"] == 21
    (settled,) = state["output"]["settlements"]
    assert (settled["result"], settled["net"], settled["rule"]) == ("win", 10, "4.5.2")
    assert table.running is not None
    actors = [e.actor for e in table.running.store.audit_entries(kind="terminal_interrupted")]
    assert actors == []  # a time-out, not an interruption


def test_a_terminal_dropped_after_its_wager_plays_the_default_and_sees_its_result_again(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:
    # decision_seconds 120 (the most): a dropped terminal is not waited for (5.9.1 applies
    # the default decision as soon as its turn comes). The cards as above: Player 5S 4D =
    # hard 9, Dealer 9H. t1 (main 10) drops after the bets closed with its wager accepted
    # (5.9.1; a drop before the close is 5.9.2's: test_a_terminal_down_when_the_bets_close_...):
    # the default draws 2C, KD -> 21 (3.18.1). t2 (main 20) stands on 9 at its terminal. t3
    # connects and drops before any wager: it takes no part (5.9.2). Dealer 9H 8C = 17 (3.19).
    # t1: 21 beats 17, +10 (4.5.2); t2: 9 under 17, -20 (4.6.1); t3: no entry.
    table = electronic("5S 9H 4D 2C KD 8C", decision_seconds=120)
    screen = table.dealer()
    t1, t2 = two_terminals(table, tmp_path)
    t3 = paired(table, "t3", tmp_path / "t3")
    t3.close()
    t1.request("wager", bet="main", amount=10)
    t2.request("wager", bet="main", amount=20)
    screen.request("no_more_bets")
    t1.close()
    until(screen, lambda s: "t1" not in s["linked"])
    table.deal(screen, 3)
    reply = t2.request("decide", action="stand")
    assert reply["seat"] == "t2" and "t1" not in json.dumps(reply)  # its own view, never the screens' state
    state = until(screen, lambda s: bool(of_type(s, "timeout")))
    assert of_type(state, "timeout") == [{"type": "timeout", "player": "t1"}]
    table.deal(screen, 3)
    state = until(screen, lambda s: s["concluded"])
    nets = results_by_player(state)
    assert nets == {"t1": ("win", 10, "4.5.2"), "t2": ("lose", -20, "4.6.1")}
    assert table.running is not None
    (entry,) = table.running.store.audit_entries(kind="terminal_interrupted")
    assert entry.detail == {"seat": "t1", "rule": "5.9.1"}

    back = TerminalConnection("127.0.0.1", table.port, tmp_path / "t1")  # reconnected: its result
    view = back.request("seat")
    assert view["settlements"][0]["net"] == 10 and view["net"] == {"t1": 10}
    screen.request("next_round")
    later = back.request("seat")
    assert later["betting"] is True and later["settlements"] == []
    assert later["last_round"]["settlements"][0]["net"] == 10 and later["last_round"]["net"] == {"t1": 10}
    t3 = TerminalConnection("127.0.0.1", table.port, tmp_path / "t3")
    t3_view = t3.request("seat")
    assert t3_view["last_round"]["settlements"] == [] and t3_view["last_round"]["net"] == {}
    t3.close()
    back.close()
    t2.close()
    table.stop()  # and after a restart of the service, between rounds: the same result
    table.start()
    again = TerminalConnection("127.0.0.1", table.port, tmp_path / "t1")
    restarted = again.request("seat")
    assert restarted["last_round"]["round_id"] == state["round_id"]
    assert restarted["last_round"]["net"] == {"t1": 10}
    assert [e for e in restarted["last_round"]["events"] if e["type"] != "card"] == [
        {"type": "wager", "player": "t1", "bet": "main", "amount": 10}, {"type": "timeout", "player": "t1"}]
    again.close()


def test_a_terminal_down_when_the_bets_close_had_no_wager_accepted_and_takes_no_part(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:
    # Our reading (docs/station.md, "A terminal that drops"): t1 (main 10) and t2 (main 20)
    # wager at their terminals; t1's terminal drops before "No more bets" and is still down
    # when the bets close. The closing of bets never took place on it, so its wager was not
    # accepted: 5.9.2, t1 is deemed not to have participated: its wager leaves the slip, no
    # clock, no default decision (no timeout), no settlement, and its credits stay on its
    # meter (1000 bought; 990 while its wager was on the slip, 1.1.10). Audited
    # `terminal_not_accepted` with the clause and the wager; no 5.9.1 entry.
    # Cards: Player 5S, Dealer 9H, Player 4D (3.7): hard 9. t2 stands. Dealer 9H 8C = 17
    # stands (3.19). t2: 9 under 17 loses 20 (4.6.1), its meter 1000 - 20 = 980.
    table = electronic("5S 9H 4D 8C", decision_seconds=120)
    screen = table.dealer()
    t1, t2 = two_terminals(table, tmp_path)
    assert t1.request("wager", bet="main", amount=10)["meter"] == 990
    t2.request("wager", bet="main", amount=20)
    t1.close()
    until(screen, lambda s: "t1" not in s["linked"])
    quiet(table)  # unchanged() compares versions
    before = screen.request("state")
    with pytest.raises(ServiceError) as down:  # not accepted if still down at the close: no override of it
        screen.request("terminal_override", seat="t1", pin=SUE)
    assert down.value.clause == "5.9.2" and "not accepted" in down.value.message
    unchanged(screen, before)
    closed = screen.request("no_more_bets")
    assert of_type(closed, "wager") == [{"type": "wager", "player": "t2", "bet": "main", "amount": 20}]
    table.deal(screen, 3)
    t2.request("decide", action="stand")
    table.deal(screen, 1)
    state = until(screen, lambda s: s["concluded"])
    assert of_type(state, "timeout") == [] and of_type(state, "decision") == [
        {"type": "decision", "player": "t2", "action": "stand"}]
    assert [p["player"] for p in state["output"]["players"]] == ["t2"]
    nets = results_by_player(state)
    assert nets == {"t2": ("lose", -20, "4.6.1")}
    assert t2.request("seat")["meter"] == 980
    assert table.running is not None
    store = table.running.store
    (entry,) = store.audit_entries(kind="terminal_not_accepted")
    assert (entry.round_id, entry.actor) == (state["round_id"], "terminal:t1")
    assert entry.detail == {"seat": "t1", "rule": "5.9.2",
                            "wagers": [{"type": "wager", "player": "t1", "bet": "main", "amount": 10}]}
    assert store.audit_entries(kind="terminal_interrupted") == []
    assert store.audit_entries(kind="terminal_down") == []  # no seat of the round went down
    detail = store.get_round(state["round_id"])
    assert detail is not None and [e.event["player"] for e in detail.events if e.event["type"] == "wager"] == ["t2"]

    back = TerminalConnection("127.0.0.1", table.port, tmp_path / "t1")  # connected again: no part, its credits
    view = back.request("seat")
    assert (view["meter"], view["hands"], view["settlements"], view["net"]) == (1000, [], [], {})
    screen.request("next_round")
    later = back.request("seat")
    assert later["last_round"]["settlements"] == [] and later["last_round"]["net"] == {}
    assert later["meter"] == 1000
    back.close()
    t2.close()


def test_a_terminal_back_before_the_bets_close_keeps_its_wager(electronic: Callable[..., TerminalStation],
                                                               tmp_path: Path) -> None:
    # t1 (main 10) drops and connects again before "No more bets": until the close a wager
    # may still be withdrawn (5.4) and none was accepted or refused; connected when the bets
    # close, the closing takes place on its terminal and its wager is accepted (3.2), as
    # t2's (main 20). Cards: Player 5S, Dealer 9H, Player 4D (3.7): hard 9; both stand at
    # their terminals. Dealer 9H 8C = 17 (3.19). t1 -10, t2 -20 (4.6.1).
    table = electronic("5S 9H 4D 8C", decision_seconds=120)
    screen = table.dealer()
    t1, t2 = two_terminals(table, tmp_path)
    t1.request("wager", bet="main", amount=10)
    t2.request("wager", bet="main", amount=20)
    t1.close()
    until(screen, lambda s: "t1" not in s["linked"])
    t1 = TerminalConnection("127.0.0.1", table.port, tmp_path / "t1")
    until(screen, lambda s: "t1" in s["linked"])
    closed = screen.request("no_more_bets")
    assert sorted((e["player"], e["amount"]) for e in of_type(closed, "wager")) == [("t1", 10), ("t2", 20)]
    table.deal(screen, 3)
    t1.request("decide", action="stand")
    t2.request("decide", action="stand")
    table.deal(screen, 1)
    state = until(screen, lambda s: s["concluded"])
    assert of_type(state, "timeout") == []
    nets = results_by_player(state)
    assert nets == {"t1": ("lose", -10, "4.6.1"), "t2": ("lose", -20, "4.6.1")}
    assert t1.request("seat")["meter"] == 990
    assert table.running is not None
    assert table.running.store.audit_entries(kind="terminal_not_accepted") == []
    t1.close()
    t2.close()


def test_an_overridden_terminal_down_at_the_close_keeps_its_wager(electronic: Callable[..., TerminalStation],
                                                                  tmp_path: Path) -> None:
    # t1 (main 10) wagers at its terminal; a supervisor overrides it while the bets are open
    # (3.17: its wagers and decisions are the dealer's this round), then it drops before the
    # close. Its wager is no longer its terminal's to have accepted: it stays (as an
    # overridden terminal's drop after the close is no 5.9.1, docs/station.md), and the
    # dealer enters its decision. Cards: Player 5S, Dealer 9H, Player 4D (3.7) = hard 9; t1
    # (the dealer for it) and t2 (main 20, at its terminal) stand; Dealer 9H 8C = 17 (3.19):
    # t1 -10, t2 -20 (4.6.1).
    table = electronic("5S 9H 4D 8C", decision_seconds=120)
    screen = table.dealer()
    t1, t2 = two_terminals(table, tmp_path)
    t1.request("wager", bet="main", amount=10)
    t2.request("wager", bet="main", amount=20)
    screen.request("terminal_override", seat="t1", pin=SUE)
    t1.close()
    until(screen, lambda s: "t1" not in s["linked"])
    closed = screen.request("no_more_bets")
    assert sorted((e["player"], e["amount"]) for e in of_type(closed, "wager")) == [("t1", 10), ("t2", 20)]
    table.deal(screen, 3)
    screen.request("decide", player="t1", action="stand")
    t2.request("decide", action="stand")
    table.deal(screen, 1)
    state = until(screen, lambda s: s["concluded"])
    nets = results_by_player(state)
    assert nets == {"t1": ("lose", -10, "4.6.1"), "t2": ("lose", -20, "4.6.1")}
    assert table.running is not None
    assert table.running.store.audit_entries(kind="terminal_not_accepted") == []
    t2.close()


def test_every_wager_from_terminals_down_at_the_close_leaves_a_round_with_no_wager(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:
    # t1 (main 10) is the only wager and its terminal is down when the bets close: not
    # accepted (5.9.2), the slip is empty, and the bets close as on any empty slip: a round
    # with no wager, settled at once with no settlement (the engine's close of an empty slip).
    # No card is asked for; t1's meter stays 1000.
    table = electronic("5S 9H 4D 8C")
    screen = table.dealer()
    t1 = paired(table, "t1", tmp_path / "t1")
    t1.request("wager", bet="main", amount=10)
    t1.close()
    until(screen, lambda s: "t1" not in s["linked"])
    state = screen.request("no_more_bets")
    assert state["betting"] is False and state["concluded"] is True
    assert of_type(state, "wager") == [] and state["output"]["settlements"] == []
    assert state["output"]["status"] == "settled"
    assert table.running is not None
    (entry,) = table.running.store.audit_entries(kind="terminal_not_accepted")
    assert (entry.round_id, entry.detail["seat"], entry.detail["rule"]) == (state["round_id"], "t1", "5.9.2")
    back = TerminalConnection("127.0.0.1", table.port, tmp_path / "t1")
    assert back.request("seat")["meter"] == 1000
    back.close()


def test_the_first_card_closing_the_bets_leaves_out_a_terminal_down_then(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:
    # No "No more bets" from the dealer: the first card out of the shoe closes the bets (5.3).
    # t1 (main 10) is down then: not accepted (5.9.2). t2 (main 20): Player 5S, Dealer 9H,
    # Player 4D (3.7) = hard 9, stands; Dealer 9H 8C = 17 (3.19): -20 (4.6.1).
    table = electronic("5S 9H 4D 8C", decision_seconds=120)
    screen = table.dealer()
    t1, t2 = two_terminals(table, tmp_path)
    t1.request("wager", bet="main", amount=10)
    t2.request("wager", bet="main", amount=20)
    t1.close()
    until(screen, lambda s: "t1" not in s["linked"])
    table.deal(screen, 3)
    t2.request("decide", action="stand")
    table.deal(screen, 1)
    state = until(screen, lambda s: s["concluded"])
    assert [e["player"] for e in of_type(state, "wager")] == ["t2"] and of_type(state, "timeout") == []
    nets = results_by_player(state)
    assert nets == {"t2": ("lose", -20, "4.6.1")}
    assert table.running is not None
    (entry,) = table.running.store.audit_entries(kind="terminal_not_accepted")
    assert (entry.round_id, entry.detail["seat"], entry.detail["rule"]) == (state["round_id"], "t1", "5.9.2")
    t2.close()


def test_a_card_that_closes_nothing_leaves_a_down_terminals_wager_on_the_slip(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:
    # Only t1 (main 10) wagered, at its terminal, and it is down when a card comes out. Taken
    # off, its wager would leave an empty slip, which a card does not close (a stray card, not
    # expected now, 3.7, as for any empty slip): the bets are still open, so nothing was closed on any
    # terminal and 5.9.2 has not happened. The slip is as it was; t1 may come back before the
    # close and keep its wager (5.4).
    table = electronic("5S 9H 4D 8C", decision_seconds=120)
    screen = table.dealer()
    t1 = paired(table, "t1", tmp_path / "t1")
    t1.request("wager", bet="main", amount=10)
    t1.close()
    until(screen, lambda s: "t1" not in s["linked"])
    table.sim.deal()
    state = until(screen, lambda s: bool(s["stray"]))
    assert state["stray"]["card"] == "5S" and "(3.7)" in state["stray"]["reason"]  # a card not expected
    assert state["slip"] == [{"type": "wager", "player": "t1", "bet": "main", "amount": 10}]
    assert table.running is not None
    assert table.running.store.audit_entries(kind="terminal_not_accepted") == []


def play_out(table: TerminalStation, screen: ServiceClient) -> dict[str, Any]:
    """Deal each card the round asks for (the terminals decide or time out meanwhile) until it is over."""
    while True:
        state = until(screen, lambda s: s["concluded"] or s["expect"]["kind"] == "card")
        if state["concluded"]:
            return state
        table.deal(screen, 1)


def sim(table: TerminalStation, seat: str, directory: Path, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != st.CONFIG_ENV}
    return subprocess.Popen([sys.executable, "-m", "dealer_assist.cli", "terminal-sim", "--connect",
                             f"127.0.0.1:{table.port}", "--pair", add_code(table, seat), "--dir", str(directory),
                             *args], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_terminal_sim_plays_n_rounds_and_prints_a_json_line_each(electronic: Callable[..., TerminalStation],
                                                                tmp_path: Path) -> None:
    # Two simulated terminals, main 10 each, 2 rounds; decision_seconds 5.
    # Round 1: Player 5S 4D = hard 9, Dealer 6H. t1 (chart): 9 against 6 doubles (the printed
    # chart's D; 3.15.1): one card, 2C -> 11 (3.15.4), stake 20. t2 (timeout): its time runs
    # out, the default draws to hard 12 (3.18.1): 2C -> 11, KD -> 21 (the subsequent cards in
    # order, 3.18.2). Dealer 6H 10C = 16 draws, 9D: 25, bust (3.19). t1 +20, t2 +10 (4.5.3).
    # Round 2: Player 10S 2D = hard 12, Dealer 7H. t1 (chart) hits 12 against 7: 5C -> 17,
    # stands (hard 17 always stands). t2 times out: hard 12 takes no card (3.18.1). Dealer 7H
    # 10C = 17 stands. t1 17 = 17: push, 0 (4.8.1); t2 12 under 17: -10 (4.6.1).
    table = electronic("5S 6H 4D 2C KD 10C 9D  10S 7H 2D 5C 10C", decision_seconds=5)
    screen = table.dealer()
    procs = {"t1": sim(table, "t1", tmp_path / "t1", "--strategy", "chart", "--wager", "10", "--rounds", "2"),
             "t2": sim(table, "t2", tmp_path / "t2", "--strategy", "timeout", "--wager", "10", "--rounds", "2")}
    try:
        states = []
        for _ in range(2):
            until(screen, lambda s: {w["player"] for w in s["slip"]} == {"t1", "t2"})
            screen.request("no_more_bets")
            table.deal(screen, 3)
            states.append(play_out(table, screen))
            screen.request("next_round")
        out = {seat: p.communicate(timeout=LIVENESS_S) for seat, p in procs.items()}
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.communicate()
    for seat, p in procs.items():
        assert p.returncode == 0, out[seat][1]
    lines = {seat: [json.loads(line) for line in out[seat][0].splitlines()] for seat in procs}
    assert [(r["decisions"], r["net"], r["timed_out"]) for r in lines["t1"]] == [(["double"], 20, False),
                                                                                (["hit", "stand"], 0, False)]
    assert [(r["decisions"], r["net"], r["timed_out"]) for r in lines["t2"]] == [([], 10, True), ([], -10, True)]
    assert [r["round_id"] for r in lines["t1"]] == [s["round_id"] for s in states] == \
        [r["round_id"] for r in lines["t2"]]
    assert [r["settlements"][0]["rule"] for r in lines["t1"]] == ["4.5.3", "4.8.1"]
    assert [r["hands"][0]["cards"] for r in lines["t2"]] == [["5S", "4D", "2C", "KD"], ["10S", "2D"]]
    for s in states:  # one time-out per round: t2's, by the service's clock
        assert of_type(s, "timeout") == [{"type": "timeout", "player": "t2"}]


def test_terminal_sim_bad_input_is_one_line_and_exit_2(electronic: Callable[..., TerminalStation],
                                                       tmp_path: Path) -> None:
    table = electronic("5S 6H 4D")
    for args in (["--wager", "ten"], ["--wager", "10", "--rounds", "0"], ["--wager", "10", "--strategy", "martingale"],
                 ["--wager", "10", "--dir", str(tmp_path / "never-paired")]):
        done = cli("terminal-sim", "--connect", f"127.0.0.1:{table.port}", *args)
        assert done.returncode == 2 and done.stderr.startswith("error: "), (args, done.stderr)
        assert len(done.stderr.splitlines()) == 1 and done.stdout == ""
    # a wager the table refuses (over its maximum, 2.2): one line, exit 2
    p = sim(table, "t1", tmp_path / "t1", "--wager", "5000")
    _, err = p.communicate(timeout=LIVENESS_S)
    assert p.returncode == 2 and err.startswith("error: the wager of 5000 was refused") and "(2.2)" in err


def test_a_decision_that_came_first_wins_over_the_clock_and_a_time_out_is_taken_once(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:
    """The race of 3.17/3.18 played by hand: the clock's run-out for a decision already made
    does nothing; run out twice for the same decision, it is recorded once."""
    # Cards: Player 10S 6D = 16, Dealer 9H (3.7); t1 hits: 4C, 20, stands. decision_seconds
    # 120: the clock never runs out by itself here; the test calls what the clock's thread calls.
    table = electronic("10S 9H 6D 4C 8C", decision_seconds=120)
    quiet(table)  # a heartbeat between two states is a change of its own (unchanged() compares versions)
    assert table.running is not None
    service = table.running.service
    screen = table.dealer()
    t1, t2 = two_terminals(table, tmp_path)
    t1.request("wager", bet="main", amount=10)
    t2.request("wager", bet="main", amount=10)
    screen.request("no_more_bets")
    table.deal(screen, 3)
    clock1, clock2 = service.clock.get("t1"), service.clock.get("t2")
    assert clock1 is not None and clock2 is not None
    assert t1.request("seat")["next"]["deadline"] == clock1.deadline
    early = screen.request("timeout", player="t2")  # the dealer's screen counted faster: the service's clock governs
    assert of_type(early, "timeout") == [] and service.clock.get("t2") is clock2
    t1.request("decide", action="hit")  # under the table's lock before the clock's run-out
    before = screen.request("state")
    service.decision_time_out("t1", clock1.key)
    unchanged(screen, before)
    # the round waits for t1's card; t2's own decision is still its to make, with its time
    assert before["expect"]["kind"] == "card"
    own = t2.request("seat")["next"]
    assert own["pending"][0]["player"] == "t2" and own["deadline"] == clock2.deadline
    table.deal(screen, 1)  # 4C: t1 has 20
    t1.request("decide", action="stand")
    service.decision_time_out("t2", clock2.key)
    service.decision_time_out("t2", clock2.key)
    state = screen.request("state")
    assert of_type(state, "timeout") == [{"type": "timeout", "player": "t2"}]
    assert of_type(state, "decision") == [{"type": "decision", "player": "t1", "action": "hit"},
                                          {"type": "decision", "player": "t1", "action": "stand"}]
    # t2's default stood on hard 16 (3.18.1): every hand is complete, the dealer draws (3.19)
    assert state["output"]["next"] == {"expect": "card", "for": "dealer"}
    with pytest.raises(TerminalError) as late:
        t2.request("decide", action="hit")
    assert late.value.clause == "3.19"
    t1.close()
    t2.close()


def test_terminal_sim_dropped_after_its_wager_gets_the_default_and_prints_its_result(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:
    # Cards: Player 5S 4D = hard 9, Dealer 9H. t1 (a sim, chart strategy) goes down once its
    # wager of 10 was accepted (5.9.1): the default decision draws 2C -> 11, KD -> 21
    # (3.18.1); the chart would have hit 9 against 9 and then stood, but it never decides.
    # Dealer 9H 8C = 17 (3.19). 21 beats 17: +10 (4.5.2). decision_seconds 120: it is not
    # waited for.
    table = electronic("5S 9H 4D 2C KD 8C", decision_seconds=120)
    screen = table.dealer()
    p = sim(table, "t1", tmp_path / "t1", "--strategy", "chart", "--wager", "10", "--drop-after-wager",
            "--down", "1")
    try:
        until(screen, lambda s: [w["player"] for w in s["slip"]] == ["t1"])
        screen.request("no_more_bets")
        table.deal(screen, 3)
        state = play_out(table, screen)
        out, err = p.communicate(timeout=LIVENESS_S)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 0, err
    (line,) = [json.loads(x) for x in out.splitlines()]
    assert (line["decisions"], line["timed_out"], line["net"]) == ([], True, 10)
    assert line["hands"][0]["cards"] == ["5S", "4D", "2C", "KD"]
    assert of_type(state, "timeout") == [{"type": "timeout", "player": "t1"}]
    assert table.running is not None
    assert [e.detail for e in table.running.store.audit_entries(kind="terminal_interrupted")] == [
        {"seat": "t1", "rule": "5.9.1"}]


def test_a_terminal_takes_insurance_as_the_rules_allow(electronic: Callable[..., TerminalStation],
                                                       tmp_path: Path) -> None:
    # Cards: Player 10S, Dealer AH, Player 9D (3.7): 19 against an Ace. t1 (main 10) may
    # insure (3.11) and may not surrender (1.1.17). It insures 5 (half its wager, 1.1.8),
    # then stands. The dealer's second card KC: a blackjack. t1's 19 loses 10 (4.6.3); the
    # insurance wins 2 to 1 (4.1): +10. Net 0.
    table = electronic("10S AH 9D KC")
    screen = table.dealer()
    term = paired(table, "t1", tmp_path / "t1")
    term.request("wager", bet="main", amount=10)
    screen.request("no_more_bets")
    table.deal(screen, 3)
    (pending,) = term.request("seat")["next"]["pending"]
    assert pending["options"] == ["hit", "stand", "double", "insurance"]
    with pytest.raises(TerminalError) as no:
        term.request("decide", action="surrender")
    assert no.value.clause == "1.1.17"
    term.request("decide", action="insurance")
    term.request("decide", action="stand")
    table.deal(screen, 1)
    state = until(screen, lambda s: s["concluded"])
    entries = {(s["bet"], s["result"], s["net"], s["rule"]) for s in state["output"]["settlements"]}
    assert entries == {("main", "lose", -10, "4.6.3"), ("insurance", "win", 10, "4.1")}
    assert term.request("seat")["net"] == {"t1": 0}


def test_a_screens_slip_keeps_the_wagers_terminals_placed(electronic: Callable[..., TerminalStation],
                                                          tmp_path: Path) -> None:
    """The dealer's screen sends its slip whole (set_slip): one sent before it heard of a
    terminal's wager neither drops nor changes it (the terminal's wagers are its player's, 1.1.10)."""
    table = electronic("10S 9H 6D")
    screen = table.dealer()
    term = paired(table, "t1", tmp_path / "t1")
    term.request("wager", bet="main", amount=10)
    screen.request("set_slip", wagers=[{"player": "t2", "bet": "main", "amount": 20}])  # a stale slip
    screen.request("set_slip", wagers=[{"player": "t1", "bet": "main", "amount": 500},
                                       {"player": "t2", "bet": "main", "amount": 25}])
    assert screen.request("state")["slip"] == [{"type": "wager", "player": "t1", "bet": "main", "amount": 10},
                                               {"type": "wager", "player": "t2", "bet": "main", "amount": 25}]
    term.request("withdraw")  # its own: then the screen's slip governs that seat again
    screen.request("set_slip", wagers=[{"player": "t1", "bet": "main", "amount": 15}])
    assert screen.request("state")["slip"] == [{"type": "wager", "player": "t1", "bet": "main", "amount": 15}]


def test_a_seat_the_dealer_wagered_for_keeps_its_time_though_its_terminal_is_down(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:
    """5.9.1 is about a wager accepted at the terminal: a seat whose wager the dealer's screen
    placed is decided there (after a supervisor's override of its terminal), on its clock,
    whether or not its terminal is up."""
    table = electronic("10S 9H 6D", decision_seconds=120)
    assert table.running is not None
    screen = table.dealer()
    paired(table, "t1", tmp_path / "t1").close()  # its terminal was up, and is down
    service = table.running.service
    deadline = time.monotonic() + LIVENESS_S
    while "t1" not in service.interrupted:  # the service saw it go
        assert time.monotonic() < deadline
        time.sleep(0.02)
    screen.request("wager", player="t1", bet="main", amount=10)
    screen.request("no_more_bets")
    state = table.deal(screen, 3)
    clock = service.clock.get("t1")
    assert clock is not None and clock.seconds_left() > 0 and of_type(state, "timeout") == []
    # the dealer enters t1's decision once a supervisor overrode its terminal (issue 38 build 5, 3.17)
    screen.request("terminal_override", seat="t1", pin=SUE)
    screen.request("decide", player="t1", action="stand")
    assert of_type(screen.request("state"), "decision") == [{"type": "decision", "player": "t1", "action": "stand"}]


def test_the_dealers_wager_for_a_paired_seat_is_placed_from_its_credits(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:
    """1.1.10: a seat with a paired terminal plays from its credit meter, also when the dealer's
    screen enters its wager (op ``wager``, or the slip the screen sends at "No more bets",
    ``set_slip``): none bought, none placed; the refusal names 1.1.10 and leaves the round as
    it was. A seat with no terminal still plays as cash."""
    # t1: paired, no credits. t2: paired, 30 bought. t3: a terminal seat of the set-up with no
    # terminal paired and no credits: cash, as before.
    table = electronic("10S 9H 6D", credited=())
    quiet(table)  # a heartbeat between two states is a change of its own (unchanged() compares versions)
    screen = table.dealer()
    t1, t2 = two_terminals(table, tmp_path)
    screen.request("buy_in", seat="t2", amount=30, pin=SUE)
    before = screen.request("state")
    for op, args in (("wager", {"player": "t1", "bet": "main", "amount": 10}),
                     ("set_slip", {"wagers": [{"player": "t1", "bet": "main", "amount": 10}]}),
                     ("set_slip", {"wagers": [{"player": "t3", "bet": "main", "amount": 10},
                                              {"player": "t1", "bet": "main", "amount": 5}]})):
        with pytest.raises(ServiceError) as refused:
            screen.request(op, **args)
        assert refused.value.code == "refused" and refused.value.clause == "1.1.10", refused.value.message
        assert refused.value.message == "seat t1 has no credits: buy credits at its terminal first (1.1.10)"
        unchanged(screen, before)
    # t2 holds 30: a wager of 40 is short, by either op (1.1.10)
    for op, args in (("wager", {"player": "t2", "bet": "main", "amount": 40}),
                     ("set_slip", {"wagers": [{"player": "t2", "bet": "main", "amount": 40}]})):
        with pytest.raises(ServiceError) as short:
            screen.request(op, **args)
        assert short.value.clause == "1.1.10" and "meter holds 30" in short.value.message
        unchanged(screen, before)
    assert t1.request("seat")["meter"] is None and t2.request("seat")["meter"] == 30

    # t3 has no terminal: its wager plays as cash (no meter); t2's 20 comes off its meter: 30 - 20 = 10
    screen.request("set_slip", wagers=[{"player": "t3", "bet": "main", "amount": 10},
                                       {"player": "t2", "bet": "main", "amount": 20}])
    assert t2.request("seat")["meter"] == 10
    # t1 bought 100 at the dealer's screen: the dealer's wager of 25 for it is placed from it: 75
    screen.request("buy_in", seat="t1", amount=100, pin=SUE)
    screen.request("wager", player="t1", bet="main", amount=25)
    assert t1.request("seat")["meter"] == 75
    assert [(e["player"], e["amount"]) for e in screen.request("state")["slip"]] == [("t3", 10), ("t2", 20),
                                                                                      ("t1", 25)]
    t1.close()
    t2.close()


def test_a_restart_between_a_rounds_end_and_its_payment_pays_each_meter_once(
        electronic: Callable[..., TerminalStation], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The service stops after the round's settlement is recorded and before its results are
    paid to the meters (the payment's write fails: the seam where a kill leaves the store);
    started again, it pays each seat's net result once, and a further restart pays nothing
    more (1.1.10: buy-ins - cash-outs + net results = meters)."""
    # Cards: Player 10S, Dealer 9H, Player 6D: hard 16 against 9 (3.7). t1 (main 10) hits:
    # 4C -> 20, stands; t2 (main 20) stands on 16. The dealer draws 8C: 17, stands (3.19).
    # t1: 20 beats 17, +10 (4.5.2); t2: 16 under 17, -20 (4.6.1). Meters (1000 bought
    # each): t1 1000 + 10 = 1010, t2 1000 - 20 = 980.
    table = electronic("10S 9H 6D 4C 8C", credited=("t1", "t2"))
    screen = table.dealer()
    t1, t2 = two_terminals(table, tmp_path)
    assert table.running is not None
    store = table.running.store

    def killed(*args: Any, **kwargs: Any) -> Any:
        raise StoreError("the service was killed before the round's results were paid")

    monkeypatch.setattr(store, "pay_results", killed)
    t1.request("wager", bet="main", amount=10)
    t2.request("wager", bet="main", amount=20)
    screen.request("no_more_bets")
    table.deal(screen, 3)
    t2.request("decide", action="stand")
    t1.request("decide", action="hit")
    table.deal(screen, 1)
    t1.request("decide", action="stand")
    table.deal(screen, 1)
    state = until(screen, lambda s: s["concluded"])
    round_id = state["round_id"]
    assert state["output"]["net"] == {"t1": 10, "t2": -20}
    # the seam: the round is settled on record, its results not paid to the meters
    (recorded,) = store.list_rounds(limit=1)
    assert recorded.id == round_id and recorded.status == "settled"
    assert store.audit_entries(round_id=round_id, kind="meter_result") == []
    assert store.meters() == {"t1": 1000, "t2": 1000}
    for c in (t1, t2):
        c.close()

    def paid_once() -> None:
        assert table.running is not None
        again = table.running.store
        assert sorted((e.detail["seat"], e.detail["amount"])
                      for e in again.audit_entries(round_id=round_id, kind="meter_result")) == [("t1", 10),
                                                                                                ("t2", -20)]
        assert again.meters() == {"t1": 1010, "t2": 980}
        assert again.reconcile_credits() == ""

    table.stop()
    table.start()
    wait_connected(table)
    paid_once()
    back = TerminalConnection("127.0.0.1", table.port, tmp_path / "t1")
    assert back.request("seat")["meter"] == 1010 and back.request("seat")["last_round"]["round_id"] == round_id
    back.close()
    table.stop()  # and once more: nothing is paid twice
    table.start()
    wait_connected(table)
    paid_once()
    t1 = TerminalConnection("127.0.0.1", table.port, tmp_path / "t1")  # the next round's bets open (3.1)
    view = t1.request("seat")
    assert (view["meter"], view["betting"], view["last_round"]["net"]) == (1010, True, {"t1": 10})
    t1.close()
