"""Split hands' pay tags name their players (issue 34: "on split hands the amounts carry no
player names"). The heavy round (ui/dealer/heavy_round.py) splits area 1 to four hands, each
holding ann's, bob's and cat's stakes (3.24: the players behind match the split); once
settled each hand's tag lists every player's amount after that player's name (whole, or cut
to the letters that tell the area's players apart where four hands side by side leave no
room for whole names), in the layout's one tag size, never the bare amounts in the wager
table's column order and never over a card."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from tests.ui.at_sizes import SIZES, at_every_size
from tests.ui.test_fits import _cut_pay_tags
from ui.common.idle import wait_idle
from ui.common.table_view import HandBox, short_names
from ui.dealer.heavy_round import run


def test_short_names_tell_the_players_apart() -> None:
    # the fewest first letters, one length for every player, that no two players share
    assert short_names(("ann", "bob", "cat")) == {"ann": "a", "bob": "b", "cat": "c"}
    assert short_names(("alice", "albert", "bob")) == {"alice": "ali", "albert": "alb", "bob": "bob"}
    assert short_names(("ann", "anna")) == {"ann": "ann", "anna": "anna"}  # a name inside another: whole
    assert short_names(()) == {}


def _name_of(line: str, players: tuple[str, ...]) -> str:
    """The player a tag's line names: the one whose name (whole or cut, as the line has it)
    begins it; "" for a line naming nobody (a bare amount, the net)."""
    head = line.split(" ")[0]
    named = [p for p in players if head and p.startswith(head)] if " " in line else []
    return named[0] if len(named) == 1 else ""


@pytest.mark.slow
@pytest.mark.parametrize("game", ["lucky8", "dueling8s", "ace_race", "star_elements"])
def test_split_hands_tags_name_every_player(qtbot: Any, tmp_path: Path, game: str) -> None:
    seen: list[tuple[tuple[int, int], list[list[str]], set[int]]] = []
    problems: list[str] = []

    def look(step: str, size: tuple[int, int], window: Any) -> None:
        area = window.table_view.area_boxes[1]
        hands: list[HandBox] = area.hand_boxes
        qtbot.waitUntil(lambda: all(h.pay.lines for h in hands), timeout=3000)
        wait_idle()  # the layout's one size (TableView.equal_pay, once laid out)
        QApplication.processEvents()
        lines = [[t for t, _ in h.pay.lines] for h in hands]
        sizes = {b.pay.font().pixelSize() for a in window.table_view.area_boxes.values()
                 for b in getattr(a, "hand_boxes", []) if b.pay.lines}
        seen.append((size, lines, sizes))
        problems.extend(f"{size}: {p}" for p in _cut_pay_tags(window))

    run(game, SIZES[0], tmp_path, check=at_every_size(("4_settled",), look), db_dir=str(tmp_path))
    assert [size for size, _, _ in seen] == SIZES
    for size, lines, sizes in seen:
        assert len(lines) == 4, (size, lines)  # split and resplit to four hands
        assert len(sizes) == 1, (size, sizes)  # one tag size for the layout: neighbours match
        for hand in lines:
            # one line a player, in the area's position order: ann, bob, cat (heavy_round.wagers)
            assert [_name_of(line, ("ann", "bob", "cat")) for line in hand] == ["ann", "bob", "cat"], (size, hand)
    assert problems == []
