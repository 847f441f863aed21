"""What the layout shows of a round, read once into plain immutable values.

The one place where the screen reads what the engine says about a round; the widgets
draw these values only. Nothing here
decides a rule: totals, busts, blackjacks, results and amounts are the engine's.
It reads the engine's typed view of the round (``round_api.RoundView``: areas, hands,
wagers, badges, the hand in turn) and the settle output, never the round's insides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from dealer_assist.games import GAMES
from ui.common.style import money


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
    # once settled (interim or final): what to do on this hand's spot, per player in
    # position order: (player, "+200" / "−100" / "=100", "pay" / "collect" / "return")
    pay: tuple[tuple[str, str, str], ...] = ()
    # the same, all players together: ("+150" / "−25" / "=175" (all returned) / "±0", action)
    net: tuple[str, str] = ("", "")


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
        """How much of its row the area takes: more for three or four split hands (four: each
        hand's tiles and its pay tag of named lines, issue 34)."""
        return {3: 5, 4: 7}.get(len(self.hands), 4)

    @property
    def signature(self) -> tuple[Any, ...]:
        return (self.number, self.occupied, self.controller, self.seated, self.in_turn, self.hands,
                self.players, self.wager_rows, tuple(sorted(self.cells.items())), self.surrendered)


def hand_badges(hand: Any) -> tuple[str, ...]:
    """The engine's badges of a hand (``round_api.HandView``), in words."""
    badges = []
    if hand.blackjack:
        badges.append("BLACKJACK")
    if hand.bust:
        badges.append("BUST")
    if hand.doubled:
        badges.append("DOUBLED")
    if hand.surrendered:
        badges.append("SURRENDERED")
    if hand.in_turn:
        badges.append("IN TURN")  # also marked by the hand's frame and the area's yellow border
    return tuple(badges)


_CELLS: dict[tuple[Any, ...], WagerCell] = {}  # settled_cell's, by what its entries say
_CELLS_KEPT = 4096


def settled_cell(entries: list[dict[str, Any]]) -> WagerCell:
    """The cell of one player's wager of one kind on one area once entries exist (the same
    entries again, as every settlement's cells, hand tags and nets are read at each card of
    the round after it: the cell made for them before)."""
    key = tuple((e.get("hand"), e["result"], e["net"], e["stake"], e["rule"], e.get("stage", "")) for e in entries)
    cell = _CELLS.get(key)
    if cell is None:
        if len(_CELLS) >= _CELLS_KEPT:
            _CELLS.clear()
        cell = _CELLS[key] = _settled_cell(entries)
    return cell


def _settled_cell(entries: list[dict[str, Any]]) -> WagerCell:
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


def hand_pay(entries: dict[str, list[dict[str, Any]]], order: list[str]) -> tuple[tuple[str, str, str], ...]:
    """What to pay or collect on one hand's spot, per player (position order first)."""
    players = [p for p in order if p in entries] + [p for p in entries if p not in order]
    out = []
    for player in players:
        cell = settled_cell(entries[player])
        out.append((player, cell.text, cell.action))
    return tuple(out)


def hand_net(entries: dict[str, list[dict[str, Any]]]) -> tuple[str, str]:
    """What to pay or collect on one hand's spot, every player's entries summed (the pay
    tag of a hand too narrow for each player's line); ``±0`` when pays and collects cancel."""
    every = [e for player in entries.values() for e in player]
    if not every:
        return ("", "")
    cell = settled_cell(every)
    if cell.action == "return" and any(Decimal(str(e["net"])) != 0 for e in every):
        return ("\u00b10", "return")
    return (cell.text, cell.action)


def area_view(layout: Any, settled: list[dict[str, Any]], number: int) -> AreaView:
    """The area ``number`` as the layout shows it, from the engine's view (``round_api.RoundView``)
    and ``settled``, the settle output's entries for this area."""
    area = layout.area(number)
    in_turn = layout.in_turn[1] if layout.in_turn is not None and layout.in_turn[0] == number else None
    if area is None:
        return AreaView(number, False, in_turn=in_turn)
    seated = area.seated[0] if area.seated else None
    if not (area.wagers or area.sides or area.hands):
        return AreaView(number, False, seated=seated, in_turn=in_turn)
    on_hand: dict[int, dict[str, list[dict[str, Any]]]] = {}  # hand -> player -> its entries
    for e in settled:
        if e.get("hand") is not None:
            on_hand.setdefault(int(e["hand"]), {}).setdefault(str(e["player"]), []).append(e)
    hands = tuple(
        HandView(h.number, tuple(h.cards), h.total, h.soft, hand_badges(h), h.in_turn,
                 tuple((p, money(v)) for p, v in h.stakes), h.printed_first,
                 hand_pay(on_hand.get(h.number, {}), [w.player for w in area.wagers]),
                 hand_net(on_hand.get(h.number, {})))
        for h in area.hands)
    players: list[str] = [w.player for w in area.wagers]  # front position first
    for w in area.sides:
        if w.player not in players:
            players.append(w.player)
    cells: dict[tuple[str, str], WagerCell] = {}
    rules = GAMES[layout.game]  # the round's own game: its rule document's numbering
    over_max = rules.clause("over_max") if rules.has("over_max") else "?"
    for w in area.wagers:
        capped = w.amount != w.placed
        cells[(w.player, "main")] = WagerCell(
            money(w.amount) + ("*" if capped else ""), "",
            f"placed {money(w.placed)}, settles as {money(w.amount)} ({over_max})" if capped else f"position {w.position}")
    for w in area.sides:
        cells[(w.player, w.bet)] = WagerCell(money(w.amount), "", w.name)
    for w in area.insurance:  # taken, not yet settled (the engine's view): on its spot at once
        cells[(w.player, "insurance")] = WagerCell(money(w.amount), "", f"{w.name}, not yet settled")
        if w.player not in players:
            players.append(w.player)
    entries: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for e in settled:
        entries.setdefault((e["player"], e["bet"]), []).append(e)
    for key, group in entries.items():
        cells[key] = settled_cell(group)
        if key[0] not in players:
            players.append(key[0])
    side_order = [w.bet for w in area.sides]
    order = ["main", *side_order, "bonus678", "insurance", "even_money"]
    order += sorted({k[1] for k in cells} - set(order))
    rows = tuple(b for b in dict.fromkeys(order) if any(k[1] == b for k in cells))
    return AreaView(
        number, True, controller=area.controller, seated=seated, in_turn=in_turn, hands=hands,
        players=tuple(players), wager_rows=rows, cells=cells, surrendered=tuple(area.surrendered),
        printed_first=any(h.printed_first for h in area.hands),
    )


def dealer_view(layout: Any) -> HandView:
    d = layout.dealer
    badges = tuple(b for b, on in (("BLACKJACK", d.blackjack), ("BUST", d.bust)) if on)
    return HandView(0, tuple(d.cards), d.total, d.soft, badges, printed_first=d.printed_first)


def paying_order(settlements: list[dict[str, Any]]) -> list[tuple[int | None, list[dict[str, Any]]]]:
    """The settlement entries grouped by area in the order a dealer pays: from the dealer's
    right, i.e. the highest-numbered area first (Electronic: by terminal, as recorded)."""
    groups: dict[int | None, list[dict[str, Any]]] = {}
    for s in settlements:
        groups.setdefault(s.get("area"), []).append(s)
    return sorted(groups.items(), key=lambda kv: -(kv[0] or 0))
