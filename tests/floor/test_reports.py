"""Shift, day and player reports as CSV and PDF (issue 35, Build 5) on a real server.

Gaming day 2026-11-26 (dollars); signers ann 1111, ben 2222, sue 3333, cal 4444.
Shift "day" (BJ-07 as in test_accounting):
  BJ-07 (PIT-2) opener 1000x4 + 100x100 + 25x200 + 5x200 = 20,000; fills 100x40 + 25x40 = 5,000 and
        25x80 + 5x100 = 2,500 (7,500); credit 1000x4 = 4,000; drop cash 12,000 + markers 3,000 = 15,000;
        closer 100x90 + 25x80 + 5x40 = 11,200
        win = 15,000 + 11,200 - 20,000 + 4,000 - 7,500 = 2,700; hold 2,700 / 15,000 = 18.00 %
        after the closer a fill 100x40 = 4,000: after close -4,000 (1), win with it 2,700 - 4,000 = -1,300
        3 Ace Race rounds (alice main 25, pair 5; the house -25 each): rounds 3, net -75; theo with
        1 % on the main and 10 % on the pair: 3 x (25 x 0.01 + 5 x 0.10) = 2.25
  BJ-08 (PIT-2) opener 100x100 = 10,000; drop cash 4,000; closer 100x71 = 7,100
        win = 4,000 + 7,100 - 10,000 = 1,100; hold 27.50 %
  BJ-11 (PIT-3) opener 100x50 = 5,000; credit 100x10 = 1,000; drop cash 2,500; closer 100x30 = 3,000
        win = 2,500 + 3,000 - 5,000 + 1,000 = 1,500; hold 1,500 / 2,500 = 60.00 %
  PIT-2: opener 30,000, closer 18,300, fills 7,500, credits 4,000, drop 19,000 (cash 16,000, markers
        3,000), win 3,800, hold 20.00 %; after close -4,000
  floor: drop 21,500, win 5,300, hold 5,300 / 21,500 = 24.6511... = 24.65 %
Shift "swing": BJ-08 opener 100x71 = 7,100; fill 100x20 = 2,000; drop cash 3,000 + markers 500 = 3,500;
        closer 100x80 = 8,000: win = 3,500 + 8,000 - 7,100 - 2,000 = 2,400; hold 2,400 / 3,500 = 68.57 %
The day's totals: BJ-07 win 2,700 / drop 15,000; BJ-08 1,100 + 2,400 = 3,500 / 4,000 + 3,500 = 7,500
  (46.67 %); BJ-11 1,500 / 2,500; PIT-2 6,200 / 22,500 = 27.555... = 27.56 %; PIT-3 1,500 / 2,500;
  floor 7,700 / 25,000 = 30.80 %.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from dealer_assist.floor.accounting import parse_chips, record_buy_in, record_chips, record_drop
from dealer_assist.floor.alerts import par_figures
from dealer_assist.floor.connection import FloorError
from dealer_assist.floor.forward import Forwarder
from dealer_assist.floor.reports import (
    day_document,
    rating_document,
    report_csv,
    report_pdf,
    shift_document,
    write_files,
)
from tests.floor.conftest import Floor
from tests.floor.helpers import cli
from tests.floor.stations import DOCUMENTS, open_station, result_of
from tests.floor.test_accounting import PINS, signers
from tests.floor.test_alerts import figures

DAY = dt.date(2026, 11, 26)


def _chips(conn: psycopg.Connection[object], table: str, kind: str, chips: str, shift: str = "day",
           dealer: str = "ann", supervisor: str = "sue") -> None:
    record_chips(conn, table, DAY, shift, kind, parse_chips(chips), dealer, PINS[dealer], supervisor,
                 PINS[supervisor])


def _drop(conn: psycopg.Connection[object], table: str, cash: str, markers: str = "0", shift: str = "day") -> None:
    record_drop(conn, table, DAY, shift, Decimal(cash), Decimal(markers), "cal", PINS["cal"], "sue", PINS["sue"])


def _a_day(floor: Floor, tmp_path: Path) -> None:
    """The module docstring's day, recorded as the pit's review role."""
    url = floor.station("BJ-07", "PIT-2")
    floor.station("BJ-08", "PIT-2")
    floor.station("BJ-11", "PIT-3")
    signers(floor)
    with psycopg.connect(floor.review_url) as conn:
        _chips(conn, "BJ-07", "opener", "1000x4,100x100,25x200,5x200")
        _chips(conn, "BJ-08", "opener", "100x100", dealer="ben")
        _chips(conn, "BJ-11", "opener", "100x50", dealer="ben")
        db = tmp_path / "bj07.db"
        document = DOCUMENTS[0]
        with open_station(db) as store:
            store.claim_table("BJ-07", "PIT-2")
            for _ in range(3):
                store.start_round({k: v for k, v in document.items() if k != "events"}, document["events"],
                                  result=result_of(0))
        with Forwarder(db, url) as forwarder:
            assert forwarder.forward().rounds == 3
        _chips(conn, "BJ-07", "fill", "100x40,25x40")
        _chips(conn, "BJ-07", "fill", "25x80,5x100")
        _chips(conn, "BJ-07", "credit", "1000x4")
        _chips(conn, "BJ-11", "credit", "100x10", dealer="ben")
        _drop(conn, "BJ-07", "12000", "3000")
        _drop(conn, "BJ-08", "4000")
        _drop(conn, "BJ-11", "2500")
        _chips(conn, "BJ-07", "closer", "100x90,25x80,5x40")
        _chips(conn, "BJ-08", "closer", "100x71", dealer="ben")
        _chips(conn, "BJ-11", "closer", "100x30", dealer="ben")
        _chips(conn, "BJ-07", "fill", "100x40")  # after the closer: beside the shift
        _chips(conn, "BJ-08", "opener", "100x71", shift="swing", dealer="ben")
        _chips(conn, "BJ-08", "fill", "100x20", shift="swing", dealer="ben")
        _drop(conn, "BJ-08", "3000", "500", shift="swing")
        _chips(conn, "BJ-08", "closer", "100x80", shift="swing", dealer="ben")
        record_buy_in(conn, "BJ-07", "alice", Decimal(500), "cash", "sue", PINS["sue"])
        record_buy_in(conn, "BJ-07", "alice", Decimal(1000), "marker", "sue", PINS["sue"])


def _rows(data: bytes) -> dict[tuple[str, str, str], dict[str, str]]:
    """The CSV by (shift, level, table or pit); checks the header and that money is exact text."""
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    out = {}
    for row in rows:
        out[(row["shift"], row["level"], row["table"] or row["pit"] or "floor")] = row
    return out


def _money(row: dict[str, str], *names: str) -> tuple[Decimal | None, ...]:
    return tuple(Decimal(row[n]) if row[n] else None for n in names)


FIGURES = ("opener", "closer", "fills", "credits", "cash", "markers", "drop", "win", "hold_percent")


def test_shift_and_day_reports_worked_by_hand(floor: Floor, tmp_path: Path) -> None:
    _a_day(floor, tmp_path)
    with psycopg.connect(floor.review_url) as conn:
        report = shift_document(conn, DAY, "Day", database="the test floor", figures=figures)
        again = shift_document(conn, DAY, "day", database="the test floor", figures=figures)
        pit3 = shift_document(conn, DAY, "day", pit="PIT-3", database="the test floor", figures=figures)
        day = day_document(conn, DAY, database="the test floor", figures=figures)
    assert report.document == again.document  # the same figures read twice: the same number
    assert report.document.startswith("DA-SR-20261126-DAY-")
    data = report_csv(report)
    rows = _rows(data)
    assert list(rows) == [("day", "table", "BJ-07"), ("day", "table", "BJ-08"), ("day", "table", "BJ-11"),
                          ("day", "pit", "PIT-2"), ("day", "pit", "PIT-3"), ("day", "floor", "floor")]
    assert {r["document"] for r in rows.values()} == {report.document}
    bj07 = rows[("day", "table", "BJ-07")]
    assert _money(bj07, *FIGURES) == (Decimal(20000), Decimal(11200), Decimal(7500), Decimal(4000), Decimal(12000),
                                      Decimal(3000), Decimal(15000), Decimal(2700), Decimal("18.00"))
    assert bj07["win"] == "2700.00" and bj07["hold_percent"] == "18.00"  # exact decimals, to the cent
    assert (bj07["rounds"], bj07["rounds_net"], bj07["theo"]) == ("3", "-75.00", "2.25")
    assert (bj07["after_close"], bj07["win_with_after_close"]) == ("-4000.00", "-1300.00")
    assert bj07["opener_signed_by"] == "ann, sue" and bj07["drop_counted_by"] == "cal, sue"
    fills = bj07["fills_detail"].split("; ")
    assert [f.split(" at ")[0] for f in fills] == ["5000.00 by ann and sue", "2500.00 by ann and sue"]
    assert all(f.split(" at ")[1].startswith("20") and f.endswith(" UTC") for f in fills)  # each with its time
    assert bj07["credits_detail"].startswith("4000.00 by ann and sue at ")
    assert bj07["after_close_detail"].startswith("fill 4000.00 by ann and sue at ")
    assert _money(rows[("day", "table", "BJ-08")], "win", "hold_percent", "after_close") == (
        Decimal(1100), Decimal("27.50"), Decimal(0))
    assert rows[("day", "table", "BJ-08")]["opener_signed_by"] == "ben, sue"
    assert _money(rows[("day", "table", "BJ-11")], "drop", "win", "hold_percent") == (
        Decimal(2500), Decimal(1500), Decimal("60.00"))
    assert _money(rows[("day", "pit", "PIT-2")], *FIGURES) == (
        Decimal(30000), Decimal(18300), Decimal(7500), Decimal(4000), Decimal(16000), Decimal(3000), Decimal(19000),
        Decimal(3800), Decimal("20.00"))
    assert _money(rows[("day", "floor", "floor")], "drop", "win", "hold_percent", "after_close", "theo") == (
        Decimal(21500), Decimal(5300), Decimal("24.65"), Decimal(-4000), Decimal("2.25"))
    # one pit: its table only, and the floor row is that pit's
    assert [(r.level, r.table or r.pit) for r in pit3.rows] == [("table", "BJ-11"), ("pit", "PIT-3"), ("floor", "")]
    assert (pit3.total.win, pit3.total.hold_percent) == (Decimal(1500), Decimal("60.00"))
    # the PDF: its text (uncompressed) carries the number, the totals and the signature block
    pdf = report_pdf(report)
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    for text in (report.document, "5300.00", "24.65 %", "2700.00", "-1300.00", "Prepared by", "Shift manager",
                 "the test floor", "fill \\(after close\\)"):
        assert text.encode() in pdf, text
    # the day: each shift per table, then the day's totals
    assert day.shifts == ["day", "swing"] and day.document.startswith("DA-DR-20261126-DAY-")
    rows = _rows(report_csv(day))
    assert _money(rows[("swing", "table", "BJ-08")], *FIGURES) == (
        Decimal(7100), Decimal(8000), Decimal(2000), Decimal(0), Decimal(3000), Decimal(500), Decimal(3500),
        Decimal(2400), Decimal("68.57"))
    assert _money(rows[("day", "table", "BJ-08")], "drop", "win", "hold_percent") == (
        Decimal(7500), Decimal(3500), Decimal("46.67"))
    assert _money(rows[("day", "pit", "PIT-2")], "drop", "win", "hold_percent") == (
        Decimal(22500), Decimal(6200), Decimal("27.56"))
    assert _money(rows[("day", "pit", "PIT-3")], "drop", "win", "hold_percent") == (
        Decimal(2500), Decimal(1500), Decimal("60.00"))
    assert _money(rows[("day", "floor", "floor")], "drop", "win", "hold_percent", "rounds") == (
        Decimal(25000), Decimal(7700), Decimal("30.80"), Decimal(3))
    assert b"30.80 %" in report_pdf(day) and day.document.encode() in report_pdf(day)


def test_a_later_entry_gives_another_document_number(floor: Floor, tmp_path: Path) -> None:
    """A credit after BJ-11's closer changes no win but is a figure of the report (after close)."""
    _a_day(floor, tmp_path)
    with psycopg.connect(floor.review_url) as conn:
        before = shift_document(conn, DAY, "day", database="f", figures=figures)
        _chips(conn, "BJ-11", "credit", "100x5", dealer="ben")
        after = shift_document(conn, DAY, "day", database="f", figures=figures)
    assert before.total.win == after.total.win == Decimal(5300)
    assert after.total.adjustment == Decimal(-4000 + 500)
    assert before.document != after.document


