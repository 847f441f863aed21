"""The round seal (docs/store.md, Tamper evidence): what a finish record seals, and the trade
it makes — a sealed round is checked against its seal, re-settled only with ``resettle``."""

from __future__ import annotations

import copy
import json
import sqlite3
from decimal import Decimal
from pathlib import Path
from typing import Any

from dealer_assist.engine.transcript import settle_document
from dealer_assist.store import Store
from dealer_assist.store.chain import audit_content, chain, previous_hash
from dealer_assist.store.common import canonical_json
from dealer_assist.store.keying import record_head
from dealer_assist.store.keys import load_key, write_head_file
from dealer_assist.store.seal import round_seal
from dealer_assist.store.users import TEST_PIN_COST
from tests.store import tamper

LUCKY8 = {"game": "lucky8", "decks": 6, "areas": 7, "limits": {"main": [10, 5000]}}
VOID_CONFIG = {"game": "ace_race", "decks": 6, "areas": 7}


def _finish_records(path: Path) -> dict[int, dict[str, Any]]:
    with Store.open_readonly(path) as store:
        return {e.round_id: e.detail for e in store.audit_entries(kind="round_finish") if e.round_id}


def test_a_finish_record_seals_what_the_store_holds_about_the_round(db_path: Path) -> None:
    with Store.open(db_path, pin_cost=TEST_PIN_COST) as store:
        store.create_user("sue", tamper.SUE_PIN, ["supervisor"])
        session = store.start_session(game="lucky8", decks=6, areas=7, limits={"main": [10, 5000]}, dealer="ann")
        under_min = tamper._live(store, session, LUCKY8, tamper.UNDER_MIN)
        void = tamper._live(store, session, VOID_CONFIG, tamper.VOID)
    finish = _finish_records(db_path)
    # dan's and eve's main wagers: 2 settlements, no ruling, 2 player rows
    assert finish[under_min]["derived_rows"] == 4
    assert finish[under_min]["needs_approval"] == []
    assert finish[void]["needs_approval"] == [2]  # the void (5.1, 5.2) is event 2
    assert finish[under_min]["events"] == len(tamper.UNDER_MIN)
    conn = sqlite3.connect(db_path)
    try:
        assert round_seal(conn, under_min, len(tamper.UNDER_MIN)) == finish[under_min]["sealed"]
        # one more event after the finish is not under the seal; one fewer changes it
        assert round_seal(conn, under_min, len(tamper.UNDER_MIN) - 1) != finish[under_min]["sealed"]
        conn.execute("UPDATE settlements SET net = '11' WHERE round_id = ? AND player = 'eve'", (under_min,))
        assert round_seal(conn, under_min, len(tamper.UNDER_MIN)) != finish[under_min]["sealed"]
    finally:
        conn.close()


def test_a_sealed_round_is_re_settled_only_when_asked(db_path: Path) -> None:
    """The trade: a result the engine would not give, recorded by the program itself (with the
    station key), passes the sealed check and is named by the re-settling one."""
    wrong = settle_document({**LUCKY8, "events": copy.deepcopy(tamper.UNDER_MIN)})
    # eve's 20 on 9C 8H (17) wins even money (4.3.3) when the dealer's 7D 9S 9S busts (25):
    # +20; the recorded output says +40
    assert Decimal(str(wrong["net"]["eve"])) == 20
    wrong["net"]["eve"] = 40
    for entry in wrong["settlements"]:
        if entry["player"] == "eve":
            entry["net"] = 40
    with Store.open(db_path, pin_cost=TEST_PIN_COST) as store:
        rid = store.start_round(LUCKY8, tamper.UNDER_MIN[:3], actor="dealer:ann")
        for n in range(3, len(tamper.UNDER_MIN)):
            last = n == len(tamper.UNDER_MIN) - 1
            store.append_event(rid, tamper.UNDER_MIN[n], actor="dealer:ann", result=wrong if last else None)
    with Store.open_readonly(db_path) as store:
        assert store.verify().ok
        full = store.verify(resettle=True)
    assert not full.ok
    assert full.row_id == rid and "re-settlement" in (full.problem or "")


