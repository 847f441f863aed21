"""A game's par sheet: every wager's house edge at one deck count, as JSON and as text."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

from dealer_assist.games import GAMES
from dealer_assist.odds import main_wager, side_bets, strategy
from dealer_assist.odds.chart_build import build_chart
from dealer_assist.odds.main_wager import MainWagerResult
from dealer_assist.odds.outcomes import Outcomes, analyse_with_outcomes
from dealer_assist.odds.rulesets import RuleSet, for_game
from dealer_assist.odds.side_bets import BetFigures
from dealer_assist.odds.strategy import Chart
from dealer_assist.odds.tie18 import Tie18, tie18_exact


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
    chart: Chart | None = None  # the printed strategy chart (strategy.py)
    chart_main: MainWagerResult | None = None  # the main wager played by the chart
    chart_outcomes: Outcomes | None = None
    tie18: Tie18 | None = None  # Dueling 8's exact Tie on 18 (tie18.py)

    def house_edge(self, bet: str) -> float:
        """The house edge of ``bet`` (a transcript bet name) per unit staked."""
        if bet == "main":
            return self.main.house_edge
        return self.bets[bet].house_edge


@cache
def main_wager_result(game: str, decks: int) -> tuple[MainWagerResult, Outcomes]:
    return analyse_with_outcomes(for_game(game, decks))


@cache
def chart_of(game: str, decks: int) -> Chart:
    """The printed strategy chart of ``game`` at ``decks`` decks (strategy.py)."""
    rules = for_game(game, decks)
    optimal, _ = main_wager_result(game, decks)
    return build_chart(optimal.decisions, lambda up: main_wager.Versus(rules, up, main_wager.EXACT_CARDS))


@cache
def chart_result(game: str, decks: int) -> tuple[MainWagerResult, Outcomes]:
    """The main wager played by the printed chart: its edge and its net-result distribution."""
    return analyse_with_outcomes(for_game(game, decks), chart=chart_of(game, decks))


# The printed sheets (odds --pdf, --all) enumerate the chart's splits card by card
# (splits.SplitWalker); sequences less likely than this (a chance of the round) are carried on
# with bounded chances: each row is printed with its bound (issue 36). A minute or two of CPU a
# sheet at 6 decks: par_sheet enumerates only when asked (split_prune), never by default.
SPLIT_PRUNE = 1e-10


@cache
def chart_distribution(game: str, decks: int, prune: float = SPLIT_PRUNE) -> Outcomes:
    """The printed chart's net-result distribution with every split enumerated (rows bounded)."""
    _res, out = analyse_with_outcomes(for_game(game, decks), chart=chart_of(game, decks), exact_splits=True,
                                      prune=prune)
    return out


@cache
def exact_tie18(game: str, decks: int) -> Tie18:
    """A permanent-8 game's Tie on 18, exactly (tie18.py; about a second)."""
    return tie18_exact(for_game(game, decks), chart_of(game, decks))


def par_sheet(game: str, decks: int | None = None, *, with_chart: bool = True,
              split_prune: float | None = None) -> ParSheet:
    """The whole par sheet of ``game`` at ``decks`` decks (every figure from the game's data).

    ``with_chart``: also the printed chart's edge and distribution (what theoretical win and
    the floor's alerts need is there without it). ``split_prune``: the chart's distribution
    with every split enumerated down to that chance of a round (minutes of CPU at 6 decks: the
    printed sheets ask for it); None (the default): the analysis' model of a split, as the
    optimal play's, its rows marked as the model's estimates (``split_rows_json``).
    """
    n = check(game, decks)
    start = time.perf_counter()
    ruleset = for_game(game, n)
    main, outcomes = main_wager_result(game, n)
    t18 = exact_tie18(game, n) if ruleset.permanent_eight else None
    bets = side_bets_of(game, n, main.first_card_action,
                        t18.first_hand if t18 else None, t18.split_hands if t18 else None)
    sheet = ParSheet(game, n, ruleset, main, outcomes, bets, tie18=t18)
    if with_chart:
        sheet.chart = chart_of(game, n)
        sheet.chart_main, sheet.chart_outcomes = chart_result(game, n)
        if split_prune is not None:
            sheet.chart_outcomes = chart_distribution(game, n, split_prune)
    sheet.seconds = time.perf_counter() - start
    return sheet


