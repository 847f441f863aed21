"""The shoe hold: after a damaged frame, an unread card or a double feed with unread cards, no
card is assigned until the dealer confirms or keys the card(s) in (spec/shoe-protocol.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from dealer_assist.engine.table_setup import TableSetup
from tests.ui.driving import TableDriver
from ui.common.cards import CardFace

MakeTable = Callable[..., TableDriver]
SUPERVISOR = {"sam": ("482913", ["supervisor"])}


def waiting(t: TableDriver) -> list[str]:
    """The cards out of the shoe the service holds, not yet in the round, in order ("?": unread)."""
    return [str(f["card"]) for f in t.controller.service_state.get("in_flight") or []]


def key_in_with_pin(t: TableDriver, text: str) -> None:
    """Key in a card the shoe could not read: the supervisor's name and PIN are asked for."""
    status = t.window.shoe_status
    status.key_in.setText(text)
    t.qtbot.mouseClick(status.key_button, Qt.MouseButton.LeftButton)
    dialog = t.window.pin_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.name.setText("sam")
    dialog.pin.setText("482913")
    t.qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    t.qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10000)
    t.settled_writes()


def test_checksum_error_holds_cards_until_the_dealer_keys_the_card_in(make_table: MakeTable) -> None:
    # The shoe sends 10♥ with a bad checksum: the driver drops the frame, the screen stops.
    # The next card (6♦) arrives and is held, not assigned. The dealer sees 10♥ on the table
    # and keys it in: 10♥ goes where the first card was expected (area 1, 3.18), then the held
    # 6♦ to the dealer.
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), "10H 6D 9S 10C")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.sim("damaged")
    status = t.window.shoe_status
    t.qtbot.waitUntil(lambda: status.hold_box.isVisibleTo(t.window), timeout=5000)
    assert "STOP" in status.hold_text.text()
    t.sim("deal")
    t.qtbot.waitUntil(lambda: t.controller.queued == 1, timeout=5000)
    assert [e for e in t.controller.events if e["type"] == "card"] == []
    status.key_in.setText("10H")
    t.qtbot.mouseClick(status.key_button, Qt.MouseButton.LeftButton)
    t.settled_writes()
    assert [e["card"] for e in t.controller.events if e["type"] == "card"] == ["10H", "6D"]
    assert not status.hold_box.isVisibleTo(t.window)
    assert [f.text for f in t.window.table_view.area_boxes[1].findChildren(CardFace)] == ["10H"]
    assert [f.text for f in t.window.table_view.dealer_box.findChildren(CardFace)] == ["6D"]


def test_double_feed_with_an_unread_card_holds_until_the_dealer_keys_it_in(make_table: MakeTable) -> None:
    # spec/shoe-protocol.md: a MULTI whose readable cards are fewer than its count holds every
    # later card until the dealer has said which cards came out; the readable ones are never
    # assigned on their own. The shoe (a real pty) feeds 5D 9C 7H together and reads 5D, 9C.
    seated = {"alice": 1, "bob": 2, "carol": 3}
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated=seated), "5D 9C 7H 10C 6S 2H 3C",
                   users=SUPERVISOR)
    for player, area in seated.items():
        t.bet(player, "main", [100], area=area)
    t.press("no_more_bets")
    t.table.sim.multi(3, unreadable=1)  # the shoe feeds three together (no button for three)
    status = t.window.shoe_status
    t.qtbot.waitUntil(lambda: status.hold_box.isVisibleTo(t.window), timeout=5000)
    assert "3 cards came out together and 1 could not be read (read: 5D 9C)" in status.hold_text.text()
    assert not status.confirm_button.isEnabled()  # cards did come out: "No card missed" is off
    # the next card out of the shoe (10C) is held, not assigned
    t.sim("deal")
    t.qtbot.waitUntil(lambda: "10C" in waiting(t), timeout=5000)
    before = list(t.controller.events)
    assert [e["type"] for e in before] == ["wager"] * 3 + ["no_more_bets"]  # nothing recorded
    # "Key in" with no card, or the wrong number of cards, is refused: still held
    t.qtbot.mouseClick(status.key_button, Qt.MouseButton.LeftButton)
    key_in_with_pin(t, "7H 10C")
    assert t.controller.hold_reason and waiting(t)[-1] == "10C"
    assert t.controller.events == before
    # an unread card keyed in without a supervisor's PIN is refused, citing 5.1
    assert not t.controller.release_hold("7H")
    assert "supervisor" in t.window.refusal.text() and "5.1" in t.window.refusal.text()
    assert t.controller.events == before
    # the dealer keys in the unread card: the three cards are one double feed, never two cards
    key_in_with_pin(t, "7H")
    assert t.controller.events[4:] == [{"type": "multi", "cards": ["5D", "9C", "7H"], "disclosed": []}]
    # 5.23.1: they came out unseen, the players in turn pick; 10C waits for the picks
    # 10C waits for the picks; the hold is over (every card that came out is known)
    assert waiting(t)[-1] == "10C" and not status.hold_box.isVisibleTo(t.window)
    assert {"pick:9C", "pick:7H", "pick:5D"} <= set(t.window.prompt.buttons)
    t.press("pick:9C")  # alice, area 1
    assert waiting(t)[-1] == "10C"
    t.press("pick:7H")  # bob, area 2; 5D goes to carol (area 3)
    t.settled_writes()
    assert [e["type"] for e in t.controller.events[4:]] == ["multi", "pick", "pick", "card"]
    assert t.controller.events[-1]["card"] == "10C"  # the held card, now the dealer's (3.18)
    assert waiting(t) == [] and not status.hold_box.isVisibleTo(t.window)
    assert t.controller.last_refusal == ""
    faces = {area: [f.text for f in t.window.table_view.area_boxes[area].findChildren(CardFace)]
             for area in (1, 2, 3)}
    assert faces == {1: ["9C"], 2: ["7H"], 3: ["5D"]}
    assert [f.text for f in t.window.table_view.dealer_box.findChildren(CardFace)] == ["10C"]


