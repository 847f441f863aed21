"""A player terminal's view of the table (issue 38): its own seat's wagers, decisions and
results, and what every player at the table sees (the cards, the dealer's hand, whether
bets are open, 3.1/3.2) — never another seat's data (1.1.10: a terminal is one player's).

Cut from the service's state (ops.TableState) by a whitelist: a field not named here is
not shown, so a field added to the state later does not reach terminals by itself.
"""

from __future__ import annotations

from typing import Any

from dealer_assist.games import GAMES
from dealer_assist.service.ops import TableState

__all__ = ["seat_view"]

_PUBLIC_EVENTS = ("card", "close_offers")  # events naming no player: what everyone at the table sees
_CONFIG = ("game", "decks", "limits", "decision_seconds")
_OWN_EVENT_DROP = ("followers", "claimants", "declined_by")  # other players' names inside one's own event


def _own_event(event: dict[str, Any], seat: str) -> dict[str, Any] | None:
    if "player" in event:
        if event["player"] != seat:
            return None
        return {k: v for k, v in event.items() if k not in _OWN_EVENT_DROP}
    if event.get("type") in _PUBLIC_EVENTS:
        return {k: v for k, v in event.items() if k in ("type", "card", "to")}
    return None


def _next(expect: dict[str, Any] | None, seat: str, pending: dict[str, Any] | None,
          clock: dict[str, Any] | None) -> dict[str, Any] | None:
    """What the round waits for, as far as it is this seat's (3.9, 3.17: its own decisions,
    with the time left to make them: ``seconds_left`` and the wall time it ends, ``deadline``)."""
    if pending is not None:  # its own decision, whatever else the round waits for (another seat's card)
        return {"expect": "decisions", "pending": [pending], **(clock or {})}
    if not expect:
        return None
    kind = expect.get("expect")
    if kind == "decisions":
        return {"expect": kind, "pending": [p for p in expect.get("pending", []) if p.get("player") == seat]}
    if kind == "decision" and expect.get("player") == seat:
        return {k: v for k, v in expect.items() if k != "offers"}
    out: dict[str, Any] = {"expect": kind}
    if kind == "card" and expect.get("for") in ("dealer", "players"):
        out["for"] = expect["for"]
    return out


def _odds(odds: Any) -> str:
    return f"{odds.numerator} to {odds.denominator}"


def _layout(config: dict[str, Any]) -> list[dict[str, Any]]:
    """Every wager of the game in the layout's order, with the table's limits (2.2: the
    terminal shows each betting option's minimum and maximum; None where the table sets
    none) and what it pays (4.1-4.4), all from the game's rules and the table's set-up."""
    rules = GAMES.get(str(config.get("game", "")))
    if rules is None:
        return []
    limits = config.get("limits") or {}
    main_pays = ([["Blackjack", _odds(rules.blackjack_odds)]] if rules.blackjack_odds is not None else []) + \
        [["Win", "1 to 1"]]
    bets = [{"bet": "main", "name": rules.bet_name("main"), "clause": rules.clauses.get("main_required"),
             "pays": main_pays}]
    bets += [{"bet": s.key, "name": s.name, "clause": rules.clauses.get(f"side.{s.key}"),
              "pays": [[r.name, _odds(r.odds)] for r in s.rows]} for s in rules.specs]
    for b in bets:
        low, high = (limits.get(b["bet"]) or (None, None))[:2]
        b["min"], b["max"] = low, high
    return bets


def _last(last: dict[str, Any] | None, seat: str) -> dict[str, Any] | None:
    """The seat's part of the last round taken off the table: its result after a reconnection."""
    if not last:
        return None
    output = last.get("output") or {}
    events = [e for e in (_own_event(ev, seat) for ev in last.get("events") or []) if e is not None]
    return {"round_id": last.get("round_id"), "status": output.get("status"), "dealer": output.get("dealer"),
            "events": events,
            "hands": [p for p in output.get("players", []) if p.get("player") == seat],
            "settlements": [s for s in output.get("settlements", []) if s.get("player") == seat],
            "net": {p: v for p, v in (output.get("net") or {}).items() if p == seat}}


def seat_view(state: TableState, seat: str, *, pending: dict[str, Any] | None = None,
              clock: dict[str, Any] | None = None, last: dict[str, Any] | None = None,
              meter: int | float | None = None, voucher: dict[str, Any] | None = None,
              may_cash_out: bool = False, override: str | None = None) -> dict[str, Any]:
    """``seat``'s view of ``state``; ``pending``: its own decision the round waits on (the
    service works it out), ``clock``: that decision's time (``seconds_left``, ``deadline``),
    ``last``: the last round taken off the table (``round_id``, ``output``, ``events``);
    ``meter``: its credit meter now (None: it never bought credits, 1.1.10), ``voucher``: its
    last cash-out's voucher (``validation``, ``amount``, ``seat``, ``at``); ``may_cash_out``:
    the service would take its ``cash_out`` now (credits on the meter, no wager in play);
    ``override``: the supervisor whose override of this terminal lets the dealer enter its
    decisions and wagers this round (3.17), its own refused meanwhile; None: not overridden."""
    output = state["output"] or {}
    events = [e for e in (_own_event(ev, seat) for ev in state["events"]) if e is not None]
    own_hands = [p for p in output.get("players", []) if p.get("player") == seat]
    own_areas = [a for a in output.get("areas", []) if a.get("controller") == seat]
    return {
        "seat": seat,
        "version": state["version"],
        "open": not state["refused"] and not state["store_error"],
        "round_id": state["round_id"],
        "betting": state["betting"],  # 3.1 place your bets / 3.2 no more bets
        "concluded": state["concluded"],
        "config": {k: state["config"][k] for k in _CONFIG if k in state["config"]},
        "events": events,
        "slip": [w for w in state["slip"] if w.get("player") == seat],
        "status": output.get("status"),
        "dealer": output.get("dealer"),
        "player_cards": list(output.get("player_cards") or []),  # 3.8: the shared hand, everyone's
        "hands": own_hands or own_areas,
        "settlements": [s for s in output.get("settlements", []) if s.get("player") == seat],
        "net": {p: v for p, v in (output.get("net") or {}).items() if p == seat},
        "next": _next(output.get("next"), seat, pending, clock),
        "last_round": _last(last, seat),
        "layout": _layout(state["config"]),  # 2.2: the bets and their limits
        "meter": meter,
        "voucher": voucher,
        "may_cash_out": may_cash_out,
        # 3.17: overridden, the dealer decides for this seat this round (who, and the clause)
        "override": None if override is None else {"supervisor": override, "rule": "3.17"},
        "chips": [c for c in (state.get("setup") or {}).get("chips", []) if isinstance(c, int)],
    }
