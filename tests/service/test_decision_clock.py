"""The decision clock's bookkeeping (dealer_assist/service/decision_clock.py; 3.17, 3.18,
5.9.1), without its thread: which seat keeps its clock, which gets a new one, which none."""

from __future__ import annotations

import datetime as dt
from typing import Any

from dealer_assist.service.decision_clock import DecisionClock


def test_a_seat_keeps_its_clock_while_the_same_decision_is_pending() -> None:
    ran_out: list[tuple[str, Any]] = []
    clock = DecisionClock(lambda seat, key: ran_out.append((seat, key)))
    clock.set({"t1": ("r1", 0), "t2": ("r1", 0)}, 20)
    first = clock.get("t1")
    assert first is not None and 0 < first.seconds_left() <= 20
    assert dt.datetime.fromisoformat(first.deadline.replace("Z", "+00:00")) > dt.datetime.now(dt.UTC)
    clock.set({"t1": ("r1", 0)}, 20)  # t2 decided: its clock is gone, t1's the same one
    assert clock.get("t1") is first and clock.get("t2") is None
    clock.set({"t1": ("r1", 1)}, 20)  # t1 decided (a hit) and decides again: a new clock
    assert clock.get("t1") is not first
    assert ran_out == []  # no thread: nothing runs out by itself


def test_a_dropped_seat_has_no_time_and_a_run_out_clock_starts_again_if_not_taken() -> None:
    clock = DecisionClock(lambda seat, key: None)
    clock.set({"t1": ("r1", 0)}, 120)
    full = clock.get("t1")
    assert full is not None and 0 < full.seconds_left() <= 120
    clock.set({"t1": ("r1", 0)}, 120, {"t1"})  # its terminal dropped (5.9.1): none left
    dropped = clock.get("t1")
    assert dropped is not None and dropped is not full and dropped.seconds_left() == 0
    dropped.fired = True  # run out, the time-out not taken (e.g. the round was referred, 6.1)
    clock.set({"t1": ("r1", 0)}, 120)  # back, the same decision pending: its time again
    again = clock.get("t1")
    assert again is not None and again is not dropped and again.seconds_left() > 0
    assert not clock.counting("t1")  # no thread runs it: a screen's time-out is not held back
