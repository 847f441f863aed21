"""Log in as dealer; the supervisor's PIN for supervisor actions (void, correction, resolve, ...).

PINs are checked by the store (salted scrypt, a lockout after a few wrong PINs) on the
store's worker thread; the dialogs never block the GUI thread and keep a PIN only until
its check has answered. Every PIN field has an on-screen keypad (issue 16 item 7); a PIN
typed on a keyboard works as well.

A PIN the store asks to be changed (a 4-digit PIN from before PINs had 6 digits, or a PIN
a supervisor reset) is changed in the same dialog before the log-in or the approval goes
through: the dialog asks for the new PIN twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from PySide6.QtCore import QEvent, QTimer
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from dealer_assist.store import MIN_PIN_DIGITS, PinCheck, new_pin_problem
from ui.common.keypad import KEY_SIZE, PinKeypad, fit_dialog
from ui.common.screen_fit import ScreenDialog, fit_to_screen

WRONG = "Wrong name or PIN, or not allowed"

#: ``check(name, pin, done)``: the store's answer comes back through ``done`` (a
#: :class:`PinCheck`, or a plain bool from older callers).
Check = Callable[[str, str, Callable[[Any], None]], None]
#: ``change(name, old_pin, new_pin, done)``: replace a PIN the store asked to be changed.
Change = Callable[[str, str, str, Callable[[PinCheck], None]], None]


class PinChecker(Protocol):
    """What :func:`ask_supervisor` needs of the table controller."""

    def approve(self, supervisor: str, pin: str, kind: str, done: Callable[[Any], None],
                detail: dict[str, Any] | None = None) -> None: ...

    def change_pin(self, name: str, old_pin: str, new_pin: str, done: Callable[[PinCheck], None]) -> None: ...


def as_check(answer: Any) -> PinCheck:
    """A store answer as a :class:`PinCheck` (a bare bool is a plain yes / wrong)."""
    if isinstance(answer, PinCheck):
        return answer
    return PinCheck(ok=bool(answer), reason="" if answer else "wrong")


def answer_text(check: PinCheck) -> str:
    """What the dialog says about a refused PIN."""
    if check.reason == "locked" and check.locked_until:
        return f"Too many wrong PINs: locked until {check.locked_until} UTC. The attempt is recorded."
    if check.reason == "must_change" and check.message:
        return check.message
    if check.message:
        return check.message
    if check.locked_until:
        return f"{WRONG}. Too many wrong PINs: locked until {check.locked_until} UTC"
    return WRONG


def show_message(label: QLabel, text: str, *, ok: bool = False) -> None:
    """A dialog's message line: a refusal in red, anything else (done, checking...) not."""
    role = "notice" if ok and text else "refusal"
    if label.property("role") != role:
        label.setProperty("role", role)
        label.style().unpolish(label)
        label.style().polish(label)
    label.setText(text)
    label.setVisible(bool(text))  # no empty red bar (issue 34)


def message_line() -> QLabel:
    """A dialog's message line, hidden while it has nothing to say."""
    label = QLabel("")
    label.setWordWrap(True)
    label.setProperty("role", "refusal")
    label.setVisible(False)
    return label


def pin_field() -> QLineEdit:
    field = QLineEdit()
    field.setEchoMode(QLineEdit.EchoMode.Password)
    field.setMaxLength(12)
    field.setMinimumHeight(48)
    field.setStyleSheet("font-size: 22px;")
    return field


def touch_button(text: str) -> QPushButton:
    button = QPushButton(text)
    button.setMinimumSize(max(KEY_SIZE, 120), KEY_SIZE)
    button.setStyleSheet("font-size: 20px;")
    return button


