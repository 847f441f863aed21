"""`station check` while the service holds the shoe's port (issue 39): it reports what the
service reads of the shoe's real frames — a codec that is not the shoe's fails the check
instead of "station ready" beside a screen showing "Shoe LOST"."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import dealer_assist.service.station as st
from dealer_assist.service.serve import Running, ServeOptions, start
from dealer_assist.store.users import TEST_PIN_COST
from hardware.simulator import SimulatedShoe
from hardware.station import attach_shoe, shoe_as_the_service_reads_it
from tests.service.conftest import make_shoe

Serve = Callable[..., tuple[Path, SimulatedShoe]]


@pytest.fixture
def serving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Serve]:
    monkeypatch.delenv(st.CONFIG_ENV, raising=False)
    made: list[tuple[Running, SimulatedShoe]] = []

    def run(codec: str, shoe_codec: str = "da1") -> tuple[Path, SimulatedShoe]:
        if shoe_codec == "da1":
            sim = make_shoe("10S 9H QD 8C")
        else:
            sim = SimulatedShoe(game="lucky8", decks=6, codec=shoe_codec, penetration=None)
            sim.open()
        cfg = st.StationConfig(shoe_port=sim.path, codec=codec)
        sock = tmp_path / codec / "s.sock"
        running = start(ServeOptions(state_dir=str(tmp_path / codec / "state"), socket=str(sock),
                                     pin_cost=TEST_PIN_COST), lambda on_event: attach_shoe(cfg, on_event))
        made.append((running, sim))
        return sock, sim

    yield run
    for running, sim in made:
        running.stop()
        sim.close()


def wait_for(sock: Path, codec: str, ok: bool) -> st.Check:
    deadline = time.monotonic() + 10
    while True:
        check = shoe_as_the_service_reads_it(sock, codec, 9600)
        if (check.ok and not check.skipped) == ok or time.monotonic() > deadline:
            return check
        time.sleep(0.2)


def test_the_shoes_frames_read_as_its_codec_pass(serving: Serve) -> None:
    sock, sim = serving("da1")
    sim.deal()
    check = wait_for(sock, "da1", True)
    assert check.ok and "reads the shoe's frames as da1" in check.text


def test_a_codec_that_is_not_the_shoes_fails_the_check(serving: Serve) -> None:
    sock, sim = serving("da1", shoe_codec="beetek")  # the station says da1, the shoe speaks beetek
    for _ in range(3):
        sim.deal()
    check = wait_for(sock, "da1", False)
    assert not check.ok and "Shoe LOST" in check.text and "shoe.codec (da1)" in check.text