def side_bets_of(game: str, n: int, first_card_action: dict[int, str] | None = None,
                 tie18: float | None = None, tie18_split: float | None = None) -> dict[str, BetFigures]:
    """Every side bet of ``game`` at ``n`` decks (the transcript's bet names), with insurance.

    Each bet is rated from the stage it settles at (side_bets.rate). A permanent-8 game needs
    the strategy's play of the 8 with each first card (``first_card_action``: its run bet and
    its main bonus) and P(tie) (``tie18``).
    """
    rules = GAMES[game]
    play = side_bets.Play(dict(first_card_action or {}), tie18, tie18_split)
    bets: dict[str, BetFigures] = {}
    for spec in rules.specs:
        bets[spec.key] = side_bets.rate(game, n, spec, play)  # from its stage; UnrateableBet names it
    if rules.main_bonus is not None:
        bets[rules.main_bonus.key] = side_bets.rate(game, n, rules.main_bonus, play)
    if GAMES[game].insurance:
        bets["insurance"] = side_bets.insurance(game, n)
    return bets


def bonus_text(sheet: ParSheet, text: str) -> str:
    """``text`` with the name of the game's bonus paid on the main wager, or "" without one."""
    bonus = GAMES[sheet.game].main_bonus
    return text.format(bonus.name) if bonus is not None else ""


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
    for _name, res, o in edge_rows(sheet)[1:]:
        bets["main"]["printed_chart"] = {
            "house_edge": round(res.house_edge, 10), "hit_frequency": round(o.hit_frequency, 10),
            "push": round(o.push, 10), "std_dev": round(o.std_dev, 10),
            "element_of_risk": round(o.element_of_risk, 10), "average_wagered": round(o.stake, 10),
            "distribution": [{"net": x, "probability": round(p, 12),
                              "bound": row_bound(o, x) if o.split_method == "enumerated" else None}
                             for x, p, _ in distribution_rows(o)],
            "split_rows": split_rows_json(o)}
    bets["main"].update({"split_rows": split_rows_json(sheet.outcomes),
                         "push": round(sheet.outcomes.push, 10),
                         "element_of_risk": round(sheet.outcomes.element_of_risk, 10),
                         "average_wagered": round(sheet.outcomes.stake, 10)})
    out: dict[str, Any] = {"game": sheet.game, "decks": sheet.decks, "bets": bets}
    if sheet.tie18 is not None:
        t = sheet.tie18
        out["tie18"] = {"first_hand": t.first_hand, "split_hands": t.split_hands,
                              "by_hand": list(t.by_hand), "hands_formed": list(t.hands_expected),
                              "p_split": t.p_split}
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
    chart = sheet.chart_outcomes
    enumerated = chart is not None and chart.split_method == "enumerated"
    return ("combinatorial analysis: composition-dependent optimal play, dealer probabilities exact "
            f"for the first {main_wager.EXACT_CARDS} player cards and the dealer's card removed; splits "
            "valued per hand with the pair removed; insurance never taken (floating point). The printed "
            "chart's edge: the same analysis with every decision the chart's (strategy.py). Distribution: "
            "the net result per unit of original wager under that play; hit frequency = P(net result > 0); "
            "the optimal play's split hands follow the analysis' model of a split, independent given the "
            "dealer's outcome (its probabilities sum to 1 and its mean is the edge, to rounding); "
            + ("the printed chart's splits are enumerated card by card (see the split rows; their mean is the "
               "exact split's, not the edge's model)" if enumerated else
               "so do the printed chart's (estimates: see the split rows)")
            + "; element of risk = expected loss / expected amount wagered")


def to_text(sheet: ParSheet) -> str:
    g = GAMES[sheet.game]
    lines = [f"{g.name}: par sheet at {sheet.decks} deck{'s' if sheet.decks != 1 else ''}",
             f"rules: {sheet.rules.describe()}", ""]
    lines += main_lines(sheet)
    for name, b in sheet.bets.items():
        lines += [""] + _bet_text(name, b)
        for key, extra in b.extra.items():
            lines += [""] + _bet_text(f"{name} ({key.replace('_', ' ')})", extra)
    lines += ["", f"computed in {sheet.seconds:.1f} s"]
    return "\n".join(lines)


