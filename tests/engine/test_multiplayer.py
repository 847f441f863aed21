"""Several players on one playing area: who controls it, followers on splits and doubles,
surrender passing control, pit-manager restrictions and the absent player (issue 3).

Every test runs for each table game whose rules have the clause, citing that game's own
numbers (Dueling 8's numbers several differently). Amounts are worked out in comments.

Deals (3.18; 3.19 in Dueling 8's): the first card to every wagered area, the dealer's card,
then the second cards. In Dueling 8's every hand and the dealer's start with the permanent
8♠ (3.14), so a hand written ("8", "3") below is 8♠ plus a dealt 3 there; the dealer gets
no card in the initial deal and draws after the players. The dealer's up card in the other
games is a 9, so 9 + 9 = 18 and 9 + 8 = 17; in Dueling 8's 8 + K = 18 and 8 + 9 = 17.
"""

from __future__ import annotations

from typing import Any

import pytest

from dealer_assist.base.errors import RuleRefusal
from dealer_assist.engine.transcript import new_round, parse_event, round_output, run_document
from tests.engine.helpers import NMB, cards, decide, one, settle, table, wager

TABLE_GAMES = ("ace_race", "star_elements", "lucky8", "dueling8s")
D8 = "dueling8s"
_SUITS: dict[str, tuple[str, ...]] = {"star_elements": ("Fi", "Go", "Ea", "Wo", "Wa")}

# Each game's own clause numbers for the concepts tested here (read from the rule texts).
CLAUSES: dict[str, dict[str, str]] = {
    game: {
        "call_decisions": "3.8", "pit_restrict_area": "3.9", "max_wagers": "3.10",
        "pit_restrict_wagers": "3.10.1", "control_seated": "3.11", "control_front": "3.12",
        "split_followers": "3.24", "surrender": "3.25", "surrender_passes": "3.25.1.3",
        "double_followers": "3.26.5", "double_one_card": "3.26.6", "double_controller": "3.26.7",
        "double_amount": "1.1.2", "absent": "5.22", "absent_other": "5.22.1",
    }
    for game in TABLE_GAMES
}
CLAUSES["ace_race"]["double_amount"] = "1.1.3"
CLAUSES[D8].update({
    "surrender": "3.20", "surrender_passes": "3.20.1.3", "double_followers": "3.26.4",
    "double_one_card": "3.26.5", "double_controller": "3.26.6", "double_amount": "1.1.3",
    "absent": "5.19", "absent_other": "5.19.1",
})


def card(game: str, rank: str, n: int = 0) -> str:
    suits = _SUITS.get(game, ("S", "H", "D", "C"))
    return f"{rank}{suits[n % len(suits)]}"


def initial(game: str, *hands: tuple[str, str], up: str = "9") -> list[dict[str, Any]]:
    """The initial deal to the wagered areas in area order; the dealer's up card is a 9."""
    if game == D8:
        assert all(first == "8" for first, _ in hands)  # the permanent 8♠
        return cards(*(card(game, second, i + 1) for i, (_, second) in enumerate(hands)))
    firsts = [card(game, first, i) for i, (first, _) in enumerate(hands)]
    seconds = [card(game, second, i + 1) for i, (_, second) in enumerate(hands)]
    return cards(*firsts, card(game, up, 3), *seconds)


def dealer_to(game: str, total: int) -> list[dict[str, Any]]:
    """The dealer's drawn card that brings 9 (8♠ in Dueling 8's) to ``total`` (17 or 18)."""
    base = 8 if game == D8 else 9
    rank = {8: "8", 9: "9", 10: "K"}[total - base]
    return cards(card(game, rank, 2))


def hit(game: str, rank: str, n: int = 0) -> dict[str, Any]:
    return cards(card(game, rank, n))[0]


def refused(doc: dict[str, Any], bad: dict[str, Any]) -> RuleRefusal:
    """Apply ``bad`` after the transcript; it must be refused and change nothing."""
    rnd = run_document(doc)
    before = round_output(rnd)
    with pytest.raises(RuleRefusal) as info:
        rnd.apply(parse_event(bad))
    assert round_output(rnd) == before
    return info.value


def stakes(out: dict[str, Any], player: str) -> list[tuple[int, int | float, int | float]]:
    """(hand, stake, net) of a player's main-wager entries."""
    return [(s["hand"], s["stake"], s["net"]) for s in out["settlements"]
            if s["player"] == player and s["bet"] == "main"]


