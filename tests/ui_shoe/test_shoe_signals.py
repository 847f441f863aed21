"""ui.dealer.shoe_signals: driver events re-emitted as Qt signals on the GUI thread (pytest-qt, offscreen)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from hardware.driver import ShoeDriver
from hardware.events import (
    CardRead,
    Connected,
    DecodeError,
    Disconnected,
    SequenceGap,
    ShoeEvent,
    ShoeFault,
)
from hardware.simulator import SimulatedShoe
from ui.dealer.shoe_signals import ShoeSignals, start_shoe

pytestmark = pytest.mark.gui
WAIT_MS = 5000  # generous; signals normally arrive within milliseconds


def test_events_arrive_as_signals_on_the_gui_thread(qtbot: Any, tmp_path: Path) -> None:
    threads: list[threading.Thread] = []
    seen: list[ShoeEvent] = []

    def record(event: ShoeEvent) -> None:
        threads.append(threading.current_thread())
        seen.append(event)

    with SimulatedShoe(seed=2, heartbeat_s=0.1, link=str(tmp_path / "shoe")) as sim:
        signals = ShoeSignals()
        signals.shoe_event.connect(record)
        driver = ShoeDriver(sim.path, signals.on_event, reopen_s=0.2, watchdog_s=0.5)
        try:
            with qtbot.waitSignal(signals.connected, timeout=WAIT_MS) as connected:
                driver.start()
            assert isinstance(connected.args[0], Connected)
            with qtbot.waitSignal(signals.card, timeout=WAIT_MS) as card:
                dealt = sim.deal()
            assert isinstance(card.args[0], CardRead) and card.args[0].card == dealt
            with qtbot.waitSignal(signals.possible_missed_card, timeout=WAIT_MS) as missed:
                sim.deal(corrupt=True)
            assert isinstance(missed.args[0], DecodeError)
            with qtbot.waitSignal(signals.possible_missed_card, timeout=WAIT_MS) as gap:
                sim.deal()
            assert isinstance(gap.args[0], SequenceGap)
            with qtbot.waitSignal(signals.fault, timeout=WAIT_MS) as fault:
                sim.fault("LID", "lid open")
            assert isinstance(fault.args[0], ShoeFault) and fault.args[0].code == "LID"
            with qtbot.waitSignal(signals.disconnected, timeout=WAIT_MS) as lost:
                sim.unplug(60)
            assert isinstance(lost.args[0], Disconnected)
        finally:
            assert driver.stop()
    assert seen and all(t is threading.main_thread() for t in threads)
    assert any(isinstance(e, CardRead) for e in seen)


def test_start_shoe_helper(qtbot: Any) -> None:
    with SimulatedShoe(seed=3, heartbeat_s=0.1) as sim:
        driver, signals = start_shoe(sim.path, reopen_s=0.2)
        try:
            qtbot.waitUntil(lambda: driver.connected, timeout=WAIT_MS)
            with qtbot.waitSignal(signals.card, timeout=WAIT_MS) as card:
                dealt = sim.deal()
            assert card.args[0].card == dealt
        finally:
            assert driver.stop()


def test_a_double_feed_with_an_unread_card_is_signalled_as_a_hold(qtbot: Any, tmp_path: Path) -> None:
    # spec/shoe-protocol.md: a MULTI with fewer readable cards than its count holds, like NOREAD
    from dealer_assist.base.cards import cards
    from hardware.events import MultiCard, NoRead

    order = list(cards("5D 9C 7H 10C 2S 3S"))
    with SimulatedShoe(cards=order, penetration=None, link=str(tmp_path / "shoe")) as sim:
        signals = ShoeSignals()
        holds: list[ShoeEvent] = []
        signals.hold.connect(holds.append)
        driver = ShoeDriver(sim.path, signals.on_event)
        try:
            with qtbot.waitSignal(signals.connected, timeout=WAIT_MS):
                driver.start()
            with qtbot.waitSignal(signals.multi, timeout=WAIT_MS) as multi:
                assert sim.multi(3, unreadable=1) == order[:3]
            event = multi.args[0]
            assert isinstance(event, MultiCard)
            assert (event.count, event.cards, event.unread) == (3, tuple(order[:2]), 1)
            assert holds == [event]  # the double feed with an unread card holds
            with qtbot.waitSignal(signals.multi, timeout=WAIT_MS) as whole:
                sim.multi(2)  # both read: no hold
            assert whole.args[0].unread == 0 and holds == [event]
            with qtbot.waitSignal(signals.hold, timeout=WAIT_MS) as noread:
                sim.noread()
            assert isinstance(noread.args[0], NoRead)
        finally:
            assert driver.stop()


def test_the_weaker_checksum_is_reported_on_connect(qtbot: Any, tmp_path: Path) -> None:
    # a da1-xor shoe (earlier firmware) on a real pty: the driver reads it and says so
    with SimulatedShoe(seed=3, codec="da1-xor", link=str(tmp_path / "shoe")) as sim:
        signals = ShoeSignals()
        driver = ShoeDriver(sim.path, signals.on_event, codec="da1-xor")
        try:
            with qtbot.waitSignal(signals.connected, timeout=WAIT_MS) as connected:
                driver.start()
            event = connected.args[0]
            assert isinstance(event, Connected)
            assert (event.codec, event.weak_checksum, event.guaranteed) == ("da1-xor", True, True)
            with qtbot.waitSignal(signals.card, timeout=WAIT_MS) as card:
                dealt = sim.deal()
            assert card.args[0].card == dealt
        finally:
            assert driver.stop()
