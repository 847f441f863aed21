"""``station check``'s shoe part (issue 39 item 6): it reads what the real shoe sends over a
pseudo-terminal and passes it only in the configured wire format; a shoe speaking another
format is named with the fix (the screen would have shown it as lost), noise is not a shoe.
spec/shoe-protocol.md: da1 answers ID? with HELLO; beetek has no ID?."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from dealer_assist.base.cards import card
from dealer_assist.service.station import Check
from hardware.codecs import make_codec
from hardware.events import Alive, CardRead
from hardware.simulator import SimulatedShoe
from hardware.station import judge_shoe_bytes, probe_shoe

MakeSim = Callable[..., SimulatedShoe]


def _probe_while_dealing(sim: SimulatedShoe, codec: str, wait_s: float) -> Check:
    """``station check``'s probe of ``sim`` as configured for ``codec``, a card dealt 0.3 s in
    (a beetek shoe sends nothing until a card comes out)."""
    timer = threading.Timer(0.3, sim.deal)
    timer.start()
    try:
        return probe_shoe(sim.path, codec, 9600, wait_s=wait_s)
    finally:
        timer.cancel()


@pytest.mark.parametrize("codec", ["da1", "da1-xor"])
def test_a_shoe_in_the_configured_format_passes_with_its_hello(make_sim: MakeSim, codec: str) -> None:
    sim = make_sim(codec=codec)
    check = probe_shoe(sim.path, codec, 9600, wait_s=3.0)
    assert check.ok, check.text
    assert "DA-SIM" in check.text and "SIM0001" in check.text


def test_a_beetek_shoe_passes_on_the_frames_it_sends(make_sim: MakeSim) -> None:
    check = _probe_while_dealing(make_sim(codec="beetek"), "beetek", 3.0)
    assert check.ok, check.text
    assert "beetek shoe is sending" in check.text


@pytest.mark.parametrize(("shoe", "configured"), [("da1", "beetek"), ("da1-xor", "da1"), ("da1", "da1-xor")])
def test_a_shoe_in_another_format_is_named_not_passed(make_sim: MakeSim, shoe: str, configured: str) -> None:
    sim = make_sim(codec=shoe)  # heartbeats every 0.1 s (conftest): the shoe talks unasked
    check = probe_shoe(sim.path, configured, 9600, wait_s=2.0)
    assert not check.ok
    assert f"sends {shoe} frames, not {configured}" in check.text and f'shoe.codec = "{shoe}"' in check.text


def test_a_beetek_shoe_dealing_to_a_da1_station_is_named(make_sim: MakeSim) -> None:
    check = _probe_while_dealing(make_sim(codec="beetek"), "da1", 2.0)
    assert not check.ok and 'shoe.codec = "beetek"' in check.text


def test_a_silent_shoe_is_asked_about_power_codec_and_baud(make_sim: MakeSim) -> None:
    sim = make_sim(codec="beetek")  # beetek: no ID?, no heartbeat, nothing dealt
    check = probe_shoe(sim.path, "beetek", 9600, wait_s=0.5)
    assert not check.ok and "no message from the shoe" in check.text
    check = probe_shoe(sim.path, "da1", 9600, wait_s=0.5)
    assert not check.ok and "no answer to ID?" in check.text and "shoe.codec (da1)" in check.text


def test_bytes_no_format_reads_point_at_the_baud_rate() -> None:
    check = judge_shoe_bytes(bytes(range(0x80, 0xC0)) * 4, "da1", 19200)
    assert not check.ok and "no wire format reads" in check.text and "shoe.baud (19200)" in check.text


def test_a_frame_the_codec_reads_among_dropped_ones_is_judged_by_the_majority() -> None:
    beetek = make_codec("beetek")
    good = beetek.encode(CardRead(card=card("KS")))
    assert judge_shoe_bytes(good * 3, "beetek", 9600).ok
    da1 = make_codec("da1")
    heartbeat = da1.encode(Alive(), 1)
    check = judge_shoe_bytes(heartbeat * 3, "beetek", 9600)
    assert not check.ok and 'shoe.codec = "da1"' in check.text


def test_a_port_that_cannot_be_opened_says_so(tmp_path: object) -> None:
    check = probe_shoe("/dev/nonexistent-shoe", "da1", 9600, wait_s=0.2)
    assert not check.ok and "cannot open /dev/nonexistent-shoe" in check.text