# ---------------------------------------------------------------- 3.8: who calls decisions
@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_8_a_player_wagers_on_several_areas_but_calls_decisions_only_where_entitled(game: str) -> None:
    c = CLAUSES[game]
    # alice sits at area 1 and also wagers first (nearest the dealer) on area 2, where bob
    # sits; dave sits nowhere and is alone on area 3, which he is entitled to control (3.12).
    head = [
        wager("alice", 1, 10), wager("alice", 2, 10), wager("bob", 2, 10), wager("dave", 3, 10),
        NMB, *initial(game, ("8", "K"), ("8", "J"), ("8", "Q")),
        decide("stand", 1, player="alice"),
    ]
    doc = table(game, *head, seated={"alice": 1, "bob": 2})
    # alice's wager on area 2 is nearest the dealer, yet bob, seated there, calls (3.11).
    exc = refused(doc, decide("stand", 2, player="alice"))
    assert exc.clause == c["control_seated"] and "bob" in exc.message
    # carol has no wager on area 2 at all (3.8).
    exc = refused(doc, decide("hit", 2, player="carol"))
    assert exc.clause == c["call_decisions"]
    done = table(game, *head, decide("stand", 2, player="bob"), decide("stand", 3, player="dave"),
                 *dealer_to(game, 17), seated={"alice": 1, "bob": 2})
    out = settle(done)
    # 18 v 17 on every area: every wager of 10 wins 10; alice has two of them.
    assert out["status"] == "settled"
    assert out["net"] == {"alice": 20, "bob": 10, "dave": 10}
    assert [(a["area"], a["controller"]) for a in out["areas"]] == [(1, "alice"), (2, "bob"), (3, "dave")]


# ---------------------------------------------------------------- 3.9, 3.10: pit manager limits
@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_9_a_player_restricted_to_one_area_is_refused_on_a_second(game: str) -> None:
    side = {"ace_race": "pair", "star_elements": "pair", "lucky8": "pair", D8: "superb8"}[game]
    head = [wager("alice", 1, 10), wager("bob", 2, 10), wager("bob", 1, 10), wager("alice", 1, 5, side)]
    doc = table(game, *head, one_area_players=["alice"])
    for bad in (wager("alice", 2, 10), wager("alice", 2, 5, side)):
        exc = refused(doc, bad)
        assert exc.clause == CLAUSES[game]["pit_restrict_area"] and "alice" in exc.message
    # bob is not restricted: areas 1 and 2 (3.8); alice keeps her one area with a side bet.
    out = settle(doc)
    assert [(a["area"], a["controller"]) for a in out["areas"]] == [(1, "alice"), (2, "bob")]


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_10_three_main_wagers_per_area_fewer_when_the_pit_manager_says(game: str) -> None:
    c = CLAUSES[game]
    three = table(game, wager("a", 4, 10), wager("b", 4, 10), wager("c", 4, 10))
    assert refused(three, wager("d", 4, 10)).clause == c["max_wagers"]
    two = table(game, wager("a", 4, 10), wager("b", 4, 10), max_wagers_per_area=2)
    exc = refused(two, wager("c", 4, 10))
    assert exc.clause == c["pit_restrict_wagers"] and "2" in exc.message


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_10_2_a_second_wager_by_the_same_player_joins_the_first(game: str) -> None:
    # bob 10 (front), alice 20, bob adds 15: one wager of 25 still at the front, so bob
    # controls (3.12), and the area holds two wagers, leaving room for carol's third.
    doc = table(game, wager("bob", 3, 10), wager("alice", 3, 20), wager("bob", 3, 15),
                wager("carol", 3, 5), NMB, *initial(game, ("8", "K")),
                decide("stand", 3, player="bob"), *dealer_to(game, 17))
    out = settle(doc)
    # 18 v 17: bob wins 25, alice 20, carol 5.
    assert stakes(out, "bob") == [(1, 25, 25)]
    assert stakes(out, "alice") == [(1, 20, 20)]
    assert stakes(out, "carol") == [(1, 5, 5)]
    assert out["areas"][0]["controller"] == "bob"


