#!/usr/bin/env python3
"""Compile the rules engine with mypyc into build/compiled/ (a copy; the source tree is untouched).

    python scripts/compile_engine.py            # builds build/compiled/dealer_assist (about a minute)
    PYTHONPATH=build/compiled dealer-assist bench
    PYTHONPATH=build/compiled python -m pytest tests/engine

The engine is `mypy --strict` clean, so mypyc compiles it to C extension modules with the
same behaviour; the whole engine test suite runs against the compiled build in CI
(scripts/dev.py test). The compiled modules live only in build/compiled/, never next to the
sources, so an edited .py can never be shadowed by a stale .so. Rebuilt only when a
source changed. Exit status 0 when the compiled engine imports.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "compiled"
STAMP = OUT / ".sources"

# The rules engine and the transcripts; the store, the CLI and the commands stay Python.
MODULES = (
    "cards", "hands", "money", "outcome", "sidebets", "games", "events", "settlement",
    "shoe_state", "table", "electronic", "irregularities", "claims", "transcript", "simulate",
)


def sources_digest() -> str:
    h = hashlib.sha256()
    for path in sorted((ROOT / "dealer_assist").glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def compiled_ok() -> bool:
    probe = "import dealer_assist.table as t, sys; sys.exit(0 if t.__file__.endswith(('.so', '.pyd')) else 1)"
    return subprocess.run([sys.executable, "-c", probe], cwd=OUT, env={"PYTHONPATH": str(OUT)}).returncode == 0


def main() -> int:
    digest = sources_digest()
    if STAMP.exists() and STAMP.read_text() == digest and compiled_ok():
        print(f"[compile] up to date: {OUT}")
        return 0
    if OUT.exists():
        shutil.rmtree(OUT)
    shutil.copytree(ROOT / "dealer_assist", OUT / "dealer_assist",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    files = [f"dealer_assist/{m}.py" for m in MODULES]
    print(f"[compile] mypyc {len(files)} engine modules into {OUT}", flush=True)
    done = subprocess.run([sys.executable, "-m", "mypyc", *files], cwd=OUT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        print(done.stderr[-4000:], file=sys.stderr)
        print("[compile] mypyc failed", file=sys.stderr)
        return 1
    if not compiled_ok():
        print("[compile] the compiled engine does not import", file=sys.stderr)
        return 1
    STAMP.write_text(digest)
    print(f"[compile] done: PYTHONPATH={OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
