"""The table session (dealer_assist.engine.session): each clause it carries from one round to
the next, for every game it applies to. Expectations are worked out from the rules by hand
(the comments give the arithmetic)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from dealer_assist.base.cards import parse_card
from dealer_assist.base.errors import RuleRefusal
from dealer_assist.engine.events import CardDrawn, Decision, Event, Void, Wager
from dealer_assist.engine.session import TableSession
from dealer_assist.engine.transcript import parse_target, round_output

# game, the fewest decks it is dealt from, cards per deck, the card dealt in test rounds
SHOES = [
    ("ace_race", 2, 52, "7C"),
    ("electronic", 2, 52, "7C"),
    ("star_elements", 4, 65, "7Fi"),
    ("lucky8", 1, 52, "7C"),
    ("dueling8s", 3, 48, "7C"),
]


def table(game: str, decks: int, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"game": game, "decks": decks, **extra}
    if game != "electronic":
        out["areas"] = 5
    return out


def wager(game: str, amount: int = 20, player: str = "p1") -> Wager:
    return Wager(player, "main", Decimal(amount), None if game == "electronic" else 1)


def card(name: str, seq: int | None = None) -> CardDrawn:
    return CardDrawn(parse_card(name), shoe_seq=seq)


def types(events: tuple[Event, ...]) -> list[str]:
    return [e.type for e in events]


def one_card_round(session: TableSession, game: str, name: str) -> None:
    """A wager, one card out of the shoe, then a void (ends the round with the card dealt)."""
    session.apply(wager(game))
    session.card(card(name))
    # a supervisor's void because the cards cannot be reconstructed (5.2 in every game)
    session.apply(Void("test: the round ends here", "5.2"))
    assert session.concluded


# ---------------------------------------------------------------------------- 5.1
@pytest.mark.parametrize(("game", "decks", "per_deck", "name"), SHOES)
def test_the_shoe_is_carried_across_rounds(game: str, decks: int, per_deck: int, name: str) -> None:
    """5.1: with d decks, a card's copy d+1 cannot belong to the shoe, in whichever round it
    falls. One copy a round: rounds 1..d take theirs; round d+1's copy voids it under 5.1."""
    session = TableSession(table(game, decks))
    for n in range(1, decks + 1):
        one_card_round(session, game, name)
        session.new_round()
        # n cards out since the shuffle: d*per_deck - n remain
        assert session.round.shoe.remaining == decks * per_deck - n
        assert session.config["shoe_dealt"] == [name] * n
    session.apply(wager(game))
    session.card(card(name))
    assert session.round.status() == "void"
    assert [r.rule for r in session.round.rulings] == ["5.1"]


@pytest.mark.parametrize(("game", "decks", "per_deck", "name"), SHOES)
def test_a_loaded_shoe_starts_empty(game: str, decks: int, per_deck: int, name: str) -> None:
    """A freshly shuffled shoe (SHOE_LOADED) between rounds: the same card is copy 1 again."""
    session = TableSession(table(game, decks))
    for _ in range(decks):
        one_card_round(session, game, name)
        session.new_round()
    session.shoe_loaded()
    one_card_round(session, game, name)  # copy 1 of a fresh shoe: not void under 5.1 ...
    assert "5.1" not in [r.rule for r in session.round.rulings]
    session.new_round()
    assert session.round.shoe.remaining == decks * per_deck - 1  # ... and counted once


def test_another_deck_count_starts_another_shoe() -> None:
    session = TableSession(table("ace_race", 2))
    one_card_round(session, "ace_race", "7C")
    session.set_table(table("ace_race", 4))
    session.new_round()
    assert "shoe_dealt" not in session.config
    assert session.round.shoe.remaining == 4 * 52


