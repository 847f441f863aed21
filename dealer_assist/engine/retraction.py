"""Taking back the last input (undo): what may be taken back, by whom.

A stray key (a Stand the player never signalled, 3.31) is taken back before it has any
consequence: the round is then exactly as if the input had never come. What is taken
back is not a transcript event (the transcript has none for it): the events leave the
round's list and the store records, in its audit log, what was removed and by whom.

- **The dealer** takes back the last input while it is the last thing recorded: a
  decision, or a card the dealer assigned (a card placed with ``to``, a player's pick),
  and only before the next card (once a card is recorded after a decision, that card was
  dealt on it: putting it right is reconstructing the cards, a supervisor's matter,
  rules 5.6.1 / Electronic 5.2).
- **A supervisor** (with a PIN) takes back further: the last event whatever it is (a
  card out of the shoe goes back to being a card in hand waiting to be placed), one
  at a time, down to the bets' closing.
- **Never**: the slip and *no more bets* (the bets are closed, 5.3), a supervisor's void
  or decision (6.1), an event that used a supervisor's approval (a correction, the pit
  manager's pick), anything after the round concluded, or anything an interim
  settlement was already made on (the money has moved).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dealer_assist.base.errors import RuleRefusal
from dealer_assist.engine.events import CardDrawn, Decision, Event, Pick
from dealer_assist.engine.round_api import Round

__all__ = ["Retraction", "retraction"]

# Events no undo takes back: the round's opening and what a supervisor decided or approved;
# each with the game's concept of the rule that makes it final.
_NEVER = {
    "no_more_bets": ("the bets are closed", "bets_closed"),
    "wager": ("the bets are closed", "bets_closed"),
    "claim": ("the bets are closed", "bets_closed"),
    "void": ("a void is a supervisor's ruling", "void.foreign_card"),
    "resolve": ("the shift manager's decision stands", "refer"),
    "correction": ("a correction was approved by a supervisor", "misdeal.reconstruct"),
    "power_failure": ("a power failure is a fact of the round", "power_failure"),
}


@dataclass(frozen=True)
class Retraction:
    """The events one undo takes back (in recorded order) and the round without them.
    ``cards``: the cards among them (read or placed), which go back to waiting to be placed."""

    events: tuple[Event, ...]
    remaining: tuple[Event, ...]
    cards: tuple[CardDrawn, ...]
    describe: str


def _reconstruct(rnd: Round) -> str:
    """The clause under which a supervisor puts wrongly dealt cards right (5.6.1; Electronic 5.2):
    what an undo refused for a card already dealt on the input names (docs/ui.md, Undo)."""
    return _clause(rnd, "misdeal.reconstruct")


def _clause(rnd: Round, concept: str, instead: str = "misdeal.reconstruct") -> str:
    """The game's clause for ``concept``, else for ``instead`` (a game without that rule)."""
    rules = rnd.rules
    return rules.clause(concept if rules.has(concept) else instead)


def _describe(event: Event) -> str:
    if isinstance(event, Decision):
        where = f" on area {event.area}" if event.area is not None else ""
        hand = f" hand {event.hand}" if event.hand not in (None, 0, 1) else ""
        who = f" ({event.player})" if event.player else ""
        return f"{event.action}{where}{hand}{who}"
    if isinstance(event, CardDrawn):
        return f"card {event.card}" + (f" placed at {event.to}" if event.to is not None else "")
    if isinstance(event, Pick):
        return f"pick of {event.card}"
    return event.type


def retraction(rnd: Round, recorded: Sequence[Event], *, supervisor: bool) -> Retraction:
    """What one undo takes back from ``recorded`` (the round's final events, those of
    ``rnd``), or RuleRefusal naming why nothing may be. ``supervisor``: a supervisor's
    PIN was given (takes back further than the dealer may)."""
    events = tuple(recorded)
    if not events:
        # before "No more bets" the wagers are changed on the slip (5.3), not taken back
        raise RuleRefusal("nothing is recorded in this round to take back", _clause(rnd, "bets_closed"))
    status = rnd.status()
    if status in ("settled", "void") or (status == "in_progress" and rnd.expectation().kind == "none"):
        # the round of play concludes once its outcome is established (1.1.12; Dueling 8's 1.1.9)
        raise RuleRefusal(f"the round has concluded ({status}): nothing is taken back after the settlement",
                          _clause(rnd, "round_of_play"))
    last = events[-1]
    taken: tuple[Event, ...] = (last,)
    never = _NEVER.get(last.type)
    if never is None and isinstance(last, Pick) and last.by == "pit_manager":
        never = ("the pit manager's pick was approved by a supervisor", "multi.dealer_none")  # 5.23.4.1
    if never is not None:
        why, concept = never
        raise RuleRefusal(f"the last event cannot be taken back: {why}", _clause(rnd, concept))
    if not supervisor:
        dealer_may = isinstance(last, Decision) or isinstance(last, Pick) or (
            isinstance(last, CardDrawn) and last.to is not None)
        if not dealer_may:
            earlier = events[:-1]
            if earlier and isinstance(earlier[-1], Decision) and earlier[-1].action in ("hit", "double"):
                earlier = earlier[:-1]  # the decision that took this very card
            before = next((e for e in reversed(earlier) if isinstance(e, Decision)), None)
            since = f" since the {_describe(before)}" if before is not None else ""
            raise RuleRefusal(
                f"the next card ({str(getattr(last, 'card', last.type))}) is already recorded{since}: a decision is taken "
                f"back only before the next card; a supervisor's PIN takes back more: the cards dealt "
                f"on it are reconstructed by a supervisor", _reconstruct(rnd))
    elif isinstance(last, CardDrawn) and last.to is None and len(events) >= 2:
        # a hit and the card it took were recorded together: a supervisor takes back both
        prev = events[-2]
        if isinstance(prev, Decision) and prev.action in ("hit", "double"):
            taken = (prev, last)
    remaining = events[:len(events) - len(taken)]
    trial = rnd.fresh()
    trial.apply_all(remaining)  # a prefix of accepted events: accepted again
    if len(trial.settlements) != len(rnd.settlements):
        # after an interim settlement the cards are reconstructed by a supervisor's ruling (5.6.2)
        raise RuleRefusal(f"an interim settlement was made on the {_describe(last)}: the money has "
                          f"moved, so it is not taken back", _clause(rnd, "misdeal.after_interim"))
    cards = tuple(e for e in taken if isinstance(e, CardDrawn))  # out of the shoe all the same
    return Retraction(taken, remaining, cards, ", ".join(_describe(e) for e in taken))
