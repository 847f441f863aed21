"""Each game's index plays (issue 36, Build 2): the chart cells whose engine-best play differs
from the printed chart's (and from the engine's at 0) at some true count within -5..+5 (protect/play.py: the shoe shifted to
the true count by the game's count, the engine's composition-dependent values with
``exact_cards=0``), with the true counts where it does. One hand stands for each cell: hard
12-19 as 10 + x, hard 5-11 as two unequal cards, soft totals as A + x, pairs; in Dueling 8's
the permanent 8 and each card against the dealer's 8. Insurance: the true count (by the
count's shifted shoe) from which 3 p - 1 > 0.

    python scripts/protect_index_plays.py [GAME DECKS ...]   (default: every game at 6 decks)
"""

from __future__ import annotations

import sys

from dealer_assist.odds.rulesets import for_game
from dealer_assist.odds.sheet import chart_of
from dealer_assist.protect.counts import count_for
from dealer_assist.protect.play import INDEX_RANGE, PLAYS, chart_play, index_play, shifted_shoe

GAMES = ("ace_race", "electronic", "star_elements", "lucky8", "dueling8s")


def hands(permanent_eight: bool) -> list[tuple[int, ...]]:
    if permanent_eight:
        return [(8, v) for v in range(1, 11)]
    out: list[tuple[int, ...]] = [(10, t - 10) for t in range(12, 20)]
    out += [(2, t - 2) if t - 2 != 2 else (3, t - 3) for t in range(5, 12) if t - 2 <= 10]
    out += [(1, v) for v in range(2, 10)]
    out += [(v, v) for v in range(1, 11)]
    return out


def main(argv: list[str]) -> None:
    pairs = [(argv[i], int(argv[i + 1])) for i in range(0, len(argv), 2)] or [(g, 6) for g in GAMES]
    allowed = frozenset(PLAYS)
    for game, decks in pairs:
        rules = for_game(game, decks)
        count = count_for(game, decks)
        if count is None:
            print(f"{game} {decks}: no count on file")
            continue
        chart = chart_of(game, decks)
        ups = [8] if rules.permanent_eight else list(range(1, 11))
        print(f"## {rules.name}, {decks} decks")
        found = 0
        for cards in hands(rules.permanent_eight):
            for up in ups:
                printed = chart_play(chart, cards, up, allowed)
                flips = {tc: index_play(game, decks, tc, cards, up, allowed, printed)
                         for tc in range(-INDEX_RANGE, INDEX_RANGE + 1)}
                off = {tc: p for tc, p in flips.items() if p is not None}
                if off:
                    found += 1
                    shown = ", ".join(f"{tc:+d}: {p}" for tc, p in sorted(off.items()))
                    print(f"- {'-'.join('A' if c == 1 else str(c) for c in cards)} v {'A' if up == 1 else up}: "
                          f"chart {printed}; {shown}")
        if not rules.permanent_eight:
            for tc in range(-INDEX_RANGE, INDEX_RANGE + 1):
                shoe = shifted_shoe(count, rules, tc)
                if 3 * shoe[9] > sum(shoe) - 1:
                    print(f"- insurance: take from a true count of {tc:+d} (ten share {shoe[9]}/{sum(shoe) - 1})")
                    break
            else:
                print(f"- insurance: not favourable within +{INDEX_RANGE}")
        print(f"({found} cells with an index play)\n")


if __name__ == "__main__":
    main(sys.argv[1:])
