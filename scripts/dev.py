#!/usr/bin/env python3
"""Set up the project and run it: `python3 scripts/dev.py app` or `python3 scripts/dev.py test`.

Needs only Python 3.11+ and pip. Creates ./.venv, installs the project with its
development extras (again only when pyproject.toml changed), makes sure the
system libraries Qt needs are present (Debian/Ubuntu, when run as root), then
starts the app or runs the whole check: ruff, mypy --strict, pytest.

`app` runs the rules engine compiled with mypyc (scripts/compile_engine.py, into
build/compiled; rebuilt only when a dealer_assist/*.py changed). If the compile fails,
the app runs the pure-Python engine, which behaves the same; DEALER_ASSIST_PURE_PYTHON=1
skips the compile.
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
    subprocess.run([str(PY), "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
    # Every tool at the version and hash of the lock file, then the project itself (editable,
    # its dependencies already there from the lock).
    subprocess.run([str(PY), "-m", "pip", "install", "-q", "--require-hashes", "-r", str(DEV_LOCK)], check=True)
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
GUARD = ROOT / "tests" / "compiled_guard"


def pytest_workers() -> int:
    """pytest-xdist workers: one per core this process may run on (DEALER_ASSIST_TEST_WORKERS
    to choose)."""
    chosen = os.environ.get("DEALER_ASSIST_TEST_WORKERS", "")
    if chosen.isdigit() and int(chosen) > 0:
        return int(chosen)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, cores)


def missing_c_toolchain() -> str | None:
    """What mypyc would lack to build the engine here: a C compiler or Python's headers."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"C compiler ({compiler})"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "Python.h (the Python development headers)"
    return None


def run_tests(extra: list[str]) -> int:
    """ruff, mypy --strict, pytest (in parallel workers), then the engine's tests again on the
    mypyc-compiled engine (the one the app and the packaged build run); every step runs, the
    exit status is 0 only if all passed."""
    import tempfile

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONDONTWRITEBYTECODE="1")
    # loadgroup: the tests marked xdist_group run in one worker (tests/station_day)
    parallel = ["-n", str(pytest_workers()), "--dist", "loadgroup"]
    steps = [
        ("ruff", [str(PY), "-m", "ruff", "check", "dealer_assist", "hardware", "ui", "tests", "scripts", "packaging"]),
        ("mypy --strict", [str(PY), "-m", "mypy", "--strict", "dealer_assist", "hardware", "ui"]),
        ("pytest", [str(PY), "-m", "pytest", *parallel, *extra]),
    ]
    # The engine compiled with mypyc (build/compiled) must pass the same tests: engine, store,
    # the dealer's screen and review all run on it in the app. Every process of that pass
    # (PYTHONSAFEPATH: `python -m` from the checkout does not put the sources first) loads
    # tests/compiled_guard, which refuses a pure engine module and records it there.
    records = tempfile.mkdtemp(prefix="dealer-assist-pure-imports-")
    compiled_env = dict(app_environment(True, env), DEALER_ASSIST_EXPECT_COMPILED="1",
                        COMPILED_PASS_PURE_IMPORTS=records, PYTHONSAFEPATH="1")
    compiled_env["PYTHONPATH"] = os.pathsep.join([str(GUARD), compiled_env["PYTHONPATH"]])
    pytest_bin = BIN / ("pytest.exe" if os.name == "nt" else "pytest")
    missing = missing_c_toolchain()
    if missing:
        # Without a C compiler nothing can be compiled: the app runs the pure-Python engine,
        # which the pytest step above tested. (A compile that fails for any other reason fails.)
        say(f"no {missing}: the compiled-engine pass is skipped (the app will run the pure-Python engine)")
    else:
        steps += [
            ("compile the engine (mypyc)", [str(PY), "scripts/compile_engine.py"]),
            (COMPILED_STEP,
             [str(pytest_bin), *COMPILED_TESTS, *parallel, "--import-mode=importlib", "-p", "no:cacheprovider",
              "-q"]),
        ]
    failed = []
    for name, cmd in steps:
        if name == COMPILED_STEP and "compile the engine (mypyc)" in failed:
            failed.append(name)
            continue
        say(name)
        step_env = compiled_env if name == COMPILED_STEP else env
        code = subprocess.run(cmd, cwd=ROOT, env=step_env).returncode
        if code == 5 and name in ("pytest", COMPILED_STEP):
            say("pytest collected no tests: that is a failure")
        if name == COMPILED_STEP and os.listdir(records):
            say("a pure-Python engine module was imported on the compiled pass: " + ", ".join(os.listdir(records)))
            code = code or 1
        if code != 0:
            failed.append(name)
    shutil.rmtree(records, ignore_errors=True)
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


