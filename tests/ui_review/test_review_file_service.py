"""``dealer-assist review --db FILE`` through the store's review service (issue 33: no store
writes in ui/), run in this process (``dealer_assist.cli.main``, as root on CI): the command
starts ``station serve --review FILE`` (a child process, its own socket), the supervisor's
PIN is checked by that service (its lock-out, audited), the window reads the file, a note is
written by the service (op add_note), and the service is stopped when the review closes.
These look at the window's own objects (the gate's lock-out, a store with no supervisor,
the lock seen from the review's process); the person's path, the review run by a pit
supervisor's own OS account in its own process, is test_review_as_account.py's. The store is
tests/ui_review/conftest.py's: sue a supervisor (482913), ann a dealer (730418), seven
recorded rounds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from dealer_assist.cli import main
from dealer_assist.service.station import StationLock
from dealer_assist.store import TEST_PIN_COST, Store
from tests.ui_review.conftest import ANN_PIN, SUE_PIN, Recorded
from ui.common.login import WRONG, PinDialog
from ui.review.app import ReviewWindow
from ui.review.note import NoteDialog


def _visible(kind: type) -> Any:
    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()), None)


def _drive(qtbot: Any, steps: Callable[[], None], seen: dict[str, Any]) -> None:
    """Run ``steps`` on the review's event loop once it turns; an error ends the review."""
    def run() -> None:
        try:
            steps()
        except BaseException as exc:  # noqa: BLE001 - raised again by the test
            seen["error"] = exc
            for w in QApplication.topLevelWidgets():
                w.close()
            QApplication.instance().quit()  # type: ignore[union-attr]

    QTimer.singleShot(0, run)


def _one_window_activated(qtbot: Any) -> None:
    """Qt's offscreen platform, after a review that ended at its gate in this process (no window
    of it activated after the gate): the next window shown is not activated until one is (the
    station's review cancelled at its PIN does the same). One is, as the tests after expect."""
    from PySide6.QtWidgets import QWidget

    widget = QWidget()
    qtbot.addWidget(widget)
    widget.show()
    widget.activateWindow()
    qtbot.waitUntil(widget.isActiveWindow, timeout=5000)


def _pin(qtbot: Any, gate: PinDialog, name: str, pin: str) -> str:
    """``name`` and ``pin`` entered at the gate; the answer's line (or "" once it is gone)."""
    gate.name.setText(name)
    gate.pin.setText(pin)
    QTest.keyClick(gate.pin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: gate.ok_button.isEnabled() or not gate.isVisible(), timeout=30000)
    return gate.message.text() if gate.isVisible() else ""


def _audit(path: Path) -> list[tuple[str, str, int | None, dict[str, Any]]]:
    with Store.open_readonly(path) as store:
        return [(e.kind, e.actor, e.round_id, e.detail) for e in store.audit_entries()]


