"""Serial driver for a card-reading shoe (spec/shoe-protocol.md, "What the driver must do").

One reader thread per shoe. It opens the port exclusively, reads with a finite
timeout, feeds the bytes to a codec, stamps each event with ``time.monotonic_ns()``
when its bytes were read, and hands it to ``on_event`` (called on the reader thread;
the station service takes it under its table lock, hardware/station.py). When the shoe is
lost (port error, or on da1 no byte for ``watchdog_s``) it reports ``Disconnected``,
closes the port, and reopens it every ``reopen_s`` until the shoe answers ``HELLO``.

No Qt here. The port is made by an injected factory, so tests can script it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Protocol

import serial

from hardware.codecs import Codec, make_codec
from hardware.events import (
    Connected,
    DecodeError,
    Disconnected,
    Hello,
    MultiCard,
    SequenceGap,
    ShoeEvent,
)

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())  # the application decides where logs go

DEFAULT_BAUD = 9600
WATCHDOG_S = 3.0  # da1: no byte for this long means the shoe is lost
REOPEN_S = 1.0  # how often to reopen a lost shoe / re-ask ID?
READ_TIMEOUT_S = 0.1  # longest a read blocks; bounds watchdog and stop latency


class ShoePort(Protocol):
    """The part of ``serial.Serial`` the driver uses."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def close(self) -> None: ...


PortFactory = Callable[[str, int, float], ShoePort]
EventCallback = Callable[[ShoeEvent], None]


class ShoeConnectionError(Exception):
    """The shoe's port could not be opened."""


def open_serial(path: str, baud: int, read_timeout_s: float) -> ShoePort:
    """Open a real serial port: exclusive, 8N1, finite read and write timeouts."""
    return serial.Serial(
        port=path,
        baudrate=baud,
        bytesize=serial.EIGHTBITS,
        parity=serial.PARITY_NONE,
        stopbits=serial.STOPBITS_ONE,
        timeout=read_timeout_s,
        write_timeout=1.0,
        exclusive=True,
    )


