"""Issue 26.6, worked from the rule text.

- Refusing a second split of aces cites the clauses that forbid it, whichever hand is in
  turn and also once the last split ace has its card: Ace Race, Star Elements and Lucky 8
  3.22.1 ("A Player splitting Aces can only split once") and 3.23.1 ("only have one card
  dealt to each Ace and cannot elect to receive additional cards"); Electronic 3.14.3
  ("Aces ... may be split only 1 time to form 2 hands") and 3.14.1 (one card to each Ace).
- Electronic 5.7: cards drawn together in a known order "will be manually entered": a
  `multi` with `order_known: true` is played as those cards in that order.
"""

from __future__ import annotations

from typing import Any

import pytest

from dealer_assist.base.errors import EventFormatError, RuleRefusal
from dealer_assist.engine.transcript import new_round, parse_event, settle_document
from tests.engine.helpers import NMB, bet, cards, decide, one, table, wager


def _round(doc: dict[str, Any]) -> Any:
    rnd = new_round({k: v for k, v in doc.items() if k != "events"})
    for e in doc["events"]:
        rnd.apply(parse_event(e))
    return rnd


def _refused(rnd: Any, event: dict[str, Any]) -> RuleRefusal:
    before = rnd.view()
    expected = rnd.expectation()
    with pytest.raises(RuleRefusal) as info:
        rnd.apply(parse_event(event))
    assert rnd.view() == before and rnd.expectation() == expected  # left exactly as it was
    return info.value


SPLIT_ACES_AGAIN = "aces are split only once and each split ace receives one card"


# Star Elements' deck has five elements instead of the four suits (2.1).
_SUITS = {"star_elements": {"S": "Fi", "D": "Go", "H": "Wa", "C": "Ea"}}


def _cards(game: str, *names: str) -> list[dict[str, Any]]:
    suits = _SUITS.get(game, {})
    return cards(*(n[:-1] + suits.get(n[-1], n[-1]) for n in names))


@pytest.mark.parametrize("game", ["ace_race", "star_elements", "lucky8"])
def test_a_second_split_of_aces_at_a_table_cites_3_22_1_and_3_23_1(game: str) -> None:
    # Area 1: A♠, dealer 9♦, A♥; split; hand 1 gets A♦ (A A, complete after one card,
    # 3.23.1); hand 2 waits for its card.
    doc = table(game, wager("a", 1, 10), NMB, *_cards(game, "AS", "9D", "AH"), decide("split", 1),
                *_cards(game, "AD"))
    rnd = _round(doc)
    for event in (decide("split", 1, 1), decide("split", 1), decide("split", 1, 2)):
        refusal = _refused(rnd, event)
        assert refusal.clause == "3.22.1/3.23.1" and SPLIT_ACES_AGAIN in refusal.message
    # Hand 2 gets 5♣: both split aces are complete and the dealer is in turn. Still 3.22.1/3.23.1.
    rnd.apply(parse_event(_cards(game, "5C")[0]))
    for event in (decide("split", 1, 1), decide("split", 1, 2)):
        refusal = _refused(rnd, event)
        assert refusal.clause == "3.22.1/3.23.1"
    # The round goes on: dealer 9 8 = 17; hand 1 A A = 12 and hand 2 A 5 = 16 lose 10 each.
    doc["events"] += [*_cards(game, "5C", "8S")]
    out = settle_document(doc)
    assert out["status"] == "settled"
    assert (one(out, "a", "main", 1)["net"], one(out, "a", "main", 2)["net"]) == (-10, -10)


def test_a_second_split_of_aces_in_electronic_cites_3_14_1_and_3_14_3() -> None:
    # Player A♠, dealer 9♦, Player A♥ (3.7); t1 splits; the stream's A♦ goes to hand 1.
    doc = table("electronic", bet("t1", 10), NMB, *cards("AS", "9D", "AH"), decide("split", player="t1"),
                *cards("AD"))
    rnd = _round(doc)
    for hand in (1, None, 2):
        refusal = _refused(rnd, decide("split", hand=hand, player="t1"))
        assert refusal.clause == "3.14.1/3.14.3" and SPLIT_ACES_AGAIN in refusal.message
    rnd.apply(parse_event(cards("5C")[0]))  # hand 2: A 5; the dealer is in turn
    for hand in (1, None, 2):
        assert _refused(rnd, decide("split", hand=hand, player="t1")).clause == "3.14.1/3.14.3"
    doc["events"] += [*cards("5C", "8S")]
    out = settle_document(doc)
    # Dealer 9 8 = 17 stands (3.19): A A = 12 and A 5 = 16 lose 10 each (4.6.1).
    assert [(s["hand"], s["result"], s["net"], s["rule"]) for s in out["settlements"]] == [
        (1, "lose", -10, "4.6.1"), (2, "lose", -10, "4.6.1")]


