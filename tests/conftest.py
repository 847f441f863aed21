"""The suite runs twice in CI: on the sources, and on the mypyc-compiled engine the app ships
(scripts/compile_engine.py)."""

from __future__ import annotations

import os

import pytest


def pytest_sessionstart(session: pytest.Session) -> None:
    """With DEALER_ASSIST_EXPECT_COMPILED set, refuse to run on the pure-Python engine."""
    if not os.environ.get("DEALER_ASSIST_EXPECT_COMPILED"):
        return
    import dealer_assist.table as table

    if not table.__file__.endswith((".so", ".pyd")):
        raise pytest.UsageError(f"the compiled engine was expected, but {table.__file__} was imported")
