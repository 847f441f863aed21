"""The table's rhythm and the dealer's flows through the real window (issue 16).

A card that arrives while the hand in turn may be hit is the hit; Double right after its
card; a card that fits no reading held and placed by the dealer; keys that never type
into a field and never lose a press; a face-up report that ends with its round; a
referral and the shift manager's decision; the shoe's faults. The amounts are worked
out by hand from Lucky 8's rules (clauses in the comments).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from dealer_assist.engine.table_setup import TableSetup
from dealer_assist.store import Store
from tests.ui.driving import TableDriver
from ui.common.cards import CardFace
from ui.common.table_view import WagerTable

MakeTable = Callable[..., TableDriver]
LUCKY8 = TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1})


def _stored_events(db: Path) -> list[dict[str, object]]:
    store = Store.open_readonly(db)
    try:
        rounds = store.list_rounds(limit=1)
        return [dict(e) for e in store.events(rounds[0].id)]
    finally:
        store.close()


def _round_status(db: Path) -> str:
    store = Store.open_readonly(db)
    try:
        return str(store.list_rounds(limit=1)[0].status)
    finally:
        store.close()


def _without_seq(events: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: v for k, v in e.items() if k != "shoe_seq"} for e in events]


def test_a_card_while_the_hand_may_be_hit_is_the_hit(make_table: MakeTable, tmp_path: Path) -> None:
    # Alice 10♥ 3♣ = hard 13 against the dealer's 6♦. The dealer deals her a card without
    # pressing Hit (the player signalled): 5♠ is her hit, 18. She stands. The dealer 6 + 10 = 16
    # draws (3.34: stands on 17 and above), + 4 = 20: 20 beats 18, alice loses 100 (4.4.1).
    t = make_table(LUCKY8, "10H 6D 3C 5S 10C 4S")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal(3)
    assert "hit" in t.window.prompt.buttons
    t.deal(1)  # no key pressed
    faces = t.window.table_view.area_boxes[1].findChildren(CardFace)
    assert [f.text for f in faces] == ["10H", "3C", "5S"]
    # the hit may still turn out to be a double while its card is the last one: Double is offered
    assert "double" in t.window.prompt.buttons and t.controller.implied
    t.press("stand")
    t.deal(2)
    # the record reads as it happened: a hit decision, then its card, then the stand
    events = _without_seq(t.controller.events)
    assert events[5:8] == [
        {"type": "decision", "action": "hit", "area": 1, "hand": 1, "player": "alice"},
        {"type": "card", "card": "5S"},
        {"type": "decision", "action": "stand", "area": 1, "hand": 1},
    ]
    assert t.settlement_rows() == [("alice", "1/1", "Main", "COLLECT 100", "4.4.1", "final")]
    stored = _without_seq(_stored_events(tmp_path / "table.db"))
    assert stored[5:7] == events[5:7]


def test_double_keyed_right_after_its_card(make_table: MakeTable, tmp_path: Path) -> None:
    # Alice 6♥ 5♣ = 11 against the dealer's 9♦. The dealer deals 10♠ (taken for a hit), and the
    # player had doubled: D right after the card makes it the double's card. Alice 21, doubled:
    # stake 200. The dealer 9 + 8 = 17 stands; 21 beats 17: alice wins 200 (4.3.2).
    t = make_table(LUCKY8, "6H 9D 5C 10S 8C")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal(3)
    t.deal(1)
    t.qtbot.waitUntil(lambda: "double" in t.window.prompt.buttons, timeout=5000)
    t.qtbot.keyClick(t.window, Qt.Key.Key_D)
    t.settled_writes()
    t.deal(1)
    events = _without_seq(t.controller.events)
    assert events[5:7] == [
        {"type": "decision", "action": "double", "area": 1, "hand": 1, "player": "alice"},
        {"type": "card", "card": "10S"},
    ]
    assert not any(e.get("action") == "hit" for e in events)
    assert t.settlement_rows() == [("alice", "1/1", "Main", "PAY 200", "4.3.2", "final")]
    stored = _without_seq(_stored_events(tmp_path / "table.db"))
    assert stored[5:7] == events[5:7]


def test_a_card_that_fits_no_reading_is_held_and_placed(make_table: MakeTable) -> None:
    # Alice 10♥ 9♣ = 19 stands; the dealer 7♦ + 10♠ = 17 stands: alice wins 100 (4.3.2) and the
    # round is settled. Then the shoe delivers 4♥: no hand may take a card. It is held on the
    # screen (not dropped, not given to anyone) with a button for the one place the rules leave
    # it (5.7: removed from play to the discard holder, the outcome stands; no player's hand),
    # and a card dealt meanwhile waits. The dealer discards it: alice's win stands.
    t = make_table(LUCKY8, "10H 7D 9C 10S 4H 2C")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal(3)
    t.press("stand")
    t.deal(1)
    assert t.controller.rnd.status() == "settled"
    before = list(t.controller.events)
    t.sim("deal")
    t.qtbot.waitUntil(lambda: t.controller.stray_card == "4H", timeout=5000)
    stray = t.window.stray
    assert stray.isVisibleTo(t.window) and not t.window.prompt.isVisibleTo(t.window)
    assert "discard" in stray.buttons and "area:1/1" not in stray.buttons
    assert t.controller.events == before  # nothing recorded yet
    t.sim("deal")  # 2♣ waits
    t.qtbot.waitUntil(lambda: t.controller.queued == 1, timeout=5000)
    t.qtbot.mouseClick(stray.buttons["discard"], Qt.MouseButton.LeftButton)
    t.settled_writes()
    assert _without_seq(t.controller.events[len(before):len(before) + 1]) == [
        {"type": "card", "card": "4H", "to": "discard"}]
    assert [r["rule"] for r in t.controller.output()["rulings"]] == ["5.7"]
    assert ("alice", "1/1", "Main", "PAY 100", "4.3.2", "final") in t.settlement_rows()
    # the waiting 2♣ fits no reading either: it is held next, never lost
    t.qtbot.waitUntil(lambda: t.controller.stray_card == "2C", timeout=5000)


def test_stand_key_and_letters_never_typed_into_a_field(make_table: MakeTable) -> None:
    # The amount field has the focus; S is the Stand key, not a letter typed into it.
    t = make_table(LUCKY8, "10H 6D 9C 10C 4S")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal(3)
    field = t.window.decision_amount
    t.window.activateWindow()
    t.qtbot.waitUntil(t.window.isActiveWindow, timeout=2000)
    field.setFocus()
    t.qtbot.waitUntil(lambda: field.hasFocus(), timeout=2000)
    t.qtbot.keyClicks(field, "60")
    t.qtbot.keyClick(field, Qt.Key.Key_X)  # no key of its own here: dropped, never typed
    assert field.text() == "60"
    t.qtbot.keyClick(field, Qt.Key.Key_S)
    t.settled_writes()
    assert t.controller.events[-1] == {"type": "decision", "action": "stand", "area": 1, "hand": 1}


def test_n_in_the_betting_fields_is_no_more_bets(make_table: MakeTable) -> None:
    t = make_table(LUCKY8, "10H 6D 9C")
    t.bet("alice", "main", [100], area=1)
    t.window.activateWindow()
    t.qtbot.waitUntil(t.window.isActiveWindow, timeout=2000)
    field = t.window.betting.player_buttons["alice"]
    field.setFocus()
    t.qtbot.keyClick(field, Qt.Key.Key_N)
    t.settled_writes()
    assert t.controller.events[-1] == {"type": "no_more_bets"}
    assert t.window.betting.player_name() == "alice"


def test_ten_fast_chip_presses_add_ten_chips(make_table: MakeTable) -> None:
    t = make_table(LUCKY8, "10H 6D 9C")
    for _ in range(10):
        t.qtbot.keyClick(t.window, Qt.Key.Key_F2)  # +25 each, no wait between presses
    assert t.window.betting.amount == 250
    assert t.window.betting.amount_label.text() == "250"


def test_refusal_panel_clears_at_the_next_accepted_event(make_table: MakeTable) -> None:
    # Lucky 8 allows a double for at most the wager (1.1.2): 150 on a 100 wager is refused with
    # its clause; the refusal stays until the next accepted event (the stand), notices apart.
    t = make_table(LUCKY8, "6H 9D 5C 10S 8C")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal(3)
    t.window.decision_amount.setText("150")
    t.press("double")
    refusal = t.window.refusal
    assert refusal.isVisibleTo(t.window) and refusal.text().startswith("Refused (decision double")
    assert refusal.text().endswith("(1.1.2)")
    assert not t.window.notice.isVisibleTo(t.window)
    t.press("stand")
    assert not refusal.isVisibleTo(t.window)


def test_face_up_report_ends_with_a_void(make_table: MakeTable) -> None:
    # 5.5 is reported for the next card; the round is voided (5.1) before any card: the report
    # belongs to that round and the next round's first card is an ordinary card, no 5.5 ruling.
    users = {"sam": ("482913", ["supervisor"])}
    t = make_table(LUCKY8, "10H 6D 9C 10C 4S", users=users)
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.qtbot.mouseClick(t.window.report_buttons["face_up"], Qt.MouseButton.LeftButton)
    t.qtbot.mouseClick(t.window.choice_dialog.buttons["yes"], Qt.MouseButton.LeftButton)
    assert t.controller.face_up_next
    t.qtbot.mouseClick(t.window.report_buttons["void"], Qt.MouseButton.LeftButton)
    dialog = t.window.pin_dialog
    dialog.name.setText("sam")
    dialog.pin.setText("482913")
    t.qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    t.qtbot.waitUntil(lambda: t.controller.rnd.status() == "void", timeout=10000)
    t.settled_writes()
    assert not t.controller.face_up_next
    t.press("confirm")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal(1)
    assert "face_up" not in t.controller.events[-1]
    assert t.controller.output()["rulings"] == []


def test_referral_and_the_shift_managers_decision(make_table: MakeTable, tmp_path: Path) -> None:
    # 6.1: the dealer refers the round. The referral is audited with the dealer as actor and the
    # round, and the round's record is "referred"; a card dealt meanwhile is not assigned. The shift manager decides "continue" with a
    # supervisor PIN (its approval audited); the waiting card then goes on as dealt.
    users = {"sam": ("482913", ["supervisor"])}
    t = make_table(LUCKY8, "10H 6D 9C 10C 4S", users=users)
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal(1)
    t.qtbot.mouseClick(t.window.report_buttons["refer"], Qt.MouseButton.LeftButton)
    dialog = t.window.choice_dialog
    assert "(6.1)" in dialog.findChildren(QLabel)[0].text() and dialog.cancel_button.isVisible()
    t.qtbot.mouseClick(dialog.buttons["dispute"], Qt.MouseButton.LeftButton)  # the reason, from the short list
    assert t.controller.referred.endswith("(6.1): A player disputes the round")
    assert t.window.prompt.headline.text() == "Referred to the Gaming Shift Manager (6.1)"
    assert _round_status(tmp_path / "table.db") == "referred"
    before = len(t.controller.events)
    t.sim("deal")
    t.qtbot.waitUntil(lambda: t.controller.queued == 1, timeout=5000)
    assert len(t.controller.events) == before
    t.press("resolve_continue")
    pin = t.window.pin_dialog
    pin.name.setText("sam")
    pin.pin.setText("482913")
    t.qtbot.mouseClick(pin.ok_button, Qt.MouseButton.LeftButton)
    t.qtbot.waitUntil(lambda: not t.controller.referred, timeout=10000)
    t.settled_writes()
    assert _without_seq(t.controller.events[before:]) == [{"type": "card", "card": "6D"}]
    assert _round_status(tmp_path / "table.db") == "in_progress"
    rid = t.controller.round_id
    store = Store.open_readonly(tmp_path / "table.db")
    try:
        audit = [(a.kind, a.actor, a.round_id) for a in store.audit_entries(round_id=rid)]
    finally:
        store.close()
    assert ("referral", "dealer:ann", rid) in audit
    # the supervisor's approval of the decision, and the round's record back in progress by them
    assert ("resolve", "sam", rid) in audit and ("round_finish", "supervisor:sam", rid) in audit


def test_shoe_fault_banner_and_its_round(make_table: MakeTable, tmp_path: Path) -> None:
    # A jam: a full-width banner replaces the prompt and says what to do; the fault is audited
    # with the round it happened in (the review's "who did what").
    t = make_table(LUCKY8, "10H 6D 9C")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal(1)
    t.table.sim.fault("JAM", "card jam")
    t.qtbot.waitUntil(lambda: bool(t.controller.shoe.fault), timeout=5000)
    status = t.window.shoe_status
    assert status.state_box.isVisibleTo(t.window) and "SHOE FAULT" in status.state_text.text()
    assert not t.window.prompt.isVisibleTo(t.window)
    t.qtbot.mouseClick(status.fault_button, Qt.MouseButton.LeftButton)
    t.window._shoe_changed()
    assert t.window.prompt.isVisibleTo(t.window)
    rid = t.controller.round_id
    store = Store.open_readonly(tmp_path / "table.db")
    try:
        faults = [(a.kind, a.round_id) for a in store.audit_entries(kind="shoe_fault")]
    finally:
        store.close()
    assert faults == [("shoe_fault", rid)]


def report_power_failure(t: TableDriver) -> Any:
    """The dealer reports a power failure (Power fail, Yes); the panel that asks the players."""
    t.qtbot.mouseClick(t.window.report_buttons["power_failure"], Qt.MouseButton.LeftButton)
    t.qtbot.mouseClick(t.window.choice_dialog.buttons["yes"], Qt.MouseButton.LeftButton)
    t.settled_writes()
    return t.window.power_panel


def test_power_failure_asks_each_player(make_table: MakeTable) -> None:
    # 5.29.1: after a power failure each player whose wagers have not conclusively won or lost
    # may withdraw them. Alice (area 1) and bob (area 2) have two cards each, no decision yet:
    # nothing is decided. The screen asks each of them; bob stays, alice withdraws: her 100 is
    # returned (5.29.1) and bob's round goes on.
    setup = TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1, "bob": 2})
    t = make_table(setup, "9H 5C 7D 8S 6H 10C 2C")
    t.bet("alice", "main", [100], area=1)
    t.bet("bob", "main", [100], area=2)
    t.press("no_more_bets")
    t.deal(5)
    panel = report_power_failure(t)
    assert panel.isVisibleTo(t.window) and "(5.29)" in panel.title.text()
    assert set(panel.buttons) == {("alice", "withdraw"), ("alice", "stay"), ("bob", "withdraw"), ("bob", "stay")}
    t.qtbot.mouseClick(panel.buttons[("bob", "stay")], Qt.MouseButton.LeftButton)
    assert set(panel.buttons) == {("alice", "withdraw"), ("alice", "stay")}
    t.qtbot.mouseClick(panel.buttons[("alice", "withdraw")], Qt.MouseButton.LeftButton)
    t.settled_writes()
    assert t.settlement_rows() == [("alice", "1/1", "Main", "RETURN", "5.29.1", "interim")]
    assert not panel.isVisibleTo(t.window)
    assert t.window.prompt.headline.text() == "Area 2, hand 1: bob decides"


def test_insurance_is_on_its_spot_before_it_is_settled(make_table: MakeTable) -> None:
    # Lucky 8, alice 100 on area 1: 10♥, the dealer's A♦, 9♣. The Ace opens the insurance offer
    # (3.27.1); alice takes it, half her wager by default: 50 (3.27). Her area shows the 50 on
    # the Insurance row at once, before anything settles it. She stands on 19; the dealer's K♠
    # makes a blackjack: insurance wins 2 to 1, +100 on the same spot.
    t = make_table(LUCKY8, "10H AD 9C KS")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.deal(3)
    t.press("offer:alice:1:insurance")
    box = t.window.table_view.area_boxes[1]
    cells = box.findChild(WagerTable).cells
    assert cells[("alice", "insurance")].text() == "50"
    assert cells[("alice", "main")].text() == "100"
    assert not any(s["bet"] == "insurance" for s in t.controller.output()["settlements"])  # not settled yet
    # she was the only one offered anything: the offers are closed (3.27.1), she decides
    assert "close_offers" not in t.window.prompt.buttons
    t.press("stand")
    t.deal(1)
    # the card painted first, the cells settled one paint later (an area's box may be built anew)
    cells = t.window.table_view.area_boxes[1].findChild(WagerTable).cells
    assert cells[("alice", "insurance")].text() == "+100"


def test_a_cleared_fault_stays_cleared_until_the_next_fault(make_table: MakeTable) -> None:
    # The service tells every screen the shoe's state with each frame (its last fault too):
    # "Fault cleared" holds through the next cards, and a second fault shows again.
    t = make_table(LUCKY8, "10H 6D 9C 8S 7H")
    t.bet("alice", "main", [100], area=1)
    t.press("no_more_bets")
    t.table.sim.fault("JAM", "card jam")
    t.qtbot.waitUntil(lambda: t.controller.shoe.faults == 1, timeout=5000)
    status = t.window.shoe_status
    assert status.state_box.isVisibleTo(t.window)
    t.qtbot.mouseClick(status.fault_button, Qt.MouseButton.LeftButton)
    t.deal(2)  # two cards: two shoe notifications that still carry the cleared fault
    assert t.controller.shoe.fault == "JAM card jam"
    assert not status.state_box.isVisibleTo(t.window) and t.window.prompt.isVisibleTo(t.window)
    t.table.sim.fault("LID", "lid open")
    t.qtbot.waitUntil(lambda: t.controller.shoe.faults == 2, timeout=5000)
    assert status.state_box.isVisibleTo(t.window) and "LID lid open" in status.state_text.text()


def test_electronic_power_failure_asks_only_for_stays(make_table: MakeTable) -> None:
    # Electronic 5.9: after a power failure "the round of play shall continue": nobody
    # withdraws (its 5.9.1/5.9.2 say what happens to the affected terminals' wagers), so the
    # panel names 5.9 and offers each player a stay, no withdrawal.
    setup = TableSetup(game="electronic", decks=6, terminals=["t1", "t2"], decision_seconds=120)
    t = make_table(setup, "10H 7C 9S 10D 5C 2C")
    t.bet("t1", "main", [100])
    t.bet("t2", "main", [25])
    t.press("no_more_bets")
    t.deal(3)
    panel = report_power_failure(t)
    assert panel.isVisibleTo(t.window) and "(5.9)" in panel.title.text() and "continues" in panel.title.text()
    assert set(panel.buttons) == {("t1", "stay"), ("t2", "stay")}
    t.qtbot.mouseClick(panel.buttons[("t1", "stay")], Qt.MouseButton.LeftButton)
    t.settled_writes()
    assert set(panel.buttons) == {("t2", "stay")}
