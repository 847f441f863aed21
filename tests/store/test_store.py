"""The live-table API: sessions, rounds, durable appends, settle output, queries, export."""

from __future__ import annotations

import json
import sqlite3
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.store import TEST_PIN_COST, Store, StoreError, canonical_json, record_transcript
from tests.store.conftest import EXAMPLE_NAMES, append_authorised, example_result, load_example


def _config(document: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in document.items() if k != "events"}


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_live_round_round_trips_to_the_same_transcript(db_path: Path, name: str) -> None:
    document = load_example(name)
    with Store.open(db_path) as store:
        session = store.start_session(game=document["game"], decks=6, dealer="ann")
        round_id = store.begin_round(_config(document), session_id=session)
        seqs = [store.append_event(round_id, e, actor="dealer:ann") for e in document["events"]]
        assert seqs == list(range(len(document["events"])))
        store.finish_round(round_id, example_result(name))
        assert store.export_round(round_id) == document
        assert list(store.export_round(round_id))[: len(document) - 1] == list(_config(document))
        detail = store.get_round(round_id)
        assert detail is not None
        assert detail.summary.status == "settled"
        assert detail.summary.net == example_result(name)["net"]
        assert detail.summary.session_id == session and detail.summary.number == 1
        assert [e.actor for e in detail.events] == ["dealer:ann"] * len(document["events"])
        assert detail.result == example_result(name)
        assert store.find_open_round() is None


def test_record_transcript_returns_the_round_id_and_stores_everything(db_path: Path) -> None:
    ids = []
    for name in EXAMPLE_NAMES:
        ids.append(record_transcript(db_path, load_example(name), example_result(name)))
    assert ids == [1, 2, 3]
    with Store.open_readonly(db_path) as store:
        for round_id, name in zip(ids, EXAMPLE_NAMES, strict=True):
            assert store.export_round(round_id) == load_example(name)
            summary = store.list_rounds(limit=None)[len(ids) - round_id]
            assert summary.id == round_id and summary.source == "transcript"
        # Transcripts recorded after the fact are never offered for crash recovery.
        assert store.find_open_round() is None
        assert store.verify().ok


def test_open_round_is_restored_from_its_events(db_path: Path) -> None:
    document = load_example("lucky8-pair-and-double.json")
    store = Store.open(db_path)
    round_id = store.begin_round(_config(document))
    for event in document["events"][:6]:
        store.append_event(round_id, event)
    store.close()  # as if the program had stopped here

    with Store.open(db_path) as store:
        open_round = store.find_open_round()
        assert open_round is not None
        assert open_round.round_id == round_id
        assert open_round.config == _config(document)
        assert open_round.events == document["events"][:6]
        assert open_round.status == "in_progress"


def test_referred_round_stays_open_until_resolved(db_path: Path) -> None:
    # Lucky 8: bob's hit card (9C) is found in the discard holder after he stood: referred
    # to the Gaming Shift Manager (6.1); he lets it stand, carol stands, the dealer draws 7C.
    from dealer_assist.engine.transcript import settle_document

    config = {"game": "lucky8", "decks": 6, "areas": 7}
    referred = [
        {"type": "wager", "player": "bob", "area": 2, "bet": "main", "amount": 10},
        {"type": "wager", "player": "carol", "area": 3, "bet": "main", "amount": 10},
        {"type": "no_more_bets"},
        *({"type": "card", "card": c} for c in ("5C", "9H", "KD", "6S", "8D")),
        {"type": "decision", "action": "hit", "area": 2},
        {"type": "card", "card": "9C"},
        {"type": "decision", "action": "stand", "area": 2},
        {"type": "correction", "index": 9, "to": "discard"},
    ]
    resumed = [
        {"type": "resolve", "ruling": "continue", "text": "card stands"},
        {"type": "decision", "action": "stand", "area": 3},
        {"type": "card", "card": "7C"},
    ]
    with Store.open(db_path, pin_cost=TEST_PIN_COST) as store:
        round_id = store.start_round(config, referred[:3])
        for event in referred[3:-1]:
            store.append_event(round_id, event)
        first = settle_document({**config, "events": referred})
        assert first["status"] == "referred"
        append_authorised(store, round_id, referred[-1], result=first)  # the correction: a supervisor's
        open_round = store.find_open_round()
        assert open_round is not None and open_round.status == "referred"
        assert store.list_rounds(irregular=True)[0].id == round_id
        assert store.verify().ok
        append_authorised(store, round_id, resumed[0])  # the shift manager's resolve (6.1)
        store.append_event(round_id, resumed[1])
        final = settle_document({**config, "events": referred + resumed})
        assert final["status"] == "settled" and final["net"] == {"bob": 10, "carol": 0}
        store.append_event(round_id, resumed[-1], result=final)
        assert store.find_open_round() is None
        assert store.get_round(round_id).summary.status == "settled"  # type: ignore[union-attr]
        assert len(store.audit_entries(round_id=round_id, kind="round_finish")) == 2
        assert store.verify().ok


