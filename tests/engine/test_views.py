"""The round contract (round_api.Round) and the typed views the engine makes for a screen.

Every expected value is worked out by hand from the deal described in each test.
"""

from __future__ import annotations

from decimal import Decimal

from dealer_assist.engine.round_api import Round, RoundView
from dealer_assist.engine.transcript import new_round, parse_event, run_document
from tests.engine.helpers import NMB, bet, cards, decide, table, wager


def _round(doc: dict[str, object]) -> Round:
    return run_document(doc)


def test_table_view_star_elements_blackjack_pair_and_turn() -> None:
    # Star Elements, 3 areas; alice (seated 1) 10 on area 1, bob (seated 2) 20 + Pair 5 on area 2.
    # Deal: area 1 AFi, area 2 8Go, dealer 9Ea, area 1 KWo (alice: A + Shou = blackjack),
    # area 2 8Wa (bob: 8 + 8 = hard 16; the Pair wins 11:1 at the interim).
    doc = table("star_elements", wager("alice", 1, 10), wager("bob", 2, 20), wager("bob", 2, 5, "pair"),
                NMB, *cards("AFi", "8Go", "9Ea", "KWo", "8Wa"), decks=5, areas=3,
                seated={"alice": 1, "bob": 2})
    view = _round(doc).view()
    assert isinstance(view, RoundView)
    assert (view.game, view.game_name, view.shared_hand, view.status, view.betting) == (
        "star_elements", "Star Elements Blackjack", False, "in_progress", False)
    assert [a.number for a in view.areas] == [1, 2, 3]  # every area of the layout
    a1, a2, a3 = view.areas
    assert a1.controller == "alice" and a1.seated == ("alice",)
    assert a1.wagers[0].amount == Decimal(10) and a1.wagers[0].name == "Main"
    (h1,) = a1.hands
    assert h1.cards == ("AFi", "KWo") and h1.total == 21 and h1.soft and h1.blackjack and not h1.bust
    assert not h1.in_turn  # a blackjack plays no more
    (h2,) = a2.hands
    assert h2.cards == ("8Go", "8Wa") and h2.total == 16 and not h2.soft and not h2.blackjack
    assert h2.in_turn and view.in_turn == (2, 1)  # bob decides next
    assert a2.sides[0].bet == "pair" and a2.sides[0].name == "Pair" and a2.sides[0].amount == Decimal(5)
    assert a3.hands == () and a3.wagers == () and a3.controller is None
    assert view.dealer.cards == ("9Ea",) and view.dealer.total == 9 and not view.dealer.blackjack
    assert view.controlling == ((1, "alice"), (2, "bob"))
    assert view.card_places() == ["dealer", "discard", "area:1/1", "area:2/1", "area:3/1"]


def test_table_view_doubled_bust_and_split_hands() -> None:
    # Lucky 8, alice alone on area 1 with 10. Deal 8S (area 1), 6H (dealer), 8D (area 1).
    # alice splits: hand 1 = 8S, hand 2 = 8D. Hand 1 gets 3C (11), alice doubles, gets KD: 21.
    # Hand 2 gets 9H (17), stands. Dealer 6H + 10C = 16, draws 9S: 25, bust.
    doc = table("lucky8", wager("alice", 1, 10), NMB, *cards("8S", "6H", "8D"), decide("split", 1),
                *cards("3C"), decide("double", 1, 1), *cards("KD", "9H"), decide("stand", 1, 2),
                *cards("10C", "9S"), areas=5, seated={"alice": 1})
    view = _round(doc).view()
    assert view.status == "settled" and view.in_turn is None
    h1, h2 = view.areas[0].hands
    assert h1.cards == ("8S", "3C", "KD") and h1.doubled and h1.total == 21 and not h1.blackjack
    assert h1.stakes == (("alice", Decimal(20)),)
    assert h2.cards == ("8D", "9H") and not h2.doubled and h2.total == 17
    assert view.dealer.cards == ("6H", "10C", "9S") and view.dealer.total == 25 and view.dealer.bust


def test_dueling_eights_view_marks_the_permanent_eight() -> None:
    # The permanent 8S starts alice's hand and the dealer's (3.14); one card each is dealt:
    # alice 8S 9S = 17, she hits and takes KD: 27, bust.
    doc = table("dueling8s", wager("alice", 1, 10), NMB, *cards("9S"), decide("hit", 1), *cards("KD"),
                decks=6, areas=3)
    view = _round(doc).view()
    (hand,) = view.areas[0].hands
    assert hand.cards == ("8S", "9S", "KD") and hand.total == 27 and hand.bust
    assert hand.printed_first and view.dealer.printed_first and view.dealer.cards == ("8S",)


def test_electronic_view_terminals() -> None:
    # Electronic: ann 10, ben 20 + Royal Match 5. Player 9H, dealer 7C, Player 2H: shared 11.
    doc = table("electronic", bet("ann", 10), bet("ben", 20), bet("ben", 5, "royal_match"), NMB,
                *cards("9H", "7C", "2H"), decide("double", player="ann"), *cards("QS"))
    rnd = _round(doc)
    view = rnd.view()
    assert view.shared_hand and view.areas == () and view.player_cards == ("9H", "2H")
    ann, ben = view.terminals
    assert ann.player == "ann" and ann.main == Decimal(10)
    (ann_hand,) = ann.hands
    assert ann_hand.cards == ("9H", "2H", "QS") and ann_hand.doubled and ann_hand.total == 21
    assert ann_hand.stakes == (("ann", Decimal(20)),) and ann.in_turn is None and ann.options == ()
    assert ben.in_turn == 1 and ben.options[:2] == ("hit", "stand") and "double" in ben.options
    assert ben.sides[0].name == "Royal Match 21"
    assert view.card_places() == ["player", "dealer", "discard"]