# ---------------------------------------------------------------- 3.11-3.13: control shown before the deal
@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_11_3_12_3_13_the_controller_is_known_while_bets_are_placed(game: str) -> None:
    c = CLAUSES[game]
    rnd = new_round(table(game, seated={"alice": 5}))
    # Area 6: nobody seated; carol's 10 is placed first (front), dan's 100 behind it.
    for ev in (wager("carol", 6, 10), wager("dan", 6, 100), wager("bob", 5, 10)):
        rnd.apply(parse_event(ev))
    out = round_output(rnd)
    assert out["next"] == {"expect": "wagers"}
    assert [(a["area"], a["controller"]) for a in out["areas"]] == [(5, "bob"), (6, "carol")]
    # alice sits at area 5 and wagers behind bob: she controls it regardless (3.11).
    rnd.apply(parse_event(wager("alice", 5, 10)))
    out = round_output(rnd)
    assert [(a["area"], a["controller"]) for a in out["areas"]] == [(5, "alice"), (6, "carol")]
    assert out["control"] == [
        {"index": 0, "area": 6, "player": "carol", "rule": c["control_front"]},
        {"index": 2, "area": 5, "player": "bob", "rule": c["control_front"]},
        {"index": 3, "area": 5, "player": "alice", "rule": c["control_seated"]},
    ]
    # Closing the bets changes nobody's control.
    rnd.apply(parse_event(NMB))
    assert len(round_output(rnd)["control"]) == 3


# ---------------------------------------------------------------- 3.24: split followers
@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_24_followers_match_or_stay_on_every_split_and_resplit(game: str) -> None:
    c = CLAUSES[game]
    head = [
        wager("bob", 2, 10), wager("alice", 2, 20), wager("carol", 2, 10), NMB,
        *initial(game, ("8", "8")),
        # alice (seated) splits; bob matches on the new hand (3.24.1), carol stays (3.24.2).
        decide("split", 2, player="alice", followers={"bob": "match", "carol": "stay"}),
        hit(game, "8", 2),  # hand 1 is 8 8 again
    ]
    doc = table(game, *head, seated={"alice": 2})
    # Only players with a wager on the hand choose (dave has none), and only "match" or "stay".
    assert refused(doc, decide("split", 2, 1, followers={"dave": "match"})).clause == c["split_followers"]
    assert refused(doc, decide("split", 2, 1, followers={"bob": "half"})).clause == c["split_followers"]
    full = table(
        game, *head,
        # Resplit hand 1: this time bob keeps his wager on the first hand, carol matches.
        decide("split", 2, 1, followers={"bob": "stay", "carol": "match"}),
        hit(game, "K", 1), decide("stand", 2, 1),   # hand 1: 8 K = 18
        hit(game, "J", 1), decide("stand", 2, 2),   # hand 2 (from the resplit): 8 J = 18
        hit(game, "Q", 1), decide("stand", 2, 3),   # hand 3 (first split): 8 Q = 18
        *dealer_to(game, 17),
        seated={"alice": 2},
    )
    out = settle(full)
    # Stakes: hand 1 alice 20, bob 10, carol 10; hand 2 (resplit) alice 20, carol 10;
    # hand 3 (the first split's new hand) alice 20, bob 10. 18 v 17: each wins its stake.
    assert stakes(out, "alice") == [(1, 20, 20), (2, 20, 20), (3, 20, 20)]
    assert stakes(out, "bob") == [(1, 10, 10), (3, 10, 10)]
    assert stakes(out, "carol") == [(1, 10, 10), (2, 10, 10)]
    assert out["net"] == {"alice": 60, "bob": 20, "carol": 20}


def test_dueling8s_3_25_only_followers_who_matched_may_place_tie_on_18_on_the_split_hand() -> None:
    head = [
        wager("bob", 2, 10), wager("alice", 2, 20), wager("carol", 2, 10),
        wager("alice", 2, 5, "tie18"), wager("bob", 2, 5, "tie18"), wager("carol", 2, 5, "tie18"),
        NMB, *cards("8C"),
        decide("split", 2, followers={"bob": "match", "carol": "stay"}),
    ]
    doc = table(D8, *head, seated={"alice": 2})
    exc = refused(doc, wager("carol", 2, 5, "tie18", hand=2))
    assert exc.clause == "3.25" and "carol" in exc.message
    out = settle(table(
        D8, *head, wager("bob", 2, 5, "tie18", hand=2),
        *cards("KC"), decide("stand", 2, 1),  # hand 1: 8♠ K = 18
        *cards("JD"), decide("stand", 2, 2),  # hand 2: 8♣ J = 18
        *cards("KH"),                         # dealer 8♠ K = 18
        seated={"alice": 2},
    ))
    # Main wagers push (18 v 18, 4.6.1). Tie on 18 pays 8 to 1 (4.1): 5 × 8 = 40 on hand 1
    # for each of alice, bob and carol, and bob's second Tie on 18 on hand 2 wins 40 more.
    assert out["net"] == {"alice": 40, "bob": 80, "carol": 40}
    assert one(out, "bob", "tie18", hand=2)["net"] == 40


