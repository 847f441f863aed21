"""`dealer-assist settle`: JSON in, JSON out; one error line and exit 2 for anything invalid."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer_assist.base.errors import TranscriptError
from dealer_assist.engine.transcript import settle_document, settle_text

EXAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "examples"


def run_settle(arg: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dealer_assist", "settle", arg],
        input=stdin, capture_output=True, text=True, timeout=60,
    )


def test_settle_prints_the_output_object_and_exits_0() -> None:
    proc = run_settle(str(EXAMPLES / "lucky8-pair-and-double.json"))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["net"] == {"alice": 30, "bob": 150}
    assert proc.stderr == ""


def test_settle_reads_standard_input() -> None:
    text = (EXAMPLES / "dueling8s-split-and-superb8.json").read_text()
    proc = run_settle("-", text)
    assert proc.returncode == 0 and json.loads(proc.stdout)["net"] == {"alice": 75}


def test_a_refused_event_gives_one_line_with_its_index_and_clause() -> None:
    doc = {"game": "ace_race", "decks": 6, "areas": 7, "events": [
        {"type": "wager", "player": "a", "area": 3, "bet": "main", "amount": 10},
        {"type": "no_more_bets"},
        {"type": "card", "card": "5H"}, {"type": "card", "card": "7D"}, {"type": "card", "card": "4C"},
        {"type": "decision", "action": "double", "area": 3},
    ]}
    proc = run_settle("-", json.dumps(doc))
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (
        "error: event 5 (decision double, area 3): Ace Race doubles only on hard 10 or 11 (3.26.1)\n"
    )


def test_garbage_json_is_one_error_line() -> None:
    proc = run_settle("-", "{not json")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("error: not valid JSON") and proc.stderr.count("\n") == 1


def test_unknown_game_and_decks_out_of_range() -> None:
    proc = run_settle("-", json.dumps({"game": "baccarat", "decks": 6, "events": []}))
    assert proc.returncode == 2 and "unknown game 'baccarat'" in proc.stderr
    proc = run_settle("-", json.dumps({"game": "star_elements", "decks": 8, "areas": 7, "events": []}))
    assert proc.returncode == 2
    assert proc.stderr == "error: Star Elements Blackjack is played with 4 to 6 decks, not 8 (2.1)\n"


def test_missing_file() -> None:
    proc = run_settle("/nonexistent/round.json")
    assert proc.returncode == 2 and proc.stderr.startswith("error: cannot read") and "Traceback" not in proc.stderr


def test_unknown_card_names_the_event() -> None:
    doc = {"game": "dueling8s", "decks": 6, "areas": 7, "events": [
        {"type": "wager", "player": "a", "area": 1, "bet": "main", "amount": 10},
        {"type": "no_more_bets"}, {"type": "card", "card": "1X"},
    ]}
    try:
        settle_document(doc)
    except TranscriptError as exc:
        assert exc.message.startswith("event 2 (card 1X): '1X' is not a card")
    else:
        raise AssertionError("refused expected")


def test_a_ten_in_dueling8s_voids_the_round_5_1() -> None:
    doc = {"game": "dueling8s", "decks": 6, "areas": 7, "events": [
        {"type": "wager", "player": "a", "area": 1, "bet": "main", "amount": 10},
        {"type": "no_more_bets"}, {"type": "card", "card": "10H"},
    ]}
    out = settle_document(doc)
    assert out["status"] == "void"
    assert out["rulings"][0]["rule"] == "5.1"
    assert out["settlements"][0]["result"] == "returned" and out["net"] == {"a": 0}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 100) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6) | st.sampled_from(["AS", "10H", "7Wa", "area:1", "dealer", "main", "pair"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "player", "area", "bet", "amount", "card", "action", "hand", "to",
                         "index", "cards", "disclosed", "claimants", "followers", "ruling", "by", "x"]),
        inner, max_size=6),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(header=st.fixed_dictionaries({}, optional={
    "game": st.sampled_from(["ace_race", "electronic", "star_elements", "lucky8", "dueling8s", "x", 3]),
    "decks": st.integers(-1, 9) | st.text(max_size=2),
    "areas": st.integers(-1, 9),
    "limits": json_values, "seated": json_values, "under_min_history": json_values,
}), events=st.lists(json_values, max_size=12))
def test_garbage_never_raises_anything_but_a_transcript_error(header: dict[str, Any], events: list[Any]) -> None:
    doc = dict(header, events=events)
    try:
        settle_text(json.dumps(doc))
    except TranscriptError as exc:
        assert exc.message and "\n" not in exc.message


def _example_events() -> list[tuple[dict[str, Any], int]]:
    docs = [json.loads(p.read_text()) for p in sorted(EXAMPLES.glob("*.json"))]
    return [(d, i) for d in docs for i in range(len(d["events"]))]


@settings(max_examples=300, deadline=None)
@given(pick=st.sampled_from(_example_events()), key=st.sampled_from(
    ["type", "player", "area", "bet", "amount", "card", "action", "hand", "to"]), value=json_values,
    drop=st.booleans())
def test_mutated_examples_settle_or_refuse_cleanly(pick: tuple[dict[str, Any], int], key: str, value: Any,
                                                   drop: bool) -> None:
    doc, index = pick
    doc = copy.deepcopy(doc)
    if drop:
        del doc["events"][index]
    else:
        doc["events"][index][key] = value
    try:
        out = settle_text(json.dumps(doc))
    except TranscriptError:
        return
    assert out["status"] in ("settled", "in_progress", "void", "referred")
