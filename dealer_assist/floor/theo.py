"""Theoretical win of the floor's rounds: the par sheets' edges (dealer_assist.odds.theo) over
rounds read through the floor reader."""

from __future__ import annotations

import datetime as _dt

from dealer_assist.floor.reader import FloorReader, FloorRoundDetail
from dealer_assist.odds.theo import EdgeLookup, StoredRound, Theo, house_edges, table_theo


def from_floor(detail: FloorRoundDetail) -> StoredRound:
    """A round read through the floor reader's public API (``FloorReader.get_round``)."""
    s = detail.summary
    return StoredRound(int(s.id), s.session_id, str(s.game), int(detail.config.get("decks") or 6), str(s.status),
                       str(s.started_at), s.ended_at, [event for _, _, _, event in detail.events],
                       list(detail.settlements))


def pit_theo(reader: FloorReader, *, pit: str | None = None, since: _dt.datetime | None = None,
             until: _dt.datetime | None = None, edges: EdgeLookup = house_edges) -> dict[str, Theo]:
    """Each table's theoretical and actual win over the floor's settled rounds (of ``pit``);
    ``total(...)`` of it is the pit's. With the par sheets' edges (``house_edges``) it sums the
    figures stored with each round at forwarding (one query) and works out only rounds forwarded
    without them; with other ``edges`` it works out every round (for a shift or a day, not a year)."""
    out: dict[str, Theo] = {}
    if edges is house_edges:
        sums, todo = reader.stored_theo(pit=pit, since=since, until=until)
        for line in sums:
            out[line.table] = Theo(line.rounds, line.initial, line.wagered, line.theo, line.actual)
    else:
        todo = [(r.table, r.id) for r in reader.list_rounds(pit=pit, since=since, until=until, status="settled",
                                                             limit=None)]
    for table, rid in todo:
        detail = reader.get_round(table, rid)
        if detail is not None:
            out.setdefault(table, Theo()).add(table_theo([from_floor(detail)], edges))
    return out
