"""Every path on which the shoe reports NOREAD (a card came out and could not be read),
issue 24: after each way forward (re-read, a supervisor's key-in) the card recorded is the
card that came out, and it lies where that card lies. Lucky 8, alice alone on area 1
(3.18: area 1's first card, the dealer's one card, area 1's second card). The simulated
shoe's re-read puts the unread card itself through the reader again (not the next card in
the shoe: the card after it is always a different one here, so a wrong card shows).
The implied hit, Electronic's shared hand and the void are in test_noread.py; a double
feed's unread card keyed in is in test_shoe_hold.py."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import Qt

from dealer_assist.engine.table_setup import TableSetup
from tests.ui.driving import TableDriver
from tests.ui.test_shoe_hold import SUPERVISOR, key_in_with_pin

MakeTable = Callable[..., TableDriver]


def _table(make_table: MakeTable, cards: str, *, close_bets: bool = True) -> TableDriver:
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), cards, users=SUPERVISOR)
    t.bet("alice", "main", [100], area=1)
    if close_bets:
        t.press("no_more_bets")
    return t


def _noread(t: TableDriver) -> None:
    t.sim("noread")
    t.qtbot.waitUntil(lambda: t.window.shoe_status.hold_box.isVisibleTo(t.window), timeout=5000)
    assert "could not read" in t.window.shoe_status.hold_text.text()


def _way_forward(t: TableDriver, way: str, card: str) -> None:
    if way == "key_in":
        key_in_with_pin(t, card)
    else:  # re-read: the dealer says so, then feeds the card through the reader again
        t.qtbot.mouseClick(t.window.shoe_status.reread_button, Qt.MouseButton.LeftButton)
        assert "re-read" in t.window.shoe_status.hold_text.text()
        t.sim("reread")
        t.qtbot.waitUntil(lambda: not t.controller.hold_reason, timeout=5000)
        t.settled_writes()
    assert not t.controller.hold_reason and not t.window.shoe_status.hold_box.isVisibleTo(t.window)


def _cards_recorded(t: TableDriver) -> list[str]:
    return [str(e["card"]) for e in t.controller.events if e.get("type") == "card"]


def _area1(t: TableDriver) -> list[tuple[str, ...]]:
    return [tuple(h.cards) for h in t.controller.current.view().area(1).hands]


def _dealer(t: TableDriver) -> tuple[str, ...]:
    return tuple(t.controller.current.view().dealer.cards)


WAYS = ["key_in", "re_read"]


@pytest.mark.parametrize("way", WAYS)
def test_the_rounds_first_card(make_table: MakeTable, way: str) -> None:
    # the first card of the deal (area 1's first, 3.18) comes out unread; the shoe's next is 6D
    t = _table(make_table, "9C 6D 5H 10S")
    _noread(t)
    _way_forward(t, way, "9C")
    assert _cards_recorded(t) == ["9C"] and _area1(t) == [("9C",)]


def test_a_card_before_no_more_bets(make_table: MakeTable) -> None:
    # the bets are still open: the card that comes out unread closes them (5.3), keyed in
    t = _table(make_table, "9C 6D 5H 10S", close_bets=False)
    _noread(t)
    _way_forward(t, "key_in", "9C")
    assert not t.controller.betting
    assert _cards_recorded(t) == ["9C"] and _area1(t) == [("9C",)]


@pytest.mark.parametrize("way", WAYS)
def test_a_card_of_the_initial_deal(make_table: MakeTable, way: str) -> None:
    # area 1's second card (after the dealer's 6D) comes out unread
    t = _table(make_table, "9C 6D 5H 10S")
    t.deal(2)
    _noread(t)
    _way_forward(t, way, "5H")
    assert _cards_recorded(t) == ["9C", "6D", "5H"] and _area1(t) == [("9C", "5H")] and _dealer(t) == ("6D",)


@pytest.mark.parametrize("way", WAYS)
def test_a_hit(make_table: MakeTable, way: str) -> None:
    # 9 + 5 = 14, Hit pressed: the hit's card 2S comes out unread
    t = _table(make_table, "9C 6D 5H 2S 10H")
    t.deal(3)
    t.press("hit")
    _noread(t)
    _way_forward(t, way, "2S")
    assert _area1(t) == [("9C", "5H", "2S")]


@pytest.mark.parametrize("way", WAYS)
def test_a_double(make_table: MakeTable, way: str) -> None:
    # 6 + 5 = 11, doubled: its one card (10S) comes out unread
    t = _table(make_table, "6C 6D 5H 10S 2H")
    t.deal(3)
    t.press("double")
    _noread(t)
    _way_forward(t, way, "10S")
    hand = t.controller.current.view().area(1).hands[0]
    assert tuple(hand.cards) == ("6C", "5H", "10S") and hand.doubled


@pytest.mark.parametrize("way", WAYS)
def test_a_split_hands_second_card(make_table: MakeTable, way: str) -> None:
    # 8 8 split: hand 1's second card (3S) comes out unread
    t = _table(make_table, "8C 6D 8H 3S 10H")
    t.deal(3)
    t.press("split")
    _noread(t)
    _way_forward(t, way, "3S")
    assert _area1(t) == [("8C", "3S"), ("8H",)]


@pytest.mark.parametrize("way", WAYS)
def test_the_dealers_draw(make_table: MakeTable, way: str) -> None:
    # alice stands on 19; the dealer's second card (10S) comes out unread: 6 + 10 = 16
    t = _table(make_table, "10C 6D 9H 10S 2D")
    t.deal(3)
    t.press("stand")
    _noread(t)
    _way_forward(t, way, "10S")
    assert _dealer(t) == ("6D", "10S")


def test_a_card_out_after_the_unread_one_waits_behind_it(make_table: MakeTable) -> None:
    # the dealer's 10S comes out unread and his next card 2D comes out before anyone acts:
    # 2D is held; the keyed-in 10S is the dealer's second card, 2D his third (6 + 10 + 2 = 18)
    t = _table(make_table, "10C 6D 9H 10S 2D 5C")
    t.deal(3)
    t.press("stand")
    _noread(t)
    t.sim("deal")
    t.qtbot.waitUntil(lambda: t.controller.queued == 1, timeout=5000)
    # the unread card cannot be re-read any more: a card came out after it
    assert not t.controller.reread()
    key_in_with_pin(t, "10S")
    t.settled_writes()
    assert _dealer(t) == ("6D", "10S", "2D")
    assert _cards_recorded(t)[-2:] == ["10S", "2D"]
