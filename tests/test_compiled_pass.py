"""The engine under test is the one the pass says: on the compiled pass (scripts/dev.py test,
DEALER_ASSIST_EXPECT_COMPILED=1) every module scripts/compile_engine.py compiles is
imported from its mypyc build (a ``.so``), in this process and in a subprocess started
from the checkout as the tests start the CLI; on the plain pass, every one is the source
``.py`` of this checkout (a build/compiled left on the path would test the wrong code)."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

from tests.compiled_guard.sitecustomize import EXPECT, RECORDS, compiled_names

ROOT = Path(__file__).resolve().parent.parent
GUARD = ROOT / "tests" / "compiled_guard"
COMPILED = os.environ.get(EXPECT) == "1"
EXAMPLE = ROOT.parent / "shared" / "examples" / "lucky8-pair-and-double.json"


def _expected(name: str, path: str) -> str:
    """'' when ``path`` is the file this pass must import for module ``name``."""
    if COMPILED:
        return "" if path.endswith((".so", ".pyd")) else f"{name}: {path} is not compiled"
    source = ROOT / (name.replace(".", "/") + ("/__init__.py" if path.endswith("__init__.py") else ".py"))
    return "" if Path(path) == source else f"{name}: {path} is not {source}"


def test_every_compiled_module_is_the_expected_one() -> None:
    names = compiled_names()
    # every game's module too (one module per game, games/<game>.py)
    assert {"dealer_assist.engine.table", "dealer_assist.games", "dealer_assist.games.lucky8",
            "dealer_assist.games.electronic"} <= names, sorted(names)
    wrong = [_expected(n, str(importlib.import_module(n).__file__)) for n in sorted(names)]
    assert [w for w in wrong if w] == []


def test_a_subprocess_from_the_checkout_imports_the_same() -> None:
    """As the CLI tests start ``python -m dealer_assist`` (cwd the checkout, the environment
    inherited): the same files, and on the compiled pass the guard is on there too."""
    probe = ("import sys, importlib\n"
             f"names = {sorted(compiled_names())!r}\n"
             "for n in names: print(n, importlib.import_module(n).__file__)\n"
             "print('guard', any(type(f).__name__ == 'PureEngineRefused' for f in sys.meta_path))\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == f"guard {COMPILED}"
    wrong = [_expected(*line.split(" ", 1)) for line in lines[:-1]]
    assert len(wrong) == len(compiled_names()) and [w for w in wrong if w] == []
    # and the command itself runs there (on the compiled pass: it could not import a pure module)
    done = subprocess.run([sys.executable, "-m", "dealer_assist", "settle", str(EXAMPLE)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "alice" in done.stdout, done.stderr


def test_the_guard_refuses_a_pure_engine_module(tmp_path: Path) -> None:
    """The compiled pass's guard (on PYTHONPATH), given the sources only: the import fails naming the file,
    and is recorded for the run's end."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}
    env.update({RECORDS: str(tmp_path), "PYTHONPATH": os.pathsep.join([str(GUARD), str(ROOT)])})
    done = subprocess.run([sys.executable, "-P", "-c", "import dealer_assist.engine.table"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "ImportError: the compiled pass imported the pure-Python dealer_assist." in done.stderr, done.stderr
    assert str(ROOT / "dealer_assist") in done.stderr
    records = list(tmp_path.iterdir())
    assert records and all(str(ROOT / "dealer_assist") in r.read_text() for r in records)