def test_the_simulated_shoes_double_feed_with_one_unread_card(make_table: MakeTable) -> None:
    # the simulated shoe's button: two cards together, the second unread; one keyed in
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1, "bob": 2}), "5D 9C 10C 6S",
                   users=SUPERVISOR)
    t.bet("alice", "main", [100], area=1)
    t.bet("bob", "main", [100], area=2)
    t.press("no_more_bets")
    t.sim("double_unread")
    status = t.window.shoe_status
    t.qtbot.waitUntil(lambda: status.hold_box.isVisibleTo(t.window), timeout=5000)
    assert "2 cards came out together and 1 could not be read (read: 5D)" in status.hold_text.text()
    key_in_with_pin(t, "9C")
    assert t.controller.events[3:] == [{"type": "multi", "cards": ["5D", "9C"], "disclosed": []}]


def test_a_noread_after_a_held_card_keeps_the_order(make_table: MakeTable) -> None:
    # Checksum error (the first card, 10H, lost), then 6D held, then an unread card (9S), then
    # 10C: the dealer keys 10H in, 6D follows, and the unread card holds again before 10C.
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1, "bob": 2}), "10H 6D 9S 10C 4D",
                   users=SUPERVISOR)
    t.bet("alice", "main", [100], area=1)
    t.bet("bob", "main", [100], area=2)
    t.press("no_more_bets")
    for fault in ("damaged", "deal", "noread", "deal"):
        t.sim(fault)
    t.qtbot.waitUntil(lambda: waiting(t) == ["6D", "?", "10C"], timeout=5000)
    status = t.window.shoe_status
    status.key_in.setText("10H")
    t.qtbot.mouseClick(status.key_button, Qt.MouseButton.LeftButton)
    t.settled_writes()
    assert [e["card"] for e in t.controller.events if e["type"] == "card"] == ["10H", "6D"]
    assert "could not read" in status.hold_text.text() and waiting(t) == ["?", "10C"]
    # a card did come out unread: "No card missed" is off, and releasing without a card is refused
    assert not status.confirm_button.isEnabled()
    assert not t.controller.release_hold(None) and t.controller.hold_reason
    key_in_with_pin(t, "9S")
    assert [e["card"] for e in t.controller.events if e["type"] == "card"] == ["10H", "6D", "9S", "10C"]
    assert not status.hold_box.isVisibleTo(t.window) and t.controller.last_refusal == ""
    # 3.18: area 1, area 2, the dealer, area 1 again
    assert [f.text for f in t.window.table_view.area_boxes[1].findChildren(CardFace)] == ["10H", "10C"]
    assert [f.text for f in t.window.table_view.dealer_box.findChildren(CardFace)] == ["9S"]


def test_a_da1_xor_shoe_is_shown_as_the_weaker_checksum(make_table: MakeTable, qtbot: Any,
                                                         tmp_path: Path) -> None:
    # spec/shoe-protocol.md: the dealer's screen says that this shoe's checksum is the weaker one
    da1 = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), "10H 6D 9S")
    assert "weak checksum" not in da1.window.shoe_status.line.text()
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), "10H 6D 9S",
                   db=tmp_path / "xor.db", codec="da1-xor")
    line = t.window.shoe_status.line.text()
    assert "weak checksum (da1-xor)" in line
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal()
    assert [e["card"] for e in t.controller.events if e["type"] == "card"] == ["10H"]


def test_a_beetek_shoe_is_shown_as_giving_no_guarantee_and_its_warnings(make_table: MakeTable, qtbot: Any,
                                                                          tmp_path: Path) -> None:
    # spec/shoe-protocol.md, codec beetek: no sequence numbers, no checksum, no heartbeat, and
    # "the dealer screen must say that this shoe gives no such guarantee"; its bare warning
    # code (<W0x01>) is shown until the shoe reconnects.
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), "10H 6D 9S",
                   db=tmp_path / "beetek.db", codec="beetek")
    line = t.window.shoe_status.line
    assert "cannot show a lost card" in line.text() and "(beetek)" in line.text()
    assert "shoe warning" not in line.text()
    t.table.sim.warn("0x01")
    qtbot.waitUntil(lambda: "shoe warning 0x01" in line.text(), timeout=5000)


def test_an_empty_shoe_is_said_until_a_shoe_is_loaded(make_table: MakeTable, qtbot: Any) -> None:
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), "10H 6D 9S")
    line = t.window.shoe_status.line
    assert "cannot show a lost card" not in line.text()  # da1: sequence numbers and a checksum
    assert "empty" not in line.text()
    t.table.sim.empty()
    qtbot.waitUntil(lambda: "the shoe is empty" in line.text(), timeout=5000)
    t.table.sim.shuffle()
    qtbot.waitUntil(lambda: "empty" not in line.text(), timeout=5000)
