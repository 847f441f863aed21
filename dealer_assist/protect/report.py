"""Each player's bet against the count, from a station's store (``dealer-assist protect``).

The rounds of one shoe (their header's ``shoe``, spec/round-script.md), in the order of the
cards dealt before them, rebuild the shoe before each round: the cards of the earlier rounds
of that shoe (burns and double feeds included). From them the game's count (counts.py)
gives the true count and the estimated edge at each round's start. Per player: the rounds
they placed a main wager in, the wagers, the fit of main wager on true count (stats.py) and
the wager-weighted estimated edge; ``flagged`` when the wager rises with the count beyond
chance (slope > 0, p-value below :data:`ALPHA`, at least :data:`MIN_ROUNDS` rounds).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from dealer_assist.base.cards import Card, CardNotationError, parse_card
from dealer_assist.protect.counts import Count, count_for
from dealer_assist.protect.play import PlayDecision, Precision, precision, round_decisions
from dealer_assist.protect.stats import Fit, fit
from dealer_assist.store import DEFAULT_TABLE, Store

ALPHA = 0.001  # two-sided p-value below which a rising bet is flagged
MIN_ROUNDS = 10
MIN_INDEX_PLAYS = 2  # deviations from the chart exactly at an index play, at least half of all deviations
ROUNDS_PER_HOUR = 60.0  # assumed when a player's rounds span less than a few minutes


class ProtectError(Exception):
    """Nothing to report on (one-line message)."""


@dataclass
class RoundRow:
    round_id: int
    table: str
    started_at: str
    game: str
    decks: int
    shoe_id: str | None
    dealt: int
    cards: list[Card]
    wagers: dict[str, Decimal]  # player -> main wager placed before the deal
    header: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    true_count: float | None = None
    edge: float | None = None
    seen: list[Card] = field(default_factory=list)  # the cards of the shoe's earlier rounds
    # the shuffles during the round, in order (the station's shoe_loaded audit entries): the
    # shoe loaded and how many of the round's cards had left the shoe before it
    shuffles: list[tuple[str, int]] = field(default_factory=list)


def shoe_spans(r: RoundRow) -> list[tuple[str | None, list[Card]]]:
    """Each card of round ``r`` against the shoe it came out of, in order: the header's shoe
    for the cards before the round's first shuffle, then each shoe loaded during the round
    for the cards until the next shuffle (a shoe loaded and shuffled again within the round
    has its cards here only: no round names it). Spans without a card are left out."""
    spans: list[tuple[str | None, list[Card]]] = []
    shoe, start = r.shoe_id, 0
    for new, at in r.shuffles:
        at = min(max(at, start), len(r.cards))
        spans.append((shoe, r.cards[start:at]))
        shoe, start = new, at
    spans.append((shoe, r.cards[start:]))
    return [(s, cards) for s, cards in spans if cards]


def listed_before(header: Mapping[str, Any], dealt: int) -> list[Card] | None:
    """The cards out of a round's shoe before its first card as the round's header lists them
    (``shoe_dealt``, which a station writes for 5.1: every card since the shuffle, cards set
    aside between rounds included, a shuffle after them counting only those after it): the
    ``dealt`` of spec/round-script.md's ``shoe``, by face. None when the list is missing or
    does not account for all ``dealt`` cards (an older record, a restart): then the shoe's
    earlier rounds rebuild them."""
    if dealt <= 0:
        return []
    raw = header.get("shoe_dealt")
    if not isinstance(raw, list) or len(raw) != dealt:
        return None
    try:
        return [parse_card(str(c)) for c in raw]
    except CardNotationError:
        return None


def round_shuffles(details: Sequence[Any], own: str | None) -> list[tuple[str, int]]:
    """A round's shuffles from its ``shoe_loaded`` audit details in order ({replaces, shoe, at}):
    those with a whole ``at`` and a new shoe other than the round's own (``own``: a shuffle
    while the round took bets deals the whole round from it)."""
    out = []
    for d in details:
        if isinstance(d, dict) and isinstance(d.get("shoe"), str) and isinstance(d.get("at"), int) \
                and d["shoe"] != own:
            out.append((str(d["shoe"]), int(d["at"])))
    return out


@dataclass
class PlayerReport:
    player: str
    rounds: int
    total_wager: Decimal
    average_wager: Decimal
    correlation: float | None
    slope: float
    slope_low: float
    slope_high: float
    p_value: float
    p_robust: float
    estimated_edge: float | None
    rounds_per_hour: float
    win_per_hour: float | None
    flagged: bool
    reasons: list[str] = field(default_factory=list)
    count: str = ""
    precision: Precision | None = None
    evidence: list[Evidence] = field(default_factory=list)  # each round's main wager at its true count

    def as_json(self) -> dict[str, Any]:
        def num(x: float | None) -> float | None:
            return None if x is None or math.isinf(x) else round(x, 10)

        return {
            "player": self.player, "rounds": self.rounds,
            "total_wager": _amount(self.total_wager), "average_wager": _amount(self.average_wager),
            "correlation": num(self.correlation), "p_value": num(self.p_value), "p_robust": num(self.p_robust),
            "slope": num(self.slope), "slope_95": [num(self.slope_low), num(self.slope_high)],
            "estimated_edge": num(self.estimated_edge), "rounds_per_hour": num(self.rounds_per_hour),
            "win_per_hour": num(self.win_per_hour), "flagged": self.flagged, "reasons": self.reasons,
            "count": self.count,
            "play_precision": self.precision_json(), "index_plays": self.index_plays_json(),
        }

    def precision_json(self) -> dict[str, Any] | None:
        p = self.precision
        if p is None:
            return None
        share = p.share
        return {"decisions": p.decisions, "matching": p.matching,
                "share": None if share is None else round(share, 10), "deviations": p.deviations,
                "index_plays": p.index_plays}

    def index_plays_json(self) -> list[dict[str, Any]]:
        if self.precision is None:
            return []
        return [{"round": d.round_id, "hand": d.hand, "action": d.action, "chart": d.chart,
                 "true_count": round(d.true_count, 4)} for d in self.precision.rows if d.at_index]


@dataclass(frozen=True)
class Evidence:
    round_id: int
    started_at: str
    true_count: float
    wager: Decimal
    edge: float | None



def _amount(value: Decimal) -> int | float:
    value = value.quantize(Decimal("0.01"))
    return int(value) if value == value.to_integral_value() else float(value)


def _cards_of(event: dict[str, Any]) -> list[Card]:
    kind = event.get("type")
    try:
        if kind in ("card", "burn") and isinstance(event.get("card"), str):
            return [parse_card(event["card"])]
        if kind == "multi" and isinstance(event.get("cards"), list):
            return [parse_card(c) for c in event["cards"]]
    except CardNotationError:
        return []
    return []


def _main_wagers(events: Sequence[dict[str, Any]]) -> dict[str, Decimal]:
    out: dict[str, Decimal] = {}
    for event in events:
        if event.get("type") == "no_more_bets":
            break
        if event.get("type") == "wager" and event.get("bet") == "main" and isinstance(event.get("player"), str):
            out[event["player"]] = out.get(event["player"], Decimal(0)) + Decimal(str(event.get("amount", 0)))
    return out


def _read(conn: sqlite3.Connection) -> list[RoundRow]:
    named = conn.execute("SELECT table_name FROM table_identity WHERE id = 1").fetchone()
    own = str(named[0]) if named else DEFAULT_TABLE
    rows = conn.execute(
        "SELECT r.id, r.started_at, r.config_json, s.table_name FROM rounds r "
        "LEFT JOIN sessions s ON s.id = r.session_id ORDER BY r.id").fetchall()
    events: dict[int, list[dict[str, Any]]] = {}
    for rid, text in conn.execute("SELECT round_id, event_json FROM events ORDER BY round_id, seq"):
        events.setdefault(int(rid), []).append(json.loads(text))
    shuffles: dict[int, list[Any]] = {}
    for rid, text in conn.execute("SELECT round_id, detail_json FROM audit WHERE kind = 'shoe_loaded' "
                                  "AND round_id IS NOT NULL ORDER BY id"):
        shuffles.setdefault(int(rid), []).append(json.loads(text))
    out = []
    for rid, started, config_json, table in rows:
        r = round_row(int(rid), str(table or own), str(started), json.loads(config_json), events.get(int(rid), []))
        r.shuffles = round_shuffles(shuffles.get(r.round_id, []), r.shoe_id)
        out.append(r)
    return out


def store_rounds(store: Store) -> list[RoundRow]:
    """Every round of ``store`` as protect reads it, oldest first, with its shuffles."""
    return store.read_with(_read)


def round_row(round_id: int, table: str, started_at: str, config: dict[str, Any],
              events: list[dict[str, Any]]) -> RoundRow:
    """One recorded round (its header ``config`` and ``events``) as protect reads it: a store's
    or the floor's (protect/live.py)."""
    shoe = config.get("shoe") if isinstance(config.get("shoe"), dict) else None
    return RoundRow(
        round_id, table, started_at, str(config.get("game")), int(config.get("decks") or 0),
        str(shoe["id"]) if shoe and isinstance(shoe.get("id"), str) else None,
        int(shoe["dealt"]) if shoe and isinstance(shoe.get("dealt"), int) else 0,
        [c for e in events for c in _cards_of(e)], _main_wagers(events), config, events)


