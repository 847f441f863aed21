"""Check the built folder dist/dealer-assist/ against the source tree (packaging/check_build.sh).

Runs with the project's Python (the source tree's ``dealer-assist``) and compares:

1. layout: the executable, the desktop entry, AppStream file, icons, udev rule, systemd unit,
   install.sh;
2. ``--version``: the built program prints pyproject.toml's version, as the source does;
3. contents: the only PySide6 modules are the ones the app uses, and every bundled shared
   library finds its dependencies (ldd);
4. every subcommand's ``--help`` is identical (they are imported by name);
   the rules engine: the built program runs the engine compiled with mypyc (``bench``
   says which; with DEALER_ASSIST_PURE_PYTHON=1, the pure-Python one build.sh was told to ship);
5. ``settle``: every example in ../shared/examples, plus a refused event, an unfinished
   round, a broken file and standard input, give byte-identical stdout, stderr and exit
   status from the built program and from the source tree;
6. the store: ``settle --record`` by the built program, ``history verify`` and
   ``history export`` read back by both, and the export settles to the same result;
   the built review window opens that store and draws a round (offscreen screenshot);
7. install.sh into a scratch DESTDIR, and the installed link runs;
8. the shoe: the built ``shoe-sim`` deals a known card on a pseudo-terminal and the
   built ``shoe-monitor`` reads it through pyserial; the built ``station check`` finds
   every part of a scratch station OK, the shoe answering ``ID?`` on that pty;
   the archive: dist/dealer-assist-VERSION-linux-ARCH.tar.gz holds exactly the folder;
9. the dealer's screen starts on the offscreen platform (simulated shoe, scratch store)
   and is still running after the start-up; with Xvfb and xwininfo available, it also
   starts on X11 and its window's WM_CLASS matches the desktop entry's StartupWMClass.

Prints one line per check and the time each took; exit 0 only if all passed.
"""

from __future__ import annotations

import configparser
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist" / "dealer-assist"
APP = DIST / "dealer-assist"
# The hand-worked example transcripts (../shared/examples beside the checkout, or
# DEALER_ASSIST_EXAMPLES=DIR).
EXAMPLES = Path(os.environ.get("DEALER_ASSIST_EXAMPLES", ROOT / ".." / "shared" / "examples")).resolve()
APP_ID = "com.dealerassist.DealerAssist"
# The PySide6 modules the app imports, and QtDBus, which QtGui and QtWidgets link on Linux;
# pyqtgraph (the pit review's charts, docs/floor.md) imports QtOpenGL(Widgets), QtSvg and QtTest.
QT_MODULES = {"QtCore", "QtGui", "QtWidgets", "QtDBus", "QtOpenGL", "QtOpenGLWidgets", "QtSvg", "QtTest"}
START_SECONDS = 6.0  # how long the dealer's screen must stay up


class CheckFailed(Exception):
    pass


def source_command() -> list[str]:
    return [sys.executable, "-m", "dealer_assist"]


def run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(cmd, capture_output=True, timeout=120, cwd=ROOT, **kwargs)  # type: ignore[call-overload, no-any-return]


