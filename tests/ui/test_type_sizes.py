"""Type the dealer reads from the table: 16 px at least (issue 34, "touch": every control
≥ 48 px high with ≥ 16 px type; the labels beside them were 12-13 px: "Double / insurance
for less than full", Electronic's terminal boxes, DISCARD; the areas' wager tables 11-15 px,
the hands' titles and badges 10-15 px, the status line 12 px).

The heavy round of each of the five games (ui/dealer/heavy_round.py: seven areas of three
players with every side bet, area 1 split to four hands; Electronic: twelve terminals) is
looked at while a player decides and once settled, at the three table screens' sizes: every
visible label of the window (the layout's areas, hands and wager tables, the dealer's box,
the prompt's panel, the betting panel, the bottom bar, Electronic's terminals, the status
line) is in type of 16 px or more."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel, QStatusBar

from tests.ui.at_sizes import SIZES, at_every_size
from tests.ui.window_checks import TYPE_PX, chain, font_px
from ui.common.table_view import HandBox, WagerCellLabel
from ui.dealer.heavy_round import run


def _shown(window: Any) -> list[QLabel]:
    return [label for label in window.findChildren(QLabel) if label.isVisibleTo(window) and label.text().strip()]


@pytest.mark.slow
@pytest.mark.parametrize("game", ["lucky8", "ace_race", "star_elements", "dueling8s", "electronic"])
def test_the_dealers_labels_are_16_px_or_more(qtbot: Any, tmp_path: Path, game: str) -> None:
    found: list[str] = []
    looked: list[tuple[str, tuple[int, int], dict[str, int]]] = []

    def look(step: str, size: tuple[int, int], window: Any) -> None:
        shown = _shown(window)
        found.extend(f"{step} {size}: {label.text()[:40]!r} {font_px(label):.0f} px in {chain(label)}"
                     for label in shown if font_px(label) < TYPE_PX)
        hands = [b for b in window.findChildren(HandBox) if b.isVisibleTo(window) and b.numbered]
        looked.append((step, size, {
            "labels": len(shown),
            "wager cells": sum(isinstance(label, WagerCellLabel) for label in shown),
            "hand titles": sum(b.title.isVisibleTo(window) for b in hands),
            "badges": sum(b.badges.isVisibleTo(window) and bool(b.badges.text()) for b in hands),
            "status line": sum(isinstance(label.parentWidget(), QStatusBar) for label in shown)}))

    run(game, SIZES[0], tmp_path, check=at_every_size(("3_play", "4_settled"), look), db_dir=str(tmp_path))
    assert [(step, size) for step, size, _ in looked] == [(s, z) for s in ("3_play", "4_settled") for z in SIZES]
    for _, _, counts in looked:
        assert counts["labels"] > 10 and counts["status line"] >= 1, looked
        if game != "electronic":
            # every wager of seven areas of three players (heavy_round.wagers) has its cell, and
            # area 1's four split hands their titles and DOUBLED
            assert counts["wager cells"] >= 7 * 3 and counts["hand titles"] >= 4 and counts["badges"] >= 4, looked
    assert found == []
