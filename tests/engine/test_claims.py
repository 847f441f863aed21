"""Priority claims (issue 3): free side-bet slots (3.16, 3.17.1, 3.17.2.1-5; 3.17, 3.18.1,
3.18.2.1-5 in Dueling 8's) and the insurance another player declined (3.27.3, 3.27.4.1-5;
Dueling 8's has no insurance).

Areas are numbered from the dealer's left; the distance between two areas is the difference
of their numbers; main wagers on one area take positions front (nearest the dealer) to back
in the order placed. Each test says who should win a contested slot and why.
"""

from __future__ import annotations

from typing import Any

import pytest

from dealer_assist.base.errors import RuleRefusal, TranscriptError
from dealer_assist.engine.transcript import parse_event, round_output, run_document
from tests.engine.helpers import CLOSE, NMB, cards, decide, one, settle, table, wager
from tests.engine.test_multiplayer import D8, TABLE_GAMES, card, dealer_to, initial, refused

INSURANCE_GAMES = ("ace_race", "star_elements", "lucky8")

# Each game's side bet used here and its own clause numbers.
SIDE = {"ace_race": "pair", "star_elements": "pair", "lucky8": "pair", D8: "superb8"}
SC: dict[str, dict[str, str]] = {
    g: {"first": "3.16", "slots": "3.17.1", "1": "3.17.2.1", "2": "3.17.2.2", "3": "3.17.2.3",
        "4": "3.17.2.4", "5": "3.17.2.5", "needs_main": "3.15.3", "closed": "5.3"}
    for g in ("ace_race", "lucky8", "star_elements")
}
SC["star_elements"]["needs_main"] = "3.15.4"
SC[D8] = {"first": "3.17", "slots": "3.18.1", "1": "3.18.2.1", "2": "3.18.2.2", "3": "3.18.2.3",
          "4": "3.18.2.4", "5": "3.18.2.5", "needs_main": "3.16.4", "closed": "5.3"}


def claim(bet: str, area: int, *claimants: tuple[str, float], declined_by: str | None = None) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "claim", "bet": bet, "area": area,
                          "claimants": [{"player": p, "amount": a} for p, a in claimants]}
    if declined_by is not None:
        ev["declined_by"] = declined_by
    return ev


def decided(out: dict[str, Any]) -> tuple[list[str], list[str], str]:
    c = out["claims"][-1]
    return c["granted"], c["refused"], c["rule"]


