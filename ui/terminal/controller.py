"""The player terminal's controller (issue 38, build 2): between the link (the seat's view
from the station) and the window's widgets. It keeps only what the player is building
(the chips on each bet before they are placed), the last bet (to repeat it) and the last
rounds seen; every rule — the bets and their limits (2.2), bets open or closed (3.1, 3.2),
the decisions open to this seat (3.9), the results (4) — is the service's, read from the
view. Wagers and decisions are sent as the dealer's screen sends them (ops ``wager`` and
``decide``), for this terminal's seat.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from PySide6.QtCore import QObject, Signal

from dealer_assist.service.ops import Op
from dealer_assist.service.terminal_client import TerminalError
from ui.terminal.link import TerminalLink

__all__ = ["HISTORY", "RoundRecord", "TerminalController"]

HISTORY = 8  # rounds kept in the window's history


@dataclass
class RoundRecord:
    """One finished round as this seat saw it."""

    round_id: int
    wagers: list[tuple[str, Decimal]]
    dealer: list[str]
    dealer_total: Any
    settlements: list[dict[str, Any]] = field(default_factory=list)
    net: Decimal = Decimal(0)


def opening_wagers(view: dict[str, Any]) -> list[tuple[str, Decimal]]:
    """This seat's wagers placed while the bets were open: the slip, or the round's wagers
    before its first card (a double's or a split's wager comes later)."""
    if view.get("slip"):
        return [(str(w["bet"]), Decimal(str(w["amount"]))) for w in view["slip"]]
    out: list[tuple[str, Decimal]] = []
    for e in view.get("events", []):
        if e.get("type") == "card":
            break
        if e.get("type") == "wager" and e.get("hand") is None:
            out.append((str(e["bet"]), Decimal(str(e["amount"]))))
    return out


class TerminalController(QObject):
    changed = Signal()  # the view, the bet being built or the history changed
    refused = Signal(str)  # the service's words ("" clears)
    link_state = Signal(str)

    def __init__(self, link: TerminalLink, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.link = link
        self.seat = link.seat
        self.view: dict[str, Any] = {}
        self.building: dict[str, Decimal] = {}  # bet -> chips put on it, not placed yet
        self.chip: int | None = None  # the chip the player holds
        self.last_bet: list[tuple[str, Decimal]] = []  # the last wagers placed (repeat bet)
        self.history: list[RoundRecord] = []  # newest first
        self.deadline: float | None = None  # time.monotonic() the decision's time runs out (3.17)
        self.sending = 0  # requests not answered yet
        link.view_changed.connect(self.show_view)
        link.link_state.connect(self.link_state.emit)

    # ------------------------------------------------------------------ the view
    def show_view(self, view: dict[str, Any]) -> None:
        was_betting = bool(self.view.get("betting"))
        self.view = view
        if self.chip is None and self.chips:
            self.chip = self.chips[0]
        if was_betting and not view.get("betting"):
            self.building = {}  # 3.2: what was not placed is no wager
        placed = opening_wagers(view)
        if placed:
            self.last_bet = placed
        self._remember(view)
        self.deadline = self._deadline(self.pending)
        self.changed.emit()

    def _remember(self, view: dict[str, Any]) -> None:
        rid = view.get("round_id")
        if not view.get("concluded") or rid is None or any(r.round_id == rid for r in self.history):
            return
        dealer = view.get("dealer") or {}
        net = sum((Decimal(str(v)) for v in (view.get("net") or {}).values()), Decimal(0))
        self.history.insert(0, RoundRecord(int(rid), opening_wagers(view), list(dealer.get("cards") or []),
                                           dealer.get("total"), list(view.get("settlements") or []), net))
        del self.history[HISTORY:]

    @staticmethod
    def _deadline(pending: dict[str, Any] | None) -> float | None:
        """When this seat's decision time runs out (3.17), on this machine's clock, from the
        service's ``seconds_left`` (else its ``deadline``, epoch seconds or ISO time); None
        when the service gives neither."""
        if pending is None:
            return None
        left = pending.get("seconds_left")
        if isinstance(left, int | float | Decimal):
            return time.monotonic() + float(left)
        deadline = pending.get("deadline")
        try:
            if isinstance(deadline, int | float | Decimal):
                at = float(deadline)
            elif isinstance(deadline, str):
                at = datetime.fromisoformat(deadline.replace("Z", "+00:00")).timestamp()
            else:
                return None
        except ValueError:
            return None
        return time.monotonic() + (at - time.time())

    def seconds_left(self) -> int | None:
        if self.deadline is None:
            return None
        return max(0, math.ceil(self.deadline - time.monotonic()))

    @property
    def chips(self) -> list[int]:
        return [int(c) for c in self.view.get("chips") or []]

    @property
    def layout(self) -> list[dict[str, Any]]:
        return list(self.view.get("layout") or [])

    @property
    def betting(self) -> bool:
        return bool(self.view.get("betting"))

    @property
    def pending(self) -> dict[str, Any] | None:
        """The decision the round waits for from this seat (3.9), with the service's options;
        ``seconds_left``/``deadline`` read from the entry, else from ``next``."""
        nxt = self.view.get("next") or {}
        entry: dict[str, Any] | None = None
        if nxt.get("expect") == "decisions":
            mine = [p for p in nxt.get("pending") or [] if p.get("player") == self.seat]
            entry = mine[0] if mine else None
        elif nxt.get("expect") == "decision" and nxt.get("player") == self.seat:
            entry = nxt
        if entry is None:
            return None
        timing = {k: nxt[k] for k in ("seconds_left", "deadline") if k in nxt}
        return {**timing, **entry}

    @property
    def override(self) -> dict[str, Any] | None:
        """A supervisor's override of this terminal this round (``supervisor``, ``rule``): the
        dealer enters this seat's decisions and wagers (3.17); the service refuses its own."""
        override = self.view.get("override")
        return override if isinstance(override, dict) else None

    def placed(self) -> dict[str, Decimal]:
        """bet -> this seat's amount on it now (placed in betting, or the round's)."""
        out: dict[str, Decimal] = {}
        for bet, amount in opening_wagers(self.view):
            out[bet] = out.get(bet, Decimal(0)) + amount
        return out

    # ------------------------------------------------------------------ the player's touches
    def choose_chip(self, value: int) -> None:
        self.chip = value
        self.changed.emit()

    def add_chip(self, bet: str) -> None:
        if not self.betting or self.chip is None:
            return
        self.building[bet] = self.building.get(bet, Decimal(0)) + self.chip
        self.refused.emit("")
        self.changed.emit()

    def clear(self) -> None:
        self.building = {}
        self.refused.emit("")
        self.changed.emit()

    def repeat(self) -> None:
        """The last bet placed, to be placed again (the service checks it when placed)."""
        if not self.betting or not self.last_bet:
            return
        self.building = {}
        for bet, amount in self.last_bet:
            self.building[bet] = self.building.get(bet, Decimal(0)) + amount
        self.changed.emit()

    def place(self) -> None:
        """Each bet built, in the layout's order (the main wager first, 3.5), as op ``wager``."""
        order = [b["bet"] for b in self.layout]
        bets = sorted(self.building.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
        for bet, amount in bets:
            if amount <= 0:
                continue
            self.sending += 1
            self.link.request(Op.WAGER, self._placed_callback(bet), player=self.seat, bet=bet, amount=_number(amount))

    def _placed_callback(self, bet: str) -> Callable[[Any, TerminalError | None], None]:
        return lambda _result, error: self._placed(bet, error)

    def _placed(self, bet: str, error: TerminalError | None) -> None:
        self.sending -= 1
        if error is None:
            self.building.pop(bet, None)
        else:
            self.refused.emit(_refusal(error))
        self.changed.emit()

    def cash_out(self) -> None:
        """The whole meter cashed out (op ``cash_out``): the service writes the voucher, or
        says why not (wagers in play, nothing on the meter: 1.1.10)."""
        self.sending += 1
        self.link.request(Op.CASH_OUT, self._decided)

    @property
    def voucher(self) -> dict[str, Any] | None:
        """The seat's last cash-out voucher, as the service shows it."""
        voucher = self.view.get("voucher")
        return voucher if isinstance(voucher, dict) else None

    def decide(self, action: str) -> None:
        pending = self.pending
        if pending is None:
            return
        args: dict[str, Any] = {"player": self.seat, "action": action}
        if pending.get("hand") is not None:
            args["hand"] = pending["hand"]
        self.sending += 1
        self.link.request(Op.DECIDE, self._decided, **args)

    def _decided(self, result: Any, error: TerminalError | None) -> None:
        self.sending -= 1
        self.refused.emit(_refusal(error) if error is not None else "")
        self.changed.emit()


def _number(amount: Decimal) -> int | str:
    return int(amount) if amount == amount.to_integral_value() else str(amount)


def _refusal(error: TerminalError) -> str:
    text = error.message
    if error.clause and error.clause not in text:
        text = f"{text} ({error.clause})"
    return text
