"""Shoe wire formats (spec/shoe-protocol.md): bytes in, events out, no I/O.

A codec is incremental: ``feed`` takes whatever bytes a read returned (half a frame,
three frames, noise) and returns the events completed so far. It never touches the port.

- ``Da1Codec``: ``$<seq>,<TYPE>[,<field>...]*<CK>\\r\\n`` with sequence numbers; reports
  gaps and duplicates, drops bad frames with a ``DecodeError``. ``da1`` checks a
  CRC-16/CCITT-FALSE (four hex digits); ``da1-xor`` (shoes of earlier firmware) the
  8-bit XOR of the body (two hex digits), which misses some two-bit errors.
- ``BeetekCodec``: plain ``[tag]<body>`` / ``<W0x..>`` text; no sequence, no checksum,
  no heartbeat, so it cannot see a lost message.
"""

from __future__ import annotations

import re
from typing import Final, Protocol

from dealer_assist.base.cards import Card, CardNotationError, parse_card
from hardware.events import (
    Alive,
    CardRead,
    CutCard,
    DecodeError,
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

CODEC_NAMES: Final = ("da1", "da1-xor", "beetek")
# Codecs whose checksum misses some errors of two bits: the dealer's screen says so.
WEAK_CHECKSUM_CODECS: Final = frozenset({"da1-xor"})


class Codec(Protocol):
    """What the driver and the simulator need from a wire format."""

    name: str
    # True when the format shows lost frames and a silent shoe (sequence + heartbeat).
    guaranteed: bool
    # True when the checksum misses some two-bit errors (da1-xor's 8-bit XOR).
    weak_checksum: bool

    def feed(self, data: bytes, received_ns: int = 0) -> list[ShoeEvent]:
        """Events completed by ``data`` (which continues the previous bytes)."""
        ...

    def reset(self) -> None:
        """Forget any partial frame (after the port was reopened). Sequence tracking stays."""
        ...

    def id_request(self) -> bytes | None:
        """Bytes asking the shoe to identify itself, or None if the format has none."""
        ...

    def encode(self, event: ShoeEvent, seq: int = 0) -> bytes:
        """The bytes a shoe sends for ``event`` (the simulator's side)."""
        ...


def make_codec(name: str) -> Codec:
    """A fresh codec by name: ``da1``, ``da1-xor`` or ``beetek``."""
    if name == "da1":
        return Da1Codec()
    if name == "da1-xor":
        return Da1Codec(xor=True)
    if name == "beetek":
        return BeetekCodec()
    raise ValueError(f"unknown codec '{name}': use one of {', '.join(CODEC_NAMES)}")


# --------------------------------------------------------------------------- da1

DA1_MAX_FRAME: Final = 84  # bytes from '$' to '\n'
DA1_SEQ_MODULO: Final = 10000
DA1_TYPES: Final = frozenset(
    {"HELLO", "CARD", "NOREAD", "MULTI", "CUT", "LOADED", "EMPTY", "ALIVE", "FAULT"}
)
_SEQ_RE: Final = re.compile(rb"\d{4}\Z")


def _crc16_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC16_TABLE: Final = _crc16_table()


def crc16_ccitt_false(data: bytes | bytearray, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection, no final XOR
    (check value 0x29B1 for ``123456789``)."""
    table = _CRC16_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFF00) ^ table[(crc >> 8) ^ b]
    return crc


def da1_checksum(body: bytes | bytearray) -> int:
    """The da1 checksum of the bytes between '$' and '*': CRC-16/CCITT-FALSE."""
    return crc16_ccitt_false(body)


def da1_xor_checksum(body: bytes | bytearray) -> int:
    """The da1-xor checksum (earlier firmware): XOR of every byte between '$' and '*'."""
    ck = 0
    for b in body:
        ck ^= b
    return ck


def da1_check_text(body: bytes | bytearray, *, xor: bool = False) -> bytes:
    """The checksum as it is written: four uppercase hex digits (da1), two for da1-xor."""
    if xor:
        return b"%02X" % da1_xor_checksum(body)
    return b"%04X" % da1_checksum(body)


def da1_frame(body: str, *, xor: bool = False) -> bytes:
    """``$body*CK\\r\\n`` for an ASCII body (``xor``: the da1-xor checksum)."""
    raw = body.encode("ascii")
    return b"$" + raw + b"*" + da1_check_text(raw, xor=xor) + b"\r\n"


def _clean_field(text: str) -> str:
    """Free text made safe for a field: no commas (';'), no frame delimiters, ASCII only."""
    text = text.replace(",", ";")
    text = re.sub(r"[$*\r\n]", " ", text)
    return text.encode("ascii", "replace").decode("ascii")


class Da1Codec:
    """The project's framed format. Tracks sequence numbers across ``feed`` calls.

    ``xor``: the codec ``da1-xor`` (two hex digits, the 8-bit XOR) instead of the CRC-16.
    """

    guaranteed = True

    def __init__(self, *, xor: bool = False) -> None:
        self.xor = xor
        self.name = "da1-xor" if xor else "da1"
        self.weak_checksum = xor
        self._frame: bytearray | None = None  # bytes since '$', None outside a frame
        self._last_seq: int | None = None
        self.noise_bytes = 0  # bytes skipped outside frames

    def reset(self) -> None:
        self._frame = None

    def forget_sequence(self) -> None:
        """Start sequence tracking afresh (the next good frame shows no gap)."""
        self._last_seq = None

    def id_request(self) -> bytes:
        return da1_frame("ID?", xor=self.xor)

    # -- decoding
    def feed(self, data: bytes, received_ns: int = 0) -> list[ShoeEvent]:
        out: list[ShoeEvent] = []
        i, n = 0, len(data)
        while i < n:
            frame = self._frame
            if frame is None:
                j = data.find(b"$", i)
                if j < 0:
                    self.noise_bytes += n - i
                    break
                self.noise_bytes += j - i
                self._frame = bytearray(b"$")
                i = j + 1
                continue
            # inside a frame: it ends at '\n', or a new '$' cuts it short
            nl = data.find(b"\n", i)
            dollar = data.find(b"$", i)
            if dollar >= 0 and (nl < 0 or dollar < nl):
                frame += data[i:dollar]
                if len(frame) > DA1_MAX_FRAME:
                    out.append(DecodeError(kind="oversize", detail=_show(frame), received_ns=received_ns))
                else:
                    out.append(DecodeError(kind="truncated", detail=_show(frame), received_ns=received_ns))
                self._frame = bytearray(b"$")
                i = dollar + 1
                continue
            end = n if nl < 0 else nl + 1
            frame += data[i:end]
            i = end
            if len(frame) > DA1_MAX_FRAME:
                out.append(DecodeError(kind="oversize", detail=_show(frame), received_ns=received_ns))
                self._frame = None  # skip to the next '$'
                if nl < 0:
                    break
                continue
            if nl >= 0:
                self._frame = None
                self._decode_frame(bytes(frame), received_ns, out)
        return out

    def _decode_frame(self, frame: bytes, received_ns: int, out: list[ShoeEvent]) -> None:
        line = frame[1:].rstrip(b"\r\n")
        star = line.rfind(b"*")
        if star < 0 or len(line) - star - 1 != (2 if self.xor else 4):
            out.append(DecodeError(kind="malformed", detail=_show(frame), received_ns=received_ns))
            return
        body, ck_text = line[:star], line[star + 1 :]
        # exactly the uppercase hex digits the spec writes: a flipped case bit is an error too
        if ck_text != da1_check_text(body, xor=self.xor):
            out.append(DecodeError(kind="checksum", detail=_show(frame), received_ns=received_ns))
            return
        try:
            text = body.decode("ascii")
        except UnicodeDecodeError:
            out.append(DecodeError(kind="malformed", detail=_show(frame), received_ns=received_ns))
            return
        parts = text.split(",")
        if len(parts) < 2 or not _SEQ_RE.match(parts[0].encode()):
            out.append(DecodeError(kind="malformed", detail=_show(frame), received_ns=received_ns))
            return
        seq = int(parts[0])
        kind, fields = parts[1], parts[2:]
        # sequence first: the frame arrived whatever its content
        if self._last_seq is not None and seq == self._last_seq:
            out.append(Duplicate(seq=seq, received_ns=received_ns))
            return
        if kind == "HELLO" and seq == 0:
            # power-on: the sequence restarts. Unless it is the plain successor of the last
            # frame, frames sent just before (a card, a NOREAD) may be lost unseen: say so.
            if self._last_seq is not None and self._last_seq != DA1_SEQ_MODULO - 1:
                out.append(SequenceGap(lost=0, seq=seq, restart=True, received_ns=received_ns))
        elif self._last_seq is not None:
            lost = (seq - self._last_seq - 1) % DA1_SEQ_MODULO
            if lost:
                out.append(SequenceGap(lost=lost, seq=seq, received_ns=received_ns))
        self._last_seq = seq
        out.append(self._event(kind, fields, seq, received_ns, frame))

    @staticmethod
    def _event(kind: str, f: list[str], seq: int, ns: int, frame: bytes) -> ShoeEvent:
        def error(k: str) -> DecodeError:
            return DecodeError(kind=k, detail=_show(frame), seq=seq, received_ns=ns)

        if kind not in DA1_TYPES:
            return error("unknown_type")
        try:
            if kind == "CARD" and len(f) == 2:
                return CardRead(card=parse_card(f[0] + f[1]), seq=seq, received_ns=ns)
            if kind == "MULTI" and f and f[0].isdigit() and len(f) % 2 == 1:
                count = int(f[0])
                cards = tuple(parse_card(f[k] + f[k + 1]) for k in range(1, len(f), 2))
                if count >= 1 and len(cards) <= count:
                    return MultiCard(count=count, cards=cards, seq=seq, received_ns=ns)
                return error("malformed")
        except CardNotationError:
            return error("bad_card")
        if kind == "HELLO" and len(f) == 3:
            return Hello(model=f[0], firmware=f[1], serial_number=f[2], seq=seq, received_ns=ns)
        if kind == "FAULT" and len(f) in (1, 2):
            return ShoeFault(code=f[0], text=f[1] if len(f) == 2 else "", seq=seq, received_ns=ns)
        if not f:
            simple = _DA1_SIMPLE.get(kind)
            if simple is not None:
                return simple(seq=seq, received_ns=ns)
        return error("malformed")

    # -- encoding (the shoe's side)
    def encode(self, event: ShoeEvent, seq: int = 0) -> bytes:
        raw = da1_frame(f"{seq % DA1_SEQ_MODULO:04d},{da1_body(event)}", xor=self.xor)
        if len(raw) > DA1_MAX_FRAME:
            raise ValueError(f"a da1 frame holds at most {DA1_MAX_FRAME} bytes: {event.name} needs {len(raw)}")
        return raw


_DA1_SIMPLE: Final[dict[str, type[ShoeEvent]]] = {
    "NOREAD": NoRead,
    "CUT": CutCard,
    "LOADED": ShoeLoaded,
    "EMPTY": ShoeEmpty,
    "ALIVE": Alive,
}
_DA1_SIMPLE_NAMES: Final = {v: k for k, v in _DA1_SIMPLE.items()}


def _card_fields(card: Card) -> str:
    return f"{card.rank},{card.suit}"


def da1_body(event: ShoeEvent) -> str:
    """``TYPE[,field...]`` for an event a shoe sends (no seq)."""
    if isinstance(event, CardRead):
        return "CARD," + _card_fields(event.card)
    if isinstance(event, MultiCard):
        return ",".join(["MULTI", str(event.count), *(_card_fields(c) for c in event.cards)])
    if isinstance(event, Hello):
        parts = (event.model, event.firmware, event.serial_number)
        return "HELLO," + ",".join(_clean_field(p)[:16] for p in parts)
    if isinstance(event, ShoeFault):
        code = _clean_field(event.code)[:16]
        text = _clean_field(event.text)[: DA1_MAX_FRAME - 30 - len(code)]
        return f"FAULT,{code},{text}"
    simple = _DA1_SIMPLE_NAMES.get(type(event))
    if simple is None:
        raise ValueError(f"da1 has no frame for {event.name}")
    return simple


def _show(raw: bytes | bytearray) -> str:
    """Bytes for a log line or an error detail."""
    return bytes(raw[:100]).decode("ascii", "backslashreplace").replace("\r", "\\r").replace("\n", "\\n")


class Da1CommandReader:
    """The shoe's side of da1: host commands (``$ID?*CK\\r\\n``) with a good checksum
    (``xor``: da1-xor's)."""

    def __init__(self, *, xor: bool = False) -> None:
        self._buf = bytearray()
        self.xor = xor

    def feed(self, data: bytes) -> list[str]:
        self._buf += data
        out: list[str] = []
        while True:
            start = self._buf.find(b"$")
            if start < 0:
                self._buf.clear()
                return out
            end = self._buf.find(b"\n", start)
            if end < 0:
                del self._buf[:start]
                if len(self._buf) > DA1_MAX_FRAME:
                    self._buf.clear()
                return out
            line = bytes(self._buf[start + 1 : end]).rstrip(b"\r")
            del self._buf[: end + 1]
            body, _, ck = line.rpartition(b"*")
            if body and ck == da1_check_text(body, xor=self.xor) and b"$" not in body:
                out.append(body.decode("ascii", "replace"))


# ------------------------------------------------------------------------ beetek

BEETEK_MAX_TOKEN: Final = 120
_ALARM_CODE_RE: Final = re.compile(r"(?:[A-Z]{1,3}\d{1,4}|[A-Z]{2,8}|0x[0-9A-Fa-f]{1,4})\Z")
_WARNING_RE: Final = re.compile(r"W(0x[0-9A-Fa-f]{1,4})\Z")


class BeetekCodec:
    """Plain text ``[tag]<body>`` tokens. No sequence, checksum or heartbeat."""

    name = "beetek"
    guaranteed = False
    weak_checksum = False  # it has none at all: ``guaranteed`` False says more

    _OUTSIDE, _TAG, _AFTER_TAG, _BODY = range(4)

    def __init__(self) -> None:
        self._state = self._OUTSIDE
        self._tag = bytearray()
        self._body = bytearray()
        self._has_tag = False
        self.noise_bytes = 0

    def reset(self) -> None:
        self._state = self._OUTSIDE

    def id_request(self) -> None:
        return None

    def feed(self, data: bytes, received_ns: int = 0) -> list[ShoeEvent]:
        out: list[ShoeEvent] = []
        for b in data:
            c = chr(b)
            state = self._state
            if c == "[" or (c == "<" and state != self._AFTER_TAG):
                if state in (self._TAG, self._BODY) or (state == self._AFTER_TAG):
                    out.append(self._error("truncated", received_ns))
                if c == "[":
                    self._state, self._has_tag = self._TAG, True
                    self._tag.clear()
                else:
                    self._state, self._has_tag = self._BODY, False
                    self._tag.clear()
                    self._body.clear()
                continue
            if state == self._OUTSIDE:
                self.noise_bytes += 1
            elif state == self._TAG:
                if c == "]":
                    self._state = self._AFTER_TAG
                else:
                    self._tag.append(b)
                    if len(self._tag) > BEETEK_MAX_TOKEN:
                        out.append(self._error("oversize", received_ns))
                        self._state = self._OUTSIDE
            elif state == self._AFTER_TAG:
                if c == "<":
                    self._state = self._BODY
                    self._body.clear()
                elif c != " ":
                    out.append(self._error("malformed", received_ns))
                    self._state = self._OUTSIDE
            else:  # body
                if c == ">":
                    self._state = self._OUTSIDE
                    out.append(self._message(received_ns))
                else:
                    self._body.append(b)
                    if len(self._body) > BEETEK_MAX_TOKEN:
                        out.append(self._error("oversize", received_ns))
                        self._state = self._OUTSIDE
        return out

    def _raw(self) -> str:
        tag = f"[{_show(self._tag)}]" if self._has_tag else ""
        body = f"<{_show(self._body)}" if self._state in (self._BODY, self._OUTSIDE) else ""
        return tag + body

    def _error(self, kind: str, ns: int) -> DecodeError:
        return DecodeError(kind=kind, detail=self._raw(), received_ns=ns)

    def _message(self, ns: int) -> ShoeEvent:
        tag = bytes(self._tag).decode("ascii", "replace") if self._has_tag else ""
        body = bytes(self._body).decode("ascii", "replace")
        if body.startswith("Card:"):
            try:
                card = parse_card(body[5:].strip())
            except CardNotationError:
                return DecodeError(kind="bad_card", detail=self._raw() + ">", received_ns=ns)
            return CardRead(card=card, burn="burn" in tag.lower(), received_ns=ns)
        if body == "Game":
            return NoRead(received_ns=ns)
        if body.startswith("Alarm:"):
            text = body[6:].strip()
            first, _, rest = text.partition(" ")
            if _ALARM_CODE_RE.match(first):
                return ShoeFault(code=first, text=rest.strip(), received_ns=ns)
            return ShoeFault(code="ALARM", text=text, received_ns=ns)
        warning = _WARNING_RE.match(body)
        if warning and not self._has_tag:
            return ShoeWarning(code=warning.group(1), received_ns=ns)
        return DecodeError(kind="unknown_type", detail=self._raw() + ">", received_ns=ns)

    def encode(self, event: ShoeEvent, seq: int = 0) -> bytes:
        return beetek_text(event).encode("ascii")


def _clean_beetek(text: str) -> str:
    return re.sub(r"[\[\]<>\r\n]", " ", text).encode("ascii", "replace").decode("ascii")[:80]


def beetek_text(event: ShoeEvent) -> str:
    """The text a beetek shoe sends for ``event``; ValueError if it has none."""
    if isinstance(event, CardRead):
        tag = "Manual Burn Cards" if event.burn else "Game"
        return f" [{tag}]<Card:{event.card}> "
    if isinstance(event, NoRead):
        return " [Game]<Game> "
    if isinstance(event, ShoeFault):
        code = _clean_beetek(event.code).strip()
        text = _clean_beetek(event.text).strip()
        body = text if code == "ALARM" else f"{code} {text}".strip()
        return f" [GameAlarm]<Alarm:{body}> "
    if isinstance(event, ShoeWarning):
        return f"<W{_clean_beetek(event.code).strip()}>"
    raise ValueError(f"beetek has no message for {event.name}")
