"""The store review's tools on the floor: amount filters, sorting (keyset pages), supervisors'
notes and disputes (the review role's only write, enforced by the server), re-decide and the
exports (transcript, settlement CSV, one-page PDF) of a floor round.

Every station here records the seven documents of tests/floor/stations.py in order (round ids
1-7); their nets, worked by hand (stations.py and ../shared/examples/README.md):
1 Ace Race alice +25; 2 Lucky 8 ruling alice +20 bob +40; 3 void; 4 Star Elements bob +50;
5 Lucky 8 pair and double alice +30 bob +150; 6 Dueling 8's alice +75; 7 Electronic t1 0 t2 +105.
The house's net of a round is minus the players' nets: -25, -60, 0, -50, -180, -75, -105.
"""

from __future__ import annotations

import json
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import psycopg  # noqa: E402
import pytest  # noqa: E402

from dealer_assist.floor.connection import FloorError  # noqa: E402
from dealer_assist.floor.reader import FloorReader, sort_key  # noqa: E402
from tests.floor.conftest import Floor  # noqa: E402
from tests.floor.helpers import cli, query  # noqa: E402
from tests.floor.stations import DOCUMENTS, make_station  # noqa: E402


@pytest.fixture
def two_tables(floor: Floor, tmp_path: Path) -> Floor:
    for table, dealer in (("BJ-07", "ann"), ("BJ-08", "ben")):
        url = floor.station(table, "PIT-2")
        db = tmp_path / f"{table}.db"
        make_station(db, table, "PIT-2", rounds=len(DOCUMENTS), dealer=dealer)
        assert cli("forward", "--db", str(db), "--to", url).returncode == 0
    return floor


def test_amount_filters_find_the_rounds_worked_by_hand(two_tables: Floor) -> None:
    with FloorReader(two_tables.review_url) as reader:
        # some player won or lost at least 75: rounds 5 (bob 150), 6 (alice 75), 7 (t2 105)
        big = reader.list_rounds(table="BJ-07", min_net=Decimal(75), limit=None)
        assert sorted(r.id for r in big) == [5, 6, 7]
        # at least 45: round 4 (bob 50) joins; round 2 (40 at most) does not
        assert sorted(r.id for r in reader.list_rounds(table="BJ-07", min_net=Decimal(45))) == [4, 5, 6, 7]
        # across the pit: the same rounds at both tables
        assert sorted((r.table, r.id) for r in reader.list_rounds(pit="PIT-2", min_net=Decimal(75))) == [
            ("BJ-07", 5), ("BJ-07", 6), ("BJ-07", 7), ("BJ-08", 5), ("BJ-08", 6), ("BJ-08", 7)]
        # Ace Race wagered 30 (main 25 + pair 5): in at 30, out at 30.01
        assert 1 in {r.id for r in reader.list_rounds(table="BJ-07", min_wagered=Decimal(30))}
        assert 1 not in {r.id for r in reader.list_rounds(table="BJ-07", min_wagered=Decimal("30.01"))}


def test_sorting_by_the_house_net_pages_by_keyset(two_tables: Floor) -> None:
    with FloorReader(two_tables.review_url) as reader:
        pages: list[list[int]] = []
        before = None
        while True:
            page = reader.list_rounds(table="BJ-07", sort="house", ascending=True, limit=3, before=before)
            if not page:
                break
            pages.append([r.id for r in page])
            before = sort_key(page[-1], "house")
        # house net ascending: -180 (5), -105 (7), -75 (6), -60 (2), -50 (4), -25 (1), 0 (3)
        assert pages == [[5, 7, 6], [2, 4, 1], [3]]
        down = reader.list_rounds(table="BJ-07", sort="house", limit=None)
        assert [r.id for r in down] == [3, 1, 4, 2, 6, 7, 5]
        assert [r.house_net for r in down] == [Decimal(x) for x in (0, -25, -50, -60, -75, -105, -180)]
        with pytest.raises(FloorError, match="unknown sort"):
            reader.list_rounds(sort="players")


