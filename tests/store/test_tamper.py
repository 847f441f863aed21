"""Tamper evidence with no holes (issue 15): every edit of the file is caught by verify.

The store is recorded as the table records it (tests/store/tamper.py); each case edits a
fresh copy of it (with its station key and head record): every column of every table,
rows inserted, deleted and reordered, the newest records cut off, the file rolled back.
docs/store.md lists each case with what verify says.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.store import Store
from tests.store import tamper


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Any]]]:
    path = tmp_path_factory.mktemp("tamper") / "template.db"
    ids = tamper.build(path)
    yield path, ids


def test_the_recorded_store_is_intact(recorded: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    path, ids = recorded
    assert tamper.run_case(tamper.Case("nothing"), path, ids, tmp_path / "intact") is None
    with Store.open_readonly(path, key_file=ids["key"]) as store:
        result = store.verify()
        # 8 live rounds finished, a transcript, the round in play
        assert result.ok and result.rounds == 10
        assert store.under_min_players() == ["dan"]  # 5.26: dan's 5 under the minimum of 10
        assert [r.id for r in store.list_rounds(irregular=True, limit=None)] == sorted(
            [ids["void"], ids["referred"]], reverse=True)


def test_every_edit_is_caught(recorded: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    path, ids = recorded
    cases = tamper.cases(path, ids)
    # every column of every table has its case (the list is made from the schema)
    assert sum(c.name.startswith("edit ") and "." in c.name.split()[1] for c in cases) >= 90
    missed = []
    differ = []
    for n, case in enumerate(cases):
        said = tamper.run_case(case, path, ids, tmp_path / f"case{n}")
        if said is None:
            missed.append(case.name)
        # re-settling every round (the reference check) names the same first problem: a seal
        # only spares re-settling a round, it never changes what verify says
        work = tmp_path / f"case{n}-resettle"
        full = tamper.run_case(case, path, ids, work, resettle=True)
        if full is not None:
            full = full.replace(str(work), str(tmp_path / f"case{n}"))  # a file's name in the text
        if full != said:
            differ.append((case.name, said, full))
    assert missed == []
    assert differ == []


# the edits of rows a worker process checks (events, derived rows, round headers, finish records)
PARALLEL_CASES = (
    "edit events.event_json", "edit events.hash", "edit settlements.net", "edit rulings.rule",
    "edit round_players.net", "edit rounds.totals_json to give bob +1500",
    "insert a settlement", "insert a settlement of round 1.5 (no round's)", "delete a events row",
    "reorder two events of a round (swap seq)", "truncate: the open round",
)


def test_worker_processes_name_the_same_problem(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dealer_assist.store import verify as verify_module

    monkeypatch.setattr(verify_module, "PARALLEL_MIN_ROUNDS", 1)  # 10 rounds, 8 ranges, 2 workers
    path, ids = recorded
    chosen = [c for c in tamper.cases(path, ids) if c.name in PARALLEL_CASES]
    assert len(chosen) == len(PARALLEL_CASES)
    assert tamper.run_case(tamper.Case("nothing"), path, ids, tmp_path / "intact", jobs=2) is None
    for n, case in enumerate(chosen):
        alone = tamper.run_case(case, path, ids, tmp_path / f"case{n}")
        assert alone is not None, case.name
        work = tmp_path / f"case{n}-jobs"
        said = tamper.run_case(case, path, ids, work, jobs=2)
        assert said is not None and said.replace(str(work), str(tmp_path / f"case{n}")) == alone, case.name


def test_a_store_of_unsealed_rounds_is_re_settled_in_one_pass(
    recorded: tuple[Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond seal.UNTRUSTED_LISTED unsealed rounds a range (a store from before seals) verify
    re-settles the whole store in one streaming pass: the same verdicts and problems."""
    from dealer_assist.store import seal

    monkeypatch.setattr(seal, "UNTRUSTED_LISTED", 0)  # the round in play already overflows
    path, ids = recorded
    chosen = [c for c in tamper.cases(path, ids) if c.name in PARALLEL_CASES]
    assert tamper.run_case(tamper.Case("nothing"), path, ids, tmp_path / "intact") is None
    for n, case in enumerate(chosen):
        streamed = tamper.run_case(case, path, ids, tmp_path / f"case{n}")
        work = tmp_path / f"case{n}-full"
        full = tamper.run_case(case, path, ids, work, resettle=True)
        assert streamed is not None and full is not None, case.name
        assert streamed == full.replace(str(work), str(tmp_path / f"case{n}")), case.name
