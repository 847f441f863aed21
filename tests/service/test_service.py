"""The station service through its socket: enrolment, log-in, a round dealt from the shoe
(a pty), PINs and lockout, rollback, the configuration's digest and cards in flight."""

from __future__ import annotations

import shutil
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.service.client import ServiceClient, ServiceError
from dealer_assist.service.journal import ShoeJournal
from dealer_assist.store import Store
from tests.service.conftest import Station, make_shoe, wait_connected


def test_the_first_start_enrols_the_first_supervisor_once(station: Any) -> None:
    s: Station = station("10S")
    c = s.client()
    assert c.account == "root" or c.account  # SO_PEERCRED names this process's account
    assert c.request("state")["needs_enrolment"] is True
    enrolled = c.request("enrol", name="sue", pin="482913")
    assert enrolled["enrolled"] == "sue" and isinstance(enrolled["approval"], int)  # an accounts approval
    assert c.request("state")["needs_enrolment"] is False
    with pytest.raises(ServiceError, match="already has a supervisor") as caught:
        c.request("enrol", name="eve", pin="111999")
    assert caught.value.code == "refused"


def test_nothing_is_dealt_without_a_logged_in_dealer(station: Any) -> None:
    s: Station = station("10S")
    c = s.client()
    with pytest.raises(ServiceError) as caught:
        c.request("wager", player="p1", bet="main", amount=10, area=1)
    assert caught.value.code == "auth"
    c.request("enrol", name="sue", pin="482913")
    with pytest.raises(ServiceError) as caught:
        c.request("login", name="ann", pin="000000")
    assert caught.value.code == "pin"


def test_a_round_from_the_shoe_is_on_disk_before_any_screen_hears_of_it(station: Any) -> None:
    """Lucky 8: p1 10+Q = 20 stands, the dealer 9+8 = 17 stands: p1 wins 10 (4.3.2)."""
    s: Station = station("10S 9H QD 8C")
    seen: list[tuple[int, int]] = []  # (cards in the notification, cards on disk then)
    assert s.running is not None
    store_path = s.running.store.path

    def on_notify(name: str, data: dict[str, Any]) -> None:
        if name == "round" and data.get("round_id"):
            with sqlite3.connect(f"file:{store_path}?mode=ro", uri=True) as db:
                on_disk = db.execute("SELECT COUNT(*) FROM events WHERE event_json LIKE '%\"card\":%'").fetchone()[0]
            seen.append((sum(1 for e in data["events"] if e["type"] == "card"), on_disk))

    c = s.dealer()
    watcher = s.client(on_notify)
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 3)  # the first card closes the bets (5.3)
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    state = s.deal(c, 1)
    assert [e["type"] for e in state["events"]][:3] == ["wager", "no_more_bets", "card"]
    assert state["output"]["status"] == "settled" and state["output"]["net"] == {"p1": 10}
    assert seen and all(on_disk >= shown for shown, on_disk in seen)
    watcher.close()
    rid = state["round_id"]
    assert s.running.store.get_round(rid).result["net"] == {"p1": 10}


def test_a_void_needs_a_supervisors_pin(station: Any) -> None:
    s: Station = station("10S 9H")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 1)
    with pytest.raises(ServiceError) as caught:
        c.request("void", reason="cards mixed", rule="5.2")
    assert caught.value.code == "pin"
    with pytest.raises(ServiceError) as caught:
        c.request("void", reason="cards mixed", rule="5.2", pin={"user": "ann", "pin": "730418"})
    assert caught.value.code == "pin"  # a dealer is not a supervisor
    state = c.request("void", reason="cards mixed", rule="5.2", pin={"user": "sue", "pin": "482913"})
    assert state["output"]["status"] == "void"
    assert s.running is not None
    assert [e.kind for e in s.running.store.audit_entries(kind="void")]


def test_a_locked_supervisor_is_unlocked_by_another(station: Any) -> None:
    s: Station = station("10S")
    c = s.dealer()
    for _ in range(3):  # 3 wrong PINs lock the name (30 s, doubling, at most 15 min)
        with pytest.raises(ServiceError):
            c.request("void", reason="x", rule="5.2", pin={"user": "sue", "pin": "000000"})
    with pytest.raises(ServiceError, match="locked until") as caught:
        c.request("void", reason="x", rule="5.2", pin={"user": "sue", "pin": "482913"})
    assert caught.value.code == "pin"
    with pytest.raises(ServiceError, match="another supervisor"):
        c.request("unlock", name="sue", pin={"user": "sue", "pin": "482913"})
    assert c.request("unlock", name="sue", pin={"user": "bob", "pin": "551903"}) == {"unlocked": "sue"}
    assert s.running is not None
    assert s.running.store.verify().ok  # the clearing is audited as verify expects


def _one_round(s: Station, c: ServiceClient) -> int:
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 3)
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    state = s.deal(c, 1)
    assert state["concluded"]
    c.request("next_round")
    return int(state["round_id"])


