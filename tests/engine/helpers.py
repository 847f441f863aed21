"""Small builders for round transcripts, so each test reads like the deal it describes."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from dealer_assist.base.errors import TranscriptError
from dealer_assist.engine.transcript import settle_document


def table(game: str, *events: dict[str, Any], decks: int = 6, areas: int = 7, **extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"game": game, "decks": decks, "events": list(events)}
    if game != "electronic":
        doc["areas"] = areas
    doc.update(extra)
    return doc


def wager(player: str, area: int | None, amount: float, bet: str = "main", **kw: Any) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "wager", "player": player, "bet": bet, "amount": amount}
    if area is not None:
        ev["area"] = area
    ev.update(kw)
    return ev


def bet(player: str, amount: float, kind: str = "main") -> dict[str, Any]:
    """An Electronic Blackjack terminal's wager."""
    return {"type": "wager", "player": player, "bet": kind, "amount": amount}


NMB: dict[str, Any] = {"type": "no_more_bets"}
CLOSE: dict[str, Any] = {"type": "close_offers"}


def cards(*names: str) -> list[dict[str, Any]]:
    return [{"type": "card", "card": n} for n in names]


def decide(action: str, area: int | None = None, hand: int | None = None, **kw: Any) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "decision", "action": action}
    if area is not None:
        ev["area"] = area
    if hand is not None:
        ev["hand"] = hand
    ev.update(kw)
    return ev


def settle(doc: dict[str, Any]) -> dict[str, Any]:
    return settle_document(doc)


def refusal(doc: dict[str, Any]) -> str:
    """The error line settle gives for a transcript the rules refuse."""
    try:
        out = settle_document(doc)
    except TranscriptError as exc:
        return exc.message
    raise AssertionError(f"expected a refusal, got status {out['status']}")


def entries(out: dict[str, Any], player: str | None = None, bet: str | None = None) -> list[dict[str, Any]]:
    return [
        s for s in out["settlements"]
        if (player is None or s["player"] == player) and (bet is None or s["bet"] == bet)
    ]


def one(out: dict[str, Any], player: str, bet: str, hand: int | None = None) -> dict[str, Any]:
    found = [s for s in entries(out, player, bet) if hand is None or s.get("hand") == hand]
    assert len(found) == 1, found
    return found[0]


def net(out: dict[str, Any], player: str) -> Decimal:
    return Decimal(str(out["net"][player]))
