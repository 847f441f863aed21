"""The station service seen from a Qt window: the service client's notifications as Qt
signals on the GUI thread, and requests run off the GUI thread (a PIN check takes a second).

The client (``dealer_assist.service.client``) has no Qt; its reader thread calls
:class:`ServiceLink`, which hands the notification to the GUI thread
(``ui.common.qtfix.GuiPost``: no Qt call on the client's thread), where
:attr:`ServiceLink.notified` is emitted. When the service goes away (a crash; systemd restarts
it) the link connects again by itself with a back-off and says so (:attr:`ServiceLink.link_state`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from dealer_assist.service.client import ServiceClient, ServiceError
from dealer_assist.service.ops import Op
from dealer_assist.store import PinCheck
from ui.common.qtfix import GuiPost
from ui.common.worker import Worker

__all__ = ["RECONNECTING", "ServiceJobs", "ServiceLink", "pin_answer"]

RECONNECTING = "reconnecting to the station service\u2026"
FIRST_DELAY_MS, MAX_DELAY_MS = 250, 5000  # the back-off between attempts: doubling, capped


class ServiceLink(QObject):
    notified = Signal(str, object)  # name, data: "round", "shoe", "floor"; "closed" when the service went away
    round_changed = Signal(object)  # the round's state (the "round" notification)
    shoe_changed = Signal(object)
    closed = Signal()
    # the connection came back after the service restarted (a new client: log in again, re-read)
    reconnected = Signal()
    link_state = Signal(str)  # "connected" or RECONNECTING, for the status bar

    def __init__(self, path: Path | str, kind: str = "screen", parent: QObject | None = None,
                 reconnect: bool = True) -> None:
        super().__init__(parent)
        self.path, self.kind = path, kind
        self._post = GuiPost(self)
        self.answered = 0  # the client's notifications up to this one are older than a reply shown
        self.client = self._connect()
        self.worker = Worker("service-requests", self)
        self.notified.connect(self._dispatch)
        self.reconnect = reconnect
        self.closing = False
        self.attempts = 0
        self.delay_ms = FIRST_DELAY_MS
        self.resume_token = ""  # the service's token for this screen's shift (op login)
        # the next attempt's timer: a member (QTimer.singleShot keeps a reference per call, PySide6 6.11)
        self.retry = QTimer(self)
        self.retry.setSingleShot(True)
        self.retry.timeout.connect(self._try_again)

    def _connect(self) -> ServiceClient:
        box: list[ServiceClient] = []

        def notified(name: str, data: dict[str, Any]) -> None:  # from the client's thread
            self._post.post(self._from_client, box, name, data, box[0].notices if box else 0)

        box.append(ServiceClient(self.path, self.kind, on_notify=notified))
        return box[0]

    def _from_client(self, box: list[ServiceClient], name: str, data: dict[str, Any], number: int) -> None:
        if not box or box[0] is not self.client:  # an old connection's last words are not this one's
            return
        if name == "round" and number <= self.answered:
            return  # older than a reply this screen has shown (a card told while a decision was sent)
        self.notified.emit(name, data)

    def ask(self, op: Op, **args: Any) -> Any:
        """One request on the GUI thread, its result returned; the round notifications read
        before its reply are older than it, and are not emitted after it."""
        client = self.client
        result, seen = client.request_counted(op, **args)
        if client is self.client:
            self.answered = max(self.answered, seen)
        return result


    def _dispatch(self, name: str, data: object) -> None:
        if name == "round":
            self.round_changed.emit(data)
        elif name == "shoe":
            self.shoe_changed.emit(data)
        elif name == "closed":
            self.closed.emit()
            if self.reconnect and not self.closing:
                self.delay_ms = FIRST_DELAY_MS
                self.link_state.emit(RECONNECTING)
                self._try_again()

    # the service went away (systemd restarts it): connect again, with a back-off, off the
    # GUI thread; nothing is re-sent (a request that had no answer was refused to the dealer)
    def _try_again(self) -> None:
        def attempt() -> None:
            try:
                client: ServiceClient | None = self._connect()
            except ServiceError:
                client = None
            self._post.post(self._attempted, client)

        self.attempts += 1
        threading.Thread(target=attempt, name="service-reconnect", daemon=True).start()

    def _attempted(self, client: ServiceClient | None) -> None:
        if self.closing:
            if client is not None:
                client.close()
            return
        if client is None or client.closed:  # (closed again before it was taken)
            self.retry.start(self.delay_ms)
            self.delay_ms = min(self.delay_ms * 2, MAX_DELAY_MS)
            return
        self.client = client
        self.answered = 0
        self.link_state.emit("connected")
        self.reconnected.emit()

    def request(self, op: Op, done: Callable[[Any, ServiceError | None], None] | None = None, **args: Any) -> None:
        """``op`` on the worker thread; ``done(result, error)`` back on the GUI thread."""

        def job() -> Any:
            return self.client.request(op, **args)

        def finished(result: Any, error: BaseException | None) -> None:
            if done is None:
                return
            if error is None or isinstance(error, ServiceError):
                done(result, error)
            else:
                done(None, ServiceError("internal", str(error)))

        self.worker.submit(job, finished)

    def close(self) -> None:
        self.closing = True
        self.retry.stop()
        self.worker.stop()  # the queued requests first (e.g. the log-out of a closing screen)
        self.client.close()


def pin_answer(error: ServiceError | None, approval: int | None = None) -> PinCheck:
    """The service's answer to a PIN as the dialogs know it (ui.common.login)."""
    if error is None:
        return PinCheck(True, approval=approval)
    if error.code == "pin":
        reason = error.reason or "wrong"
        # a wrong PIN: the dialog's own words (the same for every cause, ui.common.login.WRONG)
        return PinCheck(False, reason, message="" if reason == "wrong" else error.message)
    return PinCheck(False, "error", message=error.message)


