"""The area in turn is ringed in yellow on the felt, and the ring moves with the turn (issue 33:
a turn that moves repaints two rings, not two whole areas and everything they hold).

Played through the real window on its own station service; the ring is read from the area's
own painted pixels.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtGui import QColor

from dealer_assist.engine.table_setup import TableSetup
from tests.ui.driving import TableDriver
from ui.common.style import BADGE, FELT
from ui.common.table_view import turn_ring_px

MakeTable = Callable[..., TableDriver]


def _painted(t: TableDriver, area: int) -> tuple[str, str]:
    """The colour of the area's top edge at its middle (the ring, when in turn) and of the felt
    just inside it (the area's own ground)."""
    box = t.window.table_view.area_boxes[area]
    image = box.grab().toImage()
    middle = image.width() // 2
    return (QColor(image.pixel(middle, 1)).name(), QColor(image.pixel(middle, turn_ring_px() + 1)).name())


RING, GROUND = QColor(BADGE).name(), QColor(FELT).name()


# Low cards only: no hand can be a blackjack or bust in its first cards, in any game's deal.
LOW = {"star_elements": "3Fi 4Wa 6Go 5Ea 2Wo 3Fi 4Go 2Ea 3Wa 4Go 5Fi 6Wa",
       "lucky8": "3H 4C 6D 5S 2D 3C 4S 2S 3D 4D 5D 6H",
       "ace_race": "3H 4C 6D 5S 2D 3C 4S 2S 3D 4D 5D 6H",
       "dueling8s": "3H 4C 6D 5S 2D 3C 4S 2S 3D 4D 5D 6H"}


@pytest.mark.parametrize("game", sorted(LOW))
def test_the_ring_marks_the_area_in_turn_and_moves_with_it(make_table: MakeTable, game: str) -> None:
    # alice on area 1 and carl on area 2, a main wager each, dealt low cards (the deal of each
    # game, until a decision is asked for): area 1 decides first, then area 2 (the order of play,
    # the lowest-numbered area first). (Electronic has no playing area in turn: its shared hand.)
    setup = TableSetup(game=game, decks=6, areas=7, seated={"alice": 1, "carl": 2})
    t = make_table(setup, LOW[game])
    t.bet("alice", "main", [100], area=1)
    t.bet("carl", "main", [25], area=2)
    t.press("no_more_bets")
    for _ in range(6):
        if "decides" in t.window.prompt.headline.text():
            break
        t.deal()
    assert t.window.prompt.headline.text() == "Area 1, hand 1: alice decides"
    assert _painted(t, 1) == (RING, GROUND)
    assert _painted(t, 2) == (GROUND, GROUND)
    t.press("stand")
    assert t.window.prompt.headline.text() == "Area 2, hand 1: carl decides"
    assert _painted(t, 1) == (GROUND, GROUND)
    assert _painted(t, 2) == (RING, GROUND)
    t.press("stand")  # the dealer's turn: no area ringed
    assert "decides" not in t.window.prompt.headline.text()
    assert _painted(t, 1) == (GROUND, GROUND)
    assert _painted(t, 2) == (GROUND, GROUND)
