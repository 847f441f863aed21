"""The compiled pass's guard (scripts/dev.py test puts this folder on PYTHONPATH with
DEALER_ASSIST_EXPECT_COMPILED=1): in every Python process of that pass — pytest, its
workers and every subprocess a test starts that keeps PYTHONPATH (even one that drops the
DEALER_ASSIST_* variables), Python imports this as ``sitecustomize`` and importing one of
the engine modules scripts/compile_engine.py compiles from a ``.py`` fails with an
ImportError naming the file; it is also written to COMPILED_PASS_PURE_IMPORTS (a folder) so
that a test which expected its subprocess to fail still cannot hide it (tests/conftest.py
and scripts/dev.py fail the pass on any record there)."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec, PathFinder
from pathlib import Path
from types import ModuleType

EXPECT = "DEALER_ASSIST_EXPECT_COMPILED"
RECORDS = "COMPILED_PASS_PURE_IMPORTS"
COMPILE_ENGINE = Path(__file__).resolve().parents[2] / "scripts" / "compile_engine.py"


def compiled_names() -> frozenset[str]:
    """``dealer_assist.engine.table``, ... for every module of compile_engine.MODULES (read from
    the script's text: importing it would load subprocess, shutil, ... in every process)."""
    text = COMPILE_ENGINE.read_text(encoding="utf-8")
    listed = text[text.index("\nMODULES = ("):]
    listed = listed[:listed.index("\n)")]
    names = set()
    for path in re.findall(r'"([a-z0-9_/]+)"', listed):
        name = "dealer_assist." + path.replace("/", ".")
        names.add(name.removesuffix(".__init__"))
    return frozenset(names)


class PureEngineRefused(MetaPathFinder):
    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname not in self.names:
            return None
        spec = PathFinder.find_spec(fullname, path)
        origin = spec.origin if spec is not None else None
        if origin is not None and not origin.endswith((".so", ".pyd")):
            folder = os.environ.get(RECORDS)
            if folder:
                with open(os.path.join(folder, f"{os.getpid()}-{fullname}"), "w", encoding="utf-8") as record:
                    record.write(f"{fullname} {origin} {sys.argv}\n")
            raise ImportError(f"the compiled pass imported the pure-Python {fullname} from {origin}")
        return spec


if __name__ == "sitecustomize":  # on PYTHONPATH: the compiled pass (imported by a test: not)
    sys.meta_path.insert(0, PureEngineRefused(compiled_names()))
