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
After BJ-07's closer, a fill of 100 x 40 = 4,000 comes in (issue 35: it once turned the closed
shift into 8,760 / 42.22 %): the closed shift stays 2,700 / 18.00 %; beside it, after close
-4,000 (one entry) and the win with it 2,700 - 4,000 = -1,300. PIT-2 stays 3,800 / 20.00 %.
Signers are accounts with PINs (ann 1111, ben 2222, sue 3333, cal 4444); some entries give them
in capitals and the shift as "Day": the same accounts, the same shift.
Beside them, BJ-07's rounds in the shift: 3 Ace Race rounds (alice main 25, pair 5: the house
-25 each): the rounds' net -75; theoretical win with 1 % on the main, 10 % on the pair:
3 x (0.25 + 0.50) = 2.25.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from dealer_assist.floor.accounting import player_rating, set_signer, shift_report
from dealer_assist.floor.forward import Forwarder
from dealer_assist.floor.schema import review_role
from tests.floor.conftest import Floor
from tests.floor.helpers import cli, query
from tests.floor.stations import DOCUMENTS, open_station, result_of
from tests.floor.test_alerts import figures

DAY, SHIFT = "2026-11-26", "day"
PINS = {"ann": "1111", "ben": "2222", "sue": "3333", "cal": "4444"}


def signers(floor: Floor) -> None:
    with psycopg.connect(floor.admin_url) as conn:
        for name, pin in PINS.items():
            set_signer(conn, name, pin)


def _pins(*names: str) -> str:
    return "".join(PINS[n.lower()] + "\n" for n in names)


def _chips(floor: Floor, table: str, kind: str, chips: str, dealer: str = "ann", supervisor: str = "sue",
           shift: str = SHIFT) -> str:
    done = cli("floor", "chips", "--url", floor.review_url, "--table", table, "--day", DAY, "--shift", shift,
               "--kind", kind, "--chips", chips, "--dealer", dealer, "--supervisor", supervisor,
               stdin=_pins(dealer, supervisor))
    assert done.returncode == 0, done.stderr
    return done.stdout


def _refused(floor: Floor, *args: str, stdin: str, day: str = DAY) -> str:
    done = cli("floor", "chips", "--url", floor.review_url, "--table", "BJ-07", "--day", day, "--shift", SHIFT,
               *args, stdin=stdin)
    assert done.returncode == 2 and done.stderr.startswith("error: ") and "Traceback" not in done.stderr, done
    return done.stderr