def test_a_players_rating_with_theo(floor: Floor, tmp_path: Path) -> None:
    """alice's three rounds: theo 3 x (25 x 0.01 + 5 x 0.10) = 2.25 with the test's edges."""
    _a_day(floor, tmp_path)
    with psycopg.connect(floor.review_url) as conn:
        rated = rating_document(conn, "alice", DAY, dt.date.today() + dt.timedelta(days=2), database="f",
                                figures=figures)
    r = rated.rating
    assert (r.rounds, r.wagered, r.average_bet, r.net, rated.theo) == (
        3, Decimal(90), Decimal("30.00"), Decimal(75), Decimal("2.25"))
    assert (r.buy_in, r.markers) == (Decimal(1500), Decimal(1000))


def _cli_report(floor: Floor, action: str, *args: str) -> tuple[str, int, str]:
    done = cli("floor", action, "--url", floor.review_url, *args)
    return done.stdout, done.returncode, done.stderr


def test_reports_through_the_cli(floor: Floor, tmp_path: Path) -> None:
    """A shift manager's commands: the files, their number on the screen; bad input writes nothing."""
    _a_day(floor, tmp_path)
    out_csv, out_pdf = tmp_path / "shift.csv", tmp_path / "shift.pdf"
    stdout, code, err = _cli_report(floor, "shift", "--day", "2026-11-26", "--shift", "day", "--csv", str(out_csv),
                                    "--pdf", str(out_pdf))
    assert code == 0, err
    rows = _rows(out_csv.read_bytes())
    number = rows[("day", "floor", "floor")]["document"]
    assert stdout == (f"floor: shift report {number}: drop 21,500.00, win 5,300.00, hold 24.65 %; written to "
                      f"{out_csv}, {out_pdf}\n")
    assert _money(rows[("day", "table", "BJ-07")], *FIGURES) == (
        Decimal(20000), Decimal(11200), Decimal(7500), Decimal(4000), Decimal(12000), Decimal(3000), Decimal(15000),
        Decimal(2700), Decimal("18.00"))
    # theo from the real par sheet: alice's 3 x 25 on the main and 3 x 5 on the pair at its edges
    edges = par_figures("ace_race", 6)
    theo = (75 * edges["main"][0] + 15 * edges["pair"][0]).quantize(Decimal("0.01"))
    assert Decimal(rows[("day", "table", "BJ-07")]["theo"]) == theo
    pdf = out_pdf.read_bytes()
    assert number.encode() in pdf and b"5300.00" in pdf and b"24.65 %" in pdf
    # the day
    day_csv = tmp_path / "day.csv"
    stdout, code, err = _cli_report(floor, "day", "--day", "2026-11-26", "--pit", "PIT-2", "--csv", str(day_csv))
    assert code == 0, err
    rows = _rows(day_csv.read_bytes())
    assert _money(rows[("day", "floor", "floor")], "drop", "win", "hold_percent") == (
        Decimal(22500), Decimal(6200), Decimal("27.56"))
    assert ("day", "table", "BJ-11") not in rows
    # the text report still prints (no file)
    stdout, code, err = _cli_report(floor, "day", "--day", "2026-11-26")
    assert code == 0, err
    assert "day floor\t" in stdout and "swing BJ-08\t7,100.00\t8,000.00\t2,000.00\t0.00\t3,500.00\t2,400.00\t68.57" \
        in stdout
    # a player's rating
    rating_csv, rating_pdf = tmp_path / "alice.csv", tmp_path / "alice.pdf"
    until = (dt.date.today() + dt.timedelta(days=2)).isoformat()
    stdout, code, err = _cli_report(floor, "rating", "--player", "alice", "--since", "2026-11-26", "--until", until,
                                    "--csv", str(rating_csv), "--pdf", str(rating_pdf))
    assert code == 0, err
    (row,) = list(csv.DictReader(io.StringIO(rating_csv.read_text(encoding="utf-8"))))
    assert (row["rounds"], row["wagered"], row["average_bet"], row["net"], row["theo"], row["buy_in"],
            row["buy_in_markers"]) == ("3", "90.00", "30.00", "75.00", str(theo), "1500.00", "1000.00")
    assert stdout == f"floor: rating {row['document']} of alice written to {rating_csv}, {rating_pdf}\n"
    # a rating is signed by the pit, not a shift's accounts
    assert row["document"].encode() in rating_pdf.read_bytes() and b"Pit supervisor" in rating_pdf.read_bytes()
    assert b"Shift manager" not in rating_pdf.read_bytes()
    # bad input: error, exit 2, nothing written
    target_csv, target_pdf = tmp_path / "bad.csv", tmp_path / "bad.pdf"
    bad = [
        (("shift", "--day", "2026-11-26", "--shift", "day", "--pit", "PIT-9"), "error: no pit 'PIT-9' on the floor"),
        (("day", "--day", "2026-11-26", "--pit", "PIT-9"), "error: no pit 'PIT-9' on the floor"),
        (("day", "--day", "2026-11-20"), "error: no shift on 2026-11-20"),
        (("shift", "--day", "2026-11-26", "--shift", "grave"),
         "error: no shift 'grave' on 2026-11-26: nothing recorded (that day's shifts: day, swing)"),
        (("shift", "--day", "2026-11-26", "--shift", "day", "--pdf", str(tmp_path / "no" / "such" / "x.pdf")),
         "error: cannot write"),
        (("day", "--day", "2026-11-26", "--pdf", str(tmp_path)), "error: cannot write"),
        (("rating", "--player", "alice", "--since", "2026-11-27", "--until", "2026-11-26"),
         "error: --until 2026-11-26 must be after --since 2026-11-27"),
    ]
    for args, message in bad:
        stdout, code, err = _cli_report(floor, *args, "--csv", str(target_csv))
        assert code == 2 and err.startswith(message) and err.count("\n") == 1 and stdout == "", (args, err)
        assert not target_csv.exists() and not target_pdf.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("bj07")) == [
        "alice.csv", "alice.pdf", "day.csv", "shift.csv", "shift.pdf"]