# ---------------------------------------------------------------------------- 5.3
@pytest.mark.parametrize(("game", "decks", "per_deck", "name"), SHOES)
def test_the_first_card_closes_the_bets(game: str, decks: int, per_deck: int, name: str) -> None:
    """5.3: the first card out of the shoe closes the bets: the slip, no_more_bets and the
    card are the round's first events, in one step; a wager after it is refused (5.3) and
    changes nothing."""
    session = TableSession(table(game, decks))
    assert session.apply(wager(game, 20)).record == ()  # on the slip: nothing recorded yet
    session.apply(wager(game, 30, "p2"))
    assert len(session.slip) == 2
    step = session.card(card(name, seq=41))
    assert step.begins
    assert types(step.record) == ["wager", "wager", "no_more_bets", "card"]
    assert not session.betting and session.slip == ()
    before = list(session.round.events)
    with pytest.raises(RuleRefusal, match=r"\(5\.3\)"):
        session.apply(wager(game, 20, "p3"))
    assert list(session.round.events) == before


@pytest.mark.parametrize("game", ["ace_race", "lucky8", "star_elements", "dueling8s", "electronic"])
def test_the_slip_changes_freely_until_the_bets_close(game: str) -> None:
    session = TableSession(table(game, 6 if game != "lucky8" else 1))
    session.apply(wager(game, 20))
    session.set_slip([wager(game, 50)])  # changed before the bets closed: not an event
    step = session.close_bets()
    assert types(step.record) == ["wager", "no_more_bets"]
    first = step.record[0]
    assert isinstance(first, Wager) and first.amount == Decimal(50)


# ---------------------------------------------------------------------------- 5.26
# game, decks, round 1's cards, round 2's cards (player, dealer, player, stand, dealer), clause
UNDER_MIN = [
    # player 10+Q = 20, dealer 9+8 = 17 stands: the 5 under the 10 minimum wins 1:1 (+5) once
    ("ace_race", 2, ["10S", "9H", "QD", "S", "8C"], ["10H", "9C", "KD", "S", "8D"], "5.26"),
    ("lucky8", 1, ["10S", "9H", "QD", "S", "8C"], ["10H", "9C", "KD", "S", "8D"], "5.26"),
    ("star_elements", 4, ["10Fi", "9Wa", "10Ea", "S", "8Go"], ["10Go", "9Fi", "10Wa", "S", "8Wo"], "5.26"),
    # permanent 8 + A = 19 against the dealer's permanent 8 + 9 = 17 (the clause is 5.23 there)
    ("dueling8s", 3, ["AS", "S", "9H"], ["AH", "S", "9D"], "5.23"),
]


@pytest.mark.parametrize(("game", "decks", "first", "second", "clause"), UNDER_MIN)
def test_under_minimum_history_comes_from_the_round(
        game: str, decks: int, first: list[str], second: list[str], clause: str) -> None:
    """5.26 (Dueling 8's 5.23): an under-minimum wager is paid one time only; the player's
    later under-minimum wagers are returned. The session learns it from the round it settled."""
    session = TableSession(table(game, decks, limits={"main": ["10", "100"]}))
    nets = []
    for cards in (first, second):
        session.apply(wager(game, 5))
        step = None
        for name in cards:
            step = session.apply(Decision("stand", 1, 1, "p1")) if name == "S" else session.card(card(name))
        assert step is not None and step.concluded
        out = round_output(session.round)
        nets.append((out["net"]["p1"], out["settlements"][0]["result"], out["settlements"][0]["rule"]))
        if cards is first:
            assert step.under_min == ("p1",)  # the store records this, with the result
        else:
            assert step.under_min == ()
        session.new_round()
        assert session.config["under_min_history"] == ["p1"]
    assert nets[0][:2] == (Decimal(5), "win")
    assert nets[1] == (Decimal(0), "returned", clause)


def test_electronic_terminals_refuse_an_under_minimum_wager() -> None:
    """Electronic has no under-minimum clause: the terminal shows the limits (2.2) and takes
    nothing below them, so no history is kept."""
    session = TableSession(table("electronic", 2, limits={"main": ["10", "100"]}))
    with pytest.raises(RuleRefusal, match=r"\(2\.2\)"):
        session.apply(wager("electronic", 5))
    assert session.slip == ()


def test_a_session_starts_from_the_recorded_history() -> None:
    session = TableSession(table("lucky8", 1, limits={"main": ["10", "100"]}), under_min=["p1"])
    assert session.config["under_min_history"] == ["p1"]
    session.apply(wager("lucky8", 5))
    for name in ["10S", "9H", "QD"]:
        session.card(card(name))
    session.apply(Decision("stand", 1, 1, "p1"))
    session.card(card("8C"))
    out = round_output(session.round)
    assert out["net"]["p1"] == 0 and out["settlements"][0]["result"] == "returned"


