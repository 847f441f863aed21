"""The review's *Station events* (issue 34 item 7): every audit kind written is offered by its
kind filter and listed when chosen; by default every significant event (log-ins, shift ends,
set-up changes ... which the old list of 18 kinds missed), filtered by who. A real store file,
the real window offscreen. Which kinds are written: tests/store/test_audit_kinds.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dealer_assist.store import TEST_PIN_COST, Store
from dealer_assist.store.audit_kinds import (
    AUDIT_KINDS,
    GROUPS,
    kinds_of,
    routine_kinds,
    significant_kinds,
)
from ui.review.app import ReviewWindow
from ui.review.station import StationEventsView

ACTORS = ("dealer:dee", "supervisor:sue", "shoe", "service")


def every_kind(path: Path) -> dict[str, int]:
    """One entry of every kind (through the store's own writer), actors in turn; kind -> id."""
    ids: dict[str, int] = {}
    with Store.open(path, table="BJ-07", pin_cost=TEST_PIN_COST) as store:
        for index, kind in enumerate(AUDIT_KINDS):
            ids[kind] = store.add_audit(kind, actor=ACTORS[index % len(ACTORS)], detail={"n": index})
    return ids


def listed(view: StationEventsView) -> list[tuple[str, str]]:
    t = view.table
    return [(t.item(r, 2).text(), t.item(r, 1).text()) for r in range(t.rowCount())]  # type: ignore[union-attr]


def test_every_kind_written_is_offered_and_listed(tmp_path: Path, qtbot: Any) -> None:
    path = tmp_path / "station.db"
    ids = every_kind(path)
    store = Store.open_readonly(path)
    try:
        view = StationEventsView(store)
        qtbot.addWidget(view)
        view.refresh()
        # by default: every significant kind, newest first, none of the routine ones
        shown = listed(view)
        assert sorted(k for k, _ in shown) == sorted(significant_kinds())
        assert [k for k, _ in shown] == sorted(significant_kinds(), key=lambda k: -ids[k])
        assert {"login", "login_failed", "shift_end", "table_setup_changed", "station_config_changed",
                "user_created", "pin_lockout"} <= {k for k, _ in shown}
        # each kind on its own: the filter offers it, and lists exactly its entry
        for kind in AUDIT_KINDS:
            assert view.choose(kind), f"the kind filter does not offer {kind}"
            assert [k for k, _ in listed(view)] == [kind], kind
        # a group: its kinds, routine ones included
        for group in GROUPS:
            assert view.choose(kinds_of(group)), group
            assert sorted(k for k, _ in listed(view)) == sorted(kinds_of(group)), group
        assert view.choose(tuple(AUDIT_KINDS))
        assert len(listed(view)) == len(AUDIT_KINDS) and set(routine_kinds()) <= {k for k, _ in listed(view)}
        # who: any part of the actor, any case, with the kind filter
        view.who.setText("SUE")
        view.show_button.click()
        assert listed(view) and {a for _, a in listed(view)} == {"supervisor:sue"}
        assert len(listed(view)) == len([k for i, k in enumerate(AUDIT_KINDS) if ACTORS[i % 4] == "supervisor:sue"])
        view.who.setText("nobody")
        view.show_button.click()
        assert listed(view) == [] and view.caption.text().startswith("0 entries")
        view.clear_button.click()
        assert view.who.text() == "" and sorted(k for k, _ in listed(view)) == sorted(significant_kinds())
    finally:
        store.close()


def test_the_review_window_opens_station_events_with_the_filters(tmp_path: Path, qtbot: Any) -> None:
    path = tmp_path / "station.db"
    every_kind(path)
    window = ReviewWindow(path)
    qtbot.addWidget(window)
    window.tabs.setCurrentWidget(window.station_events)
    assert window.station_events.loaded
    assert window.station_events.kind.count() == 2 + len(GROUPS) + len(AUDIT_KINDS)
    assert sorted(k for k, _ in listed(window.station_events)) == sorted(significant_kinds())
    window.close()
