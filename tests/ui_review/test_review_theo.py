"""Theoretical win in the review window (issue 19): per round, per session, and a player's rating."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from dealer_assist.odds.theo import house_edges
from tests.ui_review.conftest import Recorded
from ui.review.app import ReviewWindow


def test_session_theoretical_win_and_hold(window: ReviewWindow, recorded: Recorded) -> None:
    window.tabs.setCurrentWidget(window.summary)
    view = window.summary
    view.list.selectRow(1)  # ann's Ace Race session: alice main 25 (won 6 to 5), pair 5 (lost)
    view.show_summary(1)
    view.theo_button.click()
    main_edge = house_edges("ace_race", 6)["main"]
    # Pair 11:1 at 6 decks: 23 of the other 311 cards pair the first, so the edge is
    # 1 - 12 x 23/311 = 35/311.
    pair_theo = 5 * Fraction(35, 311)
    cells = {view.bets.item(r, 0).text(): view.bets.item(r, 5).text() for r in range(view.bets.rowCount())}
    assert cells["Main"] == f"{25 * main_edge:.2f}"
    assert cells["Pair"] == f"{Decimal(pair_theo.numerator) / pair_theo.denominator:.2f}"
    text = view.theo_label.text()
    assert "actual \u221225" in text and "actual hold \u221283.33%" in text


def test_round_theoretical_win(window: ReviewWindow, recorded: Recorded) -> None:
    window.open_round(recorded.ids["ace_race"])
    detail = window.detail
    detail.theo_button.click()
    rows = [[detail.theo_table.item(r, c).text() for c in range(5)] for r in range(detail.theo_table.rowCount())]
    edges = house_edges("ace_race", 6)
    theo = 25 * edges["main"] + 5 * edges["pair"]
    assert rows[0] == ["alice", "30", "30", f"{theo:.2f}", "\u221225"]
    assert rows[-1][0] == "table"


def test_player_rating(window: ReviewWindow, recorded: Recorded) -> None:
    window.tabs.setCurrentWidget(window.summary)
    view = window.summary
    view.since.clear()
    view.rating_player.setText("bob")
    view.rating_button.click()
    text = view.rating_label.text()
    # bob's settled rounds: the Lucky 8 example (main 50 doubled to 100 and won, lucky8 10 won
    # at 5:1), Lucky 8 with the ruling (main 40 won) and Star Elements (main 50 won): 3 rounds,
    # bets 60 + 40 + 50 (average 50), wagered 10 + 100 + 40 + 50 = 200, the house lost 240.
    lucky8, star = house_edges("lucky8", 6), house_edges("star_elements", 6)
    theo = 90 * lucky8["main"] + 10 * lucky8["lucky8"] + 50 * star["main"]
    assert text.startswith("bob: 0 h ")
    assert (", 3 rounds, average bet 50, wagered 200, theoretical win "
            f"{theo:.2f}, actual win \u2212240") in text
    view.rating_player.setText("nobody")
    view.rating_button.click()
    assert view.rating_label.text() == "nobody: no settled rounds"


def test_whole_table_theoretical_hold(window: ReviewWindow, recorded: Recorded) -> None:
    window.tabs.setCurrentWidget(window.summary)
    view = window.summary
    view.since.clear()
    view.table_theo_button.click()
    text = view.theo_label.text()
    # Settled rounds: the three examples, Ace Race, Lucky 8 with the ruling, Star Elements (the
    # void round counts for nothing).
    assert text.startswith("Table: 6 settled rounds, wagered ")
    assert "theoretical hold " in text and "actual hold " in text
