"""Issue 26.5: a sixth game reaches the review's game filter and its names (the game
module and its side bet are the only files: tests/engine/test_sixth_game.py defines it)."""

from __future__ import annotations

from typing import Any

from dealer_assist.games import GameRules
from tests.engine.test_sixth_game import seven_up  # noqa: F401  (the fixture registering it)
from ui.common.table_view import BET_NAMES, SHORT_BET_NAMES
from ui.review.app import FilterBar
from ui.review.model import GAME_NAMES


def test_the_review_filter_lists_the_sixth_game_by_its_name(seven_up: GameRules, qtbot: Any) -> None:  # noqa: F811
    bar = FilterBar()
    qtbot.addWidget(bar)
    index = bar.game.findData("seven_up")
    assert index > 0 and bar.game.itemText(index) == "Seven Up"
    # the five games keep their names in the filter
    assert bar.game.itemText(bar.game.findData("dueling8s")) == "Dueling 8's 21+"
    assert GAME_NAMES.get("seven_up") == "Seven Up"


def test_the_screen_names_the_sixth_games_side_bet(seven_up: GameRules) -> None:  # noqa: F811
    assert BET_NAMES.get("lucky_sevens", "lucky_sevens") == "Lucky Sevens"
    assert SHORT_BET_NAMES.get("lucky_sevens", "lucky_sevens") == "Lucky Sevens"
    assert BET_NAMES["tie18"] == "Tie on 18" and SHORT_BET_NAMES["tie18"] == "Tie18"
