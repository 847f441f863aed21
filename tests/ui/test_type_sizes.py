"""Type the dealer reads from the table: 16 px at least (issue 34, "touch": every control
≥ 48 px high with ≥ 16 px type; the labels beside them were 12-13 px: "Double / insurance
for less than full", Electronic's terminal boxes, DISCARD).

The heavy round (ui/dealer/heavy_round.py) is looked at while a player decides and once
settled, at the three table screens' sizes: every visible label of the prompt's panel, the
betting panel, the bottom bar and Electronic's terminals is in type of 16 px or more. (Not
yet here: the playing areas' wager tables, hand titles and badges, and the status line.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel, QStatusBar

from tests.ui.window_checks import TYPE_PX, font_px
from ui.common.idle import wait_idle
from ui.common.table_view import AreaBox, DealerBox
from ui.dealer.heavy_round import run

SIZES = [(1280, 800), (1366, 768), (1920, 1080)]


def _small_labels(window: Any) -> list[str]:
    out = []
    for label in window.findChildren(QLabel):
        if not label.isVisibleTo(window) or not label.text().strip():
            continue
        parent = label.parent()
        outside = True
        while parent is not None:
            if isinstance(parent, (AreaBox, DealerBox, QStatusBar)):
                outside = False
                break
            parent = parent.parent()
        if outside and font_px(label) < TYPE_PX:
            out.append(f"{label.text()[:40]!r} {font_px(label):.0f} px")
    return out


@pytest.mark.slow
@pytest.mark.parametrize("game", ["lucky8", "electronic"])
def test_the_dealers_labels_are_16_px_or_more(qtbot: Any, tmp_path: Path, game: str) -> None:
    found: list[str] = []
    looked: list[tuple[str, tuple[int, int], int]] = []

    def check(step: str, window: Any) -> None:
        if step not in ("3_play", "4_settled"):
            return
        for size in SIZES:
            window.setGeometry(0, 0, *size)
            wait_idle()
            small = _small_labels(window)
            found.extend(f"{step} {size}: {s}" for s in small)
            shown = sum(1 for lab in window.findChildren(QLabel) if lab.isVisibleTo(window) and lab.text())
            looked.append((step, size, shown))

    run(game, SIZES[0], tmp_path, check=check, db_dir=str(tmp_path))
    assert len(looked) == 6 and all(shown > 10 for _, _, shown in looked), looked
    assert found == []
