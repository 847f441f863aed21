"""Generate dealer_assist/protect/data/main_removal.json: the main wager's effects of removal
per game and deck count by the odds engine's analysis (dealer_assist.protect.removal), with
the side bets' exact ones printed alongside. Slow (minutes): run it when a game's rules change.

    python scripts/protect_removal.py [--decks 6] [GAME ...]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from dealer_assist.games import GAMES
from dealer_assist.protect.removal import main_wager_removal

OUT = Path(__file__).resolve().parents[1] / "dealer_assist" / "protect" / "data" / "main_removal.json"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("games", nargs="*", default=list(GAMES))
    parser.add_argument("--decks", type=int, action="append")
    args = parser.parse_args()
    data = json.loads(OUT.read_text()) if OUT.exists() else {}
    for game in args.games:
        for decks in args.decks or [GAMES[game].decks_usual]:
            start = time.monotonic()
            r = main_wager_removal(game, decks)
            data.setdefault(game, {})[str(decks)] = {
                "expected_return": r.expected_return, "effects": r.effects, "method": r.method}
            OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
            print(f"{game} {decks} decks: E = {r.expected_return:+.5f}; EoR (%): "
                  + " ".join(f"{k} {float(v) * 100:+.3f}" for k, v in r.effects.items())
                  + f"  ({time.monotonic() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
