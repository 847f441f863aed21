"""A split of the main wager enumerated card by card, fast, with a rigorous bound per row (issue 36).

The same deal as outcomes._Play.split (the slow reference, kept for the tests): the hands are
played one after another as the engine deals them; a hand takes its second card; a pair card
there starts a new hand while fewer than the game's limit (split aces: two hands, one card
each); the hand is then doubled, hit or stood on as the printed chart says; every card is
drawn from the shoe less every card dealt before it; the dealer's outcome is the analysis'
(Versus.dealer) for the shoe less all of the player's cards.

What makes it fast (the chart's play depends on the hand's total only, never on the shoe):

* A state is counts, not orders: the cards removed (packed into one integer), the hands
  formed and waiting, the hand in play (total, soft, doubled) and the finished hands reduced
  to what settles them: their net result against each of the dealer's seven outcomes (packed),
  plus, where a dealer blackjack takes one original wager (Lucky 8 4.5, Electronic 4.7),
  whether any of them stood. A hand standing on 16 or less is settled as 16.
* The draw probabilities of a removed composition are computed once per split walker; the
  dealer's outcomes once per composition the analysis distinguishes (Versus.dealer's cache),
  and the final states are merged on that composition before the dealer is applied.
* A state less likely than ``prune`` (as a chance of the whole round) is not followed: its
  chance is added to ``unresolved`` and to the upper bound of every row its hands could still
  reach (the finished hands' net against some dealer outcome, plus or minus two units for
  every hand still to be played or formed). Each row's true chance lies in
  [row, row + bound[row]]: the rows are lower bounds (every term is exact and non-negative)
  and the missing mass can only fall in the rows the pruned states reach.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from dealer_assist.odds.main_wager import BLACKJACK, BUST, Comp, Versus, hand_total

Dist = dict[float, float]
Box = list[Any]  # a bounded state: [low, high, fewest removed by value, most removed by value]

# Removed cards per value, packed 7 bits a value: 6 for the count (at most 63 of a value: more
# than any split of four hands can draw), the 7th always 0 (a guard for _box_merge).
_BITS = 7
_MASK = (1 << (_BITS - 1)) - 1
_GUARDS = sum(1 << (_BITS * i + _BITS - 1) for i in range(10))
_FIELDS = sum(_MASK << (_BITS * i) for i in range(10))
# A finished hand's net against each dealer outcome (17..21, bust, blackjack), 5 bits each,
# offset by 16 (at most four hands of two units: -8..+8).
_NB = 5
_OFF = 16
_NETS0 = sum(_OFF << (_NB * k) for k in range(7))


def pack(comp: Comp) -> int:
    return sum(c << (_BITS * i) for i, c in enumerate(comp))


def unpack(key: int) -> Comp:
    return tuple((key >> (_BITS * i)) & _MASK for i in range(10))


def _nets(packed: int) -> list[int]:
    return [((packed >> (_NB * k)) & 31) - _OFF for k in range(7)]


@dataclass
class SplitRows:
    """One split's net results per unit of original wager, each scaled by the split's chance."""

    dist: Dist = field(default_factory=dict)
    bound: Dist = field(default_factory=dict)  # row -> chance not resolved that could fall there
    unresolved: float = 0.0
    staked: float = 0.0  # chance x amount wagered, over the resolved sequences
    states: int = 0  # states followed (a measure of the work)


class SplitWalker:
    """Enumerates the splits of one dealer card ``vs.up`` under the printed chart (``vs.chart``)."""

    def __init__(self, vs: Versus) -> None:
        if vs.chart is None:
            raise ValueError("a split is enumerated under the printed chart only (its play is the total's)")
        self.vs = vs
        rules = vs.rules
        self.original_rule = vs.enhc and rules.hole_card == "none_original"
        self.per_hand_bj = 0 if self.original_rule else 1
        self._probs: dict[int, list[tuple[int, int, float]]] = {}
        self._dealer: dict[int, tuple[float, ...]] = {}
        self._dkeys: dict[int, int] = {}  # removed cards -> as the dealer's analysis sees them
        self._ranges: dict[tuple[Comp, Comp, int], tuple[list[float], list[float]]] = {}
        # The chart's play by (hard, soft ace): doubles a two-card split hand; hits.
        self._doubles = {(h, a): vs.split_doubles((0,) * 10, h, a, self.per_hand_bj)
                         for h in range(2, 22) for a in (False, True)}
        chart = vs.chart
        self._hits = {(h, a): hand_total(h, a) < 21 and chart.hits(h, a, vs.up)
                      for h in range(2, 22) for a in (False, True)}
        self._delta: dict[tuple[int, int], int] = {}
        for bet in (1, 2):
            for t in (0, 16, 17, 18, 19, 20, 21):
                d = 0
                for k in range(7):
                    if t == 0 or (k == BLACKJACK and not self.original_rule):
                        x = -bet  # bust; or a dealer blackjack takes every wager (3.24.3, 4.5.3)
                    elif k == BLACKJACK:
                        x = 0  # one original wager in all, below (Lucky 8 4.5, Electronic 4.7)
                    elif k == BUST:
                        x = bet
                    else:
                        dt = 17 + k
                        x = bet if t > dt else 0 if t == dt else -bet
                    d += x << (_NB * k)
                self._delta[(bet, t)] = d

    def probs(self, key: int) -> list[tuple[int, int, float]]:
        """(value, packed increment, chance) of the next card, the cards of ``key`` removed."""
        found = self._probs.get(key)
        if found is None:
            p = self.vs.draw_probs(unpack(key))
            found = [(i + 1, 1 << (_BITS * i), p[i]) for i in range(10) if p[i] > 0.0]
            self._probs[key] = found
        return found

    def dealer(self, key: int) -> tuple[float, ...]:
        found = self._dealer.get(key)
        if found is None:
            found = self._dealer[key] = self.vs.dealer(unpack(key))
        return found

    def split(self, v: int, comp: Comp, p: float, prune: float) -> SplitRows:
        """Split a pair of ``v`` (``comp``: the cards from the shoe); ``p``: the split's chance in
        the round; states below ``prune`` (a chance of the round) are bounded, not followed."""
        out = SplitRows()
        vs = self.vs
        aces = v == 1
        max_hands = 2 if aces else vs.rules.max_hands
        doubles, hits, delta, dkeys = self._doubles, self._hits, self._delta, self._dkeys
        original = self.original_rule
        floor = prune / p if p > 0 else 0.0
        # state: (removed, formed, waiting, nets, stood, hand in play: 0 = needs its second card,
        # else 1 + 4 * hard + 2 * soft ace + doubled) -> chance
        State = tuple[int, int, int, int, bool, int]
        level: dict[State, float] = {(pack(comp), 2, 1, _NETS0, False, 0): 1.0}
        finals: dict[tuple[int, int, bool], float] = {}
        # Bounded states (below the threshold): (formed, waiting, nets, stood, hand in play) ->
        # [low, high, fewest removed, most removed]: the true chance lies in [low, high] and every
        # composition it holds between the two vectors (below: _bounded).
        bounded: dict[tuple[int, int, int, bool, int], Box] = {}
        bounded_finals: dict[tuple[int, bool, int], Box] = {}
        staked = 0.0
        removed = sum(comp)

        while level or bounded:
            nxt: dict[State, float] = {}
            out.states += len(level)
            for (key, formed, waiting, nets, stood, cur), w in level.items():
                if w < floor:
                    # Not followed card by card: carried on below with its chance bounded.
                    out.unresolved += p * w
                    _merge(bounded, (formed, waiting, nets, stood, cur), w, w, key, key)
                    continue
                for c, inc, pc in self.probs(key):
                    nk = key + inc
                    wi = w * pc
                    if cur == 0:
                        if c == v and formed < max_hands:  # the pair card starts a new hand
                            st: State = (nk, formed + 1, waiting + 1, nets, stood, 0)
                            nxt[st] = nxt.get(st, 0.0) + wi
                            continue
                        hard, ace, bet, two = v + c, aces or c == 1, 1, True
                    else:
                        code = cur - 1
                        hard, ace, bet, two = (code >> 2) + c, bool(code & 2) or c == 1, 2 if code & 1 else 1, False
                    if hard > 21:
                        t = 0
                    elif bet == 2 or aces:
                        t = hand_total(hard, ace)
                    elif two and doubles[(hard, ace)]:
                        st = (nk, formed, waiting, nets, stood, 1 + 4 * hard + (2 if ace else 0) + 1)
                        nxt[st] = nxt.get(st, 0.0) + wi
                        continue
                    elif hits[(hard, ace)]:
                        st = (nk, formed, waiting, nets, stood, 1 + 4 * hard + (2 if ace else 0))
                        nxt[st] = nxt.get(st, 0.0) + wi
                        continue
                    else:
                        t = hand_total(hard, ace)
                    # The hand in play is finished: settle it into the nets; next hand or the dealer.
                    staked += wi * bet
                    nn = nets + delta[(bet, 16 if 0 < t < 16 else t)]
                    ns = stood or (original and t != 0)
                    if waiting == 0:
                        fk = (dkeys[nk] if nk in dkeys else self.vs_key(nk), nn, ns)
                        finals[fk] = finals.get(fk, 0.0) + wi
                    else:
                        st = (nk, formed, waiting - 1, nn, ns, 0)
                        nxt[st] = nxt.get(st, 0.0) + wi
            level = nxt
            bounded = self._bounded_step(bounded, bounded_finals, v, max_hands, removed)
            removed += 1

        dist = out.dist
        for (dkey, nets, stood), w in finals.items():
            d = self.dealer(dkey)
            net = _nets(nets)
            if original and stood:
                net[BLACKJACK] -= 1
            pw = p * w
            for k in range(7):
                if d[k] > 0.0:
                    x = float(net[k])
                    dist[x] = dist.get(x, 0.0) + pw * d[k]
        # The bounded states' rows: [low x the dealer's least chance, high x its greatest] over
        # every composition the state may hold; the low parts are added to the rows (which stay
        # lower bounds), the rest is the row's bound.
        low: Dist = {}
        high: Dist = {}
        for (nets, stood, n), (lo, hi, cmin, cmax) in bounded_finals.items():
            dmin, dmax = self.dealer_range(unpack(cmin), unpack(cmax), n)
            net = _nets(nets)
            if original and stood:
                net[BLACKJACK] -= 1
            for k in range(7):
                if dmax[k] > 0.0:
                    x = float(net[k])
                    low[x] = low.get(x, 0.0) + p * lo * dmin[k]
                    high[x] = high.get(x, 0.0) + p * hi * dmax[k]
        # The bounded mass is known exactly (out.unresolved): a row holds at most what the other
        # rows' low parts leave of it.
        spare = out.unresolved - sum(low.values())
        for x, h in high.items():
            lo_x = low.get(x, 0.0)
            dist[x] = dist.get(x, 0.0) + lo_x
            b = min(h - lo_x, spare, out.unresolved)
            if b > 0.0:
                out.bound[x] = b
        out.staked = p * staked
        return out

    def _bounded_step(self, bounded: dict[tuple[int, int, int, bool, int], Box],
                      finals: dict[tuple[int, bool, int], Box], v: int,
                      max_hands: int, removed: int) -> dict[tuple[int, int, int, bool, int], Box]:
        """One card for every bounded state (``removed`` cards out of the shoe in each). A state's
        compositions lie between ``cmin`` and ``cmax``, so the next card's chance of value i lies
        between (shoe_i - cmax_i) / left and (shoe_i - cmin_i) / left (``left``: the cards left,
        the same for all: every state here has drawn as many). Merged states keep the sum of
        their lows and highs and the widest box, which stays true of every state merged."""
        vs = self.vs
        shoe, left = vs.shoe, vs.n - removed
        aces = v == 1
        nxt: dict[tuple[int, int, int, bool, int], Box] = {}
        for (formed, waiting, nets, stood, cur), (lo, hi, bmin, bmax) in bounded.items():
            cmin, cmax = unpack(bmin), unpack(bmax)
            for i in range(10):
                p_hi = (shoe[i] - cmin[i]) / left
                if p_hi <= 0.0:
                    continue
                p_lo = max(shoe[i] - cmax[i], 0) / left
                c = i + 1
                inc = 1 << (_BITS * i)
                nmin, nmax = bmin + inc, bmax + inc
                lo_i, hi_i = lo * p_lo, hi * p_hi
                if cur == 0:
                    if c == v and formed < max_hands:
                        _merge(nxt, (formed + 1, waiting + 1, nets, stood, 0), lo_i, hi_i, nmin, nmax)
                        continue
                    hard, ace, bet, two = v + c, aces or c == 1, 1, True
                else:
                    code = cur - 1
                    hard, ace, bet, two = (code >> 2) + c, bool(code & 2) or c == 1, 2 if code & 1 else 1, False
                if hard > 21:
                    t = 0
                elif bet == 2 or aces:
                    t = hand_total(hard, ace)
                elif two and self._doubles[(hard, ace)]:
                    _merge(nxt, (formed, waiting, nets, stood, 1 + 4 * hard + (2 if ace else 0) + 1),
                           lo_i, hi_i, nmin, nmax)
                    continue
                elif self._hits[(hard, ace)]:
                    _merge(nxt, (formed, waiting, nets, stood, 1 + 4 * hard + (2 if ace else 0)), lo_i, hi_i, nmin, nmax)
                    continue
                else:
                    t = hand_total(hard, ace)
                nn = nets + self._delta[(bet, 16 if 0 < t < 16 else t)]
                ns = stood or (self.original_rule and t != 0)
                if waiting == 0:
                    _merge(finals, (nn, ns, removed + 1), lo_i, hi_i, nmin, nmax)
                else:
                    _merge(nxt, (formed, waiting - 1, nn, ns, 0), lo_i, hi_i, nmin, nmax)
        return nxt

    def dealer_range(self, cmin: Comp, cmax: Comp, n: int) -> tuple[list[float], list[float]]:
        """The least and the greatest chance of each dealer outcome over every composition of
        ``n`` cards between ``cmin`` and ``cmax``, as the analysis' dealer sees it (Versus.dealer:
        the lowest ``exact_cards`` of them): every multiset of that many cards within ``cmax``
        (and above ``cmin`` when all ``n`` count) is tried; [0, 1] where there are too many."""
        e = self.vs.exact_cards
        size = min(e, n)
        shoe = self.vs.shoe
        floor_ = cmin if e >= n else (0,) * 10
        # No candidate holds more than ``size`` of a value or more than the shoe: the box is cut
        # to that before it is looked up (many boxes give the same candidates).
        top = tuple(min(a, b, size) for a, b in zip(cmax, shoe, strict=True))
        key = (floor_, top, size)
        found = self._ranges.get(key)
        if found is not None:
            return found
        lows, highs = [1.0] * 7, [0.0] * 7
        count = 0
        for r in _multisets(floor_, top, size):
            count += 1
            try:
                d = self.vs.dealer(r)
            except ZeroDivisionError:  # a composition the box allows that empties the shoe
                count = 4001
            if count > 4000:
                lows, highs = [0.0] * 7, [1.0] * 7
                break
            for k in range(7):
                lows[k] = min(lows[k], d[k])
                highs[k] = max(highs[k], d[k])
        if count == 0:
            lows, highs = [0.0] * 7, [1.0] * 7
        found = self._ranges[key] = (lows, highs)
        return found

    def vs_key(self, key: int) -> int:
        """The removed cards as the analysis' dealer distinguishes them (Versus.dealer: beyond
        its ``exact_cards`` player cards, the highest values are left out first)."""
        lst = list(unpack(key))
        extra = sum(lst) - self.vs.exact_cards
        for i in range(9, -1, -1):
            take = min(max(extra, 0), lst[i])
            lst[i] -= take
            extra -= take
        found = self._dkeys[key] = pack(tuple(lst))
        return found


def _merge(into: dict[Any, Box], key: object, lo: float, hi: float, cmin: int, cmax: int) -> None:
    """Adds a bounded state's [lo, hi] to ``key``'s, widening its box (packed) to hold both."""
    found = into.get(key)
    if found is None:
        into[key] = [lo, hi, cmin, cmax]
        return
    found[0] += lo
    found[1] += hi
    a, b = found[2], found[3]
    if cmin != a:
        found[2] = _box_merge(a, cmin, False)
    if cmax != b:
        found[3] = _box_merge(b, cmax, True)


def _box_merge(a: int, b: int, greatest: bool) -> int:
    """Per value, the greater (``greatest``) or the lesser of two packed counts, all ten at once:
    with each field's guard bit set, a - b keeps it exactly where a's count >= b's."""
    ge = ((a | _GUARDS) - b) & _GUARDS
    mask = ge - (ge >> (_BITS - 1))  # the count bits of the fields where a >= b
    if greatest:
        return (a & mask) | (b & ~mask & _FIELDS)
    return (b & mask) | (a & ~mask & _FIELDS)


def _multisets(lo: Comp, hi: Comp, size: int, i: int = 0) -> Iterator[Comp]:
    """Every vector r with lo <= r <= hi (by value) and sum(r) == size."""
    if i == 10:
        if size == 0:
            yield ()
        return
    for k in range(lo[i], min(hi[i], size) + 1):
        for rest in _multisets(lo, hi, size - k, i + 1):
            yield (k, *rest)
