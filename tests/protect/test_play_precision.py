"""Play precision through the real CLI (issue 36, Build 3): a player who plays the printed
chart exactly and one who leaves it exactly at the count's index play for insurance.

Blackjack Lucky 8, 2 decks (104 cards, 32 ten-valued). Each of three shoes has two rounds;
in both the dealer's first card is an ace and both players hold 9 + 8 = hard 17 (the chart
stands: checked against the chart below), so insurance is offered (3.27.1).

- Round A at the shoe's start: the five cards on the table are not tens, so the dealer's
  second card is a ten with p = 32 / 99 = 0.323 < 1/3: insurance (2 to 1, 4.1) is worth
  3p - 1 < 0. Both decline. The dealer draws 7: soft 18.
- Round B after round A's six cards (none a ten): p = 32 / (104 - 6 - 5) = 32 / 93 = 0.344
  > 1/3: insurance is favourable. ``counter`` takes it, ``chart`` declines. The dealer draws
  a ten: blackjack.

So ``chart``: 12 decisions (6 declines, 6 stands), all the chart's: 100 %, no index play.
``counter``: the same, except 3 insurances taken, each exactly at the index: 9 of 12 match
the chart (75 %), 3 deviations, all 3 index plays: flagged.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.engine.transcript import settle_document
from dealer_assist.odds.rulesets import for_game
from dealer_assist.odds.sheet import chart_of
from dealer_assist.protect.counts import count_for
from dealer_assist.protect.play import shifted_shoe
from dealer_assist.store import record_transcript

ROOT = Path(__file__).resolve().parents[2]


def protect(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer_assist", "protect", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


def insurance_round(shoe: dict[str, Any], cards: list[str], dealer_second: str, counter_insures: bool) -> dict[str, Any]:
    """``cards``: counter's first, chart's first, the dealer's ace, counter's second, chart's second."""
    events: list[dict[str, Any]] = [
        {"type": "wager", "player": "counter", "area": 1, "bet": "main", "amount": 20},
        {"type": "wager", "player": "chart", "area": 2, "bet": "main", "amount": 20},
        {"type": "no_more_bets"},
        *({"type": "card", "card": c} for c in cards),
    ]
    if counter_insures:
        events.append({"type": "decision", "action": "insurance", "area": 1, "player": "counter"})
    events += [
        {"type": "decision", "action": "stand", "area": 1},
        {"type": "decision", "action": "stand", "area": 2},
        {"type": "card", "card": dealer_second},
    ]
    return {"game": "lucky8", "decks": 2, "areas": 7, "seated": {"counter": 1, "chart": 2}, "shoe": shoe,
            "events": events}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("play") / "t1.db"
    for n in range(3):
        shoe = f"S-{n + 1}"
        docs = [insurance_round({"id": shoe, "dealt": 0}, ["9S", "9H", "AS", "8S", "8H"], "7S", False),
                insurance_round({"id": shoe, "dealt": 6}, ["9D", "9C", "AH", "8D", "8C"], "10S", True)]
        for doc in docs:
            result = settle_document(doc)
            assert result["status"] == "settled", result
            record_transcript(db, doc, result, table="T1")
    return db


def test_the_cases_are_what_the_docstring_says() -> None:
    assert chart_of("lucky8", 2).cells[("hard", 17, 1)] == "S"
    p_a, p_b = Fraction(32, 99), Fraction(32, 93)
    assert 3 * p_a - 1 < 0 < 3 * p_b - 1


def test_a_chart_player_is_exact_and_an_insurance_counter_is_flagged(store: Path) -> None:
    done = protect("--db", str(store), "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["player"]: r for r in map(json.loads, done.stdout.splitlines())}
    chart, counter = rows["chart"], rows["counter"]
    assert chart["play_precision"] == {"decisions": 12, "matching": 12, "share": 1.0, "deviations": 0,
                                       "index_plays": 0}
    assert chart["index_plays"] == [] and chart["flagged"] is False  # flat bettor, chart play
    assert counter["play_precision"] == {"decisions": 12, "matching": 9, "share": 0.75, "deviations": 3,
                                         "index_plays": 3}
    assert [(p["action"], p["hand"], p["chart"]) for p in counter["index_plays"]] == \
        [("insurance", "insurance v A", "decline")] * 3
    assert sorted({p["round"] for p in counter["index_plays"]}) == [2, 4, 6]  # every round B
    assert counter["flagged"] is True
    assert any("3 of 3 deviations from the chart are index plays" in r for r in counter["reasons"])


def test_a_players_report_as_csv_and_pdf(store: Path, tmp_path: Path) -> None:
    pdf, table = tmp_path / "counter.pdf", tmp_path / "counter.csv"
    done = protect("--db", str(store), "--player", "counter", "--pdf", str(pdf), "--csv", str(table))
    assert done.returncode == 0, done.stderr
    assert pdf.read_bytes().startswith(b"%PDF-") and b"%%EOF" in pdf.read_bytes()[-64:]
    with table.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["round"]) for r in rows] == [1, 2, 3, 4, 5, 6]
    assert {r["player"] for r in rows} == {"counter"} and {r["main_wager"] for r in rows} == {"20"}
    # round A at the shoe's start: true count 0; round B: the insurance taken at the index
    assert [float(r["true_count"]) for r in rows[::2]] == [0.0, 0.0, 0.0]
    assert [(r["decisions"], r["chart_matches"], r["index_plays"]) for r in rows] == \
        [("2", "2", "0"), ("2", "1", "1")] * 3
    assert rows[1]["deviations"] == "insurance v A: insurance (chart decline, index play)"


def test_a_report_needs_one_player_and_a_writable_file(store: Path, tmp_path: Path) -> None:
    done = protect("--db", str(store), "--pdf", str(tmp_path / "x.pdf"))
    assert done.returncode == 2 and done.stderr.startswith("error: ") and "--player" in done.stderr
    nobody = protect("--db", str(store), "--player", "nobody", "--csv", str(tmp_path / "x.csv"))
    assert nobody.returncode == 2 and "no rounds of player nobody" in nobody.stderr
    assert not (tmp_path / "x.csv").exists()
    bad = protect("--db", str(store), "--player", "counter", "--csv", str(tmp_path / "missing" / "x.csv"))
    assert bad.returncode == 2 and bad.stderr.startswith("error: cannot write the report")
    assert "Traceback" not in bad.stderr


def test_the_shifted_shoe_has_the_true_count_and_the_size() -> None:
    count = count_for("lucky8", 6)
    assert count is not None
    rules = for_game("lucky8", 6)
    for tc in range(-5, 6):
        shoe = shifted_shoe(count, rules, tc)
        assert sum(shoe) == sum(rules.shoe)
        # the cards moved out of the full shoe, by tag: their running count per deck is tc
        assert sum(t * (full - now) for t, full, now in zip(count.tags, rules.shoe, shoe, strict=True)) == 6 * tc


def test_a_table_played_by_the_chart_is_all_the_chart(tmp_path: Path) -> None:
    """Sixty rounds dealt through the engine, every hand by the chart (the simulator's, with
    surrender): the replay finds every decision the chart's and no index play."""
    db = tmp_path / "sim.db"
    done = subprocess.run([sys.executable, "scripts/protect_sample.py", str(db), "--rounds", "60", "--seed", "3"],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = {r["player"]: r for r in map(json.loads, protect("--db", str(db), "--json").stdout.splitlines())}
    for name in ("counter", "flat"):
        p = rows[name]["play_precision"]
        assert p["decisions"] >= 60 and p["matching"] == p["decisions"] and p["index_plays"] == 0
