"""Every card out of the shoe is on record (issue 39 item 3), against a real service with the
shoe on a pty: the journal keeps every frame not yet recorded, a restart gap outlives a
second restart and is released only by its own answer, a card out of the shoe between
rounds while the service was down is keyed in and set aside by a supervisor (5.1 counts it)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.service.client import ServiceClient, ServiceError
from dealer_assist.service.journal import ShoeJournal
from dealer_assist.store import Store
from tests.service.conftest import Station, wait_connected

SUE = {"user": "sue", "pin": "482913"}


def restart(s: Station) -> ServiceClient:
    s.stop()
    s.start()
    wait_connected(s)
    return s.dealer()


def wait_hold(c: ServiceClient) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while not (state := c.request("state"))["hold"] and time.monotonic() < deadline:
        time.sleep(0.05)
    return state


def audit(s: Station, kind: str) -> list[dict[str, Any]]:
    with Store.open_readonly(s.state / "table.db") as store:
        return [e.detail for e in store.audit_entries(kind=kind)]


def test_the_journal_keeps_every_frame_not_done_across_reopening(tmp_path: Path) -> None:
    journal = ShoeJournal(tmp_path / "shoe-journal")
    first = journal.write({"event": "card", "card": "9H", "seq": 7})
    journal.write({"event": "card", "card": "QD", "seq": 8})
    journal.write({"event": "card", "card": "8C", "seq": 9})
    journal.done(first, {"event": "card", "card": "9H", "seq": 7})
    journal.close()
    again = ShoeJournal(tmp_path / "shoe-journal")
    assert [e.frame["card"] for e in again.undone()] == ["QD", "8C"]
    assert again.read() == {"event": "card", "card": "8C", "seq": 9}
    assert again.write({"event": "card", "card": "7D", "seq": 10}) == 4  # numbering goes on
    again.close()


def test_the_old_one_frame_journal_is_read_as_a_frame_not_done(tmp_path: Path) -> None:
    path = tmp_path / "shoe-journal"
    path.write_bytes(b'{"event":"card","card":"9H","seq":12}'.ljust(4096, b" "))
    journal = ShoeJournal(path)
    assert [(e.frame["card"], e.done) for e in journal.undone()] == [("9H", False)]
    journal.close()


def test_two_frames_read_and_not_recorded_are_both_in_flight_after_the_restart(station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    state = s.deal(c, 1)
    last = max(e["shoe_seq"] for e in state["events"] if e["type"] == "card")
    s.stop()
    journal = ShoeJournal(s.state / "shoe-journal")  # a full disk (say) left two frames not done
    journal.write({"event": "card", "card": "9H", "seq": last + 1})
    journal.write({"event": "card", "card": "QD", "seq": last + 2})
    journal.close()
    s.start()
    wait_connected(s)
    c = s.dealer()
    assert c.request("state")["in_flight"] == [{"seq": last + 1, "card": "9H"}, {"seq": last + 2, "card": "QD"}]


def test_a_restart_gap_outlives_a_second_restart_and_an_earlier_unread_card_keyed_in(station: Any) -> None:
    s: Station = station("10S 9H QD 8C 7D")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 1)  # 10S to p1
    s.sim.noread()  # 9H comes out unread: in flight as "?", the table holds
    unread = wait_hold(c)["in_flight"]
    assert [f["card"] for f in unread] == ["?"]
    s.stop()
    s.sim.deal()  # QD comes out while nobody reads the shoe
    s.start()
    wait_connected(s)
    c = s.dealer()
    state = wait_hold(c)
    assert state["gap"] is not None and state["gap"]["lost"] == 1
    c = restart(s)  # a second restart before the dealer answers: the gap is still on record
    state = wait_hold(c)
    assert "came while the service was down" in state["hold"] and state["gap"]["lost"] == 1
    state = c.request("key_card", card="9H", seq=unread[0]["seq"], pin=SUE)  # the earlier unread card
    assert "came while the service was down" in state["hold"], "keying in another card answers no gap"
    with pytest.raises(ServiceError, match="a round is in play"):
        c.request("set_aside", card="QD", pin=SUE)  # in play: the card goes into the round
    state = c.request("key_card", card="QD")  # the gap's own answer: its one frame's card
    assert state["hold"] == "" and state["gap"] is None
    assert [e["card"] for e in state["events"] if e["type"] == "card"] == ["10S", "9H", "QD"]
    assert [d["how"] for d in audit(s, "gap_answered")] == ["every frame's card keyed in"]


def test_a_card_out_of_the_shoe_between_rounds_while_the_service_was_down_is_set_aside_keyed_in(
        station: Any) -> None:
    s: Station = station("10S 9H QD 8C 7D")
    c = s.dealer()
    s.stop()
    s.sim.deal()  # 10S out of the shoe between rounds, nobody reading it
    s.start()
    wait_connected(s)
    c = s.dealer()
    state = wait_hold(c)
    assert state["betting"] and state["gap"]["lost"] == 1
    with pytest.raises(ServiceError) as no_pin:
        c.request("set_aside", card="10S")
    assert no_pin.value.code == "pin"
    assert c.request("state")["gap"] is not None  # refused: nothing changed
    state = c.request("set_aside", card="10S", pin=SUE)
    assert state["hold"] == "" and state["gap"] is None
    aside = audit(s, "card_set_aside")
    assert aside[-1]["card"] == "10S" and aside[-1]["keyed"] and aside[-1]["rule"] == "5.1"
    assert "10S" in state["config"]["shoe_dealt"]  # 5.1 counts it among the shoe's cards
    with pytest.raises(ServiceError, match="nothing holds the table"):
        c.request("release_hold")  # no hold: refused, nothing audited
    assert audit(s, "hold_released") == []


def test_none_missing_answers_a_gap_of_frames_that_held_no_card(station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 1)
    s.stop()
    s.sim.cut()  # the cut card's frame while nobody reads: no card out of the shoe
    s.start()
    wait_connected(s)
    c = s.dealer()
    assert wait_hold(c)["gap"]["lost"] == 1
    c = restart(s)
    assert wait_hold(c)["gap"]["lost"] == 1
    state = c.request("release_hold")
    assert state["hold"] == "" and state["gap"] is None
    c = restart(s)
    time.sleep(0.3)
    assert c.request("state")["gap"] is None  # answered on record: not back after a restart
