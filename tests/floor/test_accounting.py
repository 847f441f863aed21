"""Table accounting (issue 25, item 5): a hand-worked shift through the real CLI as the pit's
review role, on a real server.

BJ-07, gaming day 2026-11-26, day shift (dollars):
  opener   1000 x 4 + 100 x 100 + 25 x 200 + 5 x 200        = 4,000 + 10,000 + 5,000 + 1,000 = 20,000
  fill 1   100 x 40 + 25 x 40                               = 4,000 + 1,000                  =  5,000
  fill 2   25 x 80 + 5 x 100                                = 2,000 + 500                    =  2,500
  credit   1000 x 4                                                                          =  4,000
  drop     cash 12,000 + markers 3,000                                                       = 15,000
  closer   100 x 90 + 25 x 80 + 5 x 40                      = 9,000 + 2,000 + 200            = 11,200
  win  = drop + closer - opener + credits - fills = 15,000 + 11,200 - 20,000 + 4,000 - 7,500 =  2,700
  hold = 2,700 / 15,000 = 18.00 %
BJ-08, same shift: opener 100 x 100 = 10,000, closer 100 x 71 = 7,100, drop cash 4,000:
  win = 4,000 + 7,100 - 10,000 = 1,100; hold 1,100 / 4,000 = 27.50 %.
PIT-2: drop 19,000, win 3,800, hold 20.00 %.
(The issue's "closer - opener + credits - fills" leaves out the drop: it would make BJ-07's
winning shift -12,300.)
Beside them, BJ-07's rounds in the shift: 3 Ace Race rounds (alice main 25, pair 5: the house
-25 each): the rounds' net -75; theoretical win with 1 % on the main, 10 % on the pair:
3 x (0.25 + 0.50) = 2.25.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import psycopg

from dealer_assist.floor.accounting import player_rating, shift_report
from dealer_assist.floor.forward import Forwarder
from tests.floor.conftest import Floor
from tests.floor.helpers import cli, query
from tests.floor.stations import DOCUMENTS, open_station, result_of
from tests.floor.test_alerts import figures

DAY, SHIFT = "2026-11-26", "day"


def _chips(floor: Floor, table: str, kind: str, chips: str, dealer: str = "ann", supervisor: str = "sue") -> str:
    done = cli("floor", "chips", "--url", floor.review_url, "--table", table, "--day", DAY, "--shift", SHIFT,
               "--kind", kind, "--chips", chips, "--dealer", dealer, "--supervisor", supervisor)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_hand_worked_shift(floor: Floor, tmp_path: Path) -> None:
    url = floor.station("BJ-07", "PIT-2")
    floor.station("BJ-08", "PIT-2")
    assert _chips(floor, "BJ-07", "opener", "1000x4,100x100,25x200,5x200") == (
        "floor: opener of BJ-07 (2026-11-26 day) 20,000.00, signed by ann and sue\n")
    _chips(floor, "BJ-08", "opener", "100x100", dealer="ben")
    # the table plays: three Ace Race rounds, forwarded
    db = tmp_path / "bj07.db"
    document = DOCUMENTS[0]
    with open_station(db) as store:
        store.claim_table("BJ-07", "PIT-2")
        for _ in range(3):
            store.start_round({k: v for k, v in document.items() if k != "events"}, document["events"],
                              result=result_of(0))
    with Forwarder(db, url) as forwarder:
        assert forwarder.forward().rounds == 3
    assert _chips(floor, "BJ-07", "fill", "100x40,25x40").startswith("floor: fill of BJ-07 (2026-11-26 day) 5,000.00")
    _chips(floor, "BJ-07", "fill", "25x80,5x100")
    _chips(floor, "BJ-07", "credit", "1000x4")
    drop = cli("floor", "drop", "--url", floor.review_url, "--table", "BJ-07", "--day", DAY, "--shift", SHIFT,
               "--cash", "12000", "--markers", "3000", "--counted-by", "cal", "--witness", "sue")
    assert drop.stdout == "floor: drop of BJ-07 (2026-11-26 day) 15,000.00 (cash 12,000.00, markers 3,000.00)\n"
    assert cli("floor", "drop", "--url", floor.review_url, "--table", "BJ-08", "--day", DAY, "--shift", SHIFT,
               "--cash", "4000", "--counted-by", "cal", "--witness", "sue").returncode == 0
    _chips(floor, "BJ-07", "closer", "100x90,25x80,5x40")
    _chips(floor, "BJ-08", "closer", "100x71", dealer="ben")
    with psycopg.connect(floor.review_url) as conn:
        tables, pits, whole = shift_report(conn, dt.date(2026, 11, 26), SHIFT, figures=figures)
    bj07, bj08 = tables
    assert (bj07.opener, bj07.closer, bj07.fills, bj07.credits, bj07.drop) == (
        Decimal(20000), Decimal(11200), Decimal(7500), Decimal(4000), Decimal(15000))
    assert (bj07.win, bj07.hold_percent) == (Decimal(2700), Decimal("18.00"))
    assert (bj07.rounds, bj07.rounds_net, bj07.theo) == (3, Decimal(-75), Decimal("2.25"))
    assert (bj08.win, bj08.hold_percent, bj08.rounds) == (Decimal(1100), Decimal("27.50"), 0)
    (pit,) = pits
    assert (pit.key, pit.drop, pit.win, pit.hold_percent) == ("PIT-2", Decimal(19000), Decimal(3800), Decimal("20.00"))
    assert (whole.win, whole.hold_percent) == (Decimal(3800), Decimal("20.00"))
    # the same through the CLI (the rounds' theoretical win there from the real par sheets)
    report = cli("floor", "shift", "--url", floor.review_url, "--day", DAY, "--shift", SHIFT)
    assert report.returncode == 0, report.stderr
    lines = [line.split("\t") for line in report.stdout.splitlines()]
    assert lines[1][:10] == ["BJ-07", "20,000.00", "11,200.00", "7,500.00", "4,000.00", "15,000.00", "2,700.00",
                             "18.00", "3", "-75.00"]
    assert lines[3][:8] == ["PIT-2", "30,000.00", "18,300.00", "7,500.00", "4,000.00", "19,000.00", "3,800.00",
                            "20.00"]


def test_signatures_and_records_are_enforced(floor: Floor) -> None:
    url = floor.station("BJ-07", "PIT-2")
    one = cli("floor", "chips", "--url", floor.review_url, "--table", "BJ-07", "--day", DAY, "--shift", SHIFT,
              "--kind", "fill", "--chips", "100x10", "--dealer", "sue", "--supervisor", "sue")
    assert one.returncode == 2 and "two signatures by two people" in one.stderr
    bad = cli("floor", "chips", "--url", floor.review_url, "--table", "BJ-07", "--day", DAY, "--shift", SHIFT,
              "--kind", "fill", "--chips", "100 chips", "--dealer", "ann", "--supervisor", "sue")
    assert bad.returncode == 2 and "'100 chips' is not DENOMINATION x COUNT" in bad.stderr
    _chips(floor, "BJ-07", "opener", "100x10")
    again = cli("floor", "chips", "--url", floor.review_url, "--table", "BJ-07", "--day", DAY, "--shift", SHIFT,
                "--kind", "opener", "--chips", "100x99", "--dealer", "ann", "--supervisor", "sue")
    assert again.returncode == 2 and "the opener of BJ-07 (2026-11-26 day) is already recorded" in again.stderr
    # the server's own checks: one person signing twice, a malformed inventory, a station writing
    with psycopg.connect(floor.review_url) as conn:
        for chips, dealer in (('{"100": 1}', "sue"), ('{"100": -1}', "ann"), ('{"abc": 1}', "ann")):
            try:
                conn.execute("INSERT INTO floor.chip_movements (table_name, gaming_day, shift, kind, chips, dealer, "
                             "supervisor) VALUES ('BJ-07', %s, 'day', 'fill', %s::jsonb, %s, 'sue')", (DAY, chips, dealer))
                raise AssertionError(chips)
            except psycopg.errors.CheckViolation:
                conn.rollback()
    with psycopg.connect(url) as conn:
        try:
            conn.execute("INSERT INTO floor.drops (table_name, gaming_day, shift, cash, markers, counted_by, witness) "
                         "VALUES ('BJ-07', %s, 'day', 1, 0, 'a', 'b')", (DAY,))
            raise AssertionError("a station wrote a drop")
        except psycopg.errors.InsufficientPrivilege:
            pass
    assert query(floor.admin_url, "SELECT kind, total FROM floor.chip_movements") == [("opener", Decimal(1000))]


def test_a_players_rating_gains_buy_in_and_time_played(floor: Floor, tmp_path: Path) -> None:
    """alice plays three Ace Race rounds at BJ-07 (main 25, pair 5 each; +25 each): 3 rounds,
    wagered 90, net +75, average bet 30; she bought in 500 cash and 1,000 in a marker; time
    played: from her first round's start to her last round's end at the table that day."""
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "bj07.db"
    document = DOCUMENTS[0]
    with open_station(db) as store:
        store.claim_table("BJ-07", "PIT-2")
        for _ in range(3):
            store.start_round({k: v for k, v in document.items() if k != "events"}, document["events"],
                              result=result_of(0))
    with Forwarder(db, url) as forwarder:
        forwarder.forward()
    for amount, marker in (("500", []), ("1000", ["--marker"])):
        done = cli("floor", "buy-in", "--url", floor.review_url, "--table", "BJ-07", "--player", "alice",
                   "--amount", amount, *marker, "--supervisor", "sue")
        assert done.returncode == 0, done.stderr
    ((first, last),) = query(floor.admin_url, "SELECT min(started_at), max(ended_at) FROM floor.rounds")
    now = dt.datetime.now(dt.UTC)
    with psycopg.connect(floor.review_url) as conn:
        rating = player_rating(conn, "alice", now - dt.timedelta(days=1), now + dt.timedelta(days=1))
    assert (rating.rounds, rating.wagered, rating.net, rating.average_bet) == (3, Decimal(90), Decimal(75),
                                                                               Decimal("30.00"))
    assert (rating.buy_in, rating.markers, rating.time_played) == (Decimal(1500), Decimal(1000), last - first)


def test_the_pit_window_records_a_shift_and_shows_win_and_hold(floor: Floor, qtbot: object) -> None:
    """BJ-08's shift of the module's docstring, entered in the Accounting tab's form: opener
    100 x 100 = 10,000, drop cash 4,000, closer 100 x 71 = 7,100: win 1,100, hold 27.50 %."""
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QDate

    from ui.review.pit_view import PitWindow

    floor.station("BJ-08", "PIT-2")
    window = PitWindow(floor.review_url)
    qtbot.addWidget(window)  # type: ignore[attr-defined]
    window.show()
    qtbot.waitUntil(lambda: window.pending == 0 and window.pit.count() == 2, timeout=20000)  # type: ignore[attr-defined]
    window.day.setDate(QDate(2026, 11, 26))
    panel = window.accounts
    panel.table.setText("BJ-08")
    panel.dealer.setText("ben")
    panel.supervisor.setText("sue")
    for kind, chips, cash in (("opener", "100x100", ""), ("drop", "", "4000"), ("closer", "100x71", "")):
        panel.kind.setCurrentText(kind)
        panel.chips.setText(chips)
        panel.cash.setText(cash)
        with qtbot.waitSignal(window.accounting_updated, timeout=20000):  # type: ignore[attr-defined]
            panel.record_button.click()
        assert panel.message.text().startswith(f"recorded: {kind} of BJ-08"), panel.message.text()
    cells = [panel.figures.item(0, c).text() for c in range(panel.figures.columnCount())]
    assert cells[:8] == ["BJ-08", "10,000.00", "7,100.00", "0.00", "0.00", "4,000.00", "1,100.00", "27.50 %"]
    # the same signer twice is refused, and nothing is recorded
    panel.kind.setCurrentText("fill")
    panel.chips.setText("100x5")
    panel.supervisor.setText("ben")
    panel.record_button.click()
    qtbot.waitUntil(lambda: "two signatures by two people" in panel.message.text(), timeout=10000)  # type: ignore[attr-defined]
    assert query(floor.admin_url, "SELECT count(*) FROM floor.chip_movements WHERE kind = 'fill'") == [(0,)]
    window.close()
