"""The table setup is remembered in the table's store (audited), not in QSettings."""

from __future__ import annotations

from collections.abc import Callable

from dealer_assist.engine.table_setup import SETUP_AUDIT_KIND, TableSetup
from dealer_assist.store import Store
from tests.ui.driving import TableDriver
from ui.dealer.setup_dialog import remembered_setup

MakeTable = Callable[..., TableDriver]


def test_a_new_setup_is_recorded_and_found_at_the_next_launch(make_table: MakeTable) -> None:
    t = make_table(TableSetup(game="lucky8", decks=6, areas=7, seated={"alice": 1}), "8H 6D 8S")
    new = TableSetup(game="star_elements", decks=4, areas=5, limits={"main": [10, 500]},
                     seated={"bob": 2}, terminals=[], decision_seconds=20)
    assert t.controller.apply_setup(new)
    t.window.setup_saved(new)  # what the setup dialog's OK does after the controller accepts it
    db = str(t.table.store_path)
    assert remembered_setup(db) == new
    store = Store.open_readonly(db)
    entries = store.audit_entries(kind=SETUP_AUDIT_KIND)
    store.close()
    assert entries[-1].actor.startswith("dealer:") and entries[-1].detail["game"] == "star_elements"


def test_no_store_yet_gives_the_default_setup(tmp_path: object) -> None:
    setup = remembered_setup(str(tmp_path) + "/none.db")  # type: ignore[operator]
    assert setup.game == "lucky8" and setup.seated == {"p1": 1, "p2": 2, "p3": 3}
