"""Write docs/station.md's ops table from the op registry (dealer_assist/service/ops.py).

    python3 scripts/ops_table.py          # rewrite the table between its markers
    python3 scripts/ops_table.py --check  # exit 1 when the table and the registry differ

The table is the registry's: each op, its request's fields, who may call it (its
permission) and its handler's doc line. tests/service/test_ops.py fails when they drift.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # after PYTHONPATH (build/compiled on the compiled pass)

import dealer_assist.service.table  # noqa: E402,F401  (its handlers fill the registry)
from dealer_assist.service.ops import ops_table  # noqa: E402

DOC = ROOT / "docs" / "station.md"
BEGIN = "<!-- ops table: written by scripts/ops_table.py from dealer_assist/service/ops.py; do not edit -->"
END = "<!-- end of the ops table -->"


def rewritten(text: str) -> str:
    """``text`` with the table between the markers written from the registry."""
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise ValueError(f"{DOC} has no ops table markers ({BEGIN!r} ... {END!r})")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{ops_table()}{END}{tail}"


def main(argv: list[str]) -> int:
    text = DOC.read_text(encoding="utf-8")
    try:
        new = rewritten(text)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if "--check" in argv:
        if new != text:
            print(f"error: {DOC} ops table differs from the registry: run python3 scripts/ops_table.py",
                  file=sys.stderr)
            return 1
        return 0
    if new != text:
        DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
