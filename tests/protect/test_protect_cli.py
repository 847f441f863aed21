"""``dealer-assist protect`` through the real CLI on recorded stores (issue 36, Build 3):
a bettor who bets 10 off the top of each shoe and 50 after the low cards came out (perfectly
correlated with the true count), a flat bettor beside them, and a store without shoe records.

Each shoe: round A (no card out yet, true count 0) then round B after round A's seven cards
2 3 4 5 6 10 10 (p1 2+5 = 7 and p2 3+6 = 9 stand; the Lucky 8 dealer 4+10+10 busts, 4.3.2):
running count = the tags of those seven cards, 305 cards left, so true count =
running / (305 / 52)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.base.cards import parse_card
from dealer_assist.engine.transcript import settle_document
from dealer_assist.protect.counts import count_for
from dealer_assist.store import record_transcript

ROOT = Path(__file__).resolve().parents[2]
CARDS = ["2S", "3S", "4S", "5S", "6S", "10S", "10H"]


def protect(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer_assist", "protect", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def lucky8_round(shoe: dict[str, Any] | None, p1: int, p2: int) -> dict[str, Any]:
    doc: dict[str, Any] = {"game": "lucky8", "decks": 6, "areas": 7, "seated": {"p1": 1, "p2": 2}}
    if shoe is not None:
        doc["shoe"] = shoe
    doc["events"] = [
        {"type": "wager", "player": "p1", "area": 1, "bet": "main", "amount": p1},
        {"type": "wager", "player": "p2", "area": 2, "bet": "main", "amount": p2},
        {"type": "no_more_bets"},
        *({"type": "card", "card": c} for c in CARDS[:5]),
        {"type": "decision", "action": "stand", "area": 1},
        {"type": "decision", "action": "stand", "area": 2},
        *({"type": "card", "card": c} for c in CARDS[5:]),
    ]
    return doc


def record(db: Path, doc: dict[str, Any]) -> None:
    result = settle_document(doc)
    assert result["status"] == "settled" and result["net"] == {"p1": doc["events"][0]["amount"],
                                                              "p2": doc["events"][1]["amount"]}
    record_transcript(db, doc, result, table="T1")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("protect") / "t1.db"
    for n in range(6):
        shoe = f"S-{n + 1}"
        record(db, lucky8_round({"id": shoe, "dealt": 0}, 10, 10))
        record(db, lucky8_round({"id": shoe, "dealt": 7}, 50, 10))
    return db


def test_a_bettor_who_follows_the_count_is_flagged_and_a_flat_one_is_not(store: Path) -> None:
    count = count_for("lucky8", 6)
    assert count is not None
    running = sum(count.tag(parse_card(c)) for c in CARDS)
    assert running != 0  # low cards out: the count moves
    tc = running / (305 / 52)
    done = protect("--db", str(store), "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["player"]: r for r in map(json.loads, done.stdout.splitlines())}
    p1, p2 = rows["p1"], rows["p2"]
    assert p1["rounds"] == 12 and p1["total_wager"] == 360 and p1["average_wager"] == 30
    # two points (0, 10) and (tc, 50), six times each: on one line
    assert p1["correlation"] == pytest.approx(1.0 if tc > 0 else -1.0)
    assert p1["slope"] == pytest.approx(40 / tc)
    assert p1["p_value"] == 0.0 and p1["p_robust"] == 0.0
    assert p1["flagged"] is (tc > 0) and (not p1["flagged"] or "rises with the true count" in p1["reasons"][0])
    assert p2["rounds"] == 12 and p2["total_wager"] == 120
    assert p2["correlation"] is None and p2["slope"] == 0 and p2["p_value"] == 1.0 and p2["p_robust"] == 1.0
    assert p2["flagged"] is False and p2["reasons"] == []
    # the estimated edge: the full shoe's, then that plus 312/305 x the seven cards' effects
    after = count.base + 312 / 305 * sum(count.effects[parse_card(c).points - 1] for c in CARDS)
    assert p2["estimated_edge"] == pytest.approx((count.base + after) / 2)
    assert p1["estimated_edge"] == pytest.approx((10 * count.base + 50 * after) / 60)


def test_one_player_and_the_human_table(store: Path) -> None:
    done = protect("--db", str(store), "--player", "p2", "--json")
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["player"] for line in done.stdout.splitlines()] == ["p2"]
    text = protect("--db", str(store))
    assert text.returncode == 0 and "p1" in text.stdout and "FLAGGED" in text.stdout


def test_no_rounds_in_the_window_and_a_bad_time_are_errors(store: Path) -> None:
    done = protect("--db", str(store), "--until", "2000-01-01")
    assert done.returncode == 2 and done.stdout == "" and done.stderr.startswith("error: no rounds")
    bad = protect("--db", str(store), "--since", "yesterday")
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and "ISO 8601" in bad.stderr


def test_a_store_without_shoe_records_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    record(db, lucky8_round(None, 10, 10))
    done = protect("--db", str(db), "--json")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: ") and "no shoe records" in done.stderr
    assert "Traceback" not in done.stderr
