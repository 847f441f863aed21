"""What the screen shows when a card brings a settlement, updated in place (issue 16's speed work).

The card that brings the interim or the final settlement changes the wager cells of every
area and fills the settlement table. The cells are updated in place (the same cell widgets,
new text and colour), the table reuses its rows and items (rows of an earlier, longer
round are hidden, never shown) and is filled after the card is painted, and the prompt
reuses the offer buttons of an earlier round. These tests play rounds through the real
window on the simulated shoe and read what the dealer sees; every amount is worked out by
hand from the game's rules in the comments.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontInfo, QFontMetrics
from PySide6.QtWidgets import QStyle, QTableWidget

from dealer_assist.engine.table_setup import TableSetup
from tests.ui.driving import TableDriver
from ui.common.style import PAY_COLOURS
from ui.dealer.settlement_panel import COLUMNS

MakeTable = Callable[..., TableDriver]


def _cells(t: TableDriver, area: int) -> dict[tuple[str, str], tuple[str, str]]:
    """(player, bet) -> (text, colour) of an area's wager cells, as painted."""
    table = t.window.table_view.area_boxes[area].table
    return {key: (label.text(), label.colour.name()) for key, label in table.cells.items()}


PAY, COLLECT, RETURN, OPEN = (PAY_COLOURS[k] for k in ("pay", "collect", "return", ""))


def _whole(table: QTableWidget, row: int, col: int) -> bool:
    """Whether the cell's words are all in view: on one line, or (the view wrapping words)
    on the lines its row's height holds, each word within the cell's text width (the cell
    less the style's text margin on each side, as Qt's item view lays it out, and a pixel)."""
    item = table.item(row, col)
    metrics = QFontMetrics(item.font())
    margin = table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1
    # (and a pixel each side: Qt's text layout elided "interim" 39 px wide in 40 under X11)
    width = table.columnWidth(col) - 2 * (margin + 1)
    text = item.text()
    if metrics.horizontalAdvance(text) <= width:
        return True
    if not table.wordWrap() or any(metrics.horizontalAdvance(word) > width for word in text.split()):
        return False
    return metrics.boundingRect(QRect(0, 0, width, 10_000), Qt.TextFlag.TextWordWrap, text).height() <= (
        table.rowHeight(row))