# ---------------------------------------------------------------- 3.25.1.2-3: surrender (3.20.1.x)
@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_25_1_2_3_each_player_may_surrender_and_control_passes_front_to_back(game: str) -> None:
    c = CLAUSES[game]
    head = [
        wager("bob", 3, 10), wager("alice", 3, 20), wager("carol", 3, 30), NMB,
        *initial(game, ("8", "3")),
        decide("surrender", 3, player="alice"),
    ]
    doc = table(game, *head, seated={"alice": 3})
    # bob, at the front, controls now; alice, who surrendered, calls nothing.
    exc = refused(doc, decide("stand", 3, player="alice"))
    assert exc.clause == c["surrender_passes"]
    out = settle(table(game, *head, decide("surrender", 3, player="bob"),
                       decide("hit", 3, player="carol"), hit(game, "K", 2),  # 8 3 K = 21
                       *dealer_to(game, 18), seated={"alice": 3}))
    # alice gives up half of 20 = 10, bob half of 10 = 5; carol's 30 plays on: 21 v 18 wins 30.
    assert one(out, "alice", "main")["net"] == -10 and one(out, "alice", "main")["rule"] == c["surrender"]
    assert one(out, "bob", "main")["net"] == -5
    assert one(out, "carol", "main")["net"] == 30
    assert [(ch["player"], ch["rule"]) for ch in out["control"]] == [
        ("bob", c["control_front"]), ("alice", c["control_seated"]),
        ("bob", c["surrender_passes"]), ("carol", c["surrender_passes"]),
    ]
    assert out["areas"][0]["controller"] == "carol"


# ---------------------------------------------------------------- 3.26.5-7: double followers (3.26.4-6)
@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_26_5_followers_double_up_to_their_own_wager_and_not_under_the_minimum(game: str) -> None:
    c = CLAUSES[game]
    head = [wager("bob", 4, 10), wager("alice", 4, 20), wager("carol", 4, 10), NMB,
            *initial(game, ("8", "3"))]
    doc = table(game, *head, seated={"alice": 4}, limits={"main": [5, 1000]})
    # The dealer screen is told who else may double with alice, and up to how much.
    nxt = settle(doc)["next"]
    assert (nxt["player"], nxt["followers"]) == (
        "alice", [{"player": "bob", "wager": 10}, {"player": "carol", "wager": 10}])
    exc = refused(doc, decide("double", 4, followers={"bob": 15}))  # more than bob's 10
    assert exc.clause == c["double_amount"]
    exc = refused(doc, decide("double", 4, followers={"bob": 4}))  # under the minimum of 5
    assert exc.clause == c["double_amount"]
    out = settle(table(
        game, *head, decide("double", 4, followers={"bob": 5}), hit(game, "5", 1),  # 8 3 5 = 16
        *dealer_to(game, 18), seated={"alice": 4}, limits={"main": [5, 1000]},
    ))
    # 3.26.6: the doubled hand took one card only, so 16 stands against 18 and loses:
    # alice 20 + 20 = 40, bob 10 + 5 = 15, carol (did not double) 10.
    assert stakes(out, "alice") == [(1, 40, -40)]
    assert stakes(out, "bob") == [(1, 15, -15)]
    assert stakes(out, "carol") == [(1, 10, -10)]
    assert out["areas"][0]["hands"][0]["total"] == 16


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_followers_are_listed_only_while_the_controller_may_split_or_double(game: str) -> None:
    # 8 3 = hard 11: doubling is open in every game (Ace Race doubles only hard 10/11, 3.26.1),
    # so the screen is told who else is on the hand (3.26.5). After a hit (8 3 2 = 13) only
    # hit and stand remain, and nobody else has anything to decide.
    head = [wager("bob", 4, 10), wager("alice", 4, 20), NMB, *initial(game, ("8", "3"))]
    nxt = settle(table(game, *head, seated={"alice": 4}))["next"]
    assert "double" in nxt["options"]
    assert nxt["followers"] == [{"player": "bob", "wager": 10}]
    nxt = settle(table(game, *head, decide("hit", 4), hit(game, "2", 1), seated={"alice": 4}))["next"]
    assert (nxt["player"], nxt["options"]) == ("alice", ["hit", "stand"])
    assert "followers" not in nxt


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_26_6_the_doubled_hand_takes_one_card_whoever_else_doubled(game: str) -> None:
    c = CLAUSES[game]
    head = [wager("bob", 4, 10), wager("alice", 4, 20), NMB, *initial(game, ("8", "3")),
            decide("double", 4), hit(game, "5", 1)]  # bob did not double; 8 3 5 = 16
    doc = table(game, *head, seated={"alice": 4})
    # The next card goes to the dealer: no hit for 16 after a double.
    assert settle(doc)["next"] == {"expect": "card", "for": "dealer"}
    exc = refused(doc, decide("hit", 4, player="alice"))
    assert exc.clause == c["double_one_card"]


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_3_26_7_nobody_else_doubles_when_the_controller_does_not(game: str) -> None:
    c = CLAUSES[game]
    doc = table(game, wager("bob", 4, 10), wager("alice", 4, 20), NMB, *initial(game, ("8", "3")),
                seated={"alice": 4})
    exc = refused(doc, decide("double", 4, player="bob"))
    assert exc.clause == c["double_controller"]
    # alice hits instead (8 3 K = 21): bob's 10 wins 10, alice's 20 wins 20 against 18.
    out = settle(table(game, wager("bob", 4, 10), wager("alice", 4, 20), NMB,
                       *initial(game, ("8", "3")), decide("hit", 4), hit(game, "K", 1),
                       *dealer_to(game, 18), seated={"alice": 4}))
    assert out["net"] == {"bob": 10, "alice": 20}