def carried_cards(previous: RoundRow | None, shoe: str | None, dealt: int) -> list[Card]:
    """The cards a shoe's first round on record found already out of it (its ``dealt`` > 0):
    the shoe was loaded while the table's round before it (``previous``, of another shoe) was
    being dealt, so that round's last ``dealt`` cards came out of this shoe (spec/round-script.md
    ``shoe``; engine/session.py). Cards set aside between rounds are not in any round: fewer."""
    if dealt <= 0 or previous is None or previous.shoe_id is None or previous.shoe_id == shoe:
        return []
    if previous.shuffles:  # the shuffles on record say which of its cards were this shoe's
        return [c for s, cards in shoe_spans(previous) if s == shoe for c in cards][-dealt:]
    return previous.cards[max(0, len(previous.cards) - dealt):]


def carried_in(rounds: list[RoundRow]) -> dict[tuple[str, str], list[Card]]:
    """Per (table, shoe id): :func:`carried_cards` of the shoe's first round among ``rounds``."""
    tables: dict[str, list[RoundRow]] = {}
    first: dict[tuple[str, str], RoundRow] = {}
    for r in rounds:
        tables.setdefault(r.table, []).append(r)
        if r.shoe_id is not None:
            key = (r.table, r.shoe_id)
            if key not in first or (r.dealt, r.round_id) < (first[key].dealt, first[key].round_id):
                first[key] = r
    out: dict[tuple[str, str], list[Card]] = {}
    for (table, shoe), r in first.items():
        before = [m for m in tables[table] if m.round_id < r.round_id]
        previous = max(before, key=lambda m: m.round_id) if before and r.dealt > 0 else None
        listed = listed_before(r.header, r.dealt)  # its header's own list, cards set aside included
        carried = listed if listed is not None else carried_cards(previous, shoe, r.dealt)
        if carried:
            out[(table, shoe)] = carried
    return out