def _rewrite_finish(db_path: Path, rid: int, change: Any) -> None:
    """The round's finish record as ``change(conn, detail)`` makes it, re-chained with the
    station key (as an older version of the program, holding the key, wrote it)."""
    conn = sqlite3.connect(db_path)
    with conn:
        key = load_key(Path(f"{db_path}.key"), create=False)
        assert key is not None
        row = conn.execute("SELECT id, at, actor, kind, round_id, detail_json FROM audit "
                           "WHERE kind = 'round_finish' AND round_id = ?", (rid,)).fetchone()
        detail = json.loads(row[5])
        change(conn, detail)
        later = conn.execute("SELECT id, at, actor, kind, round_id, detail_json FROM audit WHERE id >= ? "
                             "ORDER BY id", (row[0],)).fetchall()
        prev = previous_hash(conn, "audit", row[0])
        for n, entry in enumerate(later):
            content = list(entry[:5]) + [canonical_json(detail) if n == 0 else entry[5]]
            prev = chain(prev, audit_content(*content), key)
            conn.execute("UPDATE audit SET detail_json = ?, hash = ? WHERE id = ?", (content[5], prev, entry[0]))
        head = record_head(conn, key)
    conn.close()
    write_head_file(Path(f"{db_path}.key.head"), head)


def _rewritten_then_edited(db_path: Path, rid: int, change: Any, edit: str) -> Any:
    """Verify passes with the finish record rewritten by ``change``; then the verdict after
    the SQL ``edit`` (``?`` the round's id)."""
    _rewrite_finish(db_path, rid, change)
    with Store.open_readonly(db_path) as store:
        assert store.verify().ok
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute(edit, (rid,))
    conn.close()
    with Store.open_readonly(db_path) as store:
        return store.verify()


def test_a_round_finished_before_seals_is_re_settled(db_path: Path) -> None:
    """A finish record without a seal (written by an older version): its round is re-settled,
    so an edit of its totals is still found."""
    with Store.open(db_path, pin_cost=TEST_PIN_COST) as store:
        rid = tamper._live(store, store.start_session(game="lucky8", decks=6, areas=7, dealer="ann"),
                           LUCKY8, tamper.UNDER_MIN)

    def unsealed(conn: sqlite3.Connection, detail: dict[str, Any]) -> None:
        for name in ("sealed", "seal_format", "derived_rows", "needs_approval"):
            detail.pop(name)

    result = _rewritten_then_edited(
        db_path, rid, unsealed, "UPDATE rounds SET totals_json = '{\"dan\":-5,\"eve\":1500}' WHERE id = ?")
    assert not result.ok and result.row_id == rid
    assert result.problem == f"rounds row {rid}: totals differ from the re-settlement of its events"


def test_a_round_sealed_in_the_first_format_is_still_checked_by_its_seal(db_path: Path) -> None:
    """Finish records written before seal format 2 carry a format-1 seal (no ``seal_format``):
    verify checks them by that seal, so they pass untouched and an edit is still named."""
    with Store.open(db_path, pin_cost=TEST_PIN_COST) as store:
        rid = tamper._live(store, store.start_session(game="lucky8", decks=6, areas=7, dealer="ann"),
                           LUCKY8, tamper.UNDER_MIN)
    count = len(tamper.UNDER_MIN)
    conn = sqlite3.connect(db_path)
    try:  # the two formats serialise the same round differently
        assert round_seal(conn, rid, count, 1) != round_seal(conn, rid, count, 2)
        assert round_seal(conn, rid, count, 2) == _finish_records(db_path)[rid]["sealed"]
    finally:
        conn.close()

    def first_format(conn: sqlite3.Connection, detail: dict[str, Any]) -> None:
        assert detail.pop("seal_format") == 2
        detail["sealed"] = round_seal(conn, rid, count, 1)

    # eve's settlement of 20 (4.3.3: her 17 against the dealer's bust) made 2000
    result = _rewritten_then_edited(
        db_path, rid, first_format, "UPDATE settlements SET net = '2000' WHERE round_id = ? AND player = 'eve'")
    assert not result.ok and result.row_id == rid
