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
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "compiled"
STAMP = OUT / ".sources"

# The rules engine and the transcripts; the store, the CLI and the commands stay Python.
MODULES = (
    "base/cards", "base/hands", "base/money", "base/settlement",
    "games/sidebets", "games/clauses", "games/rules", "games/ace_race", "games/lucky8", "games/star_elements",
    "games/dueling8s", "games/electronic", "games/__init__",
    "engine/outcome", "engine/events", "engine/round_api", "engine/phase",
    "engine/shoe_state", "engine/round_base", "engine/hand_rules", "engine/table_state", "engine/table_port",
    "engine/table_core", "engine/table_settlement", "engine/table_betting", "engine/table_dealer",
    "engine/table_offers", "engine/table_play", "engine/table_dealing", "engine/table", "engine/electronic",
    "engine/irregularities", "engine/claims",
    "engine/transcript", "bench/simulate",
)


def sources_digest(package: Path = ROOT / "dealer_assist") -> str:
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):  # subpackages too (store/, cli/): all are copied
        h.update(path.relative_to(package).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def compiled_ok(out: Path = OUT) -> bool:
    probe = "import dealer_assist.engine.table as t, sys; sys.exit(0 if t.__file__.endswith(('.so', '.pyd')) else 1)"
    return subprocess.run([sys.executable, "-c", probe], cwd=out, env={"PYTHONPATH": str(out)}).returncode == 0


_NOISE = ("gcc ", "x86_64-linux-gnu-gcc ", "cc ", "creating ", "copying ", "running ", "building ")


def main() -> int:
    if STAMP.exists() and STAMP.read_text() == sources_digest() and compiled_ok():
        print(f"[compile] up to date: {OUT}")
        return 0
    # Built beside the old build and swapped in only when it imports: a failed or concurrent
    # compile never leaves a half-built or stale engine at OUT.
    work = OUT.with_name(f"{OUT.name}.building-{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(ROOT / "dealer_assist", work / "dealer_assist",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    digest = sources_digest(work / "dealer_assist")  # of exactly the sources compiled
    files = [f"dealer_assist/{m}.py" for m in MODULES]
    print(f"[compile] mypyc {len(files)} engine modules into {OUT}", flush=True)
    done = subprocess.run([sys.executable, "-m", "mypyc", *files], cwd=work,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0 or not compiled_ok(work):
        # mypy's own errors go to stdout among the compiler's command lines.
        lines = [line for line in done.stdout.splitlines() if not line.startswith(_NOISE)]
        print("\n".join(lines[-60:]), file=sys.stderr)
        print("[compile] mypyc failed" if done.returncode else "[compile] the compiled engine does not import",
              file=sys.stderr)
        shutil.rmtree(work, ignore_errors=True)
        return 1
    shutil.rmtree(work / "build", ignore_errors=True)  # mypyc's C sources and objects
    (work / ".sources").write_text(digest)
    old = OUT.with_name(f"{OUT.name}.old-{os.getpid()}")
    if OUT.exists():
        OUT.rename(old)
    work.rename(OUT)
    shutil.rmtree(old, ignore_errors=True)
    print(f"[compile] done: PYTHONPATH={OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