# ---------------------------------------------------------------------------- implied hit
def test_a_card_on_a_hand_that_may_only_hit_is_a_hit() -> None:
    """Ace Race: A+5 is soft 16, not a hard 10/11, so it cannot double (3.26.1): a card while
    it waits for a decision is hit + card at once."""
    session = TableSession(table("ace_race", 2))
    session.apply(wager("ace_race"))
    for name in ["AS", "9D", "5C"]:  # area 1, dealer, area 1
        session.card(card(name))
    step = session.card(card("7H"))
    assert types(step.record) == ["decision", "card"] and step.tentative == ()
    hit = step.record[0]
    assert isinstance(hit, Decision) and (hit.action, hit.area, hit.hand, hit.player) == ("hit", 1, 1, "p1")
    hand = session.round.view().areas[0].hands[0]
    assert hand.cards == ("AS", "5C", "7H") and hand.total == 13  # 1+5+7, the ace counts 1


@pytest.mark.parametrize(("game", "decks", "deal", "extra", "total"), [
    # A+5 soft 16 may double (any two cards): the 7 is tentative; A+5+7 = 13
    ("lucky8", 1, ["AS", "9D", "5C"], "7H", 13),
    ("star_elements", 4, ["AFi", "9Wa", "5Ea"], "7Go", 13),
    # the permanent 8 + A = 19 may double (3.26, the 8 included): 8+A+9 = 18
    ("dueling8s", 3, ["AS"], "9D", 18),
    # Ace Race: 6+4 is a hard 10 (3.26.1): 6+4+7 = 17
    ("ace_race", 2, ["6S", "9D", "4C"], "7H", 17),
])
def test_a_card_on_a_hand_that_may_double_is_tentative(
        game: str, decks: int, deal: list[str], extra: str, total: int) -> None:
    session = TableSession(table(game, decks))
    session.apply(wager(game))
    for name in deal:
        session.card(card(name))
    step = session.card(card(extra, seq=9))
    assert step.record == () and types(step.tentative) == ["decision", "card"]
    assert session.unrecorded() == [(9, extra)]  # shown, not yet an event: still in flight
    assert session.round.view().areas[0].hands[0].total == total
    # Double right after the card: recorded as double + card, the stake doubled
    step = session.double_tentative()
    assert types(step.record) == ["decision", "card"]
    double = step.record[0]
    assert isinstance(double, Decision) and double.action == "double"
    hand = session.round.view().areas[0].hands[0]
    assert hand.doubled and hand.total == total
    assert session.unrecorded() == []


def test_the_next_input_makes_a_tentative_hit_final() -> None:
    session = TableSession(table("lucky8", 1))
    session.apply(wager("lucky8"))
    for name in ["2S", "9D", "3C", "4H"]:  # 2+3 = 5 may double: the 4 is tentative
        session.card(card(name))
    assert len(session.tentative) == 2
    step = session.apply(Decision("stand", 1, 1, "p1"))
    assert [(e.type, getattr(e, "action", None)) for e in step.record] == [
        ("decision", "hit"), ("card", None), ("decision", "stand")]
    with pytest.raises(RuleRefusal):
        session.double_tentative()  # its moment has passed


def test_a_refused_double_leaves_the_tentative_hit() -> None:
    """Lucky 8 doubles at most the wager (1.1.2): 30 on a 20 wager is refused, nothing changes."""
    session = TableSession(table("lucky8", 1))
    session.apply(wager("lucky8", 20))
    for name in ["2S", "9D", "3C", "4H"]:
        session.card(card(name))
    before = list(session.round.events)
    with pytest.raises(RuleRefusal):
        session.double_tentative(Decimal(30))
    assert list(session.round.events) == before and len(session.tentative) == 2


def test_electronic_has_no_implied_hit() -> None:
    """Electronic: every terminal decides on the shared hand; a card while they decide is
    not a hit of anyone's (held, in flight, with the engine's reason)."""
    session = TableSession(table("electronic", 2))
    session.apply(wager("electronic"))
    for name in ["AS", "9D", "5C"]:
        session.card(card(name))
    step = session.card(card("7H", seq=4))
    assert step.record == () and step.tentative == () and "decisions" in step.held
    assert session.unrecorded() == [(4, "7H")]


