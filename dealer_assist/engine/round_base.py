"""What both kinds of round share as event-sourced state: apply an event or refuse it
leaving the round exactly as it was (rebuilt from its accepted events), record a card
the shoe read (5.1: a card that cannot belong voids the round), and the 5.5 ruling on a
card found face up; what the round expects (set by the handler of the last event when it
knows, else worked out from the state when asked, and kept until the next event) and its status.
``electronic.ElectronicRound`` derives from ``EventSourcedRound`` and supplies ``_reset``,
``_dispatch``, ``_expectation``, ``clause`` and ``void``. (``table.TableRound`` keeps the
same contract composed around its ``table_state.TableState``.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final, Protocol

from dealer_assist.base.cards import Card
from dealer_assist.base.errors import EventFormatError, RuleRefusal
from dealer_assist.engine.events import Event
from dealer_assist.engine.outcome import Expectation, Ruling
from dealer_assist.engine.phase import Phase, check_move
from dealer_assist.engine.shoe_state import ShoeState

_STATUS: Final = {"void": "void", "settled": "settled", "referred": "referred"}


class Replayed(Protocol):
    """What a replay reads and writes: the accepted events and the index of the one applied."""

    events: list[Event]
    event_index: int


def replay(state: Replayed, reset: Callable[[], None], dispatch: Callable[[Event], None]) -> None:
    """Rebuild a round from its accepted events after a refusal: ``reset`` starts ``state`` afresh
    (with a new events list), then each event is dispatched again and kept. Both kinds of round
    use it (``EventSourcedRound`` and ``table.TableRound``); only a refused event comes here."""
    events = state.events
    reset()
    for i, e in enumerate(events):
        state.event_index = i
        dispatch(e)
        state.events.append(e)


class EventSourcedRound:
    """A round folded from its events."""

    events: list[Event]
    phase: Phase  # changed only by enter()
    moves: dict[str, frozenset[str]]  # the round's phase machine (phase.TABLE_MOVES, ELECTRONIC_MOVES)
    event_index: int  # the index of the event being applied
    rulings: list[Ruling]
    shoe: ShoeState
    _expected: Expectation | None  # expectation(), until the next event
    _asked: Expectation | None  # the expectation the event being applied answers
    _next: Expectation | None  # what comes next, as the handler of the event being applied set it

    def apply(self, event: Event) -> None:
        """Apply one event, or raise :class:`RuleRefusal` leaving the round unchanged."""
        self.event_index = len(self.events)
        # What the round said it expected before this event (None if nobody asked): the
        # card it said it waits for goes there without working the target out again.
        self._asked = self._expected
        self._expected = None
        self.expect_next(None)  # (a method: the compiled build must not take it as None after the event)
        try:
            self._dispatch(event)
        except (RuleRefusal, EventFormatError):  # a malformed event is refused alike
            self._rebuild()
            raise
        finally:
            self._asked = self._expected = None  # anything worked out mid-event is stale
        # The handler that knew what comes next set it (expect_next); else it is worked out
        # from the state when asked.
        self._expected = self.next_expected()
        self.events.append(event)

    def apply_all(self, events: Iterable[Event]) -> None:
        for e in events:
            self.apply(e)

    def _rebuild(self) -> None:
        replay(self, self._reset, self._dispatch)

    def expectation(self) -> Expectation:
        """What the round waits for now: as the last event's handler set it, else worked out
        from the state once until the next event."""
        expected = self._expected
        if expected is None:
            expected = self._expected = self._expectation()
        return expected

    def next_expected(self) -> Expectation | None:
        """What the handler of the event being applied set (``expect_next``), if anything."""
        return self._next

    def expect_next(self, expectation: Expectation | None) -> None:
        """The handler of the event being applied says what the round waits for next (it must
        be what the state gives: ``expectation_from_state``; the engine tests check it)."""
        self._next = expectation

    def expectation_from_state(self) -> Expectation:
        """What the round waits for, worked out from its state now (never the kept one)."""
        return self._expectation()

    def enter(self, to: Phase) -> None:
        """Move to phase ``to``: the one place a phase changes (phase.py lists the moves)."""
        check_move(self.moves, self.phase, to)
        self.phase = to

    def status(self) -> str:
        """settled, void, referred or in_progress."""
        return _STATUS.get(self.phase, "in_progress")

    def _expectation(self) -> Expectation:
        raise NotImplementedError

    def _reset(self) -> None:
        raise NotImplementedError

    def _dispatch(self, event: Event) -> None:
        raise NotImplementedError

    def clause(self, concept: str) -> str:
        raise NotImplementedError

    def void(self, rule: str, text: str) -> None:
        """The round is void: every wager is returned, citing ``rule``."""
        raise NotImplementedError

    def check_shoe(self, card: Card) -> bool:
        """Record a card the shoe read; a card that cannot belong to it voids the round (5.1)."""
        problem = self.shoe.record(card)
        if problem is None:
            return True
        self.void(self.clause("void.foreign_card"), problem.reason + ": the round is void")
        return False

    def face_up(self, card: Card) -> None:
        """5.5: a card found face up in the shoe is played as if it were found face down."""
        rule = self.clause("face_up_card")
        self.rulings.append(Ruling(self.event_index, rule, "played",
                                   f"{card} was found face up in the shoe: it is played as if face down ({rule})"))
