"""A supervisor can open the review of a station's store through the station service
(issue 23 item 2): ``dealer-assist review`` (its socket from $DEALER_ASSIST_SOCKET) asks the
supervisor's PIN, the service hands over a read-only copy (op snapshot), and the review
shows the round dealt through the service. The copy holds no PIN hash.

Lucky 8, the shoe's order 10S 9H QD 8C: p1 wagers 10 on area 1; p1 10S, dealer 9H, p1 QD:
20, p1 stands; dealer 8C: 17, the dealer stands on 17. p1 wins 10 at even money (4.3.2)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from dealer_assist.service.client import SOCKET_ENV
from dealer_assist.service.protocol import ProtocolError
from dealer_assist.service.snapshot import fetch_snapshot
from tests.service.conftest import Station
from ui.common.login import PinDialog
from ui.review.app import ReviewWindow
from ui.review.note import NoteDialog


def pin_gate(qtbot: Any) -> PinDialog:
    """The review's PIN dialog, once it is shown."""
    qtbot.waitUntil(lambda: any(isinstance(w, PinDialog) and w.isVisible()
                                for w in QApplication.topLevelWidgets()), timeout=20000)
    return next(w for w in QApplication.topLevelWidgets() if isinstance(w, PinDialog) and w.isVisible())


def run_review(supervisor: Any, seen: dict[str, Any]) -> None:
    """``dealer-assist review`` (its real entry point, no --db) with ``supervisor`` driving its
    windows once the event loop runs; what ``supervisor`` raised (kept in ``seen``) raised here."""
    from dealer_assist.cli import main

    QTimer.singleShot(0, supervisor)
    assert main(["review"]) == 0
    if "error" in seen:
        raise seen["error"]


def deal_a_round(s: Station) -> None:
    c = s.dealer()  # sue the supervisor (482913), ann logged in
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 3)
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    state = s.deal(c, 1)
    assert state["output"]["status"] == "settled" and state["output"]["net"] == {"p1": 10}


def open_through_service(s: Station, shown: list[Any], on_cancel: Any) -> tuple[Any, Any]:
    """The review of the station's store as the dealer's screen opens it (review_from_service):
    its PIN gate shown; each review window it opens is shown and kept in ``shown``.
    (The gate, the copy.)"""
    from ui.review.from_service import review_from_service

    def show(copy: Any, supervisor: str) -> Any:
        from ui.review.app import open_review

        window = open_review(copy, supervisor=supervisor)
        window.show()
        shown.append(window)
        return window

    gate, copy = review_from_service(s.socket, show, on_cancel)
    gate.show()
    return gate, copy


