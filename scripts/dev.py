#!/usr/bin/env python3
"""Set up the project and run it: `python3 scripts/dev.py app` or `python3 scripts/dev.py test`.

Needs only Python 3.11+ and pip. Creates ./.venv, installs the project with its
development extras (again only when pyproject.toml changed), makes sure the
system libraries Qt needs are present (Debian/Ubuntu, when run as root), then
starts the app or runs the whole check: ruff, mypy --strict, pytest.

`app` starts as soon as the venv is ready, on the pure-Python engine, and compiles the rules
engine with mypyc in the background (scripts/compile_engine.py, a detached process logging
to build/compile-engine.log); a later start runs the compiled build once its digest matches
the sources. DEALER_ASSIST_PURE_PYTHON=1 skips the compile. The app itself is the installed
`dealer-assist` (with no station configuration it starts this account's station service and
the screen as its client: dealer_assist/service/launch.py).
"""

from __future__ import annotations

import ctypes.util
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".installed-from"
COMPILED = ROOT / "build" / "compiled"
COMPILE_ENGINE = ROOT / "scripts" / "compile_engine.py"
PURE_PYTHON_VAR = "DEALER_ASSIST_PURE_PYTHON"

# Shared libraries PySide6's xcb/offscreen platforms load, and the Debian packages holding them.
QT_LIBS = {
    "EGL": "libegl1",
    "GL": "libgl1",
    "xkbcommon": "libxkbcommon0",
    "fontconfig": "libfontconfig1",
    "glib-2.0": "libglib2.0-0",
    "dbus-1": "libdbus-1-3",
}
# What packaging/build.sh bundles and packaging/check_build.sh resolves besides: the xcb
# (X11) and Wayland platform plugins' libraries (docs/packaging.md, "Build machine").
BUILD_LIBS = {
    "xkbcommon-x11": "libxkbcommon-x11-0",
    "xcb-cursor": "libxcb-cursor0",
    "xcb-icccm": "libxcb-icccm4",
    "xcb-keysyms": "libxcb-keysyms1",
    "xcb-image": "libxcb-image0",
    "xcb-render-util": "libxcb-render-util0",
    "wayland-client": "libwayland-client0",
    "wayland-cursor": "libwayland-cursor0",
    "wayland-egl": "libwayland-egl1",
}
DEV_LOCK = ROOT / "requirements" / "dev.lock"


def say(text: str) -> None:
    print(f"[dev] {text}", flush=True)


def ensure_system_libraries() -> None:
    if not sys.platform.startswith("linux"):
        return
    wanted = {**QT_LIBS, **BUILD_LIBS}
    missing = [pkg for lib, pkg in wanted.items() if ctypes.util.find_library(lib) is None]
    if not missing:
        return
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        say(f"installing system libraries for Qt: {' '.join(missing)}")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True, env=env)
    else:
        say(f"warning: Qt may need these system packages: {' '.join(missing)}")


def postgres_server_present() -> bool:
    """initdb on the PATH or in Debian's /usr/lib/postgresql/*/bin (tests/floor/pgserver.py)."""
    return shutil.which("initdb") is not None or any(Path("/usr/lib/postgresql").glob("*/bin/initdb"))


def pgbouncer_present() -> bool:
    return shutil.which("pgbouncer") is not None or Path("/usr/sbin/pgbouncer").exists()


def ensure_postgres_server() -> None:
    """The floor's tests start a throwaway PostgreSQL server and a PgBouncer in front of it
    (the connection budget): install their packages when missing (Debian/Ubuntu, as root),
    as for Qt's libraries."""
    missing = [name for name, present in (("postgresql", postgres_server_present()),
                                          ("pgbouncer", pgbouncer_present())) if not present]
    if not sys.platform.startswith("linux") or not missing:
        return
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        say(f"installing for the floor's tests: {' '.join(missing)}")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True, env=env)
    else:
        say(f"warning: the floor's tests need {' and '.join(missing)}: install them")


