"""Issue 38's "Done means": a real `station serve` process on Electronic Blackjack with twelve
player terminals paired over TLS on loopback: t1 the real terminal window (offscreen, driven
by its buttons), t4 and t5 `dealer-assist terminal-sim` processes, the rest headless
terminals (the terminal client the window and the simulator use). One round, the cards from
the simulated shoe in the order below, then vouchers, `history verify`, the reconciliation
and the floor's view of the terminals' buy-ins and cash-outs.

Worked by hand from electronic-blackjack.txt. The shoe: 4H 6S 4H (3.7: Player, Dealer,
Player), then the subsequent cards 3D 2C 7H in the order the hands take them (3.18.2), then
the dealer's 10S 3C. The shared hand 4H 4H is hard 8 (3.4.2, 3.8); the dealer shows 6S, so
surrender is allowed (1.1.17) and insurance is not (3.11).

Seat  buy-in           wagers            what happens                                  net
t1    500 (screen)     main 10, BTS 5    window: Double (3.15.1): one card 3D -> 11    -20 + 75
                                         (3.15.4); 11 < 19 loses 20 (4.6.1). 4H 4H is
                                         a suited pair: Bet the Set 15 to 1, +75 (4.2)  = +55
t2    1000 (screen)    main 100, RM 10   hit 3D 11, hit 2C 13, hit 7H 20, stand;       +100 + 25
                                         20 > 19: +100 (4.5.2). 4H 4H two suited cards  = +125
                                         (not K-Q): Royal Match 5 to 2, +25 (4.3)
t3    300 (screen)     main 50, KB 5     surrender: half the wager, -25 (3.12, 1.1.17); -25 - 5
                                         4H 4H is no Kings Bounty hand: -5 (3.6.3)      = -30
t4    200 (sim, PIN)   main 20 (sim)     never decides: the time runs out (3.17) and   -20
                                         the default (3.18.1) draws to hard 12: 3D 11,
                                         2C 13, stops. 13 < 19: -20 (4.6.1)
t5    200 (screen)     main 25 (sim)     the same default: 13 < 19 (4.6.1)             -25
t6    400 (screen)     main 40, BTS 10   drops after its wager was accepted: the       -40 + 150
                                         default decision (5.9.1, 3.18): 13, -40;       = +110
                                         Bet the Set +150 (4.2)
t7    100 (screen)     none              drops before any wager: takes no part (5.9.2)   0
t8    250 (terminal)   none              cashes out 250 before the round (1.1.10)         0
t9, t11, t12  150, 80, 120 (screen)      no wager                                       0
t10   60 (screen)      none              cashes out 60 after the round                  0

The dealer: 6S 10S = 16 draws (3.19), 3C: 19, stands.
Meters (1.1.10): t1 500 - 10 - 5 (placed) - 10 (the double's second wager, 1.1.2) + 80 (Bet
the Set: its 5 back and 75) + 0 (the doubled main lost) = 555 = 500 + 55; t2 1000 + 125 = 1125 then cashed out; t3 270; t4 180 then cashed out by the
sim; t5 175; t6 510; t7 100; t8 0; t9 150; t10 0; t11 80; t12 120.
Buy-ins 500+1000+300+200+200+400+100+250+150+60+80+120 = 3360; cash-outs 250 (t8) + 180 (t4)
+ 60 (t10) + 1125 (t2) = 1615; net results 55+125-30-20-25+110 = 215;
3360 - 1615 + 215 = 1960 = 555+270+175+510+100+150+80+120 (the reconciliation, 1.1.10).

The table's decision time is the shortest the set-up allows (5 s): t1, t2 and t3 decide at
once; every wait below is a liveness bound, never a measure of speed.
"""

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

import psycopg
import pytest
from PySide6.QtCore import Qt

import dealer_assist.service.station as st
from dealer_assist.cli.common import DEV_MODE_VARIABLE
from dealer_assist.engine.table_setup import DECISION_SECONDS, TableSetup, setup_to_json
from dealer_assist.floor.accounting import terminal_credits
from dealer_assist.floor.forward import Forwarder
from dealer_assist.service.client import SOCKET_ENV, ServiceClient
from dealer_assist.service.probe import handshake
from dealer_assist.service.terminal_ca import TerminalCA
from dealer_assist.service.terminal_client import TerminalConnection, pair
from dealer_assist.store.core import Store
from hardware.simulator import SimulatedShoe
from tests.floor.conftest import Floor, floor, floor_db, pg_server  # noqa: F401  (the floor's fixtures)
from tests.service.conftest import make_shoe
from tests.service.test_terminals import free_pair_of_ports

