"""A double feed through the station service (a simulated shoe on a real pty): cards that
left the shoe together, some unread (the shoe's ``MULTI`` with fewer cards than its count).
The unread ones are in flight as unread, one each, under the frame's number; each is keyed
in by that number with a supervisor's PIN (5.1: a card not accounted for voids the round);
the read ones are never dealt on their own (spec/shoe-protocol.md): once every card is
known they are dealt together under the game's double-feed clause (5.23 at the tables,
5.8 in Electronic). Outcomes worked out by hand from the rules in the comments."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.service.client import ServiceClient, ServiceError
from tests.service.conftest import Station, make_shoe, wait_connected

SUE = {"user": "sue", "pin": "482913"}


def _wait_hold(c: ServiceClient) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        state = c.request("state")
        if state["hold"] and state["in_flight"]:
            return state
        time.sleep(0.02)
    raise AssertionError(f"the double feed never held the table: {c.request('state')}")


def _cards(state: dict[str, Any]) -> list[str]:
    return [e["card"] for e in state["events"] if e["type"] == "card"]


def _feed_keyed_in(s: Station, c: ServiceClient) -> tuple[int, dict[str, Any]]:
    """Lucky 8, shoe 10S 9H QD 8C: p1's first card 10S, the dealer's 9H, then QD and 8C
    out together, 8C unread. Returns the feed's frame number and the state once 8C is
    keyed in by that number with sue's PIN."""
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 2)
    s.sim.multi(2, unreadable=1)
    state = _wait_hold(c)
    seq = state["in_flight"][0]["seq"]
    # one row per card of the feed, the unread one as unread; QD is not dealt on its own
    assert state["in_flight"] == [{"seq": seq, "card": "QD"}, {"seq": seq, "card": "?"}]
    assert _cards(state) == ["10S", "9H"]
    with pytest.raises(ServiceError) as caught:  # the dealer's word alone does not account for it
        c.request("key_card", card="8C", seq=seq)
    assert caught.value.code == "pin" and "(5.1)" in str(caught.value)
    assert c.request("state")["in_flight"] == state["in_flight"]  # nothing changed
    return seq, c.request("key_card", card="8C", seq=seq, pin=SUE)


def test_a_double_feed_with_an_unread_card_is_keyed_in_by_its_number_and_dealt_together(station: Any) -> None:
    """5.23.1: two cards out together toward p1's second card, order unknown, none disclosed
    (the shoe's reading shows no card to the table): p1 picks 8C, 10+8 = 18; 5.23.1.1: QD is
    the next card. p1 stands, so QD is the dealer's: 9+Q = 19 stands (hard 17 or more).
    18 against 19: p1 loses the 10 wagered (4.4.1)."""
    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    _, state = _feed_keyed_in(s, c)
    assert state["in_flight"] == [] and state["hold"] == ""
    multi = [e for e in state["events"] if e["type"] == "multi"]
    assert len(multi) == 1 and sorted(multi[0]["cards"]) == ["8C", "QD"] and multi[0]["disclosed"] == []
    assert state["expect"]["options"] == ["pick"] and state["expect"]["rule"] == "5.23.1"
    assert state["expect"]["player"] == "p1"
    with pytest.raises(ServiceError) as caught:  # not one of the cards that came out together
        c.request("pick", card="KD", by="player", player="p1", pin=SUE)
    assert caught.value.code == "refused"
    c.request("pick", card="8C", by="player", player="p1", pin=SUE)
    state = c.request("decide", action="stand", area=1, hand=1, player="p1")
    out = state["output"]
    assert out["status"] == "settled"
    assert out["areas"][0]["hands"][0]["cards"] == ["10S", "8C"] and out["dealer"]["cards"] == ["9H", "QD"]
    assert out["net"] == {"p1": -10}
    assert s.running is not None
    keyed = s.running.store.audit_entries(kind="card_keyed")
    assert [(e.detail["card"], e.actor) for e in keyed] == [("8C", "supervisor:sue")]