def test_money_stays_exact(db_path: Path) -> None:
    event = {"type": "wager", "player": "alice", "area": 1, "bet": "main", "amount": 25.1}
    decimal_event = {
        "type": "wager",
        "player": "bob",
        "area": 2,
        "bet": "main",
        "amount": Decimal("0.30"),
    }
    result = {
        "status": "settled",
        "settlements": [
            {
                "player": "alice",
                "area": 1,
                "hand": 1,
                "bet": "main",
                "stake": 25.1,
                "result": "win",
                "net": 37.65,
                "rule": "4.3",
                "stage": "final",
            },
            {
                "player": "bob",
                "area": 2,
                "hand": 1,
                "bet": "main",
                "stake": Decimal("0.30"),
                "result": "lose",
                "net": Decimal("-0.30"),
                "rule": "4.3",
                "stage": "final",
            },
        ],
        "net": {"alice": 37.65, "bob": Decimal("-0.3")},
        "rulings": [],
    }
    with Store.open(db_path) as store:
        round_id = store.begin_round({"game": "ace_race", "decks": 6, "areas": 7})
        store.append_event(round_id, event)
        store.append_event(round_id, decimal_event)
        store.finish_round(round_id, result)
        assert store.events(round_id)[0]["amount"] == 25.1
        assert Decimal(str(store.events(round_id)[1]["amount"])) == Decimal("0.3")
    with sqlite3.connect(db_path) as conn:
        texts = [r[0] for r in conn.execute("SELECT event_json FROM events ORDER BY id")]
        assert '"amount":25.1' in texts[0]
        rows = conn.execute(
            "SELECT stake, net, typeof(net) FROM settlements ORDER BY id"
        ).fetchall()
        assert rows == [("25.1", "37.65", "text"), ("0.3", "-0.3", "text")]
        nets = dict(conn.execute("SELECT player, net FROM round_players"))
        assert nets == {"alice": "37.65", "bob": "-0.3"}


def test_canonical_json_refuses_what_it_cannot_write_exactly() -> None:
    assert canonical_json({"b": 1, "a": Decimal("37.50")}) == '{"b":1,"a":37.5}'
    with pytest.raises(StoreError):
        canonical_json({"x": float("nan")})
    with pytest.raises(StoreError):
        canonical_json({"x": Decimal("0.1000000000000000000000001")})
    with pytest.raises(StoreError):
        canonical_json({"x": object()})


def test_bad_events_and_rounds_are_refused_without_writing(db_path: Path) -> None:
    with Store.open(db_path) as store:
        with pytest.raises(StoreError):
            store.begin_round({"decks": 6})
        round_id = store.begin_round({"game": "lucky8"})
        with pytest.raises(StoreError):
            store.append_event(round_id, {"no_type": 1})
        with pytest.raises(StoreError):
            store.append_event(999, {"type": "no_more_bets"})
        with pytest.raises(StoreError):
            store.finish_round(round_id, {"status": "finished"})
        assert store.events(round_id) == []
        assert store.append_event(round_id, {"type": "no_more_bets"}) == 0
        assert store.verify().ok


