"""The printed strategy chart: a strategy by hand total that a dealer or a player can read.

The chart is read off the composition-dependent analysis (main_wager.py): each cell of a
two-card total (hard, soft, pair) against a dealer card is the play of the most likely
two-card hand of that total. A hand of three or more cards plays its total's row, reduced to
hit or stand (Dh, Rh: hit; Ds, Rs: stand); a total no two-card hand makes (e.g. Dueling 8's
hard 16 of three cards) takes the optimal play of its most likely three-card hand. Hard 17
or more and soft 19 or more always stand; hard 11 or less always hits when nothing else is
printed (hitting cannot bust and cannot lower the total). The play is the same for every
composition of a total: the composition-dependent *exceptions* (where the optimal play
differs) are listed beside the chart, and its edge is computed by the same analysis with
the chart's play (``main_wager.analyse(..., chart=...)``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

LETTER = {"stand": "S", "hit": "H", "double": "D", "split": "P", "surrender": "R"}
ACTION = {v: k for k, v in LETTER.items()}
Cell = tuple[str, int, int]  # (kind: hard/soft/pair, total or pair value, dealer card 1..10)


def code(values: dict[str, float], best: str) -> str:
    """The chart's code of a decision: D or R with the next-best of hit and stand (Dh, Rs)."""
    if best in ("double", "surrender"):
        rest = {k: v for k, v in values.items() if k in ("hit", "stand")}
        if rest:
            second = max(rest, key=lambda k: rest[k])
            return LETTER[best] + LETTER[second].lower()
    return LETTER[best]


def two_card_cell(a: int, b: int, up: int) -> Cell:
    """The chart cell of a two-card hand of point values ``a``, ``b`` (1 = ace)."""
    if a == b:
        return ("pair", a, up)
    return total_cell(a + b, 1 in (a, b), up)


def total_cell(hard: int, ace: bool, up: int) -> Cell:
    if ace and hard + 10 <= 21:
        return ("soft", hard + 10, up)
    return ("hard", hard, up)


@dataclass(frozen=True)
class Exception_:
    """A hand the optimal play plays differently from the chart."""

    cards: tuple[int, ...]
    up: int
    chart: str
    optimal: str
    probability: float  # of being dealt this hand against this card (three-card hands: of reaching it)


@dataclass
class Chart:
    """Codes by cell; ``filled``: the cells taken from three-card hands."""

    cells: dict[Cell, str]
    filled: set[Cell] = field(default_factory=set)
    exceptions: list[Exception_] = field(default_factory=list)

    def total_code(self, hard: int, ace: bool, up: int) -> str | None:
        return self.cells.get(total_cell(hard, ace, up))

    def hits(self, hard: int, ace: bool, up: int) -> bool:
        """Whether a hand (after its first decision) hits: its total's row, hit or stand."""
        total = hard + 10 if ace and hard + 10 <= 21 else hard
        soft = ace and hard + 10 <= 21
        if total >= 21 or (not soft and total >= 17) or (soft and total >= 19):
            return False
        c = self.total_code(hard, ace, up)
        if c is None:
            return total <= 11 or soft  # nothing printed: hard 11 or less (2-2 unsplit: 4), soft 12
        return c in ("H", "Dh", "Rh") or c == "P"

    def doubles(self, hard: int, ace: bool, up: int) -> bool:
        """Whether a two-card hand formed by splitting doubles (its total's row says D)."""
        c = self.total_code(hard, ace, up)
        return c is not None and c.startswith("D")

    def initial_action(self, a: int, b: int, up: int, allowed: Callable[[str], bool]) -> str:
        """The chart's play of the first two cards, reduced to what ``allowed`` says the game allows."""
        c = self.cells.get(two_card_cell(a, b, up))
        while True:
            if c is None:
                return "hit" if self.hits(a + b, 1 in (a, b), up) else "stand"
            action = ACTION[c[0]]
            if allowed(action):
                return action
            if c == "P":
                c = self.total_code(a + b, 1 in (a, b), up)
                if c is None or c == "P":
                    c = None
                continue
            if len(c) == 2:
                return ACTION[c[1].upper()]
            c = None
