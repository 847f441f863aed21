"""Priority claims on free wager slots (3.16, 3.17.2; 3.18.2 in Dueling 8's) and on a
declined insurance (3.27.3, 3.27.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dealer_assist.errors import RuleRefusal

if TYPE_CHECKING:
    from dealer_assist.events import Claim
    from dealer_assist.table import TableRound


def resolve_claim(rnd: TableRound, ev: Claim) -> None:
    """Grant the free slots of one bet kind on one area by the priority clauses."""
    raise RuleRefusal("claims are not handled yet", rnd.clause("side_priority"))
