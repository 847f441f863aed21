"""ui/ writes no store and drives no shoe (issue 33, "done means": ``git grep`` in ui/ finds no
store writes and no shoe driver). The station service owns the store and the shoe
(../shared/DESIGN.md, "The station service": there is no second, in-process table); the
screens and the review are its clients.

The check reads every file under ui/ as text, as ``git grep`` does (comments and docstrings
too: a module that names the driver in its words is as suspect as one that imports it):

- a store opened for writing: ``Store(``, ``Store.open(`` (``Store.open_readonly`` and the
  ``StoreReader`` the review reads through are reading), ``sqlite3.connect(``;
- the shoe's driver or simulator: ``hardware.simulator``, ``hardware.driver``, ``import
  serial`` / ``from serial`` (pyserial), ``from hardware import simulator|driver``.

Allowed exceptions: none. (The review's copy of a station's store is refreshed by
``dealer_assist.service.snapshot.refresh_snapshot``; the screen's tests and benchmark get the
simulated shoe's handle from ``hardware.local_station``, which starts it.)
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STORE_WRITES = re.compile(r"\bStore\(|\bStore\.open\(|\bsqlite3\.connect\(")
SHOE_DRIVERS = re.compile(r"\bhardware\.(?:simulator|driver)\b|^\s*(?:import|from)\s+serial\b"
                          r"|^\s*from\s+hardware\s+import\s+.*\b(?:simulator|driver)\b", re.MULTILINE)

#: ``path: why`` for a file allowed to match; none is.
ALLOWED: dict[str, str] = {}


def found(pattern: re.Pattern[str], files: dict[str, str]) -> list[str]:
    """``path:line text`` for every line of ``files`` (path -> text) where ``pattern`` matches."""
    out = []
    for path, text in sorted(files.items()):
        if path in ALLOWED:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if pattern.search(line):
                out.append(f"{path}:{number} {line.strip()}")
    return out


def ui_files() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in sorted((ROOT / "ui").rglob("*.py"))}


def test_no_store_is_written_in_ui() -> None:
    assert found(STORE_WRITES, ui_files()) == []


def test_no_shoe_driver_in_ui() -> None:
    assert found(SHOE_DRIVERS, ui_files()) == []


def test_the_checks_find_what_ui_had() -> None:
    """The lines ui/ held before the review went through its service and the shoe through
    hardware/local_station.py (issue 33) are found; reading is not."""
    was = {
        "ui/review/note.py": "            with Store.open(self.db_path) as store:\n",
        "ui/common/accounts.py": "        self.store = Store.open(path)\n",
        "ui/review/from_service.py": "    source, target = sqlite3.connect(fresh), sqlite3.connect(self.path)\n",
        "ui/dealer/bench.py": "    from hardware.simulator import SimulatedShoe\n",
        "ui/x.py": "import serial\nfrom hardware import driver\nstore = Store(conn, path)\n",
        "ui/reads.py": "with Store.open_readonly(path) as reader:\n    StoreReader(store)\n# serial numbers\n",
    }
    assert found(STORE_WRITES, was) == [
        "ui/common/accounts.py:1 self.store = Store.open(path)",
        "ui/review/from_service.py:1 source, target = sqlite3.connect(fresh), sqlite3.connect(self.path)",
        "ui/review/note.py:1 with Store.open(self.db_path) as store:",
        "ui/x.py:3 store = Store(conn, path)"]
    assert found(SHOE_DRIVERS, was) == [
        "ui/dealer/bench.py:1 from hardware.simulator import SimulatedShoe",
        "ui/x.py:1 import serial", "ui/x.py:2 from hardware import driver"]