def compile_engine() -> bool:
    """Bring build/compiled up to date with the sources; True if the app may run it.

    False (run the pure-Python engine) when DEALER_ASSIST_PURE_PYTHON=1, when the compile
    fails, or when the sources changed again while it ran: a stale build is never used.
    """
    if os.environ.get(PURE_PYTHON_VAR) == "1":
        say(f"{PURE_PYTHON_VAR}=1: running the pure-Python engine")
        return False
    if not engine_up_to_date():
        say("compiling the rules engine with mypyc into build/compiled "
            "(about 70 s on 2 cores; again only when dealer_assist/*.py changes)")
    done = subprocess.run([str(PY), str(COMPILE_ENGINE)], cwd=ROOT)
    if done.returncode != 0:
        say("engine compile failed; running the pure-Python engine")
        return False
    if not engine_up_to_date():
        say("the engine sources changed during the compile; running the pure-Python engine")
        return False
    return True


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


# The screen's switches of a development run on an embedded store, without the service
# (benchmarks, a fixed store or shoe); refused on a configured station.
EMBEDDED_SWITCHES = ("--dealer", "--shoe", "--db", "--floor", "--game", "--settings")
SERVICE_SWITCHES = ("--sim-cards", "--sim-seed")  # for the service's simulated shoe


def station_config(env: Mapping[str, str]) -> str | None:
    """The station configuration the app would read (None: a development run)."""
    probe = ("import dealer_assist.service.station as st\n"
             "cfg = st.find_config()\n"
             "print(cfg.source if cfg is not None else '')")
    done = subprocess.run([str(PY), "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        return done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "an unreadable configuration"
    return done.stdout.strip() or None


def dev_socket(env: Mapping[str, str]) -> Path:
    """Where the development service listens (dealer_assist.service.client.dev_socket_path)."""
    runtime = env.get("XDG_RUNTIME_DIR")
    base = Path(runtime) / "dealer-assist" if runtime else Path(f"/tmp/dealer-assist-{os.getuid()}")
    return base / "station.sock"


def switch_given(args: list[str], names: tuple[str, ...]) -> list[str]:
    return [a.split("=", 1)[0] for a in args if a.split("=", 1)[0] in names]


def run_app(args: list[str], env: dict[str, str]) -> int:
    """The README's first command. On a configured station: the screen, a client of the
    station's service (development switches refused). With no configuration: the station
    service for this account (its local store, the simulated shoe) on a private socket, then
    the screen on it; the service stops when the screen closes."""
    config = station_config(env)
    embedded = switch_given(args, EMBEDDED_SWITCHES)
    if config is not None:
        if embedded or env.get("DEALER_ASSIST_DEV"):
            what = " ".join(embedded) or "DEALER_ASSIST_DEV"
            say(f"error: {what} is for development runs only: this is a station (configured by {config})")
            return 2
        return subprocess.run(app_command(args), cwd=ROOT, env=env).returncode
    if embedded:
        say(f"{' '.join(embedded)}: a development run on an embedded store (no station service)")
        return subprocess.run(app_command(args), cwd=ROOT, env=env).returncode
    sock = dev_socket(env)
    serve = app_command(["station", "serve", "--socket", str(sock)])
    screen_args: list[str] = []
    rest = iter(args)
    for arg in rest:  # the simulated shoe's switches go to the service
        name = arg.split("=", 1)[0]
        if name in SERVICE_SWITCHES:
            serve += [arg] if "=" in arg else [arg, next(rest, "")]
        else:
            screen_args.append(arg)
    say(f"starting the station service for this account (local store, SIMULATED SHOE) on {sock}")
    service = subprocess.Popen(serve, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert service.stdout is not None
        first = service.stdout.readline().strip()
        if not first.startswith("serving on"):
            service.wait(timeout=30)
            say(f"error: the station service did not start: {first or 'no answer'} (its log says why)")
            return 1
        return subprocess.run(app_command(["--socket", str(sock), *screen_args]), cwd=ROOT, env=env).returncode
    finally:
        if service.poll() is None:
            service.terminate()
            try:
                service.wait(timeout=15)
            except subprocess.TimeoutExpired:
                service.kill()
                service.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