def edge_rows(sheet: ParSheet) -> list[tuple[str, MainWagerResult, Outcomes]]:
    """The main wager's two plays: optimal (composition-dependent) and the printed chart's."""
    rows = [("optimal play", sheet.main, sheet.outcomes)]
    if sheet.chart_main is not None and sheet.chart_outcomes is not None:
        rows.append(("printed chart", sheet.chart_main, sheet.chart_outcomes))
    return rows


def distribution_rows(out: Outcomes) -> list[tuple[float, float, float]]:
    """(net result per unit of original wager, probability, contribution to the mean), by net;
    an enumerated distribution's rows are lower bounds (``row_bound``), rows only its bounds
    reach included with 0."""
    rows = {x for x, p in out.dist.items() if p > 0} | {x for x, b in out.bound.items() if b > 0}
    return [(x, out.dist.get(x, 0.0), x * out.dist.get(x, 0.0)) for x in sorted(rows)]


def row_bound(out: Outcomes, x: float) -> float:
    """How much more than its figure row ``x`` may hold (0: the row is exact; splits.SplitWalker)."""
    return out.bound.get(x, 0.0)


def split_rows_json(out: Outcomes) -> dict[str, Any]:
    """What a distribution's rows are, for the JSON: ``method`` "enumerated" (each row's
    ``bound``: its true chance lies in [probability, probability + bound]; ``estimates`` false)
    or "model" (``estimates`` true: no row is exact, none has a bound)."""
    enumerated = out.split_method == "enumerated"
    return {"method": out.split_method, "estimates": not enumerated,
            "prune": out.prune if enumerated else None, "bounded": out.unresolved if enumerated else None,
            "note": split_rows_text(out)}


def split_rows_text(out: Outcomes) -> str:
    """What the distribution's rows are: exact, bounded (how) or the model's."""
    if out.split_method != "enumerated":
        return ("split hands follow the analysis' model of a split (constant chance of the pair card, hands "
                "independent given the dealer's outcome): rows beyond +/-4 units (three or more split hands) are "
                "estimates, found 5-30 % high by an independent simulation (issue 36), and rows within +/-4 "
                "hold split hands' share from the same model; no row is exact (odds --split-prune P, --pdf: "
                "every split enumerated, each row exact or bounded)")
    bounded = [x for x in sorted(out.bound) if out.bound[x] > 0]
    text = (f"every split enumerated card by card (splits.SplitWalker: every sequence of the split hands' cards "
            f"drawn without replacement, the chart's play, the dealer's outcome from the analysis' dealer "
            f"probabilities); sequences less likely than {out.prune:.0e} of a round ({out.unresolved:.3e} of a round "
            f"in all) were carried on with their chance bounded instead: each card's chance between its least and "
            f"greatest over every composition they may hold, the dealer's outcome likewise. ")
    if not bounded:
        return text + "Every row is exact (to floating-point rounding)."
    exact = [f"{x:+g}" for x in sorted(set(out.dist) - set(bounded)) if out.dist[x] > 0]
    return text + ("A row printed with '+ b' is a lower bound: its true chance lies between the figure and the "
                   "figure + b (a rigorous bound from the bounded sequences); " + (
                       f"the row{'s' if len(exact) > 1 else ''} {', '.join(exact)} "
                       f"{'are' if len(exact) > 1 else 'is'} exact (to floating-point rounding). "
                       if exact else "every row is bounded. ") +
                   f"The rows sum to {sum(out.dist.values()):.10f} (at least 1 less the bounded chance); hit "
                   f"frequency, push, standard deviation and average wagered are taken from them")


def main_lines(sheet: ParSheet) -> list[str]:
    lines = ["main wager:"]
    for name, res, out in edge_rows(sheet):
        lines.append(f"  {name:<14} house edge {res.house_edge * 100:.4f} %, return {(1 - res.house_edge) * 100:.4f} %, "
                     f"hit frequency {out.hit_frequency * 100:.4f} %, push {out.push * 100:.4f} %, "
                     f"std dev {out.std_dev:.4f}, element of risk {out.element_of_risk * 100:.4f} % "
                     f"(average amount wagered {out.stake:.4f} units)")
    name, res, out = edge_rows(sheet)[-1]
    lines.append(f"  net result of one unit, {name} (splits, doubles{bonus_text(sheet, ', the {}')}):")
    modelled = out.split_method == "model"
    lines.append(f"    {'net':>8}  {'probability':>14}  {'contribution':>14}  {'split rows' if modelled else 'bound'}")
    for x, p, c in distribution_rows(out):
        b = row_bound(out, x)
        mark = "model" if modelled else f"+ {b:.2e}" if b > 0 else "exact"
        lines.append(f"    {x:>+8g}  {p:>14.10f}  {c:>+14.10f}  {mark}")
    lines.append(f"    {'total':>8}  {sum(out.dist.values()):>14.10f}  {out.mean:>+14.10f}"
                 + (f"  (bounded, not enumerated: {out.unresolved:.3e})" if out.unresolved > 0 else ""))
    lines.append(f"  split rows: {split_rows_text(out)}")
    lines.append(f"  method: {main_method(sheet)}")
    return lines