# ---------------------------------------------------------------- 5.22 / 5.22.1 (5.19 / 5.19.1): absent players
@pytest.mark.parametrize("game", TABLE_GAMES)
def test_5_22_an_absent_players_area_is_drawn_by_the_fixed_rule_alone(game: str) -> None:
    c = CLAUSES[game]
    head = [wager("alice", 1, 10), NMB, *initial(game, ("8", "3")), {"type": "absent", "player": "alice"}]
    doc = table(game, *head, seated={"alice": 1})
    # 8 3 = hard 11: the dealer draws to it; doubling is forfeited.
    assert settle(doc)["next"] == {"expect": "card", "for": "area:1/1"}
    exc = refused(doc, decide("double", 1, player="alice"))
    assert exc.clause == c["absent"]
    out = settle(table(game, *head, hit(game, "2", 1), *dealer_to(game, 18), seated={"alice": 1}))
    # 8 3 2 = 13 exceeds 11: no more cards. 13 v 18 loses 10.
    assert out["areas"][0]["hands"][0]["total"] == 13
    assert one(out, "alice", "main")["net"] == -10
    assert out["control"][-1] == {"index": 5 if game != D8 else 3, "area": 1, "player": None,
                                  "rule": c["absent"]}


@pytest.mark.parametrize("game", ["ace_race", "star_elements", "lucky8"])
def test_5_22_the_fixed_rule_draws_to_soft_16_and_stands_on_soft_17(game: str) -> None:
    out = settle(table(game, wager("alice", 1, 10), NMB, *initial(game, ("A", "5")),
                       {"type": "absent", "player": "alice"}, hit(game, "A", 2), *dealer_to(game, 18)))
    # A 5 = soft 16 draws; A 5 A = soft 17 stops. 17 v 18 loses 10.
    assert out["areas"][0]["hands"][0]["cards"] == [card(game, "A", 0), card(game, "5", 1), card(game, "A", 2)]
    assert one(out, "alice", "main")["net"] == -10


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_5_22_split_is_forfeited_but_side_bets_placed_settle(game: str) -> None:
    c = CLAUSES[game]
    side = "superb8" if game == D8 else "pair"
    head = [wager("alice", 1, 10), wager("alice", 1, 5, side), NMB, *initial(game, ("8", "8")),
            {"type": "absent", "player": "alice"}]
    doc = table(game, *head)
    assert refused(doc, decide("split", 1, player="alice")).clause == c["absent"]
    out = settle(table(game, *head, *dealer_to(game, 18)))
    # 8 8 = 16 exceeds 11: it stands and loses 10 to 18. The side bet settles normally:
    # Pair 11 to 1 on 5 = 55 (4.1); Superb 8's: 8♠ 8♥ and no further card to the area,
    # Two 8's 3 to 1 on 5 = 15 (4.2).
    assert one(out, "alice", "main")["net"] == -10
    assert one(out, "alice", side)["net"] == (15 if game == D8 else 55)


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_5_22_1_another_player_on_the_area_plays_it_and_doubles_only_their_own(game: str) -> None:
    c = CLAUSES[game]
    head = [wager("bob", 2, 10), wager("alice", 2, 20), wager("carol", 2, 10), NMB,
            *initial(game, ("8", "3")), {"type": "absent", "player": "alice"}]
    doc = table(game, *head, seated={"alice": 2})
    # Control passes to bob, nearest the dealer among those present.
    out = settle(doc)
    assert out["areas"][0]["controller"] == "bob"
    assert out["control"][-1]["player"] == "bob" and out["control"][-1]["rule"] == c["absent_other"]
    assert out["next"]["player"] == "bob" and "double" in out["next"]["options"]
    # alice's wager is never doubled.
    assert refused(doc, decide("double", 2, followers={"alice": 20})).clause == c["absent"]
    out = settle(table(game, *head, decide("double", 2, followers={"carol": 10}), hit(game, "K", 1),
                       *dealer_to(game, 18), seated={"alice": 2}))
    # 8 3 K = 21 v 18: bob 10 + 10 wins 20, carol 10 + 10 wins 20, alice's 20 wins 20.
    assert out["net"] == {"bob": 20, "alice": 20, "carol": 20}


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_5_22_1_the_absent_players_wager_stays_on_the_first_hand_of_a_split(game: str) -> None:
    c = CLAUSES[game]
    head = [wager("alice", 2, 20), wager("bob", 2, 10), NMB, *initial(game, ("8", "8")),
            {"type": "absent", "player": "alice"}]
    doc = table(game, *head, seated={"alice": 2})
    assert refused(doc, decide("split", 2, followers={"alice": "match"})).clause == c["absent"]
    out = settle(table(game, *head, decide("split", 2), hit(game, "K", 1), decide("stand", 2, 1),
                       hit(game, "9", 1), decide("stand", 2, 2), *dealer_to(game, 17),
                       seated={"alice": 2}))
    # Hand 1: 8 K = 18 beats 17: alice 20 and bob 10 win. Hand 2: 8 9 = 17 pushes bob's 10.
    assert stakes(out, "alice") == [(1, 20, 20)]
    assert stakes(out, "bob") == [(1, 10, 10), (2, 10, 0)]


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_5_22_1_a_hand_holding_only_the_absent_players_wager_is_played_without_doubling(game: str) -> None:
    c = CLAUSES[game]
    head = [wager("alice", 2, 20), wager("bob", 2, 10), NMB, *initial(game, ("8", "8")),
            # alice splits; bob keeps his wager on hand 1 only (3.24.2).
            decide("split", 2, followers={"bob": "stay"}), hit(game, "3", 2),  # hand 1: 8 3
            {"type": "absent", "player": "alice"},
            decide("double", 2, 1), hit(game, "K", 1),  # bob doubles his own 10: 8 3 K = 21
            hit(game, "3", 3)]                           # hand 2: 8 3, alice's 20 alone
    doc = table(game, *head, seated={"alice": 2})
    out = settle(doc)
    assert (out["next"]["player"], out["next"]["hand"], out["next"]["options"]) == ("bob", 2, ["hit", "stand"])
    assert refused(doc, decide("double", 2, 2)).clause == c["absent"]
    out = settle(table(game, *head, decide("hit", 2, 2), hit(game, "K", 2), *dealer_to(game, 18),
                       seated={"alice": 2}))
    # Hand 1 (21): bob 10 + 10 wins 20, alice's 20 (never doubled) wins 20. Hand 2: bob hits
    # for alice, 8 3 K = 21 v 18: her 20 wins 20.
    assert stakes(out, "bob") == [(1, 20, 20)]
    assert stakes(out, "alice") == [(1, 20, 20), (2, 20, 20)]
