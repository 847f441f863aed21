"""Theoretical win: what each wager is expected to earn the house, beside what it did earn.

Theoretical win of a wager = its stake x the house edge of its bet in that game at that
deck count (the par sheet, docs/odds.md). The main wager's edge is per unit of the
original wager (doubles, splits and the 6-7-8 bonus are inside it), so a main wager counts
with the amount placed before the deal (its ``wager`` events), not with what was added by
doubling or splitting; the 6-7-8 bonus has no theoretical win of its own and, being a
payout on the main wager (4.1.1), adds nothing to what was wagered (only its payout counts,
in the actual win). Side bets and
insurance count with their settled stakes. Returned wagers (void rounds, 5.26, 5.27's
excess) were never at risk and count for nothing. Actual win is the house's: minus what
the players netted. Figures are statistics (Decimal, not rounded to the cent).
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from typing import Any

from dealer_assist.games import GAMES

EdgeTable = Mapping[str, Decimal]
EdgeLookup = Callable[[str, int], EdgeTable]

# The key of a wager placed later, on a split hand (Ace Race 3.21.1).
AFTER_SPLIT = "@split"
_SETTLED = ("settled",)


@cache
def house_edges(game: str, decks: int) -> dict[str, Decimal]:
    """Every bet's house edge of ``game`` at ``decks`` decks (computed once per process)."""
    from dealer_assist.odds.sheet import par_sheet

    sheet = par_sheet(game, decks, with_chart=False)  # the printed chart's figures are not needed
    edges = {"main": Decimal(repr(round(sheet.main.house_edge, 10)))}
    for name, figures in sheet.bets.items():
        edges[name] = Decimal(repr(round(figures.house_edge, 10)))
        for extra in figures.extra.values():
            edges[name + AFTER_SPLIT] = Decimal(repr(round(extra.house_edge, 10)))
    bonus = GAMES[game].main_bonus
    if bonus is not None:
        edges[bonus.key] = Decimal(0)  # paid on the main wager (Dueling 8's 4.1.1): inside its edge
    return edges


@dataclass
class Theo:
    """Theoretical and actual win over some wagers (one round, player, session or table)."""

    rounds: int = 0
    initial: Decimal = Decimal(0)  # the wagers placed before the deal and side bets: the "bets"
    wagered: Decimal = Decimal(0)  # every settled stake (doubles and splits included)
    theo: Decimal = Decimal(0)
    actual: Decimal = Decimal(0)  # the house's win

    def add(self, other: Theo) -> None:
        self.rounds += other.rounds
        self.initial += other.initial
        self.wagered += other.wagered
        self.theo += other.theo
        self.actual += other.actual

    @property
    def theo_hold(self) -> Decimal | None:
        """Theoretical win as a share of what was wagered (per cent)."""
        return (self.theo * 100 / self.wagered) if self.wagered else None

    @property
    def actual_hold(self) -> Decimal | None:
        return (self.actual * 100 / self.wagered) if self.wagered else None


@dataclass
class StoredRound:
    """What theoretical win needs of one recorded round."""

    id: int
    session_id: int | None
    game: str
    decks: int
    status: str
    started_at: str
    ended_at: str | None
    events: list[dict[str, Any]]
    settlements: list[dict[str, Any]]


def round_theo(rnd: StoredRound, edges: EdgeLookup = house_edges) -> dict[str, Theo]:
    """Each player's theoretical and actual win on one settled round."""
    out: dict[str, Theo] = {}
    if rnd.status not in _SETTLED:
        return out
    table = edges(rnd.game, rnd.decks)
    game = GAMES.get(rnd.game)
    bonus = game.main_bonus.key if game is not None and game.main_bonus is not None else None
    returned_main: dict[tuple[str, Any], bool] = {}
    for s in rnd.settlements:
        player = str(s["player"])
        line = out.setdefault(player, Theo(rounds=1))
        stake = Decimal(str(s["stake"]))
        line.actual -= Decimal(str(s["net"]))
        bet = str(s["bet"])
        if bet == "main":
            key = (player, s.get("area"))
            returned_main[key] = returned_main.get(key, True) and s["result"] == "returned"
        if s["result"] == "returned" or bet == bonus:
            # A bonus paid on the main wager (the 6-7-8 bonus, Dueling 8's 4.1.1): its
            # settlement carries the main wager's stake, which is not wagered a second time.
            continue
        line.wagered += stake
        if bet == "main":
            continue
        # A side bet placed on a split hand (Ace Race 3.21.1) has its own edge.
        placed_later = s.get("hand") is not None and bet + AFTER_SPLIT in table
        edge = table.get(bet + AFTER_SPLIT if placed_later else bet)
        if edge is None:  # never a silent 0 %: the par sheet rates every bet of the game
            raise ValueError(f"no house edge for the {bet!r} wager of {rnd.game} (round {rnd.id})")
        line.theo += stake * edge
        line.initial += stake
    for ev in rnd.events:
        if ev.get("type") != "wager" or ev.get("bet") != "main" or ev.get("hand") is not None:
            continue
        player = str(ev.get("player"))
        if returned_main.get((player, ev.get("area")), True):
            continue  # returned, or never settled
        amount = Decimal(str(ev.get("amount")))
        line = out.setdefault(player, Theo(rounds=1))
        line.theo += amount * table["main"]
        line.initial += amount
    return out


def total(lines: Iterable[Theo]) -> Theo:
    out = Theo()
    for line in lines:
        out.add(line)
    return out


# ---------------------------------------------------------------- reading the store


