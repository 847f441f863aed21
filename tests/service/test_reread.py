"""Re-read at the station service (op ``reread``): a card the shoe could not read (NOREAD)
goes through the shoe's reader again, and the next card the shoe reads is that card. Only
while no other card came out after it (its place is then where the next card would have
gone); otherwise only a supervisor's key-in or a void remain (5.1 in every game: a card not
accounted for voids the round). A real service, the simulated shoe on a pty.

The rounds, worked out by hand from each game's rules (stand on 19 after the unread card):
- Lucky 8, Ace Race, Star Elements (3.18: p1, the dealer, p1): p1 10+2 = 12 against the
  dealer's 9; the unread card is a 7 to p1's hand in turn (a hit), 12+7 = 19; p1 stands;
  the dealer draws 8: 9+8 = 17 stands (3.34); 19 beats 17: p1 wins the 10 wagered, 1 to 1
  (4.3.2, 4.1). In Lucky 8 and Star Elements p1 could still double on two cards (3.26.1):
  the hit and its card are tentative until the next input (stand makes them final); in Ace
  Race a double is on hard 10 or 11 only (1.1.3): the hit is final at once.
- Dueling 8's: the permanent 8 of Spades starts each hand (3.14), p1 is dealt one card:
  8+4 = 12 (double allowed: tentative); the unread 7: 19; the dealer draws 9 to his 8:
  17 stands (3.33); p1 wins 10.
- Electronic: one shared hand, p(layer) 10, dealer 9, p 2 = 12; t1's terminal says hit,
  the unread card is the 7: 19; stand; the dealer's 8: 17 stands (3.19); t1 wins 10.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import dealer_assist.service.station as st
from dealer_assist.engine.table_setup import TableSetup, setup_to_json
from dealer_assist.service.client import ServiceClient, ServiceError
from dealer_assist.service.journal import ShoeJournal
from dealer_assist.store import Store
from tests.service.conftest import Station, make_shoe, wait_connected

SUE = {"user": "sue", "pin": "482913"}
REREAD_TEXT = "re-read: put the unread card through the shoe's reader again (5.1 if it cannot be identified)"

# game -> (the shoe's cards in order, cards before the unread one, the unread card, p1's
# hand when it is done, the dealer's, the player's name)
ROUNDS = {
    "lucky8": ("10S 9H 2D 7C 8C", 3, "7C", ["10S", "2D", "7C"], ["9H", "8C"], "p1"),
    "ace_race": ("10S 9H 2D 7C 8C", 3, "7C", ["10S", "2D", "7C"], ["9H", "8C"], "p1"),
    "star_elements": ("10Fi 9Go 2Ea 7Wo 8Wo", 3, "7Wo", ["10Fi", "2Ea", "7Wo"], ["9Go", "8Wo"], "p1"),
    "dueling8s": ("4D 7C 9D", 1, "7C", ["8S", "4D", "7C"], ["8S", "9D"], "p1"),
    "electronic": ("10S 9H 2D 7C 8C", 3, "7C", ["10S", "2D", "7C"], ["9H", "8C"], "t1"),
}
TENTATIVE = {"lucky8", "star_elements", "dueling8s"}  # p1 could still double on two cards (3.26.1)


def setup_for(game: str) -> TableSetup:
    limits = {"main": [Decimal(5), Decimal(1000)]}
    if game == "electronic":
        return TableSetup(game=game, decks=6, limits=limits, terminals=["t1"])
    return TableSetup(game=game, decks=6, areas=7, limits=limits, seated={"p1": 1})


def until(c: ServiceClient, what: str, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        state = c.request("state")
        if done(state):
            return state
        time.sleep(0.02)
    raise AssertionError(f"waited for {what}: {c.request('state')}")


def without_clock(state: dict[str, Any]) -> dict[str, Any]:
    """The state but its version and the shoe's frame count (heartbeats change them), and what op
    state alone says (enrol_code_needed)."""
    return {k: v for k, v in state.items() if k not in ("version", "shoe", "enrol_code_needed")}


def cards(state: dict[str, Any]) -> list[str]:
    return [e["card"] for e in [*state["events"], *state["tentative"]] if e["type"] == "card"]


def hand(state: dict[str, Any], game: str) -> list[str]:
    out = state["output"]
    if game == "electronic":
        return list(out["players"][0]["hands"][0]["cards"])
    return list(out["areas"][0]["hands"][0]["cards"])


def audit(s: Station, kind: str) -> list[dict[str, Any]]:
    with Store.open_readonly(s.state / "table.db") as store:
        return [e.detail for e in store.audit_entries(kind=kind)]


def started(tmp_path: Path, name: str, game: str) -> tuple[Station, ServiceClient]:
    """A station of its own (``name``: its directory) dealing ``game``'s round from the top."""
    shoe = ROUNDS[game][0]
    s = Station(tmp_path / name / "state", tmp_path / name / "run" / "s.sock", make_shoe(shoe))
    s.start()
    wait_connected(s)
    c = s.dealer()
    c.request("set_table", setup=setup_to_json(setup_for(game)), pin=SUE)
    return s, c


