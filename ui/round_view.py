"""What the layout shows of a round, read once into plain immutable values.

The one place where the screen reads the engine's round objects (areas, hands,
wagers) and ``round_output``; the widgets draw these values only. Nothing here
decides a rule: totals, busts, blackjacks, results and amounts are the engine's.
When the engine's typed round views arrive (issue 14), this module is what changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ui.style import money


@dataclass(frozen=True)
class HandView:
    number: int
    cards: tuple[str, ...]
    total: int
    soft: bool
    badges: tuple[str, ...] = ()  # in words: BLACKJACK, BUST, DOUBLED, IN TURN
    in_turn: bool = False
    stakes: tuple[tuple[str, str], ...] = ()
    printed_first: bool = False
    soft_known: bool = True  # False: the round gave the total only (no soft/hard)


@dataclass(frozen=True)
class WagerCell:
    """One wager of one player on an area: its amount, or once settled what to do."""

    text: str  # "100" before settlement; "+120" pay, "−100" collect, "=100" return after
    action: str = ""  # "", "pay", "collect", "return"
    detail: str = ""  # each entry's result and clause (the tooltip: "clause on demand")


@dataclass(frozen=True)
class AreaView:
    number: int
    occupied: bool
    controller: str | None = None
    seated: str | None = None
    in_turn: int | None = None
    hands: tuple[HandView, ...] = ()
    players: tuple[str, ...] = ()
    wager_rows: tuple[str, ...] = ()
    cells: dict[tuple[str, str], WagerCell] = field(default_factory=dict)
    surrendered: tuple[str, ...] = ()
    printed_first: bool = False

    @property
    def width_share(self) -> int:
        """How much of its row the area takes: more for three or four split hands."""
        return {3: 5, 4: 6}.get(len(self.hands), 4)

    @property
    def signature(self) -> tuple[Any, ...]:
        return (self.number, self.occupied, self.controller, self.seated, self.in_turn, self.hands,
                self.players, self.wager_rows, tuple(sorted(self.cells.items())), self.surrendered)


def _is_blackjack(rnd: Any, hand: Any) -> bool:
    # TODO(issue 14): the engine's typed hand view says so; until then its own test.
    test = getattr(rnd, "_is_blackjack", None)
    return bool(test(hand)) if test is not None else False


def hand_badges(rnd: Any, hand: Any, total: int, in_turn: bool) -> tuple[str, ...]:
    badges = []
    if _is_blackjack(rnd, hand):
        badges.append("BLACKJACK")
    if hand.busted or total > 21:
        badges.append("BUST")
    if hand.doubled:
        badges.append("DOUBLED")
    if in_turn:
        badges.append("IN TURN")  # also marked by the hand's frame and the area's yellow border
    return tuple(badges)


def settled_cell(entries: list[dict[str, Any]]) -> WagerCell:
    """The cell of one player's wager of one kind on one area once entries exist."""
    net = sum((Decimal(str(e["net"])) for e in entries), Decimal(0))
    stake = sum((Decimal(str(e["stake"])) for e in entries), Decimal(0))
    detail = "; ".join(
        f"{'hand ' + str(e['hand']) + ' ' if e.get('hand') is not None else ''}{e['result']} "
        f"{money(e['net'])} ({e['rule']}, {e.get('stage', '')})" for e in entries)
    if net > 0:
        return WagerCell(f"+{money(net)}", "pay", detail)
    if net < 0:
        return WagerCell(f"\u2212{money(-net)}", "collect", detail)
    return WagerCell(f"={money(stake)}", "return", detail)


def area_view(rnd: Any, output: dict[str, Any], expectation: Any, number: int) -> AreaView:
    """The area ``number`` as the layout shows it."""
    in_turn: int | None = None
    if expectation.kind == "decision" and expectation.area == number and expectation.options:
        in_turn = expectation.hand
    elif expectation.kind == "card" and expectation.target and expectation.target.startswith(f"area:{number}/"):
        in_turn = int(expectation.target.split("/")[1])
    seated = next((p for p, a in rnd.config.seated.items() if a == number), None)
    area = rnd.areas.get(number)
    printed = bool(rnd.rules.permanent_eight)
    if area is None:
        return AreaView(number, False, seated=seated, in_turn=in_turn)
    hands = []
    for i, hand in enumerate(area.hands, start=1):
        total, soft = hand.value()
        hands.append(HandView(
            i, tuple(str(c) for c in hand.cards), total, soft, hand_badges(rnd, hand, total, in_turn == i),
            in_turn == i, tuple((p, money(v)) for p, v in hand.stakes.items()), printed and i == 1))
    players: list[str] = [w.player for w in sorted(area.wagers, key=lambda w: w.position)]
    for s in area.sides:
        if s.player not in players:
            players.append(s.player)
    cells: dict[tuple[str, str], WagerCell] = {}
    for w in area.wagers:
        capped = w.amount != w.placed
        cells[(w.player, "main")] = WagerCell(money(w.amount) + ("*" if capped else ""), "",
                                              f"placed {money(w.placed)}, settles as {money(w.amount)} (5.27)"
                                              if capped else f"position {w.position}")
    for s in area.sides:
        cells[(s.player, s.bet)] = WagerCell(money(s.amount))
    for player, amount in getattr(area, "insured", {}).items():
        cells[(player, "insurance")] = WagerCell(money(amount))
    entries: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for e in output.get("settlements", []):
        if e.get("area") == number:
            entries.setdefault((e["player"], e["bet"]), []).append(e)
    for key, group in entries.items():
        cells[key] = settled_cell(group)
        if key[0] not in players:
            players.append(key[0])
    order = ["main", *rnd.rules.side_bets, "bonus678", "insurance", "even_money"]
    rows = tuple(b for b in dict.fromkeys(order) if any(k[1] == b for k in cells))
    return AreaView(
        number, True, controller=area.controller, seated=seated, in_turn=in_turn, hands=tuple(hands),
        players=tuple(players), wager_rows=rows, cells=cells, surrendered=tuple(sorted(area.surrendered)),
        printed_first=printed,
    )


def dealer_view(rnd: Any, output: dict[str, Any]) -> HandView:
    dealer = output.get("dealer", {"cards": [], "total": 0})
    cards = tuple(str(c) for c in dealer["cards"])
    value = getattr(rnd, "dealer_value", None)
    total, soft = value() if value is not None else (int(dealer.get("total", 0)), False)
    badges = ("BUST",) if total > 21 else ()
    # soft/hard only where the round says which (issue 14's typed views will for every game)
    return HandView(0, cards, total, soft, badges, printed_first=bool(rnd.rules.permanent_eight),
                    soft_known=value is not None)


def paying_order(settlements: list[dict[str, Any]]) -> list[tuple[int | None, list[dict[str, Any]]]]:
    """The settlement entries grouped by area in the order a dealer pays: from the dealer's
    right, i.e. the highest-numbered area first (Electronic: by terminal, as recorded)."""
    groups: dict[int | None, list[dict[str, Any]]] = {}
    for s in settlements:
        groups.setdefault(s.get("area"), []).append(s)
    return sorted(groups.items(), key=lambda kv: -(kv[0] or 0))