def rebuild_counts(rounds: list[RoundRow]) -> None:
    """Each round's true count and estimated edge at its start, from the earlier rounds of its
    shoe (in the order of the cards dealt before them), and the cards of the round before
    the shoe's first that came out of it (:func:`carried_cards`)."""
    shoes: dict[tuple[str, str, str, int], list[RoundRow]] = {}
    for r in rounds:
        if r.shoe_id is not None:
            shoes.setdefault((r.table, r.shoe_id, r.game, r.decks), []).append(r)
    carried = carried_in(rounds)
    for (table, shoe, game, decks), members in shoes.items():
        count = count_for(game, decks) if decks else None
        if count is None:
            continue
        seen: list[Card] = list(carried.get((table, shoe), []))
        for r in sorted(members, key=lambda m: (m.dealt, m.round_id)):
            # cards out not in any round (set aside between rounds): the header's list has them
            listed = listed_before(r.header, r.dealt) if len(seen) != r.dealt else None
            if listed is not None:
                seen = listed
            r.true_count = count.true_count(seen, r.dealt)
            r.edge = count.edge(seen, r.dealt)
            r.seen = list(seen)
            # the round's cards out of this shoe: all, or those before its first shuffle
            seen.extend(r.cards if not r.shuffles else [c for s, cards in shoe_spans(r)[:1] if s == shoe
                                                        for c in cards])


def _hours(first: str, last: str) -> float:
    def at(text: str) -> _dt.datetime:
        return _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))

    return (at(last) - at(first)).total_seconds() / 3600


def spread_flagged(result: Fit, rounds: int) -> bool:
    """The bet rises with the count beyond chance: slope > 0, p below ALPHA, MIN_ROUNDS rounds."""
    return rounds >= MIN_ROUNDS and result.slope > 0 and result.p_value < ALPHA


def index_flagged(p: Precision) -> bool:
    """The player leaves the chart exactly where the count says to, beyond chance: at least
    MIN_INDEX_PLAYS index plays, and they are at least half of the deviations."""
    return p.index_plays >= MIN_INDEX_PLAYS and 2 * p.index_plays >= p.deviations


