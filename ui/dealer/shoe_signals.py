"""Qt adapter for the shoe driver: re-emits its events as signals on the GUI thread.

The driver (hardware/driver.py) calls its callback on its reader thread and knows
nothing of Qt. ``ShoeSignals.on_event`` is that callback: it posts the event through
``ui.common.qtfix.GuiPost`` (no Qt call on the reader thread), so every signal below is
emitted on the GUI thread (create the object there). The GUI thread never blocks.

    signals = ShoeSignals()
    signals.card.connect(show_card)
    driver = ShoeDriver("/dev/dealer-shoe", signals.on_event)
    driver.start()
    ...
    driver.stop()
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from hardware.driver import ShoeDriver
from hardware.events import (
    POSSIBLE_MISSED_CARD,
    CardRead,
    Connected,
    Disconnected,
    MultiCard,
    ShoeEvent,
    ShoeFault,
    holds_cards,
)
from ui.common.qtfix import GuiPost


class ShoeSignals(QObject):
    """Shoe events as Qt signals. Each signal carries the event object (hardware.events)."""

    shoe_event = Signal(object)  # every event, in arrival order (QObject.event is taken)
    card = Signal(object)  # CardRead
    possible_missed_card = Signal(object)  # DecodeError or SequenceGap: dealer checks the last card
    multi = Signal(object)  # MultiCard: several cards came out together
    # NoRead, a MultiCard with unread cards, DecodeError, SequenceGap: every later card is
    # held until the dealer has said which cards came out (spec/shoe-protocol.md)
    hold = Signal(object)
    fault = Signal(object)  # ShoeFault
    connected = Signal(object)  # Connected
    disconnected = Signal(object)  # Disconnected

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._post = GuiPost(self)

    def on_event(self, event: ShoeEvent) -> None:
        """The driver's callback; safe to call from any thread."""
        self._post.post(self._dispatch, event)

    @Slot(object)
    def _dispatch(self, event: ShoeEvent) -> None:
        self.shoe_event.emit(event)
        if holds_cards(event):
            self.hold.emit(event)
        if isinstance(event, CardRead):
            self.card.emit(event)
        elif isinstance(event, MultiCard):
            self.multi.emit(event)
        elif isinstance(event, POSSIBLE_MISSED_CARD):
            self.possible_missed_card.emit(event)
        elif isinstance(event, ShoeFault):
            self.fault.emit(event)
        elif isinstance(event, Connected):
            self.connected.emit(event)
        elif isinstance(event, Disconnected):
            self.disconnected.emit(event)


def start_shoe(
    port: str, *, codec: str = "da1", parent: QObject | None = None, **driver_options: Any
) -> tuple[ShoeDriver, ShoeSignals]:
    """Start a driver on ``port`` whose events arrive as ``ShoeSignals`` (call on the GUI thread).

    ``driver_options`` go to ``ShoeDriver`` (baud, watchdog_s, reopen_s, ...). Stop it
    with ``driver.stop()`` when the window closes.
    """
    signals = ShoeSignals(parent)
    driver = ShoeDriver(port, signals.on_event, codec=codec, **driver_options)
    driver.start()
    return driver, signals