def same_result(args: list[str], stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run ``args`` with the built program and the source tree; both must agree exactly."""
    built = run([str(APP), *args], input=stdin)
    source = run([*source_command(), *args], input=stdin)
    for what in ("returncode", "stdout", "stderr"):
        if getattr(built, what) != getattr(source, what):
            raise CheckFailed(
                f"dealer-assist {' '.join(args)}: {what} differs\n"
                f"  built : {getattr(built, what)!r:.400}\n  source: {getattr(source, what)!r:.400}"
            )
    if b"Traceback" in built.stderr:
        raise CheckFailed(f"dealer-assist {' '.join(args)}: traceback\n{built.stderr.decode()}")
    return built


def check_layout() -> str:
    wanted = [
        APP,
        DIST / "_internal",
        DIST / "install.sh",
        DIST / "CHANGELOG.md",
        DIST / "share" / "applications" / f"{APP_ID}.desktop",
        DIST / "share" / "metainfo" / f"{APP_ID}.metainfo.xml",
        DIST / "share" / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg",
        DIST / "share" / "icons" / "hicolor" / "256x256" / "apps" / f"{APP_ID}.png",
        DIST / "share" / "dealer-assist" / "udev" / "99-dealer-shoe.rules",
        DIST / "share" / "dealer-assist" / "systemd" / "dealer-assist.service",
    ]
    missing = [str(p.relative_to(DIST)) for p in wanted if not p.exists()]
    if missing:
        raise CheckFailed(f"missing from {DIST}: {', '.join(missing)}")
    if not os.access(APP, os.X_OK):
        raise CheckFailed(f"{APP} is not executable")
    rule = (DIST / "share" / "dealer-assist" / "udev" / "99-dealer-shoe.rules").read_bytes()
    if rule != (ROOT / "packaging" / "udev" / "99-dealer-shoe.rules").read_bytes():
        raise CheckFailed("the bundled udev rule differs from packaging/udev/99-dealer-shoe.rules")
    return f"{len(wanted)} files in place"


def check_version() -> str:
    with open(ROOT / "pyproject.toml", "rb") as f:
        version = tomllib.load(f)["project"]["version"]
    built = same_result(["--version"])
    if built.stdout.decode().strip() != f"dealer-assist {version}":
        raise CheckFailed(f"--version says {built.stdout!r}, pyproject.toml says {version}")
    # The version is read from the package metadata the spec copies (copy_metadata).
    bundled = sorted(p.name for p in (DIST / "_internal").glob("dealer_assist*-info"))
    if bundled != [f"dealer_assist-{version}.dist-info"]:
        raise CheckFailed(f"package metadata in the bundle: {bundled}, wanted dealer_assist-{version}.dist-info")
    metainfo = (DIST / "share" / "metainfo" / f"{APP_ID}.metainfo.xml").read_text(encoding="utf-8")
    if f'<release version="{version}"' not in metainfo:
        raise CheckFailed(f"the bundled metainfo has no release {version}")
    return f"dealer-assist {version}, as pyproject.toml, the bundled dist-info and the metainfo release say"


def check_contents() -> str:
    internal = DIST / "_internal"
    modules = {p.name.split(".")[0] for p in (internal / "PySide6").glob("Qt*.abi3.so")}
    if modules != QT_MODULES:
        raise CheckFailed(f"PySide6 modules bundled: {sorted(modules)}, wanted {sorted(QT_MODULES)}")
    for unwanted in ("pytest", "hypothesis", "mypy", "PyInstaller", "tkinter"):
        if any(internal.glob(f"{unwanted}*")) or any(internal.glob(f"lib/python*/{unwanted}*")):
            raise CheckFailed(f"{unwanted} was bundled")
    if shutil.which("ldd") is None:
        return f"PySide6 modules {sorted(modules)} (ldd not found: library dependencies not checked)"
    env = dict(os.environ, LD_LIBRARY_PATH=f"{internal}:{internal / 'PySide6' / 'Qt' / 'lib'}")
    unresolved: list[str] = []
    from_system: dict[str, set[str]] = {}  # soname -> bundled libraries that load it from the system
    libraries = [p for p in internal.rglob("*.so*") if p.is_file() and not p.is_symlink()]
    for lib in libraries:
        out = subprocess.run(["ldd", str(lib)], capture_output=True, text=True, env=env).stdout
        for line in out.splitlines():
            name, _, where = line.strip().partition(" => ")
            if "not found" in where:
                unresolved.append(f"{lib.relative_to(internal)}: {name}")
            elif where.startswith("/") and not where.startswith(str(internal)):
                from_system.setdefault(name, set()).add(str(lib.relative_to(internal)))
    if unresolved:
        raise CheckFailed("libraries with unresolved dependencies:\n  " + "\n  ".join(unresolved[:20]))
    # A dependency found only on this machine is fine if PyInstaller leaves it to the system
    # on purpose (libc, libGL, libxcb, ...); one it would bundle was pruned by mistake.
    should_bundle = pyinstaller_would_bundle(sorted(from_system))
    if should_bundle is None:
        return (f"PySide6 modules {sorted(modules)}; {len(libraries)} shared libraries resolve "
                "(no PyInstaller here to tell system libraries from missing ones)")
    if should_bundle:
        raise CheckFailed("bundled libraries load these from the system, which the bundle should hold:\n  "
                          + "\n  ".join(f"{n} (needed by {', '.join(sorted(from_system[n])[:3])}, ...)" for n in should_bundle))
    return (f"PySide6 modules {sorted(modules)}; {len(libraries)} shared libraries resolve, "
            f"{len(from_system)} system libraries used are ones PyInstaller leaves to the system")


def pyinstaller_would_bundle(sonames: list[str]) -> list[str] | None:
    """Those of ``sonames`` PyInstaller collects (not on its list of system libraries)."""
    for python in (ROOT / "build" / "venv" / "bin" / "python", Path(sys.executable)):
        code = ("import json, sys; from PyInstaller.depend.dylib import include_library; "
                "print(json.dumps([n for n in json.load(sys.stdin) if include_library(n)]))")
        if python.exists():
            done = subprocess.run([str(python), "-c", code], input=json.dumps(sonames), capture_output=True, text=True)
            if done.returncode == 0:
                return list(json.loads(done.stdout))
    return None


def check_commands() -> str:
    """Every subcommand loads in the built program (they are imported by name)."""
    from dealer_assist.cli import SUBCOMMANDS

    for name in SUBCOMMANDS:
        if same_result([name, "--help"]).returncode != 0:
            raise CheckFailed(f"dealer-assist {name} --help failed")
    return f"{len(SUBCOMMANDS)} subcommands: --help identical to the source tree's"


def check_engine() -> str:
    """The built program runs the rules engine compiled with mypyc: ``bench`` names the engine
    it measures on its first line. (DEALER_ASSIST_PURE_PYTHON=1: the pure-Python one.)"""
    want = "pure" if os.environ.get("DEALER_ASSIST_PURE_PYTHON") == "1" else "compiled"
    done = run([str(APP), "bench", "--rounds", "50"])
    out = done.stdout.decode()
    first = out.splitlines()[0] if out else ""
    if done.returncode != 0 or b"Traceback" in done.stderr:
        raise CheckFailed(f"dealer-assist bench failed ({done.returncode}):\n{done.stderr.decode()}")
    if not first.startswith(f"engine: {want}"):
        raise CheckFailed(f"bench says {first!r}, wanted 'engine: {want} ...'"
                          + (" (did build.sh say the engine compile failed?)" if want == "compiled" else ""))
    internal = DIST / "_internal"
    # where mypyc puts them: dealer_assist/engine/table.cpython-311-....so for engine/table
    package = internal / "dealer_assist"
    compiled = sorted(p.relative_to(package).as_posix().split(".")[0] for p in package.rglob("*.so"))
    runtime = sorted(p.name for p in internal.glob("*__mypyc*.so"))
    missing = sorted(set(compiled_modules()) - set(compiled))
    if want == "compiled" and (not runtime or missing):
        raise CheckFailed(f"compiled modules missing from the bundle: {missing} (found {compiled}), "
                          f"mypyc runtime: {runtime}")
    speed = re.search(r"([\d,]+) rounds/s", out)
    figure = f"; bench --rounds 50, set-up (a): {speed.group(1)} rounds/s" if speed else ""
    if want == "pure":
        return f"bench: pure-Python engine, as DEALER_ASSIST_PURE_PYTHON=1 asks{figure}"
    return (f"bench: compiled with mypyc, {len(compiled)} extension modules (all "
            f"{len(compiled_modules())} of scripts/compile_engine.py) + {runtime[0]}{figure}")


def compiled_modules() -> tuple[str, ...]:
    """scripts/compile_engine.py's MODULES: "engine/table", "games/__init__", ..."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("compile_engine", ROOT / "scripts" / "compile_engine.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return tuple(module.MODULES)


def check_shoe(scratch: Path) -> str:
    """The built shoe-sim deals a known card; the built shoe-monitor reads it through pyserial."""
    cards = scratch / "cards.txt"
    cards.write_text("7H 8S\n")
    sim = subprocess.Popen([str(APP), "shoe-sim", "--game", "lucky8", "--cards", str(cards)],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    monitor: subprocess.Popen[str] | None = None
    try:
        assert sim.stdout is not None and sim.stdin is not None
        port = sim.stdout.readline().strip()
        if not port.startswith("/dev/"):
            raise CheckFailed(f"shoe-sim printed {port!r} for its port")
        monitor = subprocess.Popen([str(APP), "shoe-monitor", port], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        time.sleep(2.0)  # the driver opens the port and asks the shoe who it is
        sim.stdin.write("\n")  # an empty line deals the next card: 7H
        sim.stdin.flush()
        dealt = sim.stdout.readline().strip()
        time.sleep(1.5)
        monitor.send_signal(signal.SIGTERM)
        out, err = monitor.communicate(timeout=20)
    finally:
        if monitor is not None and monitor.poll() is None:
            monitor.kill()
        sim.kill()
        sim.communicate()
    events = [json.loads(line) for line in out.splitlines()]
    cards_read = [e["card"] for e in events if e.get("event") == "card"]
    if dealt != "card 7H" or cards_read != ["7H"] or "Traceback" in err:
        raise CheckFailed(f"shoe-sim said {dealt!r}; shoe-monitor read {cards_read} ({err.strip()!r})")
    return f"shoe-sim on {port} dealt 7H; shoe-monitor read {len(events)} events, the card 7H"


def check_station(scratch: Path) -> str:
    """The built ``station check`` on a scratch station: the built shoe-sim's pty as its shoe,
    a store recorded by the built program. Every part OK, exit 0."""
    store = scratch / "table.db"
    example = sorted(EXAMPLES.glob("*.json"))[0]
    recorded = run([str(APP), "settle", str(example), "--record", str(store)])
    if recorded.returncode != 0:
        raise CheckFailed(f"settle --record: {recorded.stderr.decode()}")
    sim = subprocess.Popen([str(APP), "shoe-sim", "--game", "lucky8", "--seed", "1"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert sim.stdout is not None
        port = sim.stdout.readline().strip()
        config = scratch / "station.toml"
        config.write_text(f'[table]\nname = "check"\n[shoe]\nport = "{port}"\n[store]\npath = "{store}"\n')
        done = run([str(APP), "station", "check", "--config", str(config)])
    finally:
        sim.kill()
        sim.communicate()
    out = done.stdout.decode()
    if done.returncode != 0 or "answers ID?" not in out or not out.rstrip().endswith("station ready"):
        raise CheckFailed(f"station check exited {done.returncode}:\n{out}{done.stderr.decode()}")
    return f"station check: every part OK, the shoe on {port} answered ID?"


def check_archive() -> str:
    """build.sh's archive holds exactly dist/dealer-assist/ under dealer-assist/."""
    import tarfile

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    archive = ROOT / "dist" / f"dealer-assist-{version}-linux-{os.uname().machine}.tar.gz"
    if not archive.exists():
        raise CheckFailed(f"{archive} does not exist: build.sh makes it")
    with tarfile.open(archive) as tar:
        names = {m.name for m in tar.getmembers() if m.isfile() or m.issym()}
        owners = {(m.uid, m.gid) for m in tar.getmembers()}
    folder = {f"dealer-assist/{p.relative_to(DIST).as_posix()}" for p in DIST.rglob("*")
              if p.is_file() or p.is_symlink()}
    if names != folder:
        raise CheckFailed(f"{archive.name} and {DIST} differ: {sorted(names ^ folder)[:5]}")
    if owners != {(0, 0)}:
        raise CheckFailed(f"{archive.name}: owners {owners}, wanted root (0, 0)")
    return f"{archive.name}: {len(names)} files, the same as {DIST.name}/ ({archive.stat().st_size:,} bytes)"


def check_settle(scratch: Path) -> str:
    examples = sorted(EXAMPLES.glob("*.json"))
    if not examples:
        raise CheckFailed(f"no examples in {EXAMPLES}")
    for example in examples:
        built = same_result(["settle", str(example)])
        if built.returncode != 0 or json.loads(built.stdout)["status"] != "settled":
            raise CheckFailed(f"{example.name}: not settled by the built program")
    # A refused event (a wager after "no more bets", 5.3), an unfinished round, a broken
    # file, a missing file, and a transcript on standard input.
    doc = json.loads(examples[0].read_text(encoding="utf-8"))
    events = doc["events"]
    closed = next(i for i, e in enumerate(events) if e["type"] == "no_more_bets")
    late = scratch / "late-wager.json"
    late.write_text(json.dumps(dict(doc, events=[*events[: closed + 1], events[0], *events[closed + 1 :]])))
    unfinished = scratch / "unfinished.json"
    unfinished.write_text(json.dumps(dict(doc, events=events[: closed + 2])))
    broken = scratch / "broken.json"
    broken.write_text('{"game": "lucky8", "events": [')
    refused = same_result(["settle", str(late)])
    if refused.returncode != 2 or not refused.stderr.startswith(b"error: event"):
        raise CheckFailed(f"a late wager was not refused: {refused.stderr!r}")
    if same_result(["settle", str(unfinished)]).returncode != 0:
        raise CheckFailed("an unfinished round did not print its state")
    for bad in (broken, scratch / "missing.json"):
        if same_result(["settle", str(bad)]).returncode != 2:
            raise CheckFailed(f"{bad.name}: not refused with exit status 2")
    same_result(["settle", "-"], stdin=examples[0].read_bytes())
    return f"{len(examples)} examples and 5 other inputs: identical output, status and errors"


def check_store(scratch: Path) -> str:
    examples = sorted(EXAMPLES.glob("*.json"))
    db = scratch / "table.db"
    for example in examples:
        recorded = run([str(APP), "settle", "--record", str(db), str(example)])
        if recorded.returncode != 0:
            raise CheckFailed(f"settle --record {example.name}: {recorded.stderr.decode()}")
    for cmd in ([str(APP)], source_command()):
        verify = run([*cmd, "history", "--db", str(db), "verify"])
        if verify.returncode != 0:
            raise CheckFailed(f"history verify by {cmd[0]}: {verify.stdout.decode()}{verify.stderr.decode()}")
    for round_id, example in enumerate(examples, start=1):
        export = same_result(["history", "--db", str(db), "export", str(round_id)])
        exported = scratch / f"export-{round_id}.json"
        exported.write_bytes(export.stdout)
        again = run([*source_command(), "settle", str(exported)])
        original = run([*source_command(), "settle", str(example)])
        if again.stdout != original.stdout:
            raise CheckFailed(f"round {round_id} exported by the built program settles differently from {example.name}")
    # The supervisor's review window opens that store and draws round 1 (offscreen).
    shot = scratch / "review.png"
    review = run([str(APP), "review", "--db", str(db), "--round", "1", "--screenshot", str(shot)],
                 env=dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(scratch), DEALER_ASSIST_DEV="1"))
    if review.returncode != 0 or not shot.exists() or shot.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
        raise CheckFailed(f"the review window did not draw round 1: {review.stderr.decode()}")
    return (f"{len(examples)} rounds recorded by the built program; verify and export agree with the "
            f"source; the review window drew round 1 ({shot.stat().st_size} bytes of PNG)")


def check_install(scratch: Path) -> str:
    root = scratch / "root"
    env = dict(os.environ, DESTDIR=str(root))
    done = subprocess.run([str(DIST / "install.sh")], capture_output=True, text=True, env=env, timeout=120)
    if done.returncode != 0:
        raise CheckFailed(f"install.sh: {done.stderr}")
    desktop = root / "usr/local/share/applications" / f"{APP_ID}.desktop"
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(desktop)
    if entry["Desktop Entry"]["Exec"] != "/opt/dealer-assist/dealer-assist":
        raise CheckFailed(f"installed menu entry runs {entry['Desktop Entry']['Exec']!r}")
    for path in ("opt/dealer-assist/dealer-assist", "etc/udev/rules.d/99-dealer-shoe.rules",
                 "etc/systemd/system/dealer-assist.service",
                 f"usr/local/share/metainfo/{APP_ID}.metainfo.xml",
                 f"usr/local/share/icons/hicolor/48x48/apps/{APP_ID}.png"):
        if not (root / path).exists():
            raise CheckFailed(f"install.sh did not install /{path}")
    # The command link points at /opt (absent here): run the installed copy through a
    # link of its own, as /usr/local/bin/dealer-assist would.
    link = scratch / "dealer-assist-link"
    link.symlink_to(root / "opt/dealer-assist/dealer-assist")
    via_link = run([str(link), "--version"])
    if via_link.returncode != 0 or via_link.stdout != run([str(APP), "--version"]).stdout:
        raise CheckFailed(f"the installed program, run through a link: {via_link.stderr.decode()}")
    removed = subprocess.run([str(DIST / "install.sh"), "--uninstall"], capture_output=True, text=True,
                             env=env, timeout=120)
    # the station's configuration is kept on purpose (install.sh --uninstall keeps the station)
    left = [p for p in root.rglob("*") if p.is_file() and p != root / "etc/dealer-assist/station.toml"]
    if removed.returncode != 0 or left:
        raise CheckFailed(f"install.sh --uninstall left {[str(p) for p in left]} {removed.stderr}")
    return "installed into a DESTDIR, ran through a link, uninstalled cleanly"


def start_screen(scratch: Path, name: str, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], float]:
    """Start the dealer's screen; return it once its store exists and it has run START_SECONDS."""
    home = scratch / name
    home.mkdir()
    # no station configuration: the build starts this account's station service (its own
    # store under the data directory, the simulated shoe), then the screen as its client
    env = dict(env, HOME=str(home), XDG_RUNTIME_DIR=str(home), XDG_DATA_HOME=str(home / "data"))
    for name in ("DEALER_ASSIST_DEV", "DEALER_ASSIST_SOCKET", "DEALER_ASSIST_CONFIG"):
        env.pop(name, None)
    db = home / "data" / "dealer-assist" / "table.db"
    proc = subprocess.Popen(
        [str(APP), "--sim-seed", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=home,
    )
    started = time.monotonic()
    store_seen: float | None = None
    while time.monotonic() - started < 60:
        if proc.poll() is not None:
            raise CheckFailed(f"the dealer's screen ({name}) exited with {proc.returncode}:\n{proc.stderr.read().decode() if proc.stderr else ''}")
        if store_seen is None and db.exists():
            store_seen = time.monotonic() - started
        if store_seen is not None and time.monotonic() - started >= store_seen + START_SECONDS:
            return proc, store_seen
        time.sleep(0.2)
    proc.kill()
    raise CheckFailed(f"the dealer's screen ({name}) did not open its store within 60 s")


def stop_screen(proc: subprocess.Popen[bytes]) -> str:
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    text = err.decode(errors="replace")
    if "Traceback" in text:
        raise CheckFailed(f"the dealer's screen wrote a traceback:\n{text}")
    return text


def check_screen_offscreen(scratch: Path) -> str:
    proc, store_seen = start_screen(scratch, "offscreen", dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    stop_screen(proc)
    return f"store opened after {store_seen:.1f} s, still running {START_SECONDS:.0f} s later, no traceback"


def check_screen_x11(scratch: Path) -> str:
    if not (shutil.which("Xvfb") and shutil.which("xwininfo")):
        return "NOT RUN: needs Xvfb and xwininfo (apt-get install xvfb x11-utils)"
    display = f":{90 + os.getpid() % 100}"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb")
        proc, _ = start_screen(scratch, "x11", env)
        try:
            tree = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True, text=True,
                                  env=env, timeout=30).stdout
        finally:
            stop_screen(proc)
    finally:
        xvfb.terminate()
        xvfb.wait(timeout=10)
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(DIST / "share" / "applications" / f"{APP_ID}.desktop")
    wm_class = entry["Desktop Entry"]["StartupWMClass"]
    windows = re.findall(r'"Dealer Assist[^"]*": \("([^"]*)" "([^"]*)"\)', tree)
    if not windows:
        raise CheckFailed(f"no Dealer Assist window on the X display:\n{tree}")
    if any(cls != wm_class for _, cls in windows):
        raise CheckFailed(f"window class {windows} does not match StartupWMClass={wm_class}")
    return f"window on X11 with WM_CLASS {windows[0]}, matching StartupWMClass={wm_class}"


def main() -> int:
    if not APP.exists():
        print(f"check_build: {APP} does not exist: run packaging/build.sh first", file=sys.stderr)
        return 1
    checks: list[tuple[str, Callable[[Path], str]]] = [
        ("layout", lambda _: check_layout()),
        ("version", lambda _: check_version()),
        ("contents", lambda _: check_contents()),
        ("commands", lambda _: check_commands()),
        ("engine", lambda _: check_engine()),
        ("settle", check_settle),
        ("store", check_store),
        ("install", check_install),
        ("shoe", check_shoe),
        ("station check", check_station),
        ("archive", lambda _: check_archive()),
        ("screen (offscreen)", check_screen_offscreen),
        ("screen (X11)", check_screen_x11),
    ]
    failed = 0
    begun = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="dealer-assist-check-") as tmp:
        for name, check in checks:
            scratch = Path(tmp) / re.sub(r"\W+", "-", name)
            scratch.mkdir()
            t0 = time.monotonic()
            try:
                result = check(scratch)
                print(f"ok    {name:20} {time.monotonic() - t0:5.1f} s  {result}", flush=True)
            except (CheckFailed, OSError, subprocess.SubprocessError, ValueError, KeyError) as exc:
                failed += 1
                print(f"FAIL  {name:20} {time.monotonic() - t0:5.1f} s  {exc}", flush=True)
    total = time.monotonic() - begun
    print(f"check_build: {len(checks) - failed} of {len(checks)} checks passed in {total:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