# ---------------------------------------------------------------- side-bet slots
def area4(game: str, taken: int) -> list[dict[str, Any]]:
    """bob (front), alice (seated, controls), carol on area 4; dan on 3, erin on 5; ``taken``
    of area 4's three side-bet slots already held by dan and erin."""
    side = SIDE[game]
    evs = [wager("bob", 4, 10), wager("alice", 4, 20), wager("carol", 4, 10),
           wager("dan", 3, 10), wager("erin", 5, 10)]
    return evs + [wager(p, 4, 5, side) for p in ("dan", "erin")[:taken]]


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_16_the_controller_of_the_area_has_first_priority(game: str) -> None:
    out = settle(table(game, *area4(game, 2), claim(SIDE[game], 4, ("carol", 5), ("bob", 5), ("alice", 5)),
                       seated={"alice": 4}))
    # One slot left (3 - dan - erin). alice has a wager on area 4 and controls it (3.16).
    assert decided(out) == (["alice"], ["carol", "bob"], SC[game]["first"])


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_17_2_1_non_controllers_on_the_area_nearest_the_dealer_first(game: str) -> None:
    out = settle(table(game, *area4(game, 2), claim(SIDE[game], 4, ("carol", 5), ("zed", 5), ("bob", 5)),
                       seated={"alice": 4}))
    # bob's wager is in front of carol's; zed has no wager in the round.
    assert decided(out) == (["bob"], ["carol", "zed"], SC[game]["1"])


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_17_2_2_then_the_nearest_area(game: str) -> None:
    side = SIDE[game]
    out = settle(table(game, wager("alice", 4, 10), wager("frank", 1, 10), wager("gina", 6, 10),
                       wager("hank", 7, 10), wager("alice", 4, 5, side), wager("hank", 4, 5, side),
                       claim(side, 4, ("frank", 5), ("gina", 5))))
    # One slot free (alice and hank hold two). frank is 4 - 1 = 3 areas away, gina 6 - 4 = 2.
    assert decided(out) == (["gina"], ["frank"], SC[game]["2"])


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_17_2_3_equal_distance_goes_to_the_lowest_side_bet_total(game: str) -> None:
    side = SIDE[game]
    out = settle(table(
        game, wager("alice", 4, 10), wager("gina", 3, 10), wager("hank", 5, 10),
        wager("gina", 3, 10, side), wager("hank", 5, 5, side),  # gina's side bets 10, hank's 5
        wager("alice", 4, 5, side), wager("ivan", 4, 5, side),
        claim(side, 4, ("gina", 5), ("hank", 5)),
    ))
    # One slot free. Areas 3 and 5 are both 1 from area 4; hank's total 5 < gina's 10.
    assert decided(out) == (["hank"], ["gina"], SC[game]["3"])


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_17_2_4_equivalent_claims_for_the_last_slot_leave_it_empty(game: str) -> None:
    side = SIDE[game]
    head = [wager("alice", 4, 10), wager("gina", 3, 10), wager("hank", 5, 10), wager("frank", 1, 10),
            wager("alice", 4, 5, side)]
    # One slot left after ivan's: gina and hank, 1 area away each with no side bets, are
    # equivalent; nobody gets it, not even zed, who has no wager (3.17.2.5 players too).
    out = settle(table(game, *head, wager("ivan", 4, 5, side),
                       claim(side, 4, ("zed", 5), ("gina", 5), ("hank", 5))))
    assert decided(out) == ([], ["zed", "gina", "hank"], SC[game]["4"])
    assert [s["player"] for s in out["settlements"]] == []  # nothing placed, nothing settled yet
    # Two slots left: gina and hank both fit; frank (3 areas away) comes after them and
    # finds none left: decided by distance.
    out = settle(table(game, *head, claim(side, 4, ("frank", 5), ("gina", 5), ("hank", 5))))
    assert decided(out) == (["gina", "hank"], ["frank"], SC[game]["2"])


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_17_2_5_players_without_a_wager_come_last_first_placed(game: str) -> None:
    side = SIDE[game]
    head = [wager("alice", 4, 10), wager("frank", 1, 10), wager("alice", 4, 5, side),
            wager("frank", 4, 5, side)]
    out = settle(table(game, *head, claim(side, 4, ("zed", 5), ("yan", 5))))
    assert decided(out) == (["zed"], ["yan"], SC[game]["5"])
    # A player with a wager in the round (gina, 2 away) comes before them.
    out = settle(table(game, *head, wager("gina", 6, 10), claim(side, 4, ("zed", 5), ("gina", 5))))
    assert decided(out) == (["gina"], ["zed"], SC[game]["2"])


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_17_1_three_slots_per_area_and_the_granted_wagers_settle(game: str) -> None:
    side = SIDE[game]
    c = SC[game]
    head = [wager("alice", 2, 10), wager("alice", 2, 5, side)]
    out_doc = table(game, *head, claim(side, 2, ("bob", 5), ("carol", 5)), NMB,
                    *initial(game, ("8", "8")), CLOSE, decide("stand", 2), *dealer_to(game, 18))
    out = settle(out_doc)
    # Two free slots, two claimants: both placed (3.17.1). 8 8 = 16 loses 10 to 18. The side
    # bet: Pair 11 to 1 on 5 = 55 (4.1); Dueling 8's Superb 8's, 8♠ 8♥: Two 8's 3 to 1 = 15.
    pays = 15 if game == D8 else 55
    assert decided(out) == (["bob", "carol"], [], c["slots"])
    assert out["net"] == {"alice": pays - 10, "bob": pays, "carol": pays}
    assert one(out, "carol", side)["stake"] == 5
    full = table(game, *head, wager("bob", 2, 5, side), wager("carol", 2, 5, side))
    assert refused(full, claim(side, 2, ("dan", 5), ("erin", 5))).clause == c["slots"]
    # A claimant who already holds a slot on the area does not take a second.
    assert refused(table(game, *head), claim(side, 2, ("alice", 5), ("bob", 5))).clause == c["slots"]


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_side_claims_are_refused_when_the_rules_forbid_the_wager(game: str) -> None:
    side = SIDE[game]
    c = SC[game]
    base = table(game, wager("alice", 2, 10))
    assert refused(base, claim(side, 3, ("bob", 5), ("carol", 5))).clause == c["needs_main"]
    closed = table(game, wager("alice", 2, 10), NMB)
    assert refused(closed, claim(side, 2, ("bob", 5), ("carol", 5))).clause == c["closed"]
    restricted = table(game, wager("alice", 2, 10), wager("bob", 5, 10), one_area_players=["bob"])
    assert refused(restricted, claim(side, 2, ("bob", 5), ("carol", 5))).clause == "3.9"
    exc = refused(base, claim(side, 2, ("bob", 5), ("carol", 5), declined_by="alice"))
    assert exc.clause == c["first"]
    with pytest.raises(TranscriptError, match="has no 'lucky9' wager"):
        run_document(table(game, wager("alice", 2, 10), claim("lucky9", 2, ("bob", 5))))


