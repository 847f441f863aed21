"""protect/stats.py against textbook values and hand-worked cases."""

from __future__ import annotations

import math

import pytest

from dealer_assist.protect.stats import fit, incomplete_beta, t_quantile, t_two_sided_p


def test_the_t_distribution_matches_the_tables() -> None:
    assert incomplete_beta(2, 3, 0.5) == pytest.approx(11 / 16)  # sum of C(4, j) / 16, j = 2..4
    assert t_quantile(0.975, 10) == pytest.approx(2.228, abs=5e-4)  # Student's table
    assert t_quantile(0.975, 30) == pytest.approx(2.042, abs=5e-4)
    assert t_two_sided_p(1.0, 1) == pytest.approx(0.5)  # Cauchy: P(|T| > 1) = 1/2
    assert t_two_sided_p(2.228, 10) == pytest.approx(0.05, abs=1e-4)


def test_a_hand_worked_fit() -> None:
    # x 0 1 2 3, y 1 3 2 5: Sxx = 5, Sxy = 5.5, Syy = 8.75
    result = fit([0, 1, 2, 3], [1, 3, 2, 5])
    assert result.slope == pytest.approx(1.1)
    assert result.r == pytest.approx(5.5 / math.sqrt(5 * 8.75))
    assert result.low < 1.1 < result.high and 0 < result.p_value < 1


def test_a_line_a_flat_bettor_and_too_few_points() -> None:
    line = fit([0, 1, 2, 3], [10, 20, 30, 40])
    assert (line.r, line.slope, line.p_value) == (pytest.approx(1.0), pytest.approx(10.0), 0.0)
    flat = fit([0, 1, 2, 3], [10, 10, 10, 10])
    assert (flat.r, flat.slope, flat.p_value) == (None, 0.0, 1.0)
    assert fit([0, 1], [10, 20]).p_value == 1.0
