"""A round with cents wagers recorded by the real dealer's screen exports to a transcript that
`dealer-assist settle` reproduces byte for byte (spec/round-script.md; issue 15 items 6-7).

The real window, the real driver on a simulated shoe (pty), a real store file; then the
real commands `history export` and `settle` as subprocesses.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from dealer_assist.engine.table_setup import TableSetup
from dealer_assist.engine.transcript import dumps
from dealer_assist.store import Store
from tests.ui.driving import TableDriver

MakeTable = Callable[..., TableDriver]
ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "dealer_assist", *args], cwd=ROOT, input=stdin,
                          capture_output=True, timeout=60, check=False)


def test_a_cents_round_from_the_screen_settles_again_byte_for_byte(make_table: MakeTable, tmp_path: Path) -> None:
    # Lucky 8: alice 12.50 on area 1, bob 7.35 on area 2 ("Zoë" to carry a non-ASCII name).
    # AH, 5D, dealer 9C, KS (alice: blackjack, 3 to 2 = 18.75), 6C; bob stands on 11; 8D: 17.
    db = tmp_path / "table.db"
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1, "Zoë": 2}),
                   "AH 5D 9C KS 6C 8D 2C 3C", db=db)
    c = t.controller
    assert c.place_wager("alice", "main", Decimal("12.50"), area=1)
    assert c.place_wager("Zoë", "main", Decimal("7.35"), area=2)
    t.press("no_more_bets")
    t.deal(5)
    t.press("stand")
    t.deal(1)
    t.qtbot.waitUntil(lambda: c.concluded, timeout=10000)  # its last card recorded before the service said so
    t.settled_writes()  # and its result, before the service takes anything else (a request)
    shown = c.output()  # the service's settle output, its amounts read as decimals (to the cent)
    assert shown["net"] == {"alice": Decimal("18.75"), "Zoë": Decimal("-7.35")}
    with Store.open_readonly(db) as store:
        (summary,) = [r for r in store.list_rounds() if r.ended_at is not None]
        detail = store.get_round(summary.id)
        assert detail is not None and detail.result is not None
        recorded = dumps(detail.result) + "\n"
    exported = _run("history", "--db", str(db), "export", str(summary.id))
    assert exported.returncode == 0, exported.stderr
    wagers = [e for e in json.loads(exported.stdout)["events"] if e["type"] == "wager"]
    assert [w["amount"] for w in wagers] == [12.5, 7.35]
    settled = _run("settle", "-", stdin=exported.stdout)
    assert settled.returncode == 0, settled.stderr
    assert settled.stdout == recorded.encode("utf-8")
    # what the screen shows is what settle prints, every amount to the cent
    assert json.loads(settled.stdout, parse_float=Decimal) == shown