def test_a_supervisor_can_review_the_stations_store_through_the_service(
        qtbot: Any, station: Any, monkeypatch: pytest.MonkeyPatch) -> None:

    s: Station = station("10S 9H QD 8C")
    deal_a_round(s)
    monkeypatch.setenv(SOCKET_ENV, str(s.socket))
    seen: dict[str, Any] = {}

    def supervisor() -> None:
        try:
            gate = pin_gate(qtbot)
            gate.name.setText("ann")  # a dealer is not a supervisor: refused by the service
            gate.pin.setText("730418")
            QTest.keyClick(gate.pin, Qt.Key.Key_Return)
            qtbot.waitUntil(lambda: gate.message.text().startswith("Wrong"), timeout=20000)
            gate.name.setText("sue")
            gate.pin.setText("482913")
            QTest.keyClick(gate.pin, Qt.Key.Key_Return)
            qtbot.waitUntil(lambda: any(isinstance(w, ReviewWindow) and w.isVisible()
                                        for w in QApplication.topLevelWidgets()), timeout=20000)
            review = next(w for w in QApplication.topLevelWidgets() if isinstance(w, ReviewWindow) and w.isVisible())  # not an earlier test's window
            seen["rows"] = review.model.rowCount()
            seen["hashes"] = review.store.read_with(
                lambda conn: conn.execute("SELECT pin_hash, pin_salt FROM users").fetchall())
            rounds = review.store.list_rounds(limit=5)
            seen["round"] = review.store.get_round(rounds[0].id)
            # a note on the round: the copy is read only, so the note goes to the station's
            # store (op add_note), the PIN checked by the service; a dealer's PIN is refused
            review.select_round(rounds[0].id)
            qtbot.waitUntil(lambda: review.detail.round_id == rounds[0].id, timeout=20000)
            # the copy has no station key: the service checks the round's chains (op round_integrity)
            qtbot.waitUntil(lambda: review.detail.integrity_banner.text().startswith("Integrity: INTACT"),
                            timeout=20000)
            review.detail.note_button.click()
            qtbot.waitUntil(lambda: any(isinstance(w, NoteDialog) and w.isVisible()
                                        for w in QApplication.topLevelWidgets()), timeout=20000)
            note = next(w for w in QApplication.topLevelWidgets() if isinstance(w, NoteDialog) and w.isVisible())
            note.text.setPlainText("p1 asked for the count of the shoe")
            note.name.setText("ann")
            note.pin.setText("730418")
            seen["refused"] = (note.submit(), note.message.text())
            note.name.setText("sue")
            note.pin.setText("482913")
            seen["noted"] = (note.submit(), note.note_id)
            review.close()  # the last window: the review ends
        except BaseException as exc:
            seen["error"] = exc
            QApplication.instance().quit()  # type: ignore[union-attr]

    run_review(supervisor, seen)
    assert seen["rows"] == 1
    assert seen["round"].result["net"] == {"p1": 10}
    assert seen["hashes"] and all(h == b"" and salt == b"" for h, salt in seen["hashes"])
    assert seen["refused"][0] is False and seen["refused"][1].startswith("Name or PIN not accepted")
    assert seen["noted"][0] is True
    assert s.running is not None
    notes = s.running.store.audit_entries(kind="note")
    assert [(a.id, a.actor, a.round_id, a.detail) for a in notes] == [
        (seen["noted"][1], "supervisor:sue", seen["round"].summary.id, {"text": "p1 asked for the count of the shoe"})]


def test_the_copy_is_refused_without_a_supervisors_pin(station: Any, tmp_path: Any) -> None:
    s: Station = station("10S")
    s.dealer()
    with pytest.raises(ProtocolError) as caught:
        fetch_snapshot(s.socket, {"user": "sue", "pin": "000000"}, tmp_path / "copy.db")
    assert caught.value.code == "pin"
    assert not (tmp_path / "copy.db").exists()


def test_the_reviews_copy_carries_no_key(station: Any, tmp_path: Any) -> None:
    """The copy is the rounds to read, never a way to sign: the station key (``table.db.key``,
    the service's 0600) is in no byte of it, raw, hex or base64, nothing else is written beside
    it, and opened read-only it has no key, so it cannot write a record the service's store
    would accept (its records' signatures cannot be checked or made from it)."""
    import base64

    from dealer_assist.store import Store, StoreError

    s: Station = station("10S 9H QD 8C")
    deal_a_round(s)
    assert s.running is not None
    key = s.running.store.station_key
    assert key and len(key) >= 16
    into = tmp_path / "review"
    into.mkdir(mode=0o700)
    fetch_snapshot(s.socket, {"user": "sue", "pin": "482913"}, into / "copy.db")
    assert sorted(p.name for p in into.iterdir()) == ["copy.db"]  # no key file, no -wal beside it
    data = (into / "copy.db").read_bytes()
    for form in (key, key.hex().encode(), key.hex().upper().encode(), base64.b64encode(key)):
        assert form not in data
    with Store.open_readonly(into / "copy.db") as copy:
        assert copy.station_key is None
        assert [r.id for r in copy.list_rounds(limit=5)] == [1]  # the rounds are there to read
    with pytest.raises(StoreError) as no_key:
        Store.open(into / "copy.db")  # no key beside it: it cannot be written as the station's store
    assert "station key" in str(no_key.value) and "missing" in str(no_key.value), no_key.value
    assert not (into / "copy.db.key").exists()


