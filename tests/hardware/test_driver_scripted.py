"""The driver against a scripted port (no pty): what it writes, how it treats a failing open."""

from __future__ import annotations

import threading

import serial

from hardware.codecs import da1_frame
from hardware.driver import ShoeDriver
from hardware.events import CardRead, Connected, Disconnected, Hello
from tests.hardware.helpers import EventLog, wait_until


class ScriptedPort:
    """A port whose incoming bytes the test supplies; records what the driver writes."""

    def __init__(self) -> None:
        self.written = bytearray()
        self.closed = False
        self._incoming = bytearray()
        self._cond = threading.Condition()
        self.fail_reads = False

    @property
    def in_waiting(self) -> int:
        with self._cond:
            return len(self._incoming)

    def read(self, size: int = 1) -> bytes:
        with self._cond:
            self._cond.wait_for(lambda: bool(self._incoming) or self.fail_reads or self.closed, 0.05)
            if self.fail_reads:
                raise serial.SerialException("device went away")
            out = bytes(self._incoming[:size])
            del self._incoming[:size]
            return out

    def write(self, data: bytes, /) -> int:
        self.written += data
        return len(data)

    def close(self) -> None:
        self.closed = True

    def give(self, data: bytes) -> None:
        with self._cond:
            self._incoming += data
            self._cond.notify_all()

    def fail(self) -> None:
        with self._cond:
            self.fail_reads = True
            self._cond.notify_all()


def test_asks_id_on_connect_and_connects_on_hello() -> None:
    port = ScriptedPort()
    log = EventLog()
    driver = ShoeDriver("scripted", log, port_factory=lambda *a: port)
    driver.start()
    try:
        wait_until(lambda: bytes(port.written) == da1_frame("ID?"), what="ID? written")
        assert not driver.connected
        port.give(da1_frame("0000,HELLO,X1,9.9,SN1") + da1_frame("0001,CARD,A,H"))
        connected = log.wait_for(Connected)
        assert (connected.model, connected.firmware, connected.serial_number) == ("X1", "9.9", "SN1")
        log.wait_for(CardRead)
        assert [type(e) for e in log.snapshot()] == [Hello, Connected, CardRead]
    finally:
        assert driver.stop()
    assert port.closed


def test_open_failures_are_reported_once_and_retried() -> None:
    attempts: list[int] = []
    port = ScriptedPort()

    def factory(path: str, baud: int, timeout: float) -> ScriptedPort:
        attempts.append(baud)
        if len(attempts) < 4:
            raise serial.SerialException("no such device")
        return port

    log = EventLog()
    driver = ShoeDriver("flaky", log, baud=115200, reopen_s=0.01, port_factory=factory)
    driver.start()
    try:
        wait_until(lambda: len(port.written) > 0, what="port opened")
        port.give(da1_frame("0000,HELLO,X1,9.9,SN1"))
        log.wait_for(Connected)
    finally:
        assert driver.stop()
    assert attempts == [115200] * 4
    assert len(log.of(Disconnected)) == 1  # not one line per failed attempt


def test_read_error_reports_disconnected_and_reopens() -> None:
    ports = [ScriptedPort(), ScriptedPort()]
    opened: list[ScriptedPort] = []

    def factory(path: str, baud: int, timeout: float) -> ScriptedPort:
        opened.append(ports[len(opened)])
        return opened[-1]

    log = EventLog()
    driver = ShoeDriver("scripted", log, reopen_s=0.01, port_factory=factory)
    driver.start()
    try:
        wait_until(lambda: len(opened) == 1)
        ports[0].give(da1_frame("0000,HELLO,X1,9.9,SN1"))
        log.wait_for(Connected)
        ports[0].fail()
        down = log.wait_for(Disconnected)
        assert "device went away" in down.reason
        wait_until(lambda: len(opened) == 2 and len(ports[1].written) > 0, what="reopened")
        assert ports[0].closed
        ports[1].give(da1_frame("0005,HELLO,X1,9.9,SN1"))
        log.wait_for(Connected, since=log.snapshot().index(down))
    finally:
        assert driver.stop()


def test_beetek_connects_on_open_without_asking() -> None:
    port = ScriptedPort()
    log = EventLog()
    driver = ShoeDriver("scripted", log, codec="beetek", port_factory=lambda *a: port)
    driver.start()
    try:
        connected = log.wait_for(Connected)
        assert connected.guaranteed is False and connected.model is None
        port.give(b" [Game]<Card:4S> ")
        assert str(log.wait_for(CardRead).card) == "4S"
    finally:
        assert driver.stop()
    assert port.written == b""
