"""A game's par sheet: every wager's house edge at one deck count, as JSON and as text."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

from dealer_assist.games import GAMES
from dealer_assist.odds import main_wager, side_bets
from dealer_assist.odds.main_wager import MainWagerResult
from dealer_assist.odds.outcomes import Outcomes, analyse_with_outcomes
from dealer_assist.odds.rulesets import RuleSet, for_game
from dealer_assist.odds.side_bets import BetFigures


class OddsError(ValueError):
    """A par sheet that cannot be made: unknown game, deck count the rules do not allow."""


def check(game: str, decks: int | None) -> int:
    """The deck count to use for ``game``; refuses what 2.1 of the game's rules does not allow."""
    rules = GAMES.get(game)
    if rules is None:
        raise OddsError(f"unknown game {game!r}: choose one of {', '.join(GAMES)}")
    lo, hi = rules.deck_range
    if decks is None:
        from dealer_assist.odds.rulesets import usual_decks

        return usual_decks(game)
    if not lo <= decks <= hi:
        raise OddsError(f"{rules.name} is dealt with {lo} to {hi} decks ({rules.clause('decks')}), not {decks}")
    return decks


@dataclass
class ParSheet:
    game: str
    decks: int
    rules: RuleSet
    main: MainWagerResult
    outcomes: Outcomes
    bets: dict[str, BetFigures] = field(default_factory=dict)
    seconds: float = 0.0

    def house_edge(self, bet: str) -> float:
        """The house edge of ``bet`` (a transcript bet name) per unit staked."""
        if bet == "main":
            return self.main.house_edge
        return self.bets[bet].house_edge


@cache
def main_wager_result(game: str, decks: int) -> tuple[MainWagerResult, Outcomes]:
    return analyse_with_outcomes(for_game(game, decks))


def par_sheet(game: str, decks: int | None = None) -> ParSheet:
    """The whole par sheet of ``game`` at ``decks`` decks (every figure from the game's data)."""
    n = check(game, decks)
    start = time.perf_counter()
    ruleset = for_game(game, n)
    main, outcomes = main_wager_result(game, n)
    bets = side_bets_of(game, n, main.first_card_action, main.tie18, main.tie18_split)
    return ParSheet(game, n, ruleset, main, outcomes, bets, time.perf_counter() - start)


def side_bets_of(game: str, n: int, first_card_action: dict[int, str] | None = None,
                 tie18: float | None = None, tie18_split: float | None = None) -> dict[str, BetFigures]:
    """Every side bet of ``game`` at ``n`` decks (the transcript's bet names), with insurance.

    Dueling 8's needs the strategy's play of the permanent 8 with each first card
    (``first_card_action``) for Superb 8's and the 6-7-8 bonus, and P(tie on 18).
    """
    bets: dict[str, BetFigures] = {}
    if game == "ace_race":
        bets["pair"] = side_bets.pair(game, n)
        bets["ace_race"] = side_bets.ace_race(n)
    elif game == "lucky8":
        bets["pair"] = side_bets.pair(game, n)
        bets["lucky8"] = side_bets.lucky8(n)
    elif game == "star_elements":
        bets["pair"] = side_bets.pair(game, n)
        bets["super_sevens"] = side_bets.super_sevens(n)
        bets["three_stars"] = side_bets.three_stars(n)
    elif game == "electronic":
        bets["bet_the_set"] = side_bets.bet_the_set(n)
        bets["royal_match"] = side_bets.royal_match(n)
        bets["kings_bounty"] = side_bets.kings_bounty(n)
    elif game == "dueling8s":
        actions = first_card_action or {}
        bets["superb8"] = side_bets.superb8(n, actions.get(8, "stand"))
        if tie18 is not None:
            bets["tie18"] = side_bets.tie18(tie18, tie18_split)
        bets["plus21"] = side_bets.plus21(n)
        bets["bonus678"] = side_bets.bonus678(n, {v: a in ("hit", "double") for v, a in actions.items()})
    if GAMES[game].insurance:
        bets["insurance"] = side_bets.insurance(game, n)
    return bets


