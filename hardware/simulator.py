"""A simulated card-reading shoe on a pseudo-terminal (spec/shoe-protocol.md, "The simulated shoe").

It builds the game's shoe (composition × decks), shuffles it from a seed or takes a
fixed card order, and speaks a codec on the master end of a pty; the driver opens the
slave path with pyserial exactly as it opens a real shoe. A background thread answers
``ID?`` with ``HELLO`` and sends ``ALIVE`` once a second while idle (da1).

Faults on demand: ``noise``, ``deal(corrupt=True)`` (bad checksum), ``drop(n)``,
``multi``, ``noread``, ``repeat_last`` (duplicate frame), ``fault`` (JAM ...),
``unplug(seconds)`` (stops answering, then comes back) and
``unplug(seconds, close_pty=True)`` (closes its pty end and opens a new one; pass
``link`` so the shoe keeps a stable path, like the udev symlink /dev/dealer-shoe).
"""

from __future__ import annotations

import errno
import os
import random
import select
import termios
import threading
import time
import tty
from collections.abc import Sequence

from dealer_assist.base.cards import Card
from dealer_assist.games import composition_for
from hardware.codecs import Da1CommandReader, beetek_text, make_codec
from hardware.events import (
    Alive,
    CardRead,
    CutCard,
    Hello,
    MultiCard,
    NoRead,
    ShoeEmpty,
    ShoeEvent,
    ShoeFault,
    ShoeLoaded,
    ShoeWarning,
)

HEARTBEAT_S = 1.0
MAX_DECKS = 8  # the most any of the five games uses (2.1)
MAX_MULTI = 8  # cards in one double feed (a MULTI frame fits 84 bytes)