def test_the_review_reconnects_by_itself_after_the_service_restarts(qtbot: Any, station: Any) -> None:
    """The review's window stays a client of the service: the service stops and starts again
    (its store and state directory kept); the window says "reconnecting…" meanwhile and
    nothing once the link is back, with no PIN asked again; a round the station records
    after that (round 2: the copy holds round 1 only) is announced on the new connection."""
    from tests.service.conftest import wait_connected
    from ui.common.service_link import RECONNECTING

    s: Station = station("10S 9H QD 8C 10D 9C")
    deal_a_round(s)
    shown_windows: list[Any] = []
    cancelled: list[bool] = []
    gate, copy = open_through_service(s, shown_windows, lambda: cancelled.append(True))
    try:
        gate.name.setText("sue")
        gate.pin.setText("482913")
        QTest.keyClick(gate.pin, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: bool(shown_windows) and hasattr(shown_windows[0], "station_link"), timeout=20000)
        window = shown_windows[0]
        link = window.station_link
        assert link is not None
        from PySide6.QtWidgets import QLabel

        bar = window.findChild(QLabel, "station_link")
        newer = window.findChild(QLabel, "station_newer")
        assert bar.text() == "" and newer.text() == ""
        first_client = link.client

        s.stop()  # the service goes away (systemd would start it again)
        qtbot.waitUntil(lambda: bar.text() == RECONNECTING, timeout=20000)
        s.start()
        wait_connected(s)
        qtbot.waitUntil(lambda: bar.text() == "", timeout=30000)
        assert link.client is not first_client and not link.client.closed  # a new connection, by itself
        assert not any(isinstance(w, PinDialog) and w.isVisible() for w in QApplication.topLevelWidgets())
        assert cancelled == []

        c = s.dealer()  # the station deals on: round 2 begins (p1 wagers 10, p1 10D)
        c.request("wager", player="p1", bet="main", amount=10, area=1)
        state = s.deal(c, 1)
        assert state["round_id"] == 2
        qtbot.waitUntil(lambda: "round 2" in newer.text(), timeout=20000)
        assert window.store.list_rounds(limit=5)[0].id == 1  # the copy itself is as it was fetched
    finally:
        for w in shown_windows:
            if getattr(w, "station_link", None) is not None:
                w.station_link.close()
            w.close()
        copy.close()


