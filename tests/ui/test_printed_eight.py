"""Dueling 8's permanent 8 (3.14: "permanently imprinted on the layout"): its word is never cut
(issue 34: "PRINTED" read "PRI" where the next card overlaps it). On every printed card the
dealer sees, the word PRINTED fits whole in the part the next card leaves uncovered, or the
card carries no word and its hand's badges say PERMANENT 8 (the rules' words, 1.1.4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QFont, QFontMetrics

from tests.ui.at_sizes import at_every_size
from ui.common.cards import CardRow
from ui.common.table_view import HandBox
from ui.dealer.heavy_round import run


def _cut_words(window: Any) -> tuple[list[str], int, int]:
    """(problems, printed cards with the word whole, printed cards with the badge instead)."""
    problems: list[str] = []
    whole = badged = 0
    for row in window.findChildren(CardRow):
        if not row.isVisibleTo(window):
            continue
        faces = row.faces
        for n, face in enumerate(faces):
            if not face.printed:
                continue
            # the part of the card the next one leaves uncovered (all of it for the last)
            shown = faces[n + 1].x() - face.x() if n + 1 < len(faces) and not face.compact else face.width()
            # the word's type as the card paints it (cards.CardFace.printed_font): 14 % of the
            # card's height, 20 % of its width, 9 px at least, bold
            font = QFont()
            font.setBold(True)
            font.setPixelSize(max(9, int(min(face.height() * 0.14, face.width() * 0.2))))
            need = QFontMetrics(font).horizontalAdvance("PRINTED") + 2
            hand = row.parent()
            badges = hand.badges.text() if isinstance(hand, HandBox) and hand.badges.isVisibleTo(window) else ""
            if not face.compact and need <= shown:
                whole += 1
            elif "PERMANENT 8" in badges:
                badged += 1
            elif isinstance(hand, HandBox):
                problems.append(f"{face.text} in H{hand.hand.number}: no room for PRINTED ({need} > {shown} px) "
                                f"and no PERMANENT 8 badge ({badges!r})")
            else:
                problems.append(f"the dealer's printed 8: no room for PRINTED ({need} > {shown} px)")
    return problems, whole, badged


@pytest.mark.slow
def test_the_printed_eight_is_named_whole(qtbot: Any, tmp_path: Path) -> None:
    problems: list[str] = []
    counts: dict[tuple[str, tuple[int, int]], tuple[int, int]] = {}

    def look(step: str, size: tuple[int, int], window: Any) -> None:
        found, whole, badged = _cut_words(window)
        problems.extend(f"{step} {size}: {p}" for p in found)
        counts[(step, size)] = (whole, badged)

    run("dueling8s", (1366, 768), tmp_path, check=at_every_size(("3_play", "4_settled"), look), db_dir=str(tmp_path))
    assert problems == []
    # the dealer's and areas 2 to 7's printed 8 at least (3.14: every hand starts on it)
    assert all(whole + badged >= 7 for whole, badged in counts.values()), counts
    # at 1366×768 the narrow areas 2 to 4 overlap it: the badge is there (what was cut to "PRI")
    assert counts[("4_settled", (1366, 768))][1] >= 3, counts
