"""Run as a program by test_review_layout.py and tests/floor/test_pit_layout.py (issue 34 items
7 and the layout test's *review, pit*): ``dealer-assist review --db FILE`` (the supervisor's PIN
at its gate, then the review) or ``dealer-assist review --db postgresql://...`` (the pit) as a
supervisor starts it, on an offscreen platform with the three table screens side by side
(tests/ui/layout_walk.py). The window is moved to each screen in turn and every tab shown, its
dialogs opened there (the review's note and full-screen replay; the pit's round). Every time it records:

- a top-level window not inside its screen's available geometry;
- a visible touch control (button, check box, field, list box, date, slider, tab) outside its
  window, lower than 48 px or with type under 16 px (a list's own rows and headers excepted).

Prints one JSON line: {"checks": N, "problems": [...], "opened": [...]}.
``python -m tests.ui_review.review_pit_walk review FILE | pit URL TABLE ROUND``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import ui.common.qtfix  # noqa: F401  (first: keeps PySide6 6.12 from aborting CPython 3.11)
from tests.ui.window_checks import (
    SIZES,
    control_problems,
    header_problems,
    replay_problems,
    screens_config,
    top_levels,
)

SUPERVISOR, SUPERVISOR_PIN = "sue", "482913"


class Walk:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.problems: list[str] = []
        self.checks = 0
        self.opened: list[str] = []

    def settle(self, seconds: float = 0.15) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.app.processEvents()
            time.sleep(0.005)

    def wait(self, condition: Callable[[], Any], what: str, seconds: float = 60) -> Any:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.app.processEvents()
            found = condition()
            if found:
                return found
            time.sleep(0.01)
        raise TimeoutError(f"waited {seconds} s for {what}")

    def check(self, what: str) -> None:
        self.settle()
        self.checks += 1
        for top in top_levels():
            screen = top.screen().availableGeometry()
            if not screen.contains(top.frameGeometry()):
                self.problems.append(f"{what}: {type(top).__name__} {top.windowTitle()!r} at "
                                     f"{top.frameGeometry().getRect()} not inside the screen {screen.getRect()}")
            self.problems += control_problems(top, what)
            self.problems += header_problems(top, what)
            self.problems += replay_problems(top, what)

    def on_screen(self, window: Any, index: int) -> None:
        from PySide6.QtWidgets import QApplication

        from ui.common.screen_fit import fill_screen

        screen = QApplication.screens()[index]
        if window.screen() is not screen:
            window.showNormal()
            window.setScreen(screen)
            fill_screen(window)
            self.settle(0.3)

    def every_tab(self, window: Any, what: str) -> None:
        from PySide6.QtWidgets import QTabWidget

        for tabs in window.findChildren(QTabWidget):
            if not tabs.isVisibleTo(window):
                continue
            for index in range(tabs.count()):
                tabs.setCurrentIndex(index)
                self.check(f"{what} tab {tabs.tabText(index)!r}")
            tabs.setCurrentIndex(0)

    def dialog(self, what: str, opener: Callable[[], Any]) -> None:
        from PySide6.QtWidgets import QDialog

        before = {id(w) for w in top_levels()}
        print(what, file=sys.stderr, flush=True)
        opener()
        self.settle(0.3)
        new = [w for w in top_levels() if id(w) not in before]
        self.opened += [f"{what}: {type(w).__name__}" for w in new]
        self.check(what)
        for w in new:
            if isinstance(w, QDialog):
                self.every_tab(w, what)
                w.reject()
            else:
                w.close()
        self.settle(0.05)


def walk_review(app: Any, walk: Walk) -> None:
    from ui.common.login import PinDialog
    from ui.review.app import ReviewWindow

    gate = walk.wait(lambda: next((w for w in top_levels() if isinstance(w, PinDialog)), None), "the review's gate")
    for index in range(len(SIZES)):  # the gate itself on each screen
        gate.setScreen(app.screens()[index])
        gate.hide()
        gate.show()
        walk.settle(0.2)
        walk.check(f"gate {SIZES[index][0]}x{SIZES[index][1]}")
    gate.name.setText(SUPERVISOR)
    gate.pin.setText(SUPERVISOR_PIN)
    gate.ok_button.click()
    window = walk.wait(lambda: next((w for w in top_levels() if isinstance(w, ReviewWindow)), None),
                       "the review after the supervisor's PIN", 120)
    walk.opened.append("review: ReviewWindow")
    for index, (w, h) in enumerate(SIZES):
        walk.on_screen(window, index)
        what = f"review {w}x{h}"
        window.view.selectRow(0)  # a round open on the right: its own tabs and buttons
        walk.every_tab(window, what)
        round_id = window.detail.round_id
        if round_id is not None:
            walk.dialog(f"{what} note", partial(window.add_note, round_id))
            walk.dialog(f"{what} full-screen replay", window.detail.open_full_replay)
    # the review opened from the dealer's screen (its Review button): the same process, the
    # dealer's type scale for 1920×1080 (ui.common.style.set_scale), the pane's layout built at it
    from ui.common.style import scale_for, set_scale

    set_scale(scale_for(*SIZES[-1]))
    window.detail.layout_view.reset()  # built again at this scale, as when first shown there
    window.detail.replay_pane.fit()
    window.detail.show_step(window.detail.slider.value())
    walk.settle(0.3)
    walk.check(f"review {SIZES[-1][0]}x{SIZES[-1][1]} at the dealer's scale")
    window.close()


def walk_pit(app: Any, walk: Walk, table: str, round_id: int) -> None:
    from ui.review.pit_view import PitWindow, RoundDialog

    window = walk.wait(lambda: next((w for w in top_levels() if isinstance(w, PitWindow)), None), "the pit window")
    walk.wait(lambda: window.pending == 0 and window.states, "the pit's tables", 60)
    walk.opened.append("pit: PitWindow")
    for index, (w, h) in enumerate(SIZES):
        walk.on_screen(window, index)
        what = f"pit {w}x{h}"
        walk.every_tab(window, what)
        shown: list[RoundDialog] = []

        def open_round(shown: list[RoundDialog] = shown) -> None:
            window.open_round(table, round_id, shown.append)
            walk.wait(lambda: shown, "the pit's round", 30)

        walk.dialog(f"{what} round", open_round)
    window.close()


def run_walk(args: list[str], tmp: Path) -> dict[str, Any]:
    """This program in a process of its own on the three screens, as a supervisor's account
    with no station configuration (a fresh HOME, private XDG directories); its result."""
    import os
    import subprocess

    root = Path(__file__).resolve().parents[2]
    screens = tmp / "screens.json"
    screens.write_text(json.dumps(screens_config()))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEALER_ASSIST_", "XDG_"))}
    run = tmp / "run"
    run.mkdir(mode=0o700, exist_ok=True)
    env.update(QT_QPA_PLATFORM=f"offscreen:configfile={screens}", PYTHONPATH=str(root), HOME=str(tmp),
               XDG_RUNTIME_DIR=str(run), XDG_DATA_HOME=str(tmp / "data"), XDG_STATE_HOME=str(tmp / "state"),
               XDG_CONFIG_HOME=str(tmp / "config"), XDG_CACHE_HOME=str(tmp / "cache"))
    proc = subprocess.run([sys.executable, "-m", "tests.ui_review.review_pit_walk", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    assert lines, f"no result (status {proc.returncode}): {proc.stderr[-3000:]}"
    return {**json.loads(lines[-1]), "stderr": proc.stderr[-1500:]}


def main() -> int:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from dealer_assist.cli import main as dealer_assist

    mode, target = sys.argv[1], sys.argv[2]
    app = QApplication([])
    walk = Walk(app)
    result: dict[str, Any] = {}

    def drive() -> None:
        try:
            if mode == "review":
                walk_review(app, walk)
            else:
                walk_pit(app, walk, sys.argv[3], int(sys.argv[4]))
        except Exception as exc:  # the walk's own failure, reported with what it had found
            import traceback

            result["error"] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()[-2000:]}"
        finally:
            result.update(checks=walk.checks, problems=walk.problems, opened=walk.opened)
            for w in top_levels():
                w.close()
            app.quit()

    QTimer.singleShot(0, drive)
    status = dealer_assist(["review", "--db", target])
    result["status"] = status
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
