"""Accounts at the station (issue 17 item 3): enrolment, the accounts dialog, shifts.

- A new store has no accounts. Its first start asks for a supervisor to be enrolled
  (name, and the PIN twice) and creates no dealer: the supervisor then adds the dealers
  in the accounts dialog, which opens straight after the enrolment.
- The accounts dialog is behind the supervisor PIN: supervisors add dealers (and other
  supervisors), disable and enable accounts, and reset a PIN (the account must change it
  at its next log-in). The store refuses each change without a supervisor's approval
  and records it in the audit log with the supervisor's name.
- A dealer's shift starts with a log-in (name + PIN) and ends with *End shift*; both are
  recorded in the store's audit log (``shift_start`` / ``shift_end``).

Every account call goes to the station service (:class:`ui.common.service_link.ServiceJobs`,
answered on the GUI thread): the service checks the PINs and writes the store; its PIN
hashing (scrypt, about a third of a second) never blocks the screen.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from dealer_assist.cli.common import DEV_MODE_VARIABLE
from ui.common.keypad import PinKeypad, fit_dialog
from ui.common.login import (
    PinDialog,
    ask_supervisor,
    message_line,
    pin_field,
    pin_problem,
    show_message,
    touch_button,
)
from ui.common.screen_fit import ScreenDialog, touch_header
from ui.common.service_link import ServiceJobs


def development_mode() -> bool:
    return os.environ.get(DEV_MODE_VARIABLE) == "1"


def _title(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setStyleSheet("font-size: 20px; font-weight: bold;")
    return label


def _name_field() -> QLineEdit:
    field = QLineEdit()
    field.setMinimumHeight(48)
    field.setStyleSheet("font-size: 22px;")
    return field


class _PinPair:
    """A PIN entered twice with its keypad and the refusal line below them (enrolment and
    the accounts dialog)."""

    def __init__(self, layout: QVBoxLayout, form: QFormLayout, pin_label: str) -> None:
        self.pin = pin_field()
        self.pin_again = pin_field()
        form.addRow(pin_label, self.pin)
        form.addRow("PIN again", self.pin_again)
        layout.addLayout(form)
        self.keypad = PinKeypad([self.pin, self.pin_again])
        layout.addWidget(self.keypad)
        self.message = message_line()
        layout.addWidget(self.message)


class EnrolmentDialog(ScreenDialog):
    """First start on a new store: enrol a supervisor (name, PIN twice). No dealer is created."""

    def __init__(self, jobs: ServiceJobs, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.jobs = jobs
        self.enrolled: str | None = None
        self.approval: int | None = None
        self.setWindowTitle("Enrol the first supervisor")
        layout = QVBoxLayout(self)
        layout.addWidget(_title(
            "This store has no accounts yet. Enrol the first supervisor: a name and a PIN of at "
            "least 6 digits, entered twice. No dealer account is made: the supervisor adds the "
            "dealers next."))
        form = QFormLayout()
        self.name = _name_field()
        form.addRow("Supervisor's name", self.name)
        # a station's first enrolment: root's one-time code (dealer-assist station enrol-code)
        self.code = QLineEdit()
        self.code.setPlaceholderText("from root: dealer-assist station enrol-code")
        self.code_needed = bool(getattr(jobs, "code_needed", False))
        if self.code_needed:
            form.addRow("Enrolment code", self.code)
        pins = _PinPair(layout, form, "PIN")
        self.pin, self.pin_again, self.keypad, self.message = pins.pin, pins.pin_again, pins.keypad, pins.message
        row = QHBoxLayout()
        self.cancel_button = touch_button("Quit")
        self.cancel_button.clicked.connect(self.reject)
        self.ok_button = touch_button("Enrol")
        self.ok_button.setProperty("role", "confirm")
        self.ok_button.clicked.connect(self.submit)
        row.addWidget(self.cancel_button)
        row.addWidget(self.ok_button)
        layout.addLayout(row)
        self.name.returnPressed.connect(self.pin.setFocus)  # Enter moves on; the last PIN's Enter submits
        self.pin.returnPressed.connect(self.pin_again.setFocus)
        self.pin_again.returnPressed.connect(self.submit)
        fit_dialog(self)

    def submit(self) -> None:
        name = self.name.text().strip()
        pin, again = self.pin.text(), self.pin_again.text()
        self.pin.clear()
        self.pin_again.clear()
        if not name:
            show_message(self.message, "Enter the supervisor's name")
            return
        problem = pin_problem(pin, again)
        if problem:
            show_message(self.message, problem)
            return
        self.ok_button.setEnabled(False)
        show_message(self.message, "enrolling\u2026", ok=True)

        def done(result: int | None, error: str) -> None:
            self.ok_button.setEnabled(True)
            if error:
                show_message(self.message, error)
                return
            self.enrolled = name
            self.approval = result
            show_message(self.message, "")
            self.accept()

        if self.code_needed:
            self.jobs.enrol(name, pin, done, code=self.code.text().strip())
        else:
            self.jobs.enrol(name, pin, done)


class ConfirmDialog(ScreenDialog):
    """A question with two large answers: *no* (left, also Escape) and *yes*."""

    def __init__(self, title: str, question: str, no: str, yes: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        layout = QVBoxLayout(self)
        layout.addWidget(_title(question))
        row = QHBoxLayout()
        self.no_button = touch_button(no)
        self.no_button.clicked.connect(self.reject)
        self.yes_button = touch_button(yes)
        self.yes_button.setProperty("role", "danger")
        self.yes_button.clicked.connect(self.accept)
        row.addWidget(self.no_button)
        row.addWidget(self.yes_button)
        layout.addLayout(row)
        fit_dialog(self)


class AccountsDialog(ScreenDialog):
    """A supervisor's accounts: add, disable / enable, reset a PIN. Opened behind the PIN."""

    COLUMNS = ("Name", "Roles", "State", "PIN")

    def __init__(self, jobs: ServiceJobs, supervisor: str, approval: int | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.jobs = jobs
        self.supervisor = supervisor
        self.approval = approval
        self.accounts: list[dict[str, Any]] = []
        self.setWindowTitle(f"Accounts \u2014 supervisor {supervisor}")
        layout = QVBoxLayout(self)
        layout.addWidget(_title("Dealers and supervisors of this station. Every change is recorded "
                                f"with your name ({supervisor})."))
        # two columns, the accounts and the new account's PIN with its keypad: the dialog
        # fits a 768 px screen (issue 34: Add account and Close were off-screen)
        columns = QHBoxLayout()
        left = QVBoxLayout()
        self.table = QTableWidget(0, len(self.COLUMNS))
        self.table.setHorizontalHeaderLabels(list(self.COLUMNS))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setDefaultSectionSize(48)  # rows are touch targets
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # the names take the room left
        touch_header(header)
        self.table.setMinimumHeight(220)
        self.table.setMinimumWidth(420)
        left.addWidget(self.table, 1)
        row = QHBoxLayout()
        self.disable_button = touch_button("Disable")
        self.disable_button.clicked.connect(lambda: self._set_disabled(True))
        self.enable_button = touch_button("Enable")
        self.enable_button.clicked.connect(lambda: self._set_disabled(False))
        self.reset_button = touch_button("Reset PIN")
        self.reset_button.clicked.connect(self.reset_pin)
        for b in (self.disable_button, self.enable_button, self.reset_button):
            row.addWidget(b)
        left.addLayout(row)
        columns.addLayout(left, 1)
        right = QVBoxLayout()
        form = QFormLayout()
        self.name = _name_field()
        self.supervisor_role = QCheckBox("Supervisor too (voids, corrections, accounts)")
        self.supervisor_role.setMinimumHeight(48)
        self.supervisor_role.setStyleSheet("QCheckBox::indicator { width: 32px; height: 32px; }")
        form.addRow("New account", self.name)
        form.addRow("", self.supervisor_role)
        pins = _PinPair(right, form, "PIN (new or reset)")
        self.pin, self.pin_again, self.keypad, self.message = pins.pin, pins.pin_again, pins.keypad, pins.message
        right.addStretch(1)
        columns.addLayout(right)
        layout.addLayout(columns, 1)
        bottom = QHBoxLayout()
        self.add_button = touch_button("Add account")
        self.add_button.clicked.connect(self.add_account)
        self.close_button = touch_button("Close")
        self.close_button.clicked.connect(self.accept)
        bottom.addWidget(self.add_button)
        bottom.addStretch(1)
        bottom.addWidget(self.close_button)
        layout.addLayout(bottom)
        self.setMinimumWidth(960)  # the two columns side by side
        self.refresh()

    @property
    def actor(self) -> str:
        return f"supervisor:{self.supervisor}"

    def refresh(self) -> None:
        def done(result: list[dict[str, Any]] | None, error: str) -> None:
            if error:
                show_message(self.message, error)
                return
            self.accounts = list(result or [])
            self.table.setRowCount(len(self.accounts))
            for i, user in enumerate(self.accounts):
                cells = (user["username"], ", ".join(user["roles"]),
                         "disabled" if user["disabled"] else "active",
                         "must change" if user.get("must_change") else "")
                for j, text in enumerate(cells):
                    self.table.setItem(i, j, QTableWidgetItem(text))

        self.jobs.users(done)

    def selected(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        item = self.table.item(rows[0].row(), 0)
        return item.text() if item is not None else None

    def _after(self, what: str) -> Callable[[Any, str], None]:
        def done(_: Any, error: str) -> None:
            show_message(self.message, error or what, ok=not error)  # done: not in the refusal's red
            self.refresh()
        return done

    def _new_pin(self) -> str | None:
        pin, again = self.pin.text(), self.pin_again.text()
        self.pin.clear()
        self.pin_again.clear()
        problem = pin_problem(pin, again)
        if problem:
            show_message(self.message, problem)
            return None
        return pin

    def add_account(self) -> None:
        name = self.name.text().strip()
        if not name:
            show_message(self.message, "Enter the new account's name")
            return
        pin = self._new_pin()
        if pin is None:
            return
        roles = ["dealer", "supervisor"] if self.supervisor_role.isChecked() else ["dealer"]
        approval = self.approval
        self.name.clear()
        self.jobs.add_account(name, pin, roles, approval, self.actor, self._after(f"{name} added ({', '.join(roles)}): they must change the PIN at their first log-in"))

    def _set_disabled(self, disabled: bool) -> None:
        name = self.selected()
        if name is None:
            show_message(self.message, "Select an account first")
            return
        approval = self.approval
        self.jobs.set_disabled(name, disabled, approval, self.actor, self._after(f"{name} {'disabled' if disabled else 'enabled'}"))

    def reset_pin(self) -> None:
        name = self.selected()
        if name is None:
            show_message(self.message, "Select an account first")
            return
        pin = self._new_pin()
        if pin is None:
            return
        approval = self.approval
        self.jobs.reset_pin(name, pin, approval, self.actor, self._after(f"{name}'s PIN reset: it must be changed at the next log-in"))


# --------------------------------------------------------------------------- the station's flow


class Shifts:
    """The dealer's screen's accounts flow: enrol, log in, end a shift, the accounts dialog.

    ``controller`` is the table controller (its link's jobs, its ``start_shift``);
    ``window`` the dealer's window the dialogs belong to.
    """

    def __init__(self, controller: Any, window: QMainWindow, jobs: Any = None) -> None:
        self.controller = controller
        self.window = window
        # the service's (ui.common.service_link.ServiceJobs): the controller's link, unless given
        self.jobs = jobs if jobs is not None else controller.jobs
        self.dialog: QDialog | None = None  # the one open now (tests look at it)
        self.dealer: str | None = None
        # the window title for the dealer logged in (None: nobody); ui/dealer/app.py puts the
        # station's table and SIMULATED SHOE in it
        self.title: Callable[[str | None], str] = (
            lambda name: f"Dealer Assist \u2014 {name or 'nobody logged in'}")
        menu = window.menuBar().addMenu("&Station")
        self.end_shift_action = QAction("&End shift (log out)", window)
        self.end_shift_action.setShortcut(QKeySequence("Ctrl+L"))
        self.end_shift_action.triggered.connect(self.end_shift)
        self.accounts_action = QAction("&Accounts (supervisor)\u2026", window)
        self.accounts_action.triggered.connect(self.open_accounts)
        menu.addAction(self.end_shift_action)
        menu.addAction(self.accounts_action)

    def start(self) -> None:
        """At launch: enrolment on a store with no supervisor, then the dealer's log-in."""
        def known(needs: bool | None, error: str) -> None:
            if error:
                self._log_in(f"The store cannot be read: {error}")
            elif needs:
                self._enrol()
            else:
                self._log_in()

        self.jobs.needs_enrolment(known)

    def _enrol(self) -> None:
        dialog = EnrolmentDialog(self.jobs, self.window)
        self.dialog = dialog

        def enrolled() -> None:
            assert dialog.enrolled is not None
            self._accounts(dialog.enrolled, dialog.approval, then=self._log_in)

        dialog.accepted.connect(enrolled)
        dialog.rejected.connect(self.window.close)
        dialog.open()

    def _log_in(self, note: str = "") -> None:
        def check(name: str, pin: str, done: Callable[[Any], None]) -> None:
            self.jobs.log_in(name, pin, done)

        def logged_in(name: str) -> None:
            self.dealer = name
            self.controller.start_shift(name)
            self.window.setWindowTitle(self.title(name))

        dialog = PinDialog("Log in", "Dealer's log-in: your name and PIN start your shift",
                           check, logged_in, self.window, change=self.jobs.change_pin)
        if note:
            show_message(dialog.message, note, ok=not note.startswith("The store cannot"))
        accounts = touch_button("Accounts (supervisor)\u2026")
        accounts.clicked.connect(self.open_accounts)
        dialog.add_button(accounts)
        self.accounts_button = accounts
        dialog.rejected.connect(self._login_cancelled)
        self.dialog = dialog
        self.login_dialog = dialog
        dialog.open()

    def _login_cancelled(self) -> None:
        # Escape / Cancel on the log-in clears it and asks again (issue 34): it never quits
        # the station's program, and nobody deals without a shift. Asked on the next turn of
        # the event loop: when the program itself is quitting (Qt 6's quit() closes every
        # window first, the log-in with them), the loop has ended and nothing is asked.
        QTimer.singleShot(0, self._ask_again)

    def _ask_again(self) -> None:
        if self.dialog is self.login_dialog and self.dealer is None and not self.window.isHidden():
            self._log_in("Log-in cancelled. Enter your name and PIN to start a shift.")

    def open_work(self) -> str:
        """What a shift ending now would leave open, in words ("" when nothing is)."""
        c = self.controller
        if getattr(c, "rnd", None) is not None and getattr(c, "round_id", None) is not None and not c.concluded:
            return (f"Round {c.round_id} is in play (not settled): it stays open for the next dealer, "
                    "who finishes it.")
        slip = list(getattr(c, "slip", []) or [])
        if getattr(c, "betting", False) and slip:
            return f"{len(slip)} wager(s) are on the layout and no card is dealt yet: they stay for the next dealer."
        return ""

    def end_shift(self) -> None:
        """The dealer logs out; the screen waits for the next dealer's log-in. Mid-round it
        asks first and says what stays open (issue 34)."""
        if self.dealer is None:
            return
        work = self.open_work()
        if not work:
            self._end_shift()
            return
        ask = ConfirmDialog("End shift?", f"End {self.dealer}'s shift now? {work}",
                            "Keep the shift", "End shift anyway", self.window)
        self.dialog = ask
        self.end_shift_question = ask
        ask.accepted.connect(self._end_shift)
        ask.open()

    def _end_shift(self) -> None:
        name = self.dealer
        if name is None:
            return
        self.dealer = None
        self.controller.end_shift(name)
        self.window.setWindowTitle(self.title(None))
        self._log_in(f"{name}'s shift ended.")

    def open_accounts(self) -> None:
        """The accounts dialog, behind a supervisor's PIN."""
        parent: QWidget = self.dialog if isinstance(self.dialog, PinDialog) and self.dialog.isVisible() else self.window
        back = self.dialog

        def approved(name: str, approval: int | None) -> None:
            self._accounts(name, approval, then=lambda: self._reopen(back))

        gate = ask_supervisor(parent, self.jobs, "accounts", "Accounts",
                              "Supervisor PIN required to manage accounts", approved)
        self.dialog = gate
        self.gate = gate
        gate.open()

    def _reopen(self, back: QDialog | None) -> None:
        self.dialog = back

    def _accounts(self, supervisor: str, approval: int | None, *, then: Callable[[], None]) -> None:
        dialog = AccountsDialog(self.jobs, supervisor, approval, self.window)
        self.dialog = dialog
        self.accounts_dialog = dialog
        dialog.finished.connect(lambda _: then())
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.open()