class ServiceJobs:
    """The accounts' calls (enrolment, log-in, accounts, PINs) through the service, for the
    dialogs of ui.common.accounts: the PINs are checked, and the store written, by the service."""

    def __init__(self, link: ServiceLink) -> None:
        self.link = link
        self.code_needed = False  # the first enrolment needs root's one-time code (a station's screen)

    def _run(self, op: Op, done: Callable[[Any, str], None], **args: Any) -> None:
        self.link.request(op, lambda result, error: done(result, error.message if error else ""), **args)

    def needs_enrolment(self, done: Callable[[Any, str], None]) -> None:
        def answered(state: Any, error: str) -> None:
            self.code_needed = bool(state.get("enrol_code_needed")) if state else False
            done(bool(state["needs_enrolment"]) if state else None, error)

        self._run(Op.STATE, answered)

    def enrol(self, name: str, pin: str, done: Callable[[Any, str], None], code: str = "") -> None:
        self._run(Op.ENROL, lambda result, error: done(result["approval"] if result else None, error),
                  name=name, pin=pin, **({"code": code} if code else {}))

    def log_in(self, name: str, pin: str, done: Callable[[Any], None]) -> None:
        def answered(result: Any, error: ServiceError | None) -> None:
            if error is None and isinstance(result, dict):
                self.link.resume_token = str(result.get("resume") or "")
            done(pin_answer(error))

        self.link.request(Op.LOGIN, answered, name=name, pin=pin)

    def users(self, done: Callable[[Any, str], None]) -> None:
        self._run(Op.USERS, done)

    def add_account(self, name: str, pin: str, roles: list[str], approval: int | None, actor: str,
                    done: Callable[[Any, str], None]) -> None:
        self._run(Op.ADD_ACCOUNT, done, name=name, new_pin=pin, roles=roles, approval=approval)

    def set_disabled(self, name: str, disabled: bool, approval: int | None, actor: str,
                     done: Callable[[Any, str], None]) -> None:
        self._run(Op.SET_DISABLED, done, name=name, disabled=disabled, approval=approval)

    def reset_pin(self, name: str, pin: str, approval: int | None, actor: str,
                  done: Callable[[Any, str], None]) -> None:
        self._run(Op.RESET_PIN, done, name=name, new_pin=pin, approval=approval)

    def approve(self, supervisor: str, pin: str, kind: str, done: Callable[[Any], None],
                detail: dict[str, Any] | None = None) -> None:
        self.link.request(Op.APPROVE, lambda result, error: done(
            pin_answer(error, result["approval"] if result else None)),
            user=supervisor, pin=pin, kind=kind, detail=detail or {})

    def change_pin(self, name: str, old_pin: str, new_pin: str, done: Callable[[PinCheck], None]) -> None:
        def answered(_result: Any, error: ServiceError | None) -> None:
            check = pin_answer(error)
            if error is not None and error.code != "pin":
                check = PinCheck(False, "new_pin", message=error.message)
            done(check)

        self.link.request(Op.CHANGE_PIN, answered, name=name, old_pin=old_pin, new_pin=new_pin)
