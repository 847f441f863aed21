"""After a power failure in a round (5.29; 5.26 in Dueling 8's; 5.9 in Electronic): who has
still to say whether they withdraw or stay (5.29.1). Every player with a wager in the round
answers once: a withdrawal is the round's ``withdraw`` event, a stay is the service's record
(``stays``); the round's end asks nothing more."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dealer_assist.engine.events import PowerFailure, Withdraw
from dealer_assist.engine.session import TableSession


def players_with_wagers(layout: Any) -> list[str]:
    """Every player with a wager in the round, in layout order (``round_api.RoundView``)."""
    if layout.shared_hand:
        return [t.player for t in layout.terminals]
    names: list[str] = []
    for area in layout.areas:
        names += [w.player for w in area.wagers] + [w.player for w in area.sides]
    return list(dict.fromkeys(names))


def still_to_answer(session: TableSession, stays: Iterable[str]) -> list[str]:
    """The players who have neither withdrawn nor said they stay since the round's power
    failure, in layout order; none when the round had no power failure or is over."""
    rnd = session.round
    events = list(rnd.events)
    if not any(isinstance(e, PowerFailure) for e in events) or session.concluded:
        return []
    answered = {e.player for e in events if isinstance(e, Withdraw)} | set(stays)
    return [p for p in players_with_wagers(rnd.view()) if p not in answered]
