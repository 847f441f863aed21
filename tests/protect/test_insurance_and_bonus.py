"""Insurance given the dealer's Ace up and Dueling 8's 6-7-8 bonus in the shoe's figures (issue
36, Build 4: op ``shoe_count``'s ``side_bets``, the floor's "shoe favours the players";
protect/removal.py ``side_bet_edges``).

Insurance (Ace Race, Lucky 8, Star Elements 3.27; Electronic 3.11; 4.1 of each: 2 to 1) wins
when the dealer's second card is a ten-value card, the first an Ace. Given that Ace is one of
the cards left, the second card is any of the others alike: EV = tens / (left - 1) x 3 - 1.

The 6-7-8 bonus (Dueling 8's 1.1.2, 4.1, 4.1.1: 1 to 1, 5 to 1 when the 8, 6 and 7 are all
spades) is paid on the main wager when the two cards drawn to the permanent 8♠ are a 6 and a 7,
whatever the outcome: its added return per unit of main wager = P(6 then 7 or 7 then 6, the
strategy drawing to 8-6 and 8-7) x 1 + P(6♠ and 7♠) x (5 - 1). Dueling 8's deck (2.1) is 48
cards, no 10s: 6 decks hold 288 cards, 24 sixes and 24 sevens, 6 of each in spades."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from dealer_assist.base.cards import Card, parse_card
from dealer_assist.games import GAMES
from dealer_assist.odds.sheet import main_wager_result, par_sheet
from dealer_assist.protect.counts import count_for
from dealer_assist.protect.live import shoe_conditions
from dealer_assist.protect.removal import INSURANCE_ACE_UP, full_shoe, side_bet_edges
from dealer_assist.protect.report import round_row
from dealer_assist.service.shoe_count import shoe_figures


def cards(text: str) -> list[Card]:
    return [parse_card(c) for c in text.split()]


def every(game: str, ranks: str, decks: int = 6) -> list[Card]:
    """Every card of these ranks in a ``decks``-deck shoe of ``game``."""
    wanted = set(ranks.split())
    return [c for c, k in full_shoe(game, decks).items() if c.rank in wanted for _ in range(k)]


def fraction(out: dict[str, Any], bet: str) -> Fraction:
    figure = out["side_bets"][bet]
    assert figure["fraction"] is not None, figure["method"]
    assert figure["edge"] == pytest.approx(float(Fraction(figure["fraction"])))
    return Fraction(figure["fraction"])


def test_insurance_given_an_ace_up_from_the_cards_actually_left() -> None:
    # Ace Race, 6 decks of 52 (2.1): 312 cards, 96 tens (10 J Q K), 24 Aces. Seen: 10S KH QD
    # (3 tens), AC, 5D, 9S: 306 left, 93 tens, 23 Aces. The dealer's Ace is one of the 306; the
    # second card one of the other 305, 93 of them tens: 93/305 x (2 + 1) - 1 = -26/305.
    seen = cards("10S KH 5D AC 9S QD")
    out = shoe_figures("ace_race", 6, "S-1", seen, len(seen))
    assert fraction(out, INSURANCE_ACE_UP) == Fraction(93, 305) * 3 - 1 == Fraction(-26, 305)
    row = out["side_bets"][INSURANCE_ACE_UP]
    assert row["name"] == "Insurance, if the dealer's first card is an Ace" and row["on_main"] is False
    assert "given the dealer's first card is an Ace (3.27, 4.1: 2 to 1)" in row["method"]
    assert "93 ten-value cards among the 305" in row["method"]
    # a full shoe: 96/311 x 3 - 1 = -23/311 (-7.4 %), as the par sheet's insurance (4.1)
    full = shoe_figures("ace_race", 6, "S-1", [], 0)
    assert fraction(full, INSURANCE_ACE_UP) == Fraction(-23, 311)
    sheet = par_sheet("ace_race", 6, with_chart=False).bets["insurance"].expected_value_exact
    assert sheet == Fraction(-23, 311)


def test_insurance_in_star_elements_counts_fu_lu_shou_and_10_of_five_elements() -> None:
    # Star Elements 2.1: 65 cards a deck, 13 ranks in 5 elements; 4 decks: 260 cards, 80
    # ten-value (10 and Fu/Lu/Shou, 3.27). Seen: all 20 fives and 20 sixes: 220 left, all 80
    # tens: 80/219 x 3 - 1 = 21/219 = 7/73 in the player's favour.
    seen = every("star_elements", "5 6", decks=4)
    assert len(seen) == 40
    out = shoe_figures("star_elements", 4, "S-1", seen, len(seen))
    assert fraction(out, INSURANCE_ACE_UP) == Fraction(80, 219) * 3 - 1 == Fraction(7, 73)


def test_no_insurance_row_without_insurance_and_none_when_no_ace_is_left() -> None:
    assert not GAMES["dueling8s"].insurance  # Dueling 8's rules have no insurance clause
    assert INSURANCE_ACE_UP not in {e.bet for e in side_bet_edges("dueling8s", 6, [])}
    # Lucky 8 with all 24 Aces out: the condition cannot happen: no figure, said why
    out = shoe_figures("lucky8", 6, "S-1", every("lucky8", "A"), 24)
    row = out["side_bets"][INSURANCE_ACE_UP]
    assert row["edge"] is None and row["fraction"] is None
    assert "no Ace among the 288 cards left" in row["method"]


def test_the_678_bonus_of_a_full_shoe_is_the_par_sheets() -> None:
    main, _ = main_wager_result("dueling8s", 6)
    # the par sheet's strategy draws to the permanent 8 with a 6 (14) and with a 7 (15)
    assert main.first_card_action[6] in ("hit", "double") and main.first_card_action[7] in ("hit", "double")
    # 288 x 287 ordered first two cards; 6 then 7 or 7 then 6: 2 x 24 x 24 = 1152, of which
    # 6♠-7♠ either way 2 x 6 x 6 = 72 pay 5 to 1, the other 1080 pay 1 to 1; no stake is lost:
    # (1080 + 5 x 72) / (288 x 287) = 1440 / 82656 = 5/287 (+1.74 % of the main wager).
    hand = Fraction(1080 + 5 * 72, 288 * 287)
    assert hand == Fraction(5, 287)
    out = shoe_figures("dueling8s", 6, "S-1", [], 0)
    assert fraction(out, "bonus678") == hand
    assert par_sheet("dueling8s", 6, with_chart=False).bets["bonus678"].expected_value_exact == hand
    row = out["side_bets"]["bonus678"]
    assert row["on_main"] is True and row["name"] == "6-7-8 bonus, paid on the main wager"
    assert "per unit of main wager" in row["method"] and "8-6: hit, 8-7: hit" in row["method"]


@pytest.mark.parametrize("rank", ["6", "7"])
def test_the_678_bonus_is_0_with_the_sixes_or_the_sevens_out(rank: str) -> None:
    seen = every("dueling8s", rank)
    assert len(seen) == 24
    out = shoe_figures("dueling8s", 6, "S-1", seen, 24)
    assert fraction(out, "bonus678") == 0  # 1.1.2 needs a 6 and a 7: one of them is gone


def test_the_678_bonus_with_the_other_spades_out_pays_1_to_1_only() -> None:
    # the six 6♠ out: no all-spades 6-7-8 (4.1); 282 left, 18 sixes and 24 sevens:
    # 2 x 18 x 24 ordered pairs pay 1 to 1 of 282 x 281.
    seen = [c for c in every("dueling8s", "6") if c.suit == "S"]
    assert len(seen) == 6
    out = shoe_figures("dueling8s", 6, "S-1", seen, 6)
    assert fraction(out, "bonus678") == Fraction(2 * 18 * 24, 282 * 281)


def _row(game: str, dealt: int, text: str) -> Any:
    return round_row(1, "T1", "2026-11-29T10:01:00+00:00", {"game": game, "decks": 6, "shoe": {"id": "H-9",
                     "dealt": dealt}}, [{"type": "card", "card": c} for c in text.split()])


def test_the_floor_raises_a_hot_shoe_for_insurance_and_names_its_condition() -> None:
    # Lucky 8, 6 decks: all 24 eights and 24 nines out (48 cards): 264 left, 96 tens, 24 Aces.
    # Insurance given an Ace up: 96/263 x 3 - 1 = 25/263 = +9.51 %. Pair (4.1, 11 to 1): 11 ranks
    # of 24 left: 11 x 24 x 23 pairs of 264 x 263: x 12 - 1 = +4.94 %, under the +6 % level.
    seen = every("lucky8", "8 9")
    assert Fraction(11 * 24 * 23 * 12, 264 * 263) - 1 < Fraction(6, 100)
    count = count_for("lucky8", 6)
    assert count is not None and count.edge(seen, 48) < 0.06  # 8s and 9s out hurt the main wager
    (hot,) = shoe_conditions([_row("lucky8", 0, " ".join(str(c) for c in seen))], 0.06)
    assert hot.subject == "H-9"
    assert hot.detail.endswith(
        f": insurance if the dealer's first card is an Ace {float(Fraction(25, 263)) * 100:+.2f} % (level +6.00 %)")


def test_the_floor_holds_the_main_wager_not_the_678_bonus_against_the_level() -> None:
    # Dueling 8's, one 2♣ seen: the bonus alone is (2 x 24 x 24 - 72 + 5 x 72) / (287 x 286)
    # = 1440/82082 = +1.75 %, over a +1 % level; it is inside the main wager's figure (4.1.1), so
    # it raises nothing by itself (the main wager's estimate and the side bets are under 1 %).
    bonus = Fraction(2 * 24 * 24 - 72 + 5 * 72, 287 * 286)
    assert bonus > Fraction(1, 100)
    count = count_for("dueling8s", 6)
    assert count is not None and count.edge(cards("2C"), 1) < 0.01
    assert shoe_conditions([_row("dueling8s", 0, "2C")], 0.01) == []
    # at any level the condition names it beside the main wager's figure, not as a wager of its own
    (hot,) = shoe_conditions([_row("dueling8s", 0, "2C")], -1.0)
    assert (f"main wager {count.edge(cards('2C'), 1) * 100:+.2f} % (6-7-8 bonus paid on the main wager "
            f"{float(bonus) * 100:+.2f} %, inside that figure)") in hot.detail
    assert hot.detail.count("6-7-8") == 1
