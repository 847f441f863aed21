"""Section 5 of every game: rulings on irregularities (issue 5)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dealer_assist.errors import RuleRefusal

if TYPE_CHECKING:
    from dealer_assist.events import CardDrawn, Decision, Event
    from dealer_assist.table import TableRound


def misplaced_card(rnd: TableRound, ev: CardDrawn) -> None:
    raise RuleRefusal("card placed elsewhere: not yet handled", rnd.clause("refer"))


def irregular_decision(rnd: TableRound, ev: Decision) -> None:
    raise RuleRefusal(f"{ev.action}: no card is offered under 5.8 / 5.16 now")


def handle(rnd: TableRound, ev: Event) -> None:
    raise RuleRefusal(f"{ev.type}: not yet handled", rnd.clause("refer"))
