"""A review service (``station serve --review FILE``, issue 33: ``dealer-assist review --db FILE``
through the service): a table's store served for its review only. It serves the ops the
registry marks ``review`` (a supervisor's PIN, a note) and refuses every other, writes nothing
of a table (no round restored, no anchor), and holds the store's lock while it runs. The
store is a station's after one round (tests/service/conftest.py: sue and bob supervisors,
ann a dealer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dealer_assist.cli import main
from dealer_assist.service.anchor import ANCHOR_NAME
from dealer_assist.service.client import ServiceClient, ServiceError
from dealer_assist.service.ops import REGISTRY, Op
from dealer_assist.service.serve import ServeOptions, start
from dealer_assist.service.station import StationError
from dealer_assist.store import TEST_PIN_COST, Store
from tests.service.conftest import Station


def a_reviewed_store(station: Any) -> tuple[Station, Path]:
    """A station's store with one round begun (p1's wager, one card), the station stopped."""
    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 1)
    assert s.running is not None
    path = s.running.store.path
    s.stop()
    return s, path


def test_a_review_service_serves_the_review_ops_only(station: Any, tmp_path: Path) -> None:
    s, path = a_reviewed_store(station)
    with Store.open_readonly(path) as before:
        events_before = len(before.get_round(1).events)  # type: ignore[union-attr]
        audit_before = len(before.audit_entries())
    review_state = tmp_path / "review-state"
    running = start(ServeOptions(review_store=str(path), socket=str(tmp_path / "review" / "review.sock"),
                                 state_dir=str(review_state), pin_cost=TEST_PIN_COST))
    try:
        client = ServiceClient(running.server.path, "review")
        try:
            approval = client.request(Op.APPROVE, user="sue", pin="482913", kind="review")
            note = client.request(Op.ADD_NOTE, round_id=1, text="p1 asked for the count",
                                  pin={"user": "bob", "pin": "551903"})
            refused: dict[str, str] = {}
            for op, args in ((Op.LOGIN, {"name": "ann", "pin": "730418"}),
                             (Op.WAGER, {"player": "p2", "bet": "main", "amount": 10, "area": 2}),
                             (Op.SIM_DEAL, {})):
                with pytest.raises(ServiceError) as caught:
                    client.request(op, **args)
                refused[op] = f"{caught.value.code}: {caught.value.message}"
        finally:
            client.close()
        # while it runs it holds the store: a table's service on it is refused
        with pytest.raises(StationError) as held:
            start(ServeOptions(state_dir=str(s.state), socket=str(tmp_path / "other.sock"), pin_cost=TEST_PIN_COST))
        assert "in use by another Dealer Assist" in str(held.value)
    finally:
        running.stop()
    assert approval["user"] == "sue" and isinstance(approval["approval"], int)
    assert refused == {op: f"refused: this service serves the review of {path} only: no table is dealt from it "
                           f"(op {op} is a table's)" for op in (Op.LOGIN, Op.WAGER, Op.SIM_DEAL)}
    with Store.open_readonly(path) as after:
        assert len(after.get_round(1).events) == events_before  # type: ignore[union-attr]  # the round as it was
        added = [(a.id, a.kind, a.actor, a.round_id, a.detail) for a in after.audit_entries()][audit_before:]
    # sue's review approval (no round: the review service has none in play), bob's note on round 1;
    # nothing of a log-in or a table
    assert added == [(approval["approval"], "review", "sue", None, {}),
                     (note["note"], "note", "supervisor:bob", 1, {"text": "p1 asked for the count"})]
    assert not (review_state / ANCHOR_NAME).exists()  # the table never started: no anchor written
    # back at its station the store opens as it was left, the note on it
    s.start()
    c = s.dealer()
    state = c.request(Op.STATE)
    assert state["refused"] == "" and state["round_id"] == 1


def test_the_review_ops_are_the_registrys() -> None:
    """The ops a review service serves: reading the table's state, a supervisor's PIN (approve,
    change_pin), notes and the station's copy (snapshot, end_review, round_integrity)."""
    assert sorted(op for op, entry in REGISTRY.items() if entry.review) == sorted(
        ["state", "approve", "change_pin", "add_note", "snapshot", "end_review", "round_integrity"])


def test_serve_review_takes_no_table_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "table.db"
    sock = str(tmp_path / "r.sock")
    assert main(["station", "serve", "--review", str(store), "--socket", sock, "--shoe", "/dev/ttyUSB0",
                 "--sim-seed", "3"]) == 2
    assert capsys.readouterr().err == \
        "error: --review serves a store's review with no table: not with --shoe, --sim-seed\n"
    assert main(["station", "serve", "--review", str(store)]) == 2
    assert capsys.readouterr().err == "error: --review FILE needs its own --socket PATH\n"
    assert not store.exists()  # nothing opened