def to_the_unread_card(s: Station, c: ServiceClient, game: str) -> dict[str, Any]:
    """p1 (t1) wagers 10, the cards before the unread one come out; then the unread card (the
    hand in turn's hit): the table holds, the card in flight unread."""
    _, before, _, _, _, player = ROUNDS[game]
    c.request("wager", player=player, bet="main", amount=10, **({} if game == "electronic" else {"area": 1}))
    s.deal(c, before)
    if game == "electronic":  # the shared hand's decision comes from the terminals (3.16): hit
        c.request("decide", action="hit", player="t1", hand=1)
    s.sim.noread()
    return until(c, "the unread card's hold", lambda st: bool(st["hold"]) and st["unread"] == 1)


def play_out(s: Station, c: ServiceClient, game: str) -> dict[str, Any]:
    """p1 (t1) stands; the dealer's card comes out."""
    player = ROUNDS[game][5]
    if game == "electronic":
        c.request("decide", action="stand", player="t1", hand=1)
    else:
        c.request("decide", action="stand", area=1, hand=1, player=player)
    return s.deal(c, 1)


def stop(*stations: Station) -> None:
    for s in stations:
        s.stop()
        s.sim.close()


@pytest.fixture
def no_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(st.CONFIG_ENV, raising=False)


@pytest.mark.usefixtures("no_config")
@pytest.mark.parametrize("game", list(ROUNDS))
def test_a_reread_card_goes_where_a_key_in_would_put_it(tmp_path: Path, game: str) -> None:
    _, before, unread, p1_hand, dealer_hand, player = ROUNDS[game]
    shoe = ROUNDS[game][0].split()
    a, ca = started(tmp_path, "reread", game)
    b, cb = started(tmp_path, "keyed", game)
    try:
        held = to_the_unread_card(a, ca, game)
        seq = held["in_flight"][0]["seq"]
        assert held["in_flight"] == [{"seq": seq, "card": "?"}] and cards(held) == shoe[:before]
        assert "key in" in held["hold"]
        state = ca.request("reread")
        assert state["hold"] == REREAD_TEXT and state["unread"] == 1
        assert without_clock({**state, "hold": held["hold"]}) == without_clock(held)  # nothing placed yet
        a.sim.reread()  # the same card through the reader: read this time
        state = until(ca, "the re-read card", lambda st: st["unread"] == 0 and st["in_flight"] == [])
        assert state["hold"] == "" and cards(state) == [*shoe[:before], unread]
        assert hand(state, game) == p1_hand  # to the hand in turn, as its hit
        drawn = [e for e in [*state["events"], *state["tentative"]] if e["type"] == "card"][-1]
        assert drawn["shoe_seq"] == seq  # the card of the unread frame, not a new one
        assert bool(state["tentative"]) == (game in TENTATIVE)
        assert audit(a, "card_reread_asked") == [{"seq": seq, "rule": "5.1"}]
        [read] = audit(a, "card_reread")
        assert read["card"] == unread and read["seq"] == seq and read["frame"] > seq
        assert audit(a, "card_keyed") == []  # no supervisor: the shoe read it

        # the same round with the unread card keyed in under sue's PIN: the same place
        held_b = to_the_unread_card(b, cb, game)
        keyed_state = cb.request("key_card", card=unread, seq=held_b["in_flight"][0]["seq"], pin=SUE)
        assert [{k: v for k, v in e.items() if k != "shoe_seq"} for e in [*keyed_state["events"],
                                                                           *keyed_state["tentative"]]] == \
            [{k: v for k, v in e.items() if k != "shoe_seq"} for e in [*state["events"], *state["tentative"]]]
        assert keyed_state["output"] == state["output"] and keyed_state["expect"] == state["expect"]

        done = play_out(a, ca, game)
        out = done["output"]
        assert out["status"] == "settled" and out["net"] == {player: 10}
        assert hand(done, game) == p1_hand and out["dealer"]["cards"] == dealer_hand
        assert done["in_flight"] == [] and done["stray"] is None
    finally:
        stop(a, b)


