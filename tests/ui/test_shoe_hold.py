"""A damaged frame from the shoe: no card is assigned until the dealer confirms or keys it in."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt

from tests.ui.driving import TableDriver
from ui.cards import CardFace
from ui.controller import TableSetup

MakeTable = Callable[..., TableDriver]


def test_checksum_error_holds_cards_until_the_dealer_keys_the_card_in(make_table: MakeTable) -> None:
    # The shoe sends 10♥ with a bad checksum: the driver drops the frame, the screen stops.
    # The next card (6♦) arrives and is held, not assigned. The dealer sees 10♥ on the table
    # and keys it in: 10♥ goes where the first card was expected (area 1, 3.18), then the held
    # 6♦ to the dealer.
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), "10H 6D 9S 10C")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    sim_buttons = {b.text(): b for b in t.window.sim_panel.findChildren(type(t.window.sim_panel.deal_button))}
    t.qtbot.mouseClick(sim_buttons["Bad checksum"], Qt.MouseButton.LeftButton)
    status = t.window.shoe_status
    t.qtbot.waitUntil(lambda: status.hold_box.isVisibleTo(t.window), timeout=5000)
    assert "STOP" in status.hold_text.text()
    t.qtbot.mouseClick(t.window.sim_panel.deal_button, Qt.MouseButton.LeftButton)
    t.qtbot.waitUntil(lambda: len(t.controller.held_cards) == 1, timeout=5000)
    assert [e for e in t.controller.events if e["type"] == "card"] == []
    status.key_in.setText("10H")
    t.qtbot.mouseClick(status.key_button, Qt.MouseButton.LeftButton)
    t.settled_writes()
    assert [e["card"] for e in t.controller.events if e["type"] == "card"] == ["10H", "6D"]
    assert not status.hold_box.isVisibleTo(t.window)
    assert [f.text for f in t.window.table_view.area_boxes[1].findChildren(CardFace)] == ["10H"]
    assert [f.text for f in t.window.table_view.dealer_box.findChildren(CardFace)] == ["6D"]