def ensure_venv() -> None:
    if not PY.exists():
        say(f"creating virtual environment in {VENV}")
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes())
    digest.update(DEV_LOCK.read_bytes())
    wanted = digest.hexdigest()
    if STAMP.exists() and STAMP.read_text().strip() == wanted:
        return
    say("installing dealer-assist and its development tools (requirements/dev.lock: pinned, hashed)")
    say("step 1/3: pip itself")
    subprocess.run([str(PY), "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
    # Every tool at the version and hash of the lock file (pip prints each package as it goes),
    # then the project itself (editable, its dependencies already there from the lock).
    say(f"step 2/3: {sum(1 for line in DEV_LOCK.read_text().splitlines() if '==' in line)} packages "
        "of requirements/dev.lock (PySide6 is the big one)")
    subprocess.run([str(PY), "-m", "pip", "install", "--progress-bar", "off", "--require-hashes",
                    "-r", str(DEV_LOCK)], check=True)
    say("step 3/3: dealer-assist itself (editable)")
    subprocess.run([str(PY), "-m", "pip", "install", "-q", "--no-deps", "-e", str(ROOT)], check=True)
    STAMP.write_text(wanted)


COMPILED_STEP = "the engine's tests on the compiled engine"
# The tests that run the engine's code (what scripts/compile_engine.py compiles) in this
# process or in the CLI they start; the floor, hardware, packaging, station and station-day
# tests run none of it and are not run twice. tests/test_compiled_pass.py proves the pass
# imports only compiled engine modules, subprocesses included (tests/compiled_guard).
COMPILED_TESTS = ("tests/test_compiled_pass.py", "tests/engine", "tests/odds", "tests/store", "tests/cli",
                  "tests/service", "tests/ui", "tests/ui_review", "tests/ui_service",
                  "tests/hardware/test_shoe_state.py")
# Not run twice: the screens' geometry checks (every control on screen and ≥ 48 px, nothing
# covered, at three sizes). They measure Qt's layout of what the engine said, not the engine;
# the same rounds' outcomes are asserted on the compiled engine by the other ui tests. They
# were ~45 % of the compiled pass's time (test_fits, layout walk, full screen: ~960 s of CPU).
# The review's geometry checks likewise (its layout walk, the replay at each size: ~63 s of
# worker time on the pure pass), and the service's process and socket handling, which play
# no round: a station service started for the account (test_launch), 2,000 idle
# connections and a hello-less flood (test_starvation) — ~33 s (issue 37).
# And the odds analysis' own checks (the 27 par sheets' edges and distributions, the splits
# enumerated card by card): the analysis (odds/main_wager, outcomes, splits) is not compiled,
# and what it reads of the compiled engine (the games' rules) the other tests/odds files read
# too; by the pure pass's figures they were 2-5 minutes of worker time (issue 37).
COMPILED_SKIPS = ("tests/ui/test_fits.py", "tests/ui/test_layout_walk.py", "tests/ui/test_full_screen.py",
                  "tests/ui_review/test_review_layout.py", "tests/ui_review/test_review_fit.py",
                  "tests/service/test_launch.py", "tests/service/test_starvation.py",
                  "tests/odds/test_par_sheet_27.py", "tests/odds/test_split_enumeration.py")
# Run once, on the compiled engine (the one the app runs): the store's, the CLI's, the
# service's and the screens' tests. Their code is Python in both builds; what differs is the
# engine under them, whose own tests (tests/engine, tests/odds) run on both. The pure pass
# leaves these out unless nothing can be compiled (issue 37: a suite in twenty minutes; they
# were ~85 % of the compiled pass and ran twice). COMPILED_SKIPS among them run once, on the
# pure pass.
COMPILED_ONLY = ("tests/store", "tests/cli", "tests/service", "tests/ui", "tests/ui_review", "tests/ui_service")
GUARD = ROOT / "tests" / "compiled_guard"


def compiled_only_files() -> list[str]:
    """The test files of COMPILED_ONLY the pure pass leaves to the compiled pass."""
    skipped = set(COMPILED_SKIPS)
    return [path.relative_to(ROOT).as_posix() for folder in COMPILED_ONLY
            for path in sorted((ROOT / folder).rglob("test_*.py"))
            if path.relative_to(ROOT).as_posix() not in skipped]


def pytest_workers() -> int:
    """pytest-xdist workers: one per core this process may run on, and one more — the tests
    wait on their processes (PostgreSQL, the station service, the CLI) a good part of the
    time (issue 37: a fresh clone's CI on 2 cores took 19.3 min with 3 workers, 20.9 min with
    2 before the store's and the CLI's tests ran once; DEALER_ASSIST_TEST_WORKERS to choose)."""
    chosen = os.environ.get("DEALER_ASSIST_TEST_WORKERS", "")
    if chosen.isdigit() and int(chosen) > 0:
        return int(chosen)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, cores) + 1


def missing_c_toolchain() -> str | None:
    """What mypyc would lack to build the engine here: a C compiler or Python's headers."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"C compiler ({compiler})"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "Python.h (the Python development headers)"
    return None


PACKAGE_VAR = "DEALER_ASSIST_TEST_PACKAGE"
PACKAGE_LOG = ROOT / "build" / "package-check.log"


def run_tests(extra: list[str]) -> int:
    """ruff, mypy --strict, pytest (in parallel workers), then the engine's tests again on the
    mypyc-compiled engine (the one the app and the packaged build run), and the packaged
    build checked (packaging/build.sh --clean, packaging/check_build.sh); every step runs, the
    exit status is 0 only if all passed. The compile, then the build and its check, run
    beside ruff, mypy and the pure pass (one core of two while the tests wait on their
    processes); each step's wall time is printed, and the load. DEALER_ASSIST_TEST_PACKAGE=0
    leaves the build out."""
    import tempfile
    import time

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONDONTWRITEBYTECODE="1")
    # loadgroup: the tests marked xdist_group run in one worker (tests/station_day; each par
    # sheet's tests in tests/odds)
    parallel = ["-n", str(pytest_workers()), "--dist", "loadgroup"]
    # The engine compiled with mypyc (build/compiled) must pass the same tests: engine, store,
    # the dealer's screen and review all run on it in the app. Every process of that pass
    # (PYTHONSAFEPATH: `python -m` from the checkout does not put the sources first) loads
    # tests/compiled_guard, which refuses a pure engine module and records it there.
    records = tempfile.mkdtemp(prefix="dealer-assist-pure-imports-")
    compiled_env = dict(app_environment(True, env), DEALER_ASSIST_EXPECT_COMPILED="1",
                        COMPILED_PASS_PURE_IMPORTS=records, PYTHONSAFEPATH="1")
    compiled_env["PYTHONPATH"] = os.pathsep.join([str(GUARD), compiled_env["PYTHONPATH"]])
    pytest_bin = BIN / ("pytest.exe" if os.name == "nt" else "pytest")
    failed: list[str] = []
    started = time.monotonic()
    say(f"load average {os.getloadavg()[0]:.2f} at the start" if hasattr(os, "getloadavg") else "tests")

    def step(name: str, cmd: list[str], step_env: Mapping[str, str]) -> int:
        say(name)
        began = time.monotonic()
        code = subprocess.run(cmd, cwd=ROOT, env=step_env).returncode
        say(f"{name}: {time.monotonic() - began:.0f} s" + ("" if code == 0 else f", exit {code}"))
        if code == 5 and "pytest" in name:
            say("pytest collected no tests: that is a failure")
        if code != 0:
            failed.append(name)
        return code

    missing = missing_c_toolchain()
    # Beside ruff, mypy and the pure pass (which needs neither): the compile, then the packaged
    # build and check_build.sh on it (mostly downloads, PyInstaller's one core and a minute of
    # the built program's starts). Their output goes to logs, shown once they end. (No PYTHON
    # for them: build.sh takes python3.11 for its venv, check_build.sh the project's .venv.)
    background: dict[str, int] = {}
    package = os.environ.get(PACKAGE_VAR) != "0" and sys.platform.startswith("linux")

    def compile_then_package() -> None:
        background["compile"] = 1  # until it ran and passed
        try:
            COMPILE_LOG.parent.mkdir(parents=True, exist_ok=True)
            with open(COMPILE_LOG, "w", encoding="utf-8") as log:
                background["compile"] = subprocess.run([str(PY), str(COMPILE_ENGINE)], cwd=ROOT, env=env,
                                                       stdin=subprocess.DEVNULL, stdout=log,
                                                       stderr=subprocess.STDOUT).returncode
        finally:
            background["compiled at"] = round(time.monotonic() - started)
            compiled_event.set()
        if background["compile"] == 0 and package:
            background["package"], background["packaged at"] = 1, 0  # until it ran and passed
            with open(PACKAGE_LOG, "w", encoding="utf-8") as log:
                background["package"] = subprocess.run(
                    ["bash", "-c", "packaging/build.sh --clean && packaging/check_build.sh"], cwd=ROOT,
                    env={k: v for k, v in env.items() if k != "PYTHON"}, stdin=subprocess.DEVNULL, stdout=log,
                    stderr=subprocess.STDOUT).returncode
            background["packaged at"] = round(time.monotonic() - started)

    import threading

    compiled_event = threading.Event()
    worker = threading.Thread(target=compile_then_package, daemon=True)
    if missing:
        # Without a C compiler nothing can be compiled: the app runs the pure-Python engine,
        # which the pytest step tests. (A compile that fails for any other reason fails.)
        say(f"no {missing}: the compiled-engine pass and the packaged build are skipped "
            "(the app will run the pure-Python engine)")
    else:
        say("compile the engine (mypyc), then the packaged build and its check"
            + ("" if package else f" ({PACKAGE_VAR}=0 or not Linux: left out)")
            + f", beside the steps below (logs {COMPILE_LOG.relative_to(ROOT)}, {PACKAGE_LOG.relative_to(ROOT)})")
        worker.start()
    step("ruff", [str(PY), "-m", "ruff", "check", "dealer_assist", "hardware", "ui", "tests", "scripts",
                  "packaging"], env)
    step("mypy --strict", [str(PY), "-m", "mypy", "--strict", "dealer_assist", "hardware", "ui"], env)
    # With a compiler, the service's and screens' tests wait for the compiled pass (COMPILED_ONLY)
    left_out = [] if missing or extra else [f"--ignore={path}" for path in compiled_only_files()]
    step("pytest", [str(PY), "-m", "pytest", *parallel, "--durations=25", *left_out, *extra], env)
    if not missing:
        compiled_event.wait()
        print(COMPILE_LOG.read_text(errors="replace"), end="", flush=True)
        code = background["compile"]
        say(f"compile the engine (mypyc): done {background['compiled at']} s after the start"
            + ("" if code == 0 else f", exit {code}"))
        if code != 0:
            failed += ["compile the engine (mypyc)", COMPILED_STEP]
            if left_out:  # still run once, so that their results are known
                step("pytest: the service's and screens' tests on the pure-Python engine (no compiled one)",
                     [str(PY), "-m", "pytest", *parallel, "--durations=10", *compiled_only_files()], env)
        else:
            code = step(COMPILED_STEP,
                        [str(pytest_bin), *COMPILED_TESTS, *(f"--ignore={path}" for path in COMPILED_SKIPS),
                         *parallel, "--import-mode=importlib", "-p", "no:cacheprovider", "-q"], compiled_env)
            if os.listdir(records):
                say("a pure-Python engine module was imported on the compiled pass: "
                    + ", ".join(os.listdir(records)))
                if code == 0:
                    failed.append(COMPILED_STEP)
        worker.join()
    shutil.rmtree(records, ignore_errors=True)
    if "package" in background:
        code = background["package"]
        lines = PACKAGE_LOG.read_text(errors="replace").splitlines()
        shown = [line for line in lines if line.startswith(("[build] build time", "[build] folder size"))]
        shown += [line for line in lines if line.split(" ", 1)[0] in ("ok", "FAIL", "NOT")
                  or line.startswith("check_build")]
        print("\n".join(shown), flush=True)
        say(f"the packaged build and its check: done {background['packaged at']} s after the start, "
            + ("passed" if code == 0 else f"exit {code}; its log's end:"))
        if code != 0:
            print("\n".join(lines[-60:]), flush=True)
            failed.append("the packaged build and its check")
    load = f", load average {os.getloadavg()[0]:.2f} at the end" if hasattr(os, "getloadavg") else ""
    say(f"{time.monotonic() - started:.0f} s in all{load}")
    if failed:
        say("FAILED: " + ", ".join(failed))
        return 1
    say("all checks passed")
    return 0


def engine_up_to_date() -> bool:
    """True when build/compiled was built from the dealer_assist/*.py now in the tree
    (the digest scripts/compile_engine.py stamps its build with)."""
    spec = importlib.util.spec_from_file_location("compile_engine", COMPILE_ENGINE)
    assert spec is not None and spec.loader is not None
    compile_engine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compile_engine)
    stamp: Path = compile_engine.STAMP
    return stamp.exists() and stamp.read_text() == compile_engine.sources_digest()


COMPILE_LOG = ROOT / "build" / "compile-engine.log"
COMPILE_LOCK = ROOT / "build" / ".compile-engine.lock"


def compile_in_background() -> int | None:
    """Start scripts/compile_engine.py as a detached process (its own session, output to
    build/compile-engine.log) unless one already runs; its PID, or None when one was running.
    The compile holds build/.compile-engine.lock (flock, inherited) until it exits."""
    import fcntl

    COMPILE_LOCK.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(COMPILE_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None  # a compile is under way
        with open(COMPILE_LOG, "w", encoding="utf-8") as log:
            child = subprocess.Popen([str(PY), str(COMPILE_ENGINE)], cwd=ROOT, stdin=subprocess.DEVNULL,
                                     stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                     pass_fds=(fd,), preexec_fn=lambda: os.nice(10))  # the window first
        return child.pid
    finally:
        os.close(fd)  # the child keeps the lock until it exits


def compile_engine() -> bool:
    """True if the app may run the compiled engine now: build/compiled was built from the
    dealer_assist/*.py in the tree (its digest matches). Otherwise the app starts at once on
    the pure-Python engine, which behaves the same, and the compile runs in the background
    for the next start. DEALER_ASSIST_PURE_PYTHON=1 skips it; a stale build is never used."""
    if os.environ.get(PURE_PYTHON_VAR) == "1":
        say(f"{PURE_PYTHON_VAR}=1: running the pure-Python engine")
        return False
    if engine_up_to_date():
        say(f"running the compiled engine ({COMPILED.relative_to(ROOT)})")
        return True
    missing = missing_c_toolchain()
    if missing or os.name != "posix":
        say(f"no {missing or 'background compile here'}: running the pure-Python engine")
        return False
    log = COMPILE_LOG.relative_to(ROOT)
    if COMPILE_LOG.exists() and "[compile] mypyc failed" in COMPILE_LOG.read_text(errors="replace"):
        say(f"the last engine compile failed (its log: {log}); trying again")
    pid = compile_in_background()
    if pid is None:
        say(f"the engine compile is still running (log {log}): this start runs the pure-Python engine")
    else:
        say(f"compiling the rules engine with mypyc in the background (pid {pid}, log {log}; "
            "2-6 min on 2 cores, ~100 s of CPU): this start runs the pure-Python engine, "
            "the next start after it finishes the compiled one")
    return False


def app_environment(compiled: bool, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The app's environment: with the compiled engine, build/compiled and the checkout
    come first on PYTHONPATH (before any PYTHONPATH already set, and before the editable
    install in site-packages), so `dealer_assist` is imported from build/compiled."""
    env = dict(os.environ if base is None else base)
    if compiled:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(COMPILED), str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def app_command(args: list[str]) -> list[str]:
    """The venv's `dealer-assist` console script. (Not `python -m dealer_assist`: run from
    the checkout, that puts the checkout before PYTHONPATH and the sources would shadow
    build/compiled.)"""
    return [str(BIN / ("dealer-assist.exe" if os.name == "nt" else "dealer-assist")), *args]


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("app", "test", "setup"):
        print(__doc__)
        return 2
    ensure_system_libraries()
    ensure_venv()
    if argv[0] == "setup":
        return 0
    if argv[0] == "test":
        ensure_postgres_server()
        return run_tests(argv[1:])
    env = app_environment(compile_engine())
    return run_app(argv[1:], env)


def run_app(args: list[str], env: dict[str, str]) -> int:
    """The README's first command: the installed `dealer-assist` with ``args``. With no station
    configuration it starts this account's station service and the screen as its client, and
    stops the service when the screen closes; on a configured station it refuses the
    development switches, naming the file (ui/dealer/app.py)."""
    return subprocess.run(app_command(args), cwd=ROOT, env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
