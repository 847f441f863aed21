"""Irregularities through the window: a ruling shown and applied; a void needs a supervisor's PIN."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QLabel, QWidget

from dealer_assist.engine.table_setup import TableSetup
from dealer_assist.store import Store
from tests.ui.driving import TableDriver
from ui.common.cards import CardFace, card_label

MakeTable = Callable[..., TableDriver]


def _electronic_round(t: TableDriver) -> None:
    """t1 main 100; Player 10♥ 9♠ = 19, dealer 7♣; t1 stands; dealer + 10♦ = 17 stands."""
    t.bet("t1", "main", [100])
    t.press("no_more_bets")
    t.deal(3)
    t.qtbot.mouseClick(t.window.terminals.buttons[("t1", "stand")], Qt.MouseButton.LeftButton)
    t.settled_writes()
    t.deal(1)


def test_card_dealt_to_completed_dealer_hand_is_discarded(make_table: MakeTable) -> None:
    # Electronic 5.6: a card dealt in error to the dealer's completed hand (17) is removed from
    # play and the outcome stands. The round above settled: t1's 19 beats 17, +100 (4.5.2).
    # The dealer then puts another card (5♣) on the dealer's hand: the dealer marks where it
    # lies ("Card elsewhere", next card -> Dealer) and the shoe deals it. The ruling (5.6) shows
    # the move dealer -> discard, and t1 is still paid 100 (not 17 + 5 = 22, a dealer bust).
    setup = TableSetup(game="electronic", decks=6, terminals=["t1"], decision_seconds=120)
    t = make_table(setup, "10H 7C 9S 10D 5C 2C")
    _electronic_round(t)
    assert t.settlement_rows() == [("t1", "hand 1", "Main", "PAY 100", "4.5.2", "final")]
    t.qtbot.mouseClick(t.window.report_buttons["misplaced"], Qt.MouseButton.LeftButton)
    dialog = t.window.placement_dialog
    assert dialog is not None
    dialog.card.setCurrentIndex(dialog.card.findData(None))
    dialog.target.setCurrentIndex(dialog.target.findData("dealer"))
    dialog.accept()
    t.deal(1)
    rulings = t.window.ruling_panel.rulings
    assert [(r["rule"], r["ruling"], r["moves"]) for r in rulings] == [
        ("5.6", "discarded", [{"card": "5C", "from": "dealer", "to": "discard"}])
    ]
    assert t.window.ruling_panel.isVisibleTo(t.window)
    assert "5.6" in t.window.ruling_panel.body.text()
    assert t.settlement_rows() == [("t1", "hand 1", "Main", "PAY 100", "4.5.2", "final")]
    t.screenshot("ruling_5_6")
    # the ruling is recorded with the round in the store
    store = Store.open_readonly(t.table.store_path)
    detail = store.get_round(store.list_rounds(limit=1)[0].id)
    store.close()
    assert detail is not None and detail.result is not None
    assert [r["rule"] for r in detail.result["rulings"]] == ["5.6"]


def test_void_needs_a_supervisor_pin(make_table: MakeTable) -> None:
    # A void returns every wager (result "returned", net 0) citing 5.1. It is a supervisor action:
    # a wrong PIN, or a dealer's PIN, leaves the round as it was; the supervisor's PIN voids it.
    users = {"sam": ("482913", ["supervisor"]), "dan": ("730418", ["dealer"])}
    setup = TableSetup(game="electronic", decks=6, terminals=["t1"], decision_seconds=120)
    t = make_table(setup, "10H 7C 9S 10D 2C", users=users)
    t.bet("t1", "main", [100])
    t.press("no_more_bets")
    t.deal(2)
    events_before = list(t.controller.events)

    def try_pin(name: str, pin: str) -> None:
        t.qtbot.mouseClick(t.window.report_buttons["void"], Qt.MouseButton.LeftButton)
        dialog = t.window.pin_dialog
        assert dialog is not None and dialog.isVisible()
        dialog.name.setText(name)
        dialog.pin.setText(pin)
        t.qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
        t.qtbot.waitUntil(lambda: dialog.ok_button.isEnabled(), timeout=10000)

    try_pin("sam", "000000")
    assert t.window.pin_dialog.message.text() == "Wrong name or PIN, or not allowed"
    t.window.pin_dialog.reject()
    try_pin("dan", "730418")  # a dealer, not a supervisor
    assert t.window.pin_dialog.message.text() == "Wrong name or PIN, or not allowed"
    t.window.pin_dialog.reject()
    assert t.controller.events == events_before
    assert t.controller.rnd.status() == "in_progress"

    try_pin("sam", "482913")
    t.settled_writes()
    assert t.controller.rnd.status() == "void"
    assert t.settlement_rows() == [("t1", "hand 1", "Main", "RETURN", "5.1", "final")]
    assert t.window.prompt.headline.text() == "Round void: return every wager"
    t.screenshot("void")
    # the approval and the refusals are in the audit log
    store = Store.open_readonly(t.table.store_path)
    kinds = [e.kind for e in store.audit_entries()]
    store.close()
    assert kinds.count("approval_refused") == 2 and "void" in kinds


def _drop(target: object, card: str) -> None:
    """What Qt does when the dealer lets go of a dragged card over ``target``."""
    from PySide6.QtCore import QMimeData, QPointF
    from PySide6.QtGui import QDropEvent

    from ui.common.cards import CARD_MIME_PREFIX

    mime = QMimeData()
    mime.setText(CARD_MIME_PREFIX + card)
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.MoveAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    target.dropEvent(event)  # type: ignore[attr-defined]


def test_card_dragged_to_the_wrong_area_is_reconstructed(make_table: MakeTable) -> None:
    # Lucky 8, alice on area 1, bob on area 3; deal order area 1, area 3, dealer (3.18).
    # The first card, 7♥, belongs to area 1, but the dealer says it lies on area 3 (drags it
    # there). Bob, with a valid wager, has fewer than two cards and no interim settlement has
    # taken place: the initial deal is incomplete and the cards are reconstructed (5.13): 7♥
    # goes back to area 1 and area 3 still waits for its first card.
    # The round then goes on: 9♦ area 3, 6♣ dealer, 8♠ area 1 (15), 10♥ area 3 (19); both stand;
    # dealer 6 + 10♣ = 16 draws 2♣ = 18. Alice's 15 loses 100 (4.4.1); bob's 19 beats 18: +50 (4.3.2).
    # A correction is written only with a supervisor's approval (issue 15 item 8): the drop
    # asks for the PIN; a dealer's PIN leaves the round as it was, the supervisor's records it.
    setup = TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1, "bob": 3})
    users = {"sam": ("482913", ["supervisor"]), "dan": ("730418", ["dealer"])}
    t = make_table(setup, "7H 9D 6C 8S 10H 10C 2C 5C", users=users)
    t.bet("alice", "main", [100], area=1)
    t.bet("bob", "main", [25, 25], area=3)
    t.press("no_more_bets")
    t.deal(1)
    events_before = list(t.controller.events)
    _drop(t.window.table_view.area_boxes[3], "7H")
    dialog = t.window.pin_dialog
    assert dialog is not None and dialog.isVisible() and "7H" in dialog.reason.text()
    dialog.name.setText("dan")
    dialog.pin.setText("730418")
    t.qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    t.qtbot.waitUntil(lambda: dialog.message.text() == "Wrong name or PIN, or not allowed", timeout=10000)
    assert t.controller.events == events_before
    dialog.name.setText("sam")
    for digit in "482913":  # on the keypad this time
        t.qtbot.mouseClick(dialog.keypad.keys[digit], Qt.MouseButton.LeftButton)
    t.qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    t.qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10000)
    t.settled_writes()
    correction = t.controller.events[-1]
    assert (correction["type"], correction["to"]) == ("correction", "area:3/1")
    assert t.controller.events[correction["index"]]["card"] == "7H"
    assert t.controller.store_error == ""
    assert [(r["rule"], r["ruling"], r["moves"]) for r in t.window.ruling_panel.rulings] == [
        ("5.13", "reconstructed", [{"card": "7H", "from": "area:3/1", "to": "area:1/1"}])
    ]
    assert "5.13" in t.window.ruling_panel.body.text()
    assert t.window.prompt.headline.text() == "Next card \u2192 Area 3, hand 1"
    t.screenshot("ruling_5_13")
    t.deal(4)
    t.press("stand")  # alice, area 1
    t.press("stand")  # bob, area 3
    t.deal(2)
    assert t.settlement_rows() == [  # paying order: the highest-numbered area first
        ("bob", "3/1", "Main", "PAY 50", "4.3.2", "final"),
        ("alice", "1/1", "Main", "COLLECT 100", "4.4.1", "final"),
    ]
    assert t.window.settlement.table.horizontalHeaderItem(0).text() == "Area"  # each entry's area/hand


def test_double_feed_the_player_picks_the_card(make_table: MakeTable) -> None:
    # Lucky 8, alice on area 1. The shoe feeds 8♥ and 6♦ together, order unknown, nothing
    # disclosed: alice, whose hand is to be acted upon, picks the card she receives (5.23.1);
    # she takes 6♦ and 8♥ is dealt as the next card from the shoe (5.23.1.1): the dealer's.
    # Then 9♠ to alice (6 + 9 = 15); she stands; dealer 8 + 10♣ = 18: alice loses 100 (4.4.1).
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), "8H 6D 9S 10C 2C")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.sim("double")
    t.qtbot.waitUntil(lambda: any(e["type"] == "multi" for e in t.controller.events), timeout=5000)
    t.settled_writes()
    assert "5.23.1" in t.window.ruling_panel.body.text()
    assert {k for k in t.window.prompt.buttons if k.startswith("pick:")} == {"pick:8H", "pick:6D"}
    # nobody has seen the cards (5.23.1): the screen does not show them either (game protection)
    assert sorted(b.text() for k, b in t.window.prompt.buttons.items() if k.startswith("pick:")) == [
        "Card 1, face down (1)", "Card 2, face down (2)"]
    shown = [w.text() for w in t.window.findChildren(QWidget)
             if isinstance(w, (QLabel, QAbstractButton)) and w.isVisibleTo(t.window)]
    faces = (card_label("8H"), card_label("6D"))
    assert [text for text in shown if any(f in text for f in faces)] == []
    assert t.window.table_view.area_boxes[1].findChildren(CardFace) == []
    t.screenshot("double_feed_pick")
    t.press("pick:6D")
    assert [f.text for f in t.window.table_view.area_boxes[1].findChildren(CardFace)] == ["6D"]
    assert [f.text for f in t.window.table_view.dealer_box.findChildren(CardFace)] == ["8H"]
    t.deal(1)
    t.press("stand")
    t.deal(1)
    assert t.settlement_rows() == [("alice", "1/1", "Main", "COLLECT 100", "4.4.1", "final")]


def test_review_opens_from_the_table_only_with_a_supervisor_pin(make_table: MakeTable) -> None:
    # Issue 9: the supervisor's review is reachable from the dealer's screen behind the PIN.
    users = {"sam": ("482913", ["supervisor"]), "dan": ("730418", ["dealer"])}
    setup = TableSetup(game="electronic", decks=6, terminals=["t1"], decision_seconds=120)
    t = make_table(setup, "10H 7C 9S 10D 2C", users=users)

    def try_pin(name: str, pin: str) -> None:
        t.qtbot.mouseClick(t.window.report_buttons["review"], Qt.MouseButton.LeftButton)
        dialog = t.window.pin_dialog
        assert dialog is not None and dialog.isVisible()
        dialog.name.setText(name)
        dialog.pin.setText(pin)
        t.qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
        t.qtbot.waitUntil(lambda: dialog.ok_button.isEnabled() or not dialog.isVisible(), timeout=10000)

    try_pin("dan", "730418")  # a dealer may not open it
    assert t.window.review_window is None
    t.window.pin_dialog.reject()
    try_pin("sam", "482913")
    t.qtbot.waitUntil(lambda: t.window.review_window is not None, timeout=10000)
    review = t.window.review_window
    from ui.review.app import ReviewWindow

    assert isinstance(review, ReviewWindow) and review.isVisible()
    assert review.windowTitle().startswith("Dealer Assist review")
    review.close()


def test_face_up_card_is_played_as_normal_and_ruled(make_table: MakeTable) -> None:
    # 5.5: the dealer reports the next card was found face up in the shoe; it is played where it
    # would have gone (electronic: the first Player card) and the ruling is recorded.
    setup = TableSetup(game="electronic", decks=6, terminals=["t1"], decision_seconds=120)
    t = make_table(setup, "10H 7C 9S 10D 2C")
    t.bet("t1", "main", [100])
    t.press("no_more_bets")
    t.qtbot.mouseClick(t.window.report_buttons["face_up"], Qt.MouseButton.LeftButton)
    dialog = t.window.choice_dialog
    assert dialog is not None and "(5.5)" in dialog.findChildren(QLabel)[0].text()
    t.qtbot.mouseClick(dialog.buttons["yes"], Qt.MouseButton.LeftButton)
    t.deal(1)
    assert t.controller.events[-1] == {"type": "card", "card": "10H", "shoe_seq": t.controller.events[-1]["shoe_seq"],
                                       "face_up": True}
    assert [(r["rule"], r["ruling"]) for r in t.controller.output()["rulings"]] == [("5.5", "played")]
    assert t.controller.output()["player_cards"] == ["10H"]


def test_shoe_status_warns_before_the_shoe_runs_out(make_table: MakeTable) -> None:
    # 5.19: one deck of Lucky 8 (52 cards) with 46 already dealt since the shuffle leaves 6.
    # Two areas bet: the initial deal needs 2 + 1 + 2 = 5 cards; 6 < 5 + 6, so the dealer is told
    # "only 6 cards remain; the round needs at least 5 (5.19)".
    from dealer_assist.base.cards import standard_deck
    from dealer_assist.engine.picture import picture_of
    from dealer_assist.engine.transcript import new_round, parse_event
    from ui.dealer.controller import ShownRound

    t = make_table(TableSetup(game="lucky8", decks=1, areas=7, seated={"a": 1, "b": 2}), "2C 3C")
    dealt = [str(c) for c in standard_deck()[:46]]
    rnd = new_round({"game": "lucky8", "decks": 1, "areas": 7, "shoe_dealt": dealt})
    for raw in ({"type": "wager", "player": "a", "area": 1, "bet": "main", "amount": 10},
                {"type": "wager", "player": "b", "area": 2, "bet": "main", "amount": 10},
                {"type": "no_more_bets"}):
        rnd.apply(parse_event(raw))
    t.controller.rnd = ShownRound(picture_of(rnd))  # as the service would send it
    t.window._shoe_changed()
    text = t.window.shoe_status.line.text()
    assert "6 cards" in text
    assert "only 6 cards remain; the round needs at least 5 (5.19)" in text
