"""The dealer's screen at the table screens' sizes with the heaviest set-up (issue 16).

A full round of each game (``ui.dealer.heavy_round``: seven areas with three players each and
every side bet, insurance offered to everyone, area 1 split to four hands, a double;
Electronic: twelve terminals) played through the real window on the simulated shoe.
At each step (betting, offers, play, settlement) the window is still the screen's size,
every touch control is at least 48 px high and wide, no button's or one-line
label's text is cut, and every card's rank and element name is in type of at least 14 px
and not hidden under the next card (small cards become tiles with the words).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QAbstractButton, QComboBox, QLabel, QLineEdit, QToolBar, QWidget

from dealer_assist.base.cards import ELEMENT_SUITS
from tests.ui.entry_fit import control_problems
from ui.common.cards import READABLE_PX, CardFace, CardRow, name_font_px
from ui.common.idle import wait_idle
from ui.common.style import TOUCH
from ui.common.table_view import HandBox, PayTag, area_rows
from ui.dealer.heavy_round import run


def _problems(window: Any, size: tuple[int, int]) -> list[str]:
    problems: list[str] = []
    if (window.width(), window.height()) != size:
        problems.append(f"window {window.width()}x{window.height()}, screen {size[0]}x{size[1]}")
    sim = window.findChild(QToolBar, "simulated_shoe")  # hidden by heavy_round (a developer's tool)
    for widget in window.findChildren(QWidget):
        if not widget.isVisibleTo(window) or (sim is not None and sim.isAncestorOf(widget)):
            continue
        if isinstance(widget, (QAbstractButton, QComboBox, QLineEdit)):
            if widget.height() < TOUCH or widget.width() < TOUCH:
                problems.append(f"{type(widget).__name__} {getattr(widget, 'text', lambda: '')()!r} "
                                f"{widget.width()}x{widget.height()} < {TOUCH} px")
        if isinstance(widget, QAbstractButton) and widget.text() and "\n" not in widget.text():
            need = widget.fontMetrics().horizontalAdvance(widget.text())
            if need > widget.contentsRect().width():
                problems.append(f"button {widget.text()!r} cut: {need} > {widget.contentsRect().width()} px")
        if isinstance(widget, QLabel) and widget.text() and "<" not in widget.text():
            # a one-line label: its whole text; a wrapped one: its longest word
            parts = widget.text().split() if widget.wordWrap() else widget.text().split("\n")
            need = max(widget.fontMetrics().horizontalAdvance(part) for part in parts)
            if need > widget.contentsRect().width() + 1:
                problems.append(f"label {widget.text()!r} cut: {need} > {widget.contentsRect().width()} px")
    problems += _unreadable_cards(window)
    problems += _cut_pay_tags(window)
    return problems


PAY_TYPE_PX = 10  # a pay tag's smallest type
# a hand's net alone (four split hands side by side): readable across the table, a tag of
# about 22 px (issue 34: ~4 mm cap height at 2 m). Four split hands leave 21-23 px under
# their tiles at 1366×768; at 1280×800 the tag's type is held by the hand's width (15-16 px
# type: a tag 20-21 px high, the hand a pixel narrower or wider with the order of Qt's
# layout passes — CI saw 20), so 20 is the least asserted (it was 10-13 before issue 34)
NET_TAG_PX = 20


def _cut_pay_tags(window: Any) -> list[str]:
    """Every visible pay tag paints every line it holds whole, in type of at least 10 px,
    inside its hand and off every card face or tile and the badges of the hand (issue 34); and what it holds
    is the hand's whole settlement: every player's line, or every player's amount in position
    order, or the hand's net marked as such, never some players' lines alone."""
    problems: list[str] = []
    for tag in window.findChildren(PayTag):
        if not tag.lines or not tag.isVisibleTo(window):
            continue
        hand = tag.parent()
        assert isinstance(hand, HandBox)
        where = f"pay tag {tag.text()!r} of H{hand.hand.number}"
        metrics = QFontMetrics(tag.font())
        texts = [text for text, _ in tag.lines]
        if tag.font().pixelSize() < PAY_TYPE_PX:
            problems.append(f"{where}: type {tag.font().pixelSize()} px")
        if tag.net and tag.height() < NET_TAG_PX:
            problems.append(f"{where}: the net's tag {tag.height()} px high (< {NET_TAG_PX})")
        if tag.single_line:
            need_w = sum(metrics.horizontalAdvance(t) for t in texts) + metrics.horizontalAdvance("  ") * (len(texts) - 1)
            need_h = metrics.height()
            if need_w > tag.width() or need_h > tag.height():
                problems.append(f"{where}: needs {need_w}x{need_h} px, has {tag.width()}x{tag.height()}")
        else:
            # stacked lines (issue 34: by their letters' height, PayTag.baselines): each line's
            # ink where it is drawn, inside the tag and clear of the next line's
            inks = [metrics.tightBoundingRect(t).translated(x, y) for t, (x, y) in zip(texts, tag.baselines(), strict=True)]
            for text, ink in zip(texts, inks, strict=True):
                if not tag.rect().contains(ink):
                    problems.append(f"{where}: {text!r} drawn at {ink.getRect()}, the tag {tag.width()}x{tag.height()}")
            for (upper, ink), lower in zip(zip(texts, inks, strict=True), inks[1:], strict=False):
                if ink.bottom() >= lower.top():
                    problems.append(f"{where}: {upper!r} touches the line under it")
        if not hand.rect().contains(tag.geometry()):
            problems.append(f"{where}: {tag.geometry().getRect()} outside its hand {hand.width()}x{hand.height()}")
        for face in hand.cards.faces:
            rect = QRect(face.mapTo(hand, QPoint(0, 0)), face.size())
            if face.isVisibleTo(window) and rect.intersects(tag.geometry()):
                problems.append(f"{where}: over the card {face.text}")
        badges = hand.badges
        if badges.isVisibleTo(window) and badges.text():
            words = QRect(badges.pos(), QSize(badges.fontMetrics().horizontalAdvance(badges.text()), badges.height()))
            if words.intersects(tag.geometry()):
                problems.append(f"{where}: over the badges {badges.text()!r}")
        whole = hand.pay_text()
        amounts = [amount for _, amount, _ in hand.hand.pay]
        if tag.net:
            # the hand's net: the sum of its players' amounts, to the cent (a return counts 0)
            net = sum((_signed(a) for a in amounts), Decimal(0))
            # one line ("net −275 ▾", "−275 ▾") or stacked ("net ▾" over "−275"): one figure
            shown = "".join(texts).replace("net\u2009", "").replace("\u2009\u25be", "").replace("\u25be", "")
            if len(texts) > 2 or _signed(shown) != net or (net == 0) != (shown[0] in "=\u00b1"):
                problems.append(f"{where}: the net of {amounts} is {net}")
        elif texts != whole and texts != _cut_names(hand):
            # every player's amount under the player's name, whole or cut to the letters that
            # tell the area's players apart (issue 34: never amounts without names)
            problems.append(f"{where}: shows {texts}, the hand holds {whole}")
    return problems


def _cut_names(hand: HandBox) -> list[str]:
    """The hand's lines with each name cut to its first letters, as few as tell the area's
    players apart (the same letters for all, e.g. ann/bob/cat: a/b/c; alice/albert: ali/alb)."""
    names = list(dict.fromkeys([*hand.players, *(name for name, _, _ in hand.hand.pay)]))
    length = next(n for n in range(1, 100) if len({name[:n] for name in names}) == len(names))
    return [f"{name[:length]} {amount}" for name, amount, _ in hand.hand.pay]


def _signed(amount: str) -> Decimal:
    """``+120`` → 120, ``−100`` → −100, ``=100`` (returned) and ``±0`` → 0."""
    if amount[0] in "=\u00b1":
        return Decimal(0)
    value = Decimal(amount[1:].replace(",", ""))
    return -value if amount[0] == "\u2212" else value


def _unreadable_cards(window: Any) -> list[str]:
    """Every card's rank (and Star Elements' element name) in type of at least 14 px and not
    hidden under the next card: a card face, or a tile with the words (four split hands)."""
    problems: list[str] = []
    for row in window.findChildren(CardRow):
        if not row.isVisibleTo(window):
            continue
        faces = row.faces
        for n, face in enumerate(faces):
            after = faces[n + 1] if n + 1 < len(faces) else None
            where = f"{face.text} in {row.parent().objectName() or type(row.parent()).__name__}"
            if face.compact:
                if CardFace.tile_font().pixelSize() < READABLE_PX:
                    problems.append(f"{where}: tile type {CardFace.tile_font().pixelSize()} px")
                if after is not None and after.y() < face.y() + face.height():
                    problems.append(f"{where}: tile covered by the next")
            elif face.suit in ELEMENT_SUITS:
                if name_font_px(face.size()) < READABLE_PX:
                    problems.append(f"{where}: element name {name_font_px(face.size())} px")
                if after is not None and after.x() < face.x() + face.width():
                    problems.append(f"{where}: element name covered by the next card")
            elif int(face.height() * 0.30) < READABLE_PX:
                problems.append(f"{where}: rank {int(face.height() * 0.30)} px")
    return problems


def test_area_rows_give_split_hands_room() -> None:
    # seven areas: 1-4 over 5-7; one of areas 1-4 split to three or four hands: 1-3 over 4-7
    # (its neighbours keep 16 px wager tables); a split in 5-7 (already a row of three) or to
    # two hands changes nothing
    assert area_rows([1] * 7) == [[0, 1, 2, 3], [4, 5, 6]]
    assert area_rows([4, 1, 1, 1, 1, 1, 1]) == [[0, 1, 2], [3, 4, 5, 6]]
    assert area_rows([1, 1, 1, 3, 1, 1, 1]) == [[0, 1, 2], [3, 4, 5, 6]]
    assert area_rows([1, 1, 1, 1, 1, 4, 1]) == [[0, 1, 2, 3], [4, 5, 6]]
    assert area_rows([2, 2, 2, 2, 1, 1, 1]) == [[0, 1, 2, 3], [4, 5, 6]]
    # four areas or fewer: one row; five: 4 + 1, or 3 + 2 with a split in the first four
    assert area_rows([4, 1, 1, 1]) == [[0, 1, 2, 3]]
    assert area_rows([1] * 5) == [[0, 1, 2, 3], [4]]
    assert area_rows([1, 4, 1, 1, 1]) == [[0, 1, 2], [3, 4]]
    assert area_rows([]) == []


SIZES = [(1280, 800), (1366, 768), (1920, 1080)]
# The sizes each game's whole window is checked at (the settlement list: at every size).
FIT_SIZES = {
    "lucky8": [(1280, 800), (1366, 768), (1920, 1080)],
    "ace_race": [(1366, 768)],
    "star_elements": [(1366, 768), (1280, 800)],
    "dueling8s": [(1366, 768)],
    "electronic": [(1366, 768)],
}


def _list_scrolls(window: Any) -> str:
    """Why the dealer's settlement list does not fit its panel, or "" when it fits."""
    panel = window.settlement
    if not panel.isVisibleTo(window) or not panel.summary.isVisibleTo(window):
        return ""
    rows = panel.summary_rows()
    summary = panel.summary
    if rows and summary.verticalScrollBar().maximum() > 0:
        shown = sum(summary.rowHeight(r) for r in range(len(rows)))
        return f"{len(rows)} rows, {shown} px in {summary.viewport().height()} px"
    return ""


