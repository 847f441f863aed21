"""What the parts of a table round share that is not state (``table_state.TableState`` holds
that): the plain expectations made once (a card for a place, a decision with nothing open),
an amount as a refusal quotes it, and what a refusal adds about what the round waits for.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from dealer_assist.base.errors import RuleRefusal
from dealer_assist.engine.outcome import Expectation


class Unexpected(RuleRefusal):
    """An event the round does not wait for now: ``TableRound`` adds what it waits for
    instead (``waiting_for``) and refuses it as a plain :class:`RuleRefusal`. (The parts
    hold no reference to the round: it is freed as soon as nobody holds it.)"""


def waiting_for(exp: Expectation) -> str:
    """What a refusal adds about what the round waits for instead."""
    if exp.kind == "decision":
        return f" (waiting for a decision by {exp.player} on area {exp.area})"
    if exp.kind == "wagers":
        return " (bets are not closed)"
    return ""


def amount_text(amount: Decimal) -> str:
    """An amount as a refusal quotes it (25, 12.5)."""
    return f"{amount.normalize():f}"


# card_expected's expectations by number * 16 + hand index (a list: indexed, not hashed).
_CARD_EXPECTED: Final[list[Expectation | None]] = [None] * 256


NOTHING_EXPECTED: Final = Expectation("none")
WAGERS_EXPECTED: Final = Expectation("wagers")


_DECISION_EXPECTED: Final[dict[tuple[int, int, str | None, tuple[str, ...]], Expectation]] = {}


def decision_expected(number: int, hand_no: int, player: str | None, options: tuple[str, ...]) -> Expectation:
    """A decision with no offers open and nobody else on the hand (most decisions); made once
    each (a plain dictionary: compiled, a native call instead of an lru_cache object's)."""
    key = (number, hand_no, player, options)
    exp = _DECISION_EXPECTED.get(key)
    if exp is None:
        if len(_DECISION_EXPECTED) >= 4096:  # bounded: player names come and go over a long session
            _DECISION_EXPECTED.clear()
        exp = _DECISION_EXPECTED[key] = Expectation("decision", None, number, hand_no, player, options)
    return exp


def card_expected(number: int, hand_index: int) -> Expectation:
    """A card for the dealer (area 0) or for an area's hand (index from 0); made once each
    (expectations are immutable)."""
    key = number * 16 + hand_index  # at most 4 hands per area (3.23.2)
    kept = 0 <= hand_index < 16 and 0 <= key < 256
    exp = _CARD_EXPECTED[key] if kept else None
    if exp is None:
        where = "dealer" if number == 0 else f"area:{number}/{hand_index + 1}"
        exp = Expectation("card", where, number, hand_index + 1)
        if kept:
            _CARD_EXPECTED[key] = exp
    return exp
