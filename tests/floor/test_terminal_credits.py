"""Player terminals' buy-ins and cash-outs reach the floor and the table's accounting shows
them beside the drop (issue 38 build 3; Electronic Blackjack 1.1.10): the station's
``meter_buy_in`` / ``meter_cash_out`` audit entries, forwarded as every audit entry is.

BJ-21, day shift: opener 100 x 100 = 10,000. During the shift t1 buys 500 of credits and t2
250.50; a round is recorded (examples/electronic-shared-hand.json: t1 pushes, net 0; t2 wins
105 and its meter is paid it: 250.50 + 105 = 355.50); t2 cashes out 355.50.
Beside the drop: buy-ins 500 + 250.50 = 750.50, cash-outs 355.50. After the closer, t1 cashes
out 500: not in the closed shift's figures."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import psycopg

from dealer_assist.engine.transcript import settle_document
from dealer_assist.floor.accounting import shift_report
from dealer_assist.floor.forward import Forwarder
from tests.floor.conftest import Floor
from tests.floor.helpers import cli
from tests.floor.stations import open_station
from tests.floor.test_accounting import DAY, SHIFT, _chips, signers

EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "examples"  # (not tests.store.conftest: a conftest)


def no_par(game: str, decks: int) -> dict[str, tuple[Decimal, Decimal]]:
    return {}  # the rounds' theoretical win is not what this test reads


def test_terminal_buy_ins_and_cash_outs_beside_the_drop(floor: Floor, tmp_path: Path) -> None:
    url = floor.station("BJ-21", "PIT-4")
    signers(floor)
    _chips(floor, "BJ-21", "opener", "100x100")
    db = tmp_path / "bj21.db"
    document = json.loads((EXAMPLES / "electronic-shared-hand.json").read_text(encoding="utf-8"))
    with open_station(db) as store:
        store.claim_table("BJ-21", "PIT-4")
        store.create_user("sue", "482913", ["supervisor"])
        for seat, amount in (("t1", Decimal(500)), ("t2", Decimal("250.50"))):
            approval = store.authorise("sue", "482913", kind="buy_in").approval
            assert approval is not None
            store.buy_in(seat, amount, actor="supervisor:sue", approval=approval)
        round_id = store.record_document(document, settle_document(document))
        assert store.pay_results(round_id, {"t1": Decimal(0), "t2": Decimal(105)}, actor="service") == {
            "t1": 500, "t2": Decimal("355.50")}
        assert store.cash_out("t2", actor="terminal:t2").amount == Decimal("355.50")
    with Forwarder(db, url) as forwarder:
        forwarder.forward()
    _chips(floor, "BJ-21", "closer", "100x100")
    with open_station(db) as store:
        store.cash_out("t1", actor="terminal:t1")  # after the closer: the next shift's
    with Forwarder(db, url) as forwarder:
        forwarder.forward()
    with psycopg.connect(floor.review_url) as conn:
        (bj21,), _, whole = shift_report(conn, dt.date.fromisoformat(DAY), SHIFT, figures=no_par)
    assert (bj21.terminal_buy_ins, bj21.terminal_cash_outs) == (Decimal("750.50"), Decimal("355.50"))
    assert (whole.terminal_buy_ins, whole.terminal_cash_outs) == (Decimal("750.50"), Decimal("355.50"))
    assert bj21.drop == 0 and bj21.win == 0  # beside the drop, not in it
    report = cli("floor", "shift", "--url", floor.review_url, "--day", DAY, "--shift", SHIFT)
    assert report.returncode == 0, report.stderr
    header, first = (line.split("\t") for line in report.stdout.splitlines()[:2])
    assert header[-2:] == ["terminal buy-ins", "terminal cash-outs"] and first[-2:] == ["750.50", "355.50"]