def test_list_filters(db_path: Path) -> None:
    with Store.open(db_path, pin_cost=TEST_PIN_COST) as store:
        ids = {}
        for name in EXAMPLE_NAMES:
            ids[name] = store.record_document(load_example(name), example_result(name))
        void_id = store.begin_round({"game": "ace_race", "seated": {"zoe": 4}}, number=7)
        store.append_event(
            void_id, {"type": "wager", "player": "carol", "area": 2, "bet": "main", "amount": 10}
        )
        append_authorised(store, void_id, {"type": "void", "reason": "shoe fault", "rule": "5.1"})
        store.finish_round(
            void_id,
            {
                "status": "void",
                "settlements": [
                    {
                        "player": "carol",
                        "area": 2,
                        "hand": 1,
                        "bet": "main",
                        "stake": 10,
                        "result": "returned",
                        "net": 0,
                        "rule": "5.1",
                        "stage": "final",
                    }
                ],
                "net": {"carol": 0},
                "rulings": [],
            },
        )
        ruled = store.record_document(
            {"game": "ace_race", "events": []},
            {
                "status": "settled",
                "settlements": [],
                "net": {},
                "rulings": [
                    {
                        "index": 3,
                        "rule": "5.6.1",
                        "ruling": "reconstructed",
                        "text": "t",
                        "moves": [{"card": "5C", "from": "area:3/1", "to": "area:2/1"}],
                    }
                ],
            },
        )

        assert [r.id for r in store.list_rounds()] == [ruled, void_id, 3, 2, 1]
        assert [r.id for r in store.list_rounds(limit=2)] == [ruled, void_id]
        assert [r.id for r in store.list_rounds(before_id=void_id)] == [3, 2, 1]
        assert [r.id for r in store.list_rounds(player="alice")] == [
            ids["lucky8-pair-and-double.json"],
            ids["dueling8s-split-and-superb8.json"],
        ]
        assert [r.id for r in store.list_rounds(player="t2")] == [
            ids["electronic-shared-hand.json"]
        ]
        # seated and wagering players both count; nobody else does
        assert [r.id for r in store.list_rounds(player="zoe")] == [void_id]
        assert [r.id for r in store.list_rounds(player="carol")] == [void_id]
        assert store.list_rounds(player="nobody") == []
        assert [r.id for r in store.list_rounds(status="void")] == [void_id]
        assert [r.id for r in store.list_rounds(irregular=True)] == [ruled, void_id]
        assert [r.id for r in store.list_rounds(irregular=False)] == [3, 2, 1]
        assert store.get_round(void_id).summary.number == 7  # type: ignore[union-attr]
        rulings = store.get_round(ruled).rulings  # type: ignore[union-attr]
        assert rulings == [
            {
                "index": 3,
                "rule": "5.6.1",
                "ruling": "reconstructed",
                "text": "t",
                "moves": [{"card": "5C", "from": "area:3/1", "to": "area:2/1"}],
            }
        ]
        with pytest.raises(StoreError):
            store.list_rounds(status="won")

    # (Editing the start times breaks the rounds' hash chain; this test is about the filters.)
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE rounds SET started_at = '2026-01-0' || id || 'T12:00:00.000000Z'")
    with Store.open_readonly(db_path) as store:
        assert [r.id for r in store.list_rounds(since="2026-01-03T00:00:00.000000Z")] == [5, 4, 3]
        assert [r.id for r in store.list_rounds(until="2026-01-03T00:00:00.000000Z")] == [2, 1]
        assert [
            r.id
            for r in store.list_rounds(
                player="alice",
                since="2026-01-02T00:00:00.000000Z",
                until="2026-01-04T00:00:00.000000Z",
            )
        ] == [3]


def test_under_minimum_history_rule_5_26(db_path: Path) -> None:
    """The engine decides 5.26; the store records whom it names, for the next rounds."""
    from dealer_assist.engine.transcript import settle_document

    limits = {"main": [10, 500], "pair": [5, 50]}

    def play(store: Store, config: dict[str, Any], wagers: list[dict[str, Any]], cards: str,
             stands: list[int]) -> None:
        events = [*wagers, {"type": "no_more_bets"}]
        events += [{"type": "card", "card": c} for c in cards.split()[:5]]
        events += [{"type": "decision", "action": "stand", "area": a} for a in stands]
        events += [{"type": "card", "card": c} for c in cards.split()[5:]]
        output = settle_document({**config, "events": events})
        assert output["status"] == "settled"
        rid = store.start_round(config, events[: len(wagers) + 1])
        for n, event in enumerate(events[len(wagers) + 1:], start=len(wagers) + 1):
            store.append_event(rid, event, result=output if n == len(events) - 1 else None)

    def wager(player: str, area: int, amount: int, bet: str = "main") -> dict[str, Any]:
        return {"type": "wager", "player": player, "area": area, "bet": bet, "amount": amount}

    with Store.open(db_path) as store:
        config = {"game": "lucky8", "decks": 6, "areas": 7, "limits": limits}
        # alice's 5 is under the main minimum of 10: settled this once (5.26), remembered;
        # bob's 10 is at the minimum. alice 10H 8S = 18, bob 9C 10S = 19, dealer 7D QS = 17.
        play(store, config, [wager("alice", 1, 5), wager("bob", 2, 10)], "10H 9C 7D 8S 10S QS", [1, 2])
        assert store.under_min_players() == ["alice"]
        # next round: carol's pair wager of 2 is under its minimum of 5, her first time;
        # alice's 5 again is returned (5.26: future under-minimum wagers are returned).
        config = {**config, "under_min_history": store.under_min_players()}
        play(store, config, [wager("alice", 1, 5), wager("carol", 3, 10), wager("carol", 3, 2, "pair")],
             "9H 9D 7C 9S 9C 10D", [1, 3])
        assert store.under_min_players() == ["alice", "carol"]
        assert store.verify().ok