def test_lucky8_side_bets_then_main_on_the_cells_and_the_table_over_two_rounds(make_table: MakeTable) -> None:
    # Lucky 8, round 1. Area 1: alice (seated) main 100, Pair 5, Lucky 8 10; bob behind her main 50,
    # Pair 10. Area 2: carl main 25, Pair 5, Lucky 8 5.
    # Deal (3.18): 8♥ area 1, 9♣ area 2, 6♦ dealer, 8♠ area 1, 5♦ area 2.
    # Area 1 holds 8♥ 8♠: a Pair (1.1.9), paid 11 to 1 (4.1): alice 5 -> +55, bob 10 -> +110.
    # Lucky 8 (1.1.8.2): two unsuited 8's from the player's two cards, 5 to 1 (4.2): alice 10 -> +50.
    # Area 2 holds 9♣ 5♦, the dealer 6♦: no Pair (carl −5) and no 8 nor two of a kind in
    # 9 5 / 9 6 / 5 6 (1.1.8, 1.1.18): carl's Lucky 8 loses −5 (3.15).
    # Both stand (16, 14). Dealer 6 + 10♣ = 16 draws (3.34), + 4♠ = 20: every main wager loses (4.4.1):
    # alice −100, bob −50, carl −25. Totals: alice 55 + 50 − 100 = +5, bob 110 − 50 = +60, carl −35.
    setup = TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1, "carl": 2})
    t = make_table(setup, "8H 9C 6D 8S 5D 10C 4S  10H 9S 7C QD 8C 10S")
    t.bet("alice", "main", [100], area=1)
    t.bet("alice", "pair", [5], area=1)
    t.bet("alice", "lucky8", [5, 5], area=1)
    t.bet("bob", "main", [25, 25], area=1)
    t.bet("bob", "pair", [5, 5], area=1)
    t.bet("carl", "main", [25], area=2)
    t.bet("carl", "pair", [5], area=2)
    t.bet("carl", "lucky8", [5], area=2)
    t.press("no_more_bets")
    t.deal(5)
    assert _cells(t, 1) == {("alice", "main"): ("100", OPEN), ("alice", "pair"): ("5", OPEN),
                            ("alice", "lucky8"): ("10", OPEN), ("bob", "main"): ("50", OPEN),
                            ("bob", "pair"): ("10", OPEN)}
    labels = dict(t.window.table_view.area_boxes[1].table.cells)
    offers = {key: button for key, button in t.window.prompt.buttons.items() if key.startswith("offer:")}
    assert set(offers) == {"offer:alice:1:surrender", "offer:bob:1:surrender", "offer:carl:2:surrender"}

    t.press("stand")  # alice's first decision closes the offers: the interim settlement
    assert _cells(t, 1) == {("alice", "main"): ("100", OPEN), ("alice", "pair"): ("+55", PAY),
                            ("alice", "lucky8"): ("+50", PAY), ("bob", "main"): ("50", OPEN),
                            ("bob", "pair"): ("+110", PAY)}
    assert _cells(t, 2) == {("carl", "main"): ("25", OPEN), ("carl", "pair"): ("\u22125", COLLECT),
                            ("carl", "lucky8"): ("\u22125", COLLECT)}
    assert t.window.settlement.title.text() == "Interim settlement"
    rows = t.settlement_rows()
    assert [r[1] for r in rows] == ["2", "2", "1", "1", "1"]  # paying order: area 2 first
    assert sorted(r[:4] for r in rows) == [
        ("alice", "1", "Lucky 8 (2 unsuited 8's)", "PAY 50"), ("alice", "1", "Pair", "PAY 55"), ("bob", "1", "Pair", "PAY 110"),
        ("carl", "2", "Lucky 8", "COLLECT 5"), ("carl", "2", "Pair", "COLLECT 5")]

    t.press("stand")  # carl stands on 14
    t.deal(2)  # the dealer's 10♣ and 4♠: 20, the final settlement
    assert _cells(t, 1) == {("alice", "main"): ("\u2212100", COLLECT), ("alice", "pair"): ("+55", PAY),
                            ("alice", "lucky8"): ("+50", PAY), ("bob", "main"): ("\u221250", COLLECT),
                            ("bob", "pair"): ("+110", PAY)}
    assert _cells(t, 2) == {("carl", "main"): ("\u221225", COLLECT), ("carl", "pair"): ("\u22125", COLLECT),
                            ("carl", "lucky8"): ("\u22125", COLLECT)}
    # in place: the cells shown since the deal are the ones that now show the results
    assert all(t.window.table_view.area_boxes[1].table.cells[key] is label for key, label in labels.items())
    rows = t.settlement_rows()
    assert [r[1] for r in rows] == ["2", "2", "2/1", "1", "1", "1", "1/1", "1/1"]
    assert ("carl", "2/1", "Main", "COLLECT 25", "4.4.1", "final") in rows
    assert ("alice", "1/1", "Main", "COLLECT 100", "4.4.1", "final") in rows
    assert ("bob", "1/1", "Main", "COLLECT 50", "4.4.1", "final") in rows
    assert t.window.settlement.title.text() == "Final settlement"
    assert t.window.settlement.total_of("alice") == "PAY 5"
    assert t.window.settlement.total_of("bob") == "PAY 60"
    assert t.window.settlement.total_of("carl") == "COLLECT 35"

    # Round 2: alice main 100 on area 1, carl main 25 on area 2 (bob is gone).
    # Deal: 10♥ area 1, 9♠ area 2, 7♣ dealer, Q♦ area 1 (20), 8♣ area 2 (17).
    # Carl takes the surrender offer (1.1.17): he gives up half of 25: −12.50.
    # Alice stands on 20; dealer 7 + 10♠ = 17 stands (3.34); 20 beats 17: alice +100 (4.3.2).
    t.press("confirm")
    t.bet("alice", "main", [100], area=1)
    t.bet("carl", "main", [25], area=2)
    t.press("no_more_bets")
    t.deal(5)
    again = {key: button for key, button in t.window.prompt.buttons.items() if key.startswith("offer:")}
    assert set(again) == {"offer:alice:1:surrender", "offer:carl:2:surrender"}
    assert all(again[key] is offers[key] for key in again)  # the same buttons, for this round's offers
    t.press("offer:carl:2:surrender")
    t.press("stand")
    t.deal(1)  # the dealer's 10♠
    assert _cells(t, 1) == {("alice", "main"): ("+100", PAY)}
    assert _cells(t, 2) == {("carl", "main"): ("\u221212.50", COLLECT)}
    rows = t.settlement_rows()  # two rows: none of round 1's eight shows again
    assert [(r[0], r[1], r[3]) for r in rows] == [("carl", "2/1", "COLLECT 12.50"), ("alice", "1/1", "PAY 100")]
    assert rows[1] == ("alice", "1/1", "Main", "PAY 100", "4.3.2", "final")
    assert t.window.settlement.total_of("alice") == "PAY 100"
    assert t.window.settlement.total_of("carl") == "COLLECT 12.50"
    assert t.window.settlement.total_of("bob") == ""  # not in this round


