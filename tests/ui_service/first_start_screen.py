"""A new user's first start, driven as a person would: run by test_first_start.py as
``python -P first_start_screen.py .venv/bin/dealer-assist`` in its own process, AS THE NEW
USER'S OWN OS ACCOUNT (tests/accounts.py: an unprivileged account made for the test, a fresh
HOME, its own runtime directory, offscreen). Not collected by pytest (no test_ name).

The program is the installed console script itself, run by ``runpy`` in this process with
no option at all: nothing here changes what it does; a Qt timer, queued before it starts,
acts on its windows the way a person would (the same helpers as tests/station_day/
day_screen.py): the supervisor's enrolment, the first dealer's account, a second
``dealer-assist`` started while this one runs (it must refuse and leave this one working),
the dealer's log-in with its first-PIN change, one round with the simulated shoe's "Deal a
card" button; then it says ``FIRST dealt`` and waits for a line on stdin (root looks at the
running service meanwhile); then the window is closed. Last, the
person's ``dealer-assist history export ROUND`` of the round dealt (the account's own
store). Prints ``FIRST facts {json}`` (with this process's uid, gid, groups and pid).
"""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

SUPERVISOR, SUPERVISOR_PIN = "sue", "482913"
DEALER, FIRST_PIN, PIN = "ann", "246810", "730418"
WAIT_S = 60.0


def main(console_script: str) -> int:
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtGui import QAction
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QWidget

    from ui.common.accounts import AccountsDialog, EnrolmentDialog
    from ui.common.login import PinDialog
    from ui.dealer.main_window import DealerWindow

    facts: dict[str, Any] = {"seen": [], "uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(),
                             "pid": os.getpid()}

    def wait(what: str, cond: Callable[[], Any]) -> Any:
        deadline = time.monotonic() + WAIT_S
        while True:
            found = cond()
            if found:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {WAIT_S:.0f} s for {what}")
            QTest.qWait(20)

    def shown(kind: type[QWidget], title: str | None = None) -> Any:
        found = [w for w in QApplication.allWidgets() if isinstance(w, kind) and w.isVisible()
                 and (title is None or w.windowTitle() == title)]
        return found[-1] if found else None

    def first_dialog() -> str | None:
        """The first of the enrolment or the log-in to be shown (whichever comes first)."""
        if shown(EnrolmentDialog):
            return "enrolment"
        login = shown(PinDialog, "Log in")
        return f"log-in: {login.message.text()}" if login is not None else None

    def enter(field: Any, text: str) -> None:
        field.setFocus()
        field.setText(text)
        QTest.keyClick(field, Qt.Key.Key_Return)

    def click(button: Any) -> None:
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)

    def cards(c: Any) -> int:
        return sum(1 for e in c.events if e["type"] == "card")

    def decisions(c: Any) -> int:
        return sum(1 for e in c.events if e["type"] == "decision")

    def second_start() -> None:
        """Another ``dealer-assist`` while this one runs: refused, this one untouched."""
        done = subprocess.run([console_script, "--exit-after-show"], capture_output=True, text=True, timeout=120)
        facts["second"] = {"status": done.returncode, "out": done.stdout, "err": done.stderr}

    def a_round(window: Any) -> None:
        c, panel = window.controller, window.betting
        wait("the betting panel", lambda: panel.isVisible() and "p1" in panel.player_buttons)
        click(panel.area_buttons[1])
        click(panel.player_buttons["p1"])
        click(panel.bet_buttons["main"])
        five = panel.chip_buttons[list(panel.chips).index(5)]
        click(five)
        click(five)
        click(panel.place_button)
        wait("the wager on the service's slip", lambda: len(c.service_state.get("slip") or []) == 1)
        deal = next(a for a in window.findChildren(QAction) if a.text() == "Deal a card (SIMULATED SHOE)")
        for _ in range(40):  # a round of one hand ends well within 40 steps
            if c.round_id is not None and c.concluded:
                break
            exp = c.expectation() if c.rnd is not None else None
            if exp is not None and exp.kind == "decision" and "stand" in window.prompt.buttons:
                before = decisions(c)
                click(window.prompt.buttons["stand"])
                wait("the stand", lambda b=before: decisions(c) > b)  # type: ignore[misc]
            elif exp is not None and exp.kind == "decisions" and "close_offers" in window.prompt.buttons:
                before = len(c.events)
                click(window.prompt.buttons["close_offers"])
                wait("the offers closed", lambda b=before: len(c.events) > b)  # type: ignore[misc]
            else:  # the round waits for a card (betting closes with the first one)
                before = cards(c)
                deal.trigger()
                wait("the dealt card on the screen", lambda b=before: cards(c) > b)  # type: ignore[misc]
        wait("the round's end", lambda: c.concluded)
        out = dict(c.output())
        facts["round"] = {"round_id": c.round_id, "status": out.get("status"), "game": c.config.get("game"),
                          "cards": [e["card"] for e in c.events if e["type"] == "card"]}
        click(window.prompt.buttons["confirm"])  # Next round
        wait("the next round's bets", lambda: c.betting and c.round_id is None)

    def drive() -> None:
        facts["first"] = wait("the enrolment or the log-in", first_dialog)
        enrol = wait("the enrolment of the first supervisor", lambda: shown(EnrolmentDialog))
        facts["title"] = enrol.window().windowTitle()
        enter(enrol.name, SUPERVISOR)
        enrol.pin.setText(SUPERVISOR_PIN)
        enter(enrol.pin_again, SUPERVISOR_PIN)
        accounts = wait("the accounts dialog", lambda: shown(AccountsDialog))
        accounts.name.setText(DEALER)
        accounts.pin.setText(FIRST_PIN)
        accounts.pin_again.setText(FIRST_PIN)
        click(accounts.add_button)
        wait(f"{DEALER} added", lambda: f"{DEALER} added" in accounts.message.text())
        click(accounts.close_button)
        login = wait("the log-in", lambda: shown(PinDialog, "Log in"))
        second_start()
        login.name.setText(DEALER)
        enter(login.pin, FIRST_PIN)
        wait("the first PIN's change", lambda: login.changing)
        login.new_pin.setText(PIN)
        enter(login.new_pin_again, PIN)
        window = wait("the dealer's window", lambda: shown(DealerWindow))
        wait(f"{DEALER} logged in", lambda: window.controller.dealer == DEALER)
        facts["window_title"] = window.windowTitle()
        a_round(window)
        print("FIRST dealt", flush=True)  # root looks at the running service, its socket and files
        sys.stdin.readline()
        window.close()

    def run() -> None:
        try:
            drive()
        except BaseException:
            facts["error"] = traceback.format_exc()
        for w in QApplication.topLevelWidgets():
            w.close()
        app = QApplication.instance()
        if app is not None:
            app.quit()

    QTimer.singleShot(0, run)
    sys.argv = [console_script]  # `dealer-assist`: no option at all
    try:
        runpy.run_path(console_script, run_name="__main__")
        facts["status"] = 0
    except SystemExit as exc:
        facts["status"] = exc.code
    if "round" in facts:  # the person reads the round back from the account's store
        done = subprocess.run([console_script, "history", "export", str(facts["round"]["round_id"])],
                              capture_output=True, text=True, timeout=120)
        facts["export"] = {"status": done.returncode, "out": done.stdout, "err": done.stderr}
    print(f"FIRST facts {json.dumps(facts)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
