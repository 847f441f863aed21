"""The pit window's Live tab and what it trusts (issue 35, items 1 and 4), on a real server with
a real (offscreen) window:

- while the floor does not answer (PostgreSQL stopped), the Live tab goes grey and says
  "no contact since <the last time it read the floor>", and comes back by itself;
- a notification is only a reason to read the tables' state again from the database: any
  account can send ``NOTIFY floor_live`` (PostgreSQL has no privilege on channels), so a flood
  of them from a role that cannot write the table — another table's station, the review role —
  changes nothing the pit shows; a real forward does.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import psycopg  # noqa: E402
import pytest  # noqa: E402

from dealer_assist.floor.forward import Forwarder  # noqa: E402
from dealer_assist.floor.schema import add_station, init_floor, review_role  # noqa: E402
from tests.floor.conftest import Floor  # noqa: E402
from tests.floor.pgserver import Server  # noqa: E402
from tests.floor.stations import make_station, open_station, record_rounds  # noqa: E402

pytestmark = pytest.mark.gui


def _open(url: str, qtbot: Any) -> Any:
    from ui.review.pit_view import PitWindow

    window = PitWindow(url, live_tick=0.5)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.live.listener.connected.is_set() and bool(window.live_tables.shown),
                    timeout=30000)
    return window


def _seen(window: Any) -> list[tuple[Any, ...]]:
    return [(t.table, t.last_round, t.last_status, t.last_house_net, t.game, t.dealer, t.waiting)
            for t in window.live_tables.shown]


def _floor_of_bj07(server: Server, tmp_path: Path) -> tuple[str, str]:
    """A floor on ``server`` with BJ-07 (PIT-2) registered, one round forwarded and its station's
    heartbeat: (the admin's URL, the review account's)."""
    db = server.create_database()
    admin = server.url(db)
    init_floor(admin)
    role = add_station(admin, "BJ-07", "PIT-2").role
    make_station(tmp_path / "bj07.db", "BJ-07", "PIT-2", rounds=1)
    with Forwarder(tmp_path / "bj07.db", server.url(db, user=role)) as forwarder:
        forwarder.forward()
        forwarder.heartbeat(0, None, "up")
    return admin, server.url(db, user=review_role(db))


def test_the_live_tab_goes_grey_with_no_contact_since_while_the_floor_is_down(tmp_path: Path, qtbot: Any) -> None:
    server = Server()
    try:
        _, review = _floor_of_bj07(server, tmp_path)
        window = _open(review, qtbot)
        try:
            assert window.live_tables.no_contact is None
            link = window.live_tables.item(0, len(window.live_tables.HEADERS) - 1)
            assert not link.text().startswith("no contact")
            server.halt()
            qtbot.waitUntil(lambda: (window.live_tables.no_contact or "").startswith("no contact since "),
                            timeout=30000)
            link = window.live_tables.item(0, len(window.live_tables.HEADERS) - 1)
            assert link.text() == window.live_tables.no_contact
            assert link.foreground().color().name() == "#9e9e9e"
            assert window.live_tables.item(0, 0).text() == "BJ-07"  # the table is still named, in grey
            server.start()
            qtbot.waitUntil(lambda: window.live_tables.no_contact is None and window.live_status.text() == "floor: live",
                            timeout=60000)
            link = window.live_tables.item(0, len(window.live_tables.HEADERS) - 1)
            assert not link.text().startswith("no contact")
        finally:
            window.close()
    finally:
        server.stop()


def test_a_notification_from_an_account_that_cannot_write_the_table_changes_nothing(
        floor: Floor, tmp_path: Path, qtbot: Any) -> None:
    url07 = floor.station("BJ-07", "PIT-2")
    url08 = floor.station("BJ-08", "PIT-2")
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=1)
    forwarder = Forwarder(db, url07)
    forwarder.forward()
    forwarder.heartbeat(0, None, "up")
    window = _open(floor.review_url, qtbot)
    try:
        before = _seen(window)
        assert [(t[0], t[1]) for t in before] == [("BJ-07", 1), ("BJ-08", None)]
        # a flood of fake "BJ-07 changed" (and nonsense) from BJ-08's station and the review role
        with qtbot.waitSignal(window.live_updated, timeout=20000):
            for who in (url08, floor.review_url):
                with psycopg.connect(who, autocommit=True) as conn:
                    for n in range(100):
                        conn.execute("SELECT pg_notify('floor_live', %s)", ("BJ-07" if n % 2 else f"round {n} won",))
        # the pit read the database again: what it shows is the database's, unchanged
        qtbot.wait(1500)
        assert _seen(window) == before
        # a real forward: the pit shows it
        with open_station(db) as store:
            record_rounds(store, 1, start=1)
        with qtbot.waitSignal(window.live_updated, timeout=10000,
                              check_params_cb=lambda tables: tables[0].last_round == 2):
            assert forwarder.forward().rounds == 1
    finally:
        window.close()
        forwarder.close()


def test_a_pit_opened_while_the_floor_is_down_says_so_and_reaches_it_when_it_returns(tmp_path: Path, qtbot: Any) -> None:
    # The floor's server is stopped when the supervisor opens the pit: the window says it has
    # no contact and is trying again, the Live tab says "no contact with the floor yet" (there
    # is nothing it read), and a tab's query gets a clear error, not an assertion; when the
    # server returns, the same window reaches the floor by itself — the pit listed, BJ-07 and
    # its round on the Live tab, live — with no reopening. (Before: the first failure left the
    # window dead until reopened, and closing it raised "cannot join thread before it is
    # started" from its close handler.)
    from ui.review.pit_view import PitWindow

    server = Server()
    try:
        admin, review = _floor_of_bj07(server, tmp_path)
        with psycopg.connect(admin, autocommit=True) as conn:  # (this test server commits
            conn.execute("CHECKPOINT")  # asynchronously: its WAL on disk before the halt)
        server.halt()
        window = PitWindow(review, live_tick=0.5)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitUntil(lambda: window.status.text().endswith("(trying again)"), timeout=30000)
        assert window.live_tables.no_contact == "no contact with the floor yet"
        window.show_shift("day")
        qtbot.waitUntil(lambda: bool(window.accounts.message.text()), timeout=10000)
        assert window.accounts.message.text().startswith("no contact with the floor yet")
        server.start()
        qtbot.waitUntil(lambda: window.pit.findText("PIT-2") >= 0 and [t.table for t in window.live_tables.shown]
                        == ["BJ-07"] and window.live_status.text() == "floor: live", timeout=60000)
        assert window.live_tables.no_contact is None
        assert window.live_tables.shown[0].last_round == 1
        window.close()
    finally:
        server.stop()


def test_a_pit_closed_before_the_floor_ever_answered_closes_cleanly(qtbot: Any) -> None:
    # No server at all (a closed port): opened and closed at once, nothing raised.
    from ui.review.pit_view import PitWindow

    window = PitWindow("postgresql://nobody@127.0.0.1:9/none?connect_timeout=1", live_tick=0.5)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.status.text().endswith("(trying again)"), timeout=30000)
    window.close()  # (raised RuntimeError: cannot join thread before it is started)
    assert not window.live.listener._thread.is_alive()


def test_a_pit_the_floor_refuses_is_not_retried_by_itself_but_on_refresh(floor: Floor, qtbot: Any) -> None:
    # The server answers and refuses the account (no such role): asking again every few
    # seconds would not help (and fills the server's log); the window says to check its URL
    # and account, and tries again only when the supervisor presses Refresh.
    from ui.review.pit_view import PitWindow

    bad = floor.server.url(floor.dbname, user="nobody_here")  # no such account on the server
    window = PitWindow(bad, live_tick=0.5)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.status.text().endswith("then Refresh)"), timeout=30000)
    assert not window.retrying
    assert window.live_tables.no_contact == "no contact with the floor yet"
    window.status.setText("")
    window.refresh_button.click()  # asked again, refused again
    qtbot.waitUntil(lambda: window.status.text().endswith("then Refresh)"), timeout=30000)
    assert not window.retrying
    window.close()