def test_the_review_command_in_this_process_gates_notes_and_holds_the_store(
        qtbot: Any, recorded: Recorded) -> None:
    before = len(_audit(recorded.path))
    rid = recorded.ids["ace_race"]
    seen: dict[str, Any] = {}

    def supervisor() -> None:
        qtbot.waitUntil(lambda: _visible(PinDialog) is not None, timeout=60000)
        gate = _visible(PinDialog)
        assert _visible(ReviewWindow) is None  # nothing of the store before a supervisor's PIN
        seen["dealer"] = _pin(qtbot, gate, "ann", ANN_PIN)  # a dealer is not a supervisor
        seen["sue"] = _pin(qtbot, gate, "sue", SUE_PIN)
        qtbot.waitUntil(lambda: _visible(ReviewWindow) is not None, timeout=30000)
        review = _visible(ReviewWindow)
        seen["file"] = review.db_path
        seen["rows"] = review.model.rowCount()
        assert review.select_round(rid)
        qtbot.waitUntil(lambda: review.detail.round_id == rid, timeout=20000)
        review.detail.note_button.click()
        qtbot.waitUntil(lambda: _visible(NoteDialog) is not None, timeout=20000)
        note = _visible(NoteDialog)
        note.text.setPlainText("player says she doubled")
        note.name.setText("ann")
        note.pin.setText(ANN_PIN)
        seen["refused"] = (note.submit(), note.message.text())
        note.name.setText("sue")
        note.pin.setText(SUE_PIN)
        seen["noted"] = (note.submit(), note.note_id)
        # while the review runs its service holds the store: a table's service is refused it
        lock = StationLock(recorded.path)
        try:
            lock.acquire()
        except Exception as exc:  # noqa: BLE001 - its words are checked below
            seen["held"] = str(exc)
        else:
            lock.release()
        review.close()  # the last window: the review ends, its service is stopped

    _drive(qtbot, supervisor, seen)
    assert main(["review", "--db", str(recorded.path)]) == 0
    if "error" in seen:
        raise seen["error"]
    assert seen["dealer"] == WRONG and seen["sue"] == ""
    assert seen["file"] == recorded.path and seen["rows"] == 7  # the file itself, all its rounds
    assert seen["refused"][0] is False and seen["refused"][1].startswith("Name or PIN not accepted"), seen["refused"]
    assert seen["noted"][0] is True
    assert "in use by another Dealer Assist" in seen["held"], seen["held"]
    after = _audit(recorded.path)[before:]
    # ann's PIN refused for an approval (twice: at the gate, at the note); sue's review
    # approval; sue's hash was made at the test cost: the service's store re-hashes it at its
    # own; the note by sue on the round, under the id the service answered
    kinds = [(kind, actor) for kind, actor, _, _ in after]
    assert kinds == [("approval_refused", "ann"), ("pin_rehashed", "store"), ("review", "sue"),
                     ("approval_refused", "ann"), ("note", "supervisor:sue")], kinds
    notes = [(a.id, a.round_id, a.detail) for a in Store.open_readonly(recorded.path).audit_entries(kind="note")]
    assert notes == [(seen["noted"][1], rid, {"text": "player says she doubled"})]
    lock = StationLock(recorded.path)  # the review service is gone: the store is free again
    lock.acquire()
    lock.release()


def test_wrong_pins_lock_the_supervisor_out_of_the_review(qtbot: Any, recorded: Recorded) -> None:
    """Three wrong PINs lock sam (the store's lock-out, docs/store.md: locked 30 s from the 3rd
    consecutive failure; sam is not the last supervisor, sue is another, so he may be locked);
    his right PIN is then refused too, and the review stays closed."""
    with Store.open(recorded.path, pin_cost=TEST_PIN_COST) as store:
        store.create_user("sam", "615243", roles=["supervisor"], actor="test")
    seen: dict[str, Any] = {}

    def supervisor() -> None:
        qtbot.waitUntil(lambda: _visible(PinDialog) is not None, timeout=60000)
        gate = _visible(PinDialog)
        seen["answers"] = [_pin(qtbot, gate, "sam", pin) for pin in ("111111", "222222", "333333", "615243")]
        seen["window"] = _visible(ReviewWindow)
        gate.reject()  # Cancel: the review ends

    _drive(qtbot, supervisor, seen)
    assert main(["review", "--db", str(recorded.path)]) == 0
    _one_window_activated(qtbot)
    if "error" in seen:
        raise seen["error"]
    first, second, third, right = seen["answers"]
    assert first == WRONG and second == WRONG
    assert "locked until" in third and "locked until" in right, seen["answers"]
    assert seen["window"] is None
    with Store.open_readonly(recorded.path) as store:
        # each failure audited, and the lock that starts (docs/store.md, Lockout); the try while
        # locked is in the service's summary of refusals, not an entry of its own
        kinds = [e.kind for e in store.audit_entries() if e.actor == "sam"]
        assert kinds == ["approval_refused", "approval_refused", "approval_refused", "pin_lockout"], kinds
        assert store.audit_entries(kind="review") == []


def test_a_store_with_no_supervisor_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "new.db"
    Store.open(db, pin_cost=TEST_PIN_COST).close()
    assert main(["review", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the review service did not start: ") and "no supervisor yet" in err, err
