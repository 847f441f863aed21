"""What a card-reading shoe reports, as small immutable events.

Codecs turn bytes into these; the driver adds its own (connected, disconnected).
Every event carries ``received_ns``: ``time.monotonic_ns()`` when its last byte was
read (not part of equality, so decoded events compare by content), and ``seq``,
the frame's sequence number where the wire format has one (da1), else None.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from dealer_assist.base.cards import Card


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeEvent:
    """Base of every shoe event."""

    seq: int | None = None
    received_ns: int = field(default=0, compare=False)

    # The JSON name of the event ("card", "gap", ...); set on each subclass.
    name = "event"


@dataclass(frozen=True, slots=True, kw_only=True)
class CardRead(ShoeEvent):
    """A card left the shoe and was read. ``burn``: the shoe marked it a burned card."""

    card: Card
    burn: bool = False
    name = "card"


@dataclass(frozen=True, slots=True, kw_only=True)
class NoRead(ShoeEvent):
    """A card left the shoe and could not be read."""

    name = "noread"


@dataclass(frozen=True, slots=True, kw_only=True)
class MultiCard(ShoeEvent):
    """Several cards left together (double feed); ``cards`` are those that were read, order unknown.

    With fewer ``cards`` than ``count`` some came out unread: like ``NoRead``, every later
    card is held until the dealer has said which cards came out (spec "What the driver
    must do"); the readable ones are never assigned on their own.
    """

    count: int
    cards: tuple[Card, ...] = ()
    name = "multi"

    @property
    def unread(self) -> int:
        """How many of the cards that came out were not read."""
        return max(0, self.count - len(self.cards))


@dataclass(frozen=True, slots=True, kw_only=True)
class CutCard(ShoeEvent):
    """The cut card came out: shuffle after this round."""

    name = "cut"


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeLoaded(ShoeEvent):
    """A freshly shuffled shoe was loaded."""

    name = "loaded"


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeEmpty(ShoeEvent):
    """No cards left in the shoe."""

    name = "empty"


@dataclass(frozen=True, slots=True, kw_only=True)
class Alive(ShoeEvent):
    """Heartbeat (da1: once a second while idle)."""

    name = "alive"


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeFault(ShoeEvent):
    """A device fault or alarm: ``code`` like JAM, SENSOR, LID, E3; ``text`` free text."""

    code: str
    text: str = ""
    name = "fault"


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeWarning(ShoeEvent):
    """A bare warning code (beetek ``<W0x01>``)."""

    code: str
    name = "warning"


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(ShoeEvent):
    """The shoe identified itself (power-on, or in answer to ``ID?``)."""

    model: str
    firmware: str
    serial_number: str
    name = "hello"


@dataclass(frozen=True, slots=True, kw_only=True)
class DecodeError(ShoeEvent):
    """Bytes that were dropped. It may have been a card: the dealer must check the last card.

    ``kind``: checksum, unknown_type, oversize, malformed, truncated, bad_card.
    """

    kind: str
    detail: str = ""
    name = "error"


@dataclass(frozen=True, slots=True, kw_only=True)
class SequenceGap(ShoeEvent):
    """``lost`` frames never arrived (a card may be missing). ``seq`` is the frame that showed it.
    ``restart``: the shoe restarted (a power-on ``HELLO`` at sequence 0 that does not follow
    the last frame); how many frames were lost before it cannot be known (``lost`` 0)."""

    lost: int
    restart: bool = False
    name = "gap"


@dataclass(frozen=True, slots=True, kw_only=True)
class Duplicate(ShoeEvent):
    """The same frame arrived twice; the copy was ignored."""

    name = "duplicate"


@dataclass(frozen=True, slots=True, kw_only=True)
class Connected(ShoeEvent):
    """The driver is talking to the shoe. ``model`` etc. are None when the codec has no HELLO.

    ``guaranteed``: the codec shows lost frames and a silent shoe (da1); beetek does not.
    ``codec``: the wire format's name; ``weak_checksum``: its checksum misses some
    two-bit errors (da1-xor, shoes of earlier firmware): the dealer's screen says so.
    """

    port: str
    model: str | None = None
    firmware: str | None = None
    serial_number: str | None = None
    guaranteed: bool = True
    codec: str = "da1"
    weak_checksum: bool = False
    name = "connected"


@dataclass(frozen=True, slots=True, kw_only=True)
class Disconnected(ShoeEvent):
    """The shoe was lost (port error, cable pulled, heartbeat stopped); the driver keeps retrying."""

    port: str
    reason: str = ""
    name = "disconnected"


# Events that mean "a card may have been missed": the round must wait for the dealer.
POSSIBLE_MISSED_CARD: tuple[type[ShoeEvent], ...] = (DecodeError, SequenceGap)


def holds_cards(event: ShoeEvent) -> bool:
    """Whether ``event`` holds every later card until the dealer says which cards came
    out: a card may be missing (checksum, gap), or a card came out unread (``NoRead``,
    a ``MultiCard`` with fewer readable cards than its count)."""
    if isinstance(event, MultiCard):
        return event.unread > 0
    return isinstance(event, (*POSSIBLE_MISSED_CARD, NoRead))


def event_to_json(event: ShoeEvent) -> dict[str, Any]:
    """A JSON-ready dict: ``{"event": "card", "card": "10H", "seq": 42}``."""
    out: dict[str, Any] = {"event": event.name}
    for f in fields(event):
        if f.name in ("seq", "received_ns"):
            continue
        value = getattr(event, f.name)
        if isinstance(value, Card):
            value = str(value)
        elif isinstance(value, tuple):
            value = [str(v) for v in value]
        out[f.name] = value
    if isinstance(event, CardRead) and not event.burn:
        del out["burn"]
    if isinstance(event, SequenceGap) and not event.restart:
        del out["restart"]
    if event.seq is not None:
        out["seq"] = event.seq
    return out
