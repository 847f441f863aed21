"""Narrow exceptions. Every refusal by the rules carries the clause that forbids the event."""

from __future__ import annotations


class DealerAssistError(Exception):
    """Base of the errors this package raises on purpose."""


class RuleRefusal(DealerAssistError):
    """The rules forbid this event; the round is unchanged. ``clause`` names the rule."""

    def __init__(self, message: str, clause: str | None = None) -> None:
        self.message = message
        self.clause = clause
        super().__init__(f"{message} ({clause})" if clause else message)


class EventFormatError(DealerAssistError):
    """An event that is not well formed (missing field, unknown bet, bad card)."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class TranscriptError(DealerAssistError):
    """A transcript cannot be settled. ``message`` is the line `settle` prints after ``error: ``."""

    def __init__(self, message: str, index: int | None = None) -> None:
        self.message = message
        self.index = index
        super().__init__(message)
