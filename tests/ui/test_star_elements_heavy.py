"""Star Elements' heaviest case on one area, through the real window: the controlling player
splits 8s into four hands (3.21, 3.22, 3.23.2), the player behind her matches every split
(3.24.1), every hand is doubled (3.26.2) and the player behind doubles on two of them
(3.26.5, 3.26.6). Each hand's spot and the dealer's list say what to pay or collect on that
hand, amounts worked out by hand from the rules below."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QRegion
from PySide6.QtWidgets import QWidget

from dealer_assist.engine.table_setup import TableSetup
from tests.ui.driving import TableDriver

MakeTable = Callable[..., TableDriver]


def _answer(t: TableDriver, player: str, key: str) -> None:
    """The other players' dialog (split: match/stay; double: the amount or "" for none)."""
    t.qtbot.waitUntil(lambda: t.window.followers_dialog is not None and t.window.followers_dialog.isVisible(),
                      timeout=5000)
    dialog = t.window.followers_dialog
    assert dialog is not None
    t.qtbot.mouseClick(dialog.buttons[(player, key)], Qt.MouseButton.LeftButton)
    t.qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)
    t.window.followers_dialog = None
    t.settled_writes()


def test_four_split_hands_each_doubled_paid_per_hand(make_table: MakeTable) -> None:
    # Area 1: alice (seated, controls, 3.11) 100, bob 50 behind her. Deal (3.18): 8 Fire to
    # area 1, 6 Water to the dealer (one card only), 8 Gold to area 1: a pair of 8s.
    # Alice splits (3.21), bob matches his 50 on the new hand (3.24.1). 3.23: hand 1 is
    # completed first: its second card 8 Earth is again an 8, alice splits again (3.23.2;
    # at most four hands, 3.22), bob matches; hand 1's next card 8 Wood: the fourth hand.
    # Then each hand in turn gets its second card, is doubled for the full 100 by alice
    # (3.26.2; its one more card, 3.26.4), bob doubling his 50 on the first and third:
    #   hand A: 8 + 3 = 11, doubled, + 10 = 21   (alice 200, bob 100)
    #   hand B: 8 + 2 = 10, doubled, + 9  = 19   (alice 200, bob 50: no double, 3.26.6)
    #   hand C: 8 + 3 = 11, doubled, + 6  = 17   (alice 200, bob 100)
    #   hand D: 8 + 4 = 12, doubled, + 10 = 22   (alice 200, bob 50): bust, lost (3.32, 4.5.2)
    # Dealer 6 + Shou (10) = 16 draws (3.34), + 3 = 19 stands.
    # 4.1 pays 1 to 1 on a win: A 21 beats 19 (4.4.2): alice +200, bob +100. B 19 against 19
    # is a stand-off (4.6.1): alice =200, bob =50 returned. C 17 under 19 loses (4.5.1):
    # alice −200, bob −100. D busted (4.5.2): alice −200, bob −50.
    # Totals: alice 200 + 0 − 200 − 200 = −200; bob 100 + 0 − 100 − 50 = −50.
    setup = TableSetup(game="star_elements", decks=6, areas=7, seated={"alice": 1})
    t = make_table(setup, "8Fi 6Wa 8Go 8Ea 8Wo 3Fi 10Go 2Ea 9Wa 3Go 6Fi 4Wo 10Ea KWa 3Ea 5Fi")
    t.bet("alice", "main", [100], area=1)
    t.bet("bob", "main", [25, 25], area=1)
    t.press("no_more_bets")
    t.deal(3)
    for _ in range(3):  # the split, and the two resplits on hand 1's second cards
        t.press("split")
        _answer(t, "bob", "match")
        t.deal(1)
    bob_doubles = ["50", "", "50", ""]
    for n, bob in enumerate(bob_doubles):
        if n:
            t.deal(1)  # the next hand's second card
        t.press("double")
        _answer(t, "bob", bob)
        t.deal(1)  # the doubled hand's one card (3.26.4)
    t.deal(2)  # the dealer's Shou and 3
    assert t.controller.concluded
    box = t.window.table_view.area_boxes[1]
    # the layout's hands left to right: each new hand lies next to the hand it was split from
    # (hand 1's 8 Wood is hand 2, its 8 Earth hand 3, the first split's 8 Gold hand 4), and
    # they were played in that order: A = 1, B = 2, C = 3, D = 4
    assert [h.hand.cards for h in box.hand_boxes] == [
        ("8Fi", "3Fi", "10Go"), ("8Wo", "2Ea", "9Wa"), ("8Ea", "3Go", "6Fi"), ("8Go", "4Wo", "10Ea")]
    assert all("DOUBLED" in h.hand.badges for h in box.hand_boxes)
    assert [h.pay_text() for h in box.hand_boxes] == [
        ["alice +200", "bob +100"], ["alice =200", "bob =50"],
        ["alice \u2212200", "bob \u2212100"], ["alice \u2212200", "bob \u221250"]]
    assert all(h.pay.showing() for h in box.hand_boxes)
    assert t.window.settlement.summary_rows() == [
        ("1", "alice", "H1 +200  H2 =200  H3 \u2212200  H4 \u2212200", "\u2212200"),
        ("", "bob", "H1 +100  H2 =50  H3 \u2212100  H4 \u221250", "\u221250"),
    ]
    assert sorted(t.settlement_rows()) == sorted([
        ("alice", "1/1", "Main", "PAY 200", "4.4.2", "final"), ("bob", "1/1", "Main", "PAY 100", "4.4.2", "final"),
        ("alice", "1/2", "Main", "RETURN", "4.6.1", "final"), ("bob", "1/2", "Main", "RETURN", "4.6.1", "final"),
        ("alice", "1/3", "Main", "COLLECT 200", "4.5.1", "final"),
        ("bob", "1/3", "Main", "COLLECT 100", "4.5.1", "final"),
        ("alice", "1/4", "Main", "COLLECT 200", "4.5.2", "final"),
        ("bob", "1/4", "Main", "COLLECT 50", "4.5.2", "final"),
    ])
    assert t.window.settlement.total_of("alice") == "COLLECT 200"
    assert t.window.settlement.total_of("bob") == "COLLECT 50"

    # at each table screen's size, area 1's four doubled hands are all in view: each hand's
    # title, badges, cards (each card's corner with its rank and element) and pay tag inside the
    # area and covered by nothing
    for width, height in ((1280, 800), (1366, 768), (1920, 1080)):
        t.window.setGeometry(0, 0, width, height)
        t.qtbot.wait(200)
        box = t.window.table_view.area_boxes[1]
        for n, hand in enumerate(box.hand_boxes, 1):
            parts: list[tuple[str, QWidget, QRect]] = [
                (f"hand {n}", hand, hand.rect()), (f"hand {n}'s title", hand.title, hand.title.rect()),
                (f"hand {n}'s badges", hand.badges, hand.badges.rect()),
                (f"hand {n}'s pay", hand.pay, hand.pay.rect())]
            for face in hand.cards.faces:
                corner = QRect(0, 0, max(1, face.width() * 3 // 10), max(1, face.height() * 3 // 10))
                parts.append((f"hand {n}'s {face.text}", face, corner if not face.compact else face.rect()))
            for what, widget, must_show in parts:
                assert widget.isVisibleTo(t.window), f"{width}x{height}: {what} hidden"
                placed = QRect(widget.mapTo(box, widget.rect().topLeft()), widget.size())
                assert box.rect().contains(placed), f"{width}x{height}: {what} {placed.getRect()} outside the area"
                assert widget.visibleRegion().intersected(must_show) == QRegion(must_show), \
                    f"{width}x{height}: {what} covered ({widget.visibleRegion().boundingRect().getRect()})"