def odds_text(odds: Fraction) -> str:
    return f"{odds.numerator} to {odds.denominator}"


def _bet_json(b: BetFigures) -> dict[str, Any]:
    return {
        "house_edge": round(b.house_edge, 10),
        "return_to_player": round(b.return_to_player, 10),
        "hit_frequency": round(b.hit_frequency, 10),
        "std_dev": round(b.std_dev, 10),
        "rows": [
            {"row": r.name, "pays": odds_text(r.odds), "probability": round(r.probability_float, 12),
             "probability_exact": f"{r.probability.numerator}/{r.probability.denominator}"
             if r.probability is not None else None}
            for r in b.rows
        ],
    }


def to_json(sheet: ParSheet) -> dict[str, Any]:
    """The issue's shape: ``{"game", "decks", "bets": {BET: {...}}}`` plus notes beside it."""
    bets: dict[str, Any] = {
        "main": {
            "house_edge": round(sheet.main.house_edge, 10),
            "return_to_player": round(1 - sheet.main.house_edge, 10),
            "hit_frequency": round(sheet.outcomes.hit_frequency, 10),
            "std_dev": round(sheet.outcomes.std_dev, 10),
            "rows": [{"row": f"net {x:+g}", "pays": odds_text(Fraction(x).limit_denominator(100)),
                      "probability": round(p, 12), "probability_exact": None}
                     for x, p in sorted(sheet.outcomes.dist.items()) if x > 0 and p > 0],
        }
    }
    for name, b in sheet.bets.items():
        bets[name] = _bet_json(b)
    out: dict[str, Any] = {"game": sheet.game, "decks": sheet.decks, "bets": bets}
    later = {f"{name}": _bet_json(extra) for b in sheet.bets.values() for name, extra in
             ((b.bet, e) for e in b.extra.values())}
    if later:
        out["placed_later"] = later
    out["methods"] = {"main": main_method(sheet), **{k: b.method for k, b in sheet.bets.items()},
                      **{f"placed_later.{k}": e.method for b in sheet.bets.values()
                         for k, e in ((b.bet, e) for e in b.extra.values())}}
    out["rules"] = sheet.rules.describe()
    return out


def main_method(sheet: ParSheet) -> str:
    return ("combinatorial analysis: composition-dependent optimal play, dealer probabilities exact "
            f"for the first {main_wager.EXACT_CARDS} player cards and the dealer's card removed; splits "
            "valued per hand with the pair removed; insurance never taken (floating point). Rows: the "
            "net results above zero per unit of original wager under that play; hit frequency = "
            "P(net result > 0); split hands in the distribution taken as independent given the "
            "dealer's total")


def to_text(sheet: ParSheet) -> str:
    g = GAMES[sheet.game]
    lines = [f"{g.name}: par sheet at {sheet.decks} deck{'s' if sheet.decks != 1 else ''}",
             f"rules: {sheet.rules.describe()}", ""]
    out = sheet.outcomes
    lines.append(f"main wager: house edge {sheet.main.house_edge * 100:.4f} %, return to player "
                 f"{(1 - sheet.main.house_edge) * 100:.4f} %, hit frequency {out.hit_frequency * 100:.4f} %, "
                 f"std dev {out.std_dev:.4f}")
    push = out.dist.get(0.0, 0.0)
    lines.append(f"  net win {out.hit_frequency * 100:.4f} %, push {push * 100:.4f} %, "
                 f"net loss {(1 - out.hit_frequency - push) * 100:.4f} %")
    lines.append(f"  method: {main_method(sheet)}")
    for name, b in sheet.bets.items():
        lines += [""] + _bet_text(name, b)
        for key, extra in b.extra.items():
            lines += [""] + _bet_text(f"{name} ({key.replace('_', ' ')})", extra)
    lines += ["", f"computed in {sheet.seconds:.1f} s"]
    return "\n".join(lines)


