"""The station's count of the shoe in play (issue 36, Build 4: op ``shoe_count``; never on the
dealer's screen, a supervisor's PIN reads it).

The count is the game's own (protect/counts.py ``count_for``) over the cards on record since
the shuffle, read from the same record the floor rebuilds counts from (the rounds' headers
``shoe`` {id, dealt} and their card events, protect/report.py ``round_row``):

- the shoe's earlier rounds are read from the store once, then only the rounds recorded since
  (:class:`ShoeTally`: per shoe id, the running count and the sum of the effects of removal
  of their cards): nothing is worked out per card, nothing runs on the card path;
- the round in play adds its own cards (recorded and tentative) when the count is read, and
  the cards in flight (delivered, not yet on record) count as out of the shoe, faces unknown;
- a shuffle starts a new shoe id (engine/session.py): the tally of the old one is dropped; a
  shuffle during a round reads as the new shoe at once: the round's cards after the shuffle
  came out of it (and the next round's header counts them in its ``dealt``), so a new shoe's
  first round starts from the last cards of the round before it (report.carried_cards);
- after a restart the tally is rebuilt from the store as it was kept;
- each side bet's figure (``side_bets``) is the player's expected return on the next round
  from the shoe's remaining composition (the full shoe less the cards on record), exact where
  the odds can enumerate it, else ``edge`` None and ``method`` saying why
  (protect/removal.py ``side_bet_edges``); with them the bonus paid on the main wager (Dueling
  8's ``bonus678``, per unit of main wager, ``on_main``) and, where the game offers it,
  ``insurance_ace_up``: insurance given the dealer's first card is an Ace.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dealer_assist.base.cards import Card
from dealer_assist.games import GAMES
from dealer_assist.protect.counts import POINT_NAMES, Count, count_for
from dealer_assist.protect.removal import side_bet_edges
from dealer_assist.protect.report import carried_cards, listed_before, round_row
from dealer_assist.service.ops import SideBetEdge
from dealer_assist.store import DEFAULT_TABLE

_ROUNDS_AFTER = ("SELECT r.id, r.config_json FROM rounds r LEFT JOIN sessions s ON s.id = r.session_id "
                 "WHERE r.source = 'live' AND coalesce(s.table_name, ?) = ? AND r.id > ? ORDER BY r.id DESC")
_ROUND_BEFORE = ("SELECT r.id, r.config_json FROM rounds r LEFT JOIN sessions s ON s.id = r.session_id "
                 "WHERE r.source = 'live' AND coalesce(s.table_name, ?) = ? AND r.id < ? ORDER BY r.id DESC LIMIT 1")


@dataclass
class ShoeTally:
    """The cards of one shoe's recorded rounds before the round in play."""

    shoe: str
    through: int = 0  # the last round read
    seen: list[Card] = field(default_factory=list)
    rounds: set[int] = field(default_factory=set)
    opened: bool = False  # the cards out before its first round (carried_into) are in ``seen``


def shoe_rounds_after(conn: sqlite3.Connection, table: str, shoe: str, after: int, current: int | None,
                      ) -> list[tuple[int, dict[str, Any], list[dict[str, Any]]]]:
    """``table``'s live rounds of ``shoe`` recorded after round ``after``, oldest first, but
    ``current`` (the round in play: the session's); read newest first, stopping at a round of
    another shoe (a table's shoes follow one another)."""
    found = []
    for rid, text in conn.execute(_ROUNDS_AFTER, (DEFAULT_TABLE, table, after)):
        config = json.loads(text)
        own = config.get("shoe") if isinstance(config.get("shoe"), dict) else {}
        if own.get("id") != shoe:
            break
        if int(rid) == current:
            continue
        events = [json.loads(e) for (e,) in conn.execute(
            "SELECT event_json FROM events WHERE round_id = ? ORDER BY seq", (int(rid),))]
        found.append((int(rid), config, events))
    return found[::-1]


def carried_into(conn: sqlite3.Connection, table: str, shoe: str, first: int | None, dealt: int) -> list[Card]:
    """The cards of ``table``'s round before the shoe's first round (``first``; None: the round
    in play, not on record yet), whose header says ``dealt`` cards were already out, that
    came out of this shoe (report.carried_cards: a shuffle while that round was dealt)."""
    if dealt <= 0:
        return []
    row = conn.execute(_ROUND_BEFORE, (DEFAULT_TABLE, table, first if first is not None else 2 ** 62)).fetchone()
    if row is None:
        return []
    events = [json.loads(e) for (e,) in conn.execute(
        "SELECT event_json FROM events WHERE round_id = ? ORDER BY seq", (int(row[0]),))]
    return carried_cards(round_row(int(row[0]), table, "", json.loads(row[1]), events), shoe, dealt)


