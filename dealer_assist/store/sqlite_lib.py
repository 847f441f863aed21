"""sqlite-utils (the table's store library), imported without numpy and pandas.

sqlite-utils imports numpy and pandas when they are installed, only to map their number
types to column types; the store never writes such values. numpy is installed here for the
pit's charts (pyqtgraph) and costs the station service about 0.1 s of every start (issue 37):
while sqlite-utils is first imported, the two count as not installed. A process that has
already imported them (the pit) keeps them, and sqlite-utils then maps their types as before.
"""
from __future__ import annotations

import sys

_NOT_NEEDED = [name for name in ("numpy", "pandas") if name not in sys.modules]
for _name in _NOT_NEEDED:
    sys.modules[_name] = None  # type: ignore[assignment]  # `import numpy` raises ImportError
try:
    from sqlite_utils import Database, Migrations
finally:
    for _name in _NOT_NEEDED:
        if sys.modules.get(_name, sys) is None:
            del sys.modules[_name]

__all__ = ["Database", "Migrations"]
