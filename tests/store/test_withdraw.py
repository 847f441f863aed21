"""Undo in the store (issue 24 item 4): the round's last events leave its list and the audit
log keeps, chained, exactly what left and by whom; only the newest events of an open round
can leave; a supervisor's take-back spends an ``undo`` approval once. A real SQLite file."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealer_assist.store import TEST_PIN_COST, Store, StoreError

CONFIG = {"game": "ace_race", "decks": 6, "areas": 5}
SLIP = [{"type": "wager", "player": "p1", "bet": "main", "amount": "20", "area": 1},
        {"type": "no_more_bets"}]
DEAL = [{"type": "card", "card": c} for c in ("7C", "9C", "7D")]
STAND = {"type": "decision", "action": "stand", "area": 1, "hand": 1, "player": "p1"}


def _round(store: Store) -> int:
    rid = store.start_round(CONFIG, SLIP)
    store.append_events(rid, DEAL)
    store.append_event(rid, STAND, actor="dealer:ann")
    return rid


def test_the_last_event_leaves_the_round_and_the_audit_says_what_and_who(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "t.db", pin_cost=TEST_PIN_COST)
    rid = _round(store)
    audit_id = store.withdraw_events(rid, 1, actor="dealer:ann", reason="undo: stand on area 1 (p1)")
    assert [e["type"] for e in store.events(rid)] == ["wager", "no_more_bets", "card", "card", "card"]
    [entry] = store.audit_entries(round_id=rid, kind="event_withdrawn")
    assert entry.id == audit_id and entry.actor == "dealer:ann"
    [gone] = entry.detail["events"]
    assert gone["seq"] == 5 and gone["event"] == STAND and gone["actor"] == "dealer:ann"
    assert entry.detail["reason"] == "undo: stand on area 1 (p1)"
    # the next event takes the freed place; every chain still verifies
    store.append_event(rid, {**STAND, "action": "hit"})
    assert store.events(rid)[-1]["action"] == "hit"
    result = store.verify()
    assert result.ok, result.problem
    store.close()


def test_refused_when_not_the_newest_or_the_round_ended(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "t.db", pin_cost=TEST_PIN_COST)
    first = _round(store)
    second = store.start_round(CONFIG, SLIP)  # a newer event of another round
    with pytest.raises(StoreError, match="not the newest"):
        store.withdraw_events(first, 1, actor="dealer:ann", reason="undo")
    assert store.events(first)[-1] == STAND  # refused: nothing changed
    store.append_event(second, {"type": "void", "reason": "test", "rule": "5.1"},
                       approval=_void_approval(store, second))
    store.finish_round(second, {"status": "void", "settlements": [], "rulings": []})
    with pytest.raises(StoreError, match="has ended"):
        store.withdraw_events(second, 1, actor="dealer:ann", reason="undo")
    store.close()


def _void_approval(store: Store, rid: int) -> int | None:
    store.create_user("sam", "482913", ["supervisor"])
    return store.authorise("sam", "482913", kind="void", round_id=rid).approval


def test_a_supervisor_take_back_spends_an_undo_approval_once(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "t.db", pin_cost=TEST_PIN_COST)
    store.create_user("sam", "482913", ["supervisor"])
    rid = _round(store)
    wrong = store.authorise("sam", "482913", kind="review").approval
    with pytest.raises(StoreError, match="not a supervisor's approval of undo"):
        store.withdraw_events(rid, 1, actor="supervisor:sam", reason="undo", approval=wrong)
    approval = store.authorise("sam", "482913", kind="undo", round_id=rid).approval
    store.withdraw_events(rid, 2, actor="supervisor:sam", reason="undo: stand, card 7D", approval=approval)
    assert [e["type"] for e in store.events(rid)] == ["wager", "no_more_bets", "card", "card"]
    [entry] = store.audit_entries(round_id=rid, kind="event_withdrawn")
    assert entry.detail["supervisor"] == "sam" and entry.detail["approval"] == approval
    assert [g["event"] for g in entry.detail["events"]] == [DEAL[2], STAND]
    with pytest.raises(StoreError, match="already used"):
        store.withdraw_events(rid, 1, actor="supervisor:sam", reason="undo", approval=approval)
    assert store.verify().ok
    store.close()
