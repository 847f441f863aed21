"""``dealer-assist terminal-sim``: a headless player terminal for tests and demonstrations
(issue 38, build 6; Electronic Blackjack 1.1.10).

It pairs (``--pair CODE``) or uses a terminal folder paired before (``--dir``), then plays
``--rounds`` rounds for its seat through the same ops a terminal window calls: ``wager``
while the bets are open (3.1), ``decide`` when its own decision is pending (3.9), by
``--strategy``:

- ``chart``: the printed basic strategy of the odds module (dealer_assist/odds/strategy.py,
  the chart ``dealer-assist odds electronic --strategy`` prints) for the table's decks;
  no insurance, no even money;
- ``stand``: stands on every hand;
- ``timeout``: never decides: the service's clock runs out and the default strategy
  plays (3.17, 3.18).

Credits (1.1.10: a terminal buys credits, places wagers and cashes out): ``--buy-in AMOUNT``
buys credits first, under the supervisor ``--supervisor NAME`` whose PIN is read from the
environment variable DEALER_ASSIST_PIN (never the command line, which others can read);
``--cash-out`` cashes the whole meter out after the rounds and prints the voucher as one
JSON line. Each round's line carries the meter after it.

``--drop-after-wager``: the connection is closed once the wager was accepted (the bets
closed with it on the slip: a terminal down before the close has no wager accepted, 5.9.2)
and opened again ``--down`` seconds later (5.9.1: the default decision applies meanwhile). Each
round's result for its seat is printed as one JSON line. Bad input: one line
``error: ...``, exit 2; a station that goes away: exit 1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from dealer_assist.base.money import AmountError, parse_amount
from dealer_assist.cli.common import fail
from dealer_assist.odds.strategy import Chart
from dealer_assist.service.terminal_client import (
    TerminalConnection,
    TerminalError,
    default_terminal_dir,
    pair,
    parse_address,
)

STRATEGIES = ("chart", "stand", "timeout")
PIN_ENV = "DEALER_ASSIST_PIN"  # --buy-in: the supervisor's PIN
POLL_S = 1.0  # the view is read again at least this often (a missed notification costs no more)
RANKS = {"A": 1, "J": 10, "Q": 10, "K": 10}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Headless player terminals of Electronic Blackjack: wager, decide by a strategy, "
                          "print each round's result as one JSON line.")
    parser.add_argument("--connect", metavar="HOST:PORT", required=True,
                        help="the station's terminal port ([terminals] port of its configuration)")
    parser.add_argument("--pair", metavar="CODE", help="pair first with the one-time code "
                        "`dealer-assist station terminal add SEAT` printed")
    parser.add_argument("--dir", metavar="DIR", help=f"the terminal's key and certificate (default "
                        f"{default_terminal_dir()})")
    parser.add_argument("--strategy", choices=STRATEGIES, default="chart",
                        help="chart: the printed basic strategy; stand; timeout: never decide (3.18)")
    parser.add_argument("--wager", metavar="AMOUNT", help="the main wager of each round (needed with --rounds)")
    parser.add_argument("--rounds", metavar="N", type=int, default=1, help="rounds to play (default 1; 0: none)")
    parser.add_argument("--buy-in", metavar="AMOUNT", help="buy credits first (1.1.10), approved by --supervisor "
                        f"(the supervisor's PIN in ${PIN_ENV})")
    parser.add_argument("--supervisor", metavar="NAME", help="with --buy-in: the supervisor who approves it")
    parser.add_argument("--cash-out", action="store_true",
                        help="cash the meter out after the rounds (1.1.10) and print the voucher as JSON")
    parser.add_argument("--drop-after-wager", action="store_true",
                        help="close the connection once the bets closed with its wager accepted (a power failure, 5.9.1)")
    parser.add_argument("--down", metavar="SECONDS", type=float, default=5.0,
                        help="with --drop-after-wager: seconds before it connects again (default 5)")


class SimError(Exception):
    """Bad input found while playing (e.g. a wager the table refuses): exit 2."""


def run(args: argparse.Namespace) -> int:
    if args.rounds < 0 or (args.rounds == 0 and not (args.buy_in or args.cash_out)):
        return fail(f"--rounds {args.rounds}: at least 1 (0 only with --buy-in or --cash-out)")
    amount = Decimal(0)
    if args.rounds:
        if args.wager is None:
            return fail("--wager AMOUNT: the main wager of each round is needed to play rounds")
        try:
            amount = parse_amount(args.wager)
        except AmountError as exc:
            return fail(f"--wager {args.wager!r}: {exc}")
    buy_in: Decimal | None = None
    pin = os.environ.get(PIN_ENV, "")
    if args.buy_in is not None:
        try:
            buy_in = parse_amount(args.buy_in)
        except AmountError as exc:
            return fail(f"--buy-in {args.buy_in!r}: {exc} (1.1.10)")
        if not args.supervisor or not pin:
            return fail(f"--buy-in: a supervisor approves it: --supervisor NAME and the PIN in ${PIN_ENV} (1.1.10)")
    if args.down < 0:
        return fail(f"--down {args.down}: not below 0 seconds")
    directory = Path(args.dir) if args.dir else default_terminal_dir()
    try:
        host, port = parse_address(args.connect)
        if args.pair:
            pair(host, port, args.pair, directory)
        sim = TerminalSim(host, port, directory, args.strategy, amount, drop=args.drop_after_wager,
                          down=args.down)
        try:
            if buy_in is not None:
                sim.buy_in(buy_in, args.supervisor, pin)
            for _ in range(args.rounds):
                print(json.dumps(sim.play_round()), flush=True)
            if args.cash_out:
                print(json.dumps(sim.cash_out()), flush=True)
        finally:
            sim.close()
    except SimError as exc:
        return fail(str(exc))
    except TerminalError as exc:
        return fail(exc.message, 1 if exc.code == "internal" else 2)
    except OSError as exc:
        return fail(str(exc.strerror or exc), 1)
    return 0


def point(card: str) -> int:
    """A card's point value for the chart (an ace 1; 3.4)."""
    rank = card[:-1]
    return RANKS.get(rank) or int(rank)


