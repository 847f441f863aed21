"""A player terminal's view of the table (issue 38): its own seat's wagers, decisions and
results, and what every player at the table sees (the cards, the dealer's hand, whether
bets are open, 3.1/3.2) — never another seat's data (1.1.10: a terminal is one player's).

Cut from the service's state (ops.TableState) by a whitelist: a field not named here is
not shown, so a field added to the state later does not reach terminals by itself.
"""

from __future__ import annotations

from typing import Any

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
              clock: dict[str, Any] | None = None, last: dict[str, Any] | None = None) -> dict[str, Any]:
    """``seat``'s view of ``state``; ``pending``: its own decision the round waits on (the
    service works it out), ``clock``: that decision's time (``seconds_left``, ``deadline``),
    ``last``: the last round taken off the table (``round_id``, ``output``, ``events``)."""
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
        "hands": own_hands or own_areas,
        "settlements": [s for s in output.get("settlements", []) if s.get("player") == seat],
        "net": {p: v for p, v in (output.get("net") or {}).items() if p == seat},
        "next": _next(output.get("next"), seat, pending, clock),
        "last_round": _last(last, seat),
    }