def test_ace_race_pairs_and_a_push_free_round_on_two_areas(make_table: MakeTable) -> None:
    # Ace Race. Area 3: dana (seated) main 100, Pair 10, Ace Race 10; fred behind her main 50,
    # Ace Race 5. Area 5: eli main 25, Pair 5.
    # Deal (3.18): 7♥ area 3, 10♠ area 5, 9♣ dealer, 7♦ area 3, 9♦ area 5.
    # Area 3 holds 7♥ 7♦: a Pair, paid 11 to 1 (4.1): dana 10 -> +110; and a Coloured Pair
    # (1.1.1.1: alike, both red, not the same suit) for Ace Race, 8 to 1 (4.2): dana 10 -> +80,
    # fred 5 -> +40. Area 5 holds 10♠ 9♦: no Pair, eli −5.
    # Both stand (14, 19). Dealer 9 + 8♠ = hard 17 stands (3.34). 17 beats 14: dana −100, fred −50
    # (4.4.1); 19 beats 17: eli +25 (4.3.2).
    # Totals: dana 110 + 80 − 100 = +90, fred 40 − 50 = −10, eli −5 + 25 = +20.
    setup = TableSetup(game="ace_race", decks=6, areas=7, seated={"dana": 3, "eli": 5})
    t = make_table(setup, "7H 10S 9C 7D 9D 8S 2C")
    t.bet("dana", "main", [100], area=3)
    t.bet("dana", "pair", [5, 5], area=3)
    t.bet("dana", "ace_race", [5, 5], area=3)
    t.bet("fred", "main", [25, 25], area=3)
    t.bet("fred", "ace_race", [5], area=3)
    t.bet("eli", "main", [25], area=5)
    t.bet("eli", "pair", [5], area=5)
    t.press("no_more_bets")
    t.deal(5)
    labels = dict(t.window.table_view.area_boxes[3].table.cells)
    t.press("stand")  # dana's first decision closes the offers: the interim settlement
    assert _cells(t, 3) == {("dana", "main"): ("100", OPEN), ("dana", "pair"): ("+110", PAY),
                            ("dana", "ace_race"): ("+80", PAY), ("fred", "main"): ("50", OPEN),
                            ("fred", "ace_race"): ("+40", PAY)}
    assert _cells(t, 5) == {("eli", "main"): ("25", OPEN), ("eli", "pair"): ("\u22125", COLLECT)}
    t.press("stand")
    t.deal(1)  # the dealer's 8♠: hard 17
    assert _cells(t, 3) == {("dana", "main"): ("\u2212100", COLLECT), ("dana", "pair"): ("+110", PAY),
                            ("dana", "ace_race"): ("+80", PAY), ("fred", "main"): ("\u221250", COLLECT),
                            ("fred", "ace_race"): ("+40", PAY)}
    assert _cells(t, 5) == {("eli", "main"): ("+25", PAY), ("eli", "pair"): ("\u22125", COLLECT)}
    assert all(t.window.table_view.area_boxes[3].table.cells[key] is label for key, label in labels.items())
    # the dealer's list fills itself after the card is painted (nobody reads it here); the
    # details (a row per wager) are filled when the dealer opens them: 4 interim + 3 final rows
    panel = t.window.settlement
    pay = COLUMNS.index("Pay / collect")
    t.qtbot.waitUntil(lambda: panel.summary.rowCount() == 3 and t.window.pages.isVisible(), timeout=5000)
    assert panel.table.rowCount() == 0  # hidden, not filled
    panel.clauses_button.click()
    assert panel.table.isVisibleTo(panel) and panel.table.rowCount() == 7
    assert sorted(panel.table.item(r, pay).text() for r in range(7)) == [
        "COLLECT 100", "COLLECT 5", "COLLECT 50", "PAY 110", "PAY 25", "PAY 40", "PAY 80"]
    rows = t.settlement_rows()
    assert [r[1] for r in rows][:2] == ["5", "5/1"] or [r[1] for r in rows][:2] == ["5/1", "5"]
    assert {r[1] for r in rows[2:]} <= {"3", "3/1"}  # paying order: area 5, then area 3
    assert ("eli", "5/1", "Main", "PAY 25", "4.3.2", "final") in rows
    assert ("dana", "3/1", "Main", "COLLECT 100", "4.4.1", "final") in rows
    assert ("fred", "3/1", "Main", "COLLECT 50", "4.4.1", "final") in rows
    assert sorted((r[0], r[2], r[3]) for r in rows if r[5] == "interim") == [
        ("dana", "Ace Race (Coloured Pair)", "PAY 80"), ("dana", "Pair", "PAY 110"), ("eli", "Pair", "COLLECT 5"),
        ("fred", "Ace Race (Coloured Pair)", "PAY 40")]
    assert t.window.settlement.total_of("dana") == "PAY 90"
    assert t.window.settlement.total_of("fred") == "COLLECT 10"
    assert t.window.settlement.total_of("eli") == "PAY 20"


