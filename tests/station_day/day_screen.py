"""One dealer's session on the station's real screen, run by ns_day.py AS THAT DEALER'S OS
ACCOUNT (its own process, offscreen): ``python -s -P day_screen.py a|b`` with PYTHONPATH
the installed program's lib (/opt/dealer-assist/lib). Not collected by pytest (no test_
name): ns_day.py copies it to a place the dealer can read and starts it.

The screen is started as ``dealer-assist`` starts it: ``dealer_assist.cli.main([])``, no
option, no --dealer, no DEALER_ASSIST_DEV: it finds /etc/dealer-assist/station.toml and
connects to /run/dealer-assist/station.sock. The person's actions are the real dialogs:
the enrolment, the accounts, the log-in with its first-PIN change, the betting panel (area,
player, wager kind, chips, Place wager), the prompt's Stand and Next round, the Setup and
Void buttons and their supervisor PIN dialogs, Station > End shift.

Talks to ns_day.py on stdout/stdin, one line each: ``DAY deal N`` (the parent takes N
cards out of the shoe-sim, then answers ``dealt``) and, at the end, ``DAY facts {json}``.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

SUPERVISOR, SUPERVISOR_PIN = "sue", "482913"
DEALERS = {"a": ("ann", "246810", "730418"), "b": ("bob", "135790", "551903")}
# How long a step may take to appear: a wait for an event, not a speed figure. A first log-in
# is three PIN hashes at the station's real cost (scrypt, 2**17: ~0.4 s of CPU and 128 MB
# each); once, in CI at load ~8 with the packaged build beside it, it took more than 30 s.
WAIT_S = 90.0


def say(kind: str, data: Any = None) -> None:
    print(f"DAY {kind} {json.dumps(data)}", flush=True)


def main(who: str) -> int:
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtGui import QAction
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QWidget

    from dealer_assist.cli import main as dealer_assist
    from ui.common.accounts import AccountsDialog, EnrolmentDialog
    from ui.common.login import PinDialog
    from ui.dealer.main_window import DealerWindow

    facts: dict[str, Any] = {"who": who}

    def wait(what: str, cond: Callable[[], Any]) -> Any:
        deadline = time.monotonic() + WAIT_S
        while True:
            found = cond()
            if found:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"{who}: waited {WAIT_S:.0f} s for {what}")
            QTest.qWait(20)

    def shown(kind: type[QWidget], title: str | None = None) -> Any:
        found = [w for w in QApplication.allWidgets() if isinstance(w, kind) and w.isVisible()
                 and (title is None or w.windowTitle() == title)]
        return found[-1] if found else None

    def enter(field: Any, text: str) -> None:
        field.setFocus()
        field.setText(text)
        QTest.keyClick(field, Qt.Key.Key_Return)

    def click(button: Any) -> None:
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)

    def deal(controller: Any, count: int) -> None:
        """``count`` cards out of the shoe (the parent deals them), then seen on the screen."""
        before = sum(1 for e in controller.events if e["type"] == "card")
        say("deal", count)
        assert sys.stdin.readline().strip() == "dealt"
        wait(f"{count} card(s) on the screen",
             lambda: sum(1 for e in controller.events if e["type"] == "card") >= before + count)

    def supervisor_pin(dialog: Any) -> None:
        dialog.name.setText(SUPERVISOR)
        enter(dialog.pin, SUPERVISOR_PIN)

    def log_in(name: str, first: str, pin: str) -> Any:
        login = wait("the log-in", lambda: shown(PinDialog, "Log in"))
        login.name.setText(name)
        enter(login.pin, first)
        wait("the first PIN's change", lambda: login.changing)
        login.new_pin.setText(pin)
        enter(login.new_pin_again, pin)
        window = wait("the dealer's window", lambda: shown(DealerWindow))
        wait(f"{name} logged in", lambda: window.controller.dealer == name)
        facts.setdefault("titles", []).append(window.windowTitle())
        return window

    def wager_10_on_area_1(window: Any) -> None:
        """The betting panel as the dealer uses it: area 1, player p1, main wager, chip 5
        twice, Place wager."""
        c, panel = window.controller, window.betting
        wait("the betting panel", lambda: panel.isVisible() and "p1" in panel.player_buttons)
        click(panel.area_buttons[1])
        click(panel.player_buttons["p1"])
        click(panel.bet_buttons["main"])
        five = panel.chip_buttons[list(panel.chips).index(5)]
        click(five)
        click(five)
        assert panel.amount == 10, panel.amount
        click(panel.place_button)
        wait("the wager on the service's slip", lambda: len(c.service_state.get("slip") or []) == 1)
        assert not c.last_refusal, c.last_refusal

    def press(window: Any, key: str) -> None:
        """A button of the prompt (Stand, Next round ...), once it is there."""
        button = wait(f"the {key} button", lambda: window.prompt.buttons.get(key))
        click(button)

    def a_round(window: Any, cards_before_stand: int) -> dict[str, Any]:
        """p1 wagers 10 on area 1; three cards; p1 stands; the dealer's card; settled."""
        c = window.controller
        wager_10_on_area_1(window)
        deal(c, cards_before_stand)
        press(window, "stand")
        wait("p1's stand", lambda: any(e["type"] == "decision" for e in c.events))
        deal(c, 1)
        wait("the round's end", lambda: c.concluded)
        out = dict(c.output())
        result = {"game": c.config.get("game"), "status": out.get("status"), "net": out.get("net"),
                  "round_id": c.round_id,
                  "cards": [e["card"] for e in c.events if e["type"] == "card"]}
        press(window, "confirm")  # Next round
        wait("the next round's bets", lambda: c.betting and c.round_id is None)
        return result

    def change_game(window: Any) -> None:
        """The supervisor's Setup: Ace Race, main limits 10-500, then the supervisor's PIN."""
        c = window.controller
        click(window.report_buttons["setup"])
        dialog = wait("the Setup dialog", lambda: window.setup_dialog if window.setup_dialog and
                      window.setup_dialog.isVisible() else None)
        dialog.game.setCurrentIndex(dialog.game.findData("ace_race"))
        low, high = dialog.limits["main"]
        low.setText("10")
        high.setText("500")
        dialog.accept()  # OK
        pin = wait("the supervisor's PIN for the set-up", lambda: shown(PinDialog, "Table setup"))
        supervisor_pin(pin)
        wait("the Ace Race set-up", lambda: c.config.get("game") == "ace_race")
        facts["setup_limits"] = c.config.get("limits")

    def end_shift(window: Any) -> None:
        action = next(a for a in window.findChildren(QAction) if a.text() == "&End shift (log out)")
        action.trigger()
        wait("the end of the shift", lambda: not window.controller.dealer)
        login = wait("the log-in for the next dealer", lambda: shown(PinDialog, "Log in"))
        facts["after_end"] = login.message.text()
        # nobody else logs in on this screen: the station's session ends and stops it (Cancel on
        # the log-in no longer quits: it asks again, issue 34)
        app = QApplication.instance()
        assert app is not None
        app.quit()

    def dealer_a() -> None:
        name, first, pin = DEALERS["a"]
        enrol = wait("the enrolment of the first supervisor", lambda: shown(EnrolmentDialog))
        # a dealer's account enrols with root's one-time code (issue 39), which station init printed
        assert enrol.code_needed, "the enrolment on a station asks for root's code"
        enrol.code.setText(os.environ["DAY_ENROL_CODE"])
        enter(enrol.name, SUPERVISOR)
        enrol.pin.setText(SUPERVISOR_PIN)
        enter(enrol.pin_again, SUPERVISOR_PIN)
        accounts = wait("the accounts dialog", lambda: shown(AccountsDialog))
        for dname, dfirst, _ in (DEALERS[k] for k in sorted(DEALERS)):
            accounts.name.setText(dname)
            accounts.pin.setText(dfirst)
            accounts.pin_again.setText(dfirst)
            click(accounts.add_button)
            wait(f"{dname} added", lambda n=dname: f"{n} added" in accounts.message.text())  # type: ignore[misc]
        click(accounts.close_button)
        window = log_in(name, first, pin)
        facts["rounds"] = [a_round(window, 3)]
        change_game(window)
        facts["rounds"].append(a_round(window, 3))
        end_shift(window)

    def dealer_b() -> None:
        name, first, pin = DEALERS["b"]
        window = log_in(name, first, pin)
        c = window.controller
        wager_10_on_area_1(window)
        deal(c, 1)
        click(window.report_buttons["void"])
        dialog = wait("the supervisor's PIN for the void", lambda: shown(PinDialog, "Void the round"))
        supervisor_pin(dialog)
        wait("the void", lambda: c.output().get("status") == "void")
        out = dict(c.output())
        facts["rounds"] = [{"game": c.config.get("game"), "status": out.get("status"), "net": out.get("net"),
                            "round_id": c.round_id}]
        press(window, "confirm")  # Next round
        wait("the next round's bets", lambda: c.betting and c.round_id is None)
        end_shift(window)

    def run() -> None:
        try:
            (dealer_a if who == "a" else dealer_b)()
        except BaseException:
            # said at once and the process ended: closing the windows would have the log-in ask
            # again (issue 34), and the parent reads the error from the facts
            facts["error"] = traceback.format_exc()
            say("facts", facts)
            os._exit(1)

    QTimer.singleShot(0, run)
    facts["status"] = dealer_assist([])  # `dealer-assist`: no option at all
    say("facts", facts)
    return 0 if facts["status"] == 0 and "error" not in facts else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
