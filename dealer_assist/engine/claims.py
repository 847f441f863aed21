"""Priority claims on free side-bet slots (3.16, 3.17.1, 3.17.2.x; 3.17, 3.18.1, 3.18.2.x in
Dueling 8's) and on the insurance another player declined (3.27.3, 3.27.4.x).

A ``claim`` event says that several players, who have not agreed among themselves, want
the free slots of one side bet on one playing area, or the insurance a named player
declined. :func:`resolve_claim` decides who gets them by the game's clauses, places the
granted wagers and records a :class:`ClaimDecision` (granted and refused players in the
order of the claim) with the clause that decided.

Readings adopted (each game's own numbers in brackets are Dueling 8's):

- "Wager" in these clauses means a main wager: positions "closest to the Dealer" and "front
  to back" exist only for main wagers (3.10, 3.12), and the rules name side bets by name. A
  player holding only side bets has "no wager on that round of play" (3.17.2.5 [3.18.2.5],
  3.27.4.5) and is served on a first-placed basis, after every main-wager holder.
- Side-bet slots: the area's controller, who has a wager on the area, has first priority
  (3.16 [3.17]); then the other players with a main wager on the area, nearest the dealer
  first (3.17.2.1 [3.18.2.1]); then players with a main wager elsewhere in the round, the
  nearest area first (3.17.2.2 [3.18.2.2]; distance = difference of area numbers, a player's
  nearest wager counts); at equal distance (on either side or on the same area) the lowest
  total of the game's side bets wins (3.17.2.3 [3.18.2.3]); claims still equal are
  equivalent (3.17.2.4 [3.18.2.4]); players without a wager last, in the order their chips
  went down (3.17.2.5 [3.18.2.5]).
- Several free slots are granted down that order. When a group of equivalent claims is
  larger than the slots left, nobody in the group, and nobody after it, gets a slot:
  "no wager shall be accepted ... from any Player, including a Player referred to in Rule
  3.17.2.5" (3.17.2.4).
- Insurance (one wager, up to half the declining player's wager, 3.27.3): players with a
  wager on the same area, front to back (3.27.4.1); then the nearest area, front to back
  within that area (3.27.4.2); two areas at the same distance on either side: the lowest
  total of insurance wagers, not counting insurance on areas the player controls
  (3.27.4.3); still equal: nobody (3.27.4.4); players without a wager in the round last,
  first placed (3.27.4.5).
- Once a declined insurance has been claimed (granted or not), the player who declined it
  cannot take it back; and a player the pit manager restricted to one area (3.9) may not
  claim a slot on another area.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from dealer_assist.base.money import ZERO
from dealer_assist.engine.events import Claim, Claimant
from dealer_assist.engine.outcome import ClaimDecision
from dealer_assist.engine.table_port import ClaimsPort
from dealer_assist.engine.table_state import Area, SideWager

Key = tuple[Decimal, ...]  # a claim's place in the priority order; lower comes first
D0, D1, D2, D3 = (Decimal(n) for n in range(4))  # the tiers of 3.16 / 3.17.2.x

SIDE_SLOTS = 3  # 3.17.1 (3.18.1 in Dueling 8's): three of each side bet per playing area


def resolve_claim(rnd: ClaimsPort, ev: Claim) -> None:
    """Grant the free slots of one bet kind on one area, or a declined insurance, by priority."""
    if not 1 <= ev.area <= rnd.st.config.areas:
        raise rnd.st.refuse(f"area {ev.area} is not on this layout of {rnd.st.config.areas} areas", "layout")
    names = [c.player for c in ev.claimants]
    if len(set(names)) != len(names):
        # 3.17.2 (3.18.2 in Dueling 8's) ranks the players who wish to take the slot: each has one place
        raise rnd.st.refuse("a claim lists each claimant once", "claim")
    if ev.bet == "insurance":
        _insurance_claim(rnd, ev)
    else:
        _side_claim(rnd, ev)


# ---------------------------------------------------------------------- helpers
def _main_areas(rnd: ClaimsPort, player: str) -> list[Area]:
    return [a for a in rnd.st.areas.values() if a.wager_of(player) is not None]


def _distance(rnd: ClaimsPort, player: str, number: int) -> int | None:
    """Distance from the player's nearest main wager to area ``number`` (None: no wager)."""
    areas = _main_areas(rnd, player)
    return min(abs(a.number - number) for a in areas) if areas else None


def _check_claimants(rnd: ClaimsPort, ev: Claim) -> None:
    for c in ev.claimants:
        if c.player in rnd.st.absent:
            raise rnd.st.refuse(f"{c.player} is not present and cannot claim a wager", "absent")
        rnd.check_one_area(c.player, ev.area)  # 3.9


