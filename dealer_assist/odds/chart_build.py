"""The printed chart built from the optimal play's decisions (main_wager.py): two-card rows,
the rows only three-card hands make, and the composition-dependent exceptions."""

from __future__ import annotations

from collections.abc import Callable

from dealer_assist.odds.main_wager import HandDecision, Versus, add_card, hand_total
from dealer_assist.odds.strategy import Cell, Chart, Exception_, code, total_cell, two_card_cell


def build_chart(decisions: list[HandDecision], vs_for: Callable[[int], Versus] | None = None) -> Chart:
    """The chart of an analysis' two-card decisions (the most likely hand of each cell decides)."""
    entries: dict[Cell, list[tuple[float, str, tuple[int, ...]]]] = {}
    blackjack_total = 21
    for d in decisions:
        a, b = d.cards
        if a + b == 11 and 1 in (a, b) and d.values.keys() == {"stand"}:
            continue  # a blackjack: no decision
        entries.setdefault(two_card_cell(a, b, d.up), []).append((d.probability, code(d.values, d.best), d.cards))
    chart = Chart({})
    for cell, hands in entries.items():
        hands.sort(reverse=True)
        top = hands[0][1]
        chart.cells[cell] = top
        for p, c, cards in hands:
            if c != top:
                chart.exceptions.append(Exception_(cards, cell[2], top, c, p))
    if vs_for is not None:
        _fill_three_card_rows(chart, decisions, vs_for, blackjack_total)
    return chart


def _fill_three_card_rows(chart: Chart, decisions: list[HandDecision], vs_for: Callable[[int], Versus],
                          _bj: int) -> None:
    """Rows no two-card hand makes, from the optimal play of their most likely three-card hand;
    and the three-card hands whose optimal hit/stand differs from the chart's (exceptions)."""
    by_up: dict[int, list[HandDecision]] = {}
    for d in decisions:
        by_up.setdefault(d.up, []).append(d)
    for up, ds in by_up.items():
        vs = vs_for(up)
        bj_cost = 1 if vs.enhc else 0
        three: dict[Cell, list[tuple[float, tuple[int, ...], bool]]] = {}
        for d in ds:
            if d.best != "hit":
                continue
            a, b = d.cards
            comp: tuple[int, ...] = (0,) * 10
            for v in d.cards[1:] if vs.rules.permanent_eight else d.cards:
                comp = add_card(comp, v)
            probs = vs.draw_probs(comp)
            for i in range(10):
                hard = a + b + i + 1
                ace = 1 in (a, b) or i == 0
                if probs[i] <= 0 or hard > 21 or hand_total(hard, ace) >= 21:
                    continue
                nc = add_card(comp, i + 1)
                hit = vs.plays_hit(nc, hard, ace, bj_cost)
                three.setdefault(total_cell(hard, ace, up), []).append(
                    (d.probability * probs[i], (a, b, i + 1), hit))
        for cell, hands in three.items():
            hands.sort(reverse=True)
            kind, total, _ = cell
            if cell not in chart.cells and total < (17 if kind == "hard" else 19):
                chart.cells[cell] = "H" if hands[0][2] else "S"
                chart.filled.add(cell)
            for p, cards, hit in hands:
                hard = sum(cards)
                if hit != chart.hits(hard, 1 in cards, up):
                    chart.exceptions.append(Exception_(cards, up, "H" if not hit else "S", "H" if hit else "S", p))