def test_the_open_review_reads_a_round_the_station_ends_later_with_no_pin_again(qtbot: Any, station: Any) -> None:
    """The review opened with sue's PIN holds round 1; the station deals round 2 (p1 10D + QH
    = 20 stands, the dealer 9C + 8D = 17: p1 wins 10, 4.3.2). When the service announces round
    2 ended, the review fetches a new copy with its review token: the list shows both rounds,
    the chosen round 1 stays chosen, no PIN is asked and no second ``review`` approval is
    recorded; closing the review ends its token."""
    from PySide6.QtWidgets import QLabel

    s: Station = station("10S 9H QD 8C 10D 9C QH 8D")
    deal_a_round(s)
    shown_windows: list[Any] = []
    gate, copy = open_through_service(s, shown_windows, lambda: None)
    token = ""
    try:
        gate.name.setText("sue")
        gate.pin.setText("482913")
        QTest.keyClick(gate.pin, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: bool(shown_windows) and hasattr(shown_windows[0], "station_link"), timeout=20000)
        window = shown_windows[0]
        assert window.model.rowCount() == 1 and copy.token
        token = copy.token
        window.select_round(1)
        qtbot.waitUntil(lambda: window.detail.round_id == 1, timeout=5000)
        newer = window.findChild(QLabel, "station_newer")

        c = s.dealer()
        c.request("next_round")
        c.request("wager", player="p1", bet="main", amount=10, area=1)
        s.deal(c, 3)
        qtbot.waitUntil(lambda: "round 2" in newer.text(), timeout=20000)  # begun: fetched when it ends
        assert window.model.rowCount() == 1
        c.request("decide", action="stand", area=1, hand=1, player="p1")
        state = s.deal(c, 1)
        assert state["output"]["status"] == "settled" and state["round_id"] == 2
        qtbot.waitUntil(lambda: window.model.rowCount() == 2, timeout=20000)
        assert sorted((r.id, r.status) for r in window.model.rows) == [(1, "settled"), (2, "settled")]
        assert window.store.get_round(2).result["net"] == {"p1": 10}
        assert window.detail.round_id == 1  # the supervisor's place kept
        assert "brought up to round 2" in newer.text(), newer.text()
        assert not any(isinstance(w, PinDialog) and w.isVisible() for w in QApplication.topLevelWidgets())
        assert s.running is not None and len(s.running.store.audit_entries(kind="review")) == 1
    finally:
        for w in shown_windows:
            if getattr(w, "station_link", None) is not None:
                w.station_link.close()
            w.close()
        copy.close()
    with pytest.raises(ProtocolError) as ended:  # the review closed: its token ended with it
        fetch_snapshot(s.socket, None, s.state / "after.db", token=token)
    assert ended.value.code == "auth"


def test_an_open_review_whose_token_expired_keeps_its_copy_and_asks_for_the_pin(qtbot: Any, station: Any) -> None:
    """An hour after the PIN (the service's clock moved on) round 2 ends at the station: the
    review's refresh is refused, the copy stays as it was (round 1 only), and the foot says
    the PIN is needed again."""
    import time

    from PySide6.QtWidgets import QLabel

    from dealer_assist.service.review_token import REVIEW_MINUTES
    s: Station = station("10S 9H QD 8C 10D 9C QH 8D")
    deal_a_round(s)
    shown_windows: list[Any] = []
    gate, copy = open_through_service(s, shown_windows, lambda: None)
    try:
        gate.name.setText("sue")
        gate.pin.setText("482913")
        QTest.keyClick(gate.pin, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: bool(shown_windows) and hasattr(shown_windows[0], "station_link"), timeout=20000)
        window = shown_windows[0]
        newer = window.findChild(QLabel, "station_newer")
        assert s.running is not None
        s.running.service.review_tokens.clock = lambda: time.time() + REVIEW_MINUTES * 60 + 1
        c = s.dealer()
        c.request("next_round")
        c.request("wager", player="p1", bet="main", amount=10, area=1)
        s.deal(c, 3)
        c.request("decide", action="stand", area=1, hand=1, player="p1")
        assert s.deal(c, 1)["output"]["status"] == "settled"
        qtbot.waitUntil(lambda: "expired" in newer.text(), timeout=20000)
        assert "round 2" in newer.text() and "PIN" in newer.text(), newer.text()
        assert window.model.rowCount() == 1 and [r.id for r in window.store.list_rounds(limit=5)] == [1]
        assert copy.token == ""
    finally:
        for w in shown_windows:
            if getattr(w, "station_link", None) is not None:
                w.station_link.close()
            w.close()
        copy.close()