def test_round_contract_fresh_round_and_control_changes() -> None:
    for doc in (table("ace_race", areas=5), table("electronic")):
        rnd = new_round(doc)
        rnd.apply(parse_event({"type": "no_more_bets"}))
        again = rnd.fresh()
        assert again.events == [] and again.phase == "betting" and again.view().betting
        assert list(rnd.control_changes) == [] and rnd.under_minimum_first_time() == ()


def test_under_minimum_first_time_is_decided_by_the_engine() -> None:
    # Lucky 8, limits 10-100: carol's 5 is under the minimum; her first time (5.26) settles
    # normally and the round says so; dan already had one (under_min_history): his is returned.
    # Cards: carol 9H 8C = 17, dan 10D 9S = 19, both stand; the dealer 7S 10C = 17.
    doc = table("lucky8", wager("carol", 1, 5), wager("dan", 2, 5), NMB, areas=5,
                limits={"main": [10, 100]}, under_min_history=["dan"])
    assert run_document(doc).under_minimum_first_time() == ()  # nothing settled yet
    doc["events"] += [*cards("9H", "10D", "7S", "8C", "9S"), decide("stand", 1), decide("stand", 2), *cards("10C")]
    rnd = run_document(doc)
    assert rnd.under_minimum_first_time() == ("carol",)
    wagers = {w.player: w for a in rnd.view().areas for w in a.wagers}
    assert not wagers["carol"].returned and wagers["dan"].returned


def test_under_minimum_first_time_needs_a_wager_settled_not_returned() -> None:
    from dealer_assist.engine.transcript import under_minimum_first_time

    # carol's under-minimum 5 (limits 10-100): she withdraws it after a power failure before
    # any card decided anything (5.29.1): it was returned, so her first time is still to come.
    base = table("lucky8", wager("carol", 1, 5), wager("dan", 2, 20), NMB, *cards("9H"),
                 {"type": "power_failure"}, areas=5, limits={"main": [10, 100]})
    assert under_minimum_first_time(base) == []
    withdrawn = dict(base, events=[*base["events"], {"type": "withdraw", "player": "carol"}])
    assert under_minimum_first_time(withdrawn) == []
    # Played out instead: carol 9H 8C = 17 stands, dan 10D 9S = 19 stands; dealer 7S 10C = 17.
    played = table("lucky8", wager("carol", 1, 5), wager("dan", 2, 20), NMB,
                   *cards("9H", "10D", "7S", "8C", "9S"), decide("stand", 1), decide("stand", 2),
                   *cards("10C"), areas=5, limits={"main": [10, 100]})
    assert under_minimum_first_time(played) == ["carol"]


def test_table_view_shows_insurance_and_even_money_before_settling() -> None:
    # Lucky 8, alice 100 on area 1, bob 50 on area 2. Deal: area 1 10H, area 2 AS, dealer AD,
    # area 1 9C, area 2 KC. The dealer's card is an Ace: insurance is offered (3.27.1). Alice
    # insures for half her wager, 50 (3.27); bob has a blackjack and takes even money (3.20),
    # paid at once: +50. Until the dealer's second card, alice's insurance is a wager on her
    # area in the view (not yet an entry).
    opening = [wager("alice", 1, 100), wager("bob", 2, 50), NMB, *cards("10H", "AS", "AD", "9C", "KC"),
               decide("insurance", 1, player="alice", amount=50), decide("even_money", 2, player="bob")]
    view = _round(table("lucky8", *opening, areas=5)).view()
    a1, a2 = view.areas[:2]
    assert [(w.player, w.bet, w.name, w.amount) for w in a1.insurance] == [
        ("alice", "insurance", "Insurance", Decimal(50))]
    assert a1.even_money == () and a2.insurance == () and a2.even_money == ("bob",)
    # Offers close, alice stands on 19; the dealer's second card KS makes a blackjack: alice's
    # insurance wins 2 to 1 (+100) and is an entry now, no longer a wager in the view.
    rnd = _round(table("lucky8", *opening, {"type": "close_offers"}, decide("stand", 1), *cards("KS"), areas=5))
    view = rnd.view()
    assert view.areas[0].insurance == ()
    assert [(s.player, s.bet, s.result, s.net) for s in rnd.settlements if s.bet == "insurance"] == [
        ("alice", "insurance", "win", Decimal(100))]


def test_electronic_view_shows_a_terminal_insurance_before_settling() -> None:
    # Electronic: ann 10, ben 20. Player 9H, dealer AC, Player 2H: the dealer's Ace offers
    # insurance; ann takes it for half her wager, 5. Her terminal's view shows it until the
    # dealer's second card settles it; ben's shows none.
    doc = table("electronic", bet("ann", 10), bet("ben", 20), NMB, *cards("9H", "AC", "2H"),
                decide("insurance", player="ann", amount=5))
    ann, ben = _round(doc).view().terminals
    assert ann.insurance is not None and (ann.insurance.bet, ann.insurance.amount) == ("insurance", Decimal(5))
    assert ben.insurance is None and not ann.even_money and not ben.even_money
