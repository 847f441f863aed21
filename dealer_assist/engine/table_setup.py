"""The table's set-up: game, decks, playing areas, limits, seated players, Electronic's
terminals. What the dealer chose in setup, remembered between sessions (an audit entry
of kind ``table_setup``) and written into each round's transcript header
(spec/round-script.md "Input")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dealer_assist.games import GAMES, GameRules


@dataclass
class TableSetup:
    """What the dealer chose in the setup dialog (remembered between sessions)."""

    game: str = "lucky8"
    decks: int = 6
    areas: int = 7
    limits: dict[str, list[float]] = field(default_factory=dict)
    seated: dict[str, int] = field(default_factory=dict)  # player -> area (tables)
    terminals: list[str] = field(default_factory=list)  # electronic: terminal names
    decision_seconds: int = 20  # electronic: a terminal's decision time (3.18)

    @property
    def rules(self) -> GameRules:
        return GAMES[self.game]

    @property
    def electronic(self) -> bool:
        return self.rules.shared_hand

    def config(self, under_min: list[str]) -> dict[str, Any]:
        """The transcript header (spec/round-script.md "Input")."""
        out: dict[str, Any] = {"game": self.game, "decks": self.decks}
        if not self.electronic:
            out["areas"] = self.areas
        if self.limits:
            out["limits"] = {k: list(v) for k, v in self.limits.items()}
        if self.seated and not self.electronic:
            out["seated"] = dict(self.seated)
        if under_min:
            out["under_min_history"] = list(under_min)
        return out

    def players(self) -> list[str]:
        return list(self.terminals) if self.electronic else list(self.seated)


SETUP_AUDIT_KIND = "table_setup"


def default_setup() -> TableSetup:
    return TableSetup(seated={"p1": 1, "p2": 2, "p3": 3}, terminals=["t1", "t2", "t3"])


def setup_to_json(setup: TableSetup) -> dict[str, Any]:
    return {
        "game": setup.game, "decks": setup.decks, "areas": setup.areas, "limits": setup.limits,
        "seated": setup.seated, "terminals": setup.terminals, "decision_seconds": setup.decision_seconds,
    }


def setup_from_json(data: Any) -> TableSetup:
    """A remembered setup, or the default one if it is not a valid setup any more."""
    try:
        setup = TableSetup(**data)
        if setup.game not in GAMES:
            raise ValueError(setup.game)
        return setup
    except (TypeError, ValueError):
        return default_setup()
