"""What the store hands back about rounds: listings, details, open rounds for recovery."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["OpenRound", "RoundDetail", "RoundSummary", "StoredEvent"]


@dataclass(frozen=True)
class RoundSummary:
    """One row of a round listing."""

    id: int
    session_id: int | None
    number: int
    source: str
    game: str
    status: str
    started_at: str
    ended_at: str | None
    players: list[str]
    net: dict[str, Any]
    irregular: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "session_id": self.session_id,
            "number": self.number,
            "source": self.source,
            "game": self.game,
            "status": self.status,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "players": self.players,
            "net": self.net,
            "irregular": self.irregular,
        }


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    at: str
    actor: str
    event: dict[str, Any]


@dataclass(frozen=True)
class RoundDetail:
    """A round with its configuration, events, settle output and derived records."""

    summary: RoundSummary
    config: dict[str, Any]
    events: list[StoredEvent]
    result: dict[str, Any] | None
    settlements: list[dict[str, Any]]
    rulings: list[dict[str, Any]]


@dataclass(frozen=True)
class OpenRound:
    """An unfinished live round: replay ``events`` on ``config`` to restore it."""

    round_id: int
    session_id: int | None
    number: int
    status: str
    config: dict[str, Any]
    events: list[dict[str, Any]]

