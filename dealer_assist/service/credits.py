"""A player terminal's credit meter in a round (Electronic Blackjack 1.1.10: the terminal on
which a player buys credits, places wagers and cashes out): what the round has taken from
and paid to each seat so far, worked out from the engine's round, never kept apart from it.

The meter a terminal shows is the meter on record (dealer_assist/store/credits.py: buy-ins,
cash-outs and the results of the rounds before) plus this round's part: each wager placed is
taken from it (the main wager, each side bet, a double's or a split's second wager,
insurance), each wager's stake and result paid back once it is settled (interim or final, as
the round's settlements say). At the round's end every wager is settled, and this part is
the seat's net result, which the service then pays on record.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from dealer_assist.base.money import ZERO, half_kept, parse_amount
from dealer_assist.engine.round_api import Round, TerminalView

__all__ = ["in_play", "nets", "round_part", "round_parts", "wanted"]


def _terminal(rnd: Round, seat: str) -> TerminalView | None:
    return next((t for t in rnd.view().terminals if t.player == seat), None)


def _unsettled(rnd: Round, seat: str, t: TerminalView) -> Decimal:
    """The stakes of ``seat``'s wagers not settled yet."""
    settled = {(s.bet, s.hand) for s in rnd.settlements if s.player == seat}
    bets = {bet for bet, _hand in settled}
    if t.hands:
        main = sum((stake for h in t.hands if ("main", h.number) not in settled
                    for player, stake in h.stakes if player == seat), ZERO)
    else:  # before the deal: the main wager as placed, unless it was settled (returned) already
        main = ZERO if "main" in bets else t.main
    sides = sum((w.amount for w in t.sides if w.bet not in bets), ZERO)
    return main + sides + (t.insurance.amount if t.insurance is not None else ZERO)


def round_part(rnd: Round, seat: str) -> Decimal:
    """This round's part of ``seat``'s meter: the results of its settled wagers (stake
    back and net) less the stakes of all its wagers, i.e. its settled net less its stakes
    still in play."""
    net = sum((s.net for s in rnd.settlements if s.player == seat), ZERO)
    t = _terminal(rnd, seat)
    return net - (_unsettled(rnd, seat, t) if t is not None else ZERO)


def round_parts(rnd: Round) -> tuple[dict[str, Decimal], set[str]]:
    """:func:`round_part` of every seat with a wager in the round, and the seats with a wager
    not settled yet (:func:`in_play`), from one view of it."""
    view = rnd.view()
    out: dict[str, Decimal] = {}
    playing: set[str] = set()
    for s in rnd.settlements:
        out[s.player] = out.get(s.player, ZERO) + s.net
    for t in view.terminals:
        unsettled = _unsettled(rnd, t.player, t)
        out[t.player] = out.get(t.player, ZERO) - unsettled
        if unsettled > 0:
            playing.add(t.player)
    return out, playing


def in_play(rnd: Round, seat: str) -> bool:
    """``seat`` has a wager on the slip or in the round not settled yet."""
    t = _terminal(rnd, seat)
    return t is not None and _unsettled(rnd, seat, t) > 0


def nets(rnd: Round, seats: Mapping[str, Any]) -> dict[str, Decimal]:
    """Each of ``seats``' net result in the round (its settlements' nets)."""
    out: dict[str, Decimal] = {}
    for s in rnd.settlements:
        if s.player in seats:
            out[s.player] = out.get(s.player, ZERO) + s.net
    return out


def wanted(rnd: Round, seat: str, kind: str, args: Mapping[str, Any]) -> tuple[Decimal, str]:
    """What an input of ``seat`` takes from its meter, and what it is called: a wager its
    amount; a double or a split a second wager the size of the main wager (1.1.2, 3.15; 3.13, 3.14);
    insurance (3.11) its amount (half the main wager unless given). (0, "") for anything else,
    and for an input the engine will refuse (it names its own clause)."""
    if kind == "wager":
        return parse_amount(args.get("amount")), f"a wager of {args.get('amount')}"
    if kind != "decision":
        return ZERO, ""
    action = args.get("action")
    t = _terminal(rnd, seat)
    if t is None:
        return ZERO, ""
    if action in ("double", "split"):
        return t.main, f"a {action}'s second wager of {t.main}"
    if action == "insurance":
        amount = parse_amount(args["amount"]) if args.get("amount") is not None else half_kept(t.main)
        return amount, f"insurance of {amount}"
    return ZERO, ""
