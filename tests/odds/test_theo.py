"""Theoretical win over rounds recorded in a real SQLite store, worked by hand from the wagers."""

from __future__ import annotations

import json
import sqlite3
from decimal import Decimal
from pathlib import Path

from dealer_assist.engine.transcript import settle_document
from dealer_assist.odds.theo import (
    house_edges,
    player_rating,
    round_theo,
    stored_rounds,
    table_theo,
    theo_by_bet,
    theo_by_player,
    total,
)
from dealer_assist.store import record_transcript

EXAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "examples"

# Edges chosen for the arithmetic (the real ones come from the par sheet).
EDGES = {"main": Decimal("0.005"), "pair": Decimal("0.1"), "lucky8": Decimal("0.2"), "superb8": Decimal("0.3"),
         "tie18": Decimal("0.09"), "plus21": Decimal("0.04"), "bonus678": Decimal(0), "insurance": Decimal("0.07")}


def edges(game: str, decks: int) -> dict[str, Decimal]:
    assert decks == 6
    return EDGES


def record(db: Path, name: str) -> int:
    doc = json.loads((EXAMPLES / name).read_text())
    return record_transcript(db, doc, settle_document(doc))


def test_lucky8_round_theo_by_hand(tmp_path: Path) -> None:
    db = tmp_path / "table.sqlite"
    rid = record(db, "lucky8-pair-and-double.json")
    conn = sqlite3.connect(db)
    [rnd] = list(stored_rounds(conn, round_ids=[rid]))
    got = round_theo(rnd, edges)
    # alice: main 25 x 0.005 + pair 5 x 0.1; she won the pair (55) and lost the main (25).
    assert got["alice"].theo == Decimal("0.625")
    assert got["alice"].actual == Decimal(-30)
    assert got["alice"].wagered == Decimal(30) and got["alice"].initial == Decimal(30)
    # bob: main 50 (doubled to 100: the edge is per original wager) x 0.005 + lucky8 10 x 0.2.
    assert got["bob"].theo == Decimal("2.25")
    assert got["bob"].actual == Decimal(-150)
    assert got["bob"].wagered == Decimal(110) and got["bob"].initial == Decimal(60)
    table = table_theo([rnd], edges)
    assert table.rounds == 1
    assert total(theo_by_player([rnd], edges).values()).theo == table.theo
    assert table.theo == Decimal("2.875") and table.actual == Decimal(-180)
    assert table.theo_hold == Decimal("2.875") * 100 / 140
    by_bet = theo_by_bet([rnd], edges)
    assert by_bet["main"].theo == Decimal("0.375") and by_bet["main"].actual == Decimal(-75)
    assert by_bet["lucky8"].theo == Decimal(2)


def test_dueling8s_superb8_and_player_rating(tmp_path: Path) -> None:
    db = tmp_path / "table.sqlite"
    record(db, "dueling8s-split-and-superb8.json")
    record(db, "lucky8-pair-and-double.json")
    conn = sqlite3.connect(db)
    rating = player_rating(conn, "alice", edges=edges)
    doc = json.loads((EXAMPLES / "dueling8s-split-and-superb8.json").read_text())
    main = sum(Decimal(str(e["amount"])) for e in doc["events"]
               if e.get("type") == "wager" and e.get("player") == "alice" and e["bet"] == "main")
    sides = {e["bet"]: Decimal(str(e["amount"])) for e in doc["events"]
             if e.get("type") == "wager" and e.get("player") == "alice" and e["bet"] != "main"}
    dueling_theo = main * EDGES["main"] + sum(a * EDGES[b] for b, a in sides.items())
    assert rating.figures.rounds == 2
    assert rating.figures.theo == dueling_theo + Decimal("0.625")
    assert rating.average_bet == (main + sum(sides.values()) + 30) / 2


def test_real_edges_come_from_the_par_sheet() -> None:
    table = house_edges("lucky8", 1)
    assert table["pair"] == Decimal(repr(round(5 / 17, 10)))  # 11:1 on 1/17
    # Lucky 8 pays no bonus on its main wager (only Dueling 8's has one, 4.1.1): no such edge.
    assert set(table) == {"main", "pair", "lucky8", "insurance"}
    assert Decimal("-0.02") < table["main"] < Decimal("0.02")


def test_dueling8s_bonus_is_a_payout_not_a_stake(tmp_path: Path) -> None:
    """A single 100 main wager on 8-6-7 against the dealer's 8-K: the main wins 100 and the
    6-7-8 bonus (1 to 1, not all spades, 4.1.1) pays 100 more. Wagered is the 100 placed,
    not 200; theoretical win is 100 x the main wager's edge; the house's actual win -200."""
    db = tmp_path / "table.sqlite"
    doc = {"game": "dueling8s", "decks": 6, "areas": 7, "seated": {"alice": 2}, "events": [
        {"type": "wager", "player": "alice", "area": 2, "bet": "main", "amount": 100},
        {"type": "no_more_bets"},
        {"type": "card", "card": "6H"},
        {"type": "decision", "area": 2, "action": "hit"},
        {"type": "card", "card": "7D"},
        {"type": "card", "card": "KC"},
    ]}
    rid = record_transcript(db, doc, settle_document(doc))
    conn = sqlite3.connect(db)
    [rnd] = list(stored_rounds(conn, round_ids=[rid]))
    assert sorted(s["bet"] for s in rnd.settlements) == ["bonus678", "main"]  # both settled
    got = round_theo(rnd, edges)["alice"]
    assert got.wagered == Decimal(100) and got.initial == Decimal(100)
    assert got.theo == Decimal("0.5")  # 100 x 0.005
    assert got.actual == Decimal(-200)
    assert got.theo_hold == Decimal("0.5")  # per cent: 0.5 of 100, not 0.25
    table = table_theo([rnd], edges)
    assert table.wagered == Decimal(100) and table.theo_hold == Decimal("0.5")
    by_bet = theo_by_bet([rnd], edges)
    assert by_bet["bonus678"].wagered == 0 and by_bet["bonus678"].actual == Decimal(-100)
    assert by_bet["main"].wagered == Decimal(100) and by_bet["main"].theo == Decimal("0.5")