ROOT = Path(__file__).resolve().parents[2]
LIVENESS_S = 60.0  # a bound for a hung service, never a measure of speed
SUE_PIN = "482913"
SUE = {"user": "sue", "pin": SUE_PIN}
SEATS = [f"t{n}" for n in range(1, 13)]
CARDS = "4H 6S 4H 3D 2C 7H 10S 3C"
LIMITS = {"main": [Decimal(5), Decimal(1000)], "bet_the_set": [Decimal(1), Decimal(100)],
          "royal_match": [Decimal(1), Decimal(100)], "kings_bounty": [Decimal(1), Decimal(25)]}
BOUGHT_AT_SCREEN = {"t1": 500, "t2": 1000, "t3": 300, "t5": 200, "t6": 400, "t7": 100, "t9": 150, "t10": 60,
                    "t11": 80, "t12": 120}


class StationProcess:
    """`dealer-assist station serve` as a process: BJ-07 on Electronic, its shoe the simulated
    one on a pseudo-terminal, its terminal endpoint on loopback."""

    def __init__(self, tmp: Path, sim: SimulatedShoe) -> None:
        self.sim = sim
        self.port = free_pair_of_ports()
        self.config, self.state = tmp / "station.toml", tmp / "state"
        self.socket, self.log_dir = tmp / "run" / "station.sock", tmp / "log"
        self.store = self.state / "table.db"
        self.config.write_text(st.render_config(st.StationConfig(
            table="BJ-07", pit="PIT-2", game="electronic", shoe_port=sim.path, store=str(self.store),
            terminals_port=self.port, terminals_host="127.0.0.1")))
        self.env = {k: v for k, v in os.environ.items() if k not in (DEV_MODE_VARIABLE, SOCKET_ENV, st.CONFIG_ENV)}
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "dealer_assist", "station", "serve", "--config", str(self.config),
             "--state-dir", str(self.state), "--socket", str(self.socket), "--log-dir", str(self.log_dir)],
            env=self.env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
        deadline = time.monotonic() + LIVENESS_S
        while not (self.socket.exists() and handshake(self.socket, timeout_s=1).ok
                   and (self.state / "terminals" / "station.pem").exists()):
            assert self.proc.poll() is None, "the service stopped at its start"
            assert time.monotonic() < deadline, "the service did not answer"
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=LIVENESS_S)
            self.proc = None

    def log_text(self) -> str:
        path = self.log_dir / "dealer-assist.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def logged(self, text: str) -> Callable[[], bool]:
        return lambda: text in self.log_text()

    def code(self, seat: str) -> str:
        """A one-time pairing code for ``seat`` (what `station terminal add SEAT` prints)."""
        code, _ = TerminalCA(self.state).add_code(seat)
        return code

    def sim_terminal(self, seat: str, directory: Path, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "dealer_assist.cli", "terminal-sim", "--connect", f"127.0.0.1:{self.port}",
             "--pair", self.code(seat), "--dir", str(directory), *args],
            cwd=ROOT, env=self.env | {"DEALER_ASSIST_PIN": SUE_PIN}, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)


def until(check: Callable[[], Any], what: str, pump: Callable[[], None] = lambda: time.sleep(0.05)) -> Any:
    deadline = time.monotonic() + LIVENESS_S
    while True:
        got = check()
        if got:
            return got
        assert time.monotonic() < deadline, f"never: {what}"
        pump()


def cards_seen(state: dict[str, Any]) -> int:
    return sum(1 for e in [*state["events"], *state["tentative"]] if e["type"] == "card")


def more_cards(screen: ServiceClient, before: int) -> Callable[[], bool]:
    return lambda: cards_seen(screen.request("state")) > before