def test_with_no_station_the_review_goes_to_this_accounts_running_service(
        qtbot: Any, station: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``dealer-assist review`` with no ``--db``, no station.toml and no $DEALER_ASSIST_SOCKET,
    while this account's table runs (its service answers on the account's private socket, as
    ``dealer-assist`` starts it): the review is that service's client (its store is held by
    it), after sue's PIN: the copy of round 1 (p1 wins 10, 4.3.2, the module's round)."""
    from dealer_assist.service.client import dev_socket_path

    s: Station = station("10S 9H QD 8C")
    deal_a_round(s)
    monkeypatch.delenv(SOCKET_ENV, raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "xdg"))
    (tmp_path / "xdg").mkdir()
    (tmp_path / "xdg" / "dealer-assist").symlink_to(s.socket.parent)  # the account's socket is the station's
    assert dev_socket_path().resolve() == s.socket.resolve()
    seen: dict[str, Any] = {}

    def supervisor() -> None:
        try:
            gate = pin_gate(qtbot)
            gate.name.setText("sue")
            gate.pin.setText("482913")
            QTest.keyClick(gate.pin, Qt.Key.Key_Return)
            qtbot.waitUntil(lambda: any(isinstance(w, ReviewWindow) and w.isVisible()
                                        for w in QApplication.topLevelWidgets()), timeout=20000)
            review = next(w for w in QApplication.topLevelWidgets() if isinstance(w, ReviewWindow) and w.isVisible())
            seen["title"] = review.windowTitle()
            seen["rounds"] = [(r.id, r.status) for r in review.store.list_rounds(limit=5)]
            seen["net"] = review.store.get_round(1).result["net"]
            review.close()
        except BaseException as exc:
            seen["error"] = exc
            QApplication.instance().quit()  # type: ignore[union-attr]

    run_review(supervisor, seen)
    assert "a copy of the station's store" in seen["title"], seen["title"]
    assert seen["rounds"] == [(1, "settled")] and seen["net"] == {"p1": 10}
    assert s.running is not None and len(s.running.store.audit_entries(kind="review")) == 1


def test_the_reviews_copy_goes_when_its_window_closes(qtbot: Any, station: Any) -> None:
    """The copy of the station's store (every round and player) lives in a private directory
    while the review's window is open, and goes when the window closes — not when the program
    ends: from the dealer's screen the program goes on, and each review left its copy behind
    until the screen ended (or for ever, the screen killed). The review token ends with it:
    the service gives that token no copy any more. A cancelled PIN leaves no directory."""
    from dealer_assist.service.snapshot import refresh_snapshot
    s: Station = station("10S 9H QD 8C")
    deal_a_round(s)
    shown: list[Any] = []
    gate, copy = open_through_service(s, shown, lambda: None)
    gate.name.setText("sue")
    gate.pin.setText("482913")
    QTest.keyClick(gate.pin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(shown) and copy.path.exists(), timeout=20000)
    token, directory = copy.token, copy.directory
    assert token and directory.is_dir() and shown[0].store.list_rounds(limit=5)
    window = shown[0]
    if getattr(window, "station_link", None) is not None:
        window.station_link.close()
    window.close()
    qtbot.waitUntil(lambda: not directory.exists(), timeout=10000)
    with pytest.raises(ProtocolError) as ended:  # the token gives no copy any more
        refresh_snapshot(s.socket, token, directory.parent / "after.db")
    assert ended.value.code == "auth"
    assert not (directory.parent / "after.db").exists()

    gate, copy = open_through_service(s, shown, lambda: None)  # a PIN cancelled
    directory = copy.directory
    assert directory.is_dir()
    gate.reject()
    assert not directory.exists()


def test_a_copy_left_by_a_process_that_is_gone_is_removed(tmp_path: Any) -> None:
    # a review's copy whose process was killed (or the power lost) holds a whole table's
    # rounds: the next review of this account removes it; one of a running process stays
    import os
    import subprocess
    import sys

    from ui.review.from_service import COPY_PREFIX, remove_stale_copies

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    dead = tmp_path / f"{COPY_PREFIX}{int(gone.stdout)}-abc"
    alive = tmp_path / f"{COPY_PREFIX}{os.getpid()}-def"
    other = tmp_path / "dealer-assist-review-xyz"  # not a copy's name: not ours to remove
    for d in (dead, alive, other):
        d.mkdir()
        (d / "table-copy.db").write_bytes(b"rounds")
    assert remove_stale_copies(tmp_path) == [dead]
    assert not dead.exists() and alive.exists() and other.exists()
