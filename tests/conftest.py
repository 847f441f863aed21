"""The suite runs twice in CI: on the sources, and on the mypyc-compiled engine the app ships
(scripts/compile_engine.py)."""

from __future__ import annotations

import os
from typing import Any

import pytest

# every Qt window in the suite is a real one, drawn offscreen (no display in CI)
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

_TEST_HOME = pytest.StashKey[str]()


def pytest_sessionstart(session: pytest.Session) -> None:
    """With DEALER_ASSIST_EXPECT_COMPILED set, refuse to run on the pure-Python engine, or
    without the guard that refuses it in every process (tests/compiled_guard)."""
    if not os.environ.get("DEALER_ASSIST_EXPECT_COMPILED"):
        return
    import sys

    import dealer_assist.engine.table as table

    if not table.__file__.endswith((".so", ".pyd")):
        raise pytest.UsageError(
            f"the compiled engine was expected, but {table.__file__} was imported"
        )
    guard = sys.modules.get("sitecustomize")
    if guard is None or not hasattr(guard, "PureEngineRefused"):
        raise pytest.UsageError("the compiled pass needs tests/compiled_guard on PYTHONPATH")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The compiled pass fails when any process of it imported a pure engine module, even
    one whose failure a test expected (tests/compiled_guard/sitecustomize.py)."""
    folder = os.environ.get("COMPILED_PASS_PURE_IMPORTS")
    if not os.environ.get("DEALER_ASSIST_EXPECT_COMPILED") or not folder or hasattr(session.config, "workerinput"):
        return
    records = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    if records:
        for name in records:
            with open(os.path.join(folder, name), encoding="utf-8") as record:
                print(f"\npure engine module imported on the compiled pass: {record.read().strip()}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_configure(config: pytest.Config) -> None:
    """The suite never reads or writes the running account's own files: a development
    store in ~/.local/share/dealer-assist (the app's default without a station
    configuration) would otherwise answer commands run without --db. HOME and the XDG
    directories point into one directory of this run; subprocesses inherit them."""
    import tempfile

    home = tempfile.mkdtemp(prefix="dealer-assist-tests-home-")
    config.stash[_TEST_HOME] = home
    os.environ["HOME"] = home
    for name, sub in (
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_STATE_HOME", ".local/state"),
    ):
        os.environ[name] = os.path.join(home, sub)
        os.makedirs(os.environ[name], exist_ok=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests marked ``slow`` first, each in its place among them (a stable sort): the
    workers take the long ones while there is other work beside them, and none is left
    running a minute-long test alone at the end of the run."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove this run's HOME (each run made one in /tmp and left it: hundreds a day)."""
    import shutil

    home = config.stash.get(_TEST_HOME, None)
    if home is not None:
        shutil.rmtree(home, ignore_errors=True)


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> Any:
    """Collect the test's garbage here, on the main thread, as the program's windows do on
    their GUI thread (ui/common/collector.py): automatic collection, which runs on whichever
    thread allocates, is off for the whole run. Left to it, a window's Qt objects freed on a
    worker thread (a pit window's alerts working out a par sheet) deadlocked against the GUI
    thread (seen: QObject::~QObject on the worker waiting for the GIL, the GUI thread
    holding it)."""
    import gc

    gc.disable()  # again: a test may have started a window's entry point, or re-enabled it
    yield
    gc.collect()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """Automatic collection off while a test runs (see pytest_runtest_teardown)."""
    import gc

    gc.disable()
    yield


@pytest.fixture(autouse=True)
def _one_worker_per_xdist_group(request: pytest.FixtureRequest) -> Any:
    """A test of the ``xdist_group`` of the machine's accounts (tests/service/test_unprivileged.py,
    tests/station_day) holds that group's lock file while it runs: if two workers ever run the
    group at once (pytest 9.2 with xdist 3.8 silently did, pytest-xdist#1386) the second fails
    saying so, instead of the two deleting each other's accounts."""
    import fcntl
    import tempfile

    mark = request.node.get_closest_marker("xdist_group")
    name = "" if mark is None else str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
    if name != "machine-accounts":  # other groups only share a worker's caches (tests/odds)
        yield
        return
    path = os.path.join(tempfile.gettempdir(), f"dealer-assist-tests-{name}.lock")
    with open(path, "a", encoding="utf-8") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pytest.fail(f"the tests of xdist_group {name!r} ran in two workers at once "
                        "(--dist loadgroup not honoured: see pyproject.toml's pytest pin)")
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
