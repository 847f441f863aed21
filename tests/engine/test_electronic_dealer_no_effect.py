"""Issue 33 finding (b): Electronic Blackjack draws no dealer card that cannot change any
outcome (3.20) — worked by hand from electronic-blackjack.txt.

- 3.19: "Subject to Rule 3.20", the dealer draws to 16 and stands on 17.
- 3.20: "No additional cards shall be drawn to the Dealer's hand, regardless of the point
  total, if decisions have been made on all Players' hands and the additional cards would
  have no effect on the outcome of the round of play."
- 1.1.1: a Blackjack is an Ace and a ten-point card "dealt as the initial two cards"; so once
  the dealer's two cards are not a blackjack, no later card makes one.
- 4.5.1: the Player wins if they obtain a Blackjack "and the Dealer does not", paid 3 to 2
  (4.1). A Blackjack is not a hand anyone decides on (3.16: no double, no more cards).

So when the shared hand (3.8) is a blackjack and the dealer's first two cards are not, every
main wager is won whatever the dealer draws; with no insurance or side bet left waiting, the
round is settled on the dealer's second card and a third dealer card is not drawn.
"""

from __future__ import annotations

from tests.engine.helpers import NMB, bet, cards, one, settle, table


def decide(player: str, action: str) -> dict[str, object]:
    return {"type": "decision", "player": player, "action": action}


def test_a_shared_blackjack_against_a_ten_is_settled_on_the_dealers_second_card_3_20() -> None:
    # Shared A♠ K♦ against the dealer's 10♥ (3.7: Player, Dealer, Player). The blackjack waits
    # for the dealer's second card (a dealer blackjack would make it a stand-off, 4.8.2).
    # The dealer's 6♣: 16, not a blackjack. 3.19 alone would draw again; 3.20 does not: both
    # terminals' blackjacks win 3 to 2 (4.1, 4.5.1): t1 10 -> +15, t2 20 -> +30.
    doc = table("electronic", bet("t1", 10), bet("t2", 20), NMB, *cards("AS", "10H", "KD"))
    waiting = settle(doc)
    assert waiting["next"]["expect"] == "card" and waiting["next"]["for"] == "dealer"
    out = settle(table("electronic", bet("t1", 10), bet("t2", 20), NMB, *cards("AS", "10H", "KD", "6C")))
    assert out["status"] == "settled", out["next"]
    assert out["dealer"]["cards"] == ["10H", "6C"]
    for player, net in (("t1", 15), ("t2", 30)):
        e = one(out, player, "main")
        assert (e["result"], e["net"], e["rule"], e["stage"]) == ("win", net, "4.5.1", "final")
    assert out["net"] == {"t1": 15, "t2": 30}


def test_a_shared_blackjack_against_an_ace_declined_even_money_is_settled_on_the_second_card_3_20() -> None:
    # Shared A♠ Q♦ against the dealer's A♥: even money is offered (3.10.1); t1 stands on it
    # (declines). The dealer's 5♣: A-5, soft 16, not a blackjack: t1 wins 3 to 2 (+15) and
    # the dealer draws nothing more (3.20).
    out = settle(table("electronic", bet("t1", 10), NMB, *cards("AS", "AH", "QD"), decide("t1", "stand"),
                       *cards("5C")))
    assert out["status"] == "settled", out["next"]
    assert out["dealer"]["cards"] == ["AH", "5C"]
    e = one(out, "t1", "main")
    assert (e["result"], e["net"], e["rule"]) == ("win", 15, "4.5.1")


def test_another_dealer_card_is_drawn_while_a_hand_can_still_lose_3_19() -> None:
    # Not a blackjack: shared 10♠ 7♦ = 17 stands against the dealer's 10♥ 6♣ = 16: the next
    # card decides it (3.19 draws to 16), so the round waits for it.
    out = settle(table("electronic", bet("t1", 10), NMB, *cards("10S", "10H", "7D"), decide("t1", "stand"),
                       *cards("6C")))
    assert out["status"] != "settled"
    assert out["next"]["expect"] == "card" and out["next"]["for"] == "dealer"