class PinDialog(ScreenDialog):
    """Ask for a name and PIN; ``check(name, pin, done)`` answers through ``done``.

    ``on_ok(name)`` runs once the PIN was accepted (after a required change, if any).
    """

    def __init__(self, title: str, why: str, check: Check, on_ok: Callable[[str], None],
                 parent: QWidget | None = None, *, change: Change | None = None, name: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self._check = check
        self._change = change
        self._on_ok = on_ok
        self._old_pin = ""  # held only while a required change is being entered
        self.last_check: PinCheck | None = None
        layout = QVBoxLayout(self)
        self.reason = QLabel(why)
        self.reason.setWordWrap(True)
        self.reason.setStyleSheet("font-size: 20px; font-weight: bold;")
        layout.addWidget(self.reason)
        form = QFormLayout()
        self.name = QLineEdit(name)
        self.name.setMinimumHeight(48)
        self.name.setStyleSheet("font-size: 22px;")
        self.pin = pin_field()
        self.new_pin = pin_field()
        self.new_pin_again = pin_field()
        self._form = form
        form.addRow("Name", self.name)
        form.addRow("PIN", self.pin)
        self.new_label = QLabel(f"New PIN ({MIN_PIN_DIGITS}+ digits)")
        self.again_label = QLabel("New PIN again")
        form.addRow(self.new_label, self.new_pin)
        form.addRow(self.again_label, self.new_pin_again)
        layout.addLayout(form)
        self.keypad = PinKeypad([self.pin, self.new_pin, self.new_pin_again])
        layout.addWidget(self.keypad)
        self.message = message_line()
        layout.addWidget(self.message)
        buttons = QHBoxLayout()
        self.ok_button = touch_button("OK")
        self.ok_button.setProperty("role", "confirm")
        self.ok_button.clicked.connect(self.submit)
        self.cancel_button = touch_button("Cancel")
        self.cancel_button.clicked.connect(self.reject)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.ok_button)
        layout.addLayout(buttons)
        self.name.returnPressed.connect(self.pin.setFocus)  # Enter moves on; the PIN's Enter submits
        self.pin.returnPressed.connect(self.submit)
        self.new_pin.returnPressed.connect(self.new_pin_again.setFocus)
        self.new_pin_again.returnPressed.connect(self.submit)
        self._show_change(False)
        (self.pin if name else self.name).setFocus()

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt's name)
        fit_dialog(self)  # after any widget a caller added (ask_supervisor's extra)
        super().showEvent(event)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        """Shown while the window behind it moves to a screen of another scale (its style
        sheet's sizes: keys and buttons 67 px high at 1920×1080): fitted again, once laid out
        in the new sizes (issue 34: the keypad's last row was under *Cancel* and *OK*)."""
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange) and self.isVisible():
            QTimer.singleShot(0, self._fit_again)

    def _fit_again(self) -> None:
        if self.isVisible():
            fit_dialog(self)
            fit_to_screen(self)

    def add_button(self, button: QPushButton) -> None:
        """Another action under the dialog's own buttons (e.g. *Accounts* on the log-in)."""
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.addWidget(button)

    @property
    def changing(self) -> bool:
        return bool(self._old_pin)

    def _show_change(self, on: bool) -> None:
        self._form.setRowVisible(self.new_pin, on)
        self._form.setRowVisible(self.new_pin_again, on)
        self._form.setRowVisible(self.pin, not on)  # the label with the field
        self.name.setReadOnly(on)
        if self.isVisible():
            fit_dialog(self)
            self.adjustSize()
        if on:
            self.keypad.target = self.new_pin
            self.new_pin.setFocus()
        else:
            self.keypad.target = self.pin

    def submit(self) -> None:
        if self.changing:
            self._submit_change()
            return
        name, pin = self.name.text().strip(), self.pin.text()
        self.pin.clear()
        if not name:
            show_message(self.message, "Enter your name")
            return
        self._ask(name, pin)

    def _ask(self, name: str, pin: str) -> None:
        self.ok_button.setEnabled(False)
        show_message(self.message, "checking\u2026", ok=True)

        def done(answer: Any) -> None:
            self.ok_button.setEnabled(True)
            check = as_check(answer)
            self.last_check = check
            show_message(self.message, "")
            if check.ok:
                self._old_pin = ""
                self.accept()
                self._on_ok(name)
            elif check.reason == "must_change" and self._change is not None:
                self._old_pin = pin
                show_message(self.message, check.message or "Your PIN must be changed now")
                self._show_change(True)
            else:
                show_message(self.message, answer_text(check))

        self._check(name, pin, done)

    def _submit_change(self) -> None:
        name = self.name.text().strip()
        new, again = self.new_pin.text(), self.new_pin_again.text()
        self.new_pin.clear()
        self.new_pin_again.clear()
        problem = pin_problem(new, again)
        if problem:
            show_message(self.message, problem)
            self.new_pin.setFocus()
            return
        assert self._change is not None
        old = self._old_pin
        self.ok_button.setEnabled(False)
        show_message(self.message, "changing the PIN\u2026", ok=True)

        def changed(check: PinCheck) -> None:
            self.ok_button.setEnabled(True)
            show_message(self.message, "")
            if not check.ok:
                show_message(self.message, answer_text(check))
                if check.reason != "new_pin":
                    self._old_pin = ""
                    self._show_change(False)
                return
            self._old_pin = ""
            self._show_change(False)
            self._ask(name, new)  # the log-in / approval itself, with the new PIN

        self._change(name, old, new, changed)


def pin_problem(pin: str, again: str) -> str:
    """Why a new PIN (typed twice) is not acceptable, or "" (the store's policy, checked
    here first so the dealer hears at once; the store checks it again)."""
    problem = new_pin_problem(pin)
    if problem:
        return problem[0].upper() + problem[1:]
    if pin != again:
        return "The two PINs differ: enter the new PIN twice"
    return ""


def ask_supervisor(parent: QWidget | None, checker: PinChecker, kind: str, title: str, why: str,
                   then: Callable[[str, int | None], None], detail: dict[str, Any] | None = None,
                   extra: QWidget | None = None, detail_of: Callable[[], dict[str, Any]] | None = None,
                   ) -> PinDialog:
    """A supervisor's PIN for ``kind`` (void, correction, resolve, override, review, accounts).

    The store records the approval and hands back its id; ``then(name, approval)`` gets
    it to pass along with the event it authorises (the store refuses such an event
    without one). ``extra`` (e.g. the void's reason) goes under the question;
    ``detail_of`` computes the approval's detail when the PIN is submitted.
    """
    holder: list[PinDialog] = []

    def check(name: str, pin: str, done: Callable[[Any], None]) -> None:
        checker.approve(name, pin, kind, done, detail_of() if detail_of is not None else detail)

    def approved(name: str) -> None:
        last = holder[0].last_check if holder else None
        then(name, last.approval if last is not None else None)

    dialog = PinDialog(title, why, check, approved, parent, change=checker.change_pin)
    holder.append(dialog)
    if extra is not None:
        layout = dialog.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(1, extra)
    return dialog