def bet_rows(b: BetFigures) -> list[tuple[str, str, float, str, float]]:
    """(row, pays, probability, exact probability, contribution) with the losing outcome last."""
    rows = []
    for r in b.rows:
        exact = f"{r.probability.numerator}/{r.probability.denominator}" if r.probability is not None else "-"
        rows.append((r.name, odds_text(r.odds), r.probability_float, exact, float(r.odds) * r.probability_float))
    if b.staked:
        lose = b.lose if b.lose is not None and b.exact else None
        p_lose = float(lose) if lose is not None else 1 - b.hit_frequency
        rows.append(("loses", "-1", p_lose, f"{lose.numerator}/{lose.denominator}" if lose is not None else "-",
                     -p_lose))
    return rows


def _bet_text(name: str, b: BetFigures) -> list[str]:
    lines = [f"{name}: house edge {b.house_edge * 100:.4f} %, return to player {b.return_to_player * 100:.4f} %, "
             f"hit frequency {b.hit_frequency * 100:.4f} %, std dev {b.std_dev:.4f}"]
    rows = bet_rows(b)
    width = max((len(r[0]) for r in rows), default=10)
    for row, pays, p, exact, contribution in rows:
        lines.append(f"  {row:<{width}}  {pays:>12}  {p:.10f}  {contribution:+.10f}  {exact}")
    lines.append(f"  method: {b.method}")
    return lines


# ---------------------------------------------------------------- the strategy chart
_LETTER = {"stand": "S", "hit": "H", "double": "D", "split": "P", "surrender": "R"}


def _code(values: dict[str, float], best: str) -> str:
    return strategy.code(values, best)


def _card(v: int) -> str:
    return "A" if v == 1 else "T" if v == 10 else str(v)


def exception_lines(chart: Chart, limit: int = 40) -> list[str]:
    """The hands the optimal play plays differently from the chart, most likely first."""
    ex = sorted(chart.exceptions, key=lambda e: -e.probability)
    lines = [f"composition-dependent exceptions (the optimal play differs from the chart; {len(ex)} hands, "
             f"the {min(limit, len(ex))} most likely):"]
    for e in ex[:limit]:
        lines.append(f"  {'-'.join(_card(c) for c in e.cards):<8} against {_card(e.up):<2}  chart {e.chart:<3} "
                     f"optimal {e.optimal:<3} (probability {e.probability:.2e})")
    if chart.filled:
        lines.append("rows from three-card hands (no two-card hand makes them): "
                     + ", ".join(f"{k} {t} against {_card(u)}: {chart.cells[(k, t, u)]}"
                                 for k, t, u in sorted(chart.filled)))
    return lines


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
        if sheet.chart is not None:
            lines += [""] + exception_lines(sheet.chart)
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
    if sheet.chart is not None:
        lines += exception_lines(sheet.chart)
    return "\n".join(lines)


# ---------------------------------------------------------------- sign-off (issue 36)
# The rules document each sheet is computed against (../shared/rules/*.txt: the title, the
# version and the date it takes effect, as its header states them; a test reads the headers).
RULES_DOCUMENTS: dict[str, tuple[str, str]] = {key: g.rules_document for key, g in GAMES.items()}

# Readings (DESIGN.md) that move a printed figure, with the figure under each reading: each
# game's own data (games/<game>.py).
READINGS: dict[str, list[str]] = {key: list(g.readings) for key, g in GAMES.items()}