@pytest.mark.parametrize("with_head_file", [False, True])
def test_a_store_replaced_by_an_older_copy_is_refused_however_many_writes_follow(
        station: Any, tmp_path: Path, with_head_file: bool) -> None:
    s: Station = station("10S 9H QD 8C 10D 9C KD 8D 10H 9S JD 8S")
    c = s.dealer()
    _one_round(s, c)
    s.stop()
    old = tmp_path / "old"
    old.mkdir()
    for f in s.state.iterdir():
        if f.name.startswith("table.db"):
            shutil.copy2(f, old / f.name)
    s.start()
    wait_connected(s)
    c = s.dealer()
    _one_round(s, c)
    s.stop()
    for f in old.iterdir():  # the older copy put back (and its head file, or not)
        if with_head_file or not f.name.endswith(".head"):
            shutil.copy2(f, s.state / f.name)
    for _ in range(3):  # however many starts and attempts follow: refused, never healed
        s.start()
        c = s.client()
        state = c.request("state")
        assert "replaced by an older copy" in state["refused"]
        with pytest.raises(ServiceError) as caught:
            c.request("login", name="ann", pin="730418")
        assert caught.value.code == "refused"
        s.stop()


def test_a_hand_edit_of_station_toml_is_a_significant_event(station: Any, tmp_path: Path) -> None:
    config = tmp_path / "station.toml"
    config.write_text('[table]\nname = "BJ-07"\n', encoding="utf-8")
    s = Station(tmp_path / "state", tmp_path / "run" / "s.sock", make_shoe("10S"), config=str(config))
    try:
        s.start()
        s.stop()
        config.write_text('[table]\nname = "BJ-07"\ndecks = 8\n', encoding="utf-8")  # by hand
        running = s.start()
        entries = running.store.audit_entries(kind="station_config_changed")
        assert len(entries) == 1 and entries[0].detail["changes"]["decks"] == [None, 8]
        s.stop()
        running = s.start()  # reported once: the new digest is recorded
        assert len(running.store.audit_entries(kind="station_config_changed")) == 1
    finally:
        s.stop()
        s.sim.close()


def test_a_card_in_flight_is_reported_after_a_restart_and_keyed_in(station: Any) -> None:
    """A card that came out behind an unread card (NOREAD): written as in flight before
    anything, reported by its sequence number after a restart, keyed in by the dealer."""
    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 1)
    s.sim.noread()  # 9H came out unread: the hold begins
    deadline = time.monotonic() + 10
    while not c.request("state")["hold"] and time.monotonic() < deadline:
        time.sleep(0.02)
    s.deal(c, 1)  # QD behind it: in flight
    state = c.request("state")
    assert state["hold"] and [f["card"] for f in state["in_flight"]] == ["?", "QD"]
    unread, seq = state["in_flight"][0]["seq"], state["in_flight"][1]["seq"]
    assert seq == unread + 1  # the shoe's frame numbers, in order
    s.stop()  # the service goes down with the card in flight
    s.start()
    wait_connected(s)
    c = s.dealer()
    state = c.request("state")
    assert state["hold"] and state["in_flight"] == [{"seq": unread, "card": "?"}, {"seq": seq, "card": "QD"}]
    with pytest.raises(ServiceError, match="not 8C"):
        c.request("key_card", card="8C", seq=seq)  # the shoe read that one: it is QD
    with pytest.raises(ServiceError) as caught:  # an unread card: keyed in with a supervisor's PIN (5.1)
        c.request("key_card", card="9H", seq=unread)
    assert caught.value.code == "pin"
    assert c.request("state")["in_flight"][0] == {"seq": unread, "card": "?"}  # nothing changed
    c.request("key_card", card="9H", seq=unread, pin={"user": "sue", "pin": "482913"})
    state = c.request("key_card", card="QD", seq=seq)
    assert state["in_flight"] == []
    cards = [e["card"] for e in state["events"] if e["type"] == "card"]
    assert cards == ["10S", "9H", "QD"]


def test_an_unread_card_keyed_in_without_its_number_still_needs_a_supervisor(station: Any) -> None:
    """The session's rule (5.1): a card keyed in with no frame number while an unread card
    waits is that card, so it needs a supervisor's PIN like one keyed in by its number; and
    "no card is missing" is refused while it is unread, naming 5.1."""
    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 1)
    s.sim.noread()  # 9H came out unread: the hold begins
    deadline = time.monotonic() + 10
    while not c.request("state")["hold"] and time.monotonic() < deadline:
        time.sleep(0.02)
    with pytest.raises(ServiceError) as caught:
        c.request("release_hold")
    assert caught.value.code == "refused" and "(5.1)" in str(caught.value)
    with pytest.raises(ServiceError) as caught:
        c.request("key_card", card="9H")  # no number, no PIN
    assert caught.value.code == "pin" and "supervisor" in str(caught.value) and "(5.1)" in str(caught.value)
    assert [e["card"] for e in c.request("state")["events"] if e["type"] == "card"] == ["10S"]
    state = c.request("key_card", card="9H", pin={"user": "sue", "pin": "482913"})
    assert [e["card"] for e in state["events"] if e["type"] == "card"] == ["10S", "9H"]
    assert state["in_flight"] == [] and state["hold"] == ""


