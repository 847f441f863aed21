"""Station stores for the floor tests: real SQLite stores recorded through the store's live API.

The rounds are the review tests' transcripts of all five games (tests/ui_review/rounds.py and
../shared/examples), each with its outcome worked by hand there; every round is settled by the
real rules (``settle_document``) as the dealer's screen does.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from dealer_assist.store import Store
from dealer_assist.transcript import settle_document
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
            store.append_event(rid, event, actor=f"dealer:{dealer}")
        store.finish_round(rid, result_of(index), actor=f"dealer:{dealer}")
        ids.append(rid)
    return ids


def make_station(path: Path, table: str, pit: str, rounds: int, *, dealer: str = "ann",
                 start: int = 0) -> list[int]:
    with Store.open(path) as store:
        store.claim_table(table, pit)
        return record_rounds(store, rounds, dealer=dealer, start=start)


def bulk_station(path: Path, table: str, pit: str, rounds: int, *, start: int = 0) -> None:
    """Many rounds quickly: each one whole transcript in one transaction (``record_document``,
    as ``settle --record`` does), cycling the documents."""
    with Store.open(path) as store:
        store.claim_table(table, pit)
        store.db.execute("PRAGMA synchronous = OFF")  # test data only: one fsync per round is slow
        for n in range(rounds):
            index = (start + n) % len(DOCUMENTS)
            store.record_document(DOCUMENTS[index], result_of(index))