def game_data_digest(game: str, decks: int) -> str:
    """SHA-256 (first 16 hex digits) of the data the figures come from: the main wager's rule
    set (deck, rules) and every side bet's pay table (names, odds, clauses)."""
    import hashlib

    g = GAMES[game]
    parts = [repr(for_game(game, decks))]
    for spec in g.specs:
        parts.append(f"{spec.key}|{spec.name}|{spec.stage}|" +
                     ";".join(f"{r.name}={r.odds}@{r.clause}" for r in spec.rows))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def document_number(game: str, decks: int) -> str:
    """Stable: the game, the deck count, the rules document's revision and the data digest."""
    revision = RULES_DOCUMENTS[game][1]
    rev = "".join(ch for ch in revision.split(",")[0] if ch.isalnum()) if revision.startswith("Version") else \
        "".join(ch for ch in revision.split("(")[0] if ch.isalnum()).replace("wef", "")
    return f"DA-PS-{game.upper().replace('_', '')}-{decks}D-{rev}-{game_data_digest(game, decks)[:8].upper()}"


def combinations(p: Fraction, shoe_cards: int) -> tuple[int, int, int]:
    """(count, total, k): ``p`` as ``count`` of the ``total`` = N(N-1)...(N-k+1) ordered k-card
    deals from the ``shoe_cards``-card shoe, the smallest k that makes every count whole."""
    total = 1
    for k in range(1, 11):
        total *= shoe_cards - k + 1
        if (p * total).denominator == 1:
            return int(p * total), total, k
    return p.numerator, p.denominator, 0


def edge_fraction(b: BetFigures) -> Fraction | None:
    """The bet's house edge per unit staked, exactly (None where the figure is not exact)."""
    ev = b.expected_value_exact
    return None if ev is None else -ev


# The base seed of the sheets' confirming simulations (odds --seed; issue 36's number). Each
# sheet draws its own seed from it, its game and its deck count (``simulation_seed``), so the
# 29 sheets' simulations are independent of one another and each can be re-run alone.
BASE_SEED = 36


def simulation_seed(game: str, decks: int, base: int = BASE_SEED) -> int:
    """The seed of ``game``'s sheet at ``decks`` decks: the first 8 hex digits of SHA-256 of
    ``"base/game/decks"``, a whole number below 2**32 (the same sheet always the same seed)."""
    import hashlib

    return int(hashlib.sha256(f"{base}/{game}/{decks}".encode()).hexdigest()[:8], 16)


@dataclass(frozen=True)
class SimulationCheck:
    """The engine's simulator (bench/simulate.py) played by the printed chart."""

    rounds: int
    wagers: int
    seed: int  # the sheet's own (simulation_seed), drawn from base_seed
    edge: float  # the house's, per unit of main wager
    half_width: float  # of the 95 % interval
    base_seed: int
    reshuffle_below: int  # cards left when the simulator shuffles (bench.simulate.RESHUFFLE_BELOW)


@dataclass
class TheoBasis:
    """The edge theoretical win uses: ``chart`` play (default), ``optimal``, or a casino's figure."""

    kind: str = "chart"
    figure: float | None = None  # house edge, a fraction, for kind "casino"

    def edge(self, sheet: ParSheet) -> float:
        if self.kind == "casino" and self.figure is not None:
            return self.figure
        if self.kind == "chart" and sheet.chart_main is not None:
            return sheet.chart_main.house_edge
        return sheet.main.house_edge

    def describe(self) -> str:
        if self.kind == "casino" and self.figure is not None:
            return f"the casino's own figure, {self.figure * 100:.4f} %"
        return "chart play (the printed chart's edge)" if self.kind == "chart" else "optimal play (composition-dependent)"


def parse_theo_basis(text: str) -> TheoBasis:
    """``chart``, ``optimal`` or a house edge in per cent (a casino's figure, e.g. ``1.25``)."""
    if text in ("chart", "optimal"):
        return TheoBasis(text)
    try:
        value = float(text.rstrip("%").strip())
    except ValueError:
        raise OddsError(f"--theo-basis must be chart, optimal or a house edge in per cent, not {text!r}") from None
    if not -100 < value < 100:
        raise OddsError(f"--theo-basis {text!r}: a house edge in per cent lies between -100 and 100")
    return TheoBasis("casino", value / 100)


def combined_std_dev(sheet: ParSheet) -> float:
    """SD of one unit on the main wager (chart play) and one on every staked side bet, the bets
    taken as independent (their covariances with the main wager are not included)."""
    out = sheet.chart_outcomes or sheet.outcomes
    var = out.std_dev ** 2
    for bet, b in sheet.bets.items():
        if b.staked and bet != "insurance":
            var += b.std_dev ** 2
    return float(var ** 0.5)