@pytest.mark.slow
@pytest.mark.timeout(900)  # about 100 events, each looked at one size, every step at three
@pytest.mark.parametrize("game", ["ace_race", "electronic", "star_elements", "lucky8", "dueling8s"])
def test_the_heaviest_round_fits_every_screen(qtbot: Any, tmp_path: Path, game: str) -> None:
    """One window plays the game's heaviest round; after every event it is resized to each
    table screen's size in turn and checked there:

    - at each step (betting, offers, play, settlement) and at the sizes of FIT_SIZES, the
      window fits (_problems), and at the end the dealer's settlement list needs no
      scrolling and is in paying order (issue 24 item 3);
    - after every event, at one size in turn (each size a third of the events; at each step
      every size), the dealer's list (interim and final) fits its panel without scrolling
      (issue 24 item 3), no pay tag is cut, and every control the dealer needs is inside the
      window, whole and uncovered (tests/ui/entry_fit.py). (Every size after every event was three window
      layouts an event: the slowest test of the suite.)"""
    found: list[str] = []
    shown: set[tuple[str, tuple[int, int]]] = set()
    stepped: dict[tuple[int, int], set[str]] = {size: set() for size in FIT_SIZES[game]}

    def at(size: tuple[int, int], window: Any) -> None:
        if (window.width(), window.height()) != size:
            window.setGeometry(0, 0, *size)
        wait_idle()  # laid out again; the list is filled and fitted after the card is painted

    def here_first(sizes: list[tuple[int, int]], window: Any) -> list[tuple[int, int]]:
        """Every size, the window's own first: an event is looked at where it arrived, one
        resize fewer than starting over (each resize restyles and lays out the whole window)."""
        return sorted(sizes, key=lambda size: size != (window.width(), window.height()))

    events = 0
    # each size a third of the events, in an order that changes the window's scale (a restyle
    # of every widget) on two events of six, not four: 1280×800 and 1366×768 share a scale
    turns = [*SIZES, *reversed(SIZES)]

    def after(what: str, window: Any) -> None:
        nonlocal events
        events += 1
        look(what, window, [turns[events % len(turns)]])

    def look(what: str, window: Any, sizes: list[tuple[int, int]]) -> None:
        for size in here_first(sizes, window):
            at(size, window)
            if window.settlement.isVisibleTo(window) and window.settlement.summary_rows():
                shown.add((what, size))
            found.extend(f"{size[0]}x{size[1]} {p}" for p in control_problems(window, f"after {what}"))
            why = _list_scrolls(window)
            if why:
                found.append(f"{size[0]}x{size[1]} after {what}: the settlement list scrolls: {why}")
            if size not in FIT_SIZES[game]:  # (there: at each step, with the rest of _problems)
                try:  # the tags placed (equal_pay runs once the boxes are laid out)
                    qtbot.waitUntil(lambda: not _cut_pay_tags(window), timeout=3000)  # noqa: B023
                except qtbot.TimeoutError:
                    pass
                found.extend(f"{size[0]}x{size[1]} after {what}: {p}" for p in _cut_pay_tags(window))

    def check(step: str, window: Any) -> None:
        look(step, window, SIZES)
        for size in here_first(FIT_SIZES[game], window):
            at(size, window)
            stepped[size].add(step)
            # the layout settled (on a loaded machine wait_idle() may give up before the cards are
            # placed again): a problem still there after 3 s is the screen's, and reported
            try:
                qtbot.waitUntil(lambda: not _problems(window, size), timeout=3000)  # noqa: B023
            except qtbot.TimeoutError:
                pass
            found.extend(f"{size[0]}x{size[1]} at {step}: {p}" for p in _problems(window, size))
            if step == "4_settled":
                summary = window.settlement.summary
                rows = window.settlement.summary_rows()
                if summary.verticalScrollBar().maximum() > 0 or not rows:
                    found.append(f"{size[0]}x{size[1]}: settlement list scrolls: {len(rows)} rows "
                                 f"in {summary.viewport().height()} px")
                areas = [int(r[0]) for r in rows if r[0]]
                if areas != sorted(areas, reverse=True):
                    found.append(f"{size[0]}x{size[1]}: settlement list not in paying order: areas {areas}")

    run(game, FIT_SIZES[game][0], tmp_path, check=check, db_dir=str(tmp_path), after_event=after)
    assert all(("4_settled", size) in shown for size in SIZES)  # the final settlement was on the list
    for steps in stepped.values():
        assert steps >= {"1_betting", "3_play", "4_settled"}
    assert found == []