def test_sessions_and_notes(db_path: Path) -> None:
    with Store.open(db_path) as store:
        session = store.start_session(
            game="ace_race", decks=6, areas=7, limits={"main": [10, 5000]}, dealer="ann"
        )
        current = store.current_session()
        assert (
            current is not None
            and current["id"] == session
            and current["limits"] == {"main": [10, 5000]}
        )
        first = store.begin_round({"game": "ace_race"}, session_id=session)
        second = store.begin_round({"game": "ace_race"}, session_id=session)
        assert [store.get_round(i).summary.number for i in (first, second)] == [1, 2]  # type: ignore[union-attr]
        store.add_note(first, author="sup", text="player disputes the split")
        store.add_audit("shoe_fault", actor="shoe", detail={"code": "E17"})
        store.end_session(session)
        assert store.current_session() is None
        with pytest.raises(StoreError):
            store.end_session(session)
        with pytest.raises(StoreError):
            store.begin_round({"game": "ace_race"}, session_id=999)
        notes = store.audit_entries(round_id=first, kind="note")
        assert [n.detail["text"] for n in notes] == ["player disputes the split"]
        kinds = [a.kind for a in store.audit_entries()]
        assert kinds == ["session_start", "note", "shoe_fault", "session_end"]
        assert store.verify().ok
        assert json.loads(json.dumps(store.list_rounds()[0].as_json()))["id"] == second


def _refuse_events_like(db_path: Path, pattern: str) -> None:
    """Make the database refuse the insert of an event whose JSON is LIKE ``pattern`` (as a
    full disk or an I/O error would)."""
    with sqlite3.connect(db_path) as conn:
        quoted = pattern.replace("'", "''")  # a trigger's body takes no parameters
        conn.execute(
            f"CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.event_json LIKE '{quoted}' "
            "BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )


def test_a_failed_append_keeps_nothing_and_the_store_goes_on(db_path: Path) -> None:
    with Store.open(db_path) as store:
        round_id = store.begin_round({"game": "lucky8"})
        store.append_event(round_id, {"type": "no_more_bets"})
    _refuse_events_like(db_path, "%boom%")
    with Store.open(db_path) as store:
        with pytest.raises(StoreError, match="refused"):
            store.append_event(
                round_id, {"type": "wager", "player": "boom", "area": 1, "bet": "main", "amount": 5}
            )
        assert store.list_rounds(player="boom") == []  # its player row was rolled back too
        assert store.append_event(round_id, {"type": "card", "card": "5S"}) == 1
        assert store.events(round_id) == [{"type": "no_more_bets"}, {"type": "card", "card": "5S"}]
        assert store.verify().ok


def test_append_events_writes_a_decision_and_its_card_together_or_not_at_all(db_path: Path) -> None:
    # The dealer's screen writes an implied hit and its card in one transaction: both, in order,
    # or (when the database refuses one of them) neither.
    with Store.open(db_path) as store:
        round_id = store.begin_round({"game": "lucky8"})
        store.append_event(round_id, {"type": "no_more_bets"})
    _refuse_events_like(db_path, '%"9C"%')
    hit = {"type": "decision", "action": "hit", "area": 1, "hand": 1}
    with Store.open(db_path) as store:
        with pytest.raises(StoreError, match="refused"):
            store.append_events(round_id, [hit, {"type": "card", "card": "9C"}])
        assert store.events(round_id) == [{"type": "no_more_bets"}]  # not the hit alone
        assert store.append_events(round_id, [hit, {"type": "card", "card": "5S"}]) == 2
        assert store.events(round_id) == [{"type": "no_more_bets"}, hit, {"type": "card", "card": "5S"}]
        # an event that needs a supervisor's approval is refused here as in append_event
        with pytest.raises(StoreError):
            store.append_events(round_id, [{"type": "void", "reason": "x", "rule": "5.1"}])
        assert len(store.events(round_id)) == 3
        assert store.verify().ok
