"""Shared fixtures for the store tests: the example transcripts and hand-written settle outputs.

The expected nets are those worked by hand in ../shared/examples/README.md.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "examples"


def load_example(name: str) -> dict[str, Any]:
    with open(EXAMPLES / name, encoding="utf-8") as handle:
        document: dict[str, Any] = json.load(handle)
    return document


def _entry(
    player: str, bet: str, stake: Any, result: str, net: Any, rule: str, **extra: Any
) -> dict[str, Any]:
    entry = {
        "player": player,
        "bet": bet,
        "stake": stake,
        "result": result,
        "net": net,
        "rule": rule,
    }
    entry.update(extra)
    entry.setdefault("stage", "final")
    return entry


# Hand-written settle outputs matching ../shared/examples/README.md (the parts the store uses).
RESULTS: dict[str, dict[str, Any]] = {
    "lucky8-pair-and-double.json": {
        "game": "lucky8",
        "status": "settled",
        "settlements": [
            _entry("alice", "pair", 5, "win", 55, "4.2", area=1, stage="interim"),
            _entry("bob", "lucky8", 10, "win", 50, "4.3", area=3, stage="interim"),
            _entry("alice", "main", 25, "lose", -25, "3.31", area=1, hand=1),
            _entry("bob", "main", 100, "win", 100, "3.31", area=3, hand=1),
        ],
        "net": {"alice": 30, "bob": 150},
        "rulings": [],
        "claims": [],
        "next": None,
    },
    "dueling8s-split-and-superb8.json": {
        "game": "dueling8s",
        "status": "settled",
        "settlements": [
            _entry("alice", "superb8", 5, "win", 15, "4.2.2", area=2, stage="interim"),
            _entry("alice", "main", 40, "win", 40, "3.30", area=2, hand=1),
            _entry("alice", "main", 20, "win", 20, "3.30", area=2, hand=2),
        ],
        "net": {"alice": 75},
        "rulings": [],
        "claims": [],
        "next": None,
    },
    "electronic-shared-hand.json": {
        "game": "electronic",
        "status": "settled",
        "settlements": [
            _entry("t2", "bet_the_set", 5, "win", 75, "4.2", stage="interim"),
            _entry("t1", "main", 10, "push", 0, "3.20", hand=1),
            _entry("t2", "main", 20, "win", 20, "3.20", hand=1),
            _entry("t2", "main", 10, "win", 10, "3.20", hand=2),
        ],
        "net": {"t1": 0, "t2": 105},
        "rulings": [],
        "claims": [],
        "next": None,
    },
}

EXAMPLE_NAMES = sorted(RESULTS)


def example_result(name: str) -> dict[str, Any]:
    """The engine's settle output of the example, checked against the hand-worked amounts.

    ``verify`` re-settles every recorded round and compares what was recorded, so the
    store is given what the engine says; the hand-worked players, bets, stakes, results
    and nets above must agree with it.
    """
    from dealer_assist.engine.transcript import settle_document

    output = settle_document(load_example(name))
    expected = RESULTS[name]
    fields = ("player", "bet", "stake", "result", "net")
    assert [[str(e[f]) for f in fields] for e in output["settlements"]] == [
        [str(e[f]) for f in fields] for e in expected["settlements"]
    ]
    assert output["net"] == expected["net"] and output["status"] == expected["status"]
    return copy.deepcopy(output)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "table.db"


SUPERVISOR = "sue"
SUPERVISOR_PIN = "482913"


def append_authorised(store: Any, round_id: int, event: dict[str, Any], **kwargs: Any) -> int:
    """Append an event that needs a supervisor's approval (a void, a correction ...), as the
    dealer's screen does: the supervisor's PIN first (sue is made a supervisor if need be)."""
    from dealer_assist.store import authority_needed

    if SUPERVISOR not in {u["username"] for u in store.users()}:
        store.create_user(SUPERVISOR, SUPERVISOR_PIN, ["supervisor"], actor="test")
    check = store.authorise(SUPERVISOR, SUPERVISOR_PIN, kind=authority_needed(event)[0], round_id=round_id)
    assert check.ok, check
    return int(store.append_event(round_id, event, approval=check.approval, **kwargs))
