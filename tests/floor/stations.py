"""Station stores for the floor tests: real SQLite stores recorded through the store's live API.

The rounds are the review tests' transcripts of all five games (tests/ui_review/rounds.py and
../shared/examples), each with its outcome worked by hand there; every round is settled by the
real rules (``settle_document``) as the dealer's screen does.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from dealer_assist.engine.transcript import settle_document
from dealer_assist.store import TEST_PIN_COST, Store, authority_needed
from tests.ui_review.rounds import ACE_RACE, LUCKY8_RULING, LUCKY8_VOID, STAR_ELEMENTS, example

#: (document, alice's net worked by hand, or None when alice does not play)
DOCUMENTS: list[dict[str, Any]] = [
    ACE_RACE,  # alice +25 (Blackjack 6 to 5 on 25, pair 5 lost)
    LUCKY8_RULING,  # alice +20, bob +40 (5.13 reconstruction, dealer busts)
    LUCKY8_VOID,  # void (5.1.1): every wager returned
    STAR_ELEMENTS,  # bob +50
    example("lucky8-pair-and-double.json"),
    example("dueling8s-split-and-superb8.json"),
    example("electronic-shared-hand.json"),
]
GAMES = {"ace_race", "lucky8", "star_elements", "dueling8s", "electronic"}

_RESULTS: dict[int, dict[str, Any]] = {}


def result_of(index: int) -> dict[str, Any]:
    if index not in _RESULTS:
        _RESULTS[index] = settle_document(copy.deepcopy(DOCUMENTS[index]))
    return _RESULTS[index]


SUPERVISOR, SUPERVISOR_PIN = "sue", "482913"


def open_station(path: Path) -> Store:
    """The station's store (PIN hashes at the tests' low cost)."""
    return Store.open(path, pin_cost=TEST_PIN_COST)


def approval_for(store: Store, event: dict[str, Any], round_id: int | None) -> int | None:
    """A supervisor's approval for an event that needs one (a void ...), as the screen asks it."""
    kinds = authority_needed(event)
    if not kinds:
        return None
    if SUPERVISOR not in {u["username"] for u in store.users()}:
        store.create_user(SUPERVISOR, SUPERVISOR_PIN, ["supervisor"], actor="test")
    check = store.authorise(SUPERVISOR, SUPERVISOR_PIN, kind=kinds[0], round_id=round_id)
    assert check.ok, check
    return check.approval


def record_rounds(store: Store, count: int, *, dealer: str = "ann", start: int = 0,
                  session: int | None = None) -> list[int]:
    """Record ``count`` live rounds (cycling the documents from ``start``) in one session."""
    if session is None:
        session = store.start_session(game="mixed", decks=6, areas=7, limits={}, dealer=dealer)
    ids = []
    for n in range(count):
        index = (start + n) % len(DOCUMENTS)
        document = DOCUMENTS[index]
        config = {k: v for k, v in document.items() if k != "events"}
        rid = store.begin_round(config, session_id=session)
        for event in document["events"]:
            store.append_event(rid, event, actor=f"dealer:{dealer}", approval=approval_for(store, event, rid))
        store.finish_round(rid, result_of(index), actor=f"dealer:{dealer}")
        ids.append(rid)
    return ids


def make_station(path: Path, table: str, pit: str, rounds: int, *, dealer: str = "ann",
                 start: int = 0) -> list[int]:
    with open_station(path) as store:
        store.claim_table(table, pit)
        return record_rounds(store, rounds, dealer=dealer, start=start)


def bulk_station(path: Path, table: str, pit: str, rounds: int, *, start: int = 0) -> dict[int, int]:
    """Many rounds quickly: each whole round in one transaction (``start_round`` with its events
    and settle output; a void with its supervisor's approval), cycling the documents from
    ``start``; the table claimed if it is not yet. Round id -> its document's index."""
    made: dict[int, int] = {}
    with open_station(path) as store:
        if store.table_identity() is None:
            store.claim_table(table, pit)
        store.db.execute("PRAGMA synchronous = OFF")  # test data only: one fsync per round is slow
        for n in range(rounds):
            index = (start + n) % len(DOCUMENTS)
            document = DOCUMENTS[index]
            config = {k: v for k, v in document.items() if k != "events"}
            approval = None
            for event in document["events"]:
                approval = approval or approval_for(store, event, None)
            made[store.start_round(config, document["events"], result=result_of(index), approval=approval)] = index
    return made
