"""scripts/dev.py test's two passes leave no test file out (issue 37): the pure pass runs
every file but the service's and screens' (COMPILED_ONLY), the compiled pass runs
COMPILED_TESTS but COMPILED_SKIPS; each left out of one must be in the other."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def dev_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev_script", ROOT / "scripts" / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def files_under(entry: str) -> set[str]:
    path = ROOT / entry
    if path.is_file():
        return {entry}
    return {p.relative_to(ROOT).as_posix() for p in path.rglob("test_*.py")}


def test_every_test_file_runs_in_one_pass_at_least() -> None:
    dev = dev_script()
    every = files_under("tests")
    compiled_only = set(dev.compiled_only_files())
    pure = every - compiled_only
    compiled = set().union(*(files_under(e) for e in dev.COMPILED_TESTS)) - set(dev.COMPILED_SKIPS)
    assert compiled_only, "the service's and screens' tests are found"
    assert compiled_only <= compiled, sorted(compiled_only - compiled)
    assert pure | compiled == every, sorted(every - pure - compiled)
    # the geometry checks run once, on the pure pass
    assert set(dev.COMPILED_SKIPS) <= pure


def test_the_paths_named_exist() -> None:
    dev = dev_script()
    for entry in (*dev.COMPILED_TESTS, *dev.COMPILED_SKIPS, *dev.COMPILED_ONLY):
        assert (ROOT / entry).exists(), entry
