"""Credits as money at the player terminals (issue 38, build 3; Electronic Blackjack 1.1.10:
the Player Terminal is where a player buys credits, places wagers and cashes out): a real
service with its TLS terminal endpoint on loopback, the terminals paired by the technician's
commands, the dealer's screen on the service's socket, a simulated shoe in a fixed order.

Every meter below is worked out by hand from electronic-blackjack.txt: Player, Dealer,
Player for the initial deal (3.7); a wager placed is taken from the meter, each wager's
stake and result paid back once it is settled (interim or final)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import dealer_assist.service.station as st
from dealer_assist.service.terminal_client import TerminalConnection, TerminalError
from dealer_assist.store import Store
from tests.service import test_terminal_play as play
from tests.service.test_terminals import ROOT, SUE, TerminalStation, add_code, cli, paired

electronic = play.electronic  # the fixture: a station set up for Electronic Blackjack
until = play.until


def meter_rows(table: TerminalStation) -> list[tuple[str, dict[str, Any]]]:
    assert table.running is not None
    return [(e.kind, e.detail) for e in table.running.store.audit_entries()
            if e.kind.startswith("meter_") or e.kind == "buy_in"]


def refused_with(term: TerminalConnection, clause: str, op: str, **args: Any) -> str:
    with pytest.raises(TerminalError) as refused:
        term.request(op, **args)
    assert refused.value.clause == clause, refused.value.message
    return refused.value.message


def test_a_buy_in_wagers_and_results_move_the_meter_and_cash_out_writes_a_voucher(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:
    # Cards: Player 9S, Dealer 10H, Player 9S (3.7); then 2D 10C 7H 5C for t1's hands, 8S the dealer's.
    table = electronic("9S 10H 9S 2D 10C 7H 5C 8S", credited=())
    screen = table.dealer()
    t1 = paired(table, "t1", tmp_path / "t1")
    t2 = paired(table, "t2", tmp_path / "t2")
    assert t1.request("seat")["meter"] is None  # never bought credits: no meter
    assert "buy credits" in refused_with(t1, "1.1.10", "wager", bet="main", amount=25)

    assert t1.request("buy_in", amount=500, pin=SUE)["meter"] == 500  # at the terminal, a supervisor's PIN
    screen.request("buy_in", seat="t2", amount="20.00", pin=SUE)  # at the dealer's screen
    assert t2.request("seat")["meter"] == 20

    # t1: main 25 and Bet the Set 5 are taken from the meter: 500 - 25 - 5 = 470
    t1.request("wager", bet="main", amount=25)
    assert t1.request("wager", bet="bet_the_set", amount=5)["meter"] == 470
    # t2 holds 20: a main wager of 25 is short (1.1.10), 20 is not: 20 - 20 = 0; then nothing more
    assert "holds 20" in refused_with(t2, "1.1.10", "wager", bet="main", amount=25)
    assert t2.request("seat")["meter"] == 20 and t2.request("seat")["slip"] == []
    assert t2.request("wager", bet="main", amount=20)["meter"] == 0
    refused_with(t2, "1.1.10", "wager", bet="royal_match", amount=5)
    # withdrawn before "No more bets", a wager is back on the meter (5.4): 0 + 20 = 20, then placed again
    assert t2.request("withdraw")["meter"] == 20
    assert t2.request("wager", bet="main", amount=20)["meter"] == 0

    screen.request("no_more_bets")
    table.deal(screen, 3)
    assert t1.request("seat")["meter"] == 470  # nothing settled yet
    # t2 (meter 0) cannot split: the second hand's wager equals the first (3.13)
    assert "a split's second wager of 20" in refused_with(t2, "1.1.10", "decide", action="split")
    with pytest.raises(TerminalError):
        t2.request("cash_out")  # its wager is in play, and there is nothing on its meter
    assert "wagers in play" in refused_with(t1, "1.1.10", "cash_out")
    assert t1.request("seat")["may_cash_out"] is False
    t2.request("decide", action="stand")  # 18
    # t1 splits: a second 25 (3.13); its offers close with this first decision, its interim
    # settlement: Player 9S 9S is a suited pair, Bet the Set pays 15 to 1 (4.2): the stake 5 and
    # 75 back: 470 - 25 + 80 = 525. Hand 1 takes 2D (3.13.1): 11, doubled (3.15): 525 - 25 = 500
    assert t1.request("decide", action="split")["meter"] == 525
    table.deal(screen, 1)
    assert t1.request("decide", action="double")["meter"] == 500
    table.deal(screen, 1)  # 10C: hand 1 is 21 (one card only, 3.15.4)
    table.deal(screen, 1)  # 7H: hand 2 is 9 + 7 = 16
    t1.request("decide", action="hit")
    table.deal(screen, 1)  # 5C: 21, no more decisions (3.16)
    table.deal(screen, 1)  # the dealer: 10H 8S = 18, stands (3.19)
    state = until(screen, lambda s: s["concluded"])
    assert state["output"]["net"] == {"t1": 150, "t2": 0}
    # t1: hand 1 (50) beats 18: 50 + 50 back; hand 2 (25): 25 + 25 back (4.5.2): 500 + 150 = 650.
    # t2: 18 against 18 is a stand-off (4.8.1): its 20 back: 0 + 20 = 20
    assert t1.request("seat")["meter"] == 650 and t2.request("seat")["meter"] == 20
    # on record: buy-ins 520 - cash-outs 0 + net results 150 = 670 = 650 + 20
    assert [(k, d["seat"], d["amount"], d["meter"]) for k, d in meter_rows(table) if k.startswith("meter_")] == [
        ("meter_buy_in", "t1", 500, 500), ("meter_buy_in", "t2", 20, 20), ("meter_result", "t1", 150, 650)]

    assert t1.request("seat")["may_cash_out"] is True  # the round is over and paid
    view = t1.request("cash_out")
    voucher = view["voucher"]
    assert view["meter"] == 0 and voucher["amount"] == 650 and voucher["seat"] == "t1"
    assert len(voucher["validation"]) == 18 and voucher["validation"].isdigit()
    assert "nothing to cash out" in refused_with(t1, "1.1.10", "cash_out")
    t2.request("cash_out")
    numbers = [d["validation"] for k, d in meter_rows(table) if k == "meter_cash_out"]
    assert len(set(numbers)) == 2 and numbers[0] == voucher["validation"]
    assert table.running is not None
    assert table.running.store.reconcile_credits() == ""  # 520 - 670 + 150 = 0 = 0 + 0
    assert table.running.store.audit_entries(kind="meter_unreconciled") == []
    done = cli("history", "verify", "--db", str(table.running.store.path))
    assert done.returncode == 0, done.stdout + done.stderr


def test_refused_buy_ins_leave_the_meter_and_the_store_unchanged(electronic: Callable[..., TerminalStation],
                                                                 tmp_path: Path) -> None:
    table = electronic("10S 9H 6D 4C 8C", credited=())
    screen = table.dealer()
    t1 = paired(table, "t1", tmp_path / "t1")
    t1.request("buy_in", amount=100, pin=SUE)
    assert table.running is not None
    rows = len(table.running.store.audit_entries())
    for amount in (0, -5, 10.005, "ten", None):
        message = refused_with(t1, "1.1.10", "buy_in", amount=amount, pin=SUE)
        assert message.startswith("a buy-in's amount"), message
    assert "for no other seat" in refused_with(t1, "1.1.10", "buy_in", seat="t2", amount=10, pin=SUE)
    with pytest.raises(Exception) as screen_refused:
        screen.request("buy_in", seat="p1", amount=10, pin=SUE)  # no terminal's seat
    assert "1.1.10" in str(screen_refused.value)
    assert len(table.running.store.audit_entries()) == rows  # refused before any PIN was checked
    for pin in ({"user": "sue", "pin": "000000"}, {"user": "ann", "pin": "730418"}):  # wrong; a dealer's
        with pytest.raises(TerminalError) as wrong:
            t1.request("buy_in", amount=10, pin=pin)
        assert wrong.value.code == "pin"
    with pytest.raises(TerminalError) as no_pin:
        t1.request("buy_in", amount=10)
    assert no_pin.value.code == "pin"
    assert t1.request("seat")["meter"] == 100
    assert [(k, d["meter"]) for k, d in meter_rows(table) if k.startswith("meter_")] == [("meter_buy_in", 100)]
    assert len([k for k, _ in meter_rows(table) if k == "buy_in"]) == 1  # the one approval used


def test_a_terminal_cannot_change_its_meter_or_cash_out_another_seat(electronic: Callable[..., TerminalStation],
                                                                      tmp_path: Path) -> None:
    table = electronic("10S 9H 6D 4C 8C", credited=("t1", "t2"))  # 1000 each, bought at the dealer's screen
    t1 = paired(table, "t1", tmp_path / "t1")
    for args in ({"seat": "t2"}, {"amount": 5}):
        with pytest.raises(TerminalError) as refused:
            t1.request("cash_out", **args)  # cash_out takes no field: its seat is the certificate's
        assert refused.value.code == "bad_request"
    for op in ("set_slip", "approve", "set_table", "void"):  # a screen's, not a terminal's
        with pytest.raises(TerminalError) as refused:
            t1.request(op)
        assert refused.value.code == "auth"
    assert t1.request("seat")["meter"] == 1000
    assert t1.request("cash_out")["voucher"]["amount"] == 1000
    screen = table.dealer()
    assert screen.request("state") is not None
    assert table.running is not None
    assert table.running.store.meters() == {"t1": 0, "t2": 1000}  # t2's untouched


def test_a_tampered_meter_fails_history_verify(electronic: Callable[..., TerminalStation],
                                                tmp_path: Path) -> None:
    table = electronic("10S 9H 6D 4C 8C", credited=("t1",))
    assert table.running is not None
    path = table.running.store.path
    table.stop()
    with Store.open(path) as store:  # the meter's entry edited by hand: 1000 -> 10000
        entry = store.audit_entries(kind="meter_buy_in")[0]
        problem_before = store.reconcile_credits()
    assert problem_before == ""
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE audit SET detail_json = ? WHERE id = ?",
                     (json.dumps({**entry.detail, "meter": 10000}), entry.id))
    conn.close()
    with Store.open(path) as store:
        assert "does not follow from its last (0) and this movement (1000)" in store.reconcile_credits()
    done = cli("history", "verify", "--db", str(path))
    assert done.returncode != 0


def test_terminal_sim_buys_in_plays_and_cashes_out(electronic: Callable[..., TerminalStation],
                                                   tmp_path: Path) -> None:
    # Player 10S, Dealer 9H, Player QD (3.7): 20 against 9; the sim stands. The dealer draws 8C:
    # 17, stands (3.19). 20 beats 17 (4.5.2): +10. Meter: 100 bought - 10 + 20 = 110, all on the voucher.
    table = electronic("10S 9H QD 8C", credited=())
    screen = table.dealer()
    env = {k: v for k, v in os.environ.items() if k != st.CONFIG_ENV}

    def run(seat: str, pin: str, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "dealer_assist.cli", "terminal-sim", "--connect", f"127.0.0.1:{table.port}",
             "--pair", add_code(table, seat), "--dir", str(tmp_path / seat), "--buy-in", "100", "--supervisor",
             "sue", *args], cwd=ROOT, env={**env, "DEALER_ASSIST_PIN": pin}, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)

    wrong = run("t2", "000000", "--rounds", "0")
    _, err = wrong.communicate(timeout=play.LIVENESS_S)
    assert wrong.returncode == 2 and err.startswith("error: the buy-in of 100 was refused"), err
    p = run("t1", SUE["pin"], "--strategy", "stand", "--wager", "10", "--cash-out")
    try:
        until(screen, lambda s: [w["player"] for w in s["slip"]] == ["t1"])
        screen.request("no_more_bets")
        table.deal(screen, 3)
        play.play_out(table, screen)
        out, err = p.communicate(timeout=play.LIVENESS_S)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 0, err
    result, cashed = (json.loads(line) for line in out.splitlines())
    assert (result["net"], result["meter"]) == (10, 110)
    assert cashed["meter"] == 0 and cashed["voucher"]["amount"] == 110 and cashed["voucher"]["seat"] == "t1"
    assert table.running is not None
    assert table.running.store.meters() == {"t1": 0}  # t2's refused buy-in left no meter


def test_the_dealers_screen_places_a_bought_in_seats_wagers_from_its_meter(
        electronic: Callable[..., TerminalStation], tmp_path: Path) -> None:
    # t1 bought 1000 (the fixture). Wagers the dealer's screen enters for t1 come from the same
    # meter (1.1.10): a slip of 600 + 500 = 1100 is short, 600 + 400 = 1000 is not: 1000 - 1000 = 0.
    table = electronic("10S 9H 6D 4C 8C", credited=("t1",))
    screen = table.dealer()
    t1 = paired(table, "t1", tmp_path / "t1")
    wagers = [{"player": "t1", "bet": "main", "amount": 600}, {"player": "t1", "bet": "royal_match", "amount": 500}]
    with pytest.raises(Exception) as short:
        screen.request("set_slip", wagers=wagers)
    assert "1.1.10" in str(short.value) and "wagers of 1100 need more credits" in str(short.value)
    assert screen.request("state")["slip"] == [] and t1.request("seat")["meter"] == 1000
    screen.request("wager", player="t1", bet="main", amount=600)
    with pytest.raises(Exception) as over:
        screen.request("wager", player="t1", bet="royal_match", amount=500)
    assert "holds 400" in str(over.value)
    screen.request("wager", player="t1", bet="royal_match", amount=100)
    assert t1.request("seat")["meter"] == 300  # 1000 - 600 - 100
    # a seat that never bought credits is the dealer's to wager for, as before (no meter)
    screen.request("wager", player="t2", bet="main", amount=10)
    assert [w["player"] for w in screen.request("state")["slip"]] == ["t1", "t1", "t2"]
    # a supervisor's approval (op approve, kind buy_in) serves one buy-in at the dealer's screen
    approval = screen.request("approve", user="sue", pin=SUE["pin"], kind="buy_in")["approval"]
    screen.request("buy_in", seat="t3", amount="49.99", approval=approval)
    with pytest.raises(Exception) as used:
        screen.request("buy_in", seat="t3", amount=10, approval=approval)
    assert "supervisor's approval" in str(used.value)
    assert table.running is not None and table.running.store.meters()["t3"] == Decimal("49.99")


def test_a_reconciliation_that_fails_at_a_rounds_end_is_audited(electronic: Callable[..., TerminalStation],
                                                                 tmp_path: Path) -> None:
    # t1 (1000 bought) main 10. Player 10S, Dealer 9H, Player 6D: 16, t1 stands; the dealer
    # draws 4C (13) and 8C: 21 (3.19); 16 loses (4.6.1): -10, the meter 990.
    # Meanwhile an entry is forged into the store (through its own writer, the chain kept): a
    # result paid to t3 for no round. At the round's end the service pays t1 and reconciles:
    # the forged payment fails it, audited meter_unreconciled with the round.
    table = electronic("10S 9H 6D 4C 8C", credited=("t1",))
    screen = table.dealer()
    t1 = paired(table, "t1", tmp_path / "t1")
    t1.request("wager", bet="main", amount=10)
    screen.request("no_more_bets")
    table.deal(screen, 3)
    assert table.running is not None
    table.running.store.add_audit("meter_result", actor="forger", detail={"seat": "t3", "amount": 5, "before": 0,
                                                                          "meter": 5})
    t1.request("decide", action="stand")
    table.deal(screen, 2)
    state = until(screen, lambda s: s["concluded"])
    assert state["output"]["net"] == {"t1": -10}
    assert t1.request("seat")["meter"] == 990
    (failed,) = table.running.store.audit_entries(kind="meter_unreconciled")
    assert failed.round_id == state["round_id"] and "a result paid for no round" in failed.detail["problem"]
    done = cli("history", "verify", "--db", str(table.running.store.path))
    assert done.returncode != 0 and "the credit meters do not reconcile" in done.stdout + done.stderr
