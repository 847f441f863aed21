"""The player terminal's window (issue 38, build 2) on a real station service: t1's
terminal paired over TLS on loopback, the real window offscreen, the table driven through
the service by the dealer's screen (a service client) and the simulated shoe.

The shoe's order 10S 9H QD 8C (3.7: Player, Dealer, Player; then the dealer's second card).
t1 wagers 10 on the main wager and 5 on Royal Match 21. The shared hand 10S QD is 20 (3.4);
the dealer shows 9. 10S QD are not of one suit: Royal Match loses its 5 at once (3.6.2,
4.3). t1 stands; the dealer draws 8C: 17, and stands (3.19). 20 beats 17: the main wager
wins 10 at 1 to 1 (4.5.2, 4.1); t1's net is +10 - 5 = +5.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QApplication, QLabel, QPushButton, QWidget

from tests.ui.test_contrast import contrast
from tests.ui_terminal.terminal_table import SEAT, SIZES, TerminalTable
from ui.common.cards import CardRow
from ui.common.style import TOUCH, app_style
from ui.terminal.window import PAINTED_PAIRS

CARDS = "10S 9H QD 8C 5D 7H 6S"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def table(qtbot: Any, tmp_path: Path) -> Iterator[TerminalTable]:
    t = TerminalTable(tmp_path, CARDS)
    yield t
    t.close()


def spot_texts(t: TerminalTable) -> dict[str, tuple[str, str, str]]:
    spots = t.window.bets.spots
    return {bet: (s.name.text(), s.terms.text(), s.amount.text()) for bet, s in spots.items()}


def test_the_window_follows_a_round_the_service_deals(qtbot: Any, table: TerminalTable) -> None:
    table.screen.request("wager", player=SEAT, bet="main", amount=10)  # the dealer's screen, for t1 (today's path)
    table.screen.request("wager", player=SEAT, bet="royal_match", amount=5)
    w = table.open_window((1024, 768))
    qtbot.waitUntil(lambda: table.window.bets.spots.get("main") is not None
                    and table.window.bets.spots["main"].amount.text() == "Bet 10", timeout=15000)
    assert w.seat_label.text() == "Seat T1"
    assert w.banner.text() == "Place your bets"  # 3.1
    assert w.meter.text() == "Credits 485"  # 500 bought; the 10 and 5 the dealer's screen placed for t1 (1.1.10)
    # every bet of Electronic Blackjack (3.5, 3.6.1-3.6.3) with the limits the supervisor set (2.2)
    assert spot_texts(table) == {
        "main": ("Main", "Min 5 \u00b7 Max 1,000 \u00b7 pays up to 3 to 2", "Bet 10"),
        "bet_the_set": ("Bet the Set 21", "No limits set \u00b7 pays up to 15 to 1", "\u2014"),
        "royal_match": ("Royal Match 21", "Min 1 \u00b7 Max 100 \u00b7 pays up to 25 to 1", "Bet 5"),
        "kings_bounty": ("Kings Bounty", "Min 1 \u00b7 Max 25 \u00b7 pays up to 1000 to 1", "\u2014"),
    }
    assert [b.text() for b in w.chips.buttons.values()] == ["5", "25", "100", "500"]  # the set-up's chips
    assert w.hands.dealer.cards == [] and w.hands.player.cards == [] and not w.hands.options

    table.deal(1)  # 10S to the Player hand (3.7): the bets are closed
    qtbot.waitUntil(lambda: w.hands.player.cards == ["10S"], timeout=15000)
    assert w.banner.text() == "No more bets"  # 3.2
    assert w.hands.dealer.cards == []
    table.deal(2)  # 9H to the dealer, QD to the Player hand
    qtbot.waitUntil(lambda: w.hands.player.cards == ["10S", "QD"] and bool(w.hands.options), timeout=15000)
    assert w.hands.dealer.cards == ["9H"] and w.hands.dealer.total.text() == "9"
    assert w.hands.player.total.text() == "20"
    # t1's own choices (3.9): a pair of ten-values splits (3.13), two cards double (3.15.1),
    # no Ace up: surrender (3.12) and no insurance (3.11)
    assert [b.text() for b in w.hands.options.values()] == ["Hit", "Stand", "Double", "Split", "Surrender"]
    assert w.hands.prompt.text() == "Your decision on hand 1 (3.9)"
    pending = table.controller.pending
    assert pending is not None
    timed = "seconds_left" in pending or "deadline" in pending
    assert w.hands.countdown.isVisible() == timed  # no countdown when the service gives no time (3.17)
    assert spot_texts(table)["royal_match"][2] == "Bet 5"  # settled at the interim settlement, after t1 decides
    for spot in w.bets.spots.values():
        assert not spot.isEnabled()  # 3.2: no bet now
    assert not any(b.isEnabled() for b in w.chips.buttons.values())

    table.override()  # the dealer's screen enters t1's decision (a supervisor's override, 3.17)
    qtbot.waitUntil(lambda: w.override_notice.isVisible(), timeout=15000)
    assert not w.hands.options  # no choice of its own while overridden (3.17)
    assert w.hands.prompt.text() == "The dealer enters your decision on hand 1 (3.17)"
    table.screen.request("decide", player=SEAT, action="stand", hand=1)
    qtbot.waitUntil(lambda: w.hands.prompt.text() == "", timeout=15000)
    assert spot_texts(table)["royal_match"][2] == "LOSE \u22125"  # 10S QD: no two suited cards (4.3)
    assert spot_texts(table)["main"][2] == "Bet 10"
    table.deal(1)  # 8C: the dealer's 17
    qtbot.waitUntil(lambda: bool(table.controller.view.get("concluded")), timeout=15000)
    assert w.hands.dealer.cards == ["9H", "8C"] and w.hands.dealer.total.text() == "17"
    assert spot_texts(table)["main"][2] == "WIN +10"  # 4.5.2 at 1 to 1
    assert spot_texts(table)["royal_match"][2] == "LOSE \u22125"
    assert w.net.text() == "Net +5"
    assert w.hands.player.lines.text().splitlines() == ["Royal Match 21: LOSE \u22125  (3.6.2)",
                                                        "Main: WIN +10  (4.5.2)"]
    assert w.history.lines == ["#1  net +5  \u00b7  Main 10, Royal Match 21 5  \u00b7  dealer 9\u2665 8\u2663 (17)"]
    assert w.history.text().startswith("#1  net +5  \u00b7  Main 10")  # the net first: kept when the line is cut


def leaves(window: QWidget) -> list[QWidget]:
    """The visible widgets that paint something of their own: buttons, labels, card rows
    (not the labels inside a bet's button, nor the cards inside a row)."""
    out = []
    for w in window.findChildren(QWidget):
        if not w.isVisible() or not isinstance(w, QPushButton | QLabel | CardRow):
            continue
        parent = w.parentWidget()
        inside = False
        while parent is not None:
            if isinstance(parent, QPushButton | CardRow):
                inside = True
            parent = parent.parentWidget()
        if not inside:
            out.append(w)
    return out


def rect_of(w: QWidget, window: QWidget) -> QRect:
    return QRect(w.mapTo(window, QPoint(0, 0)), w.size())


def settled_fit_problems(qtbot: Any, window: QWidget, what: str) -> list[str]:
    """The problems once the layout has settled (Qt lays out on posted events: a view just
    shown may be drawn over the last one's geometry for a moment); up to 3 s, then as found."""
    with contextlib.suppress(Exception):
        qtbot.waitUntil(lambda: not fit_problems(window, what), timeout=3000)
    return fit_problems(window, what)


def fit_problems(window: QWidget, what: str) -> list[str]:
    problems = []
    shown = leaves(window)
    area = window.rect()
    for w in shown:
        r = rect_of(w, window)
        name = f"{type(w).__name__} {getattr(w, 'text', lambda: '')()!r}"
        if not area.contains(r):
            problems.append(f"{what}: {name} {r} outside the window {area}")
        if isinstance(w, QPushButton) and (w.width() < TOUCH or w.height() < TOUCH):
            problems.append(f"{what}: {name} is {w.width()}x{w.height()}, under {TOUCH} px")
        if isinstance(w, QPushButton) and w.text():
            needed = w.fontMetrics().horizontalAdvance(w.text())
            if needed > w.contentsRect().width() - 4:
                problems.append(f"{what}: {name}'s text ({needed} px) is cut in {w.contentsRect().width()} px")
    for spot in window.findChildren(QPushButton):  # the words inside a bet's spot, whole
        for label in spot.findChildren(QLabel):
            if spot.isVisible() and label.text():
                needed = max(label.fontMetrics().horizontalAdvance(line) for line in label.text().splitlines())
                if needed > label.width():
                    problems.append(f"{what}: {label.text()!r} ({needed} px) is cut in {label.width()} px")
    for i, a in enumerate(shown):
        for b in shown[i + 1:]:
            if a.isAncestorOf(b) or b.isAncestorOf(a):
                continue
            if rect_of(a, window).intersects(rect_of(b, window)):
                problems.append(f"{what}: {type(a).__name__} {getattr(a, 'text', lambda: '')()!r} "
                                f"overlaps {type(b).__name__} {getattr(b, 'text', lambda: '')()!r}")
    return problems


def test_controls_are_for_a_finger_and_nothing_overlaps_at_three_sizes(qtbot: Any, table: TerminalTable) -> None:
    table.screen.request("wager", player=SEAT, bet="main", amount=10)
    w = table.open_window(SIZES[0])
    qtbot.waitUntil(lambda: "main" in w.bets.spots, timeout=15000)
    problems: list[str] = []
    for phase in ("betting", "deciding", "settled"):
        if phase == "deciding":
            table.deal(3)
            qtbot.waitUntil(lambda: bool(w.hands.options), timeout=15000)
        elif phase == "settled":
            table.override()
            table.screen.request("decide", player=SEAT, action="stand", hand=1)
            table.deal(1)
            qtbot.waitUntil(lambda: bool(table.controller.view.get("concluded")), timeout=15000)
        for size in SIZES:
            w.resize(*size)
            # asked again until it takes: a window is held taller while its minimum shrinks (a view in between)
            qtbot.waitUntil(lambda s=size: w.resize(*s) is None and (w.width(), w.height()) == s, timeout=5000)
            QApplication.processEvents()
            w.centralWidget().layout().activate()
            QApplication.processEvents()
            problems += settled_fit_problems(qtbot, w, f"{phase} {size[0]}x{size[1]}")
        assert len(leaves(w)) > 15  # the check saw the window's controls
    assert problems == []


def test_the_command_opens_the_window_or_says_why_not(table: TerminalTable) -> None:
    """`dealer-assist terminal --connect` opens the window with a display (offscreen here);
    without one, one line naming --text (never Qt's abort, exit 134); --text prints the view."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM",
                                                              "DEALER_ASSIST_CONFIG")}
    args = [sys.executable, "-m", "dealer_assist", "terminal", "--connect", f"127.0.0.1:{table.station.port}",
            "--dir", str(table.directory)]
    shown = subprocess.run([*args, "--exit-after-show"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                           env={**env, "QT_QPA_PLATFORM": "offscreen"}, check=False)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == "shown\n"
    headless = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert headless.returncode == 2 and headless.stdout == ""
    assert headless.stderr.startswith("error: no display") and "--text" in headless.stderr
    assert len(headless.stderr.splitlines()) == 1
    text = subprocess.run([*args, "--text", "--once"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=env, check=False)
    assert text.returncode == 0, text.stderr
    assert '"seat": "t1"' in text.stdout and "PySide6" not in text.stderr


@pytest.mark.parametrize(("text", "background", "where"), PAINTED_PAIRS)
def test_the_terminal_s_own_colours_read_at_4_5_to_1(text: str, background: str, where: str) -> None:
    assert contrast(text, background) >= 4.5, where


def test_the_own_colours_are_the_style_s() -> None:
    """The pairs above are the ones the style sheet paints (a changed colour there is seen here)."""
    style = app_style().replace(" ", "")
    for role, background in (("place", "#ffe0b2"), ("go", "#ffe082")):
        assert f'QPushButton[role="{role}"]' in app_style() and f"background:{background}" in style
    assert "QPushButton[role=\"toggle\"]:checked{background:#1565c0;color:#ffffff;" in style


def test_a_time_out_shows_the_default_strategy_s_play(qtbot: Any, tmp_path: Path) -> None:
    """t1 does not decide within the table's 5 s (3.17; the least the set-up allows): the
    service's clock records the time-out and the default strategy plays its 20, standing on
    hard 12 or more (3.18, 3.18.1); 20 beats the dealer's 17 (4.5.2): +10."""
    table = TerminalTable(tmp_path, CARDS, decision_seconds=5)
    try:
        _time_out_played(qtbot, table)
    finally:
        table.close()


def _time_out_played(qtbot: Any, table: TerminalTable) -> None:
    table.screen.request("wager", player=SEAT, bet="main", amount=10)
    w = table.open_window((1024, 768))
    table.deal(3)
    qtbot.waitUntil(lambda: bool(w.hands.options), timeout=15000)
    assert w.hands.countdown.isVisible() and w.hands.countdown.text().endswith(" s")  # 3.17: the time shown
    qtbot.waitUntil(lambda: not w.hands.options, timeout=20000)  # nobody decides: the service's clock
    assert w.hands.player.lines.text() == "No decision in time: the default strategy played (3.18)"
    table.deal(1)
    qtbot.waitUntil(lambda: bool(table.controller.view.get("concluded")), timeout=15000)
    assert w.hands.player.lines.text().splitlines() == [
        "No decision in time: the default strategy played (3.18)", "Main: WIN +10  (4.5.2)"]
    assert w.hands.player.cards == ["10S", "QD"] and w.net.text() == "Net +10"


def test_the_window_says_the_station_went_away_and_comes_back_with_it(qtbot: Any, table: TerminalTable) -> None:
    from ui.terminal.link import RECONNECTING

    w = table.open_window((1024, 768))
    qtbot.waitUntil(lambda: w.banner.text() == "Place your bets" and 5 in w.chips.buttons, timeout=15000)
    assert not w.link_notice.isVisible()
    w.chips.buttons[5].click()  # a touch before: the link's connection for the player's ops is open
    w.bets.spots["main"].click()
    w.place_button.click()
    qtbot.waitUntil(lambda: w.bets.spots["main"].amount.text() == "Bet 5", timeout=15000)
    table.connect().request("withdraw")  # 5.4: off the slip again before the bets close
    table.station.stop()  # the service stops (systemd restarts it)
    qtbot.waitUntil(lambda: w.link_notice.isVisible(), timeout=15000)
    assert w.link_notice.text().startswith(RECONNECTING)
    table.station.start()  # on a new port: the terminal's connect reads it (the test's stand-in for a fixed one)
    table.screen = table.station.dealer()
    qtbot.waitUntil(lambda: not w.link_notice.isVisible(), timeout=30000)
    # the player's first touch after it came back is taken (not refused on the old connection)
    w.chips.buttons[25].click()
    w.bets.spots["main"].click()
    w.place_button.click()
    qtbot.waitUntil(lambda: table.controller.sending == 0, timeout=15000)
    assert not w.refusal.isVisible(), w.refusal.text()
    assert table.screen.request("state")["slip"] == [{"type": "wager", "player": SEAT, "bet": "main", "amount": 25}]
    qtbot.waitUntil(lambda: w.bets.spots["main"].amount.text() == "Bet 25", timeout=15000)


def test_a_split_shows_each_hand_and_its_result(qtbot: Any, tmp_path: Path) -> None:
    """Shoe 8S 9H 8D, then 3C 10H 8C. t1 splits its 8s (3.13): the first card after goes to
    the first hand (3.13.1): 8S 3C = 11, t1 stands; then 8D 10H = 18, t1 stands; the
    dealer's 9H 8C = 17 stands (3.19). 11 loses 10 to 17 (4.6.1); 18 beats 17 and wins 10
    (4.5.2): net 0."""
    t = TerminalTable(tmp_path, "8S 9H 8D 3C 10H 8C")
    try:
        t.screen.request("wager", player=SEAT, bet="main", amount=10)
        w = t.open_window((1024, 768))
        t.deal(3)
        qtbot.waitUntil(lambda: "split" in w.hands.options, timeout=15000)
        w.hands.options["split"].click()  # t1's own touches, at its terminal (3.9)
        qtbot.waitUntil(lambda: t.controller.sending == 0 and "split" not in w.hands.options, timeout=15000)
        t.deal(1)
        qtbot.waitUntil(lambda: w.hands.prompt.text() == "Your decision on hand 1 (3.9)"
                        and "Hand 1: 8\u2660 3\u2663 = 11" in w.hands.player.lines.text()
                        and "stand" in w.hands.options, timeout=15000)
        w.hands.options["stand"].click()
        qtbot.waitUntil(lambda: t.controller.sending == 0 and not w.hands.options, timeout=15000)
        t.deal(1)
        qtbot.waitUntil(lambda: w.hands.prompt.text() == "Your decision on hand 2 (3.9)"
                        and "stand" in w.hands.options, timeout=15000)
        w.hands.options["stand"].click()
        # the stand recorded before the dealer's card (it is sent off the GUI thread: a card
        # dealt first would meet hand 2's decision still pending; found by CI under load)
        qtbot.waitUntil(lambda: t.controller.sending == 0 and not w.hands.options, timeout=15000)
        t.deal(1)
        qtbot.waitUntil(lambda: bool(t.controller.view.get("concluded")), timeout=15000)
        assert w.hands.player.lines.text().splitlines() == [
            "Hand 1: 8\u2660 3\u2663 = 11", "Hand 2: 8\u2666 10\u2665 = 18",
            "Main hand 1: LOSE \u221210  (4.6.1)", "Main hand 2: WIN +10  (4.5.2)"]
        assert w.hands.player.cards == ["8S", "8D"]  # the shared hand (3.8)
        assert w.net.text() == "Net 0"
        assert settled_fit_problems(qtbot, w, "split 1024x768") == []
    finally:
        t.close()