def test_reread_is_refused_when_no_unread_card_holds_the_table(station: Any) -> None:
    """Nothing holds the table, then a damaged frame holds it (a card may be missing, none
    came out unread): re-read is refused naming 5.1 both times, the round as it was."""
    s: Station = station("10S 9H QD 8C 7D")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    state = s.deal(c, 1)
    with pytest.raises(ServiceError) as caught:
        c.request("reread")
    assert caught.value.code == "refused" and "nothing to re-read" in str(caught.value)
    assert "(5.1)" in str(caught.value)
    assert without_clock(c.request("state")) == without_clock(state)
    s.sim.deal(corrupt=True)  # 9H's frame damaged: dropped, the next frame shows the gap
    s.sim.deal()  # QD
    state = until(c, "the gap's hold", lambda st: bool(st["hold"]) and bool(st["in_flight"]))
    assert state["unread"] == 0
    with pytest.raises(ServiceError) as caught:
        c.request("reread")
    assert caught.value.code == "refused" and "(5.1)" in str(caught.value)
    assert without_clock(c.request("state")) == without_clock(state)
    assert audit(s, "card_reread_asked") == []


def test_reread_is_refused_once_a_card_came_out_after_the_unread_one(station: Any) -> None:
    """10S to p1, 9H out unread, then QD: QD came out after the unread card, so where 9H
    belongs is not known (it was the dealer's card only if dealt in order): re-read is
    refused naming 5.1 (key it in under a PIN, or void), nothing changed; sue keys 9H in:
    the dealer's card (3.18), then QD is p1's second: 10+Q = 20."""
    s: Station = station("10S 9H QD 8C 7D")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 1)
    s.sim.noread()
    held = until(c, "the unread card's hold", lambda st: st["unread"] == 1)
    s.sim.deal()  # QD, behind the hold
    state = until(c, "QD in flight", lambda st: len(st["in_flight"]) == 2)
    assert [f["card"] for f in state["in_flight"]] == ["?", "QD"] and state["queued"] == 1
    with pytest.raises(ServiceError) as caught:
        c.request("reread")
    text = str(caught.value)
    assert caught.value.code == "refused" and "1 card(s) came out of the shoe after the unread card" in text
    assert "supervisor's PIN" in text and "void" in text and "(5.1)" in text
    assert without_clock(c.request("state")) == without_clock(state)
    assert audit(s, "card_reread_asked") == []
    state = c.request("key_card", card="9H", seq=held["in_flight"][0]["seq"], pin=SUE)
    assert state["hold"] == "" and state["in_flight"] == []
    assert [e["card"] for e in state["events"] if e["type"] == "card"] == ["10S", "9H", "QD"]
    assert state["output"]["areas"][0]["hands"][0]["total"] == 20


def test_an_unread_card_unread_again_keeps_the_hold_and_may_be_reread_again(station: Any) -> None:
    """Lucky 8: 10S to p1, the dealer's card comes out unread (3.18: the dealer's first card
    is next). Re-read, and the shoe cannot read it again: the hold stays (re-read again, key
    it in or void, 5.1), still one card in flight (no new one came out). Re-read again and
    it reads 9H: the dealer's card; QD is then p1's second: 10+Q = 20."""
    s: Station = station("10S 9H QD 8C 7D")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 1)
    s.sim.noread()
    held = until(c, "the unread card's hold", lambda st: st["unread"] == 1)
    seq = held["in_flight"][0]["seq"]
    c.request("reread")
    s.sim.reread(readable=False)
    state = until(c, "the second NOREAD", lambda st: "could not be read again" in st["hold"])
    assert state["unread"] == 1 and state["in_flight"] == [{"seq": seq, "card": "?"}]
    assert "(5.1)" in state["hold"] and state["queued"] == 0
    assert cards(state) == ["10S"]
    c.request("reread")
    s.sim.reread()
    state = until(c, "9H read again", lambda st: st["unread"] == 0)
    assert state["hold"] == "" and state["output"]["dealer"]["cards"] == ["9H"]
    state = s.deal(c, 1)
    assert [e["card"] for e in state["events"] if e["type"] == "card"] == ["10S", "9H", "QD"]
    assert state["output"]["areas"][0]["hands"][0]["total"] == 20
    assert len(audit(s, "card_reread_asked")) == 2 and [d["card"] for d in audit(s, "card_reread")] == ["9H"]


def test_a_card_that_comes_out_while_rereading_is_not_taken_for_the_unread_one(station: Any) -> None:
    """Re-read asked, then a double feed comes out (not the unread card alone): the re-read
    ends, the cards wait in flight behind the unread card, and re-read is refused (5.1)."""
    s: Station = station("10S 9H QD 8C 7D")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 1)
    s.sim.noread()
    until(c, "the unread card's hold", lambda st: st["unread"] == 1)
    c.request("reread")
    s.sim.multi(2)
    state = until(c, "the feed in flight", lambda st: len(st["in_flight"]) == 3)
    assert "while the unread card was being re-read" in state["hold"] and "(5.1)" in state["hold"]
    assert cards(state) == ["10S"] and state["unread"] == 1
    with pytest.raises(ServiceError, match="after the unread card"):
        c.request("reread")
    assert [d for d in audit(s, "card_reread")] == []


