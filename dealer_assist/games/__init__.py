"""The five games as data: deck, limits of play, pay tables' odds and each game's clause numbers.

One module per game (``ace_race``, ``lucky8``, ``star_elements``, ``dueling8s``, ``electronic``)
holds its clause table and its ``GameRules``; ``rules`` the dataclass, ``clauses`` the table the
table games start from, ``sidebets`` the side bets with the stage each settles at.

Each game numbers its clauses its own way (Dueling 8's and Electronic differ); code asks
``rules.clause("double.amount")`` and cites what the game's own document says.
"""

from __future__ import annotations

from typing import Final

from dealer_assist.base.cards import Card
from dealer_assist.games.ace_race import ACE_RACE, ACE_RACE_CLAUSES
from dealer_assist.games.dueling8s import DUELING8S, DUELING8S_CLAUSES
from dealer_assist.games.electronic import ELECTRONIC, ELECTRONIC_CLAUSES
from dealer_assist.games.lucky8 import LUCKY8, LUCKY8_CLAUSES
from dealer_assist.games.rules import INSURANCE_ODDS, GameRules
from dealer_assist.games.star_elements import STAR_ELEMENTS, STAR_ELEMENTS_CLAUSES

__all__ = [
    "ACE_RACE", "ACE_RACE_CLAUSES", "DUELING8S", "DUELING8S_CLAUSES", "ELECTRONIC", "ELECTRONIC_CLAUSES",
    "GAMES", "INSURANCE_ODDS", "LUCKY8", "LUCKY8_CLAUSES", "STAR_ELEMENTS", "STAR_ELEMENTS_CLAUSES",
    "GameRules", "composition_for",
]

GAMES: Final[dict[str, GameRules]] = {
    g.key: g for g in (ACE_RACE, ELECTRONIC, STAR_ELEMENTS, LUCKY8, DUELING8S)
}


def composition_for(game: str) -> tuple[Card, ...]:
    """One deck of ``game`` (2.1 of its rules), from the game's data; KeyError for no such game."""
    return GAMES[game].composition
