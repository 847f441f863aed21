"""The screens cite each game's own clause numbers (issue 33 build 2): the five rule documents
number the same rule differently, so a clause shown comes from the game's clause table."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QLabel

from dealer_assist.games import GAMES
from ui.dealer.main_window import PlacementDialog


@pytest.mark.parametrize(("game", "words"), [
    # Lucky 8 (lucky-8.txt): misdeal 5.6, one card reconstructed 5.13, a card dealt in error 5.8
    ("lucky8", "(5.6, 5.13; 5.8 for a card dealt in error)"),
    ("ace_race", "(5.6, 5.13; 5.8 for a card dealt in error)"),
    # Dueling 8's numbers them itself (dueling-8s.txt: 5.6 the incorrect dealing, 5.11 a
    # player dealt no card to the permanent 8, the card dealt in error after 5.7); before, the
    # dialog said 5.6, 5.13, 5.8 here too
    ("dueling8s", "(5.6, 5.11; 5.8 for a card dealt in error)"),
    ("star_elements", "(5.6, 5.13; 5.8 for a card dealt in error)"),
    # Electronic (electronic-blackjack.txt 5.2): a card dealt incorrectly, the cards reconstructed;
    # before, the dialog said Lucky 8's 5.6 (Electronic's 5.6 is the dealer's completed hand)
    ("electronic", "The rules decide what follows (5.2)."),
])
def test_the_card_placed_elsewhere_dialog_cites_the_games_clauses(qtbot: Any, game: str, words: str) -> None:
    dialog = PlacementDialog([(3, "9H")], ["area:1/1", "dealer", "discard"], GAMES[game])
    qtbot.addWidget(dialog)
    texts = [label.text() for label in dialog.findChildren(QLabel)]
    assert any(words in text for text in texts), texts


def test_claims_and_double_feeds_are_numbered_by_each_game() -> None:
    # the clause tables the screens read (dealer_assist/games): Lucky 8's claim of free
    # side-bet slots is 3.17.2 and its double feed 5.23 (lucky-8.txt); Dueling 8's are
    # 3.18.2 and 5.20, and its 5.23 is the under-minimum wager (dueling-8s.txt)
    assert (GAMES["lucky8"].clause("claim"), GAMES["lucky8"].clause("multi")) == ("3.17.2", "5.23")
    assert (GAMES["dueling8s"].clause("claim"), GAMES["dueling8s"].clause("multi")) == ("3.18.2", "5.20")
    assert GAMES["dueling8s"].clause("under_min") == "5.23"
    # Electronic: no selection in time, the default strategy decides (3.18); what it is, 3.18.1
    assert (GAMES["electronic"].clause("no_selection"), GAMES["electronic"].clause("default_strategy")) == \
        ("3.18", "3.18.1")