@pytest.mark.parametrize("recorded", [False, True])
def test_a_rereads_frame_kept_in_the_journal_is_never_a_card_of_its_own(station: Any, recorded: bool) -> None:
    """The service stops with the re-read card's frame (9H) in the shoe journal, not marked
    done: killed after reading it and before recording it (``recorded`` False), or after
    recording it and before marking it done (True). After the restart 9H is the unread card
    either way, placed once: the dealer's card (Lucky 8, 3.18: 10S to p1, then the dealer's
    card came out unread), never a second card in flight."""
    s: Station = station("10S 9H QD 8C 7D")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 1)
    s.sim.noread()
    seq = until(c, "the unread card's hold", lambda st: st["unread"] == 1)["in_flight"][0]["seq"]
    c.request("reread")
    if recorded:
        s.sim.reread()
        until(c, "9H read again", lambda st: st["unread"] == 0)
    s.stop()
    journal = ShoeJournal(s.state / "shoe-journal")  # the re-read's frame, as the service journals it
    if recorded:  # the service marked the real one so
        assert [e.frame.get("reread") for e in journal.entries() if e.frame.get("card") == "9H"] == [seq]
    journal.write({"event": "card", "card": "9H", "seq": seq + 1, "reread": seq})
    journal.close()
    s.start()
    wait_connected(s)
    c = s.dealer()
    state = c.request("state")
    assert cards(state) == ["10S", "9H"] and state["output"]["dealer"]["cards"] == ["9H"]
    assert state["in_flight"] == [] and state["unread"] == 0 and state["stray"] is None
    assert [(d["card"], d["seq"]) for d in audit(s, "card_reread")] == [("9H", seq)]


def test_keyed_in_while_rereading_the_next_card_is_a_card_of_its_own(station: Any) -> None:
    """Re-read asked, then the supervisor keys the unread card in instead (9H, the dealer's,
    3.18): the re-read is over, and the next card out of the shoe (QD) is p1's second card,
    10+Q = 20, not taken for the unread card nor dropped."""
    s: Station = station("10S 9H QD 8C 7D")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 1)
    s.sim.noread()
    seq = until(c, "the unread card's hold", lambda st: st["unread"] == 1)["in_flight"][0]["seq"]
    assert c.request("reread")["hold"] == REREAD_TEXT
    state = c.request("key_card", card="9H", seq=seq, pin=SUE)
    assert state["hold"] == "" and cards(state) == ["10S", "9H"]
    state = s.deal(c, 1)  # QD
    assert cards(state) == ["10S", "9H", "QD"] and state["stray"] is None and state["in_flight"] == []
    assert state["output"]["areas"][0]["hands"][0]["total"] == 20
    assert audit(s, "card_reread") == []  # no reading was taken for the unread card


def test_an_unread_card_after_the_outcome_stays_unread_when_its_key_in_is_refused_then_is_reread(
        station: Any) -> None:
    """Lucky 8: p1 10+Q = 20 stands, the dealer 9+8 = 17 stands (3.34): p1 wins 10 (4.3.2),
    the round is over. Then a card comes out unread (5D). Keyed in, it is refused: no hand
    takes a card now (5.7), so it is still unread and "no card missed" is refused (5.1).
    Re-read: the shoe reads 5D, held with 5.7's reason, and placed in the discard holder;
    the outcome stands."""
    s: Station = station("10S 9H QD 8C 5D")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 3)
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    assert s.deal(c, 1)["concluded"]
    s.sim.noread()
    held = until(c, "the unread card's hold", lambda st: st["unread"] == 1)
    with pytest.raises(ServiceError, match=r"\(5\.7\)"):
        c.request("key_card", card="5D", pin=SUE)
    assert without_clock(c.request("state")) == without_clock(held)  # still one unread card
    with pytest.raises(ServiceError, match=r"\(5\.1\)"):
        c.request("release_hold")
    c.request("reread")
    s.sim.reread()
    state = until(c, "5D held", lambda st: st["stray"] is not None)
    assert state["stray"]["card"] == "5D" and "(5.7)" in state["stray"]["reason"]
    assert state["unread"] == 0 and state["hold"] == ""
    state = c.request("place_card", to="discard")
    assert state["stray"] is None and state["in_flight"] == []
    assert state["output"]["net"] == {"p1": 10} and state["output"]["rulings"][-1]["rule"] == "5.7"