def test_the_pit_window_saves_the_shift_and_day_reports(floor: Floor, tmp_path: Path, qtbot: object) -> None:
    """The Accounting tab's "Save shift report" and "Save day report" (the file dialog's answer
    given to ``save_to``): the same document as read here, the day's totals of the docstring."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QDate

    from ui.review.pit_view import PitWindow

    _a_day(floor, tmp_path)
    with psycopg.connect(floor.review_url) as conn:
        expected = shift_document(conn, DAY, "day", database="f").document  # the pit's par-sheet theo
    window = PitWindow(floor.review_url)
    qtbot.addWidget(window)  # type: ignore[attr-defined]
    window.show()
    qtbot.waitUntil(lambda: window.pending == 0 and window.pit.count() == 3, timeout=20000)  # type: ignore[attr-defined]
    window.day.setDate(QDate(2026, 11, 26))
    panel = window.accounts
    panel.shift.setText("day")
    pdf, day_csv = tmp_path / "pit-shift.pdf", tmp_path / "pit-day.csv"
    with qtbot.waitSignal(window.report_saved, timeout=60000):  # type: ignore[attr-defined]
        panel.save_to("shift", str(pdf))
    assert panel.message.text() == f"saved the shift report {expected} to {pdf}"
    assert expected.encode() in pdf.read_bytes() and b"24.65 %" in pdf.read_bytes()
    with qtbot.waitSignal(window.report_saved, timeout=60000):  # type: ignore[attr-defined]
        panel.save_to("day", str(day_csv))
    rows = _rows(day_csv.read_bytes())
    assert _money(rows[("day", "floor", "floor")], "drop", "win", "hold_percent") == (
        Decimal(25000), Decimal(7700), Decimal("30.80"))
    panel.shift.setText("grave")
    with qtbot.waitSignal(window.report_saved, timeout=60000):  # type: ignore[attr-defined]
        panel.save_to("shift", str(tmp_path / "grave.pdf"))
    assert panel.message.text().startswith("no shift 'grave' on 2026-11-26")
    assert not (tmp_path / "grave.pdf").exists()
    window.close()


def test_a_report_is_written_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CSV moved in, then the PDF's move fails (a full or failing disk): the CSV as it was
    before is put back, the PDF that did not exist stays absent, and no part file is left."""
    csv_path, pdf_path = tmp_path / "shift.csv", tmp_path / "shift.pdf"
    csv_path.write_bytes(b"the earlier report\n")
    moves: list[str] = []
    real_replace = os.replace

    def failing_second(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        moves.append(str(dst))
        if len(moves) == 2:
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr("dealer_assist.floor.reports.os.replace", failing_second)
    with pytest.raises(FloorError, match="no file was written"):
        write_files([(str(csv_path), b"new csv\n"), (str(pdf_path), b"%PDF new")])
    assert csv_path.read_bytes() == b"the earlier report\n"
    assert not pdf_path.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shift.csv"]
    # and with nothing failing, both are written and nothing else is left
    monkeypatch.setattr("dealer_assist.floor.reports.os.replace", real_replace)
    write_files([(str(csv_path), b"new csv\n"), (str(pdf_path), b"%PDF new")])
    assert (csv_path.read_bytes(), pdf_path.read_bytes()) == (b"new csv\n", b"%PDF new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shift.csv", "shift.pdf"]