def test_notes_and_disputes_are_the_review_roles_only_write(two_tables: Floor) -> None:
    with FloorReader(two_tables.review_url) as reader:
        reader.add_note("BJ-07", 5, "sue", "bob's double checked on camera")
        reader.add_note("BJ-07", 5, "sue", "bob says the pair was suited", dispute=True)
        notes = reader.notes("BJ-07", 5)
        assert [(n.kind, n.supervisor, n.text) for n in notes] == [
            ("note", "sue", "bob's double checked on camera"), ("dispute", "sue", "bob says the pair was suited")]
        review_role = two_tables.review_url.split("://")[1].split("@")[0]
        assert {n.db_role for n in notes} == {review_role}  # set by the server, not the client
        listed = {r.id: r.notes for r in reader.list_rounds(table="BJ-07")}
        assert listed[5] == 2 and listed[1] == 0
        assert [(r.table, r.id) for r in reader.list_rounds(pit="PIT-2", disputed=True)] == [("BJ-07", 5)]
        with pytest.raises(FloorError, match="needs its text"):
            reader.add_note("BJ-07", 5, "sue", "   ")
        # a note must name a round on the floor (the server's row-level security check)
        with pytest.raises(FloorError, match="row-level security"):
            reader.add_note("BJ-07", 99, "sue", "no such round")
    # the server refuses the review role anything else on the notes, and any other table
    with psycopg.connect(two_tables.review_url) as conn:
        for statement in ("UPDATE floor.notes SET text = 'changed'", "DELETE FROM floor.notes",
                          "INSERT INTO floor.notes (table_name, round_id, kind, supervisor, text, db_role) "
                          "VALUES ('BJ-07', 5, 'note', 'sue', 'forged', 'someone_else')",
                          "UPDATE floor.rounds SET house_net = 0", "DELETE FROM floor.alarms"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()
    # and a station may not write notes at all
    station = two_tables.station("BJ-07", "PIT-2")
    with psycopg.connect(station) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("INSERT INTO floor.notes (table_name, round_id, kind, supervisor, text) "
                     "VALUES ('BJ-07', 5, 'note', 'x', 'y')")
    assert query(two_tables.admin_url, "SELECT count(*) FROM floor.notes")[0][0] == 2


def _rows(widget: Any, column: int) -> list[str]:
    return [widget.item(r, column).text() for r in range(widget.rowCount())]


@pytest.mark.gui
def test_the_floor_round_dialog_has_the_store_reviews_tools(two_tables: Floor, qtbot: Any, tmp_path: Path) -> None:
    from dealer_assist.engine.transcript import settle_document
    from dealer_assist.store.review_queries import read_settlement_csv
    from ui.review.pit_view import PitWindow

    window = PitWindow(two_tables.review_url)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.pending == 0 and bool(window.states), timeout=20000)
    # the amount filter in the window; a wrong amount is named and the list stays as it was
    window.min_net.setText("75")
    window.refresh()
    qtbot.waitUntil(lambda: window.pending == 0, timeout=20000)
    assert sorted((r.table, r.id) for r in window.rounds_shown) == [
        ("BJ-07", 5), ("BJ-07", 6), ("BJ-07", 7), ("BJ-08", 5), ("BJ-08", 6), ("BJ-08", 7)]
    window.min_net.setText("seventy")
    window.refresh()
    assert "'seventy' is not an amount" in window.status.text() and len(window.rounds_shown) == 6
    window.min_net.setText("")
    # a click on the house column sorts by it in the database: the highest house net first
    window.sort_by_column(8)
    qtbot.waitUntil(lambda: window.pending == 0 and window.sort == "house", timeout=20000)
    assert [r.house_net for r in window.rounds_shown][:2] == [Decimal(0), Decimal(0)]  # the two voids
    window.sort_by_column(8)  # again: the other way round
    qtbot.waitUntil(lambda: window.pending == 0 and window.ascending, timeout=20000)
    assert [r.house_net for r in window.rounds_shown][:2] == [Decimal(-180), Decimal(-180)]
    opened: list[Any] = []
    window.open_round("BJ-07", 5, opened.append)
    qtbot.waitUntil(lambda: bool(opened), timeout=20000)
    dialog = opened[0]
    qtbot.addWidget(dialog)
    assert dialog.verdict.text() == "re-decided by the current rules: no difference"
    assert dialog.differences.rowCount() == 0
    assert _rows(dialog.versions, 0) == ["first copy"]  # never finished again
    # a dispute written from the dialog, through the window's worker
    dialog.note_kind.setCurrentText("dispute")
    dialog.note_author.setText("sue")
    dialog.note_text.setText("bob disputes the double")
    dialog.submit_note()
    qtbot.waitUntil(lambda: dialog.notes.rowCount() == 1, timeout=20000)
    assert _rows(dialog.notes, 1) == ["dispute"] and _rows(dialog.notes, 3) == ["bob disputes the double"]
    # exports: the transcript settles to the recorded nets; the CSV has the settlement rows; a PDF
    dialog.export_to("json", str(tmp_path / "r5.json"))
    output = settle_document(json.loads((tmp_path / "r5.json").read_text()))
    assert {p: Decimal(str(v)) for p, v in output["net"].items()} == {"alice": Decimal(30), "bob": Decimal(150)}
    dialog.export_to("csv", str(tmp_path / "r5.csv"))
    rows = read_settlement_csv((tmp_path / "r5.csv").read_text())
    assert sum(Decimal(r["net"]) for r in rows if r["player"] == "bob") == Decimal(150)
    assert sum(Decimal(r["net"]) for r in rows if r["player"] == "alice") == Decimal(30)
    dialog.export_to("pdf", str(tmp_path / "r5.pdf"))
    assert (tmp_path / "r5.pdf").read_bytes()[:5] == b"%PDF-"
    assert any(title == "Notes and disputes" for title, _ in dialog.report_sections())
    window.close()