def chart_action(chart: Chart, cards: list[str], up: str, options: list[str]) -> str:
    """The chart's play of ``cards`` against the dealer's ``up`` card among ``options``:
    the first two cards by their cell (pair, soft, hard), later ones by the total's row."""
    values = [point(c) for c in cards]
    allowed = [o for o in options if o in ("hit", "stand", "double", "split", "surrender")]
    if not any(o in allowed for o in ("hit", "double", "split", "surrender")):
        return "stand"  # only the offers left (a blackjack): no insurance, no even money
    if len(values) == 2:
        return chart.initial_action(values[0], values[1], point(up), lambda a: a in allowed)
    hits = chart.hits(sum(values), 1 in values, point(up))
    return "hit" if hits and "hit" in allowed else "stand"


class TerminalSim:
    """One seat's terminal, playing round after round."""

    def __init__(self, host: str, port: int, directory: Path, strategy: str, amount: Decimal, *,
                 drop: bool = False, down: float = 5.0) -> None:
        self.host, self.port, self.directory = host, port, directory
        self.strategy, self.amount, self.drop, self.down = strategy, amount, drop, down
        self.conn: TerminalConnection | None = TerminalConnection(host, port, directory)
        self.seat = self.conn.seat
        self.chart: Chart | None = None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def _conn(self) -> TerminalConnection:
        if self.conn is None:
            self.conn = TerminalConnection(self.host, self.port, self.directory)
        return self.conn

    def buy_in(self, amount: Decimal, supervisor: str, pin: str) -> None:
        """Credits bought at this terminal under the supervisor's PIN (1.1.10)."""
        try:
            self._conn().request("buy_in", amount=_number(amount), pin={"user": supervisor, "pin": pin})
        except TerminalError as exc:
            if exc.code == "internal":
                raise
            raise SimError(f"the buy-in of {amount} was refused: {exc.message}") from None

    def cash_out(self) -> dict[str, Any]:
        """The meter cashed out (1.1.10): the voucher, as the service wrote it."""
        try:
            view = self._conn().request("cash_out")
        except TerminalError as exc:
            if exc.code == "internal":
                raise
            raise SimError(f"the cash-out was refused: {exc.message}") from None
        return {"seat": self.seat, "voucher": view.get("voucher"), "meter": view.get("meter")}

    def view(self) -> dict[str, Any]:
        result: dict[str, Any] = self._conn().request("seat")
        return result

    def wait(self) -> dict[str, Any]:
        """The view after the next change (or after POLL_S)."""
        note = self._conn().wait_note(POLL_S)
        if note is not None and "error" in note:
            raise TerminalError(str(note["error"].get("code")), str(note["error"].get("message")))
        return self.view()

    def _chart(self, view: dict[str, Any]) -> Chart:
        if self.chart is None:
            # the odds module's printed chart (seconds to build: imported when the strategy needs it)
            from dealer_assist.odds.sheet import chart_of

            self.chart = chart_of(str(view["config"].get("game") or "electronic"), int(view["config"]["decks"]))
        return self.chart

    def play_round(self) -> dict[str, Any]:
        view = self.view()
        if self.strategy == "chart":
            self._chart(view)  # built before the wager: never out of the decision time
        while not (view["betting"] and view["open"] and not view["slip"]):
            view = self.wait()
        before = (view.get("last_round") or {}).get("round_id")  # a result of a round before this one
        while True:  # 3.1: a wager while the terminal shows the bets open
            try:
                self._conn().request("wager", player=self.seat, bet="main", amount=_number(self.amount))
                break
            except TerminalError as exc:
                if exc.code != "refused" or exc.clause != "3.2":
                    raise SimError(f"the wager of {self.amount} was refused: {exc.message}") from None
            view = self.wait()  # the bets closed meanwhile: the next round's
            while not view["betting"]:
                view = self.wait()
            before = (view.get("last_round") or {}).get("round_id")
        decisions: list[str] = []
        if self.drop:  # 5.9.1: down after the bets closed with its wager (before it, 5.9.2: no part)
            view = self.view()
            while view["betting"]:
                view = self.wait()
            self.close()
            time.sleep(self.down)
        round_id: int | None = None
        while True:
            view = self.view() if self.conn is None else self.wait()
            if view["round_id"] is not None:
                round_id = view["round_id"]
            if view["concluded"] and view["round_id"] is not None:
                return self._result(view, decisions)
            last = view.get("last_round") or {}
            if view["betting"] and last.get("round_id") not in (None, before) \
                    and (round_id is None or last["round_id"] == round_id):  # taken off the table while it was down
                return self._result(last, decisions)
            nxt = view.get("next") or {}
            pending = [p for p in nxt.get("pending", []) if p.get("player") == self.seat]
            if pending and self.strategy != "timeout" and not self.drop:
                action = self._choose(view, pending[0])
                with contextlib.suppress(TerminalError):  # its time ran out meanwhile (3.18): the default plays
                    self._conn().request("decide", player=self.seat, hand=pending[0]["hand"], action=action)
                    decisions.append(action)

    def _choose(self, view: dict[str, Any], pending: dict[str, Any]) -> str:
        options = list(pending["options"])
        if self.strategy == "stand":
            return "stand"
        own = view["hands"][0]["hands"] if view["hands"] else []
        number = int(pending["hand"])
        cards = next((h["cards"] for h in own if h.get("hand") == number), own[-1]["cards"] if own else [])
        up = (view["dealer"] or {}).get("cards", ["10S"])[0]
        return chart_action(self._chart(view), list(cards), str(up), options)

    def _result(self, view: dict[str, Any], decisions: list[str]) -> dict[str, Any]:
        timed_out = any(e.get("type") == "timeout" for e in view.get("events", []))
        return {"seat": self.seat, "round_id": view.get("round_id"), "status": view.get("status"),
                "strategy": self.strategy, "wager": _number(self.amount), "decisions": decisions,
                "timed_out": timed_out, "dealer": view.get("dealer"),
                "hands": (view.get("hands") or [{}])[0].get("hands", []) if view.get("hands") else [],
                "settlements": view.get("settlements", []),
                "net": (view.get("net") or {}).get(self.seat, 0), "meter": self.view().get("meter")}


def _number(amount: Decimal) -> int | float:
    return int(amount) if amount == amount.to_integral_value() else float(amount)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(2)
