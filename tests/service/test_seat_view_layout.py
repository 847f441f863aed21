"""A terminal's view carries the layout it shows (issue 38 build 2; Electronic Blackjack 2.2:
"the layouts ... shall also indicate the minimum and maximum wagers allowable for each
available betting option"), the table's chips and the shared Player hand (3.8), all cut
from the service's state; still nothing of another seat."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from dealer_assist.engine.table_setup import TableSetup, setup_to_json
from tests.service.test_terminals import SUE, TerminalStation, paired, table  # noqa: F401 - the fixture


def test_the_view_names_every_bet_with_its_limits_and_pays(table: TerminalStation, tmp_path: Path) -> None:  # noqa: F811
    screen = table.dealer()
    setup = TableSetup(game="electronic", decks=6, terminals=["t1", "t2"], chips=[5, 25, 100],
                       limits={"main": [Decimal(5), Decimal(1000)], "kings_bounty": [Decimal(1), Decimal(25)]})
    screen.request("set_table", setup=setup_to_json(setup), pin=SUE)
    term = paired(table, "t1", tmp_path / "t1")
    view = term.request("seat")
    # Written from rules/electronic-blackjack.txt: the main wager (3.5) pays 3 to 2 on a
    # blackjack and 1 to 1 otherwise (4.1); the three side bets of 3.6.1-3.6.3 with the
    # pay tables of 4.2-4.4, in that order; the limits as set (none for the other two).
    assert view["layout"] == [
        {"bet": "main", "name": "Main", "clause": "3.5", "min": 5, "max": 1000,
         "pays": [["Blackjack", "3 to 2"], ["Win", "1 to 1"]]},
        {"bet": "bet_the_set", "name": "Bet the Set 21", "clause": "3.6.1", "min": None, "max": None,
         "pays": [["Suited Pair", "15 to 1"], ["Unsuited Pair", "10 to 1"]]},
        {"bet": "royal_match", "name": "Royal Match 21", "clause": "3.6.2", "min": None, "max": None,
         "pays": [["Royal Match 21 (Suited King and Queen)", "25 to 1"], ["2 Suited Cards", "5 to 2"]]},
        {"bet": "kings_bounty", "name": "Kings Bounty", "clause": "3.6.3", "min": 1, "max": 25,
         "pays": [["2 Kings of Spades + Dealer Blackjack", "1000 to 1"], ["2 Kings of Spades", "100 to 1"],
                  ["2 Suited Kings", "30 to 1"], ["2 Suited Queens, Jacks or 10's", "20 to 1"],
                  ["Suited 20", "9 to 1"], ["2 Kings", "6 to 1"], ["Unsuited 20", "4 to 1"]]},
    ]
    assert view["chips"] == [5, 25, 100]
    assert view["player_cards"] == []
    screen.request("wager", player="t2", bet="main", amount=25)  # another seat's wager: the cards are everyone's
    table.deal(screen, 3)  # 10S to the Player hand, 9H to the dealer, QD to the Player hand (3.7)
    view = term.request("seat")
    assert view["player_cards"] == ["10S", "QD"] and view["dealer"]["cards"] == ["9H"]
    assert "t2" not in json.dumps(view) and view["hands"] == [] and view["slip"] == []
