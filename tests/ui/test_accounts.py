"""Accounts at the station through the real window (issue 17 item 3, issue 15 item 8, issue 16 item 7).

The enrolment of the first supervisor on a new store, the accounts dialog, the dealer's
shift (log-in, the change of a PIN the supervisor chose, end of shift), the lockout on
a real store file across a restart and the PIN keypad (the review's PIN gate:
tests/ui_review/test_review_file_service.py). The
window's own store hashes at the production cost (about 0.4 s a PIN); accounts that a
test makes beforehand use TEST_PIN_COST.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QLineEdit, QWidget

from dealer_assist.engine.table_setup import TableSetup
from dealer_assist.service.ops import Op
from dealer_assist.store import Store
from tests.ui.driving import TableDriver
from ui.common.accounts import AccountsDialog, EnrolmentDialog
from ui.common.keypad import KEY_SIZE
from ui.common.login import WRONG, PinDialog

MakeTable = Callable[..., TableDriver]
SETUP = TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1})
CARDS = "7H 9D 6C 8S 10H 10C 2C 5C"


def click(t: Any, button: QAbstractButton) -> None:
    t.qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def keypad_type(t: Any, dialog: Any, digits: str) -> None:
    for digit in digits:
        click(t, dialog.keypad.keys[digit])


#: The audit kinds of accounts, PINs and shifts (the station records other events too:
#: sessions, the shoe, round finishes).
ACCOUNT_KINDS = {"supervisor_enrolled", "user_created", "pin_changed", "pin_reset", "pin_rehashed",
                 "user_disabled", "user_enabled", "shift_start", "shift_end", "login", "login_failed",
                 "approval_refused", "pin_refused", "pin_lockout", "pin_locked", "review", "accounts"}


def audit(path: Path) -> list[tuple[str, str, Any]]:
    with Store.open_readonly(path) as store:
        return [(e.kind, e.actor, e.detail.get("username")) for e in store.audit_entries()
                if e.kind in ACCOUNT_KINDS]


def touch_sized(dialog: QWidget) -> list[str]:
    """Every button and field of ``dialog`` that is smaller than a touch target (48 px)."""
    small = []
    for w in dialog.findChildren(QWidget):
        if isinstance(w, (QAbstractButton, QLineEdit)) and w.isVisible() and (w.height() < 48 or w.width() < 48):
            small.append(f"{type(w).__name__} {getattr(w, 'text', lambda: '')()!r} {w.width()}x{w.height()}")
    return small


def test_first_start_enrols_a_supervisor_then_dealers_log_in(make_table: MakeTable, tmp_path: Path) -> None:
    # A new store: the first start asks for a supervisor (name, PIN twice) and makes no dealer.
    # Sue enrols, adds ann as a dealer in the accounts dialog; ann's first log-in asks her to
    # replace the PIN sue chose; her shift starts; End shift logs her out.
    t = make_table(SETUP, CARDS, login=False, users={})  # a new store: nobody
    db = t.table.store_path
    shifts = t.table.screen.shifts
    shifts.start()
    t.qtbot.waitUntil(lambda: isinstance(shifts.dialog, EnrolmentDialog) and shifts.dialog.isVisible(), timeout=5000)
    enrol = shifts.dialog
    assert isinstance(enrol, EnrolmentDialog)
    assert touch_sized(enrol) == []
    enrol.name.setText("sue")
    enrol.pin.setFocus()
    keypad_type(t, enrol, "482913")
    enrol.pin_again.setFocus()
    keypad_type(t, enrol, "482914")
    click(t, enrol.ok_button)
    assert enrol.message.text() == "The two PINs differ: enter the new PIN twice"
    enrol.pin.setText("123456")
    enrol.pin_again.setText("123456")
    click(t, enrol.ok_button)
    assert enrol.message.text() == "A PIN may not be a run of digits (such as 123456)"
    enrol.pin.setText("482913")
    enrol.pin_again.setText("482913")
    click(t, enrol.ok_button)
    # straight into the accounts dialog, as sue
    t.qtbot.waitUntil(lambda: isinstance(shifts.dialog, AccountsDialog) and shifts.dialog.isVisible(), timeout=10000)
    accounts = shifts.dialog
    assert isinstance(accounts, AccountsDialog)
    t.qtbot.waitUntil(lambda: accounts.table.rowCount() == 1, timeout=5000)
    with Store.open_readonly(db) as store:
        assert store.users() == [{"username": "sue", "disabled": False, "roles": ["supervisor"],
                                  "must_change": False, "locked_until": None}]  # no dealer
    accounts.name.setText("ann")
    accounts.pin.setText("730418")
    accounts.pin_again.setText("730418")
    click(t, accounts.add_button)
    t.qtbot.waitUntil(lambda: accounts.table.rowCount() == 2, timeout=10000)
    assert [accounts.table.item(0, c).text() for c in range(4)] == ["ann", "dealer", "active", "must change"]
    click(t, accounts.close_button)
    # the dealer's log-in
    t.qtbot.waitUntil(lambda: isinstance(shifts.dialog, PinDialog) and shifts.dialog.isVisible(), timeout=5000)
    login = shifts.dialog
    assert isinstance(login, PinDialog)
    assert touch_sized(login) == []
    login.name.setText("ann")
    login.pin.setText("730418")
    click(t, login.ok_button)
    t.qtbot.waitUntil(lambda: login.changing, timeout=10000)
    assert login.new_pin.isVisible() and "set by a supervisor" in login.message.text()
    login.new_pin.setText("561029")
    login.new_pin_again.setText("561029")
    click(t, login.ok_button)
    t.qtbot.waitUntil(lambda: not login.isVisible(), timeout=15000)
    assert t.controller.dealer == "ann" and t.window.windowTitle() == "Dealer Assist \u2014 BJ-07 \u2014 ann"
    shifts.end_shift_action.trigger()
    t.qtbot.waitUntil(lambda: isinstance(shifts.dialog, PinDialog) and shifts.dialog.isVisible()
                      and shifts.dialog is not login, timeout=5000)
    assert shifts.dialog.message.text() == "ann's shift ended."
    t.qtbot.waitUntil(lambda: ("shift_end", "ann", None) in audit(db), timeout=10000)  # the service's log-out
    assert audit(db) == [
        ("supervisor_enrolled", "sue", "sue"),
        ("user_created", "supervisor:sue", "ann"),
        ("pin_changed", "ann", "ann"),
        ("shift_start", "ann", None),
        ("shift_end", "ann", None),
    ]
    with Store.open_readonly(db) as store:
        sessions = store.db.conn.execute("SELECT dealer FROM sessions ORDER BY id").fetchall()
    assert sessions[-1] == ("ann",)  # the table's session is ann's from her log-in


def test_accounts_dialog_disables_enables_and_resets(make_table: MakeTable) -> None:
    # The accounts dialog on the station service's connection (the screen writes no store):
    # sue's accounts approval (op approve) for the dialog's connection; dan disabled, enabled
    # and his PIN reset; sue, the last active supervisor, cannot be disabled.
    from ui.common.service_link import ServiceJobs, ServiceLink

    users = {"sue": ("482913", ["supervisor"]), "dan": ("730418", ["dealer"])}
    t = make_table(SETUP, CARDS, users=users, login=False)
    link = ServiceLink(t.table.socket, "screen")
    try:
        approval = link.ask(Op.APPROVE, user="sue", pin="482913", kind="accounts")["approval"]
        dialog = AccountsDialog(ServiceJobs(link), "sue", approval)
        t.qtbot.addWidget(dialog)
        dialog.show()
        t.qtbot.waitUntil(lambda: dialog.table.rowCount() == 2, timeout=5000)
        assert touch_sized(dialog) == []
        names = [dialog.table.item(r, 0).text() for r in range(2)]
        assert names == ["dan", "sue"]
        dialog.table.selectRow(0)
        click(t, dialog.disable_button)
        t.qtbot.waitUntil(lambda: dialog.table.item(0, 2) is not None
                          and dialog.table.item(0, 2).text() == "disabled", timeout=5000)
        dialog.table.selectRow(1)
        click(t, dialog.disable_button)  # sue: the last supervisor
        t.qtbot.waitUntil(lambda: "last active supervisor" in dialog.message.text(), timeout=5000)
        dialog.table.selectRow(0)
        click(t, dialog.enable_button)
        t.qtbot.waitUntil(lambda: dialog.table.item(0, 2).text() == "active", timeout=5000)
        dialog.table.selectRow(0)
        dialog.pin.setText("902716")
        dialog.pin_again.setText("902716")
        click(t, dialog.reset_button)
        t.qtbot.waitUntil(lambda: dialog.table.item(0, 3).text() == "must change", timeout=5000)
        # without a valid approval nothing changes: the service asks for a supervisor's PIN
        unapproved = AccountsDialog(ServiceJobs(link), "sue", None)
        t.qtbot.addWidget(unapproved)
        unapproved.name.setText("eve")
        unapproved.pin.setText("561029")
        unapproved.pin_again.setText("561029")
        click(t, unapproved.add_button)
        t.qtbot.waitUntil(lambda: "supervisor's PIN is needed" in unapproved.message.text(), timeout=5000)
    finally:
        link.close()
    db = t.table.store_path
    with Store.open_readonly(db) as store:
        assert [u["username"] for u in store.users()] == ["dan", "sue"]  # no eve: not approved
    assert audit(db)[-3:] == [("user_disabled", "supervisor:sue", "dan"), ("user_enabled", "supervisor:sue", "dan"),
                              ("pin_reset", "supervisor:sue", "dan")]


def test_wrong_pins_lock_the_log_in_across_a_restart(make_table: MakeTable, tmp_path: Path) -> None:
    # Three wrong PINs lock ann for 30 s; the right PIN is then refused, also after the
    # station is restarted on the same store file. Each attempt is in the audit log.
    db = tmp_path / "table.db"
    users = {"sue": ("482913", ["supervisor"]), "ann": ("730418", ["dealer"])}
    t = make_table(SETUP, CARDS, db=db, users=users, login=False)
    shifts = t.table.screen.shifts
    shifts.start()
    t.qtbot.waitUntil(lambda: isinstance(shifts.dialog, PinDialog) and shifts.dialog.isVisible(), timeout=5000)
    login = shifts.dialog
    assert isinstance(login, PinDialog)

    def attempt(pin: str) -> str:
        login.name.setText("ann")
        login.pin.setText(pin)
        click(t, login.ok_button)
        t.qtbot.waitUntil(lambda: login.ok_button.isEnabled(), timeout=10000)
        return login.message.text()

    assert attempt("111111") == WRONG
    assert attempt("222222") == WRONG
    assert attempt("333333").startswith("wrong name or PIN: too many wrong PINs, locked until ")
    assert attempt("730418").startswith("locked until ")
    assert login.isVisible()
    t.table.close()
    # the station restarts on the same file
    t2 = make_table(SETUP, CARDS, db=db, login=False)
    shifts2 = t2.table.screen.shifts
    shifts2.start()
    t2.qtbot.waitUntil(lambda: isinstance(shifts2.dialog, PinDialog) and shifts2.dialog.isVisible(), timeout=5000)
    again = shifts2.dialog
    assert isinstance(again, PinDialog)
    again.name.setText("ann")
    again.pin.setText("730418")
    click(t2, again.ok_button)
    t2.qtbot.waitUntil(lambda: again.ok_button.isEnabled(), timeout=10000)
    assert again.message.text().startswith("locked until ")
    kinds = [k for k, actor, _ in audit(db) if actor == "ann"]
    # attempts on a locked name are counted in the service's summary rows (pin_refusals, a
    # flood never floods the log), not one entry each
    assert kinds == ["login_failed", "login_failed", "login_failed", "pin_lockout"]


def test_keys_typed_and_keypad_fill_the_pin_field(qtbot: Any) -> None:
    answers: list[tuple[str, str]] = []
    dialog = PinDialog("Log in", "why", lambda name, pin, done: answers.append((name, pin)), lambda name: None)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.name.setText("ann")
    dialog.pin.setFocus()
    qtbot.keyClicks(dialog.pin, "73")
    for digit in "0418":
        qtbot.mouseClick(dialog.keypad.keys[digit], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.keypad.keys["erase"], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.keypad.keys["8"], Qt.MouseButton.LeftButton)
    assert dialog.pin.text() == "730418"
    assert all(k.width() >= KEY_SIZE and k.height() >= KEY_SIZE for k in dialog.keypad.keys.values())
    assert touch_sized(dialog) == []
    qtbot.keyClick(dialog.pin, Qt.Key.Key_Return)
    assert answers == [("ann", "730418")] and dialog.pin.text() == ""  # the PIN is not kept


def test_a_void_is_written_with_its_approval_and_its_result(make_table: MakeTable) -> None:
    # Ace Race: alice's wager, no more bets, two cards; the supervisor voids the round
    # (5.1). The void, its settle output (every wager returned) and the use of sue's
    # approval are one write; the file verifies.
    users = {"sue": ("482913", ["supervisor"])}
    t = make_table(TableSetup(game="ace_race", decks=6, areas=7, seated={"alice": 1}), CARDS, users=users)
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal(2)
    click(t, t.window.report_buttons["void"])
    dialog = t.window.pin_dialog
    assert dialog is not None
    dialog.name.setText("sue")
    keypad_type(t, dialog, "482913")
    click(t, dialog.ok_button)
    t.qtbot.waitUntil(lambda: t.controller.rnd.status() == "void", timeout=15000)
    t.settled_writes()
    assert t.controller.store_error == ""
    rid = t.controller.round_id
    with Store.open_readonly(t.table.store_path) as store:
        assert [e["type"] for e in store.events(rid)] == ["wager", "no_more_bets", "card", "card", "void"]
        detail = store.get_round(rid)
        assert detail is not None and detail.summary.status == "void"
        assert [(s["player"], s["result"], s["rule"]) for s in detail.settlements] == [("alice", "returned", "5.1")]
        used = store.audit_entries(round_id=rid, kind="authority_used")
        assert [(u.actor, u.detail["seq"], u.detail["event"]) for u in used] == [("sue", 4, "void")]
        assert store.verify().ok


def test_accounts_from_the_log_in_need_a_supervisors_pin(make_table: MakeTable) -> None:
    # On the log-in dialog, *Accounts (supervisor)…* asks for a supervisor's PIN: a dealer's
    # PIN opens nothing; sue's opens the accounts dialog; closing it leaves the log-in.
    users = {"sue": ("482913", ["supervisor"]), "ann": ("730418", ["dealer"])}
    t = make_table(SETUP, CARDS, users=users, login=False)
    shifts = t.table.screen.shifts
    shifts.start()
    t.qtbot.waitUntil(lambda: isinstance(shifts.dialog, PinDialog) and shifts.dialog.isVisible(), timeout=5000)
    login = shifts.dialog
    click(t, shifts.accounts_button)
    gate = shifts.dialog
    assert isinstance(gate, PinDialog) and gate is not login and gate.isVisible()
    assert "Supervisor PIN required to manage accounts" in gate.reason.text()
    gate.name.setText("ann")
    gate.pin.setText("730418")
    click(t, gate.ok_button)
    t.qtbot.waitUntil(lambda: gate.message.text() == WRONG, timeout=10000)
    gate.name.setText("sue")
    gate.pin.setText("482913")
    click(t, gate.ok_button)
    t.qtbot.waitUntil(lambda: isinstance(shifts.dialog, AccountsDialog) and shifts.dialog.isVisible(), timeout=10000)
    accounts = shifts.dialog
    assert isinstance(accounts, AccountsDialog) and accounts.supervisor == "sue"
    click(t, accounts.close_button)
    t.qtbot.waitUntil(lambda: shifts.dialog is login, timeout=5000)
    assert login.isVisible()
