"""Issue 36: the split enumeration (splits.SplitWalker) against every order of a small shoe
(exact fractions), in three games whose split rules differ, and its bounds.

Lucky 8: four hands (3.22), any two cards doubled after a split, a dealer blackjack takes one
original wager from the hands that did not bust (4.5), S17. Ace Race: four hands (3.22), a
split hand doubles on a hard 10 or 11 only (3.26.2), a dealer blackjack takes every wager of
the split hands (3.24.3), H17. Electronic: three hands (3.14.3), aces split once with one card
each (3.14.1, 3.14.3), one original wager to a dealer blackjack (3.15.5).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

from dealer_assist.cli import main
from dealer_assist.odds.main_wager import Versus
from dealer_assist.odds.outcomes import analyse_with_outcomes, split_bounds, split_outcomes
from dealer_assist.odds.pdf import write_pdf
from dealer_assist.odds.rulesets import for_game
from dealer_assist.odds.sheet import ParSheet, main_lines, to_json
from dealer_assist.odds.strategy import Chart
from tests.odds.pdf_text import pdf_text


def _chart(up: int) -> Chart:
    """Against ``up``: double hard 10, 11 and soft 17 (A-6); hit hard 12-14 (hard 11 or less and
    soft 17 or less by the chart's default); stand on hard 15 and more and soft 18 and more."""
    return Chart(cells={("hard", 10, up): "Dh", ("hard", 11, up): "Dh", ("soft", 17, up): "Dh",
                        ("hard", 12, up): "H", ("hard", 13, up): "H", ("hard", 14, up): "H",
                        ("soft", 18, up): "S"})


def _total(hard: int, ace: bool) -> int:
    return hard + 10 if ace and hard <= 11 else hard


def _hits(hard: int, ace: bool) -> bool:
    """The chart above, by hand: hard 14 or less, soft 17 or less (21 never hits)."""
    t = _total(hard, ace)
    soft = ace and hard <= 11
    return t < 21 and (t <= 17 if soft else t <= 14)


Net = dict[int, Fraction]


def _brute(counts: list[int], v: int, up: int, max_hands: int, h17: bool, takes_all: bool,
           doubles: Callable[[int, bool], bool]) -> Net:
    """Split a pair of ``v`` against ``up`` (no hole card: the dealer's second card comes after
    the hands), every order of the remaining ``counts`` (by value, ace first)."""
    out: Net = {}
    aces = v == 1

    def draw(cnt: list[int], p: Fraction, then: Callable[[int, list[int], Fraction], None]) -> None:
        n = sum(cnt)
        for i, c in enumerate(cnt):
            if c:
                cnt[i] -= 1
                then(i + 1, cnt, p * Fraction(c, n))
                cnt[i] += 1

    def dealer(cnt: list[int], p: Fraction, hands: list[tuple[int, int]]) -> None:
        # hands: (bet, total; 0 = bust)
        def settle(p2: Fraction, d: int) -> None:  # d: dealer's total, 0 = bust, -1 = blackjack
            if d == -1:
                if takes_all:
                    net = -sum(b for b, _ in hands)
                else:
                    net = -sum(b for b, t in hands if t == 0) - (1 if any(t for _, t in hands) else 0)
            else:
                net = sum(-b if t == 0 else b if d == 0 or t > d else 0 if t == d else -b for b, t in hands)
            out[net] = out.get(net, Fraction(0)) + p2

        def go(hard: int, ace: bool, cards: int, cnt2: list[int], p2: Fraction) -> None:
            if cards == 2 and _total(hard, ace) == 21 and up in (1, 10):
                settle(p2, -1)
                return
            t = _total(hard, ace)
            if t > 21:
                settle(p2, 0)
            elif t >= 17 and not (h17 and t == 17 and ace and hard == 7):
                settle(p2, t)
            else:
                draw(cnt2, p2, lambda c, c3, p3: go(hard + c, ace or c == 1, cards + 1, c3, p3))

        go(up, up == 1, 1, cnt, p)

    def hand(cnt: list[int], p: Fraction, formed: int, waiting: int, done: list[tuple[int, int]]) -> None:
        """The next hand takes its second card (a pair card there: a new hand, under the limit)."""
        def second(c: int, c2: list[int], p2: Fraction) -> None:
            if c == v and formed < max_hands:
                hand(c2, p2, formed + 1, waiting + 1, done)
                return
            hard, ace = v + c, aces or c == 1
            if aces:
                finish(c2, p2, formed, waiting, done, (1, _total(hard, ace)))
            elif doubles(hard, ace):
                draw(c2, p2, lambda d, c3, p3: finish(c3, p3, formed, waiting, done,
                                                      (2, 0 if hard + d > 21 else _total(hard + d, ace or d == 1))))
            else:
                play(c2, p2, formed, waiting, done, hard, ace)
        draw(cnt, p, second)

    def play(cnt: list[int], p: Fraction, formed: int, waiting: int, done: list[tuple[int, int]],
             hard: int, ace: bool) -> None:
        if hard > 21:
            finish(cnt, p, formed, waiting, done, (1, 0))
        elif _hits(hard, ace):
            draw(cnt, p, lambda c, c2, p2: play(c2, p2, formed, waiting, done, hard + c, ace or c == 1))
        else:
            finish(cnt, p, formed, waiting, done, (1, _total(hard, ace)))

    def finish(cnt: list[int], p: Fraction, formed: int, waiting: int, done: list[tuple[int, int]],
               result: tuple[int, int]) -> None:
        if waiting == 0:
            dealer(cnt, p, [*done, result])
        else:
            hand(cnt, p, formed, waiting - 1, [*done, result])

    hand(list(counts), Fraction(1), 2, 1, [])
    return out


def _any_two(hard: int, ace: bool) -> bool:
    """Lucky 8 / Electronic: any two cards of a split hand double (the chart: 10, 11, soft 17)."""
    return (not ace and hard in (10, 11)) or (ace and hard == 7)


def _hard_10_11(hard: int, ace: bool) -> bool:
    """Ace Race 3.26.2: a split hand doubles on a hard 10 or 11 only (its soft 17 hits)."""
    return not ace and hard in (10, 11)


# (game, shoe by value ace first, pair, dealer's card, double rule, hands at most, the lowest
# net the deal reaches: it shows how many hands the deal forms and how many double).
CASES = [
    # Lucky 8: 6-6 against a 10: resplits to four (3.22), doubles on 10, 11 and A-6 (any two),
    # an ace under the 10: blackjack. -8: four hands, all doubled (4, 5, A, A), all lost.
    ("lucky8", (2, 1, 1, 1, 1, 4, 0, 0, 0, 6), 6, 10, _any_two, 4, -8),
    # Ace Race: the same deal: A-6 after the split is hit, not doubled (3.26.2), so two hands at
    # most double (the 4 and the 5): -6 is four hands, two doubled. A blackjack takes all
    # (3.24.3); H17 (3.34).
    ("ace_race", (2, 1, 1, 1, 1, 4, 0, 0, 0, 6), 6, 10, _hard_10_11, 4, -6),
    # Ace Race: 8-8 against an ace (the dealer's A-6 hits; a ten under the ace is a blackjack):
    # the 2 and the 3 double (10, 11): -6 is four hands, two doubled.
    ("ace_race", (2, 1, 1, 0, 0, 2, 0, 4, 0, 7), 8, 1, _hard_10_11, 4, -6),
    # Electronic: 8-8 against a 9 with three more 8s in the shoe: three hands at most (3.14.3):
    # -5 is three hands, two doubled (8-2, 8-3).
    ("electronic", (1, 1, 1, 0, 0, 1, 1, 5, 2, 4), 8, 9, _any_two, 3, -5),
    # Electronic: aces against a 10: two hands, one card each, never resplit or doubled (3.14.1).
    ("electronic", (4, 0, 0, 0, 0, 2, 1, 1, 1, 6), 1, 10, _any_two, 2, -2),
]


def _setup(game: str, shoe: tuple[int, ...], v: int, up: int) -> tuple[Versus, tuple[int, ...], list[int]]:
    rules = dataclasses.replace(for_game(game, 1), deck=shoe)
    vs = Versus(rules, up, 99, _chart(up))  # the dealer's probabilities exact for every card removed
    comp = tuple(2 if i == v - 1 else 0 for i in range(10))
    counts = [shoe[i] - comp[i] - (1 if i == up - 1 else 0) for i in range(10)]
    return vs, comp, counts


def _expected(game: str, counts: list[int], v: int, up: int, doubles: Callable[[int, bool], bool],
              hands: int) -> Net:
    """Every order, by the rules' text: H17 in Ace Race only (3.34: draws to soft 17; the others
    S17); a dealer blackjack takes all in Ace Race (3.24.3), one original wager in Lucky 8 (4.5)
    and Electronic (3.15.5). Worked out once per deal (a few seconds of exact fractions)."""
    return dict(_every_order(game, tuple(counts), v, up, doubles, hands))


@cache
def _every_order(game: str, counts: tuple[int, ...], v: int, up: int, doubles: Callable[[int, bool], bool],
                 hands: int) -> Net:
    ace_race = game == "ace_race"
    return _brute(list(counts), v, up, hands, ace_race, ace_race, doubles)


@pytest.mark.parametrize(("game", "shoe", "v", "up", "doubles", "hands", "lowest"), CASES)
def test_the_enumeration_equals_every_order(game: str, shoe: tuple[int, ...], v: int, up: int,
                                               doubles: Callable[[int, bool], bool], hands: int,
                                               lowest: int) -> None:
    vs, comp, counts = _setup(game, shoe, v, up)
    expected = _expected(game, counts, v, up, doubles, hands)
    assert sum(expected.values()) == 1  # the shoe never runs out
    assert min(expected) == lowest
    fast, unresolved = split_outcomes(vs, v, comp, prune=0.0)
    assert unresolved == 0.0
    assert {x for x, p in fast.items() if p > 1e-15} == {float(x) for x in expected}
    for x, p in expected.items():
        assert fast.get(float(x), 0.0) == pytest.approx(float(p), abs=1e-12), x


@pytest.mark.parametrize("prune", [1e-4, 1e-3, 1e-2])
@pytest.mark.parametrize(("game", "shoe", "v", "up", "doubles", "hands", "lowest"), CASES[2:4])
def test_bounds_contain_every_order(game: str, shoe: tuple[int, ...], v: int, up: int,
                                    doubles: Callable[[int, bool], bool], hands: int, lowest: int,
                                    prune: float) -> None:
    vs, comp, counts = _setup(game, shoe, v, up)
    expected = _expected(game, counts, v, up, doubles, hands)
    rows, bound, left_out = split_bounds(vs, v, comp, prune)
    assert left_out > 1e-6  # the threshold left some sequences to the bounds
    assert 1 - left_out - 1e-12 <= sum(rows.values()) <= 1 + 1e-12
    assert max(bound.values()) <= left_out + 1e-12
    for x in set(expected) | {int(r) for r in rows} | {int(r) for r in bound}:
        lo = rows.get(float(x), 0.0)
        hi = lo + bound.get(float(x), 0.0)
        assert lo - 1e-12 <= float(expected.get(x, 0)) <= hi + 1e-12, (x, lo, float(expected.get(x, 0)), hi)


# A shoe of 24 cards, two of each value and six tens; the chart splits every pair against every
# card (else hits 11 or less and soft 18 or less: the chart's default) so every split is walked.
SHOE24 = (2, 2, 2, 2, 2, 2, 2, 2, 2, 6)
SPLIT_ALL = Chart(cells={("pair", v, up): "P" for v in range(1, 11) for up in range(1, 11)})


def test_sheet_rows_bound_the_unpruned_enumeration_and_say_so(tmp_path: Path) -> None:
    """The whole distribution of the chart's play (every initial hand, every dealer card): with a
    threshold, each printed row and its bound contain the rows enumerated without one; the text,
    the JSON and the PDF mark the bounded rows and do not print a total of 1."""
    rules = dataclasses.replace(for_game("lucky8", 1), deck=SHOE24)
    res, exact = analyse_with_outcomes(rules, chart=SPLIT_ALL, exact_splits=True, prune=0.0)
    _res, pruned = analyse_with_outcomes(rules, chart=SPLIT_ALL, exact_splits=True, prune=1e-6)
    assert exact.unresolved == 0.0 and exact.bound == {}
    assert sum(exact.dist.values()) == pytest.approx(1.0, abs=1e-12)
    assert pruned.unresolved > 1e-6  # some split sequences were left out
    assert 1 - pruned.unresolved - 1e-12 <= sum(pruned.dist.values()) <= 1 + 1e-12
    for x in set(exact.dist) | set(pruned.dist) | set(pruned.bound):
        lo, hi = pruned.interval(x)
        assert lo - 1e-12 <= exact.dist.get(x, 0.0) <= hi + 1e-12, (x, lo, exact.dist.get(x, 0.0), hi)
    # No split reaches -0.5 or +1.5 (a surrender, a blackjack): those rows are exact.
    assert pruned.bound.get(-0.5, 0.0) == 0.0 and pruned.bound.get(1.5, 0.0) == 0.0
    sheet = ParSheet("lucky8", 1, rules, res, exact, chart_main=res, chart_outcomes=pruned)
    lines = main_lines(sheet)
    total = next(line for line in lines if line.strip().startswith("total"))
    assert "1.0000000000" not in total and "bounded" in total
    rows = {line.split()[0]: line for line in lines if line.startswith("    ") and line.split()[0][0] in "+-"}
    assert rows["+1.5"].endswith("exact") and "+ " in rows["-2"]
    assert "lower bound" in " ".join(lines)
    doc = to_json(sheet)["bets"]["main"]["printed_chart"]
    assert doc["split_rows"]["method"] == "enumerated" and doc["split_rows"]["estimates"] is False
    assert doc["split_rows"]["prune"] == 1e-6 and doc["split_rows"]["bounded"] == pruned.unresolved
    by_net = {r["net"]: r for r in doc["distribution"]}
    assert by_net[1.5]["bound"] == 0.0 and by_net[-2]["bound"] == pruned.bound[-2] > 0
    # The printed sheet: each row's figure with '+ bound' or 'exact', the total with the chance
    # bounded, and what the rows are (issue 36: "rows printed with their error bound").
    path = tmp_path / "sheet.pdf"
    write_pdf(sheet, str(path))
    text = pdf_text(path)
    assert f"+1.5 {pruned.dist[1.5]:.10f} {1.5 * pruned.dist[1.5]:+.10f} exact" in text
    assert f"-2 {pruned.dist[-2]:.10f} {-2 * pruned.dist[-2]:+.10f} + {pruned.bound[-2]:.2e}" in text
    assert f"total {sum(pruned.dist.values()):.10f} {pruned.mean:+.10f} bounded {pruned.unresolved:.2e}" in text
    assert "Split rows. Every split enumerated card by card" in text
    assert "sequences less likely than 1e-06 of a round" in text
    assert "A row printed with '+ b' is a lower bound" in text and "the row +1.5 is exact" in text
    assert "model of a split" not in text.split("Split rows.")[1].split("Method.")[0]


def test_model_rows_are_marked_as_estimates(tmp_path: Path) -> None:
    """Without an enumeration (par_sheet's default) the chart's rows are the split model's: the
    JSON says so (method "model", estimates, no bound), the text and the PDF mark no row exact
    nor bounded, and the PDF says what the model is."""
    rules = dataclasses.replace(for_game("lucky8", 1), deck=SHOE24)
    res, model = analyse_with_outcomes(rules, chart=SPLIT_ALL)
    assert model.split_method == "model" and model.bound == {}
    sheet = ParSheet("lucky8", 1, rules, res, model, chart_main=res, chart_outcomes=model)
    doc = to_json(sheet)["bets"]["main"]
    for split_rows in (doc["split_rows"], doc["printed_chart"]["split_rows"]):
        assert split_rows["method"] == "model" and split_rows["estimates"] is True
        assert split_rows["prune"] is None and split_rows["bounded"] is None
        assert "estimates" in split_rows["note"] and "no row is exact" in split_rows["note"]
    assert all(r["bound"] is None for r in doc["printed_chart"]["distribution"])
    lines = main_lines(sheet)
    marks = [line.split()[-1] for line in lines if line.startswith("    ") and line.split()[0][0] in "+-"]
    assert marks and set(marks) == {"model"}
    path = tmp_path / "model.pdf"
    write_pdf(sheet, str(path))
    text = pdf_text(path)
    table = text.split("Net result of one unit")[1].split("Split rows.")[0]
    assert f"-1 {model.dist[-1]:.10f}" in table and " exact" not in table and "+ " not in table
    assert "Split rows. Split hands follow the analysis' model of a split" in text and "no row is exact" in text


def test_cli_refuses_a_split_threshold_outside_0_1(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("0", "1", "1.5"):
        assert main(["odds", "lucky8", "--split-prune", bad]) == 2
        assert capsys.readouterr().err == "error: --split-prune must lie between 0 and 1 (a chance of the round)\n"