def test_requests_from_two_screens_are_served_in_turn(station: Any) -> None:
    s: Station = station("10S")
    c = s.dealer()
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            for _ in range(20):
                c.request("state")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert isinstance(s.running.store if s.running else None, Store)


def test_a_frame_read_but_not_recorded_before_a_kill_is_in_flight_after_the_restart(station: Any) -> None:
    """The journal holds the last frame read before anything was done with it: a kill between
    reading a card and recording it leaves the card in flight, by its number, not lost."""
    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    state = s.deal(c, 1)
    last = max(e["shoe_seq"] for e in state["events"] if e["type"] == "card")
    s.stop()
    journal = ShoeJournal(s.state / "shoe-journal")  # as the kill left it: 9H read, not recorded
    journal.write({"event": "card", "card": "9H", "seq": last + 1})
    journal.close()
    s.start()
    wait_connected(s)
    c = s.dealer()
    state = c.request("state")
    assert state["in_flight"] == [{"seq": last + 1, "card": "9H"}]
    state = c.request("key_card", card="9H", seq=last + 1)
    assert [e["card"] for e in state["events"] if e["type"] == "card"] == ["10S", "9H"]


def test_frames_sent_while_the_service_was_down_hold_the_table(station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 1)
    s.stop()
    s.sim.deal()  # 9H comes out while nobody reads the shoe
    s.start()
    wait_connected(s)
    c = s.dealer()
    deadline = time.monotonic() + 10
    while not (state := c.request("state"))["hold"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "came while the service was down" in state["hold"] and state["gap"]["lost"] >= 1
    state = c.request("key_card", card="9H")  # the dealer keys in the card that came out
    assert state["hold"] == "" and [e["card"] for e in state["events"] if e["type"] == "card"] == ["10S", "9H"]


def test_a_supervisor_adds_a_dealer_who_chooses_a_pin_at_the_first_log_in(station: Any) -> None:
    s: Station = station("10S")
    c = s.client()
    c.request("enrol", name="sue", pin="482913")
    with pytest.raises(ServiceError) as caught:
        c.request("add_account", name="dan", new_pin="246810", roles=["dealer"])
    assert caught.value.code == "pin"
    assert c.request("add_account", name="dan", new_pin="246810", roles=["dealer"],
                     pin={"user": "sue", "pin": "482913"}) == {"added": "dan"}
    with pytest.raises(ServiceError, match="set by a supervisor"):
        c.request("login", name="dan", pin="246810")
    c.request("change_pin", name="dan", old_pin="246810", new_pin="975318")
    answer = c.request("login", name="dan", pin="975318")
    assert answer["dealer"] == "dan" and len(answer["resume"]) >= 40  # the shift's resume token (op resume)


def test_a_second_service_on_the_same_store_is_refused(station: Any, tmp_path: Path) -> None:
    s: Station = station("10S")
    other = Station(s.state, tmp_path / "other.sock", make_shoe("9H"))
    try:
        with pytest.raises(Exception, match="in use by another Dealer Assist"):
            other.start()
    finally:
        other.sim.close()


def test_a_card_out_of_the_shoe_between_rounds_is_set_aside_by_a_supervisor(station: Any) -> None:
    """No wager is down and a card comes out: no round can take it (it is held, never
    dropped); no round is in play to void, so a supervisor sets it aside, on record."""
    s: Station = station("10S 9H")
    c = s.dealer()
    state = s.deal(c, 1)
    assert state["stray"]["card"] == "10S"
    with pytest.raises(ServiceError, match="only a round in play may be voided"):
        c.request("void", reason="x", rule="5.2", pin={"user": "sue", "pin": "482913"})
    with pytest.raises(ServiceError) as caught:
        c.request("set_aside")
    assert caught.value.code == "pin"
    state = c.request("set_aside", pin={"user": "sue", "pin": "482913"})
    assert state["stray"] is None and state["in_flight"] == []
    assert s.running is not None
    entries = s.running.store.audit_entries(kind="card_set_aside")
    assert [e.detail["card"] for e in entries] == ["10S"] and entries[0].actor == "supervisor:sue"


def test_a_closed_screen_ends_its_dealers_shift(station: Any) -> None:
    """The screen closed or was killed: its connection's dealer is logged out (shift_end audited)."""
    s: Station = station("10S")
    c = s.dealer()  # ann logged in
    assert s.running is not None
    store = s.running.store
    assert [e.actor for e in store.audit_entries(kind="shift_end")] == []
    c.close()
    deadline = time.monotonic() + 10
    while not store.audit_entries(kind="shift_end") and time.monotonic() < deadline:
        time.sleep(0.02)
    ends = store.audit_entries(kind="shift_end")
    assert [e.actor for e in ends] == ["ann"]