@pytest.mark.parametrize("size", [(1280, 800), (1366, 768), (1920, 1080)])
def test_the_details_keep_every_column_and_whole_amounts_in_view(make_table: MakeTable,
                                                                 size: tuple[int, int]) -> None:
    # The Ace Race round above (amounts worked out there): seven rows, the longest amount
    # COLLECT 100 (dana's main, 4.4.1) and the longest wager "Ace Race (Coloured Pair)".
    # Opened, the details' seven columns lie in the panel's width at every size — the amounts
    # never out of view, each whole — and the wager name whole, on more lines where its
    # column is narrow (it was "Ace Race (Coloured…" at 1366x768).
    setup = TableSetup(game="ace_race", decks=6, areas=7, seated={"dana": 3, "eli": 5})
    t = make_table(setup, "7H 10S 9C 7D 9D 8S 2C")
    t.window.resize(*size)
    for player, bet, chips in (("dana", "main", [100]), ("dana", "pair", [5, 5]), ("dana", "ace_race", [5, 5]),
                               ("fred", "main", [25, 25]), ("fred", "ace_race", [5])):
        t.bet(player, bet, chips, area=3)
    t.bet("eli", "main", [25], area=5)
    t.bet("eli", "pair", [5], area=5)
    t.press("no_more_bets")
    t.deal(5)
    t.press("stand")
    t.press("stand")
    t.deal(1)
    panel = t.window.settlement
    panel.clauses_button.click()
    t.qtbot.wait(50)  # the fit again once laid out (one paint later)
    table, header = panel.table, panel.table.horizontalHeader()
    pay, wager = COLUMNS.index("Pay / collect"), COLUMNS.index("Wager")
    assert table.rowCount() == 7
    shown = [c for c in range(len(COLUMNS)) if not table.isColumnHidden(c)]
    assert shown == list(range(len(COLUMNS)))  # Result, Rule and Stage shown with the details
    assert sum(header.sectionSize(c) for c in shown) <= table.viewport().width()
    amounts = [table.item(r, pay) for r in range(7)]
    assert sorted(i.text() for i in amounts) == [
        "COLLECT 100", "COLLECT 5", "COLLECT 50", "PAY 110", "PAY 25", "PAY 40", "PAY 80"]
    for item in amounts:
        assert QFontMetrics(item.font()).horizontalAdvance(item.text()) <= header.sectionSize(pay)
    assert header.sectionSize(wager) >= 24
    assert "Ace Race (Coloured Pair)" in {table.item(r, wager).text() for r in range(7)}
    assert all(_whole(table, r, c) for c in shown for r in range(7) if c != wager)
    assert all(_whole(table, r, wager) for r in range(7)), [
        (table.item(r, wager).text(), table.columnWidth(wager), table.rowHeight(r),
         QFontInfo(table.item(r, wager).font()).pixelSize()) for r in range(7)]
    for col in shown:  # every column's words at least 10 px type (LEAST_DETAILS_PX)
        assert all(QFontInfo(table.item(r, col).font()).pixelSize() >= 10 for r in range(7))


