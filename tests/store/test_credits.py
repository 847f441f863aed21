"""The player terminals' credit meters on record (issue 38 build 3; Electronic Blackjack
1.1.10: a terminal buys credits, places wagers and cashes out): every movement a chained
audit entry, and the reconciliation buy-ins - cash-outs + net results = meters, which
``history verify`` checks."""

from __future__ import annotations

import json
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from dealer_assist.engine.transcript import settle_document
from dealer_assist.store import Store, StoreError
from dealer_assist.store.users import TEST_PIN_COST
from tests.store.conftest import load_example


def _recorded(db_path: Path) -> int:
    """The electronic example (examples/electronic-shared-hand.json) recorded: t1 main 10
    pushes 18 against 18 (4.8.1, net 0); t2 main 10 + Bet the Set 5: the first two Player
    cards 9S 9S are a suited pair, 15 to 1 (4.2): +75; split (3.13), hand 1 doubled to 20
    makes 21, hand 2 makes 21, both beat 18 (4.5.2): +20 and +10. t2's net: 75 + 20 + 10 = 105."""
    document = load_example("electronic-shared-hand.json")
    with Store.open(db_path, pin_cost=TEST_PIN_COST) as store:
        store.create_user("sue", "482913", ["supervisor"])
        approval = store.authorise("sue", "482913", kind="buy_in").approval
        assert approval is not None
        assert store.buy_in("t2", Decimal(500), actor="supervisor:sue", approval=approval)[1] == 500
        round_id = store.record_document(document, settle_document(document))
        # t1 never bought in: its result is no meter's
        assert store.pay_results(round_id, {"t1": Decimal(0), "t2": Decimal(105)}, actor="service") == {"t2": 605}
        # paid once: the same result again pays nothing more
        assert store.pay_results(round_id, {"t2": Decimal(105)}, actor="service") == {"t2": 605}
        voucher = store.cash_out("t2", actor="terminal:t2")
        assert (voucher.amount, voucher.seat, len(voucher.validation)) == (605, "t2", 18)
        assert store.meters() == {"t2": 0}
        with pytest.raises(StoreError, match="nothing to cash out"):
            store.cash_out("t2", actor="terminal:t2")
        assert store.reconcile_credits() == ""  # 500 - 605 + 105 = 0 = the meters
        assert store.verify().ok
    return round_id


def test_movements_reconcile_and_verify(db_path: Path) -> None:
    _recorded(db_path)
    conn = sqlite3.connect(db_path)
    rows = conn.execute("SELECT kind, detail_json FROM audit WHERE kind LIKE 'meter_%' ORDER BY id").fetchall()
    conn.close()
    assert [(k, json.loads(d)["amount"], json.loads(d)["meter"]) for k, d in rows] == [
        ("meter_buy_in", 500, 500), ("meter_result", 105, 605), ("meter_cash_out", -605, 0)]


def test_a_meter_tampered_with_fails_the_reconciliation_and_verify(db_path: Path) -> None:
    _recorded(db_path)
    conn = sqlite3.connect(db_path)
    with conn:  # the buy-in's meter edited by hand: 500 -> 5000
        (row_id, detail) = conn.execute("SELECT id, detail_json FROM audit WHERE kind = 'meter_buy_in'").fetchone()
        conn.execute("UPDATE audit SET detail_json = ? WHERE id = ?",
                     (json.dumps({**json.loads(detail), "meter": 5000}), row_id))
    conn.close()
    with Store.open(db_path, pin_cost=TEST_PIN_COST) as store:
        problem = store.reconcile_credits()
        assert "seat t2's meter 5000 does not follow from its last (0) and this movement (500)" in problem
        assert not store.verify().ok


def test_a_forged_entry_written_through_the_chain_is_named_by_verify(db_path: Path) -> None:
    round_id = _recorded(db_path)
    with Store.open(db_path, pin_cost=TEST_PIN_COST) as store:
        # a result paid twice over, chained as the program chains (someone holding the key):
        # the chain holds, the reconciliation does not: t2's meter paid 210 for a net of 105
        store.add_audit("meter_result", actor="service", round_id=round_id,
                        detail={"seat": "t2", "amount": 105, "before": 0, "meter": 105})
        assert store.meters() == {"t2": 105}
        assert "seat t2's meter was paid 210, its net result is 105" in store.reconcile_credits(audit_round=round_id)
        result = store.verify()
        assert not result.ok and "the credit meters do not reconcile" in (result.problem or "")
        assert [e.detail["problem"][:16] for e in store.audit_entries(kind="meter_unreconciled")] == [
            f"round {round_id}: seat t2"]


def test_a_buy_in_of_nothing_is_refused(db_path: Path) -> None:
    with Store.open(db_path, pin_cost=TEST_PIN_COST) as store:
        with pytest.raises(StoreError, match=r"1\.1\.10"):
            store.buy_in("t1", Decimal(0), actor="supervisor:sue", approval=1)
        assert store.meters() == {}
