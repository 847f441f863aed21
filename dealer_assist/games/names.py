"""The games' and wagers' display names as mappings read from ``GAMES`` when asked, so a
game added to ``GAMES`` (a sixth game: its module and its side bet) is named on the
screen, in the review's filter and columns and in the bench without another edit.

Plain Python (not compiled with the engine): screens and reports read it, no rule does."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from dealer_assist.games import GAMES


class GameNames(Mapping[str, str]):
    """game key -> its name in lists (``GameRules.display_name``), in ``GAMES`` order."""

    def __getitem__(self, key: str) -> str:
        return GAMES[key].display_name

    def __iter__(self) -> Iterator[str]:
        return iter(list(GAMES))

    def __len__(self) -> int:
        return len(GAMES)


class BetNames(Mapping[str, str]):
    """wager kind -> its display name: ``own`` first (a screen's wording), else the name a
    game's spec gives it (``GameRules.bet_name``)."""

    def __init__(self, own: Mapping[str, str]) -> None:
        self.own = dict(own)

    def __getitem__(self, bet: str) -> str:
        name = self.own.get(bet)
        if name is not None:
            return name
        for rules in GAMES.values():
            name = rules.bet_name(bet)
            if name != bet:
                return name
        raise KeyError(bet)

    def __iter__(self) -> Iterator[str]:
        keys = dict.fromkeys(self.own)
        for rules in GAMES.values():
            keys.update(dict.fromkeys(rules.side_bets))
            if rules.main_bonus is not None:
                keys[rules.main_bonus.key] = None
        return iter(list(keys))

    def __len__(self) -> int:
        return sum(1 for _ in self)


GAME_NAMES: Mapping[str, str] = GameNames()