@pytest.mark.parametrize("size", [(1280, 800), (1366, 768), (1920, 1080)])
def test_electronic_details_show_every_side_bet_name_whole(make_table: MakeTable, size: tuple[int, int]) -> None:
    # Electronic: two terminals, each with the main bet and the three side bets (3.6). The
    # shared hand 10♥ 9♠ = 19 (deal order Player, Dealer, Player: 3.7), the dealer 7♣; both
    # stand; the dealer's 10♦ makes 17: each main bet wins even money (4.5.2). Opened, the
    # details name every wager whole at every size: "Bet the Set 21", "Royal Match 21" and
    # "Kings Bounty" were elided at 1366x768 ("Royal Matc…").
    setup = TableSetup(game="electronic", decks=6, terminals=["t1", "t2"], decision_seconds=120)
    t = make_table(setup, "10H 7C 9S 10D 2C")
    t.window.resize(*size)
    for terminal, main in (("t1", [100]), ("t2", [25, 25])):
        t.bet(terminal, "main", main)
        for side in ("bet_the_set", "royal_match", "kings_bounty"):
            t.bet(terminal, side, [5])
    t.press("no_more_bets")
    t.deal(3)
    panel = t.window.terminals
    for terminal in ("t1", "t2"):
        t.qtbot.waitUntil(lambda term=terminal: (term, "stand") in panel.buttons, timeout=5000)
        t.qtbot.mouseClick(panel.buttons[(terminal, "stand")], Qt.MouseButton.LeftButton)
        t.settled_writes()
    t.deal(1)
    mains = {(r[0], r[3], r[4]) for r in t.settlement_rows() if r[2] == "Main"}
    assert mains == {("t1", "PAY 100", "4.5.2"), ("t2", "PAY 50", "4.5.2")}
    settlement = t.window.settlement
    settlement.clauses_button.click()
    t.qtbot.wait(50)  # the fit again once laid out (one paint later)
    table, wager = settlement.table, COLUMNS.index("Wager")
    rows = [r for r in range(table.rowCount()) if not table.isRowHidden(r)]
    assert len(rows) == 8
    names = sorted(table.item(r, wager).text() for r in rows)
    assert names == sorted(["Main", "Bet the Set 21", "Royal Match 21", "Kings Bounty"] * 2)
    header = table.horizontalHeader()
    shown = [c for c in range(len(COLUMNS)) if not table.isColumnHidden(c)]
    assert sum(header.sectionSize(c) for c in shown) <= table.viewport().width()
    assert all(_whole(table, r, wager) for r in rows), [
        (table.item(r, wager).text(), table.columnWidth(wager), table.rowHeight(r)) for r in rows]
    # and every other column's words whole on their line (none squeezed to make the room)
    assert all(_whole(table, r, c) for c in shown for r in rows), [
        (table.item(r, c).text(), table.columnWidth(c)) for c in shown for r in rows if not _whole(table, r, c)]


@pytest.mark.slow
@pytest.mark.parametrize("game", ["ace_race", "electronic", "star_elements", "lucky8", "dueling8s"])
def test_the_heaviest_details_show_every_word_whole(qtbot: Any, tmp_path: Path, game: str) -> None:
    # The heaviest round of each game (ui.dealer.heavy_round: seven areas of three players with
    # every side bet, or Electronic's twelve terminals), settled, its details opened: at each
    # table screen's size every cell of the details and of the per-player totals is whole —
    # the wager names wrapped onto more lines where their column is narrow, every amount and
    # name on its line (at 1280x800 twelve terminals' totals were "COLLECT …").
    from ui.common.idle import wait_idle
    from ui.dealer.heavy_round import run

    looked: list[tuple[int, int]] = []
    cut: list[str] = []

    def check(name: str, window: Any) -> None:
        if name != "4_settled":
            return
        panel = window.settlement
        panel.clauses_button.setChecked(True)
        for size in ((1280, 800), (1366, 768), (1920, 1080)):
            window.setGeometry(0, 0, *size)
            wait_idle()  # laid out, then fitted again after the paint
            qtbot.wait(50)
            wait_idle()
            for table in (panel.table, panel.totals):
                rows = [r for r in range(table.rowCount()) if not table.isRowHidden(r)]
                assert rows
                columns = [c for c in range(table.columnCount()) if not table.isColumnHidden(c)]
                assert sum(table.columnWidth(c) for c in columns) <= table.viewport().width()
                cut.extend(f"{size}: {table.item(r, c).text()!r} in {table.columnWidth(c)} px"
                           for r in rows for c in columns if table.item(r, c) is not None
                           and table.item(r, c).text() and not _whole(table, r, c))
            looked.append(size)
        panel.clauses_button.setChecked(False)

    run(game, (1366, 768), tmp_path, check=check)
    assert looked == [(1280, 800), (1366, 768), (1920, 1080)]
    assert cut == []