# ---------------------------------------------------------------- declined insurance
def ace_deal(game: str, *hands: tuple[str, str]) -> list[dict[str, Any]]:
    return [NMB, *initial(game, *hands, up="A")]


@pytest.mark.parametrize("game", INSURANCE_GAMES)
def test_3_27_3_others_may_insure_up_to_half_of_a_declined_wager(game: str) -> None:
    head = [wager("bob", 4, 10), wager("alice", 4, 20), *ace_deal(game, ("8", "3"))]
    doc = table(game, *head, seated={"alice": 4})
    # alice's wager is 20: at most 10 of insurance on it.
    exc = refused(doc, claim("insurance", 4, ("bob", 15), declined_by="alice"))
    assert exc.clause == "3.27.3"
    taken = table(game, *head, claim("insurance", 4, ("bob", 10), declined_by="alice"), seated={"alice": 4})
    out = settle(taken)
    assert decided(out) == (["bob"], [], "3.27.3")
    # alice declined: she may not insure now, and the offers no longer list it for her.
    assert refused(taken, decide("insurance", 4, player="alice")).clause == "3.27.3"
    assert {"player": "alice", "area": 4, "options": ["insurance"]} not in out["next"]["offers"]
    # The dealer's second card is a K: blackjack. bob's insurance 10 wins 2 to 1 = 20 (4.1).
    out = settle(table(game, *head, claim("insurance", 4, ("bob", 10), declined_by="alice"),
                       CLOSE, decide("stand", 4), *cards(card(game, "K", 2)), seated={"alice": 4}))
    ins = one(out, "bob", "insurance")
    assert (ins["area"], ins["stake"], ins["net"], ins["rule"]) == (4, 10, 20, "4.1")


@pytest.mark.parametrize("game", INSURANCE_GAMES)
def test_3_27_4_1_a_player_on_the_same_area_front_to_back(game: str) -> None:
    out = settle(table(game, wager("bob", 4, 10), wager("alice", 4, 20), wager("carol", 4, 10),
                       wager("dan", 3, 10), *ace_deal(game, ("8", "3"), ("8", "2")),
                       claim("insurance", 4, ("carol", 5), ("dan", 5), ("bob", 5), declined_by="alice"),
                       seated={"alice": 4}))
    # bob's wager is at the front of area 4, carol's at the back, dan's on area 3.
    assert decided(out) == (["bob"], ["carol", "dan"], "3.27.4.1")


@pytest.mark.parametrize("game", INSURANCE_GAMES)
def test_3_27_4_2_then_the_nearest_area_front_to_back(game: str) -> None:
    out = settle(table(game, wager("alice", 4, 20), wager("dan", 2, 10), wager("erin", 5, 10),
                       wager("fay", 5, 10), *ace_deal(game, ("8", "2"), ("8", "3"), ("8", "4")),
                       claim("insurance", 4, ("fay", 5), ("dan", 5), ("erin", 5), declined_by="alice")))
    # Area 5 is 1 from area 4, area 2 is 2 away; on area 5 erin's wager is in front of fay's.
    assert decided(out) == (["erin"], ["fay", "dan"], "3.27.4.2")


@pytest.mark.parametrize("game", INSURANCE_GAMES)
def test_3_27_4_3_equal_distance_lowest_insurance_not_counting_controlled_areas(game: str) -> None:
    out = settle(table(
        game, wager("gus", 3, 10), wager("dan", 3, 10), wager("alice", 4, 20), wager("erin", 5, 20),
        *ace_deal(game, ("8", "2"), ("8", "3"), ("8", "4")),
        decide("insurance", 3, player="dan", amount=5),   # dan does not control area 3: counts 5
        decide("insurance", 5, player="erin", amount=10),  # erin controls area 5: counts 0
        claim("insurance", 4, ("dan", 5), ("erin", 5), declined_by="alice"),
    ))
    # Areas 3 and 5 are both 1 from area 4; erin's counted total 0 < dan's 5.
    assert decided(out) == (["erin"], ["dan"], "3.27.4.3")


@pytest.mark.parametrize("game", INSURANCE_GAMES)
def test_3_27_4_4_equivalent_claims_nobody_insures(game: str) -> None:
    doc = table(game, wager("dan", 3, 10), wager("alice", 4, 20), wager("erin", 5, 10),
                *ace_deal(game, ("8", "2"), ("8", "3"), ("8", "4")),
                claim("insurance", 4, ("zed", 5), ("dan", 5), ("erin", 5), declined_by="alice"))
    out = settle(doc)
    # dan and erin: 1 area away each, no insurance yet: equivalent. Nobody, zed included.
    assert decided(out) == ([], ["zed", "dan", "erin"], "3.27.4.4")
    # The declined insurance was decided: it cannot be claimed again.
    assert refused(doc, claim("insurance", 4, ("dan", 5), declined_by="alice")).clause == "3.27.3"
    assert round_output(run_document(doc))["claims"] == out["claims"]