class ShoeDriver:
    """Reads one shoe on its own thread and reports events to ``on_event``.

    ``start()`` returns at once (with ``require_open=True`` it first opens the port in
    the caller's thread and raises ``ShoeConnectionError`` if it cannot). ``stop()``
    never hangs: reads time out after ``read_timeout_s`` and are cancelled at once.
    """

    def __init__(
        self,
        port: str,
        on_event: EventCallback,
        *,
        codec: str | Codec = "da1",
        baud: int = DEFAULT_BAUD,
        watchdog_s: float = WATCHDOG_S,
        reopen_s: float = REOPEN_S,
        read_timeout_s: float = READ_TIMEOUT_S,
        port_factory: PortFactory = open_serial,
    ) -> None:
        self.port_name = port
        self.codec: Codec = make_codec(codec) if isinstance(codec, str) else codec
        self.baud = baud
        self.watchdog_s = watchdog_s
        self.reopen_s = reopen_s
        self.read_timeout_s = read_timeout_s
        self._on_event = on_event
        self._factory = port_factory
        self._stop = threading.Event()
        self._lock = threading.Lock()  # guards _port against stop() / request_id()
        self._port: ShoePort | None = None
        self._first_port: ShoePort | None = None
        self._thread: threading.Thread | None = None
        self._connected = False
        self._reported_down = False
        self.hello: Hello | None = None
        # what happened so far, for a technician's screen: event names, "reconnects", ...
        self.stats: Counter[str] = Counter()

    # ---------------------------------------------------------------- public
    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def weak_checksum(self) -> bool:
        """Whether the checksum misses some two-bit errors (da1-xor); the screen must say so."""
        return self.codec.weak_checksum

    @property
    def guaranteed(self) -> bool:
        """Whether the wire format shows lost frames and a silent shoe (da1 yes, beetek no)."""
        return self.codec.guaranteed

    def start(self, *, require_open: bool = False) -> None:
        if self._thread is not None:
            raise RuntimeError("driver already started")
        if require_open:
            self._first_port = self._open()
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._run, name=f"shoe-reader {self.port_name}", daemon=True
        )
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> bool:
        """Stop reading and close the port; True if the thread ended within ``timeout``."""
        self._stop.set()
        with self._lock:
            port = self._port
        if port is not None:
            _cancel_read(port)
        thread, self._thread = self._thread, None
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def request_id(self) -> bool:
        """Send ``ID?`` now (da1); False if there is no open port or the codec has no such request."""
        request = self.codec.id_request()
        with self._lock:
            port = self._port
        if request is None or port is None:
            return False
        return self._write(port, request)

    def __enter__(self) -> ShoeDriver:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---------------------------------------------------------------- thread
    def _run(self) -> None:
        port, self._first_port = self._first_port, None
        try:
            while not self._stop.is_set():
                if port is None:
                    try:
                        port = self._open()
                    except ShoeConnectionError as exc:
                        self._report_down(str(exc))
                        self._stop.wait(self.reopen_s)
                        continue
                with self._lock:
                    self._port = port
                try:
                    self._session(port)
                finally:
                    with self._lock:
                        self._port = None
                    _close(port)
                    port = None
                if not self._stop.is_set():
                    self.stats["reopens"] += 1
        finally:
            if port is not None:
                _close(port)
            self._connected = False

    def _open(self) -> ShoePort:
        try:
            return self._factory(self.port_name, self.baud, self.read_timeout_s)
        except Exception as exc:  # pyserial raises SerialException, OSError, ValueError, OverflowError...
            raise ShoeConnectionError(f"cannot open shoe port {self.port_name}: {exc}") from exc

    def _session(self, port: ShoePort) -> None:
        """Read one opened port until it fails, goes silent, or stop() is called."""
        codec = self.codec
        codec.reset()
        watchdog_ns = int(self.watchdog_s * 1e9)
        reopen_ns = int(self.reopen_s * 1e9)
        opened_ns = last_byte_ns = last_ask_ns = time.monotonic_ns()
        request = codec.id_request()
        if request is None:
            self._set_connected(None)  # nothing to wait for (beetek)
        elif not self._write(port, request):
            return
        while not self._stop.is_set():
            try:
                data = port.read(port.in_waiting or 1)
                if data and (more := port.in_waiting):
                    data += port.read(more)  # the rest of a frame that came in one piece
            except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
                # TypeError/AttributeError: pyserial after close() from another thread
                if not self._stop.is_set():
                    self._report_down(f"read failed: {exc}")
                return
            now = time.monotonic_ns()
            if data:
                last_byte_ns = now
                for event in codec.feed(data, now):
                    self._handle(event)
            if request is None:
                continue  # beetek: no heartbeat to watch, no HELLO to wait for
            if self._connected:
                if now - last_byte_ns >= watchdog_ns:
                    self._report_down(f"no data for {self.watchdog_s:g} s")
                    return
            elif now - last_byte_ns >= reopen_ns and now - opened_ns >= reopen_ns:
                self._report_down("no answer to ID?")  # reported once, if not already
                return  # silent and no HELLO: close and reopen
            elif now - last_ask_ns >= reopen_ns:
                # bytes are arriving but no HELLO yet: ask again, keep what is buffered
                last_ask_ns = now
                if not self._write(port, request):
                    return

    def _handle(self, event: ShoeEvent) -> None:
        self.stats[event.name] += 1
        if isinstance(event, DecodeError):
            log.warning("shoe %s: dropped frame (%s): %s", self.port_name, event.kind, event.detail)
        elif isinstance(event, SequenceGap) and event.restart:
            log.warning("shoe %s restarted (HELLO at seq 0): frames just before may be lost", self.port_name)
        elif isinstance(event, SequenceGap):
            log.warning("shoe %s: %d frame(s) lost before seq %s", self.port_name, event.lost, event.seq)
        elif isinstance(event, MultiCard) and event.unread:
            log.warning("shoe %s: %d card(s) came out together, %d unread: later cards are held",
                        self.port_name, event.count, event.unread)
        self._deliver(event)
        if isinstance(event, Hello):
            self.hello = event
            if not self._connected:
                self._set_connected(event)

    def _set_connected(self, hello: Hello | None) -> None:
        self._connected = True
        self._reported_down = False
        log.info("shoe %s connected%s", self.port_name, f": {hello.model}" if hello else "")
        if self.codec.weak_checksum:
            log.warning("shoe %s speaks %s: its 8-bit checksum misses some two-bit errors",
                        self.port_name, self.codec.name)
        self._deliver(
            Connected(
                port=self.port_name,
                model=hello.model if hello else None,
                firmware=hello.firmware if hello else None,
                serial_number=hello.serial_number if hello else None,
                guaranteed=self.codec.guaranteed,
                codec=self.codec.name,
                weak_checksum=self.codec.weak_checksum,
                received_ns=time.monotonic_ns(),
            )
        )

    def _report_down(self, reason: str) -> None:
        """Report the shoe lost, once per loss (and once if it was never reached)."""
        was_connected, self._connected = self._connected, False
        if was_connected or not self._reported_down:
            self._reported_down = True
            log.warning("shoe %s disconnected: %s", self.port_name, reason)
            self._deliver(
                Disconnected(port=self.port_name, reason=reason, received_ns=time.monotonic_ns())
            )

    def _write(self, port: ShoePort, data: bytes) -> bool:
        try:
            port.write(data)
            return True
        except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
            if not self._stop.is_set():
                self._report_down(f"write failed: {exc}")
            return False

    def _deliver(self, event: ShoeEvent) -> None:
        try:
            self._on_event(event)
        except Exception:  # a broken listener must not stop the shoe
            log.exception("shoe event listener failed on %r", event)


def _cancel_read(port: ShoePort) -> None:
    cancel = getattr(port, "cancel_read", None)
    if cancel is not None:
        try:
            cancel()
        except (OSError, TypeError, ValueError):
            pass


def _close(port: ShoePort) -> None:
    try:
        port.close()
    except (serial.SerialException, OSError):
        pass
