"""Undo through the dealer's window (issue 24 item 4), in all five games: the Undo button
(and its key) takes back a stray Stand and the same hand is asked again, the store keeps an
``event_withdrawn`` audit entry naming what left and who took it back; once the next card
is recorded the dealer's undo is refused with the reason and the clause, and only a
supervisor's PIN takes back further (the card taken back is held, never lost)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import Qt

from dealer_assist.engine.table_setup import TableSetup
from dealer_assist.store import Store
from tests.ui.driving import TableDriver, round_events

MakeTable = Callable[..., TableDriver]
GAMES = ["ace_race", "electronic", "star_elements", "lucky8", "dueling8s"]
SUIT = {"star_elements": "Fi"}
RECONSTRUCT = {"electronic": "5.2"}  # cards dealt on a wrong decision are reconstructed (5.6.1 elsewhere)
USERS = {"sam": ("482913", ["supervisor"])}


def _setup(game: str) -> TableSetup:
    if game == "electronic":
        return TableSetup(game=game, decks=6, terminals=["p1", "p2"], decision_seconds=120)
    return TableSetup(game=game, decks=6, areas=5, seated={"p1": 1, "p2": 2})


# cards of the initial deal before the first decision (two players): Ace Race, Star Elements
# and Lucky 8 deal each player two and the dealer one; Electronic the shared hand two and the
# dealer one; Dueling 8's each player one (the second comes with the decision)
INITIAL = {"ace_race": 5, "electronic": 3, "star_elements": 5, "lucky8": 5, "dueling8s": 2}


def _cards(game: str) -> str:
    suit = SUIT.get(game, "C")
    # 7 and 9 alternately (no blackjack, no pair: hands of 16), then a 2 (18: no interim settlement)
    initial = [("9" if n % 2 else "7") + suit for n in range(INITIAL[game])]
    return " ".join([*initial, "2" + suit, *(["10" + suit] * 6)])


def _stand(t: TableDriver, game: str) -> None:
    if game == "electronic":
        t.window.terminals.select("p1")  # the dealer taps p1's terminal
        t.qtbot.mouseClick(t.window.terminals.buttons[("p1", "stand")], Qt.MouseButton.LeftButton)
        t.settled_writes()
    else:
        t.press("stand")


def _asked(t: TableDriver) -> tuple[object, ...]:
    exp = t.controller.expectation()
    return (exp.kind, exp.area, exp.hand, exp.player, exp.options,
            tuple(p["player"] for p in exp.pending))


@pytest.mark.parametrize("game", GAMES)
def test_undo_takes_back_a_stray_stand_and_refuses_after_the_next_card(make_table: MakeTable, game: str) -> None:
    t = make_table(_setup(game), _cards(game), users=USERS)
    c = t.controller
    for player, area in (("p1", 1), ("p2", 2)):
        t.bet(player, "main", [100], None if game == "electronic" else area)
    t.press("no_more_bets")
    t.deal(INITIAL[game])
    assert c.expectation().kind in ("decision", "decisions")
    asked = _asked(t)
    assert asked[3] == "p1" or "p1" in asked[5]  # p1 decides first
    headline = t.window.prompt.headline.text()
    events = list(c.events)

    _stand(t, game)  # the stray Stand
    assert _asked(t) != asked
    undo = t.window.report_buttons["undo"]
    assert undo.height() >= 48 and undo.isVisibleTo(t.window)
    t.qtbot.mouseClick(undo, Qt.MouseButton.LeftButton)
    t.settled_writes()
    assert _asked(t) == asked and t.window.prompt.headline.text() == headline
    assert c.events == events
    assert "stand" in t.window.notice.text()
    store = Store.open_readonly(t.table.store_path)
    rid = store.list_rounds(limit=1)[0].id
    [entry] = store.audit_entries(round_id=rid, kind="event_withdrawn")
    assert store.events(rid) == events
    store.close()
    assert entry.actor == "dealer:ann"
    assert [g["event"]["action"] for g in entry.detail["events"]] == ["stand"]

    # the same Stand by key, then the next card: the dealer's undo is refused, the PIN asked
    _stand(t, game)
    if game == "electronic":
        t.window.terminals.select("p2")
        t.qtbot.mouseClick(t.window.terminals.buttons[("p2", "hit")], Qt.MouseButton.LeftButton)
        t.settled_writes()
    t.deal(1)
    before = [e.type for e in round_events(c)]
    t.qtbot.keyClick(t.window, Qt.Key.Key_Z)
    dialog = t.window.pin_dialog
    assert dialog is not None and dialog.isVisible(), (t.window.refusal.text(), t.window.notice.text(), before)
    why = dialog.reason.text()
    assert "before the next card" in why and f"({RECONSTRUCT.get(game, '5.6.1')})" in why
    dialog.reject()
    assert [e.type for e in round_events(c)] == before  # refused: the round as it was
    # the supervisor's PIN takes back the hit and its card; the card is held to be placed
    t.qtbot.keyClick(t.window, Qt.Key.Key_Z)
    dialog = t.window.pin_dialog
    dialog.name.setText("sam")
    dialog.pin.setText("482913")
    t.qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    t.qtbot.waitUntil(lambda: c.stray_card is not None, timeout=10000)
    t.settled_writes()
    assert c.stray_card == "2" + SUIT.get(game, "C")
    assert [e.type for e in round_events(c)] == before[:-2]
    store = Store.open_readonly(t.table.store_path)
    entries = store.audit_entries(round_id=rid, kind="event_withdrawn")
    store.close()
    assert entries[-1].actor == "supervisor:sam" and entries[-1].detail["supervisor"] == "sam"
    assert [g["event"]["type"] for g in entries[-1].detail["events"]] == ["decision", "card"]
