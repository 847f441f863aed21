"""What each process of `dealer-assist` imports on its way to the first window (issue 37: GUI
launch). The screen is the service's client: it never opens a store, so it has no reason to
load sqlite-utils (with click, dateutil and, when installed, numpy: about 0.4 s); the service
has no reason to load psycopg without a floor, nor numpy at all; and nothing of Qt is loaded
before the service is spawned, so the two starts overlap. Each case runs in a fresh
interpreter, as a start does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

WATCHED = ("PySide6", "sqlite_utils", "numpy", "pandas", "psycopg", "dealer_assist.store.core",
           "dealer_assist.store.reader", "dealer_assist.store.verify", "dealer_assist.odds.sheet")


ROOT = Path(__file__).resolve().parents[2]


def fresh_environment() -> dict[str, str]:
    """This run's PYTHONPATH (the compiled pass's build first) and then the checkout; run with
    -P from / so the current directory never shadows either."""
    path = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH", ""), str(ROOT)) if p)
    return {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": path}


def loaded_after(code: str) -> set[str]:
    """The WATCHED modules in sys.modules after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {WATCHED!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-P", "-c", probe], capture_output=True, text=True, timeout=120,
                          env=fresh_environment(), cwd="/")
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_nothing_of_qt_or_the_store_before_the_service_is_spawned() -> None:
    # what `dealer-assist` with no subcommand has loaded when it spawns `station serve`
    loaded = loaded_after("from dealer_assist.cli import build_parser\nbuild_parser(['gui'])\nimport ui.dealer.app")
    assert loaded == set()


def test_the_dealers_screen_loads_no_store_and_no_floor() -> None:
    loaded = loaded_after("import ui.dealer.app, ui.dealer.main_window, ui.dealer.controller, "
                          "ui.common.service_link, ui.common.accounts")
    assert "PySide6" in loaded  # the probe sees what was imported
    assert loaded & {"sqlite_utils", "numpy", "psycopg", "dealer_assist.store.core",
                     "dealer_assist.store.verify"} == set()


def test_the_service_loads_no_floor_library_without_a_floor_and_never_numpy() -> None:
    loaded = loaded_after("import dealer_assist.service.serve\nfrom dealer_assist.store import Store\n"
                          "import dealer_assist.store.schema")
    assert {"sqlite_utils", "dealer_assist.store.core"} <= loaded
    assert loaded & {"PySide6", "numpy", "pandas", "psycopg"} == set()


def test_numpy_stays_importable_after_the_store_and_is_mapped_when_loaded_first() -> None:
    # the store hides numpy from sqlite-utils only while sqlite-utils is imported
    after = loaded_after("import dealer_assist.store.core\nimport numpy")
    assert "numpy" in after
    mapped = subprocess.run(
        [sys.executable, "-P", "-c", "import numpy\nimport dealer_assist.store.core\nimport sqlite_utils.db as d\n"
                               "print(d.COLUMN_TYPE_MAPPING.get(numpy.int64))"],
        capture_output=True, text=True, timeout=120, env=fresh_environment(), cwd="/")
    assert mapped.stdout.strip() == "INTEGER", mapped.stderr
