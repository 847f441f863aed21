from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hardware.driver import ShoeDriver
from hardware.simulator import SimulatedShoe
from tests.hardware.helpers import EventLog

# Short intervals so fault tests run fast; the defaults (1 s heartbeat, 3 s watchdog,
# 1 s reopen) are those of the spec.
HEARTBEAT_S = 0.1
WATCHDOG_S = 0.5
REOPEN_S = 0.2


@pytest.fixture
def make_sim(tmp_path: Path) -> Iterator[Callable[..., SimulatedShoe]]:
    shoes: list[SimulatedShoe] = []

    def make(**options: Any) -> SimulatedShoe:
        options.setdefault("seed", 7)
        options.setdefault("heartbeat_s", HEARTBEAT_S)
        options.setdefault("link", str(tmp_path / f"shoe{len(shoes)}"))
        shoe = SimulatedShoe(**options)
        shoe.open()
        shoes.append(shoe)
        return shoe

    yield make
    for shoe in shoes:
        shoe.close()


@pytest.fixture
def make_driver() -> Iterator[Callable[..., tuple[ShoeDriver, EventLog]]]:
    drivers: list[ShoeDriver] = []

    def make(port: str, **options: Any) -> tuple[ShoeDriver, EventLog]:
        log = EventLog()
        options.setdefault("watchdog_s", WATCHDOG_S)
        options.setdefault("reopen_s", REOPEN_S)
        driver = ShoeDriver(port, log, **options)
        drivers.append(driver)
        driver.start()
        return driver, log

    yield make
    for driver in drivers:
        assert driver.stop(), "driver thread did not stop"