# ---------------------------------------------------------------------- side-bet slots
def _side_claim(rnd: ClaimsPort, ev: Claim) -> None:
    rules = rnd.st.rules
    if ev.bet == "main":
        raise rnd.st.refuse(
            "main wagers take their positions in the order placed; claims are for side-bet "
            "slots or a declined insurance", "control_front",
        )
    if ev.bet not in rules.side_bets:
        raise rnd.st.refuse(f"{rules.name} has no '{ev.bet}' wager", "side_bets")
    if ev.declined_by is not None:
        raise rnd.st.refuse(
            f"declined_by names who declined insurance; a {ev.bet} slot is claimed without it",
            "side_priority",
        )
    if rnd.st.phase != "betting":
        raise rnd.st.refuse(f"no {ev.bet} wager may be placed after \"no more bets\"", "bets_closed")
    area = rnd.st.areas.get(ev.area)
    if area is None or not area.wagers:
        raise rnd.st.refuse(
            f"a {ev.bet} wager may only be placed on an area which contains a main wager",
            "side_needs_main",
        )
    taken = [s for s in area.sides if s.bet == ev.bet and s.hand is None]
    free = SIDE_SLOTS - len(taken)
    if free <= 0:
        raise rnd.st.refuse(f"area {ev.area} already holds three {ev.bet} wagers", "side_slots")
    for c in ev.claimants:
        if any(s.player == c.player for s in taken):
            raise rnd.st.refuse(
                f"{c.player} already has a {ev.bet} wager on area {ev.area}; adding to it takes no "
                "other slot", "side_slots",
            )
    _check_claimants(rnd, ev)

    def side_total(player: str) -> Decimal:
        # 3.17.2.3: the player's total of this game's side bets, every area.
        return sum(
            (s.placed for a in rnd.st.areas.values() for s in a.sides if s.player == player), ZERO
        )

    def key(order: int, c: Claimant) -> Key:
        if c.player == area.controller:
            return (D0,)  # 3.16: a wager on the area; the controller first
        w = area.wager_of(c.player)
        if w is not None:
            return (D1, Decimal(w.position))  # 3.17.2.1: on the area, not controlling, front first
        d = _distance(rnd, c.player, ev.area)
        if d is not None:
            return (D2, Decimal(d), side_total(c.player))  # 3.17.2.2, 3.17.2.3
        return (D3, Decimal(order))  # 3.17.2.5: no wager in the round, first placed

    def between(a: Key, b: Key) -> str:
        """The clause that puts a claim keyed ``a`` before one keyed ``b``."""
        if a[0] == D0:
            return "side_priority"
        if a[0] == D1:
            return "claim.non_controller"
        if a[0] == D2:
            return "claim.lowest_total" if b[0] == D2 and a[1] == b[1] else "claim.nearest_area"
        return "claim.no_wager"

    granted, refused, concept = _allocate(ev.claimants, key, between, free, "side_slots",
                                          "claim.equivalent")
    for c in ev.claimants:
        if c.player in granted:
            area.sides.append(SideWager(c.player, ev.bet, c.amount, None))
    rnd.st.claims.append(ClaimDecision(rnd.st.event_index, tuple(granted), tuple(refused), rnd.st.clause(concept)))


def _allocate(
    claimants: tuple[Claimant, ...],
    key: Callable[[int, Claimant], Key],
    between: Callable[[Key, Key], str],
    slots: int,
    all_fit: str,
    equivalent: str,
) -> tuple[list[str], list[str], str]:
    """Grant ``slots`` down the priority order; equal keys are equivalent claims."""
    keyed = sorted((key(i, c), i, c.player) for i, c in enumerate(claimants))
    groups: list[tuple[Key, list[str]]] = []
    for k, _, player in keyed:
        if groups and groups[-1][0] == k:
            groups[-1][1].append(player)
        else:
            groups.append((k, [player]))
    granted: list[str] = []
    refused: list[str] = []
    concept: str | None = None
    remaining = slots
    last_granted: Key | None = None
    for k, members in groups:
        if concept is not None or remaining == 0:
            if concept is None:
                assert last_granted is not None
                concept = between(last_granted, k)
            refused += members
        elif len(members) <= remaining:
            granted += members
            remaining -= len(members)
            last_granted = k
        else:
            # More equivalent claims than slots: none of them, and nobody after (3.17.2.4).
            concept = equivalent
            refused += members
    # Reported in the order the chips went down, like the claim itself.
    order = [c.player for c in claimants]
    granted.sort(key=order.index)
    refused.sort(key=order.index)
    return granted, refused, concept or all_fit