def from_detail(detail: Any) -> StoredRound:
    """A round read through the store's public API (``Store.get_round``: a ``RoundDetail``)."""
    s = detail.summary
    return StoredRound(
        int(s.id), s.session_id, str(s.game), int(detail.config.get("decks") or 6), str(s.status),
        str(s.started_at), s.ended_at, [e.event for e in detail.events], list(detail.settlements))


def stored_rounds(conn: sqlite3.Connection, *, session_id: int | None = None, player: str | None = None,
                  since: str | None = None, round_ids: Sequence[int] | None = None, dealer: str | None = None,
                  transcripts: bool = False) -> Iterator[StoredRound]:
    """The settled rounds of a session, a dealer's sessions, a player, the rounds recorded
    from transcripts, or since a time (store time text), oldest first."""
    where = ["r.status = 'settled'"]
    params: list[Any] = []
    if session_id is not None:
        where.append("r.session_id = ?")
        params.append(session_id)
    if dealer is not None:
        where.append("r.session_id IN (SELECT id FROM sessions WHERE dealer = ?)")
        params.append(dealer)
    if transcripts:
        where.append("r.session_id IS NULL")
    if player is not None:
        where.append("r.id IN (SELECT round_id FROM round_players WHERE player = ?)")
        params.append(player)
    if since is not None:
        where.append("r.started_at >= ?")
        params.append(since)
    if round_ids is not None:
        where.append(f"r.id IN ({', '.join('?' for _ in round_ids)})")
        params += list(round_ids)
    rows = conn.execute(
        "SELECT r.id, r.session_id, r.game, r.config_json, r.status, r.started_at, r.ended_at FROM rounds r "
        f"WHERE {' AND '.join(where)} ORDER BY r.id", params).fetchall()
    for rid, sid, game, config_json, status, started, ended in rows:
        config = json.loads(config_json)
        decks = int(config.get("decks") or 6)
        events = [json.loads(e) for (e,) in conn.execute(
            "SELECT event_json FROM events WHERE round_id = ? ORDER BY seq", (rid,))]
        settlements = [
            {"player": p, "area": a, "hand": h, "bet": b, "stake": st, "result": res, "net": net}
            for p, a, h, b, st, res, net in conn.execute(
                "SELECT player, area, hand, bet, stake, result, net FROM settlements WHERE round_id = ? ORDER BY id",
                (rid,))
        ]
        yield StoredRound(int(rid), sid, str(game), decks, str(status), str(started), ended, events, settlements)


@dataclass
class Rating:
    """A player's rating: time played, rounds, average bet, total wagered, theoretical and actual win."""

    player: str
    seconds: float = 0.0
    figures: Theo = field(default_factory=Theo)

    @property
    def average_bet(self) -> Decimal | None:
        if not self.figures.rounds:
            return None
        return self.figures.initial / self.figures.rounds


def _time(text: str) -> _dt.datetime:
    return _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def player_rating(conn: sqlite3.Connection, player: str, since: str | None = None,
                  edges: EdgeLookup = house_edges) -> Rating:
    """The player's rating over the settled rounds they played in (since ``since``).

    Time played: for each table session, from the start of the player's first round to the
    end of their last (rounds recorded from transcripts: each round's own duration).
    """
    rating = Rating(player)
    spans: dict[Any, list[_dt.datetime]] = {}
    for rnd in stored_rounds(conn, player=player, since=since):
        line = round_theo(rnd, edges).get(player)
        if line is None:
            continue
        rating.figures.add(line)
        start = _time(rnd.started_at)
        end = _time(rnd.ended_at) if rnd.ended_at else start
        key = rnd.session_id if rnd.session_id is not None else ("round", rnd.id)
        span = spans.setdefault(key, [start, end])
        span[0], span[1] = min(span[0], start), max(span[1], end)
    rating.seconds = sum((b - a).total_seconds() for a, b in spans.values())
    return rating


def theo_by_player(rounds: Iterable[StoredRound], edges: EdgeLookup = house_edges) -> dict[str, Theo]:
    """Each player's figures over ``rounds``; ``total(...)`` of it is the table's."""
    out: dict[str, Theo] = {}
    for rnd in rounds:
        for player, line in round_theo(rnd, edges).items():
            out.setdefault(player, Theo()).add(line)
    return out


def table_theo(rounds: Iterable[StoredRound], edges: EdgeLookup = house_edges) -> Theo:
    """The table's figures over ``rounds`` (``rounds`` counts rounds, not player-rounds)."""
    out = Theo()
    for rnd in rounds:
        lines = round_theo(rnd, edges)
        if lines:
            line = total(lines.values())
            line.rounds = 1
            out.add(line)
    return out


def theo_by_bet(rounds: Iterable[StoredRound], edges: EdgeLookup = house_edges) -> dict[str, Theo]:
    """Theoretical and actual win per bet kind over ``rounds`` (the main wager by its original amounts)."""
    out: dict[str, Theo] = {}
    for rnd in rounds:
        if rnd.status not in _SETTLED:
            continue
        for bet in {str(s["bet"]) for s in rnd.settlements}:
            part = StoredRound(rnd.id, rnd.session_id, rnd.game, rnd.decks, rnd.status, rnd.started_at,
                               rnd.ended_at, rnd.events if bet == "main" else [],
                               [s for s in rnd.settlements if s["bet"] == bet])
            line = total(round_theo(part, edges).values())
            line.rounds = 1
            out.setdefault(bet, Theo()).add(line)
    return out
