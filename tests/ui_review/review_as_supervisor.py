"""A pit supervisor's review of a store file, run by test_review_as_account.py AS THE
SUPERVISOR'S OS ACCOUNT (its own process, Qt offscreen): ``python -s -P
review_as_supervisor.py PLAN`` (PLAN: JSON with the file, the dealer's and the supervisor's
names and PINs, the round to note and the note's text). Not collected by pytest (no test_
name).

The review is started as ``dealer-assist review --db FILE`` starts it:
``dealer_assist.cli.main(["review", "--db", FILE])``, no other option, no development
switch; the command starts its review service (``station serve --review FILE``, a child
process). The person's actions are the real dialogs: the PIN gate (the dealer's PIN first,
refused, then the supervisor's), the review window (the round selected, Add note), the
note dialog (the dealer's PIN refused, the supervisor's taken), closing the window.

Talks to the test on stdout/stdin, one line each: ``REVIEW open`` once the note is written
(the window and its service still running; the test looks at them and answers ``seen``),
then, at the end, ``REVIEW facts {json}``.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

# How long a step may take to appear: a wait for an event, not a speed figure (the service's
# PIN check at its real cost, scrypt 2**17, on a loaded machine).
WAIT_S = 90.0


def say(kind: str, data: Any = None) -> None:
    print(f"REVIEW {kind}" + ("" if data is None else f" {json.dumps(data)}"), flush=True)


def main(plan: dict[str, Any]) -> int:
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QWidget

    from dealer_assist.cli import main as dealer_assist
    from ui.common.login import PinDialog
    from ui.review.app import ReviewWindow
    from ui.review.note import NoteDialog

    facts: dict[str, Any] = {"pid": os.getpid(), "uid": os.getuid()}
    (dealer, dealer_pin), (supervisor, supervisor_pin) = plan["dealer"], plan["supervisor"]

    def wait(what: str, cond: Callable[[], Any]) -> Any:
        deadline = time.monotonic() + WAIT_S
        while True:
            found = cond()
            if found:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {WAIT_S:.0f} s for {what}")
            QTest.qWait(20)

    def shown(kind: type[QWidget]) -> Any:
        found = [w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()]
        return found[-1] if found else None

    def at_the_gate(gate: Any, name: str, pin: str) -> str:
        """``name`` and ``pin`` entered at the gate; its answer's line ("" once it is gone)."""
        gate.name.setText(name)
        gate.pin.setFocus()
        gate.pin.setText(pin)
        QTest.keyClick(gate.pin, Qt.Key.Key_Return)
        wait("the gate's answer", lambda: gate.ok_button.isEnabled() or not gate.isVisible())
        return str(gate.message.text()) if gate.isVisible() else ""

    def review() -> None:
        gate = wait("the supervisor's PIN gate", lambda: shown(PinDialog))
        facts["window_before_pin"] = shown(ReviewWindow) is not None
        facts["dealer_at_gate"] = at_the_gate(gate, dealer, dealer_pin)
        facts["supervisor_at_gate"] = at_the_gate(gate, supervisor, supervisor_pin)
        window = wait("the review window", lambda: shown(ReviewWindow))
        facts["file"] = str(window.db_path)
        facts["rows"] = window.model.rowCount()
        facts["selected"] = window.select_round(plan["round"])
        wait("the round's detail", lambda: window.detail.round_id == plan["round"])
        QTest.mouseClick(window.detail.note_button, Qt.MouseButton.LeftButton)
        note = wait("the note dialog", lambda: shown(NoteDialog))
        note.text.setPlainText(plan["note"])
        note.name.setText(dealer)
        note.pin.setText(dealer_pin)
        facts["dealer_note"] = [note.submit(), note.message.text()]
        note.name.setText(supervisor)
        note.pin.setText(supervisor_pin)
        facts["supervisor_note"] = [note.submit(), note.note_id]
        say("open")  # the test looks at the review's service meanwhile
        assert sys.stdin.readline().strip() == "seen"
        window.close()  # the last window: the review ends, its service is stopped

    def run() -> None:
        try:
            review()
        except BaseException:
            # said at once and the process ended: the test reads the error from the facts
            facts["error"] = traceback.format_exc()
            say("facts", facts)
            os._exit(1)

    QTimer.singleShot(0, run)
    facts["status"] = dealer_assist(["review", "--db", plan["file"]])  # `dealer-assist review --db FILE`
    say("facts", facts)
    return 0 if facts["status"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(json.loads(sys.argv[1])))
