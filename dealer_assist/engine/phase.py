"""The phases of a round and the moves between them: the one place they are written
(issue 26.3). A round changes phase only through ``EventSourcedRound.enter``, which
refuses a move this table does not list (a fault of the program, never of the input).

A table round: betting -> initial (5.3: bets close) -> offers (3.20/3.25/3.27 open after
the initial deal) -> play (the offers close: interim settlement) -> dealer (3.33-3.35) ->
settled. Section 5 and 6.1 add: void from anywhere (5.1, 5.2, a supervisor), referred
(6.1) and back to where play stopped, back to initial (5.21: the first card should have
been burned), settled as soon as nothing is left in play (5.29.1).

Electronic: betting -> initial -> decisions (every terminal decides, 3.9) -> dealer
(3.19) -> settled; void (5.1, 5.8, a supervisor).
"""

from __future__ import annotations

from typing import Final, Literal

Phase = Literal["betting", "initial", "offers", "play", "decisions", "dealer", "settled", "void", "referred"]

BETTING: Final = "betting"
INITIAL: Final = "initial"
OFFERS: Final = "offers"
PLAY: Final = "play"
DECISIONS: Final = "decisions"
DEALER: Final = "dealer"
SETTLED: Final = "settled"
VOID: Final = "void"
REFERRED: Final = "referred"

_IN_PLAY: Final = frozenset({INITIAL, OFFERS, PLAY, DEALER})

TABLE_MOVES: Final[dict[str, frozenset[str]]] = {
    BETTING: frozenset({INITIAL, SETTLED, VOID, REFERRED}),
    INITIAL: frozenset({OFFERS, PLAY, DEALER, SETTLED, VOID, REFERRED}),
    OFFERS: frozenset({PLAY, DEALER, INITIAL, SETTLED, VOID, REFERRED}),
    PLAY: frozenset({DEALER, INITIAL, SETTLED, VOID, REFERRED}),
    DEALER: frozenset({SETTLED, INITIAL, VOID, REFERRED}),
    REFERRED: _IN_PLAY | {SETTLED, VOID},  # 6.1: resumed where play stopped, or concluded
    SETTLED: frozenset({VOID, REFERRED}),  # a card found after the end may still be ruled on
    VOID: frozenset(),
}

ELECTRONIC_MOVES: Final[dict[str, frozenset[str]]] = {
    BETTING: frozenset({INITIAL, SETTLED, VOID}),
    INITIAL: frozenset({DECISIONS, VOID}),
    DECISIONS: frozenset({DEALER, VOID}),
    DEALER: frozenset({SETTLED, VOID}),
    SETTLED: frozenset({VOID}),
    VOID: frozenset(),
}


def check_move(moves: dict[str, frozenset[str]], now: str, to: str) -> None:
    """Raise if the phase machine has no move from ``now`` to ``to``. Staying in a phase is
    no move (a step that also closes the offers or concludes the round may come twice)."""
    if now == to:
        return
    allowed = moves.get(now)
    if allowed is None or to not in allowed:
        raise RuntimeError(f"the round cannot move from phase {now!r} to {to!r}")