def _bet_text(name: str, b: BetFigures) -> list[str]:
    lines = [f"{name}: house edge {b.house_edge * 100:.4f} %, return to player {b.return_to_player * 100:.4f} %, "
             f"hit frequency {b.hit_frequency * 100:.4f} %, std dev {b.std_dev:.4f}"]
    width = max((len(r.name) for r in b.rows), default=10)
    for r in b.rows:
        exact = f"{r.probability.numerator}/{r.probability.denominator}" if r.probability is not None else "-"
        lines.append(f"  {r.name:<{width}}  {odds_text(r.odds):>12}  {r.probability_float:.10f}  {exact}")
    lines.append(f"  method: {b.method}")
    return lines


# ---------------------------------------------------------------- the strategy chart
_LETTER = {"stand": "S", "hit": "H", "double": "D", "split": "P", "surrender": "R"}


def _code(values: dict[str, float], best: str) -> str:
    if best in ("double", "surrender"):
        rest = {k: v for k, v in values.items() if k not in ("double", "surrender", "split")}
        if rest:
            second = max(rest, key=lambda k: rest[k])
            return _LETTER[best] + _LETTER[second].lower()
    return _LETTER[best]


def strategy_chart(sheet: ParSheet) -> str:
    """The strategy found by the analysis, by two-card hand and dealer card.

    S stand, H hit, D double (Dh: else hit, Ds: else stand), P split, R surrender (Rh, Rs).
    A total reached by several two-card hands shows the most likely one's play, with * when
    the others are played differently (composition-dependent play).
    """
    main = sheet.main
    if sheet.rules.permanent_eight:
        lines = ["Dueling 8's: the permanent 8 and the first dealt card, against the dealer's permanent 8",
                 ""]
        for d in sorted(main.decisions, key=lambda d: d.cards[1]):
            v = d.cards[1]
            hand = "8-A" if v == 1 else f"8-{v}" if v < 10 else "8-J/Q/K"
            lines.append(f"  {hand:<8} {_code(d.values, d.best):<3}  "
                         + "  ".join(f"{k} {x:+.4f}" for k, x in d.values.items()))
        return "\n".join(lines)
    ups = [2, 3, 4, 5, 6, 7, 8, 9, 10, 1]
    groups: dict[tuple[str, int], dict[int, list[tuple[float, str]]]] = {}
    for d in main.decisions:
        a, b = d.cards
        if a == b:
            key = ("pair", a)
        elif 1 in (a, b):
            if a + b == 11:
                continue  # blackjack
            key = ("soft", a + b + 10)
        else:
            key = ("hard", a + b)
        groups.setdefault(key, {}).setdefault(d.up, []).append((d.probability, _code(d.values, d.best)))

    def cell(entries: list[tuple[float, str]]) -> str:
        entries.sort(reverse=True)
        code = entries[0][1]
        mixed = any(c != code for _, c in entries)
        return code + ("*" if mixed else "")

    head = "        " + "".join(f"{('A' if u == 1 else str(u)):>5}" for u in ups)
    lines = [f"{sheet.rules.name}, {sheet.rules.describe()}",
             "S stand, H hit, D double (Dh else hit, Ds else stand), P split, R surrender (Rh, Rs);",
             "* the most likely two-card hand's play; other hands of that total play differently", ""]
    for kind, title, keys in (
        ("hard", "hard", range(5, 20)),
        ("soft", "soft", range(13, 21)),
        ("pair", "pairs", [2, 3, 4, 5, 6, 7, 8, 9, 10, 1]),
    ):
        lines.append(title + head[len(title):])
        for k in keys:
            row = groups.get((kind, k))
            if not row:
                continue
            label = ("A-A" if k == 1 else f"{k}-{k}") if kind == "pair" else (f"A-{k - 11}" if kind == "soft" else str(k))
            lines.append(f"  {label:<6}" + "".join(f"{cell(row[u]) if u in row else '':>5}" for u in ups))
        lines.append("")
    return "\n".join(lines)
