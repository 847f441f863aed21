"""The dealer's screen sends typed events to the service and the store records their
transcript form: the round's events the service told the screen and what the store holds
are the same events, one for one."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from dealer_assist.engine.events import CardDrawn
from dealer_assist.engine.table_setup import TableSetup
from dealer_assist.engine.transcript import event_to_transcript, parse_event
from dealer_assist.store import Store
from tests.ui.driving import TableDriver, round_events

MakeTable = Callable[..., TableDriver]


def test_the_store_holds_the_events_the_round_applied(make_table: MakeTable, tmp_path: Path) -> None:
    # Lucky 8, alice on area 1: main 12.50 and Pair 5. 8♥ (area 1), 6♦ (dealer), 8♠ (area 1):
    # 8-8 is a Pair (1.1.9), 11 to 1 (4.1): +55. Alice stands on 16; the dealer's 6 + 10 = 16
    # draws (3.34) 4 -> 20, which beats 16: alice loses 12.50 (4.4.1). Net 55 - 12.50 = 42.50.
    db = tmp_path / "typed.db"
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), "8H 6D 8S 10C 4S 2C", db=db)
    c = t.controller
    # An amount no wager can hold is refused quoting it (money: whole cents), the slip unchanged.
    assert not c.place_wager("alice", "main", 12.345, area=1)
    assert "12.345" in c.last_refusal and "0.01" in c.last_refusal
    assert c.slip == []
    assert c.place_wager("alice", "main", Decimal("12.50"), area=1)
    assert c.place_wager("alice", "pair", 5, area=1)
    assert c.slip == [{"type": "wager", "player": "alice", "bet": "main", "amount": 12.5, "area": 1},
                      {"type": "wager", "player": "alice", "bet": "pair", "amount": 5, "area": 1}]
    t.press("no_more_bets")
    t.deal(3)
    t.press("stand")
    t.deal(2)
    t.settled_writes()
    assert c.rnd.status() == "settled"
    assert c.output()["net"] == {"alice": 42.5}

    applied = round_events(c)  # as the service told the screen
    store = Store.open(db)
    try:
        assert c.round_id is not None
        stored = store.export_round(c.round_id)["events"]
    finally:
        store.close()
    assert [e["type"] for e in stored] == ["wager", "wager", "no_more_bets", "card", "card", "card", "decision",
                                           "card", "card"]
    assert stored == [event_to_transcript(e) for e in applied]
    assert [parse_event(e) for e in stored] == applied
    # each card keeps the shoe's frame number, for the review (no rule reads it)
    assert all(isinstance(e, CardDrawn) and isinstance(e.shoe_seq, int) for e in applied if e.type == "card")