def test_a_restored_tentative_hit_waits_for_hit_or_double() -> None:
    session = TableSession(table("lucky8", 1))
    session.apply(wager("lucky8"))
    for name in ["2S", "9D", "3C"]:
        session.card(card(name))
    recorded = list(session.round.events)
    hit, drawn = Decision("hit", 1, 1, "p1"), card("4H", seq=12)
    restarted = TableSession(table("lucky8", 1))
    restarted.restore(session.config, recorded, [hit, drawn])
    assert restarted.tentative_held
    with pytest.raises(RuleRefusal, match=r"hit or a double"):
        restarted.apply(Decision("stand", 1, 1, "p1"))
    assert restarted.card(card("5D", seq=13)).held  # nothing else assigned meanwhile
    step = restarted.double_tentative()
    assert [getattr(e, "action", e.type) for e in step.record] == ["double", "card"]
    assert restarted.round.view().areas[0].hands[0].total == 9  # 2+3+4


# ---------------------------------------------------------------------------- in flight
@pytest.mark.parametrize(("game", "decks", "per_deck", "name"), SHOES)
def test_cards_in_flight_by_sequence_number(game: str, decks: int, per_deck: int, name: str) -> None:
    session = TableSession(table(game, decks))
    session.delivered(5, name)  # the shoe reported it; not yet an event
    assert session.unrecorded() == [(5, name)]
    session.apply(wager(game))
    session.card(card(name, seq=5))
    assert session.unrecorded() == []
    session.delivered(6, "2S")
    session.settle_in_flight(6)  # keyed in, or voided by a supervisor
    assert session.unrecorded() == []


def test_a_shoe_loaded_while_bets_are_open_deals_the_round() -> None:
    """The shoe is changed between rounds, while the next round's wagers are on the slip: that
    round deals from the new shoe (its header has no shoe_dealt), the slip kept."""
    session = TableSession(table("lucky8", 1))
    one_card_round(session, "lucky8", "7C")
    session.new_round()
    session.apply(wager("lucky8"))
    assert session.config["shoe_dealt"] == ["7C"]
    session.shoe_loaded()
    assert "shoe_dealt" not in session.config and len(session.slip) == 1
    step = session.card(card("7C"))  # copy 1 of the new one-deck shoe: no 5.1
    assert types(step.record) == ["wager", "no_more_bets", "card"]
    assert session.round.status() == "in_progress" and session.round.shoe.remaining == 51


# ---------------------------------------------------------------------------- unread cards (5.1)
@pytest.mark.parametrize(("game", "decks", "per_deck", "name"), SHOES)
def test_an_unread_card_is_keyed_in_only_with_a_supervisors_approval(
        game: str, decks: int, per_deck: int, name: str) -> None:
    """5.1: a card not accounted for voids the round, so a card the shoe could not read is keyed
    in only with a supervisor's approval; refused without one, naming 5.1, the round unchanged."""
    session = TableSession(table(game, decks))
    session.apply(wager(game))
    session.came_out_unread(7)
    assert session.unread == 1 and session.unrecorded() == [(7, "?")]
    assert "5.1" in session.no_card_missed_refusal()  # it came out: "no card missed" is refused
    before = tuple(session.round.events)
    refusal = session.key_in_refusal(7, approved=False)
    assert "supervisor" in refusal and refusal.endswith("(5.1)")
    with pytest.raises(RuleRefusal, match=r"supervisor.*\(5\.1\)"):
        session.key_in(card(name, seq=7), approved=False)
    assert tuple(session.round.events) == before and session.unread == 1
    # approved: the keyed card is the card (it closes the bets, 5.3) and nothing is unread
    step = session.key_in(card(name, seq=7), approved=True)
    assert types(step.record) == ["wager", "no_more_bets", "card"]
    assert step.record[-1] == card(name, seq=7)
    assert session.unread == 0 and session.unrecorded() == [] and session.no_card_missed_refusal() == ""


