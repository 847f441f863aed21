"""Issue 33 (games fully as data): odds/ and floor/ name no game and branch on no bet of a
game: what differs between the games is read from the game's data (dealer_assist.games)."""

from __future__ import annotations

import re
from pathlib import Path

from dealer_assist.games import GAMES

ROOT = Path(__file__).resolve().parents[2] / "dealer_assist"
GAME_KEYS = sorted(GAMES)
# "pair" is also a strategy chart's cell kind (a pair of cards to split), not the Pair wager.
BET_KEYS = sorted({s.key for g in GAMES.values() for s in (*g.specs, *([g.main_bonus] if g.main_bonus else []))}
                  - {"pair"})
# A literal game key anywhere; a bet key compared with, looked up or listed.
GAME = re.compile(r"""["'](""" + "|".join(GAME_KEYS) + r""")["']""")
BET = re.compile(r"""(==|!=|\bin\s*[(\[{]|\[)\s*["'](""" + "|".join(BET_KEYS) + r""")["']""")
# The par sheet's JSON names its tie-on-18 analysis (tie18.py) by that field (docs/odds.md).
ALLOWED = {("odds/sheet.py", 'out["tie18"] = {')}


def test_odds_and_floor_name_no_game_key() -> None:
    found = []
    for part in ("odds", "floor"):
        for path in sorted((ROOT / part).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("#", 1)[0]
                if (GAME.search(code) or BET.search(code)) and not any(
                        rel == f and text in code for f, text in ALLOWED):
                    found.append(f"{rel}:{n}: {line.strip()}")
    assert found == []


def test_the_check_finds_what_it_looks_for() -> None:
    assert GAME.search('if game == "lucky8":') and BET.search('edges["bonus678"] = 0')
    assert BET.search('bet == "tie18"') and not BET.search('kind == "pair"')
