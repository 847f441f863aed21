"""Run as a program by test_layout_walk.py (issue 34): ``dealer-assist --sim-cards FILE`` as a
new user starts it (no station configuration, no development switch: this account's station
service on its simulated shoe, the screen as its client) on an offscreen platform with three
screens, 1280×800, 1366×768 and 1920×1080 side by side: the enrolment, the first dealer's
account, the log-in (Escape first: it must come back) with the first PIN's change, the
supervisor's set-up, then the heaviest round of a game and a card after its outcome. At its
betting, offers, play and settled moments the one window is moved to each screen in turn
(it takes that screen's geometry, as at a station) and the dialogs of that moment are
opened there. Every time it records what does not fit the screen or a finger:

- a top-level window (the dealer's, a dialog) not inside its screen's available geometry;
- an enabled button outside its window, or hidden in a scroll area that is not a list;
- a button lower than 48 px or with type under 16 px;
- a pay tag over a card's face (settled);
- two buttons, pay tags or cards over each other (a hand's own spread of cards aside).

Prints one JSON line: {"checks": N, "problems": [...]}.
``python -m tests.ui.layout_walk GAME DIR`` with ``QT_QPA_PLATFORM=offscreen:configfile=...``.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import ui.common.qtfix  # noqa: F401  (first: keeps PySide6 6.12 from aborting CPython 3.11)
from tests.ui.window_checks import (
    SIZES,
    control_problems,
    cut_labels,
    header_problems,
    overlap_problems,
    replay_problems,
    tag_problems,
    top_levels,
    window_problems,
)

SUPERVISOR, SUPERVISOR_PIN = "sue", "482913"
DEALER, FIRST_PIN, DEALER_PIN = "dee", "246810", "730418"
# the dialogs that look the same in every game (compared pixel for pixel across the five
# games' walks: the same but for the focus frame): their pictures are saved once,
# walk-WHAT.png; the others (the set-up, card elsewhere, void's reasons, the full-screen
# replay) as walk-GAME-WHAT.png
SAME_IN_EVERY_GAME = (r"first-start-.*", r".*-(accounts|enrolment|new-player|end-shift|key-in-approval|refer"
                      r"|undo-approval|review-note|review-export)")


class Walk:
    def __init__(self, app: Any, window: Any, game: str) -> None:
        self.app = app
        self.window = window
        self.game = game
        self.problems: list[str] = []
        self.checks = 0
        self.seen: set[str] = set()
        self.reviewed: list[str] = []  # the review opened on the round just played, at each size
        self.review_seconds: list[float] = []  # what each review took (the walk's time in CI)
        from PySide6.QtWidgets import QToolBar

        # the simulated shoe's bar (a demonstration station's, issue 34 item 6): its buttons
        # are not checked (no table's dealer touches them)
        self.sim = window.findChild(QToolBar, "simulated_shoe")

    def skip(self, button: Any) -> bool:
        return self.sim is not None and self.sim.isAncestorOf(button)

    def settle(self, at_least: float = 0.0) -> None:
        """Until Qt is idle (ui/common/idle.py): laid out and painted; what waits on the
        service (the accounts dialog, a held card) waits for it by name first. ``at_least``:
        seconds of events first (the review's windows load on its own worker threads)."""
        from ui.common.idle import wait_idle

        end = time.monotonic() + at_least
        while time.monotonic() < end:
            self.app.processEvents()
            time.sleep(0.01)
        wait_idle()

    def check(self, what: str) -> None:
        self.settle()
        self.checks += 1
        self.problems += window_problems(what, self.skip)
        for top in top_levels():
            self.problems += overlap_problems(top, what, self.skip)

    def shoot(self, windows: list[Any], what: str) -> None:
        """With DA_WALK_SHOTS=DIR: each window as it is on its screen, DIR/walk-GAME-WHAT.png
        (what a person sees of each dialog at each size, to look at), or DIR/walk-WHAT.png for
        one that is the same in every game (:data:`SAME_IN_EVERY_GAME`)."""
        folder = os.environ.get("DA_WALK_SHOTS")
        if not folder:
            return
        Path(folder).mkdir(parents=True, exist_ok=True)
        for n, w in enumerate(windows):
            slug = re.sub(r"[^a-z0-9x]+", "-", what.lower()).strip("-") + (f"-{n + 1}" if n else "")
            shared = any(re.fullmatch(pattern, slug) for pattern in SAME_IN_EVERY_GAME)
            w.grab().save(str(Path(folder) / f"walk-{slug if shared else f'{self.game}-{slug}'}.png"))

    def on_screen(self, index: int) -> None:
        from PySide6.QtWidgets import QApplication

        from ui.common.screen_fit import fill_screen

        screen = QApplication.screens()[index]
        if self.window.screen() is not screen:
            self.window.showNormal()
            self.window.setScreen(screen)
            fill_screen(self.window)
            self.settle()

    def dialog(self, what: str, opener: Callable[[], Any]) -> None:
        """Open a dialog, check every window, close it (Escape: as a dealer would back out)."""
        from PySide6.QtWidgets import QDialog

        before = {id(w) for w in top_levels()}
        print(what, file=sys.stderr, flush=True)  # where a walk that stopped was
        opener()
        self.settle()
        self.check(what)
        self.shoot([w for w in top_levels() if id(w) not in before and isinstance(w, QDialog)], what)
        for w in top_levels():
            if id(w) not in before and isinstance(w, QDialog):
                w.reject()
        self.settle()

    def moment(self, name: str) -> None:
        """At a moment of the round: every screen, that moment's checks and dialogs."""
        if name in self.seen:
            return
        self.seen.add(name)
        for index, (w, h) in enumerate(SIZES):
            self.on_screen(index)
            what = f"{name} {w}x{h}"
            self.check(what)
            if name == "4_settled":
                self.problems += tag_problems(self.window, what)
            for title, opener in self.dialogs(name):
                self.dialog(f"{what} {title}", opener)
            if name == "4_settled":
                self.review(index, what)
        self.on_screen(0)
        # the round goes on once the shoe answers again (a long pause in the walk may have
        # let the shoe's link time out; the play then deals into a closed port)
        from ui.dealer.heavy_round import wait

        shoe = self.window.controller.shoe
        wait(self.app, lambda: shoe.connected, f"the shoe after {name}", 60)
        print(f"{name}: done", file=sys.stderr, flush=True)

    def dialogs(self, name: str) -> list[tuple[str, Callable[[], Any]]]:
        from ui.common.accounts import EnrolmentDialog
        from ui.common.login import ask_supervisor

        window, c = self.window, self.window.controller
        action = {a.text().replace("&", ""): a for a in window.findChildren(type(window.menuBar().actions()[0]))}
        if name == "1_betting":
            # the enrolment dialog of a first start (its jobs are not used: it is only looked at)
            return [("setup", window.open_setup), ("new player", window.betting.ask_new_player),
                    ("accounts", self.accounts), ("enrolment", lambda: EnrolmentDialog(None, window).open())]  # type: ignore[arg-type]
        if name == "3_play":
            return [("void", window.request_void), ("refer", window.report_buttons["refer"].click),
                    ("elsewhere", window.open_placement),
                    ("undo approval", lambda: ask_supervisor(
                        window, c, "undo", "Take back (supervisor)",
                        "The dealer may not take this back: a card was dealt since (5.26). Supervisor name "
                        "and PIN to take back the last event:", lambda *_: None).open()),
                    ("key-in approval", lambda: ask_supervisor(
                        window, c, "key_card", "Key in an unread card",
                        "The shoe could not read the card(s): 10H keyed in. Supervisor name and PIN:",
                        lambda *_: None, {"cards": "10H"}).open()),
                    ("end shift", lambda: self.end_shift(action["End shift (log out)"]))]
        return []

    def review(self, index: int, what: str) -> None:
        """The dealer's screen's *Review*: the supervisor's PIN typed on the gate's keypad, the
        service's copy of the store (op snapshot), the round just played chosen in the list;
        the review window, its tabs (every one at the smallest screen, the round's replay at
        each), the full-screen replay and (at 1366×768) the export's file dialog checked like the
        dealer's windows, plus the review's own checks (its list boxes, tabs, sorting headers and the
        replay's layout: tests/ui_review/review_pit_walk.py); then closed."""
        from ui.common.login import PinDialog
        from ui.dealer.heavy_round import wait
        from ui.review.app import ReviewWindow

        window, c = self.window, self.window.controller
        print(f"{what} review", file=sys.stderr, flush=True)
        started = time.monotonic()
        before = {id(w) for w in top_levels()}
        window.report_buttons["review"].click()
        gate = self.found(lambda: next((w for w in top_levels() if isinstance(w, PinDialog)
                                        and id(w) not in before), None), "the review's PIN", 30)
        if gate.screen() is not window.screen():  # a window of its own: on the station's one screen
            gate.hide()
            gate.setScreen(window.screen())
            gate.show()
        self.review_check(f"{what} review's PIN")
        gate.name.setText(SUPERVISOR)
        gate.keypad.target = gate.pin
        for digit in SUPERVISOR_PIN:
            gate.keypad.keys[digit].click()
        if gate.pin.text() != SUPERVISOR_PIN:
            self.problems.append(f"{what}: the review's keypad typed {len(gate.pin.text())} digits")
        gate.ok_button.click()
        review = self.found(lambda: next((w for w in top_levels() if isinstance(w, ReviewWindow)), None)
                            or (gate.message.text() and "checking" not in gate.message.text() and gate),
                            "the review window", 60)
        if not isinstance(review, ReviewWindow):
            self.problems.append(f"{what}: the review did not open: {gate.message.text()!r}")
            return
        try:
            if review.screen() is not window.screen():
                self.problems.append(f"{what}: the review opened on {review.screen().name()}, "
                                     f"not on the dealer's screen {window.screen().name()}")
            self.settle(0.3)
            if c.round_id is None or not review.select_round(c.round_id):
                self.problems.append(f"{what}: the round just played ({c.round_id}) is not in the review's list")
                return
            wait(self.app, lambda: review.detail.round_id == c.round_id, "the round in the review", 30)
            review.detail.slider.setValue(review.detail.slider.maximum())  # the settled layout
            self.review_check(f"{what} review: round {c.round_id}")
            self.reviewed.append(f"{what}: round {c.round_id}")
            if index == 0:  # every tab at the smallest screen (the others' tabs fit if this one's do)
                self.review_tabs(review, f"{what} review")
                review.detail.tabs.setCurrentIndex(0)
                review.tabs.setCurrentIndex(0)
            if index == 1:  # the export's file dialog (at most 1100×720, 90 % of the screen): the
                # lowest at 1366×768, the same at the other sizes
                self.review_dialog(f"{what} review: export", lambda: review.detail.export_dialog(
                    "report (PDF)", f"round-{c.round_id}.pdf", "PDF (*.pdf)").open())
            self.review_dialog(f"{what} review: full-screen replay", review.detail.open_full_replay)
            # the note (to the station's store, op add_note): its dialog over the review
            self.review_dialog(f"{what} review: note", review.detail.note_button.click)
            review.detail.list_requested.emit()  # ◀ Rounds list: the list and its filters again
            self.review_check(f"{what} review: list")
        finally:
            review.close()
            self.settle(0.1)
            self.review_seconds.append(round(time.monotonic() - started, 1))

    def found(self, condition: Callable[[], Any], what: str, seconds: float) -> Any:
        """What ``condition`` returns once it is something (the walk stops if it never is)."""
        end = time.monotonic() + seconds
        while not (value := condition()):
            self.app.processEvents()
            time.sleep(0.005)
            if time.monotonic() > end:
                raise SystemExit(f"timed out waiting for {what}")
        return value

    def review_check(self, what: str) -> None:
        """The dealer's checks and the review's own on every window (ui_review's walk)."""
        self.check(what)
        for top in top_levels():
            if top is self.window:
                continue
            found = (control_problems(top, what) + header_problems(top, what) + replay_problems(top, what)
                     + cut_labels(top, what))
            self.problems += [p for p in found if p not in self.problems]

    def review_tabs(self, review: Any, what: str) -> None:
        from PySide6.QtWidgets import QTabWidget

        for tabs in [review.tabs, *(t for t in review.findChildren(QTabWidget) if t is not review.tabs)]:
            if not tabs.isVisibleTo(review):
                continue
            for i in range(tabs.count()):
                tabs.setCurrentIndex(i)
                self.review_check(f"{what} tab {tabs.tabText(i)!r}")
            tabs.setCurrentIndex(0)

    def review_dialog(self, what: str, opener: Callable[[], Any]) -> None:
        before = {id(w) for w in top_levels()}
        opener()
        self.settle(0.3)
        new = [w for w in top_levels() if id(w) not in before]
        if not new:
            self.problems.append(f"{what}: nothing opened")
        self.review_check(what)
        self.shoot(new, what)
        for w in new:
            w.close()
        self.settle(0.05)

    def card_after_outcome(self) -> None:
        """Issue 34 item 5: one more card out of the shoe once the round is settled. The
        screen holds it with the service's reason and the one place the rules leave (the
        discard holder, 5.7 / 5.6); tapped, it is recorded and Next round is back."""
        from ui.dealer.heavy_round import wait

        window, c = self.window, self.window.controller
        before = len(c.events)
        ServiceShoe(c).deal()
        wait(self.app, lambda: c.stray_card is not None, "the card after the outcome held", 60)
        self.check("after the outcome: a card held")
        places = list(window.stray.buttons)
        if places != ["discard"] or "removed from play" not in c.stray_reason:
            self.problems.append(f"a card after the outcome: places {places}, reason {c.stray_reason!r}")
            return
        window.stray.buttons["discard"].click()
        wait(self.app, lambda: c.stray_card is None and len(c.events) > before, "the card discarded", 60)
        self.settle()
        ruling = (c.output().get("rulings") or [{}])[-1]
        if ruling.get("ruling") != "discarded" or "confirm" not in window.prompt.buttons \
                or not window.prompt.buttons["confirm"].isVisible():
            self.problems.append(f"after the discard: ruling {ruling!r}, Next round not shown")
        self.check("after the outcome: discarded")

    def end_shift(self, action: Any) -> None:
        """End shift mid-round: a question naming the open round, not a log-out."""
        from PySide6.QtWidgets import QLabel

        from ui.common.accounts import ConfirmDialog

        action.trigger()
        end = time.monotonic() + 20
        while not any(isinstance(w, ConfirmDialog) for w in top_levels()) and time.monotonic() < end:
            self.app.processEvents()
            time.sleep(0.01)
        self.settle()
        ask = next((w for w in top_levels() if isinstance(w, ConfirmDialog)), None)
        text = " ".join(label.text() for label in ask.findChildren(QLabel)) if ask is not None else ""
        if ask is None or "in play" not in text or self.window.controller.dealer is None:
            self.problems.append(f"End shift mid-round did not ask about the open round ({text!r})")

    def accounts(self) -> None:
        """Station > Accounts: the supervisor's PIN, then the accounts dialog (checked here:
        the walk's dialog() checks and closes whatever is left open)."""
        from PySide6.QtWidgets import QApplication

        from ui.common.accounts import AccountsDialog
        from ui.common.login import PinDialog

        window = self.window
        action = next(a for a in window.findChildren(type(window.menuBar().actions()[0]))
                      if a.text().startswith("&Accounts"))
        action.trigger()
        self.settle()
        self.check("accounts' PIN")
        gate = next(w for w in top_levels() if isinstance(w, PinDialog))
        gate.name.setText(SUPERVISOR)
        gate.pin.setText(SUPERVISOR_PIN)
        gate.ok_button.click()
        end = time.monotonic() + 20
        while not any(isinstance(w, AccountsDialog) for w in top_levels()):
            if time.monotonic() > end:
                self.problems.append(f"the accounts dialog did not open: {gate.message.text()!r}")
                return
            QApplication.processEvents()
            time.sleep(0.01)
        self.settle()


class ServiceShoe:
    """The simulated shoe of the station service, as the screen's simulator bar deals from
    it (op ``sim_deal``): the card comes back through the service's driver."""

    def __init__(self, controller: Any) -> None:
        self.controller = controller

    def deal(self) -> None:
        if not self.controller.ask("sim_deal"):
            raise SystemExit(f"the service did not deal: {self.controller.last_refusal}")


def first_start(app: Any, walk: Walk) -> None:
    """A first start as a person does it: the supervisor's enrolment, then the first
    dealer's account (both dialogs checked on the screen they open on)."""
    from ui.common.accounts import AccountsDialog, EnrolmentDialog
    from ui.dealer.heavy_round import wait

    enrol = shown_now(EnrolmentDialog)
    walk.shoot([enrol], "first start enrolment")
    enrol.name.setText(SUPERVISOR)
    enrol.pin.setText(SUPERVISOR_PIN)
    enrol.pin_again.setText(SUPERVISOR_PIN)
    enrol.ok_button.click()
    wait(app, lambda: shown_now(AccountsDialog) is not None, "the accounts dialog after the enrolment", 60)
    accounts = shown_now(AccountsDialog)
    walk.check("first start: accounts")
    walk.shoot([accounts], "first start accounts")
    accounts.name.setText(DEALER)
    accounts.pin.setText(FIRST_PIN)
    accounts.pin_again.setText(FIRST_PIN)
    accounts.add_button.click()
    wait(app, lambda: f"{DEALER} added" in accounts.message.text(), f"{DEALER} added", 60)
    accounts.close_button.click()


def _return(field: Any) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    field.setFocus()
    QTest.keyClick(field, Qt.Key.Key_Return)


def shown_now(kind: type, title: str | None = None) -> Any:
    from PySide6.QtWidgets import QApplication

    found = [w for w in QApplication.allWidgets() if isinstance(w, kind) and w.isVisible()
             and (title is None or w.windowTitle() == title)]
    return found[-1] if found else None


def drive(app: Any, game: str, result: dict[str, Any]) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from dealer_assist.engine.table_setup import setup_to_json
    from ui.common.accounts import EnrolmentDialog
    from ui.common.login import PinDialog
    from ui.dealer.heavy_round import Shooter, heavy_setup, play, wait
    from ui.dealer.main_window import DealerWindow

    window = None
    walk: Walk | None = None
    try:
        # the first start of this account: the enrolment comes first, never a log-in
        wait(app, lambda: shown_now(EnrolmentDialog) is not None or shown_now(PinDialog, "Log in") is not None,
             "the enrolment", 120)
        if shown_now(EnrolmentDialog) is None:
            raise RuntimeError("the first start did not offer the enrolment")
        window = shown_now(DealerWindow)
        walk = Walk(app, window, game)
        walk.check("first start: enrolment")
        first_start(app, walk)
        wait(app, lambda: shown_now(PinDialog, "Log in") is not None, "the log-in", 60)
        for index, (w, h) in enumerate(SIZES):
            walk.on_screen(index)
            walk.check(f"log-in {w}x{h}")
        walk.on_screen(0)
        login = shown_now(PinDialog, "Log in")
        QTest.keyClick(login, Qt.Key.Key_Escape)  # Escape: back to the log-in, never out of the program
        walk.settle()
        login = shown_now(PinDialog, "Log in")
        if login is None or not window.isVisible():
            walk.problems.append("Escape on the log-in did not return to the log-in")
            raise RuntimeError("no log-in after Escape")
        walk.shoot([login], "first start log-in")
        login.name.setText(DEALER)
        login.pin.setText(FIRST_PIN)
        _return(login.pin)
        wait(app, lambda: bool(login.changing), "the first PIN's change", 60)
        walk.settle()
        walk.shoot([login], "first start change of pin")
        login.new_pin.setText(DEALER_PIN)
        login.new_pin_again.setText(DEALER_PIN)
        _return(login.new_pin_again)
        c = window.controller
        wait(app, lambda: c.dealer == DEALER and not login.isVisible(), "the shift", 60)
        # the heaviest set-up, changed by the supervisor (the setup dialog's op, under her PIN)
        setup = heavy_setup(game)
        if setup.electronic:  # the longest decision time the service takes (3.18.1): no terminal times out
            setup = replace(setup, decision_seconds=120)
        if not c.ask("set_table", setup=setup_to_json(setup), pin={"user": SUPERVISOR, "pin": SUPERVISOR_PIN}):
            raise RuntimeError(f"set-up refused: {c.last_refusal}")
        wait(app, lambda: c.config.get("game") == game and c.rnd is not None, "the heavy set-up", 60)
        shooter = Shooter(app, window, Path("."), "", check=lambda name, _w: walk.moment(name))
        play(app, window, c, ServiceShoe(c), setup, shooter)
        walk.card_after_outcome()
        result.update(checks=walk.checks, problems=walk.problems, concluded=bool(c.concluded),
                      reviewed=walk.reviewed, review_seconds=walk.review_seconds)
    except BaseException as exc:  # noqa: BLE001  (reported to the test, never swallowed)
        result.update(error=f"{type(exc).__name__}: {exc}", problems=walk.problems if walk is not None else [])
    finally:
        if window is not None:
            window.close()
        app.quit()


def main() -> int:
    """``dealer-assist --sim-cards FILE`` as a user starts it (no station configuration, no
    development switch): this account's station service, the screen as its client."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from dealer_assist.cli import main as dealer_assist
    from ui.dealer.heavy_round import Cards, heavy_setup, plan

    game, work = sys.argv[1], Path(sys.argv[2])
    setup = heavy_setup(game)
    dealt = plan(setup)
    rest = Cards(setup.game, setup.decks)
    for card in dealt:
        rest.pool.remove(card)
    cards = work / "cards.txt"  # the round's cards, then one that comes out after its outcome
    cards.write_text(" ".join([*dealt, rest.pool[0]]) + "\n")
    app = QApplication([])
    result: dict[str, Any] = {}
    QTimer.singleShot(0, lambda: drive(app, game, result))
    started = time.monotonic()
    status = dealer_assist(["--sim-cards", str(cards)])
    result.update(status=status, seconds=round(time.monotonic() - started, 1))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