@pytest.fixture
def station(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[StationProcess]:
    for name in (DEV_MODE_VARIABLE, st.CONFIG_ENV, SOCKET_ENV):
        monkeypatch.delenv(name, raising=False)
    s = StationProcess(tmp_path, make_shoe(CARDS))
    s.start()
    try:
        yield s
    finally:
        s.stop()
        s.sim.close()


def dealer_screen(s: StationProcess) -> ServiceClient:
    """Supervisor sue enrolled, dealer ann added by her and signed in (tests/ui_service/test_reconnect.py)."""
    c = ServiceClient(s.socket)
    approval = c.request("enrol", name="sue", pin=SUE_PIN)["approval"]
    c.request("add_account", name="ann", new_pin="246810", roles=["dealer"], approval=approval)
    c.request("change_pin", name="ann", old_pin="246810", new_pin="730418")
    c.request("login", name="ann", pin="730418")
    return c


def test_twelve_terminals_play_a_round_cash_out_and_reconcile(qtbot: Any, station: StationProcess, tmp_path: Path,
                                                             floor: Floor) -> None:  # noqa: F811
    from ui.terminal.controller import TerminalController
    from ui.terminal.link import TerminalLink
    from ui.terminal.window import TerminalWindow

    started = dt.datetime.now(dt.UTC)
    screen = dealer_screen(station)
    seconds = DECISION_SECONDS[0]  # the shortest decision time the set-up allows (3.17)
    setup = TableSetup(game="electronic", decks=6, limits=dict(LIMITS), terminals=list(SEATS), chips=[5, 25, 100],
                       decision_seconds=seconds)
    screen.request("set_table", setup=setup_to_json(setup), pin=SUE)
    for seat, amount in BOUGHT_AT_SCREEN.items():  # 1.1.10: credits bought, a supervisor's PIN at the screen
        screen.request("buy_in", seat=seat, amount=amount, pin=SUE)

    # ten terminals paired with their one-time codes (t4 and t5 pair as terminal-sim processes)
    dirs = {seat: tmp_path / "terminals" / seat for seat in SEATS}
    term: dict[str, TerminalConnection] = {}
    for seat in SEATS:
        if seat not in ("t4", "t5"):
            assert pair("127.0.0.1", station.port, station.code(seat), dirs[seat]) == seat
            term[seat] = TerminalConnection("127.0.0.1", station.port, dirs[seat])
    sims = {"t4": station.sim_terminal("t4", dirs["t4"], "--strategy", "timeout", "--wager", "20", "--buy-in", "200",
                                       "--supervisor", "sue", "--cash-out"),
            "t5": station.sim_terminal("t5", dirs["t5"], "--strategy", "timeout", "--wager", "25")}
    try:
        # t8 buys 250 at its own terminal (a supervisor's PIN there) and cashes it all out at once
        assert term["t8"].request("buy_in", amount=250, pin=SUE)["meter"] == 250
        cashed = term["t8"].request("cash_out")
        assert cashed["meter"] == 0 and cashed["voucher"]["amount"] == 250 and cashed["voucher"]["seat"] == "t8"

        # t1: the real window, its bets built with its chips and placed with its button (3.1, 2.2)
        link = TerminalLink(term.pop("t1"), lambda: TerminalConnection("127.0.0.1", station.port, dirs["t1"]))
        controller = TerminalController(link)
        window = TerminalWindow(controller, link.table_name)
        window.resize(1024, 768)
        window.show()
        link.start()
        try:
            play_the_round(qtbot, station, screen, term, window, controller, sims)
        finally:
            link.close()
            window.close()
            window.deleteLater()
        outputs = {seat: p.communicate(timeout=LIVENESS_S) for seat, p in sims.items()}
    finally:
        for p in sims.values():
            if p.poll() is None:
                p.kill()
                p.communicate()
    for seat, p in sims.items():
        assert p.returncode == 0, outputs[seat][1]
    t4_round, t4_voucher = (json.loads(line) for line in outputs["t4"][0].splitlines())
    (t5_round,) = (json.loads(line) for line in outputs["t5"][0].splitlines())
    for line, net in ((t4_round, -20), (t5_round, -25)):  # the default's 13 against 19 (3.18.1, 4.6.1)
        assert (line["decisions"], line["timed_out"], line["net"]) == ([], True, net)
        assert line["hands"][0]["cards"] == ["4H", "4H", "3D", "2C"]
    assert (t4_round["meter"], t4_voucher["voucher"]["amount"], t4_voucher["meter"]) == (180, 180, 0)

    # after the round: t2 and t10 cash out (1.1.10): the voucher is the meter, the meter 0
    for seat, amount in (("t2", 1125), ("t10", 60)):
        view = term[seat].request("cash_out")
        assert (view["meter"], view["voucher"]["amount"], view["voucher"]["seat"]) == (0, amount, seat)
        assert len(view["voucher"]["validation"]) == 18
    # t6 and t7 come back: each sees the round's result for its seat and its meter (5.9)
    back6 = TerminalConnection("127.0.0.1", station.port, dirs["t6"])
    view6 = back6.request("seat")
    assert sorted((s["bet"], s["net"]) for s in view6["settlements"]) == [("bet_the_set", 150), ("main", -40)]
    assert view6["meter"] == 510
    back7 = TerminalConnection("127.0.0.1", station.port, dirs["t7"])
    view7 = back7.request("seat")
    assert view7["settlements"] == [] and view7["meter"] == 100 and view7["slip"] == []
    for c in (back6, back7, *term.values()):
        c.close()
    screen.request("next_round")
    screen.close()
    station.stop()

    verify = subprocess.run([sys.executable, "-m", "dealer_assist", "history", "verify", "--db", str(station.store)],
                            env=station.env, cwd=ROOT, capture_output=True, text=True, timeout=LIVENESS_S)
    assert verify.returncode == 0 and " 1 round" in verify.stdout, verify.stdout + verify.stderr
    store = Store.open(station.store)
    try:
        assert store.reconcile_credits() == ""
        assert store.meters() == {"t1": 555, "t2": 0, "t3": 270, "t4": 0, "t5": 175, "t6": 510, "t7": 100, "t8": 0,
                                  "t9": 150, "t10": 0, "t11": 80, "t12": 120}
        assert sorted((v.seat, int(v.amount)) for v in store.vouchers()) == [("t10", 60), ("t2", 1125), ("t4", 180),
                                                                             ("t8", 250)]
        (dropped,) = store.audit_entries(kind="terminal_interrupted")
        assert dropped.detail == {"seat": "t6", "rule": "5.9.1"}
        movements = [e for e in store.audit_entries() if e.kind.startswith("meter_")]
    finally:
        store.close()
    total = {k: sum((Decimal(str(e.detail["amount"])) for e in movements if e.kind == k), Decimal(0))
             for k in ("meter_buy_in", "meter_cash_out", "meter_result")}
    assert total == {"meter_buy_in": 3360, "meter_cash_out": -1615, "meter_result": 215}
    assert 3360 - 1615 + 215 == 1960 == 555 + 270 + 175 + 510 + 100 + 150 + 80 + 120

    # the floor: the station's store forwarded; the table's terminal buy-ins and cash-outs
    url = floor.station("BJ-07", "PIT-2")
    with Forwarder(station.store, url) as forwarder:
        forwarder.forward()
    with psycopg.connect(floor.review_url) as conn:
        seen = terminal_credits(conn, "BJ-07", started - dt.timedelta(minutes=1),
                                dt.datetime.now(dt.UTC) + dt.timedelta(minutes=1))
    assert seen == (Decimal(3360), Decimal(1615))


def play_the_round(qtbot: Any, station: StationProcess, screen: ServiceClient, term: dict[str, TerminalConnection],
                   window: Any, controller: Any, sims: dict[str, subprocess.Popen[str]]) -> None:
    w = window
    qtbot.waitUntil(lambda: "bet_the_set" in w.bets.spots and 5 in w.chips.buttons, timeout=LIVENESS_S * 1000)
    qtbot.waitUntil(lambda: w.meter.text() == "Credits 500", timeout=LIVENESS_S * 1000)
    qtbot.mouseClick(w.chips.buttons[5], Qt.MouseButton.LeftButton)
    for bet in ("main", "main", "bet_the_set"):
        qtbot.mouseClick(w.bets.spots[bet], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(w.place_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: controller.sending == 0, timeout=LIVENESS_S * 1000)
    assert w.refusal.text() == ""
    qtbot.waitUntil(lambda: w.meter.text() == "Credits 485", timeout=LIVENESS_S * 1000)  # 500 - 10 - 5

    for seat, bets in (("t2", (("main", 100), ("royal_match", 10))), ("t3", (("main", 50), ("kings_bounty", 5))),
                       ("t6", (("main", 40), ("bet_the_set", 10)))):
        for bet, amount in bets:
            term[seat].request("wager", bet=bet, amount=amount)
    assert term["t2"].request("seat")["meter"] == 890  # 1000 - 100 - 10 (1.1.10)
    term.pop("t7").close()  # before any wager (5.9.2)
    until(station.logged("terminal of seat t7 disconnected"), "t7 seen to drop")
    def full_slip() -> list[dict[str, Any]] | None:
        slip: list[dict[str, Any]] = screen.request("state")["slip"]
        return slip if {e["player"] for e in slip} >= {"t1", "t2", "t3", "t4", "t5", "t6"} else None

    slip = until(full_slip, "every wager on the slip")
    assert sorted((e["player"], e["bet"], e["amount"]) for e in slip) == [
        ("t1", "bet_the_set", 5), ("t1", "main", 10), ("t2", "main", 100), ("t2", "royal_match", 10),
        ("t3", "kings_bounty", 5), ("t3", "main", 50), ("t4", "main", 20), ("t5", "main", 25),
        ("t6", "bet_the_set", 10), ("t6", "main", 40)]

    screen.request("no_more_bets")  # 3.2
    qtbot.waitUntil(lambda: w.banner.text() == "No more bets", timeout=LIVENESS_S * 1000)
    # t6 after the bets closed with its wager accepted (5.9.1); down before the close, its
    # wager would not have been accepted (5.9.2: tests/service/test_terminal_play.py)
    term.pop("t6").close()
    until(station.logged("terminal of seat t6 disconnected"), "t6 seen to drop")
    deal(qtbot, station, screen, 3)

    def pending(seat: str) -> list[dict[str, Any]]:
        nxt = term[seat].request("seat").get("next") or {}
        return [p for p in nxt.get("pending", []) if p.get("player") == seat]

    until(lambda: pending("t3"), "t3's decision")
    assert pending("t3")[0]["options"] == ["hit", "stand", "double", "split", "surrender"]  # 3.9, no Ace up
    term["t3"].request("decide", action="surrender")  # 3.12, before any subsequent card
    qtbot.waitUntil(lambda: "double" in w.hands.options, timeout=LIVENESS_S * 1000)
    qtbot.mouseClick(w.hands.options["double"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: controller.sending == 0, timeout=LIVENESS_S * 1000)
    assert w.refusal.text() == ""
    plan = ["hit", "hit", "hit", "stand"]  # t2: 8, 11, 13, 20 (3.18.2: the subsequent cards in order)
    done = 0
    while True:
        state = screen.request("state")
        if state["concluded"]:
            break
        if done < len(plan) and pending("t2"):
            term["t2"].request("decide", action=plan[done])
            done += 1
        elif state["expect"]["kind"] == "card" and done > 0:
            deal(qtbot, station, screen, 1)
        else:
            qtbot.wait(50)
    assert done == len(plan)

    events = state["events"]
    assert [e["card"] for e in events if e["type"] == "card"] == CARDS.split()
    assert sorted((e["player"], e["action"]) for e in events if e["type"] == "decision") == [
        ("t1", "double"), ("t2", "hit"), ("t2", "hit"), ("t2", "hit"), ("t2", "stand"), ("t3", "surrender")]
    assert sorted(e["player"] for e in events if e["type"] == "timeout") == ["t4", "t5", "t6"]  # 3.18, 5.9.1
    out = state["output"]
    assert out["status"] == "settled"
    settled = sorted((s["player"], s["bet"], s["result"], s["net"], s["rule"]) for s in out["settlements"])
    assert settled == [
        ("t1", "bet_the_set", "win", 75, "4.2"), ("t1", "main", "lose", -20, "4.6.1"),
        ("t2", "main", "win", 100, "4.5.2"), ("t2", "royal_match", "win", 25, "4.3"),
        ("t3", "kings_bounty", "lose", -5, "3.6.3"), ("t3", "main", "surrender", -25, "3.12"),
        ("t4", "main", "lose", -20, "4.6.1"), ("t5", "main", "lose", -25, "4.6.1"),
        ("t6", "bet_the_set", "win", 150, "4.2"), ("t6", "main", "lose", -40, "4.6.1")]
    assert out["net"] == {"t1": 55, "t2": 125, "t3": -30, "t4": -20, "t5": -25, "t6": 110}
    assert term["t2"].request("seat")["meter"] == 1125 and term["t3"].request("seat")["meter"] == 270
    for seat in ("t9", "t11", "t12"):
        assert term[seat].request("seat")["meter"] == BOUGHT_AT_SCREEN[seat]
    qtbot.waitUntil(lambda: bool(controller.view.get("concluded")), timeout=LIVENESS_S * 1000)
    assert w.meter.text() == "Credits 555"
    assert w.bets.spots["main"].amount.text() == "LOSE \u221220"
    assert w.bets.spots["bet_the_set"].amount.text() == "WIN +75"
    assert w.net.text() == "Net +55"
    assert w.hands.dealer.cards == ["6S", "10S", "3C"] and w.hands.dealer.total.text() == "19"
    until(lambda: all(p.poll() is not None for p in sims.values()), "the simulated terminals' end")


def deal(qtbot: Any, station: StationProcess, screen: ServiceClient, count: int) -> None:
    """``count`` cards out of the simulated shoe, each waited for until the service has it."""
    for _ in range(count):
        before = cards_seen(screen.request("state"))
        station.sim.deal()
        until(more_cards(screen, before), "the card taken", lambda: qtbot.wait(20))
