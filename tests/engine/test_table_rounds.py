"""Whole rounds at the table games, through transcripts, with amounts worked out from the rules.

Deal order (3.18; 3.19 in Dueling 8's): first card to each wagered area from the dealer's
left, one card to the dealer (none in Dueling 8's, whose hands start with the permanent
8♠), then the second card to each area. No hole card: the dealer's second card comes
after the players.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from tests.engine.helpers import (
    CLOSE,
    NMB,
    cards,
    decide,
    entries,
    net,
    one,
    refusal,
    settle,
    table,
    wager,
)

SHARED = Path(__file__).resolve().parents[2].parent / "shared"


# ---------------------------------------------------------------- the worked examples
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("lucky8-pair-and-double.json", {"alice": 30, "bob": 150}),
        ("dueling8s-split-and-superb8.json", {"alice": 75}),
        ("electronic-shared-hand.json", {"t1": 0, "t2": 105}),
    ],
)
def test_shared_examples_settle_as_worked_by_hand(name: str, expected: dict[str, int]) -> None:
    doc = json.loads((SHARED / "examples" / name).read_text())
    out = settle(doc)
    assert out["status"] == "settled"
    assert out["net"] == expected
    assert out["next"] is None


# ---------------------------------------------------------------- blackjack odds (4.1)
def test_ace_race_blackjack_pays_6_to_5_at_the_interim_settlement() -> None:
    # alice A♠ K♥ against a dealer 9: the dealer cannot make a blackjack, paid at once.
    out = settle(table("ace_race", wager("alice", 1, 25), NMB, *cards("AS", "9D", "KH")))
    e = one(out, "alice", "main")
    assert (e["result"], e["net"], e["rule"], e["stage"]) == ("win", 30, "4.3.1", "interim")  # 25 × 6/5
    assert out["status"] == "settled"
    assert out["dealer"]["cards"] == ["9D"]  # 3.35: nothing left to draw for


@pytest.mark.parametrize(("game", "rule", "a", "b"), [
    ("lucky8", "4.3.1", "AS", "KH"),
    ("star_elements", "4.4.1", "AFi", "KWa"),
])
def test_three_to_two_blackjack(game: str, rule: str, a: str, b: str) -> None:
    dealer = "9Go" if game == "star_elements" else "9D"
    out = settle(table(game, wager("alice", 1, 25), NMB, *cards(a, dealer, b)))
    e = one(out, "alice", "main")
    assert (e["net"], e["rule"]) == (37.5, rule)  # 25 × 3/2


def test_blackjack_odds_round_down_to_the_cent() -> None:
    # 6 to 5 on 7.15 = 8.58; 3 to 2 on 7.15 = 10.725 → 10.72 (the house never overpays).
    out = settle(table("ace_race", wager("a", 1, 7.15), NMB, *cards("AS", "9D", "KH")))
    assert one(out, "a", "main")["net"] == 8.58
    out = settle(table("lucky8", wager("a", 1, 7.15), NMB, *cards("AS", "9D", "KH")))
    assert one(out, "a", "main")["net"] == 10.72


def test_blackjack_against_dealer_ace_waits_and_stands_off_on_dealer_blackjack() -> None:
    # Star Elements: A K against a dealer Ace; nobody takes even money; the dealer's K makes 21.
    doc = table("star_elements", wager("alice", 1, 20), NMB, *cards("AFi", "AGo", "KWa"), CLOSE,
                *cards("KEa"))
    out = settle(doc)
    e = one(out, "alice", "main")
    assert (e["result"], e["net"], e["rule"]) == ("push", 0, "4.6.2")
    assert out["dealer"]["cards"] == ["AGo", "KEa"]


@pytest.mark.parametrize(("game", "player", "dealer_ace", "ten"), [
    ("lucky8", ("AS", "KH"), "AD", "KD"),
    ("ace_race", ("AS", "KH"), "AD", "KD"),
    ("star_elements", ("AFi", "KWa"), "AGo", "KEa"),
])
def test_the_dealers_card_closes_the_offers_when_every_hand_is_done(
        game: str, player: tuple[str, str], dealer_ace: str, ten: str) -> None:
    # A blackjack against a dealer Ace, nobody takes even money or insurance, and the dealer
    # draws without announcing the offers closed: the card is the subsequent deal (3.27.2),
    # so the offers close and it is the dealer's. Dealer blackjack: a stand-off (4.6.2).
    doc = table(game, wager("alice", 1, 10), NMB, *cards(player[0], dealer_ace, player[1], ten))
    out = settle(doc)
    e = one(out, "alice", "main")
    assert (e["result"], e["net"]) == ("push", 0)
    assert out["dealer"]["cards"] == [dealer_ace, ten]
    assert out["status"] == "settled"


def test_the_dealers_card_that_closes_the_offers_ends_the_round_under_3_35() -> None:
    # Lucky 8: alice A K v dealer A, then the dealer's 5 (soft 16): no blackjack for the
    # dealer, alice's blackjack wins 3 to 2 (4.3.1, 4.1): +15; 3.35 no more dealer cards.
    out = settle(table("lucky8", wager("alice", 1, 10), NMB, *cards("AS", "AD", "KH", "5D")))
    e = one(out, "alice", "main")
    assert (e["result"], e["net"], e["rule"]) == ("win", 15, "4.3.1")
    assert out["dealer"]["cards"] == ["AD", "5D"]
    assert out["status"] == "settled"


def test_even_money_paid_before_the_subsequent_deal_and_insurance_returned() -> None:
    # Lucky 8 3.20: alice insures 10 then takes even money: main +20, insurance returned.
    doc = table("lucky8", wager("alice", 1, 20), NMB, *cards("AH", "AS", "KD"),
                decide("insurance", 1, amount=10), decide("even_money", 1))
    out = settle(doc)
    e = one(out, "alice", "main")
    assert (e["result"], e["net"], e["rule"], e["stage"]) == ("even_money", 20, "3.20", "interim")
    assert one(out, "alice", "insurance")["result"] == "returned"
    assert out["status"] == "settled"
    assert out["dealer"]["cards"] == ["AS"]  # nothing depends on the dealer's second card


def test_insurance_pays_2_to_1_on_a_dealer_blackjack() -> None:
    # bob 10 6 v dealer A: insures 5 (half of 10), stands; dealer K: blackjack.
    doc = table("ace_race", wager("bob", 2, 10), NMB, *cards("10H", "AS", "6C"),
                decide("insurance", 2, amount=5), decide("stand", 2), *cards("KD"))
    out = settle(doc)
    ins = one(out, "bob", "insurance")
    assert (ins["result"], ins["net"], ins["rule"]) == ("win", 10, "4.1")
    main = one(out, "bob", "main")
    assert (main["result"], main["net"], main["rule"]) == ("lose", -10, "4.4.3")
    assert out["net"]["bob"] == 0


def test_insurance_is_at_most_half_the_wager() -> None:
    doc = table("ace_race", wager("bob", 2, 10), NMB, *cards("10H", "AS", "6C"),
                decide("insurance", 2, amount=5.01))
    assert "(3.27)" in refusal(doc)


# ---------------------------------------------------------------- doubling
def test_ace_race_doubles_only_hard_10_or_11() -> None:
    doc = table("ace_race", wager("a", 1, 10), NMB, *cards("5H", "7D", "4C"), decide("double", 1))
    msg = refusal(doc)
    assert msg.startswith("event 5 (decision double, area 1")
    assert "hard 10 or 11 (3.26.1)" in msg


def test_ace_race_a9_is_a_hard_10_and_the_ace_then_counts_one() -> None:
    # A♠ 9♥ doubled (3.26.1 reading), K♦ drawn: 1 + 9 + 10 = 20 (3.4.2), not a bust.
    # Dealer 7♣ then 10♠: hard 17 stands (3.34). 20 beats 17: win the doubled 50.
    doc = table("ace_race", wager("a", 1, 25), NMB, *cards("AS", "7C", "9H"), decide("double", 1),
                *cards("KD", "10S"))
    out = settle(doc)
    assert out["areas"][0]["hands"][0]["total"] == 20
    e = one(out, "a", "main")
    assert (e["stake"], e["result"], e["net"], e["rule"]) == (50, "win", 50, "4.3.2")


@pytest.mark.parametrize("game", ["lucky8", "star_elements", "dueling8s"])
def test_double_on_any_two_cards_up_to_the_wager(game: str) -> None:
    if game == "dueling8s":
        # 8♠ + 4♥ = 12 doubled for 10 of 20; 9♣ → 21. Dealer 8♠ + 10-less deck: 8 9 = 17.
        doc = table(game, wager("a", 1, 20), NMB, *cards("4H"), decide("double", 1, amount=10),
                    *cards("9C", "9D"))
        expect_stake, expect_net = 30, 30
    else:
        s = "Go" if game == "star_elements" else "H"
        doc = table(game, wager("a", 1, 20), NMB, *cards(f"5{s}", f"9{s}", f"7{s}"),
                    decide("double", 1, amount=10), *cards(f"8{s}", f"8{s}"))
        # 5 7 = 12, doubled for 10 (30 in all), 8 → 20; dealer 9 8 = 17: win 30.
        expect_stake, expect_net = 30, 30
    out = settle(doc)
    e = one(out, "a", "main")
    assert (e["stake"], e["net"]) == (expect_stake, expect_net)


@pytest.mark.parametrize(("game", "clause"), [("lucky8", "1.1.2"), ("ace_race", "1.1.3"), ("dueling8s", "1.1.3")])
def test_double_more_than_the_original_is_refused(game: str, clause: str) -> None:
    first = cards("3H") if game == "dueling8s" else cards("6H", "7D", "5C")
    doc = table(game, wager("a", 1, 20), NMB, *first, decide("double", 1, amount=25))
    assert f"({clause})" in refusal(doc)


def test_double_below_the_table_minimum_is_refused() -> None:
    doc = table("lucky8", wager("a", 1, 20), NMB, *cards("6H", "7D", "5C"),
                decide("double", 1, amount=5), limits={"main": [10, 500]})
    msg = refusal(doc)
    assert "table minimum" in msg and "(1.1.2)" in msg


def test_doubled_hand_gets_one_card_only() -> None:
    doc = table("lucky8", wager("a", 1, 20), NMB, *cards("2H", "7D", "3C"), decide("double", 1),
                *cards("2S"), decide("hit", 1))
    # 2 3 doubled, 2 → 7; the hand is complete (3.26.4): the next decision is refused.
    assert refusal(doc).endswith("receives only one additional card (3.26.4)")


# ---------------------------------------------------------------- splitting
def test_split_by_point_value_ten_and_jack() -> None:
    # Lucky 8: 10♥ J♣ split (1.1.14: same point value); hands 10 9 = 19 and J 8 = 18; dealer 7 10 = 17.
    doc = table("lucky8", wager("a", 1, 10), NMB, *cards("10H", "7D", "JC"), decide("split", 1),
                *cards("9S"), decide("stand", 1, 1), *cards("8S"), decide("stand", 1, 2), *cards("10D"))
    out = settle(doc)
    assert [h["cards"] for h in out["areas"][0]["hands"]] == [["10H", "9S"], ["JC", "8S"]]
    assert out["net"]["a"] == 20


def test_split_ace_and_ten_is_not_a_blackjack() -> None:
    # 3.21.1: A♦ A♣ split, each gets one card (3.23.1): A K = 21 but only pays 1 to 1.
    doc = table("lucky8", wager("a", 1, 10), NMB, *cards("AD", "9S", "AC"), decide("split", 1),
                *cards("KH", "5D", "9D"))
    out = settle(doc)
    hands = out["areas"][0]["hands"]
    assert [h["cards"] for h in hands] == [["AD", "KH"], ["AC", "5D"]]
    assert out["dealer"]["cards"] == ["9S", "9D"]  # 18
    e1, e2 = one(out, "a", "main", 1), one(out, "a", "main", 2)
    assert (e1["result"], e1["net"], e1["rule"]) == ("win", 10, "4.3.2")   # 21 v 18, even money
    assert (e2["result"], e2["net"]) == ("lose", -10)                       # 16 v 18


def test_split_aces_take_no_more_cards_and_split_once() -> None:
    doc = table("ace_race", wager("a", 1, 10), NMB, *cards("AD", "9S", "AC"), decide("split", 1),
                *cards("AH"), decide("split", 1, 1))
    # The split-ace hand 1 is complete after its one card (3.23.1) and aces split once
    # (3.22.1): splitting A A again on hand 1 is refused citing both.
    msg = refusal(doc)
    assert "split aces may not be split again" in msg and "(3.22.1/3.23.1)" in msg


def test_four_hands_at_most() -> None:
    # 8 8 split three times: hands 8,8 | 8 | 8 | 8. A fourth split is refused (3.22).
    doc = table("lucky8", wager("a", 1, 10), NMB, *cards("8H", "5D", "8C"), decide("split", 1),
                *cards("8D"), decide("split", 1, 1), *cards("8S"), decide("split", 1, 1),
                *cards("8H"), decide("split", 1, 1))
    msg = refusal(doc)
    assert "no more than 4 hands" in msg and "(3.22)" in msg


def test_dueling8s_splits_only_eights() -> None:
    doc = table("dueling8s", wager("a", 1, 10), NMB, *cards("9H"), decide("split", 1))
    assert "(3.21)" in refusal(doc)


def test_ace_race_wager_on_split_aces_pays_10_to_1_on_a_second_ace() -> None:
    # 3.21.1: Ace Race wager of 5 on split hand 1 before any card; A♠ drawn → Pair of Aces after Split.
    doc = table("ace_race", wager("a", 1, 10), NMB, *cards("AD", "9S", "AC"), decide("split", 1),
                wager("a", 1, 5, bet="ace_race", hand=1), *cards("AS", "7D", "9D"))
    out = settle(doc)
    e = one(out, "a", "ace_race", 1)
    assert (e["result"], e["net"], e["rule"]) == ("win", 50, "4.2")
    # hands: A A = 12 and A 7 = 18 against 9 9 = 18.
    assert one(out, "a", "main", 1)["net"] == -10
    assert one(out, "a", "main", 2)["result"] == "push"


# ---------------------------------------------------------------- surrender
def test_surrender_gives_up_half_at_the_interim_settlement() -> None:
    doc = table("lucky8", wager("a", 1, 25), NMB, *cards("10H", "9D", "6C"), decide("surrender", 1))
    out = settle(doc)
    e = one(out, "a", "main")
    assert (e["result"], e["net"], e["rule"], e["stage"]) == ("surrender", -12.5, "3.25", "interim")


@pytest.mark.parametrize("game", ["ace_race", "lucky8", "star_elements"])
def test_no_surrender_against_a_dealer_ace(game: str) -> None:
    s = "Fi" if game == "star_elements" else "H"
    doc = table(game, wager("a", 1, 25), NMB, *cards(f"10{s}", f"A{s}", f"6{s}"), decide("surrender", 1))
    assert "(3.25)" in refusal(doc)


def test_dueling8s_surrenders_against_any_card() -> None:
    # 3.20: 8♠ + 6 = 14 surrendered for half of 30 — the dealer has no card yet.
    doc = table("dueling8s", wager("a", 1, 30), NMB, *cards("6H"), decide("surrender", 1))
    out = settle(doc)
    e = one(out, "a", "main")
    assert (e["net"], e["rule"]) == (-15, "3.20")


# ---------------------------------------------------------------- the dealer (3.34, 3.35)
def test_ace_race_dealer_hits_soft_17() -> None:
    # Dealer 6♦ then A♣ = soft 17: hits (3.34), 2♥ → soft 19. Player 10 9 = 19: push.
    doc = table("ace_race", wager("a", 1, 10), NMB, *cards("10H", "6D", "9C"), decide("stand", 1),
                *cards("AC", "2H"))
    out = settle(doc)
    assert out["dealer"] == {"cards": ["6D", "AC", "2H"], "total": 19}
    assert one(out, "a", "main")["result"] == "push"


@pytest.mark.parametrize(("game", "s", "rule"), [("lucky8", "D", "4.3.2"), ("star_elements", "Ea", "4.4.2")])
def test_other_games_stand_on_soft_17(game: str, s: str, rule: str) -> None:
    doc = table(game, wager("a", 1, 10), NMB, *cards(f"10{s}", f"6{s}", f"8{s}"), decide("stand", 1),
                *cards(f"A{s}"))
    out = settle(doc)
    assert out["dealer"]["total"] == 17 and len(out["dealer"]["cards"]) == 2
    e = one(out, "a", "main")
    assert (e["result"], e["rule"]) == ("win", rule)  # 18 v 17


def test_dealer_draws_nothing_when_every_hand_busted() -> None:
    # 3.35: alice 10 6 hits K and busts: lost at once (3.32); the dealer draws nothing.
    doc = table("lucky8", wager("a", 1, 10), NMB, *cards("10H", "5D", "6C"), decide("hit", 1), *cards("KD"))
    out = settle(doc)
    assert out["status"] == "settled"
    assert out["dealer"]["cards"] == ["5D"]
    e = one(out, "a", "main")
    assert (e["result"], e["net"], e["rule"]) == ("lose", -10, "4.4.2")


def test_dueling8s_dealer_draws_for_21plus_when_every_player_busted() -> None:
    # 3.33.1: alice busts (8♠ 7 + 9 = 24 after a hit) but holds a 21+ wager of 5.
    # Dealer 8♠ 6 2 = 16 draws (3.33), 9 → 25: busts with 4 cards, 3 to 1 (4.3) → +15.
    doc = table("dueling8s", wager("a", 1, 10), wager("a", 1, 5, bet="plus21"), NMB, *cards("7H"),
                decide("hit", 1), *cards("9C", "6D", "2S", "9H"))
    out = settle(doc)
    assert out["dealer"]["cards"] == ["8S", "6D", "2S", "9H"]
    e = one(out, "a", "plus21")
    assert (e["result"], e["net"], e["rule"]) == ("win", 15, "4.3")
    assert one(out, "a", "main")["net"] == -10


# ---------------------------------------------------------------- dealer blackjack v doubled and split hands
def _split_and_double(game: str) -> dict[str, object]:
    s = {"star_elements": ("Fi", "Go", "Ea", "Wo", "Wa", "Fi", "Go", "Ea")}.get(
        game, ("H", "S", "D", "C", "S", "H", "C", "D"))
    # 8 8 v dealer Ace; split; hand 1: 8 3 = 11 doubled, 9 → 20; hand 2: 8 2 = 10 doubled, 5 → 15;
    # the dealer's K makes a blackjack.
    return table(game, wager("a", 1, 10), NMB, *cards(f"8{s[0]}", f"A{s[1]}", f"8{s[2]}"),
                 decide("split", 1), *cards(f"3{s[3]}"), decide("double", 1, 1), *cards(f"9{s[4]}"),
                 *cards(f"2{s[5]}"), decide("double", 1, 2), *cards(f"5{s[6]}"), *cards(f"K{s[7]}"))


def test_ace_race_dealer_blackjack_takes_everything_on_split_and_doubled_hands() -> None:
    out = settle(_split_and_double("ace_race"))
    assert [(e["net"], e["rule"]) for e in entries(out, "a", "main")] == [(-20, "3.24.3"), (-20, "3.24.3")]
    assert out["net"]["a"] == -40


def test_star_elements_dealer_blackjack_takes_everything() -> None:
    out = settle(_split_and_double("star_elements"))
    assert out["net"]["a"] == -40
    assert {e["rule"] for e in entries(out, "a", "main")} == {"4.5.3"}


def test_lucky8_dealer_blackjack_takes_one_original_wager() -> None:
    # 3.24.3 / 4.5: the split and doubled hands lose only the original 10 in total.
    out = settle(_split_and_double("lucky8"))
    e1, e2 = one(out, "a", "main", 1), one(out, "a", "main", 2)
    assert (e1["result"], e1["net"], e1["rule"]) == ("lose", -10, "4.5.2")
    assert (e2["result"], e2["net"]) == ("returned", 0)
    assert out["net"]["a"] == -10


def test_lucky8_original_only_when_doubled_without_split() -> None:
    # 9 2 = 11 doubled (20 in all), 5 → 16; dealer A then K: blackjack. 4.5.1: lose 10.
    doc = table("lucky8", wager("a", 1, 10), NMB, *cards("9H", "AS", "2D"), decide("double", 1),
                *cards("5C", "KD"))
    out = settle(doc)
    e = one(out, "a", "main")
    assert (e["stake"], e["net"], e["rule"]) == (20, -10, "4.5.1")


# ---------------------------------------------------------------- Dueling 8's bets
def test_dueling8s_tie_on_18_pays_8_to_1() -> None:
    # 8♠ 10-less: alice 8♠ + K = 18 stands; dealer 8♠ + Q = 18. Tie on 18: 5 × 8 = 40; main push.
    doc = table("dueling8s", wager("a", 3, 20), wager("a", 3, 5, bet="tie18"), NMB, *cards("KH"),
                decide("stand", 3), *cards("QD"))
    out = settle(doc)
    e = one(out, "a", "tie18")
    assert (e["result"], e["net"], e["rule"]) == ("win", 40, "4.1")
    assert one(out, "a", "main")["result"] == "push"


def test_dueling8s_678_bonus_all_spades_pays_5_to_1_on_the_original_wager() -> None:
    # 8♠ 6♠ 7♠ = 21 (hit once). Bonus 5 to 1 on 10 = 50 whatever the dealer does; main 21 v 8 9 = 17 wins.
    doc = table("dueling8s", wager("a", 1, 10), NMB, *cards("6S"), decide("hit", 1), *cards("7S", "9D"))
    out = settle(doc)
    bonus = one(out, "a", "bonus678")
    assert (bonus["result"], bonus["net"], bonus["rule"]) == ("win", 50, "4.1.1")
    assert one(out, "a", "main")["net"] == 10


def test_dueling8s_has_no_blackjack() -> None:
    # 8♠ + A = soft 19 is just 19 (no "Blackjack" row in 4.1). Dealer 8 K = 18.
    doc = table("dueling8s", wager("a", 1, 10), NMB, *cards("AH"), decide("stand", 1), *cards("KD"))
    out = settle(doc)
    e = one(out, "a", "main")
    assert (e["result"], e["net"], e["rule"]) == ("win", 10, "4.4.1")


def test_dueling8s_superb8_three_eights_across_a_split() -> None:
    # 8♠(permanent) 8♣ then split; hand 1 gets 8♦: three consecutive 8s (4.2.2) → 8 to 1 on 5 = 40.
    doc = table("dueling8s", wager("a", 1, 10), wager("a", 1, 5, bet="superb8"), NMB, *cards("8C"),
                decide("split", 1), *cards("8D"), decide("stand", 1, 1), *cards("2H"),
                decide("stand", 1, 2), *cards("9C"))
    out = settle(doc)
    e = one(out, "a", "superb8")
    assert (e["result"], e["net"], e["row"]) == ("win", 40, "Three 8's")


# ---------------------------------------------------------------- side bets through the engine
def test_star_elements_three_stars_same_element_500_to_1_at_interim() -> None:
    doc = table("star_elements", wager("a", 2, 10), wager("a", 2, 1, bet="three_stars"), NMB,
                *cards("JWo", "KWo", "QWo"), decide("stand", 2), *cards("9Wa"))
    out = settle(doc)
    e = one(out, "a", "three_stars")
    assert (e["result"], e["net"], e["stage"], e["rule"]) == ("win", 500, "interim", "4.3")
    # Fu + Lu = 20 stands; the dealer's Shou + 9 = 19: the main wager wins 10.
    assert one(out, "a", "main")["net"] == 10


def test_pair_loss_cites_3_15_1() -> None:
    doc = table("ace_race", wager("a", 1, 10), wager("a", 1, 5, bet="pair"), NMB,
                *cards("9H", "5D", "8C"), decide("stand", 1), *cards("KD", "7C"))
    out = settle(doc)
    e = one(out, "a", "pair")
    assert (e["result"], e["net"], e["rule"], e["stage"]) == ("lose", -5, "3.15.1", "interim")


# ---------------------------------------------------------------- limits (5.26, 5.27)
def test_over_maximum_settles_as_the_maximum_and_returns_the_excess() -> None:
    # 5.27: 150 on a 100 maximum; 10 9 = 19 v 7 10 = 17: win 100, 50 returned.
    doc = table("lucky8", wager("a", 1, 150), NMB, *cards("10H", "7D", "9C"), decide("stand", 1),
                *cards("10D"), limits={"main": [10, 100]})
    out = settle(doc)
    got = sorted((e["result"], e["stake"], e["net"], e["rule"]) for e in entries(out, "a", "main"))
    assert got == [("returned", 50, 0, "5.27"), ("win", 100, 100, "4.3.2")]
    assert out["net"]["a"] == 100


def test_under_minimum_paid_once_then_returned() -> None:
    # 5.26: bob's 5 under a 10 minimum settles normally the first time; carol already had hers.
    doc = table("lucky8", wager("bob", 1, 5), wager("carol", 2, 5), NMB,
                *cards("10H", "10S", "7D", "9C", "9S"), decide("stand", 1), decide("stand", 2),
                *cards("10D"), limits={"main": [10, 100]}, under_min_history=["carol"])
    out = settle(doc)
    assert (one(out, "bob", "main")["result"], out["net"]["bob"]) == ("win", 5)   # 19 v 17
    c = one(out, "carol", "main")
    assert (c["result"], c["net"], c["rule"]) == ("returned", 0, "5.26")


def test_second_under_minimum_wager_in_the_same_round_is_returned() -> None:
    doc = table("lucky8", wager("bob", 1, 5), wager("bob", 2, 5), NMB,
                *cards("10H", "10S", "7D", "9C", "9S"), decide("stand", 1), decide("stand", 2),
                *cards("10D"), limits={"main": [10, 100]})
    out = settle(doc)
    assert [e["result"] for e in entries(out, "bob", "main")] == ["win", "returned"]


# ---------------------------------------------------------------- refusals
def test_wager_after_no_more_bets_is_refused_with_5_3() -> None:
    doc = table("lucky8", wager("a", 1, 10), NMB, wager("b", 2, 10))
    assert refusal(doc) == (
        'event 2 (wager main, area 2, player b): no wager may be placed or increased after "no more bets" (5.3)'
    )


def test_a_fourth_main_wager_on_an_area_is_refused() -> None:
    doc = table("ace_race", *(wager(p, 3, 10) for p in ("a", "b", "c", "d")))
    assert "(3.10)" in refusal(doc)


def test_pit_manager_restricts_wagers_per_area() -> None:
    doc = table("ace_race", wager("a", 3, 10), wager("b", 3, 10), max_wagers_per_area=1)
    assert "(3.10.1)" in refusal(doc)


@pytest.mark.parametrize(("game", "kind", "clause"), [
    ("ace_race", "pair", "3.15.3"), ("lucky8", "lucky8", "3.15.3"),
    ("star_elements", "super_sevens", "3.15.4"), ("dueling8s", "tie18", "3.16.4"),
])
def test_side_bet_needs_a_main_wager_on_the_area(game: str, kind: str, clause: str) -> None:
    doc = table(game, wager("a", 1, 10), wager("b", 2, 5, bet=kind))
    assert f"({clause})" in refusal(doc)


def test_three_side_bets_of_a_kind_per_area() -> None:
    doc = table("lucky8", wager("a", 1, 10), *(wager(p, 1, 5, bet="pair") for p in ("a", "b", "c", "d")))
    assert "(3.17.1)" in refusal(doc)


def test_seated_player_calls_the_decisions_regardless_of_position() -> None:
    # 3.11: bob's wager is in front, alice sits at area 2: bob may not hit.
    doc = table("lucky8", wager("bob", 2, 10), wager("alice", 2, 10), NMB, *cards("5H", "9D", "6C"),
                decide("hit", 2, player="bob"), seated={"alice": 2})
    msg = refusal(doc)
    assert "bob does not control area 2" in msg and "(3.11)" in msg


def test_front_wager_controls_an_area_nobody_sits_at() -> None:
    doc = table("lucky8", wager("bob", 2, 10), wager("carol", 2, 10), NMB, *cards("5H", "9D", "6C"),
                decide("hit", 2, player="carol"))
    assert "(3.12)" in refusal(doc)
    ok = settle(table("lucky8", wager("bob", 2, 10), wager("carol", 2, 10), NMB, *cards("5H", "9D", "6C")))
    assert ok["next"]["player"] == "bob" and ok["areas"][0]["controller"] == "bob"


def test_hit_out_of_turn_is_refused() -> None:
    doc = table("lucky8", wager("a", 1, 10), wager("b", 2, 10), NMB, *cards("5H", "6H", "9D", "6C", "7C"),
                decide("hit", 2))
    assert "not the turn of area 2" in refusal(doc)


def test_a_refused_event_leaves_the_round_unchanged() -> None:
    from dealer_assist.base.errors import RuleRefusal
    from dealer_assist.engine.transcript import new_round, parse_event, round_output

    doc = table("ace_race", wager("a", 1, 10), NMB, *cards("5H", "7D", "4C"))
    rnd = new_round(doc)
    for raw in doc["events"]:
        rnd.apply(parse_event(raw))
    before = round_output(rnd)
    with pytest.raises(RuleRefusal) as info:
        rnd.apply(parse_event(decide("double", 1)))
    assert info.value.clause == "3.26.1"
    assert round_output(rnd) == before
    assert len(rnd.events) == len(doc["events"])


# ---------------------------------------------------------------- what comes next
def test_next_names_the_card_and_the_decision_with_legal_options_and_offers() -> None:
    doc = table("lucky8", wager("a", 1, 10), wager("b", 3, 10), NMB, *cards("9H", "8C", "7D"))
    out = settle(doc)
    assert out["status"] == "in_progress"
    assert out["next"] == {"expect": "card", "for": "area:1/1"}
    out = settle(table("lucky8", wager("a", 1, 10), wager("b", 3, 10), NMB,
                       *cards("9H", "8C", "7D", "2C", "8D")))
    assert out["next"]["expect"] == "decision"
    assert (out["next"]["area"], out["next"]["hand"], out["next"]["player"]) == (1, 1, "a")
    assert out["next"]["options"] == ["hit", "stand", "double", "surrender"]  # 9 2 v 7: no pair
    assert out["next"]["offers"] == [
        {"player": "a", "area": 1, "options": ["surrender"]},
        {"player": "b", "area": 3, "options": ["surrender"]},
    ]


def test_next_before_the_deal_is_wagers() -> None:
    assert settle(table("ace_race", wager("a", 1, 10)))["next"] == {"expect": "wagers"}


def test_amounts_in_decimal_cents() -> None:
    out = settle(table("lucky8", wager("a", 1, 0.05), NMB, *cards("AS", "9D", "KH")))
    assert Decimal(str(one(out, "a", "main")["net"])) == Decimal("0.07")  # 0.075 rounds down
    assert net(out, "a") == Decimal("0.07")


def test_dealer_stops_after_the_second_card_when_only_a_blackjack_waits() -> None:
    # 3.35: alice A K against a dealer 10 (a dealer blackjack is possible); bob busts.
    # The dealer's 6 (16) decides the blackjack (paid 3 to 2 = 15); drawing on cannot change anything.
    doc = table("lucky8", wager("alice", 1, 10), wager("bob", 2, 10), NMB,
                *cards("AS", "10H", "10D", "KH", "6C"), decide("hit", 2), *cards("9S", "6D"))
    out = settle(doc)
    assert out["status"] == "settled"
    assert out["dealer"]["cards"] == ["10D", "6D"]
    assert one(out, "alice", "main")["net"] == 15
    assert one(out, "bob", "main")["net"] == -10


@pytest.mark.parametrize(("game", "first"), [("ace_race", "5H"), ("dueling8s", "5H"), ("electronic", "5H")])
def test_a_card_found_face_up_in_the_shoe_is_played_as_normal(game: str, first: str) -> None:
    # 5.5 (every game numbers it 5.5): the card plays where it would have gone; the ruling records it.
    if game == "electronic":
        doc = table(game, {"type": "wager", "player": "t1", "bet": "main", "amount": 10}, NMB,
                    {"type": "card", "card": first, "face_up": True})
        where = settle(doc)["player_cards"]
    else:
        doc = table(game, wager("a", 1, 10), NMB, {"type": "card", "card": first, "face_up": True})
        where = settle(doc)["areas"][0]["hands"][0]["cards"]
    out = settle(doc)
    assert first in where
    assert [(r["rule"], r["ruling"]) for r in out["rulings"]] == [("5.5", "played")]
    assert out["status"] == "in_progress"


def test_the_engines_settlement_maker_gives_the_same_value_as_the_named_tuple() -> None:
    from dealer_assist.engine.outcome import Settlement, settlement

    made = settlement("ann", "main", Decimal(10), "win", Decimal(15), "4.3.1", "interim", 2, 1, "blackjack")
    assert type(made) is Settlement
    assert made == Settlement("ann", "main", Decimal(10), "win", Decimal(15), "4.3.1", "interim", 2, 1, "blackjack")
    assert (made.player, made.net, made.rule, made.area, made.row) == ("ann", Decimal(15), "4.3.1", 2, "blackjack")
    assert settlement("bob", "pair", Decimal(5), "lose", Decimal(-5), "4.1", "final").hand is None