class SimulatedShoe:
    """A shoe that deals from a known card order over a pty. Use as a context manager."""

    def __init__(
        self,
        *,
        game: str = "ace_race",
        decks: int = 6,
        seed: int | None = None,
        cards: Sequence[Card] | None = None,
        codec: str = "da1",
        penetration: float | None = 0.75,
        heartbeat_s: float | None = HEARTBEAT_S,
        link: str | None = None,
        group: str | None = None,
        model: str = "DA-SIM",
        firmware: str = "1.0",
        serial_number: str = "SIM0001",
        write_timeout_s: float = 1.0,
    ) -> None:
        if not 1 <= decks <= MAX_DECKS:
            raise ValueError(f"a simulated shoe holds 1 to {MAX_DECKS} decks, not {decks}")
        if penetration is not None and not 0.0 < penetration <= 1.0:
            raise ValueError("penetration is a fraction of the shoe, above 0 and at most 1")
        self.game = game
        self.decks = decks
        self._fixed = tuple(cards) if cards is not None else None
        self._deck = composition_for(game)  # KeyError for an unknown game
        self._rng = random.Random(seed)
        self.codec_name = codec
        self._codec = make_codec(codec)
        self.penetration = penetration
        self._framed = codec in ("da1", "da1-xor")  # da1 frames (CRC-16 or, da1-xor, the XOR)
        self.heartbeat_s = heartbeat_s if self._framed else None
        self.link = link
        self.group = group  # the pty's group (0660), e.g. dialout: the station service may open it
        self.identity = (model, firmware, serial_number)
        self.write_timeout_s = write_timeout_s

        self._lock = threading.RLock()
        self._order: list[Card] = []
        self.position = 0  # cards taken out since the shuffle
        self.cut_position: int | None = None
        self.cut_out = False
        self.seq = 0  # next da1 sequence number
        self.frames_sent = 0  # frames that reached the wire
        self._drop = 0
        self._last_frame = b""
        self._last_send = time.monotonic()
        self._unplugged_until: float | None = None
        self._reopen_pending = False
        self._master: int | None = None
        self._slave: int | None = None
        self._slave_name = ""
        self._commands = Da1CommandReader(xor=codec == "da1-xor")
        self._thread: threading.Thread | None = None
        self._closing = threading.Event()
        self._wake_r, self._wake_w = -1, -1
        self._new_order()

    # ------------------------------------------------------------ lifecycle
    @property
    def path(self) -> str:
        """Where the driver opens the shoe: the stable link if there is one, else the pty slave."""
        return self.link or self._slave_name

    def open(self) -> str:
        """Open the pty, start answering, send the power-on HELLO and LOADED; returns ``path``."""
        self._open_pty()
        self._wake_r, self._wake_w = os.pipe()
        self._closing.clear()
        self._thread = threading.Thread(target=self._loop, name="simulated-shoe", daemon=True)
        self._thread.start()
        self.power_on()
        return self.path

    def close(self) -> None:
        self._closing.set()
        if self._wake_w >= 0:
            os.write(self._wake_w, b"x")
        if self._thread is not None:
            self._thread.join(2.0)
            self._thread = None
        with self._lock:
            self._close_pty()
        for fd in (self._wake_r, self._wake_w):
            if fd >= 0:
                os.close(fd)
        self._wake_r = self._wake_w = -1

    def __enter__(self) -> SimulatedShoe:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ the cards
    @property
    def size(self) -> int:
        return len(self._order)

    @property
    def remaining(self) -> int:
        return len(self._order) - self.position

    def peek(self) -> Card | None:
        """The next card in the shoe (None when empty)."""
        with self._lock:
            return self._order[self.position] if self.position < len(self._order) else None

    def _new_order(self) -> None:
        if self._fixed is not None:
            self._order = list(self._fixed)
        else:
            self._order = list(self._deck) * self.decks
            self._rng.shuffle(self._order)
        self.position = 0
        self.unread: Card | None = None  # the last card out unread (NOREAD), until re-read
        self.cut_out = False
        self.cut_position = (
            None if self.penetration is None else max(1, int(len(self._order) * self.penetration))
        )

    def _take(self) -> Card | None:
        """The next card out of the shoe; the cut card first if it is reached."""
        if self.position >= len(self._order):
            self._send(ShoeEmpty())
            return None
        if not self.cut_out and self.cut_position is not None and self.position >= self.cut_position:
            self.cut_out = True
            self._send(CutCard())
        card = self._order[self.position]
        self.position += 1
        return card

    # ------------------------------------------------------------ what the dealer does
    def power_on(self) -> None:
        """The shoe (re)starts: HELLO with sequence 0000, then LOADED."""
        with self._lock:
            self.seq = 0
            self._send(Hello(model=self.identity[0], firmware=self.identity[1], serial_number=self.identity[2]))
            self._send(ShoeLoaded())

    def deal(self, *, corrupt: bool = False) -> Card | None:
        """Draw the next card and report it (``corrupt``: with a bad checksum). None when empty."""
        with self._lock:
            card = self._take()
            if card is not None:
                self._send(CardRead(card=card), corrupt=corrupt)
            return card

    def burn(self) -> Card | None:
        """Draw the next card as a burn card (beetek marks it; da1 sends a plain CARD)."""
        with self._lock:
            card = self._take()
            if card is not None:
                self._send(CardRead(card=card, burn=True))
            return card

    def noread(self) -> Card | None:
        """Draw the next card without reading it (NOREAD); returns the card that came out."""
        with self._lock:
            card = self._take()
            if card is not None:
                self.unread = card
                self._send(NoRead())
            return card

    def reread(self, *, readable: bool = True) -> Card | None:
        """The dealer puts the card the shoe could not read through the reader again: that
        card (not the next one in the shoe) is read this time (``readable`` False: unread
        again, a NOREAD, and still the unread card). None if no card is unread."""
        with self._lock:
            card = self.unread
            if card is not None and readable:
                self.unread = None
                self._send(CardRead(card=card))
            elif card is not None:
                self._send(NoRead())
            return card

    def multi(self, count: int = 2, *, unreadable: int = 0) -> list[Card]:
        """A double feed: ``count`` cards together; the last ``unreadable`` of them are not read."""
        if not 1 <= count <= MAX_MULTI or not 0 <= unreadable <= count:
            raise ValueError(f"a double feed is 1 to {MAX_MULTI} cards, with 0 to all of them unreadable")
        with self._lock:
            if self.remaining < 1:
                self._send(ShoeEmpty())
                return []
            count = min(count, self.remaining)
            taken = [c for c in (self._take() for _ in range(count)) if c is not None]
            read = tuple(taken[: max(0, len(taken) - unreadable)])
            self._send(MultiCard(count=len(taken), cards=read))
            return taken

    def cut(self) -> None:
        """The cut card comes out now."""
        with self._lock:
            self.cut_out = True
            self._send(CutCard())

    def shuffle(self) -> None:
        """Load a freshly shuffled shoe (the same order again for a fixed card list): LOADED."""
        with self._lock:
            self._new_order()
            self._send(ShoeLoaded())

    def fault(self, code: str = "JAM", text: str = "card jam") -> None:
        """A device fault: JAM (stuck card), SENSOR, LID, ..."""
        with self._lock:
            self._send(ShoeFault(code=code, text=text))

    def empty(self) -> None:
        """The shoe says it holds no card (EMPTY; beetek: its "Shoe Empty" alarm)."""
        with self._lock:
            self._send(ShoeEmpty())

    def warn(self, code: str = "0x01") -> None:
        """A bare warning code, as a beetek shoe sends it (``<W0x01>``); the framed formats
        have no warning frame (nothing is sent)."""
        if self._framed:
            return
        with self._lock:
            self._send(ShoeWarning(code=code))

    # ------------------------------------------------------------ faults on the line
    def noise(self, size: int = 16) -> None:
        """Random bytes between frames (never a frame start, so no frame is cut short)."""
        forbidden = b"$" if self._framed else b"[]<>"
        junk = bytes(b for b in self._rng.randbytes(size * 2) if b not in forbidden)[:size]
        with self._lock:
            self._write(junk)

    def drop(self, frames: int = 1) -> None:
        """The next ``frames`` frames are lost on the line (their sequence numbers are used)."""
        with self._lock:
            self._drop += frames

    def repeat_last(self) -> None:
        """Send the last frame again (the driver must ignore the duplicate)."""
        with self._lock:
            if self._last_frame:
                self._write(self._last_frame)

    def send_raw(self, data: bytes) -> None:
        """Put arbitrary bytes on the line."""
        with self._lock:
            self._write(data)

    def unplug(self, seconds: float, *, close_pty: bool = False) -> None:
        """Pull the cable for ``seconds`` (returns at once). Frames sent meanwhile are lost.

        ``close_pty``: also close the pty (the driver's reads fail) and open a new one
        when the cable comes back; ``link`` then points at the new one.
        """
        with self._lock:
            self._unplugged_until = time.monotonic() + seconds
            if close_pty:
                self._close_pty()
                self._reopen_pending = True
        if self._wake_w >= 0:
            os.write(self._wake_w, b"x")

    def replug(self) -> None:
        """Put the cable back now (ends ``unplug`` early; the pty is reopened if it was closed)."""
        with self._lock:
            if self._unplugged_until is not None:
                self._unplugged_until = time.monotonic()
        if self._wake_w >= 0:
            os.write(self._wake_w, b"x")

    @property
    def unplugged(self) -> bool:
        return self._unplugged_until is not None

    # ------------------------------------------------------------ wire
    def _send(self, event: ShoeEvent, *, corrupt: bool = False) -> None:
        """Encode and send one frame, applying drops and the unplugged cable."""
        seq = self.seq
        data = self._encode(event, seq)
        if data is None:
            return
        self.seq = (seq + 1) % 10000
        if corrupt:
            data = self._corrupt(data)
        if self._drop > 0:
            self._drop -= 1
            return
        if self._write(data):
            self._last_frame = data
            self.frames_sent += 1

    def _encode(self, event: ShoeEvent, seq: int) -> bytes | None:
        if self._framed:
            return self._codec.encode(event, seq)
        # beetek: only cards, unread cards, alarms; the rest has no message of its own
        if isinstance(event, MultiCard):
            text = "".join(beetek_text(CardRead(card=c)) for c in event.cards)
            alarm = ShoeFault(code="E5", text=f"Multiple Cards {event.count}")
            return (text + beetek_text(alarm)).encode("ascii")
        if isinstance(event, ShoeEmpty):
            return beetek_text(ShoeFault(code="ALARM", text="Shoe Empty")).encode("ascii")
        try:
            return beetek_text(event).encode("ascii")
        except ValueError:
            return None

    def _corrupt(self, data: bytes) -> bytes:
        if self._framed:
            star = data.rindex(b"*")
            end = data.index(b"\r", star)
            ck = int(data[star + 1 : end], 16) ^ 0x5A
            return data[: star + 1] + f"{ck:0{end - star - 1}X}".encode() + data[end:]
        return data.replace(b"Card:", b"Card:?")  # beetek has no checksum: a garbled card

    def _write(self, data: bytes) -> bool:
        """Write to the master end; waits at most ``write_timeout_s`` for room, then drops."""
        master = self._master
        if master is None or self._unplugged_until is not None:
            return False  # nothing reaches a pulled cable
        view = memoryview(data)
        deadline = time.monotonic() + self.write_timeout_s
        while view:
            try:
                sent = os.write(master, view)
                view = view[sent:]
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0:
                    # nobody reads the line: its bytes are gone, as on a real cable
                    if self._slave is not None:
                        termios.tcflush(self._slave, termios.TCIFLUSH)
                    return False
                select.select([], [master], [], left)
            except OSError:
                return False
        self._last_send = time.monotonic()
        return True

    def _open_pty(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: bytes pass as they are
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self._slave_name = os.ttyname(slave)
        if self.group:  # as a udev rule gives the real shoe's device to group dialout
            import grp

            os.chown(self._slave_name, -1, grp.getgrnam(self.group).gr_gid)
            os.chmod(self._slave_name, 0o660)
        self._commands = Da1CommandReader(xor=self.codec_name == "da1-xor")
        if self.link:
            tmp = f"{self.link}.{os.getpid()}.tmp"
            if os.path.lexists(tmp):
                os.unlink(tmp)
            os.symlink(self._slave_name, tmp)
            os.replace(tmp, self.link)

    def _close_pty(self) -> None:
        if self.link and os.path.lexists(self.link):
            os.unlink(self.link)  # like udev removing /dev/dealer-shoe
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None

    def _loop(self) -> None:
        """Answer ID?, send heartbeats, bring the cable back."""
        while not self._closing.is_set():
            now = time.monotonic()
            timeout = 0.5
            with self._lock:
                until = self._unplugged_until
                if until is not None and now >= until:
                    self._unplugged_until = until = None
                    if self._reopen_pending:
                        self._reopen_pending = False
                        self._open_pty()
                if until is not None:
                    timeout = min(timeout, until - now)
                elif self.heartbeat_s is not None:
                    due = self._last_send + self.heartbeat_s - now
                    if due <= 0:
                        self._send(Alive())
                        due = self.heartbeat_s
                    timeout = min(timeout, due)
                master = self._master
            watch = [self._wake_r] + ([master] if master is not None else [])
            try:
                ready, _, _ = select.select(watch, [], [], max(0.0, timeout))
            except (OSError, ValueError):
                time.sleep(0.01)  # the pty was closed under us; look again
                continue
            if self._wake_r in ready:
                os.read(self._wake_r, 100)
            if master is not None and master in ready:
                self._read_commands(master)

    def _read_commands(self, master: int) -> None:
        with self._lock:
            if master != self._master:
                return  # closed (cable pulled) since select
            try:
                data = os.read(master, 4096)
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno == errno.EIO:
                    time.sleep(0.01)
                return
            if self._unplugged_until is not None or not self._framed:
                return  # nobody is listening on a pulled cable
            for command in self._commands.feed(data):
                if command == "ID?":
                    model, firmware, serial_number = self.identity
                    self._send(Hello(model=model, firmware=firmware, serial_number=serial_number))
