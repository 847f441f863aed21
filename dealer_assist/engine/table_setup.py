"""The table's set-up: game, decks, playing areas, limits, seated players, Electronic's
terminals. What the dealer chose in setup, remembered between sessions (an audit entry
of kind ``table_setup``) and written into each round's transcript header
(spec/round-script.md "Input")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dealer_assist.games import GAMES, GameRules

DEFAULT_CHIPS = (5, 25, 100, 500, 1000)
MAX_CHIPS = 8  # one row of chip buttons (keys F1-F8)


def chip_problem(chips: list[int]) -> str | None:
    """Why a table's chip values cannot be used, or None: whole amounts, each once, at most
    eight (one row of buttons, keys F1-F8)."""
    if not chips:
        return "at least one chip value is needed"
    if len(chips) > MAX_CHIPS:
        return f"at most {MAX_CHIPS} chip values (F1-F{MAX_CHIPS}); {len(chips)} given"
    bad = [c for c in chips if isinstance(c, bool) or not isinstance(c, int) or c <= 0]
    if bad:
        return f"chip values are whole positive amounts; not {', '.join(map(str, bad))}"
    if len(set(chips)) != len(chips):
        return "each chip value once"
    return None


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
    chips: list[int] = field(default_factory=lambda: list(DEFAULT_CHIPS))  # the table's chip values

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
        "chips": list(setup.chips),
    }


def setup_from_json(data: Any) -> TableSetup:
    """A remembered setup, or the default one if it is not a valid setup any more."""
    try:
        setup = TableSetup(**data)
        if setup.game not in GAMES:
            raise ValueError(setup.game)
        if chip_problem(setup.chips) is not None:
            setup.chips = list(DEFAULT_CHIPS)
        return setup
    except (TypeError, ValueError):
        return default_setup()
