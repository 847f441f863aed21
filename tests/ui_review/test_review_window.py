"""The review window, offscreen: filtering the list, stepping through a round, re-decide,
exports parsed back, the PDF, notes to the audit log, integrity, summaries, the command.

Outcomes are worked by hand in tests/ui_review/rounds.py and ../shared/examples/README.md.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from dealer_assist.cli import main as cli_main
from dealer_assist.store import Store
from dealer_assist.store.review_queries import read_settlement_csv
from tests.ui_review.conftest import ANN_PIN, ROOT, SUE_PIN, Recorded
from ui.common.cards import CardFace
from ui.review.app import NoteDialog, ReviewWindow, open_review


def _rows(win: ReviewWindow) -> list[int]:
    return [r.id for r in win.model.rows]


def _cards(widget: QWidget | None) -> list[str]:
    assert widget is not None
    return [face.text for face in widget.findChildren(CardFace)]


def _all_cards(detail: Any) -> list[str]:
    """Cards on the layout now shown (the replaced layout is only deleted later by Qt)."""
    view = detail.layout_view
    return _cards(view.dealer_box) + [c for box in view.area_boxes.values() for c in _cards(box)]


def test_full_screen_replay_follows_the_pane(window: ReviewWindow, recorded: Recorded, qtbot: Any) -> None:
    # The same round as below: its pane scrolls when the round is big; F11 / Full screen shows
    # the replay on a window of its own that covers the screen, at the pane's step, and the two
    # step together. Dealer 5D 10C 9H at the end; 10S alone on area 1 after event 3 (step 4).
    detail = window.detail
    assert window.select_round(recorded.ids["lucky8_ruling"])
    full = detail.open_full_replay()
    assert full is not None and full.isVisible()
    screen = detail.screen()
    assert screen is not None and full.size() == screen.availableGeometry().size()
    assert _cards(full.view.dealer_box) == ["5D", "10C", "9H"]
    assert not full.buttons["next"].isEnabled() and full.step_label.text() == detail.step_label.text()
    qtbot.mouseClick(full.buttons["first"], Qt.MouseButton.LeftButton)
    assert detail.slider.value() == 0 and _cards(full.view.dealer_box) == []
    qtbot.waitUntil(full.isActiveWindow, timeout=2000)  # the keys are the window's shortcuts
    for _ in range(4):
        qtbot.keyClick(full, Qt.Key.Key_Right)
    assert detail.slider.value() == 4
    assert _cards(full.view.area_boxes[1]) == ["10S"] and _cards(detail.layout_view.area_boxes[1]) == ["10S"]
    assert "after event 3" in full.step_label.text()
    qtbot.keyClick(full, Qt.Key.Key_Escape)
    assert not full.isVisible()
    assert _cards(detail.layout_view.area_boxes[1]) == ["10S"]  # the pane stays at that step


def test_list_and_filters(window: ReviewWindow, recorded: Recorded, qtbot: Any) -> None:
    ids = recorded.ids
    assert _rows(window) == sorted(ids.values(), reverse=True)  # newest first
    assert window.model.rowCount() == 7
    # the game filter applies as soon as it is chosen
    window.filters.game.setCurrentIndex(window.filters.game.findData("lucky8"))
    assert set(_rows(window)) == {ids["lucky8_example"], ids["lucky8_ruling"], ids["lucky8_void"]}
    # then the player search, with Enter
    qtbot.keyClicks(window.filters.player, "bo")
    qtbot.keyClick(window.filters.player, Qt.Key.Key_Return)
    assert set(_rows(window)) == {ids["lucky8_example"], ids["lucky8_ruling"]}
    window.filters.irregular.setChecked(True)
    assert _rows(window) == [ids["lucky8_ruling"]]
    qtbot.mouseClick(window.count_button, Qt.MouseButton.LeftButton)
    assert window.status_line.text().startswith("1 rounds match.")
    qtbot.mouseClick(window.filters.clear_button, Qt.MouseButton.LeftButton)
    assert window.model.rowCount() == 7
    window.filters.status.setCurrentIndex(window.filters.status.findData("void"))
    assert _rows(window) == [ids["lucky8_void"]]
    # the row shows the dealer, the status and the irregular flag
    model = window.model
    texts = [model.data(model.index(0, c)) for c in range(model.columnCount())]
    assert texts[2:6] == ["pit3", "Lucky 8", "ben", "void"]
    # the void round's 10 was returned: nothing wagered at risk, nobody won or lost
    assert texts[7:10] == ["0", "alice 0", "0"]
    assert texts[10].endswith("yes")
    window.filters.status.setCurrentIndex(0)
    window.filters.game.setCurrentIndex(window.filters.game.findData("electronic"))
    texts = [model.data(model.index(0, c)) for c in range(model.columnCount())]
    # README: t1 main 10 (push 18 v 18); t2 main 10 split + hand 1 doubled (20 + 10), Bet the Set 5
    # = 45 wagered; t2 +75 +20 +10 = +105; the table -105
    assert texts[7:10] == ["45", "t2 +105, t1 0", "\u2212105"]


def test_bad_filter_input_is_explained(window: ReviewWindow, qtbot: Any) -> None:
    window.filters.since.setText("25/11/2026")
    assert window.apply_filter() is False
    assert "not an ISO 8601 date" in window.status_line.text()
    assert window.model.rowCount() == 7  # the list is left as it was
    window.filters.since.clear()
    window.filters.amount.setText("lots")
    assert window.apply_filter() is False
    assert "'lots' is not a number" in window.status_line.text()


def test_amount_filter_and_sorting(window: ReviewWindow, recorded: Recorded) -> None:
    ids = recorded.ids
    window.filters.amount.setText("100")
    assert window.apply_filter()
    # bob +150 (lucky 8 example) and t2 +105 (electronic)
    assert set(_rows(window)) == {ids["lucky8_example"], ids["electronic_example"]}
    window.filters.amount.clear()
    window.apply_filter()
    window.view.sortByColumn(5, Qt.SortOrder.AscendingOrder)  # Status
    # six settled rounds (oldest first within a status), then the void one
    assert [r.status for r in window.model.rows] == ["settled"] * 6 + ["void"]
    assert _rows(window)[:6] == sorted(i for n, i in ids.items() if n != "lucky8_void")
    window.view.sortByColumn(0, Qt.SortOrder.DescendingOrder)  # Round
    assert _rows(window) == sorted(ids.values(), reverse=True)
    # Game and Players have no index to sort a million rounds by: the order is kept
    for column in (3, 6):
        window.view.sortByColumn(column, Qt.SortOrder.AscendingOrder)
        assert window.model.sort_key == "round"
        assert _rows(window) == sorted(ids.values(), reverse=True)


def test_stepping_through_a_round(window: ReviewWindow, recorded: Recorded, qtbot: Any) -> None:
    detail = window.detail
    assert window.select_round(recorded.ids["lucky8_ruling"])
    assert detail.round_id == recorded.ids["lucky8_ruling"]
    # opens at the end: 12 events, dealer 5D 10C 9H = 24
    assert detail.slider.maximum() == 12 and detail.slider.value() == 12
    assert _cards(detail.layout_view.dealer_box) == ["5D", "10C", "9H"]
    assert not detail.next_button.isEnabled()
    qtbot.mouseClick(detail.first_button, Qt.MouseButton.LeftButton)
    assert detail.slider.value() == 0
    assert _all_cards(detail) == []
    assert "before the first event" in detail.step_label.text()
    for _ in range(4):
        qtbot.mouseClick(detail.next_button, Qt.MouseButton.LeftButton)
    # after event 3: 10S on area 1
    assert _cards(detail.layout_view.area_boxes[1]) == ["10S"]
    qtbot.mouseClick(detail.next_button, Qt.MouseButton.LeftButton)
    # after event 4: 9C put on area 1, reconstructed to area 3 (lucky-8 5.13)
    assert _cards(detail.layout_view.area_boxes[1]) == ["10S"]
    assert _cards(detail.layout_view.area_boxes[3]) == ["9C"]
    step = detail.current_step()
    assert step is not None and [r["rule"] for r in step.output["rulings"]] == ["5.13"]
    assert "card 9C \u2192 placed at area:1" in detail.step_label.text()
    # the ruling is shown at the step that caused it (its wording is the engine's)
    ruling_line = detail.step_label.text().split("\n")[1]
    assert ruling_line.startswith("\u26a0 RULING 5.13: ") and "9C" in ruling_line
    qtbot.mouseClick(detail.prev_button, Qt.MouseButton.LeftButton)
    assert _cards(detail.layout_view.area_boxes[3]) == []
    # clicking an event in the list jumps there: event 7 (10D) = step 8
    detail.events_table.cellClicked.emit(7, 0)
    assert detail.slider.value() == 8
    assert _cards(detail.layout_view.area_boxes[3]) == ["9C", "10D"]
    # the shoe order of the cards: 10S #1, 9C #2, 5D #3, 8H #4, 10D #5, 10C #6, 9H #7
    shoe = [detail.events_table.item(r, 4).text() for r in range(detail.events_table.rowCount())]
    assert shoe == ["", "", "", "#1", "#2", "#3", "#4", "#5", "", "", "#6", "#7"]
    # the recorded ruling with its card moves
    assert detail.rulings_table.item(0, 1).text() == "5.13"
    assert detail.rulings_table.item(0, 3).text() == "9C area:1/1\u2192area:3/1"


def test_electronic_round_replays(window: ReviewWindow, recorded: Recorded) -> None:
    window.open_round(recorded.ids["electronic_example"])
    detail = window.detail
    assert detail.current_step() is not None
    settlements = {(detail.settlements_table.item(r, 0).text(), detail.settlements_table.item(r, 3).text(),
                    detail.settlements_table.item(r, 6).text())
                   for r in range(detail.settlements_table.rowCount())}
    # README: Bet the Set 15:1 on 5 = +75 for t2
    assert ("t2", "Bet the Set 21", "+75") in settlements


def test_settlements_tab_shows_clauses(window: ReviewWindow, recorded: Recorded) -> None:
    window.open_round(recorded.ids["ace_race"])
    table = window.detail.settlements_table
    rows = [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]
    # Blackjack 6 to 5 on 25 = +30 (4.1, 4.3.1); A-K no pair: -5 (3.15.1)
    assert rows == [
        ["alice", "1", "1", "Main", "25", "win", "+30", "4.3.1", "interim", ""],
        ["alice", "1", "", "Pair", "5", "lose", "\u22125", "3.15.1", "interim", ""],
    ]


def test_redecide_honest_round(window: ReviewWindow, recorded: Recorded, qtbot: Any) -> None:
    window.open_round(recorded.ids["lucky8_example"])
    qtbot.mouseClick(window.detail.redecide_button, Qt.MouseButton.LeftButton)
    assert window.detail.redecision is not None and window.detail.redecision.same
    # 4 wagers: alice pair + main, bob lucky8 + main
    assert "No difference" in window.detail.redecide_result.text()
    assert "all 4 wagers" in window.detail.redecide_result.text()
    assert window.detail.diff_table.rowCount() == 0


def test_redecide_altered_round(recorded: Recorded, qtbot: Any) -> None:
    conn = sqlite3.connect(recorded.path)
    with conn:
        # bob's doubled main (100, won +100) recorded as a loss
        conn.execute("UPDATE settlements SET result = 'lose', net = '-100' WHERE round_id = ? "
                     "AND player = 'bob' AND bet = 'main'", (recorded.ids["lucky8_example"],))
    conn.close()
    win = ReviewWindow(recorded.path)
    qtbot.addWidget(win)
    win.open_round(recorded.ids["lucky8_example"])
    qtbot.mouseClick(win.detail.redecide_button, Qt.MouseButton.LeftButton)
    assert "1 difference" in win.detail.redecide_result.text()
    row = [win.detail.diff_table.item(0, c).text() for c in range(4)]
    # 11 doubled to 20 against 18 wins 1 to 1 on 100 (lucky-8 4.3.2)
    assert row == ["settlement", "bob area 3 hand 1 main", "stake 100 lose net -100 (4.3.2)",
                   "stake 100 win net 100 (4.3.2)"]
    assert "ALTERED" in win.detail.integrity_banner.text()
    assert "settlement rows" in win.detail.integrity_banner.text()


def test_exports_parse_back(window: ReviewWindow, recorded: Recorded, tmp_path: Path, qtbot: Any) -> None:
    detail = window.detail
    window.open_round(recorded.ids["dueling8s_example"])
    detail.save_path = lambda _kind, suggested, _pattern: str(tmp_path / suggested)
    qtbot.mouseClick(detail.export_json_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(detail.export_csv_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(detail.export_pdf_button, Qt.MouseButton.LeftButton)
    rid = recorded.ids["dueling8s_example"]
    transcript = tmp_path / f"round-{rid}.json"
    # the exported transcript settles, with the real command, to what was recorded
    settled = subprocess.run([sys.executable, "-m", "dealer_assist", "settle", str(transcript)],
                             capture_output=True, text=True, cwd=ROOT, check=True)
    output = json.loads(settled.stdout)
    with Store.open_readonly(recorded.path) as store:
        recorded_detail = store.get_round(rid)
    assert recorded_detail is not None
    assert output["net"] == {"alice": 75}  # README: +15 superb 8's, +40, +20
    assert output["settlements"] == recorded_detail.result["settlements"]  # type: ignore[index]
    rows = read_settlement_csv((tmp_path / f"round-{rid}-settlements.csv").read_text(encoding="utf-8"))
    assert [(r["player"], r["hand"], r["bet"], r["stake"], r["result"], r["net"]) for r in rows] == [
        ("alice", "", "superb8", "5", "win", "15"),  # two 8s 3 to 1 (4.2.2)
        ("alice", "1", "main", "40", "win", "40"),  # 20 doubled to 40: 21 v dealer bust
        ("alice", "2", "main", "20", "win", "20"),  # 16 v dealer bust
    ]
    assert [Decimal(r["net"]) for r in rows] == [Decimal(x["net"]) for x in recorded_detail.settlements]
    pdf = (tmp_path / f"round-{rid}.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and len(pdf) > 2000
    assert b"/Subtype /Image" in pdf  # the picture of the layout
    assert f"round-{rid}.pdf" in detail.export_status.text()


def test_pdf_of_a_long_round_stays_one_page(window: ReviewWindow, recorded: Recorded, tmp_path: Path) -> None:
    window.open_round(recorded.ids["lucky8_ruling"])
    path = tmp_path / "r.pdf"
    window.detail.export_to("pdf", str(path))
    data = path.read_bytes()
    assert data.startswith(b"%PDF")
    # exactly one page object (the page tree is "/Type /Pages")
    assert len(re.findall(rb"/Type\s*/Page(?!s)", data)) == 1


def test_note_goes_to_the_audit_log(window: ReviewWindow, recorded: Recorded, review_service: Path,
                                    qtbot: Any) -> None:
    from ui.review.from_service import note_through_service

    window.notes = note_through_service(review_service)  # the store's service writes it (op add_note)
    rid = recorded.ids["ace_race"]
    window.open_round(rid)
    dialog = window.add_note(rid)
    assert isinstance(dialog, NoteDialog)
    dialog.name.setText("sue")
    dialog.pin.setText("0000")
    dialog.text.setPlainText("player says she doubled")
    assert dialog.submit() is False
    assert "not accepted" in dialog.message.text()
    dialog.pin.setText(SUE_PIN)
    assert dialog.submit() is True
    with Store.open_readonly(recorded.path) as store:
        notes = store.audit_entries(round_id=rid, kind="note")
        assert store.verify().ok
    assert [(n.actor, n.detail) for n in notes] == [("supervisor:sue", {"text": "player says she doubled"})]
    people = window.detail.people_table
    texts = [people.item(r, 3).text() for r in range(people.rowCount())]
    assert "player says she doubled" in texts
    # a dealer's PIN is not a supervisor's
    dealer_try = window.add_note(rid)
    dealer_try.name.setText("ann")
    dealer_try.pin.setText(ANN_PIN)
    dealer_try.text.setPlainText("x")
    assert dealer_try.submit() is False


def test_file_integrity(window: ReviewWindow, recorded: Recorded, qtbot: Any) -> None:
    # the button checks in a thread, on its own connection; the window stays usable meanwhile
    with qtbot.waitSignal(window.verification_done):
        qtbot.mouseClick(window.integrity_button, Qt.MouseButton.LeftButton)
    # 7 rounds, 73 events (examples 14 + 12 + 16, ace race 6, 5.13 round 12, void round 5,
    # star elements 8)
    qtbot.waitUntil(lambda: window.integrity_button.isEnabled())
    assert window.integrity_label.text().startswith("File INTACT: 73 events, 7 rounds")
    conn = sqlite3.connect(recorded.path)
    with conn:
        conn.execute("UPDATE events SET actor = 'dealer:eve' WHERE round_id = ? AND seq = 2",
                     (recorded.ids["lucky8_ruling"],))
    conn.close()
    assert window.verify_file() is False
    assert "File ALTERED" in window.integrity_label.text()
    assert "seq 2" in window.integrity_label.text()
    window.open_round(recorded.ids["lucky8_ruling"])
    assert "ALTERED" in window.detail.integrity_banner.text()
    assert "event 2" in window.detail.integrity_banner.text()


def test_summaries_tab(window: ReviewWindow, recorded: Recorded) -> None:
    window.tabs.setCurrentWidget(window.summary)
    view = window.summary
    assert view.loaded
    labels = [view.list.item(r, 0).text() for r in range(view.list.rowCount())]
    assert labels == [f"session {recorded.sessions['ben']}", f"session {recorded.sessions['ann']}", "transcripts"]
    view.list.selectRow(1)  # ann's Ace Race session
    view.show_summary(1)
    bets = [[view.bets.item(r, c).text() for c in range(5)] for r in range(view.bets.rowCount())]
    # main 25 won 6 to 5: table -30, hold -120 %; pair 5 lost: +5, 100 %; all: -25 on 30 = -83.33 %
    assert bets == [["Main", "1", "25", "\u221230", "\u2212120.00%"],
                    ["Pair", "1", "5", "+5", "100.00%"],
                    ["All bets", "2", "30", "\u221225", "\u221283.33%"]]
    assert [(b.bet, b.house_net) for b in view.chart.lines] == [("main", Decimal(-30)), ("pair", Decimal(5))]
    view.by.setCurrentIndex(view.by.findData("dealer"))
    assert [view.list.item(r, 0).text() for r in range(view.list.rowCount())] == ["ann", "ben", "transcripts"]


def test_open_review_for_the_dealer_screen(recorded: Recorded, qtbot: Any) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    win = open_review(recorded.path, parent, supervisor="sue")
    assert isinstance(win, ReviewWindow)
    assert win.isWindow() and win.parent() is parent
    assert win.model.rowCount() == 7
    dialog = win.add_note(recorded.ids["ace_race"])
    assert dialog.name.text() == "sue"
    # no service behind this window: the note is not taken, and nothing is written
    dialog.pin.setText(SUE_PIN)
    dialog.text.setPlainText("paid right")
    assert dialog.submit() is False and dialog.message.text().startswith("Not recorded: notes are written by")
    with Store.open_readonly(recorded.path) as store:
        assert store.audit_entries(kind="note") == []
    dialog.reject()


def test_review_command_errors(tmp_path: Path, capsys: Any) -> None:
    assert cli_main(["review", "--db", str(tmp_path / "missing.db")]) == 2
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'missing.db'}: no such file"
    not_db = tmp_path / "notes.txt"
    not_db.write_text("hello", encoding="utf-8")
    assert cli_main(["review", "--db", str(not_db)]) == 2
    assert "is not a SQLite database" in capsys.readouterr().err


def test_review_command_screenshot(recorded: Recorded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # --screenshot shows the store without a PIN: a development run's option only
    shot = tmp_path / "shot.png"
    assert cli_main(["review", "--db", str(recorded.path), "--screenshot", str(shot)]) == 2
    assert not shot.exists()
    monkeypatch.setenv("DEALER_ASSIST_DEV", "1")
    assert cli_main(["review", "--db", str(recorded.path), "--round", str(recorded.ids["ace_race"]),
                     "--screenshot", str(shot)]) == 0
    assert shot.read_bytes().startswith(b"\x89PNG")


def test_file_check_finds_altered_settlement_rows(window: ReviewWindow, recorded: Recorded) -> None:
    """The chains do not cover the derived settlement rows; the file check re-settles the round
    from its chained events and compares them."""
    conn = sqlite3.connect(recorded.path)
    with conn:
        conn.execute("UPDATE settlements SET net = '-10' WHERE round_id = ? AND bet = 'bet_the_set'",
                     (recorded.ids["electronic_example"],))
    conn.close()
    assert window.verify_file() is False
    assert window.integrity_label.text() == (
        f"File ALTERED: round {recorded.ids['electronic_example']}: its settlement rows differ from the "
        "re-settlement of its events")


def test_the_table_keeps_writing_while_the_review_reads(window: ReviewWindow, recorded: Recorded,
                                                        qtbot: Any) -> None:
    """The review holds its own read-only connection: the table's writer is not blocked, and
    the new round appears when the list is filtered again."""
    from dealer_assist.engine.transcript import settle_document
    from tests.ui_review.rounds import STAR_ELEMENTS

    window.open_round(recorded.ids["lucky8_ruling"])  # reading while the table writes
    with Store.open(recorded.path) as table:
        sid = table.start_session(game="star_elements", decks=6, areas=7, dealer="cho")
        rid = table.begin_round({k: v for k, v in STAR_ELEMENTS.items() if k != "events"}, session_id=sid)
        for event in STAR_ELEMENTS["events"]:
            table.append_event(rid, event, actor="dealer:cho")
        table.finish_round(rid, settle_document(STAR_ELEMENTS), actor="dealer:cho")
    assert rid not in _rows(window)
    qtbot.mouseClick(window.filters.apply_button, Qt.MouseButton.LeftButton)
    assert _rows(window)[0] == rid
    model = window.model
    # dealer cho; bob's 50 won 1 to 1 (star-elements 4.4.3): table -50
    assert [model.data(model.index(0, c)) for c in (4, 5, 9)] == ["cho", "settled", "\u221250"]


def test_pay_table_row_shown(window: ReviewWindow, recorded: Recorded) -> None:
    window.open_round(recorded.ids["dueling8s_example"])
    table = window.detail.settlements_table
    superb = [r for r in range(table.rowCount()) if table.item(r, 3).text() == "Superb 8's"]
    # README: the permanent 8S + 8C are "Two 8's" (1.1.15.1), paid 3 to 1 (4.2): 5 * 3 = +15
    assert [(table.item(r, 6).text(), table.item(r, 9).text()) for r in superb] == [("+15", "Two 8's")]


def test_a_round_still_in_play(recorded: Recorded, qtbot: Any) -> None:
    """A live round the table is still dealing: listed as in progress, replayed to where it is."""
    from tests.ui_review.rounds import LUCKY8_RULING

    with Store.open(recorded.path) as table:
        sid = table.start_session(game="lucky8", decks=6, areas=7, dealer="dee")
        rid = table.begin_round({k: v for k, v in LUCKY8_RULING.items() if k != "events"}, session_id=sid)
        for event in LUCKY8_RULING["events"][:4]:  # two wagers, no more bets, 10S to area 1
            table.append_event(rid, event, actor="dealer:dee")
        win = ReviewWindow(recorded.path)
        qtbot.addWidget(win)
        win.filters.status.setCurrentIndex(win.filters.status.findData("in_progress"))
        assert _rows(win) == [rid]
        win.open_round(rid)
        detail = win.detail
        assert detail.slider.maximum() == 4
        assert _cards(detail.layout_view.area_boxes[1]) == ["10S"]
        # the next card of the initial deal goes to bob's area 3 (lucky-8 3.18: from the dealer's left)
        assert "next card to area:3/1" in detail.step_label.text()
        checks = {c.name: c for c in detail.integrity}
        assert checks["finish record"].ok and checks["finish record"].detail == "round not finished yet"
        result = detail.run_redecide()
        assert result is not None and result.same
        assert "all 0 wagers" in detail.redecide_result.text()


def test_export_to_an_unwritable_place_is_explained(window: ReviewWindow, recorded: Recorded,
                                                    tmp_path: Path, qtbot: Any) -> None:
    window.open_round(recorded.ids["ace_race"])
    detail = window.detail
    detail.save_path = lambda _kind, suggested, _pattern: str(tmp_path / "no such folder" / suggested)
    qtbot.mouseClick(detail.export_csv_button, Qt.MouseButton.LeftButton)
    assert detail.export_status.text().startswith("Could not export: ")
    assert "No such file or directory" in detail.export_status.text()
    detail.save_path = lambda _kind, _suggested, _pattern: None  # the supervisor cancelled
    qtbot.mouseClick(detail.export_json_button, Qt.MouseButton.LeftButton)
    assert detail.export_status.text().startswith("Could not export: ")  # unchanged
    assert not list(tmp_path.rglob("round-*"))  # nothing was written anywhere


def test_a_round_the_current_rules_cannot_set_up(recorded: Recorded, qtbot: Any) -> None:
    """A recorded header with 9 decks of Lucky 8 (1 to 8 allowed, lucky-8 2.1): the round still
    opens; the replay and re-decide say why they cannot run."""
    document = {"game": "lucky8", "decks": 9, "areas": 7, "events": []}
    result = {"game": "lucky8", "status": "void", "settlements": [], "net": {}, "rulings": []}
    with Store.open(recorded.path) as store:
        rid = store.record_document(document, result)
    win = ReviewWindow(recorded.path)
    qtbot.addWidget(win)
    win.open_round(rid)
    assert win.detail.step_label.text().startswith("Cannot replay: ")
    assert "1 to 8 decks, not 9" in win.detail.step_label.text()
    assert win.detail.step_label.text().endswith("(2.1)")
    assert not win.detail.next_button.isEnabled()
    redecision = win.detail.run_redecide()
    assert redecision is not None and redecision.error is not None and redecision.error.endswith("(2.1)")


def test_summaries_from_a_date(window: ReviewWindow, recorded: Recorded) -> None:
    window.tabs.setCurrentWidget(window.summary)
    view = window.summary
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%d")
    view.since.setText(tomorrow)
    assert view.refresh()
    # nothing started from tomorrow on: ben's session, still open, is listed with no rounds
    assert [(s.label, s.rounds) for s in view.items] == [(f"session {recorded.sessions['ben']}", 0)]
    view.since.setText("last week")
    assert view.refresh() is False
    assert "not an ISO 8601 date" in view.message.text()
    view.since.clear()  # every round
    assert view.refresh()
    assert sum(s.rounds for s in view.items) == 7


def test_a_copy_without_its_station_key_says_not_checked(recorded: Recorded, qtbot: Any) -> None:
    """A station's copy reviewed without the key its service keeps: the banner and the report
    say the chains were not checked here (amber), never ALTERED."""
    from ui.review.app import ReviewWindow
    from ui.review.export import report_sections

    recorded.path.with_name(recorded.path.name + ".key").unlink()
    win = ReviewWindow(recorded.path)
    qtbot.addWidget(win)
    win.open_round(recorded.ids["ace_race"])
    banner = win.detail.integrity_banner.text()
    assert banner.startswith("Integrity: NOT CHECKED here") and "ALTERED" not in banner, banner
    assert win.detail.integrity_table.item(0, 1).text() == "not checked"
    head = report_sections(win.detail.detail, "BJ-07", None, win.detail.integrity, [])[0][1]
    assert any(line.startswith("Integrity: NOT CHECKED here") for line in head), head


def _terminal_lines(view: Any) -> dict[str, list[str]]:
    """Each terminal box's lines on a replay's layout (Electronic), by its player."""
    from PySide6.QtWidgets import QLabel

    from ui.common.terminals_panel import TerminalBox

    return {box.name: [lab.text() for lab in box.findChildren(QLabel) if lab.isVisibleTo(view)]
            for box in view.findChildren(TerminalBox) if box.isVisibleTo(view)}


def test_electronic_replay_shows_every_terminal(window: ReviewWindow, recorded: Recorded, qtbot: Any) -> None:
    # issue 34: the replay showed only the dealer's and the shared hand. The example's two
    # terminals (../shared/examples/README.md): t1 main 10 stands on the shared 9♠ 9♠ = 18
    # against the dealer's 18: a push, returned (net 0); t2 main 10 and Bet the Set 5 splits,
    # hand 1 9♠ 2♦ doubled, 10♣ = 21 wins 20, hand 2 9♠ 7♥ hit 5♣ = 21 wins 10, the suited
    # pair pays Bet the Set 15 to 1 = 75: t2 +105, paid.
    window.open_round(recorded.ids["electronic_example"])
    detail = window.detail
    detail.tabs.setCurrentWidget(detail.replay_page)
    qtbot.waitUntil(lambda: set(_terminal_lines(detail.layout_view)) == {"t1", "t2"}, timeout=3000)
    lines = _terminal_lines(detail.layout_view)
    assert lines["t1"][0] == "T1  10" and "RETURN / even" in lines["t1"]
    assert lines["t2"][0] == "T2  10" and "BtS 5" in lines["t2"] and "PAY 105" in lines["t2"]
    hands = [line for line in lines["t2"] if line.startswith("H")]
    assert hands == ["H1 9\u2660 2\u2666 10\u2663 = 21  DOUBLED  +20", "H2 9\u2660 7\u2665 5\u2663 = 21  +10"]
    # the full-screen replay too, and at the first step no terminal holds a wager yet
    full = detail.open_full_replay()
    assert full is not None
    qtbot.waitUntil(lambda: set(_terminal_lines(full.view)) == {"t1", "t2"}, timeout=3000)
    assert _terminal_lines(full.view)["t2"] == lines["t2"]
    detail.slider.setValue(1)  # after t1's wager of 10: its box, no hand yet, no result
    qtbot.waitUntil(lambda: _terminal_lines(full.view).get("t1") == ["T1  10"], timeout=3000)
    full.close()