@pytest.mark.parametrize("game", INSURANCE_GAMES)
def test_3_27_4_5_players_without_a_wager_first_placed(game: str) -> None:
    head = [wager("alice", 4, 20), *ace_deal(game, ("8", "3")),
            claim("insurance", 4, ("zed", 10), ("yan", 10), declined_by="alice")]
    out = settle(table(game, *head))
    assert decided(out) == (["zed"], ["yan"], "3.27.4.5")
    # The dealer's second card is a 9: no blackjack; zed's insurance of 10 loses (3.27).
    out = settle(table(game, *head, CLOSE, decide("stand", 4), *cards(card(game, "9", 2))))
    ins = one(out, "zed", "insurance")
    assert (ins["stake"], ins["net"], ins["rule"]) == (10, -10, "3.27")


@pytest.mark.parametrize("game", INSURANCE_GAMES)
def test_insurance_claims_only_while_the_offers_are_open(game: str) -> None:
    head = [wager("alice", 4, 20), wager("bob", 5, 10)]
    closed = table(game, *head, *ace_deal(game, ("8", "3"), ("8", "2")), CLOSE)
    exc = refused(closed, claim("insurance", 4, ("bob", 5), declined_by="alice"))
    assert exc.clause == "3.27.2"
    no_ace = table(game, *head, NMB, *initial(game, ("8", "3"), ("8", "2")))
    assert refused(no_ace, claim("insurance", 4, ("bob", 5), declined_by="alice")).clause == "3.27"
    open_ = table(game, *head, *ace_deal(game, ("8", "3"), ("8", "2")))
    assert refused(open_, claim("insurance", 4, ("bob", 5))).clause == "3.27.3"  # who declined?
    insured = table(game, *head, *ace_deal(game, ("8", "3"), ("8", "2")), decide("insurance", 4))
    assert refused(insured, claim("insurance", 4, ("bob", 5), declined_by="alice")).clause == "3.27.3"
    # bob may wager on one area only (3.9): not even insurance on alice's.
    one_area = table(game, *head, *ace_deal(game, ("8", "3"), ("8", "2")), one_area_players=["bob"])
    assert refused(one_area, claim("insurance", 4, ("bob", 5), declined_by="alice")).clause == "3.9"


def test_dueling8s_has_no_insurance_to_claim() -> None:
    doc = table(D8, wager("alice", 4, 20), wager("bob", 5, 10), NMB, *cards("3C", "2D"))
    exc = refused(doc, claim("insurance", 4, ("bob", 5), declined_by="alice"))
    assert "no insurance" in exc.message


def test_a_claim_refused_leaves_the_round_as_it_was() -> None:
    rnd = run_document(table("lucky8", wager("alice", 2, 10), wager("alice", 2, 5, "pair"),
                             wager("b", 2, 5, "pair"), wager("c", 2, 5, "pair")))
    before = round_output(rnd)
    with pytest.raises(RuleRefusal):
        rnd.apply(parse_event(claim("pair", 2, ("d", 5), ("e", 5))))
    assert round_output(rnd) == before and len(rnd.events) == 4


@pytest.mark.parametrize("game", INSURANCE_GAMES)
def test_an_area_that_received_no_card_returns_the_insurance_claimed_on_it_too(game: str) -> None:
    # bob (area 2) declines insurance against the dealer's Ace; carol insures 5 on his area
    # (3.27.3). After the interim settlement both of area 2's cards are found on area 5, which
    # has no wager: discarded (5.15), and area 2 received no card: its wagers are returned
    # (5.14) — bob's 10 and carol's insurance 5 on it, before the dealer's second card.
    head = [wager("bob", 2, 10), wager("carol", 3, 10), NMB, *initial(game, ("5", "6"), ("9", "7"), up="A")]
    out = settle(table(game, *head, claim("insurance", 2, ("carol", 5), declined_by="bob"), CLOSE,
                       {"type": "correction", "index": 6, "to": "area:5"},
                       {"type": "correction", "index": 3, "to": "area:5"}, seated={"bob": 2}))
    main = one(out, "bob", "main")
    assert (main["result"], main["net"], main["rule"]) == ("returned", 0, "5.14")
    ins = one(out, "carol", "insurance")
    assert (ins["area"], ins["stake"], ins["result"], ins["net"], ins["rule"]) == (2, 5, "returned", 0, "5.14")
    assert out["next"]["player"] == "carol"  # play goes on with area 3