# ---------------------------------------------------------------------- declined insurance
def _insurance_claim(rnd: ClaimsPort, ev: Claim) -> None:
    rules = rnd.st.rules
    if not rules.insurance:
        raise rnd.st.refuse(f"{rules.name} has no insurance", "options")  # Dueling 8's 3.15
    dealer_ace = bool(rnd.st.dealer) and rnd.st.dealer[0].rank == "A"
    if not rnd.st.offers_open or not dealer_ace:
        if rnd.st.phase in ("betting", "initial") or not dealer_ace:
            raise rnd.st.refuse(
                "insurance is offered only when the dealer's first card is an Ace, after the "
                "initial deal", "insurance",
            )
        raise rnd.st.refuse(
            "insurance wagers are made before the commencement of the subsequent deal",
            "insurance.before_subsequent",
        )
    declined = ev.declined_by
    if declined is None:
        raise rnd.st.refuse(
            "an insurance claim names the player who declined it (declined_by)", "insurance.declined"
        )
    area = rnd.st.areas.get(ev.area)
    w = area.wager_of(declined) if area is not None else None
    if area is None or w is None:
        raise rnd.st.refuse(f"{declined} has no wager on area {ev.area} to insure", "insurance.declined")
    if declined in area.insurance_declined:
        raise rnd.st.refuse(
            f"the insurance {declined} declined on area {ev.area} has already been claimed",
            "insurance.declined",
        )
    if declined in area.insured or declined in area.even_money:
        raise rnd.st.refuse(
            f"{declined} did not decline insurance on area {ev.area}", "insurance.declined"
        )
    if declined in (c.player for c in ev.claimants):
        raise rnd.st.refuse(f"{declined} declined this insurance and cannot claim it", "insurance.declined")
    half = w.amount / 2
    for c in ev.claimants:
        if c.amount > half:
            raise rnd.st.refuse(
                f"{c.player} may insure at most half of {declined}'s wager of "
                f"{_fmt(w.amount)} ({_fmt(half)}), not {_fmt(c.amount)}", "insurance.declined",
            )
    _check_claimants(rnd, ev)

    winner, concept = _insurance_winner(rnd, area, ev.claimants)
    area.insurance_declined.add(declined)
    names = [c.player for c in ev.claimants]
    if winner is not None:
        amount = next(c.amount for c in ev.claimants if c.player == winner)
        area.claimed_insurance.append((winner, amount, declined))
    granted = (winner,) if winner is not None else ()
    refused = tuple(p for p in names if p != winner)
    rnd.st.claims.append(ClaimDecision(rnd.st.event_index, granted, refused, rnd.st.clause(concept)))
    rnd.maybe_close_offers()


def _insurance_winner(
    rnd: ClaimsPort, area: Area, claimants: tuple[Claimant, ...]
) -> tuple[str | None, str]:
    """3.27.4.1–5: who takes a declined insurance, and the clause that decided it."""
    if len(claimants) == 1:
        return claimants[0].player, "insurance.declined"  # 3.27.3, uncontested
    # 3.27.4.1: a wager on the same area, front to back.
    same = [(w.position, c.player) for c in claimants if (w := area.wager_of(c.player)) is not None]
    if same:
        return min(same)[1], "insurance.same_area"
    # 3.27.4.2: the nearest area; front to back within that area.
    nearest: dict[int, tuple[int, str]] = {}  # area number -> (position, player) at front
    best: int | None = None
    for c in claimants:
        d = _distance(rnd, c.player, area.number)
        if d is None:
            continue
        if best is None or d < best:
            best, nearest = d, {}
        if d == best:
            for a in _main_areas(rnd, c.player):
                if abs(a.number - area.number) == d:
                    w = a.wager_of(c.player)
                    assert w is not None
                    cur = nearest.get(a.number)
                    if cur is None or w.position < cur[0]:
                        nearest[a.number] = (w.position, c.player)
    if nearest:
        fronts = sorted({player for _, player in nearest.values()})
        if len(fronts) == 1:
            return fronts[0], "insurance.nearest_area"
        # 3.27.4.3: two areas equally distant: the lowest insurance total, not counting
        # insurance on areas the player controls.
        totals = sorted((_insurance_total(rnd, p), p) for p in fronts)
        if totals[0][0] == totals[1][0]:
            return None, "insurance.equivalent"  # 3.27.4.4: nobody
        return totals[0][1], "insurance.lowest_total"
    # 3.27.4.5: nobody has a wager in the round: first placed, as the dealer saw it.
    return claimants[0].player, "insurance.no_wager"


def _insurance_total(rnd: ClaimsPort, player: str) -> Decimal:
    total = ZERO
    for a in rnd.st.areas.values():
        if a.controller == player:
            continue
        for p, amount in a.insurance_wagers():
            if p == player:
                total += amount
    return total


def _fmt(amount: Decimal) -> str:
    return f"{amount.normalize():f}"
