"""Issue 33 (the card's cost): the card that concludes a round is on disk before any screen
is told of it; the round's result (its settle output, settlement rows and seal: all derived
from the events, docs/store.md) is written once the screens are told, before the table
takes anything else. A service stopped between the two writes the result at its next start
(5.29: the round comes back as it was), so the store never keeps a concluded round without
its result. Every game.

The rounds are test_card_after_outcome's, worked by hand there: p1 (Electronic: terminal t1)
wagers 10 and stands, 20 against the dealer's 17 (3.34 / Electronic's own numbering): p1
wins 10 (4.3.2)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.engine.table_setup import setup_to_json
from dealer_assist.service.table import TableService
from tests.service.conftest import Station, wait_connected
from tests.service.test_card_after_outcome import ROUNDS, SUE, play_to_the_outcome, setup_for


def _round_row(state_dir: Path, round_id: int) -> tuple[str, int, int]:
    """(status, cards on record, settlement rows) of the round, read from the store's file."""
    with sqlite3.connect(f"file:{state_dir / 'table.db'}?mode=ro", uri=True) as conn:
        status = conn.execute("SELECT status FROM rounds WHERE id = ?", (round_id,)).fetchone()[0]
        cards = conn.execute("SELECT COUNT(*) FROM events WHERE round_id = ? AND json_extract(event_json, '$.type')"
                             " = 'card'", (round_id,)).fetchone()[0]
        rows = conn.execute("SELECT COUNT(*) FROM settlements WHERE round_id = ?", (round_id,)).fetchone()[0]
    return str(status), int(cards), int(rows)


@pytest.mark.parametrize("game", list(ROUNDS))
def test_the_last_card_is_on_record_when_told_and_the_result_before_the_next_input(
        station: Any, game: str) -> None:
    shoe = ROUNDS[game][0]
    s: Station = station(shoe)
    c = s.dealer()
    c.request("set_table", setup=setup_to_json(setup_for(game)), pin=SUE)
    told: list[tuple[str, int, int]] = []
    assert s.running is not None
    service = s.running.service
    notify = service.notify

    def on_round(name: str, data: dict[str, Any]) -> None:
        if name == "round" and data.get("concluded") and not told:
            told.append(_round_row(s.state, int(data["round_id"])))  # what is on disk as the screens hear of it
        notify(name, data)

    service.notify = on_round
    state = play_to_the_outcome(s, c, game, len(shoe.split()))
    assert state["output"]["net"] == {("t1" if game == "electronic" else "p1"): 10}
    # told: every card of the round on record (4 cards; Dueling 8's: 2 after the permanent 8s)
    assert told and told[0][1] == len(shoe.split())
    # the next input (any op) finds the result on disk: settled, p1's main wager's row
    c.request("state")
    c.request("next_round")
    status, cards, rows = _round_row(s.state, int(state["round_id"]))
    assert (status, cards) == ("settled", len(shoe.split())) and rows >= 1


@pytest.mark.parametrize("game", list(ROUNDS))
def test_a_service_stopped_before_the_result_writes_it_at_its_next_start(
        station: Any, game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    shoe = ROUNDS[game][0]
    s: Station = station(shoe)
    c = s.dealer()
    c.request("set_table", setup=setup_to_json(setup_for(game)), pin=SUE)
    held = threading.Event()
    write = TableService._result_now

    def not_yet(self: TableService) -> None:  # as if killed once the screens were told
        if self.result_due is not None:
            held.set()
            return
        write(self)

    monkeypatch.setattr(TableService, "_result_now", not_yet)
    state = play_to_the_outcome(s, c, game, len(shoe.split()))
    round_id = int(state["round_id"])
    assert held.wait(10)
    status, cards, rows = _round_row(s.state, round_id)
    assert (status, cards, rows) == ("in_progress", len(shoe.split()), 0)  # the cards on record, no result

    s.stop()
    monkeypatch.setattr(TableService, "_result_now", write)
    s.start()
    wait_connected(s)
    status, cards, rows = _round_row(s.state, round_id)
    assert (status, cards) == ("settled", len(shoe.split())) and rows >= 1
    c = s.dealer()
    out = c.request("state")["output"]
    assert out["status"] == "settled" and out["net"] == {("t1" if game == "electronic" else "p1"): 10}
    c.request("next_round")  # and the table goes on
