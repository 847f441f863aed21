"""The table's set-up is the station service's: a supervisor's change (under the PIN) is in the
store's audit log and the service still has it after a restart (issue 33: the screen keeps
nothing of its own)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dealer_assist.engine.table_setup import TableSetup, setup_to_json
from dealer_assist.service.ops import Op
from dealer_assist.store import Store
from tests.ui.driving import TableDriver

MakeTable = Callable[..., TableDriver]


def test_a_new_setup_is_recorded_and_found_after_a_restart(make_table: MakeTable, tmp_path: Path) -> None:
    db = tmp_path / "table.db"
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), "8H 6D 8S", db=db)
    new = TableSetup(game="star_elements", decks=4, areas=5, limits={"main": [10, 500]},
                     seated={"bob": 2}, terminals=[], decision_seconds=20)
    assert not t.controller.apply_setup(new)  # no supervisor's PIN: refused, nothing changed
    assert t.controller.setup.game == "lucky8"
    approval = t.table.link.ask(Op.APPROVE, user="sue", pin="482913", kind="setup")["approval"]
    assert t.controller.apply_setup(new, approval), t.controller.last_refusal
    assert setup_to_json(t.controller.setup) == setup_to_json(new)
    with Store.open_readonly(db) as store:
        entries = store.audit_entries(kind="table_setup_changed")
    assert entries[-1].actor == "supervisor:sue" and entries[-1].detail["new"]["game"] == "star_elements"
    t.table.close()
    again = make_table(None, "8H", db=db)  # the station restarts on the same store
    assert setup_to_json(again.controller.setup) == setup_to_json(new)