def player_reports(rounds: list[RoundRow], player: str | None = None, *, play: bool = True) -> list[PlayerReport]:
    by_player: dict[str, list[tuple[RoundRow, Decimal]]] = {}
    decisions: dict[str, list[PlayDecision]] = {}
    for r in rounds:
        if r.true_count is None:
            continue
        if play and r.header:
            for d in round_decisions(r.round_id, r.header, r.events, r.seen, r.true_count):
                if player is None or d.player == player:
                    decisions.setdefault(d.player, []).append(d)
        for name, amount in r.wagers.items():
            if amount > 0 and (player is None or name == player):
                by_player.setdefault(name, []).append((r, amount))
    out = []
    for name in sorted(by_player):
        items = by_player[name]
        xs = [float(r.true_count or 0.0) for r, _ in items]
        ys = [float(a) for _, a in items]
        total = sum((a for _, a in items), Decimal(0))
        result = fit(xs, ys)
        edges = [(r.edge, float(a)) for r, a in items if r.edge is not None]
        edge = sum(e * a for e, a in edges) / sum(a for _, a in edges) if edges else None
        span = _hours(items[0][0].started_at, items[-1][0].started_at) if len(items) > 1 else 0.0
        per_hour = len(items) / span if span >= 0.1 else ROUNDS_PER_HOUR
        average = total / len(items)
        reasons = []
        if spread_flagged(result, len(items)):
            reasons.append(f"main wager rises with the true count: {result.slope:.2f} per unit of count "
                           f"(95 % {result.slope_text()}), r = {result.r:.2f}, p = {result.p_value:.2g}, "
                           f"{len(items)} rounds")
            if edge is not None and edge > 0:
                reasons.append(f"estimated edge {edge * 100:+.2f} % for the player")
        played = precision(decisions.get(name, [])) if play else None
        if played is not None and index_flagged(played):
            at = [d for d in played.rows if d.at_index]
            reasons.append(f"{played.index_plays} of {played.deviations} deviations from the chart are index plays: "
                           + ", ".join(f"{d.hand}: {d.action} at true count {d.true_count:+.1f} (round {d.round_id})"
                                       for d in at[:5]) + (" ..." if len(at) > 5 else ""))
        count = count_for(items[0][0].game, items[0][0].decks)
        out.append(PlayerReport(
            name, len(items), total, average, result.r, result.slope, result.low, result.high, result.p_value,
            result.p_robust,
            edge, per_hour, edge * float(average) * per_hour if edge is not None else None,
            bool(reasons), reasons, _describe(count), played,
            [Evidence(r.round_id, r.started_at, float(r.true_count or 0.0), a, r.edge) for r, a in items]))
    return out


def _describe(count: Count | None) -> str:
    if count is None:
        return ""
    from dealer_assist.protect.counts import POINT_NAMES

    tags = " ".join(f"{n}:{t:+d}" for n, t in zip(POINT_NAMES, count.tags, strict=True) if count.deck[POINT_NAMES.index(n)])
    return f"{count.game} {count.decks} decks [{tags}] (betting correlation {count.betting_correlation:.2f})"


def report(store: Store, *, table: str | None = None, since: str | None = None, until: str | None = None,
           player: str | None = None) -> list[PlayerReport]:
    """Every player's figures over ``store``'s rounds (started in [since, until), of ``table``)."""
    return report_rounds(store.read_with(_read), str(store.path), table=table, since=since, until=until,
                         player=player)


def report_rounds(rounds: list[RoundRow], source: str, *, table: str | None = None, since: str | None = None,
                  until: str | None = None, player: str | None = None) -> list[PlayerReport]:
    """Every player's figures over ``rounds`` read from ``source`` (a store, the floor) started in
    [since, until) (store time text), of ``table``; the rounds before ``since`` count for their
    shoes only."""
    if not rounds:
        raise ProtectError("no rounds" + (f" of table {table}" if table else "") + " in that time")
    if not any(r.shoe_id is not None for r in rounds):
        raise ProtectError(f"{source} has no shoe records: no round names its shoe "
                           "(spec/round-script.md 'shoe'; rounds recorded before stations wrote it)")
    rebuild_counts(rounds)  # over every round: a shoe's earlier rounds count before --since
    chosen = [r for r in rounds
              if (table is None or r.table == table) and (since is None or r.started_at >= since)
              and (until is None or r.started_at < until)]
    if not chosen:
        raise ProtectError("no rounds" + (f" of table {table}" if table else "") + " in that time")
    games = {r.game for r in chosen if r.shoe_id is not None and count_for(r.game, r.decks) is None}
    if games and all(count_for(r.game, r.decks) is None for r in chosen if r.shoe_id is not None):
        raise ProtectError(f"no count for {', '.join(sorted(games))}: its effects of removal are not on file "
                           "(scripts/protect_removal.py)")
    return player_reports(chosen, player)