def test_a_keyed_card_without_a_number_answers_the_first_unread_card() -> None:
    """Keyed with no frame number while an unread card waits: it is that card (needs approval)."""
    session = TableSession(table("ace_race", 2))
    session.apply(wager("ace_race"))
    session.came_out_unread(3)
    with pytest.raises(RuleRefusal, match="supervisor"):
        session.key_in(card("9H"), approved=False)
    step = session.key_in(card("9H"), approved=True)
    assert step.record[-1] == card("9H", seq=3) and session.unread == 0


def test_a_card_keyed_in_for_a_gap_needs_no_approval() -> None:
    """Only an unread card needs the supervisor: a card missed in a gap of frames was read, or
    never came out; the dealer keys it in on their own word."""
    session = TableSession(table("lucky8", 1))
    session.apply(wager("lucky8"))
    assert session.key_in_refusal(approved=False) == ""
    step = session.key_in(card("8C"), approved=False)
    assert types(step.record) == ["wager", "no_more_bets", "card"]


def test_unread_cards_without_numbers_are_counted_and_a_void_accounts_for_them() -> None:
    """A double feed's unread cards (2 here) count until accounted for; a supervisor's void
    (5.1) accounts for them all."""
    session = TableSession(table("dueling8s", 3))
    session.apply(wager("dueling8s"))
    session.close_bets()
    session.came_out_unread(None, 2)
    assert session.unread == 2 and "5.1" in session.key_in_refusal(approved=False)
    session.unread_accounted(1)
    assert session.unread == 1
    session.apply(Void("a card cannot be accounted for", "5.1"))
    assert session.unread == 0 and session.no_card_missed_refusal() == ""


@pytest.mark.parametrize(("game", "decks", "per_deck", "name"), SHOES)
def test_a_double_feeds_unread_cards_are_keyed_in_by_its_number_with_approval(
        game: str, decks: int, per_deck: int, name: str) -> None:
    """A double feed (frame 8: three cards, one read): in flight together, two unread under the
    frame's number; each keyed in only with a supervisor's approval (5.1), taking the next
    unread place; once none is unread the feed's cards are complete, nothing dealt by it."""
    session = TableSession(table(game, decks))
    session.apply(wager(game))
    session.close_bets()
    session.double_feed(8, [name], 3)
    assert session.unread == 2 and session.first_unread() == 8
    assert session.unrecorded() == [(8, name), (8, "?"), (8, "?")]
    assert "5.1" in session.no_card_missed_refusal()
    before = tuple(session.round.events)
    with pytest.raises(RuleRefusal, match=r"supervisor.*\(5\.1\)"):
        session.key_in_feed(8, name, approved=False)
    assert session.unread == 2 and tuple(session.round.events) == before
    assert session.key_in_feed(8, name, approved=True) == (name, name, "?")
    assert session.key_in_feed(8, name, approved=True) == (name, name, name)
    assert session.unread == 0 and session.first_unread() is None and session.no_card_missed_refusal() == ""
    with pytest.raises(RuleRefusal, match="read every card of frame 8"):
        session.key_in_feed(8, name, approved=True)
    assert tuple(session.round.events) == before  # the caller deals them, as one multi
    session.settle_in_flight(8)
    assert session.unrecorded() == []


def test_a_refused_key_in_leaves_the_tentative_hit_tentative() -> None:
    """A card keyed in that no reading takes (here: to an area with no wager, 5.x) is refused;
    the implied hit before it is still tentative — neither lost nor made final unrecorded (a
    kill campaign found the hit and its card applied but recorded by nobody, the round left
    open while the table went on)."""
    session = TableSession(table("lucky8", 1))
    session.apply(wager("lucky8"))
    for name in ["2S", "9D", "3C", "4H"]:  # 2+3 = 5 may double: the 4 is tentative
        session.card(card(name))
    events = list(session.round.events)
    assert len(session.tentative) == 2
    step = session.key_in(CardDrawn(parse_card("5C"), to=parse_target("area:7/1")), approved=False)
    assert step.held and step.record == ()
    assert len(session.tentative) == 2 and list(session.round.events) == events
    step = session.confirm_tentative()  # Hit: the two events recorded now
    assert [(e.type, getattr(e, "action", None)) for e in step.record] == [("decision", "hit"), ("card", None)]
