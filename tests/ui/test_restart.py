"""After the process is killed mid-round, a new window on the same store shows the round as it was."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from tests.ui.driving import TableDriver
from ui.cards import CardFace
from ui.controller import TableSetup

MakeTable = Callable[..., TableDriver]
ROOT = Path(__file__).resolve().parents[2]


def test_killed_process_round_comes_back(make_table: MakeTable, tmp_path: Path) -> None:
    db = tmp_path / "table.db"
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.ui.recording_table", str(db), str(tmp_path / "childshoe")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.strip() == "READY", child.stderr.read() if child.stderr else ""
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
    assert child.returncode == -signal.SIGKILL

    # A new window on the same store (with its own simulated shoe).
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), "10C 4S 2C", db=db)
    t.qtbot.waitUntil(lambda: t.controller.restored, timeout=10000)
    c = t.controller
    assert [e["type"] for e in c.events] == ["wager", "no_more_bets", "card", "card", "card"]
    # the layout is back: alice 8♥ 9♠ = 17 on area 1, dealer 6♦, alice to decide
    faces = t.window.table_view.area_boxes[1].findChildren(CardFace)
    assert [f.text for f in faces] == ["8H", "9S"]
    assert [f.text for f in t.window.table_view.dealer_box.findChildren(CardFace)] == ["6D"]
    assert t.window.prompt.headline.text() == "Area 1, hand 1: alice decides"
    # the power-failure options are offered, citing Lucky 8's clause 5.29
    assert t.window.banner.isVisibleTo(t.window)
    assert "(5.29)" in t.window.banner.text()
    assert t.window.report_buttons["power_failure"].isVisibleTo(t.window)
    t.screenshot("restored_after_kill")
    # The dealer records the power failure. No wager has conclusively won or lost yet, so
    # each player may withdraw all of their wagers and the round is then concluded (5.29.1).
    t.qtbot.mouseClick(t.window.report_buttons["power_failure"], Qt.MouseButton.LeftButton)
    dialog = t.window.choice_dialog
    assert dialog is not None and "(5.29)" in dialog.findChildren(QLabel)[0].text()
    t.qtbot.mouseClick(dialog.buttons["yes"], Qt.MouseButton.LeftButton)
    t.settled_writes()
    assert [(r["rule"], r["ruling"]) for r in t.window.ruling_panel.rulings] == [("5.29.1", "withdraw_offered")]
    assert not t.window.banner.isVisibleTo(t.window)
    # Each player concerned is asked: withdraw or stay (alice is the only one).
    panel = t.window.power_panel
    assert panel.isVisibleTo(t.window) and set(panel.buttons) == {("alice", "withdraw"), ("alice", "stay")}
    # Alice withdraws: her 100 is returned (5.29.1), and the round is over.
    t.qtbot.mouseClick(panel.buttons[("alice", "withdraw")], Qt.MouseButton.LeftButton)
    t.settled_writes()
    assert t.settlement_rows() == [("alice", "1/1", "Main", "RETURN", "5.29.1", "interim")]
    assert t.window.prompt.headline.text() == "Round settled: pay and collect"  # every wager withdrawn (5.29.1)
    t.press("confirm")
    assert t.window.prompt.headline.text() == "Place wagers"
    assert not c.restored
