"""The dealer's screen by touch at every table size (issue 34), through the real start path
(``dealer-assist`` with no station configuration: this account's station service on its
simulated shoe, the screen as its client; the enrolment, the first dealer's account, the
log-in with the first PIN's change): one window per game, moved across
three screens (1280×800, 1366×768, 1920×1080) at the heaviest round's betting, offers, play
and settled moments, with the dialogs of each moment opened there (setup, new player,
accounts behind the supervisor's PIN, enrolment, void, refer, elsewhere, undo and key-in
approvals, end shift mid-round; at settled the review from the Review button behind the
supervisor's PIN on the service's copy, the round just played chosen, its tabs, full-screen
replay and export dialog). Every top-level window lies inside its screen; every enabled
button lies inside its window and outside any scroll (except a list's), is at least 48 px
high with 16 px type; no pay tag covers a card; in the review's windows also every list box,
field, tab and sorting header 48 px, the replay's layout readable, no label cut. The pit
(a program of its own on the floor's PostgreSQL) has its walk: tests/floor/test_pit_layout.py. See tests/ui/layout_walk.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import dealer_assist.service.station as st
from tests.ui.window_checks import overlap_problems, screens_config

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # (tests/conftest.py runs these first)
GAMES = ["ace_race", "electronic", "star_elements", "lucky8", "dueling8s"]


def walk(game: str, tmp: Path) -> dict[str, object]:
    screens = tmp / "screens.json"
    screens.write_text(json.dumps(screens_config()))
    # a new user's environment (tests/ui_service/test_first_start.py runs it as a new
    # account of its own; here, this process's): no station configuration, no development
    # switch, a fresh HOME and a private runtime directory
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DEALER_ASSIST_", "XDG_")) and k != st.CONFIG_ENV}
    run = tmp / "run"
    run.mkdir(mode=0o700)
    env.update(QT_QPA_PLATFORM=f"offscreen:configfile={screens}", PYTHONPATH=str(ROOT),
               HOME=str(tmp), XDG_RUNTIME_DIR=str(run), XDG_DATA_HOME=str(tmp / "data"),
               XDG_STATE_HOME=str(tmp / "state"), XDG_CONFIG_HOME=str(tmp / "config"),
               XDG_CACHE_HOME=str(tmp / "cache"))
    assert not st.default_config_path().exists(), f"this machine is a station ({st.default_config_path()})"
    proc = subprocess.run([sys.executable, "-m", "tests.ui.layout_walk", game, str(tmp)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    assert lines, f"no result (status {proc.returncode}): {proc.stderr[-3000:]}"
    return {**json.loads(lines[-1]), "stderr": proc.stderr[-1500:]}


@pytest.mark.parametrize("game", GAMES)
def test_every_window_and_control_fits_the_screen_and_a_finger(tmp_path: Path, game: str) -> None:
    result = walk(game, tmp_path)
    assert "error" not in result, (result.get("error"), result.get("problems"), result.get("stderr"))
    assert result["concluded"] is True
    # log-in ×3, then betting, offers, play, settled (Electronic: no offers) ×3 with their dialogs
    assert int(str(result["checks"])) >= 3 + 3 * 3 + 3 * 10
    # the review from the dealer's Review button (the supervisor's PIN, the service's copy) on
    # the round just played, once at each size
    assert [str(r).split(":")[0] for r in result["reviewed"]] == [  # type: ignore[attr-defined]
        f"4_settled {w}x{h}" for w, h in ((1280, 800), (1366, 768), (1920, 1080))]
    problems = list(result["problems"])  # type: ignore[call-overload]
    assert problems == [], f"{len(problems)} problems:\n" + "\n".join(problems[:80])


def test_the_overlap_check_sees_what_is_painted_over_what(qtbot: object) -> None:
    """overlap_problems (the walk's): a button over another, a pay tag over a card and a card
    over another hand's card are reported; a hand's spread (its cards overlapping, corners
    visible) and a button inside a frame are not."""
    from PySide6.QtWidgets import QPushButton, QWidget

    from ui.common.cards import CardFace, CardRow
    from ui.common.table_view import PayTag

    top = QWidget()
    top.resize(600, 400)
    QPushButton("Hit", top).setGeometry(10, 10, 100, 50)
    QPushButton("Stand", top).setGeometry(90, 40, 100, 50)  # over Hit's lower right corner
    frame = QWidget(top)
    frame.setGeometry(300, 10, 200, 100)
    QPushButton("Inside", frame).setGeometry(10, 10, 80, 50)  # inside its frame: not "over" it
    spread = CardRow(["10H", "9S", "8D"], parent=top)
    spread.setGeometry(10, 150, 120, 110)  # three cards in 120 px: overlapped, the hand's spread
    other = CardFace("KC", parent=top)
    other.move(115, 160)  # another hand's card over the spread's last card
    tag = PayTag(top)
    tag.set_lines([("ann +100", "#b9f6ca")])
    tag.setGeometry(300, 200, 80, 30)
    tag_empty = PayTag(top)  # an empty tag paints nothing
    tag_empty.setGeometry(10, 10, 500, 380)
    CardFace("AS", parent=top).move(340, 190)  # under the tag
    top.show()
    found = overlap_problems(top, "here", lambda _: False)
    pairs = sorted(" / ".join(sorted(part.split(" at ")[0].split(": ")[-1] for part in (p.split(" and ")[0], p.split(" and ")[1])))
                   for p in found)
    assert pairs == ["button 'Hit' / button 'Stand'", "card 8D / card KC", "card AS / pay tag 'ann +100'"], found
    top.close()


def test_the_log_in_keeps_its_keys_clear_on_a_larger_screen(qtbot: object) -> None:
    """The log-in open while the dealer's window moves to the 1920×1080 screen (its style
    sheet at scale 1.4: keys and buttons 67 px high, the walk's log-in at each size): the
    dialog grows, its keypad's last row no longer under Cancel and OK (the overlap check
    found them 24-36 px over each other)."""
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QMainWindow

    from ui.common.idle import wait_idle
    from ui.common.login import PinDialog
    from ui.common.style import app_style, base_font_px, scale, set_scale

    window = QMainWindow()
    window.resize(1280, 800)

    def restyle() -> None:  # as DealerWindow._apply_style after its screen's scale changed
        font = QFont(window.font())
        font.setPixelSize(base_font_px())
        window.setFont(font)
        window.setStyleSheet(app_style())

    before = scale()
    try:
        set_scale(1.0)
        restyle()
        window.show()
        login = PinDialog("Log in", "Log in to start your shift", lambda *_: None, lambda _: None, window)
        login.show()
        wait_idle()
        assert overlap_problems(login, "at 1.0", lambda _: False) == []
        high = login.height()
        set_scale(1.4)
        restyle()
        wait_idle()
        wait_idle()
        assert login.ok_button.height() >= 64  # (the larger screen's buttons)
        assert overlap_problems(login, "at 1.4", lambda _: False) == []
        assert login.height() > high
    finally:
        set_scale(before)
        window.close()