def test_a_double_feed_in_flight_is_reported_after_a_restart_and_keyed_in(station: Any) -> None:
    """The service goes down while the feed waits: after the restart its cards are in flight
    again under the frame's number (QD read, one unread) and the table is held; the unread
    card keyed in with a PIN deals both together (5.23.1: p1 picks)."""
    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 2)
    s.sim.multi(2, unreadable=1)
    seq = _wait_hold(c)["in_flight"][0]["seq"]
    s.stop()
    s.start()
    wait_connected(s)
    c = s.dealer()
    state = c.request("state")
    assert state["in_flight"] == [{"seq": seq, "card": "QD"}, {"seq": seq, "card": "?"}]
    assert state["hold"] and _cards(state) == ["10S", "9H"]
    with pytest.raises(ServiceError) as caught:
        c.request("release_hold")  # "no card is missing" while one came out unread (5.1)
    assert "(5.1)" in str(caught.value)
    with pytest.raises(ServiceError) as caught:
        c.request("key_card", card="8C")  # no number: the first unread card, still a PIN
    assert caught.value.code == "pin"
    state = c.request("key_card", card="8C", pin=SUE)
    assert state["in_flight"] == [] and state["hold"] == ""
    assert [sorted(e["cards"]) for e in state["events"] if e["type"] == "multi"] == [["8C", "QD"]]
    assert state["expect"]["options"] == ["pick"] and state["expect"]["player"] == "p1"


def test_every_card_of_a_feed_known_is_not_keyed_again(station: Any) -> None:
    """Once the unread card is keyed in, the frame has no unread card: keying another card
    for it is refused, and nothing more is dealt."""
    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    seq, state = _feed_keyed_in(s, c)
    with pytest.raises(ServiceError) as caught:
        c.request("key_card", card="KD", seq=seq, pin=SUE)
    assert caught.value.code == "refused"
    assert c.request("state")["events"] == state["events"]


def test_an_electronic_double_feed_keyed_in_voids_the_round(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Electronic 5.8: two cards out together whose order cannot be ascertained void the round;
    the wager (10) is returned. p1's first card 10S, then 9H and QD together, QD unread."""
    import dealer_assist.service.station as st

    monkeypatch.delenv(st.CONFIG_ENV, raising=False)
    config = tmp_path / "station.toml"
    config.write_text('[table]\nname = "EB-01"\ngame = "electronic"\ndecks = 6\n', encoding="utf-8")
    s = Station(tmp_path / "state", tmp_path / "run" / "s.sock", make_shoe("10S 9H QD"), config=str(config))
    try:
        s.start()
        wait_connected(s)
        c = s.dealer()
        c.request("wager", player="p1", bet="main", amount=10)
        s.deal(c, 1)
        s.sim.multi(2, unreadable=1)
        state = _wait_hold(c)
        seq = state["in_flight"][0]["seq"]
        assert state["in_flight"] == [{"seq": seq, "card": "9H"}, {"seq": seq, "card": "?"}]
        with pytest.raises(ServiceError) as caught:
            c.request("key_card", card="QD", seq=seq)
        assert caught.value.code == "pin" and "(5.1)" in str(caught.value)
        state = c.request("key_card", card="QD", seq=seq, pin=SUE)
        out = state["output"]
        assert out["status"] == "void" and [r["rule"] for r in out["rulings"]] == ["5.8"]
        assert out["net"] == {"p1": 0} and out["player_cards"] == ["10S"]
        assert state["in_flight"] == [] and state["hold"] == "" and state["concluded"]
    finally:
        s.stop()
        s.sim.close()


def test_a_double_feed_no_round_can_take_is_held_then_set_aside(station: Any) -> None:
    """Two cards out together, both read, while no wager is down: no hand expects a card, so
    they stay in flight (never dropped) and the table is held; a supervisor sets them aside."""
    s: Station = station("10S 9H")
    c = s.dealer()
    s.sim.multi(2)
    state = _wait_hold(c)
    seq = state["in_flight"][0]["seq"]
    assert state["in_flight"] == [{"seq": seq, "card": "10S"}, {"seq": seq, "card": "9H"}]
    assert "fit no reading" in state["hold"] and state["events"] == []
    state = c.request("set_aside", seq=seq, pin=SUE)
    assert state["in_flight"] == [] and state["hold"] == ""
    assert s.running is not None
    assert [e.detail["card"] for e in s.running.store.audit_entries(kind="card_set_aside")] == ["10S 9H"]
