"""Review tests: a real store file with recorded rounds of every game, the real window offscreen.

QT_QPA_PLATFORM=offscreen is set before Qt is imported anywhere.
"""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"

import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402

from dealer_assist.engine.transcript import settle_document  # noqa: E402
from dealer_assist.store import TEST_PIN_COST, Store, authority_needed  # noqa: E402
from tests.ui_review.rounds import (  # noqa: E402
    ACE_RACE,
    EXAMPLES,
    LUCKY8_RULING,
    LUCKY8_VOID,
    STAR_ELEMENTS,
)

SUE_PIN = "482913"  # sue, supervisor
ANN_PIN = "730418"  # ann, dealer

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Recorded:
    path: Path
    ids: dict[str, int]  # name -> round id
    sessions: dict[str, int]  # dealer -> session id


def _live(store: Store, session: int, document: dict[str, Any], dealer: str) -> int:
    config = {k: v for k, v in document.items() if k != "events"}
    rid = store.begin_round(config, session_id=session)
    for event in document["events"]:
        actor = "supervisor:sue" if event["type"] == "void" else f"dealer:{dealer}"
        approval = None
        if authority_needed(event):  # the store writes a void only with sue's approval
            approval = store.authorise("sue", SUE_PIN, kind=event["type"], round_id=rid).approval
        store.append_event(rid, event, actor=actor, approval=approval)
    store.finish_round(rid, settle_document(document), actor=f"dealer:{dealer}")
    return rid


def build_store(path: Path) -> Recorded:
    """Three example transcripts recorded with `dealer-assist settle --record` (the real
    command), then two live sessions through the store's live API and one more transcript."""
    ids: dict[str, int] = {}
    for name in ("lucky8-pair-and-double.json", "dueling8s-split-and-superb8.json",
                 "electronic-shared-hand.json"):
        subprocess.run([sys.executable, "-m", "dealer_assist", "settle", str(EXAMPLES / name),
                        "--record", str(path)], check=True, capture_output=True, cwd=ROOT)
    with Store.open(path, pin_cost=TEST_PIN_COST) as store:
        listed = {r.game: r.id for r in store.list_rounds(limit=0)}
        ids["lucky8_example"] = listed["lucky8"]
        ids["dueling8s_example"] = listed["dueling8s"]
        ids["electronic_example"] = listed["electronic"]
        store.create_user("sue", SUE_PIN, roles=["supervisor"], actor="test")
        store.create_user("ann", ANN_PIN, roles=["dealer"], actor="test")
        s1 = store.start_session(game="ace_race", decks=6, areas=5, limits={"main": [10, 5000]}, dealer="ann")
        ids["ace_race"] = _live(store, s1, ACE_RACE, "ann")
        store.end_session(s1, actor="ann")
        s2 = store.start_session(game="lucky8", decks=6, areas=7, dealer="ben")
        ids["lucky8_ruling"] = _live(store, s2, LUCKY8_RULING, "ben")
        ids["lucky8_void"] = _live(store, s2, LUCKY8_VOID, "ben")
        ids["star_elements"] = store.record_document(STAR_ELEMENTS, settle_document(STAR_ELEMENTS))
    return Recorded(path, ids, {"ann": s1, "ben": s2})


@pytest.fixture(scope="session")
def recorded_template() -> Iterator[Recorded]:
    with tempfile.TemporaryDirectory() as tmp:
        yield build_store(Path(tmp) / "pit3.db")


@pytest.fixture
def recorded(recorded_template: Recorded, tmp_path: Path) -> Recorded:
    """A fresh copy of the recorded store for each test (tests may alter it)."""
    path = tmp_path / "pit3.db"
    with Store.open_readonly(recorded_template.path) as source:
        import sqlite3

        target = sqlite3.connect(path)
        source.db.conn.backup(target)
        target.close()
        # the station key and the head record outside the file go with it
        key = path.with_name(path.name + ".key")
        shutil.copyfile(source.key_path, key)
        shutil.copyfile(source.head_path, key.with_name(key.name + ".head"))
    return Recorded(path, dict(recorded_template.ids), dict(recorded_template.sessions))


@pytest.fixture
def review_service(recorded: Recorded, tmp_path: Path) -> Iterator[Path]:
    """The recorded store's review service (``station serve --review``, in this process), as
    ``dealer-assist review --db FILE`` starts it: its socket. Notes go through it (op add_note)."""
    from dealer_assist.service.serve import ServeOptions, start

    running = start(ServeOptions(review_store=str(recorded.path), socket=str(tmp_path / "review" / "review.sock"),
                                 state_dir=str(tmp_path / "review" / "state"), pin_cost=TEST_PIN_COST))
    try:
        yield running.server.path
    finally:
        running.stop()


@pytest.fixture
def window(qtbot: Any, recorded: Recorded) -> Any:
    from ui.review.app import ReviewWindow

    win = ReviewWindow(recorded.path)
    qtbot.addWidget(win)
    win.resize(1800, 1000)
    win.show()
    return win


@pytest.fixture(autouse=True)
def this_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    """``review --db FILE`` starts its review service as a child process (``python -P -m
    dealer_assist station serve --review``): this tree's, not an installed copy; after what the
    path has already (the compiled pass's engine comes first: tests/compiled_guard)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(ROOT)])))


@pytest.fixture(autouse=True)
def fresh_scale() -> Iterator[None]:
    """Each review test starts at the layout's base size factor: the factor is the process's
    (ui.common.style), and a dealer's window of an earlier test in this worker (1600×1000)
    left it larger, so the replay's layout came out wider than a 1280 px screen."""
    from ui.common.style import set_scale

    set_scale(1.0)
    yield