def test_a_hand_worked_shift(floor: Floor, tmp_path: Path) -> None:
    url = floor.station("BJ-07", "PIT-2")
    floor.station("BJ-08", "PIT-2")
    signers(floor)
    assert _chips(floor, "BJ-07", "opener", "1000x4,100x100,25x200,5x200", dealer="ANN", shift="Day") == (
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
    _chips(floor, "BJ-07", "credit", "1000x4", supervisor="SUE")
    drop = cli("floor", "drop", "--url", floor.review_url, "--table", "BJ-07", "--day", DAY, "--shift", SHIFT,
               "--cash", "12000", "--markers", "3000", "--counted-by", "cal", "--witness", "sue",
               stdin=_pins("cal", "sue"))
    assert drop.stdout == "floor: drop of BJ-07 (2026-11-26 day) 15,000.00 (cash 12,000.00, markers 3,000.00)\n"
    assert cli("floor", "drop", "--url", floor.review_url, "--table", "BJ-08", "--day", DAY, "--shift", SHIFT,
               "--cash", "4000", "--counted-by", "cal", "--witness", "sue", stdin=_pins("cal", "sue")).returncode == 0
    _chips(floor, "BJ-07", "closer", "100x90,25x80,5x40")
    _chips(floor, "BJ-08", "closer", "100x71", dealer="ben")
    # the shift is closed: a later fill is an adjustment beside it, never in it
    late = _chips(floor, "BJ-07", "fill", "100x40", shift="DAY")
    assert late == ("floor: fill of BJ-07 (2026-11-26 day) 4,000.00, signed by ann and sue (after the closer: "
                    "kept as an adjustment beside the closed shift, not in its figures)\n")
    assert query(floor.admin_url, "SELECT shift, dealer, supervisor, adjusts_closed FROM floor.chip_movements "
                 "WHERE table_name = 'BJ-07' ORDER BY movement_id") == [
        ("day", "ann", "sue", False), ("day", "ann", "sue", False), ("day", "ann", "sue", False),
        ("day", "ann", "sue", False), ("day", "ann", "sue", False), ("day", "ann", "sue", True)]
    with psycopg.connect(floor.review_url) as conn:
        tables, pits, whole = shift_report(conn, dt.date(2026, 11, 26), SHIFT, figures=figures)
    bj07, bj08 = tables
    assert (bj07.opener, bj07.closer, bj07.fills, bj07.credits, bj07.drop) == (
        Decimal(20000), Decimal(11200), Decimal(7500), Decimal(4000), Decimal(15000))
    assert (bj07.win, bj07.hold_percent) == (Decimal(2700), Decimal("18.00"))
    assert (bj07.rounds, bj07.rounds_net, bj07.theo) == (3, Decimal(-75), Decimal("2.25"))
    assert (bj07.adjustment, bj07.adjustments, bj07.win_adjusted) == (Decimal(-4000), 1, Decimal(-1300))
    assert (bj08.adjustment, bj08.adjustments) == (Decimal(0), 0)
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
    assert lines[1][11:] == ["-4,000.00 (1)", "-1,300.00", "0.00", "0.00"]  # no player terminals at BJ-07
    assert lines[2][11:] == ["-", "-", "0.00", "0.00"]
    assert lines[3][:8] == ["PIT-2", "30,000.00", "18,300.00", "7,500.00", "4,000.00", "19,000.00", "3,800.00",
                            "20.00"]


def test_signers_are_accounts_confirmed_by_their_pins(floor: Floor) -> None:
    """Two signatures by one account (in any case) are refused, as are a wrong PIN and a name
    with no account; nothing is recorded by a refusal."""
    floor.station("BJ-07", "PIT-2")
    signers(floor)
    fill = ("--kind", "fill", "--chips", "100x10")
    same = _refused(floor, *fill, "--dealer", "sue", "--supervisor", "SUE", stdin="3333\n3333\n")
    assert "two signatures by two different accounts are needed (sue signed twice)" in same
    same = _refused(floor, *fill, "--dealer", " Sue ", "--supervisor", "sue", stdin="3333\n3333\n")
    assert "(sue signed twice)" in same
    wrong = _refused(floor, *fill, "--dealer", "ann", "--supervisor", "sue", stdin="1111\n1111\n")
    assert "the PIN of sue is not right" in wrong
    unknown = _refused(floor, *fill, "--dealer", "ann", "--supervisor", "zed", stdin="1111\n9999\n")
    assert "signer zed has no account on the floor" in unknown
    missing = _refused(floor, *fill, "--dealer", "ann", "--supervisor", "sue", stdin="1111\n")
    assert "no PIN for sue on standard input" in missing
    bad = _refused(floor, "--kind", "fill", "--chips", "100 chips", "--dealer", "ann", "--supervisor", "sue",
                   stdin=_pins("ann", "sue"))
    assert "'100 chips' is not DENOMINATION x COUNT" in bad
    _chips(floor, "BJ-07", "opener", "100x10")
    again = _refused(floor, "--kind", "opener", "--chips", "100x99", "--dealer", "ann", "--supervisor", "sue",
                     stdin=_pins("ann", "sue"))
    assert "the opener of BJ-07 (2026-11-26 day) is already recorded" in again
    assert query(floor.admin_url, "SELECT kind, total, dealer, supervisor FROM floor.chip_movements") == [
        ("opener", Decimal(1000), "ann", "sue")]
    # the administrator's command: a new account, its PIN on standard input
    made = cli("floor", "signer", "--url", floor.admin_url, "--name", "Dee", stdin="5555\n")
    assert (made.returncode, made.stdout) == (0, "floor: signer dee has its PIN\n"), made.stderr
    short = cli("floor", "signer", "--url", floor.admin_url, "--name", "eve", stdin="12\n")
    assert short.returncode == 2 and "a PIN is 4 to 12 digits" in short.stderr
    done = cli("floor", "chips", "--url", floor.review_url, "--table", "BJ-07", "--day", DAY, "--shift", SHIFT,
               "--kind", "credit", "--chips", "100x1", "--dealer", "DEE", "--supervisor", "sue", stdin="5555\n3333\n")
    assert done.returncode == 0 and "signed by dee and sue" in done.stdout, done.stderr


def test_amounts_days_and_denominations(floor: Floor) -> None:
    """A fill of 0.00, a negative count, a gaming day after the floor's today and a chip the
    table does not use are refused; a drop's negative cash too."""
    floor.station("BJ-07", "PIT-2")
    signers(floor)
    pins = _pins("ann", "sue")
    sign = ("--dealer", "ann", "--supervisor", "sue")
    zero = _refused(floor, "--kind", "fill", "--chips", "100x0", *sign, stdin=pins)
    assert "a fill must be more than 0 (it is 0)" in zero
    zero = _refused(floor, "--kind", "credit", "--chips", "100x0,25x0", *sign, stdin=pins)
    assert "a credit must be more than 0" in zero
    negative = _refused(floor, "--kind", "fill", "--chips", "100x-5", *sign, stdin=pins)
    assert "is not DENOMINATION x COUNT" in negative
    ((today,),) = query(floor.admin_url, "SELECT floor.today()")
    tomorrow = (today + dt.timedelta(days=1)).isoformat()
    future = _refused(floor, "--kind", "fill", "--chips", "100x10", *sign, stdin=pins, day=tomorrow)
    assert f"gaming day {tomorrow} is in the future" in future
    assert "is in the future" in _refused(floor, "--kind", "opener", "--chips", "100x10", *sign, stdin=pins,
                                          day="2031-01-01")
    drop = cli("floor", "drop", "--url", floor.review_url, "--table", "BJ-07", "--day", DAY, "--shift", SHIFT,
               "--cash", "-1", "--counted-by", "cal", "--witness", "sue", stdin=_pins("cal", "sue"))
    assert drop.returncode == 2 and "cannot be negative" in drop.stderr
    buy = cli("floor", "buy-in", "--url", floor.review_url, "--table", "BJ-07", "--player", "alice", "--amount", "0",
              "--supervisor", "sue", stdin="3333\n")
    assert buy.returncode == 2 and "more than 0" in buy.stderr
    # the table's denominations: only those chips
    set_chips = cli("floor", "denominations", "--url", floor.admin_url, "--table", "BJ-07", "--chips", "5,25,100,1000")
    assert (set_chips.returncode, set_chips.stdout) == (0, "floor: BJ-07 uses chips of 1000, 100, 25, 5\n")
    odd = _refused(floor, "--kind", "fill", "--chips", "100x10,50x4", *sign, stdin=pins)
    assert "table BJ-07 has no 50 chips (its denominations: 1000, 100, 25, 5)" in odd
    assert _chips(floor, "BJ-07", "fill", "100x10,5x4").startswith("floor: fill of BJ-07 (2026-11-26 day) 1,020.00")
    # the server's own refusals (not just the CLI's): a negative count given to the function
    with psycopg.connect(floor.review_url) as conn:
        with pytest.raises(psycopg.errors.InvalidParameterValue, match="denominations more than 0"):
            conn.execute("SELECT floor.record_chips('BJ-07', %s, 'day', 'fill', '{\"100\": -1}', 'ann', '1111', "
                         "'sue', '3333')", (DAY,))
    assert query(floor.admin_url, "SELECT kind, total FROM floor.chip_movements") == [("fill", Decimal(1020))]
    assert query(floor.admin_url, "SELECT count(*) FROM floor.drops") == [(0,)]
    assert query(floor.admin_url, "SELECT count(*) FROM floor.buy_ins") == [(0,)]


def test_the_review_role_cannot_write_accounting_rows(floor: Floor) -> None:
    """Only through the functions that confirm two accounts' PINs: no INSERT, UPDATE or DELETE
    on the accounting tables, the signers' PIN hashes unreadable; a station cannot record."""
    url = floor.station("BJ-07", "PIT-2")
    signers(floor)
    _chips(floor, "BJ-07", "opener", "100x10")
    writes = (
        "INSERT INTO floor.chip_movements (table_name, gaming_day, shift, kind, chips, dealer, supervisor) "
        "VALUES ('BJ-07', '2026-11-26', 'day', 'fill', '{\"100\": 1}', 'ann', 'sue')",
        "INSERT INTO floor.drops (table_name, gaming_day, shift, cash, markers, counted_by, witness) "
        "VALUES ('BJ-07', '2026-11-26', 'day', 1, 0, 'a', 'b')",
        "INSERT INTO floor.buy_ins (table_name, player, amount, kind, supervisor) VALUES ('BJ-07', 'p', 1, 'cash', 's')",
        "UPDATE floor.chip_movements SET chips = '{\"100\": 99}'",
        "DELETE FROM floor.chip_movements",
        "INSERT INTO floor.signers VALUES ('mal', '\\x00', '\\x00')",
        "SELECT * FROM floor.signers",
        "SELECT floor.set_signer('mal', '1234')",
        "INSERT INTO floor.table_chips (table_name, denominations) VALUES ('BJ-07', '{1}')",
    )
    for who in (floor.review_url, url):
        for statement in writes:
            with psycopg.connect(who) as conn:
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute(statement)
    with psycopg.connect(url) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT floor.record_chips('BJ-07', %s, 'day', 'fill', '{\"100\": 1}', 'ann', '1111', "
                         "'sue', '3333')", (DAY,))
    assert query(floor.admin_url, "SELECT kind, total, db_role FROM floor.chip_movements") == [
        ("opener", Decimal(1000), review_role(floor.dbname))]


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
    signers(floor)
    for amount, marker in (("500", []), ("1000", ["--marker"])):
        done = cli("floor", "buy-in", "--url", floor.review_url, "--table", "BJ-07", "--player", "alice",
                   "--amount", amount, *marker, "--supervisor", "Sue", stdin="3333\n")
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
    signers(floor)
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
        panel.dealer_pin.setText("2222")
        panel.supervisor_pin.setText("3333")
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
    panel.supervisor.setText("BEN")
    panel.dealer_pin.setText("2222")
    panel.supervisor_pin.setText("2222")
    panel.record_button.click()
    assert panel.dealer_pin.text() == panel.supervisor_pin.text() == ""  # confirmed again for each record
    qtbot.waitUntil(lambda: "two different accounts" in panel.message.text(), timeout=10000)  # type: ignore[attr-defined]
    assert query(floor.admin_url, "SELECT count(*) FROM floor.chip_movements WHERE kind = 'fill'") == [(0,)]
    # after the closer: a fill is kept beside the closed shift, whose figures stay
    panel.supervisor.setText("sue")
    panel.dealer_pin.setText("2222")
    panel.supervisor_pin.setText("3333")
    with qtbot.waitSignal(window.accounting_updated, timeout=20000):  # type: ignore[attr-defined]
        panel.record_button.click()
    assert "after the closer" in panel.message.text(), panel.message.text()
    cells = [panel.figures.item(0, c).text() for c in range(panel.figures.columnCount())]
    assert cells[:8] == ["BJ-08", "10,000.00", "7,100.00", "0.00", "0.00", "4,000.00", "1,100.00", "27.50 %"]
    assert cells[11:] == ["-500.00 (1)", "600.00", "0.00", "0.00"]  # no player terminals (1.1.10) at BJ-08
    window.close()
