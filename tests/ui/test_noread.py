"""A card the shoe could not read (NOREAD, issue 24 item 5) while a hand is in turn, in all five
games: the card came out on an implied hit (dealt without pressing Hit). The table never
sticks: every way forward is there and each is tested: key the card in (a supervisor's PIN,
refused without one citing 5.1: a card not accounted for voids the round), re-read it (the
next card read is that card), or a supervisor's void (5.1). A damaged frame on an implied hit
(a card that may be missing) is keyed in by the dealer. Through the real shoe (a pty)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import Qt

from dealer_assist.engine.table_setup import TableSetup
from dealer_assist.store import Store
from tests.ui.driving import TableDriver, round_events
from tests.ui.test_shoe_hold import SUPERVISOR, key_in_with_pin

MakeTable = Callable[..., TableDriver]
GAMES = ["ace_race", "electronic", "star_elements", "lucky8", "dueling8s"]
SUIT = {"star_elements": "Fi"}
# cards of the initial deal before the first decision, two players (see test_undo.py)
INITIAL = {"ace_race": 5, "electronic": 3, "star_elements": 5, "lucky8": 5, "dueling8s": 2}


def _table(make_table: MakeTable, game: str) -> TableDriver:
    """p1 and p2 bet; the initial deal (7, 9 alternately: hands of 16); then p1's hand is in turn
    (Electronic: p1 stands and p2 hits, so the shared hand takes the next card). The shoe then
    holds 2, 3, 10, 10 ... (the card after the unread 2 differs: a re-read that took the next
    card would show)"""
    suit = SUIT.get(game, "C")
    initial = [("9" if n % 2 else "7") + suit for n in range(INITIAL[game])]
    text = " ".join([*initial, "2" + suit, "3" + suit, *(["10" + suit] * 6)])
    if game == "electronic":
        setup = TableSetup(game=game, decks=6, terminals=["p1", "p2"], decision_seconds=120)
    else:
        setup = TableSetup(game=game, decks=6, areas=5, seated={"p1": 1, "p2": 2})
    t = make_table(setup, text, users=SUPERVISOR)
    for player, area in (("p1", 1), ("p2", 2)):
        t.bet(player, "main", [100], None if game == "electronic" else area)
    t.press("no_more_bets")
    t.deal(INITIAL[game])
    if game == "electronic":
        for player, action in (("p1", "stand"), ("p2", "hit")):
            t.window.terminals.select(player)
            t.qtbot.mouseClick(t.window.terminals.buttons[(player, action)], Qt.MouseButton.LeftButton)
            t.settled_writes()
        assert t.controller.expectation().kind == "card"
    else:
        exp = t.controller.expectation()
        assert (exp.kind, exp.player, "hit" in exp.options) == ("decision", "p1", True)
    return t


def _noread(t: TableDriver) -> None:
    t.sim("noread")  # 2 comes out unread
    t.qtbot.waitUntil(lambda: t.window.shoe_status.hold_box.isVisibleTo(t.window), timeout=5000)
    assert "could not read" in t.window.shoe_status.hold_text.text()


def _took_the_card(t: TableDriver, game: str, card: str) -> None:
    """The card is p1's hit (a hit without pressing Hit), or on Electronic the shared hand's card."""
    events = round_events(t.controller)  # an implied hit that may still be a double included
    last = events[-1]
    assert (last.type, str(getattr(last, "card", ""))) == ("card", card)
    if game != "electronic":
        hit = events[-2]
        assert (hit.type, getattr(hit, "action", None), getattr(hit, "player", None)) == ("decision", "hit", "p1")
    assert not t.controller.hold_reason and not t.window.shoe_status.hold_box.isVisibleTo(t.window)


@pytest.mark.parametrize("game", GAMES)
def test_noread_on_an_implied_hit_keyed_in_with_a_supervisor(make_table: MakeTable, game: str) -> None:
    t = _table(make_table, game)
    before = round_events(t.controller)
    _noread(t)
    card = "2" + SUIT.get(game, "C")
    # the dealer alone may not key in a card nobody could read: refused, citing 5.1; nothing changed
    assert not t.controller.release_hold(card)
    assert "supervisor" in t.window.refusal.text() and "(5.1)" in t.window.refusal.text()
    assert round_events(t.controller) == before and t.controller.hold_reason
    key_in_with_pin(t, card)
    _took_the_card(t, game, card)
    store = Store.open_readonly(t.table.store_path)
    keyed = store.audit_entries(kind="card_keyed")
    approvals = store.audit_entries(kind="key_card")
    store.close()
    assert [(e.actor, e.detail["card"]) for e in keyed] == [("supervisor:sam", card)]
    assert keyed[0].detail["approval"] == approvals[0].id


@pytest.mark.parametrize("game", GAMES)
def test_noread_on_an_implied_hit_re_read(make_table: MakeTable, game: str) -> None:
    t = _table(make_table, game)
    _noread(t)
    status = t.window.shoe_status
    assert status.reread_button.isVisibleTo(t.window) and status.void_button.isVisibleTo(t.window)
    t.qtbot.mouseClick(status.reread_button, Qt.MouseButton.LeftButton)
    assert "re-read" in status.hold_text.text()
    # the card goes through the reader again and is read this time: it is the card that came out
    t.sim("reread")
    t.qtbot.waitUntil(lambda: not t.controller.hold_reason, timeout=5000)
    t.settled_writes()
    _took_the_card(t, game, "2" + SUIT.get(game, "C"))


@pytest.mark.parametrize("game", GAMES)
def test_noread_on_an_implied_hit_voided_by_a_supervisor(make_table: MakeTable, game: str) -> None:
    t = _table(make_table, game)
    _noread(t)
    t.qtbot.mouseClick(t.window.shoe_status.void_button, Qt.MouseButton.LeftButton)
    dialog = t.window.pin_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.name.setText("sam")
    dialog.pin.setText("482913")
    t.qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    t.qtbot.waitUntil(lambda: t.controller.current.status() == "void", timeout=10000)
    t.settled_writes()
    assert not t.controller.hold_reason and not t.window.shoe_status.hold_box.isVisibleTo(t.window)
    # 5.1: every wager returned
    assert {(r[0], r[3], r[4]) for r in t.settlement_rows()} == {("p1", "RETURN", "5.1"), ("p2", "RETURN", "5.1")}


@pytest.mark.parametrize("game", ["ace_race", "lucky8"])
def test_a_damaged_frame_on_an_implied_hit_is_keyed_in_by_the_dealer(make_table: MakeTable, game: str) -> None:
    # a card that may be missing (bad checksum), not an unread one: the dealer keys it in alone
    t = _table(make_table, game)
    t.sim("damaged")
    status = t.window.shoe_status
    t.qtbot.waitUntil(lambda: status.hold_box.isVisibleTo(t.window), timeout=5000)
    assert not status.reread_button.isVisibleTo(t.window)
    status.key_in.setText("2C")
    t.qtbot.mouseClick(status.key_button, Qt.MouseButton.LeftButton)
    t.settled_writes()
    _took_the_card(t, game, "2C")
