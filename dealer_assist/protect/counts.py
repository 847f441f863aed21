"""Each game's own count (issue 36, Build 2): a balanced level-1 count fitted to the main
wager's effects of removal (removal.py), and the player's edge estimated from them.

- **Tags**: every assignment of -1, 0 or +1 to the ten point values is tried (3^10); among
  the balanced ones (the tags of a full shoe sum to 0) the one with the highest **betting
  correlation** is kept: the correlation, over the cards of one deck, between the tags and
  the effects of removal (removing a card with a positive effect helps the player: tag +1).
- **True count** before a round: the running count of the cards seen since the shuffle per
  deck (of the game's deck size) still in the shoe.
- **Edge before a round**: the full shoe's expected return plus the effects of removal of
  the cards seen, each scaled by N / R (N cards in the full shoe, R left): the linear
  estimate from the effects of removal.

The effects come from ``data/main_removal.json`` (``scripts/protect_removal.py``, the odds
engine's analysis; minutes per game). A deck count not in it uses the nearest one there,
its effects scaled by the shoes' sizes (an effect of removal is about inversely proportional
to the shoe's size). A game not in it has no count.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from dealer_assist.base.cards import Card
from dealer_assist.odds.rulesets import for_game

DATA = Path(__file__).resolve().parent / "data" / "main_removal.json"
POINT_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")


@dataclass(frozen=True)
class Count:
    """A game's count at one deck count."""

    game: str
    decks: int
    tags: tuple[int, ...]  # by point value, index 0 = aces
    effects: tuple[float, ...]  # the main wager's effect of removal of one card, by point value
    base: float  # the player's expected return on the main wager, full shoe
    deck: tuple[int, ...]  # cards of each point value in one deck
    betting_correlation: float
    source: str

    @property
    def deck_size(self) -> int:
        return sum(self.deck)

    @property
    def shoe_size(self) -> int:
        return self.deck_size * self.decks

    def tag(self, card: Card) -> int:
        return self.tags[card.points - 1]

    def running(self, cards: Iterable[Card]) -> int:
        return sum(self.tags[c.points - 1] for c in cards)

    def true_count(self, seen: list[Card], out: int) -> float:
        """The running count of ``seen`` per deck left, ``out`` cards having left the shoe
        (``out`` may be more than those seen: cards not on record)."""
        left = max(self.shoe_size - max(out, len(seen)), 1)
        return self.running(seen) / (left / self.deck_size)

    def edge(self, seen: list[Card], out: int) -> float:
        """The player's expected return on the main wager before the next round (module doc)."""
        left = max(self.shoe_size - max(out, len(seen)), 1)
        return self.base + self.shoe_size / left * sum(self.effects[c.points - 1] for c in seen)


def betting_correlation(tags: tuple[int, ...], effects: tuple[float, ...], deck: tuple[int, ...]) -> float:
    """The correlation over one deck's cards between tags and effects of removal."""
    n = sum(deck)
    mt = sum(k * t for k, t in zip(deck, tags, strict=True)) / n
    me = sum(k * e for k, e in zip(deck, effects, strict=True)) / n
    cov = sum(k * (t - mt) * (e - me) for k, t, e in zip(deck, tags, effects, strict=True))
    vt = sum(k * (t - mt) ** 2 for k, t in zip(deck, tags, strict=True))
    ve = sum(k * (e - me) ** 2 for k, e in zip(deck, effects, strict=True))
    return cov / math.sqrt(vt * ve) if vt > 0 and ve > 0 else 0.0


def fit_tags(effects: tuple[float, ...], deck: tuple[int, ...]) -> tuple[tuple[int, ...], float]:
    """The balanced level-1 tags with the highest betting correlation (module doc)."""
    best: tuple[float, tuple[int, ...]] | None = None
    present = [i for i in range(10) if deck[i]]
    for choice in itertools.product((-1, 0, 1), repeat=len(present)):
        tags = [0] * 10
        for i, t in zip(present, choice, strict=True):
            tags[i] = t
        if sum(k * t for k, t in zip(deck, tags, strict=True)) != 0 or not any(tags):
            continue
        bc = betting_correlation(tuple(tags), effects, deck)
        if best is None or bc > best[0] + 1e-12:
            best = (bc, tuple(tags))
    assert best is not None
    return best[1], best[0]


@cache
def on_file() -> dict[str, Any]:
    """The effects of removal on file, by game and deck count (data/main_removal.json)."""
    if not DATA.exists():
        return {}
    loaded: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return loaded


def known_decks(game: str) -> list[int]:
    return sorted(int(d) for d in on_file().get(game, {}))


@cache
def count_for(game: str, decks: int) -> Count | None:
    """The game's count at ``decks`` decks, or None when no effects of removal are on file."""
    available = known_decks(game)
    if not available:
        return None
    near = min(available, key=lambda d: (abs(d - decks), d))
    entry: Mapping[str, Any] = on_file()[game][str(near)]
    deck = for_game(game, decks).deck
    scale = near / decks  # an effect of removal is about inversely proportional to the shoe
    effects = tuple(float(entry["effects"].get(name, 0.0)) * scale for name in POINT_NAMES)
    tags, bc = fit_tags(effects, deck)
    source = f"effects of removal at {near} decks" + (f", scaled to {decks}" if near != decks else "")
    return Count(game, decks, tags, effects, float(entry["expected_return"]), deck, bc, source)
