"""The real driver reading the simulated shoe over a real pseudo-terminal: every fault.

No timed assertions: each test waits (up to a few seconds) for the event it expects.
Intervals are shrunk (conftest.py): heartbeat 0.1 s, watchdog 0.5 s, reopen 0.2 s.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from dealer_assist.base.cards import card, cards
from hardware.driver import ShoeConnectionError, ShoeDriver, open_serial
from hardware.events import (
    Alive,
    CardRead,
    Connected,
    CutCard,
    DecodeError,
    Disconnected,
    Duplicate,
    Hello,
    MultiCard,
    NoRead,
    SequenceGap,
    ShoeEmpty,
    ShoeEvent,
    ShoeFault,
    ShoeLoaded,
    ShoeWarning,
)
from hardware.simulator import SimulatedShoe
from tests.hardware.helpers import EventLog, wait_until

MakeSim = Callable[..., SimulatedShoe]
MakeDriver = Callable[..., tuple[ShoeDriver, EventLog]]


def connect(make_sim: MakeSim, make_driver: MakeDriver, **sim_options: object) -> tuple[SimulatedShoe, ShoeDriver, EventLog]:
    sim = make_sim(**sim_options)
    driver, log = make_driver(sim.path, codec=sim.codec_name)
    log.wait_for(Connected)
    return sim, driver, log


def cards_read(log: EventLog, since: int = 0) -> list[str]:
    return [str(e.card) for e in log.after(since) if isinstance(e, CardRead)]


def test_connects_with_id_request_and_reads_cards_in_order(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    sim, driver, log = connect(make_sim, make_driver)
    hello = log.wait_for(Hello)
    assert (hello.model, hello.firmware, hello.serial_number) == ("DA-SIM", "1.0", "SIM0001")
    connected = log.wait_for(Connected)
    assert connected.model == "DA-SIM" and connected.guaranteed and connected.port == sim.path
    assert driver.connected
    mark = log.mark()
    dealt = [sim.deal() for _ in range(10)]
    log.wait_for(CardRead, lambda e: e.card == dealt[-1], since=mark)
    assert cards_read(log, mark) == [str(c) for c in dealt]
    seqs = [e.seq for e in log.after(mark) if isinstance(e, CardRead) and e.seq is not None]
    assert len(seqs) == 10 and seqs == sorted(seqs)
    assert not log.of(SequenceGap) and not log.of(DecodeError)


def test_events_are_stamped_on_arrival_with_the_monotonic_clock(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    sim, _, log = connect(make_sim, make_driver)
    mark = log.mark()
    before = time.monotonic_ns()
    dealt = sim.deal()
    event = log.wait_for(CardRead, since=mark)
    after = time.monotonic_ns()
    assert event.card == dealt
    assert before <= event.received_ns <= after


def test_heartbeats_arrive_while_idle(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    _, _, log = connect(make_sim, make_driver)
    mark = log.mark()
    first = log.wait_for(Alive, since=mark)
    second = log.wait_for(Alive, lambda e: e.seq != first.seq, since=mark)
    assert second.received_ns > first.received_ns


def test_noise_between_frames_loses_nothing(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    sim, _, log = connect(make_sim, make_driver)
    mark = log.mark()
    dealt = []
    for _ in range(5):
        sim.noise(40)
        dealt.append(sim.deal())
    sim.noise(40)
    log.wait_for(CardRead, lambda e: e.card == dealt[-1], since=mark)
    assert cards_read(log, mark) == [str(c) for c in dealt]
    assert not [e for e in log.after(mark) if isinstance(e, (DecodeError, SequenceGap))]


def test_bad_checksum_is_reported_as_a_possible_missed_card(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    sim, driver, log = connect(make_sim, make_driver)
    mark = log.mark()
    garbled = sim.deal(corrupt=True)
    error = log.wait_for(DecodeError, since=mark)
    assert error.kind == "checksum"
    following = sim.deal()
    gap = log.wait_for(SequenceGap, since=mark)
    assert gap.lost == 1
    log.wait_for(CardRead, lambda e: e.card == following, since=mark)
    assert garbled is not None and str(garbled) not in cards_read(log, mark)
    assert driver.stats["error"] == 1


def test_dropped_frames_show_as_a_gap_with_the_count(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    sim, _, log = connect(make_sim, make_driver, heartbeat_s=None)
    mark = log.mark()
    sim.drop(3)
    lost = [sim.deal() for _ in range(3)]
    after = sim.deal()
    gap = log.wait_for(SequenceGap, since=mark)
    assert gap.lost == 3
    log.wait_for(CardRead, lambda e: e.card == after, since=mark)
    assert cards_read(log, mark) == [str(after)]
    assert all(c is not None for c in lost)


def test_duplicate_frame_is_ignored(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    sim, _, log = connect(make_sim, make_driver, heartbeat_s=None)
    mark = log.mark()
    dealt = sim.deal()
    sim.repeat_last()
    nxt = sim.deal()
    log.wait_for(CardRead, lambda e: e.card == nxt, since=mark)
    duplicate = log.wait_for(Duplicate, since=mark)
    assert cards_read(log, mark) == [str(dealt), str(nxt)]
    first = log.wait_for(CardRead, since=mark)
    assert duplicate.seq == first.seq


def test_double_feed_and_unreadable_card(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    sim, _, log = connect(make_sim, make_driver, heartbeat_s=None)
    mark = log.mark()
    together = sim.multi(3, unreadable=1)
    multi = log.wait_for(MultiCard, since=mark)
    assert multi.count == 3 and list(multi.cards) == together[:2]
    sim.noread()
    log.wait_for(NoRead, since=mark)


def test_cut_card_at_penetration_and_empty_shoe(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    order = cards("AS 2S 3S 4S 5S 6S 7S 8S")
    sim, _, log = connect(make_sim, make_driver, cards=order, penetration=0.5, heartbeat_s=None)
    mark = log.mark()
    for _ in range(8):
        sim.deal()
    assert sim.deal() is None
    log.wait_for(ShoeEmpty, since=mark)
    names = [e.name if not isinstance(e, CardRead) else str(e.card) for e in log.after(mark)]
    assert names == ["AS", "2S", "3S", "4S", "cut", "5S", "6S", "7S", "8S", "empty"]


def test_shuffle_loads_a_new_shoe_and_burns_a_card(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    sim, _, log = connect(make_sim, make_driver, heartbeat_s=None)
    first = sim.deal()
    log.wait_for(CardRead, lambda e: e.card == first)
    mark = log.mark()
    sim.shuffle()
    assert sim.position == 0 and sim.remaining == 52 * 6
    log.wait_for(ShoeLoaded, since=mark)
    burned = sim.burn()
    event = log.wait_for(CardRead, since=mark)
    assert event.card == burned  # da1 cannot mark a burn: the card is still recorded


def test_manual_cut_and_jam_fault(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    sim, _, log = connect(make_sim, make_driver)
    mark = log.mark()
    sim.cut()
    log.wait_for(CutCard, since=mark)
    sim.fault("JAM", "card jam")
    fault = log.wait_for(ShoeFault, since=mark)
    assert (fault.code, fault.text) == ("JAM", "card jam")


def test_silent_shoe_is_lost_then_recovers_by_itself(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    sim, driver, log = connect(make_sim, make_driver)
    mark = log.mark()
    sim.unplug(60)  # stops answering, keeps the pty
    lost = log.wait_for(Disconnected, since=mark)
    assert "no data" in lost.reason
    sim.replug()
    back = log.wait_for(Connected, since=mark)
    assert back.received_ns > lost.received_ns and driver.connected
    assert driver.stats["reopens"] >= 1
    later = log.mark()
    dealt = sim.deal()
    log.wait_for(CardRead, lambda e: e.card == dealt, since=later)


def test_cards_dealt_while_unplugged_show_as_a_gap_after_reconnect(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    sim, _, log = connect(make_sim, make_driver, heartbeat_s=None)
    mark = log.mark()
    sim.unplug(60)
    sim.deal()
    sim.deal()
    log.wait_for(Disconnected, since=mark)
    sim.replug()
    log.wait_for(Connected, since=mark)
    gap = log.wait_for(SequenceGap, since=mark)
    assert gap.lost == 2


def test_pty_closed_and_reopened_reconnects(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    sim, driver, log = connect(make_sim, make_driver)
    mark = log.mark()
    sim.unplug(60, close_pty=True)  # the device disappears...
    lost = log.wait_for(Disconnected, since=mark)
    assert "read failed" in lost.reason
    sim.replug()  # ...then a new one appears at the link
    log.wait_for(Connected, since=mark)
    later = log.mark()
    dealt = sim.deal()
    log.wait_for(CardRead, lambda e: e.card == dealt, since=later)
    assert driver.connected


def test_beetek_over_the_pty(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    sim, driver, log = connect(make_sim, make_driver, codec="beetek")
    connected = log.wait_for(Connected)
    assert connected.model is None and connected.guaranteed is False
    assert not driver.guaranteed
    mark = log.mark()
    burned = sim.burn()
    dealt = sim.deal()
    sim.noread()
    sim.noise(30)
    sim.send_raw(b"<W0x02>")
    sim.fault("E3", "Card Not Read")
    fault = log.wait_for(ShoeFault, since=mark)
    assert (fault.code, fault.text) == ("E3", "Card Not Read")
    events = [e for e in log.after(mark) if not isinstance(e, ShoeFault)]
    assert burned is not None and dealt is not None
    assert events == [
        CardRead(card=burned, burn=True),
        CardRead(card=dealt),
        NoRead(),
        ShoeWarning(code="0x02"),
    ]


def test_beetek_has_no_watchdog(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    # A silent beetek shoe cannot be told from an idle one: the driver stays connected.
    sim, driver, log = connect(make_sim, make_driver, codec="beetek")
    mark = log.mark()
    silent_from = time.monotonic()
    sim.unplug(1.0)  # twice the watchdog a da1 driver would use here
    wait_until(lambda: not sim.unplugged, what="cable back")
    assert time.monotonic() - silent_from >= 1.0
    dealt = sim.deal()
    log.wait_for(CardRead, lambda e: e.card == dealt, since=mark)
    assert not log.of(Disconnected)


def test_port_is_opened_exclusively(make_sim: MakeSim, make_driver: MakeDriver) -> None:
    sim, _, log = connect(make_sim, make_driver)
    second = ShoeDriver(sim.path, EventLog(), reopen_s=0.2)
    with pytest.raises(ShoeConnectionError, match="cannot open shoe port"):
        second.start(require_open=True)
    assert second.stop()


def test_unopenable_port_is_reported_and_retried_until_it_appears(tmp_path: Path, make_driver: MakeDriver) -> None:
    link = tmp_path / "later-shoe"
    driver, log = make_driver(str(link))
    down = log.wait_for(Disconnected)
    assert "cannot open" in down.reason
    with SimulatedShoe(seed=1, link=str(link), heartbeat_s=0.1):
        log.wait_for(Connected)
        assert driver.connected
    assert len(log.of(Disconnected)) >= 1


def test_stop_returns_promptly_in_every_state(make_sim: MakeSim, tmp_path: Path) -> None:
    sim = make_sim()
    # reading an open port
    log = EventLog()
    reading = ShoeDriver(sim.path, log, read_timeout_s=30.0)  # a long read: stop must cancel it
    reading.start()
    log.wait_for(Connected)
    assert reading.stop(timeout=5.0)
    # retrying a port that does not exist
    missing_log = EventLog()
    missing = ShoeDriver(str(tmp_path / "absent"), missing_log, reopen_s=30.0)
    missing.start()
    missing_log.wait_for(Disconnected)  # now waiting 30 s before the next try
    assert missing.stop(timeout=5.0)
    # never started
    assert ShoeDriver(sim.path, EventLog()).stop()


def test_stopped_driver_releases_the_port(make_sim: MakeSim) -> None:
    sim = make_sim()
    for _ in range(2):  # the second driver can only open it if the first let go
        log = EventLog()
        driver = ShoeDriver(sim.path, log)
        driver.start(require_open=True)
        log.wait_for(Connected)
        assert driver.stop()


def test_a_failing_listener_does_not_stop_the_driver(make_sim: MakeSim) -> None:
    log = EventLog()

    def listener(event: ShoeEvent) -> None:
        log(event)
        if isinstance(event, CardRead) and event.card == card("AS"):
            raise RuntimeError("listener bug")

    sim_cards = make_sim(cards=cards("AS KD"), heartbeat_s=None)
    driver = ShoeDriver(sim_cards.path, listener)
    driver.start()
    try:
        log.wait_for(Connected)
        sim_cards.deal()
        sim_cards.deal()
        log.wait_for(CardRead, lambda e: e.card == card("KD"))
    finally:
        assert driver.stop()


def test_pty_slave_path_without_link(make_driver: MakeDriver) -> None:
    with SimulatedShoe(seed=3, heartbeat_s=0.1) as sim:
        assert sim.path.startswith("/dev/") and os.path.exists(sim.path)
        driver, log = make_driver(sim.path)
        log.wait_for(Connected)
        dealt = sim.deal()
        log.wait_for(CardRead, lambda e: e.card == dealt)
        assert driver.stop()


def test_open_serial_is_exclusive(make_sim: MakeSim) -> None:
    sim = make_sim()
    first = open_serial(sim.path, 9600, 0.1)
    try:
        with pytest.raises(Exception, match="exclusively lock"):
            open_serial(sim.path, 9600, 0.1)
    finally:
        first.close()