def count_name(count: Count) -> str:
    """The count's name and tags, e.g. ``lucky8 6 decks, level 1: +1 2 3 4 5 6 / -1 10 A``."""
    plus = " ".join(n for n, t, k in zip(POINT_NAMES, count.tags, count.deck, strict=True) if t > 0 and k)
    minus = " ".join(n for n, t, k in zip(POINT_NAMES, count.tags, count.deck, strict=True) if t < 0 and k)
    return f"{count.game} {count.decks} decks, level 1: +1 {plus} / -1 {minus}"


def shoe_figures(game: str, decks: int, shoe: str | None, seen: Sequence[Card], out: int) -> dict[str, Any]:
    """The reply's figures (ops.ShoeCountReply) for ``seen`` (faces on record) and ``out``
    cards out of the shoe in all; a game with no count on file says so in ``note``."""
    count = count_for(game, decks) if decks > 0 else None
    base: dict[str, Any] = {"game": game, "decks": decks, "shoe": shoe, "on_record": len(seen),
                            "side_bets": side_bet_figures(game, decks, seen)}
    if count is None:
        return {**base, "cards_out": max(out, len(seen)), "decks_remaining": None, "running_count": None,
                "true_count": None, "edge": None, "count": None,
                "note": f"{game} at {decks} decks has no count: no effects of removal on file "
                        "(dealer_assist/protect/data/main_removal.json)"}
    gone = min(max(out, len(seen)), count.shoe_size)
    cards = list(seen)
    return {**base, "cards_out": gone, "decks_remaining": (count.shoe_size - gone) / count.deck_size,
            "running_count": count.running(cards), "true_count": count.true_count(cards, gone),
            "edge": count.edge(cards, gone),
            "count": {"name": count_name(count),
                      "tags": {n: t for n, t, k in zip(POINT_NAMES, count.tags, count.deck, strict=True) if k},
                      "betting_correlation": count.betting_correlation, "source": count.source},
            "note": ""}


def side_bet_figures(game: str, decks: int, seen: Sequence[Card]) -> dict[str, SideBetEdge]:
    """Each side bet's player's expected return on the next round from the cards left, the
    main bonus's and insurance's given an Ace up (protect/removal.py ``side_bet_edges``); none
    for a game or deck count not known."""
    if game not in GAMES or decks <= 0:
        return {}
    return {e.bet: {"name": e.name or e.bet, "edge": None if e.edge is None else float(e.edge),
                    "fraction": str(e.edge) if isinstance(e.edge, Fraction) else None, "method": e.method,
                    "on_main": e.on_main}
            for e in side_bet_edges(game, decks, seen)}


def round_cards(config: dict[str, Any], events: list[dict[str, Any]]) -> list[Card]:
    """A round's cards out of the shoe, as the floor reads them (report.round_row)."""
    return round_row(0, "", "", config, events).cards


def tally_for(tally: ShoeTally | None, shoe: str, rounds: list[tuple[int, dict[str, Any], list[dict[str, Any]]]],
              current: int | None, opening: int = 0,
              carried: Callable[[int | None, int], list[Card]] = lambda first, dealt: [],
              header: dict[str, Any] | None = None) -> ShoeTally:
    """``tally`` (or a fresh one for another shoe) with ``rounds`` added, the round in play
    (``current``, its header ``header`` with ``dealt`` ``opening``) left out: its cards are
    read from the session. A fresh tally starts with the cards that came out of the shoe
    before its first round: those its header lists (report.listed_before: cards set aside
    after the shuffle included), else ``carried(first round of the shoe, its dealt)``
    (:func:`carried_into`)."""
    kept = tally if tally is not None and tally.shoe == shoe else ShoeTally(shoe)
    if not kept.opened:  # the cards that came out of the shoe before its first round
        first, dealt, own = ((rounds[0][0], rounds[0][1]["shoe"].get("dealt"), rounds[0][1]) if rounds
                             else (current, opening, header or {}))
        listed = listed_before(own, int(dealt or 0))
        kept.seen.extend(listed if listed is not None else carried(first, int(dealt or 0)))
        kept.opened = True
    for rid, config, events in rounds:
        if rid == current or rid in kept.rounds:
            continue
        kept.seen.extend(round_cards(config, events))
        kept.rounds.add(rid)
        kept.through = max(kept.through, rid)
    return kept