def test_electronic_splits_a_pair_of_eights_as_before() -> None:
    # Not every split after a split is refused: 8 8, then 8 on hand 1, splits again (3.14).
    rnd = _round(table("electronic", bet("t1", 10), NMB, *cards("8S", "7H", "8D"), decide("split", player="t1"),
                       *cards("8C")))
    rnd.apply(parse_event(decide("split", hand=1, player="t1")))
    assert len(rnd.view().terminals[0].hands) == 3


def _multi(*names: str) -> dict[str, Any]:
    return {"type": "multi", "cards": list(names), "disclosed": [], "order_known": True}


def test_electronic_cards_drawn_together_in_a_known_order_are_played_in_that_order_5_7() -> None:
    # Player 5♥ 3♣ = 8 against the dealer's 7♦. t1 hits; 2♣ and 9♦ leave the shoe together,
    # order known: 2♣ is the Player's (10), 9♦ the next card of the stream. t1 hits again:
    # 9♦ makes 19; stands. Dealer 7♦ J♥ = 17 stands (3.19): 19 beats 17, t1 wins 10 (4.5.2).
    doc = table("electronic", bet("t1", 10), NMB, *cards("5H", "7D", "3C"), decide("hit", player="t1"),
                _multi("2C", "9D"), decide("hit", player="t1"), decide("stand", player="t1"), *cards("JH"))
    out = settle_document(doc)
    assert out["status"] == "settled"
    assert [(r["index"], r["rule"], r["ruling"]) for r in out["rulings"]] == [(6, "5.7", "dealt")]
    assert out["player_cards"] == ["5H", "3C"]
    assert out["dealer"] == {"cards": ["7D", "JH"], "total": 17}
    assert [(s["result"], s["net"], s["rule"]) for s in out["settlements"]] == [("win", 10, "4.5.2")]


def test_electronic_a_known_order_card_no_hand_needs_is_removed_from_play_5_6() -> None:
    # Player 9♥ Q♣ = 19 stands against 7♦. K♠ and 5♣ come out together, order known: K♠ makes
    # the dealer's 17, which stands; 5♣ is dealt to a completed hand and removed (5.6).
    doc = table("electronic", bet("t1", 10), NMB, *cards("9H", "7D", "QC"), decide("stand", player="t1"),
                _multi("KS", "5C"))
    out = settle_document(doc)
    assert [(r["index"], r["rule"], r["ruling"]) for r in out["rulings"]] == [(6, "5.7", "dealt"),
                                                                             (6, "5.6", "discarded")]
    assert out["dealer"] == {"cards": ["7D", "KS"], "total": 17}
    assert [(s["result"], s["net"]) for s in out["settlements"]] == [("win", 10)]


def test_electronic_known_order_before_the_deal_is_refused() -> None:
    rnd = _round(table("electronic", bet("t1", 10)))
    assert _refused(rnd, _multi("2C", "3D")).clause == "5.7"


def test_ace_race_takes_the_same_known_order_multi_as_its_next_cards() -> None:
    # The same event at a table: area 1 5♥ 3♣ = 8 v dealer 7♦; hit; 2♣ 9♦ together in a known
    # order: 2♣ to area 1 (10); stand; 9♦ is the dealer's (16), who draws (3.34) 5♠ = 21:
    # area 1 loses 10.
    out = settle_document(table("ace_race", wager("a", 1, 10), NMB, *cards("5H", "7D", "3C"), decide("hit", 1),
                                _multi("2C", "9D"), decide("stand", 1), *cards("5S")))
    assert out["status"] == "settled"
    assert out["dealer"] == {"cards": ["7D", "9D", "5S"], "total": 21}
    assert (one(out, "a", "main")["result"], one(out, "a", "main")["net"]) == ("lose", -10)


def test_electronic_known_order_disclosing_a_card_not_drawn_is_refused() -> None:
    rnd = _round(table("electronic", bet("t1", 10), NMB, *cards("5H", "7D", "3C"), decide("hit", player="t1")))
    before = list(rnd.events)
    # a malformed event (its disclosed card is not one of its cards), not a rule's refusal
    with pytest.raises(EventFormatError, match="disclosed card 9S is not among the cards drawn"):
        rnd.apply(parse_event({"type": "multi", "cards": ["2C", "9D"], "disclosed": ["9S"], "order_known": True}))
    assert list(rnd.events) == before
