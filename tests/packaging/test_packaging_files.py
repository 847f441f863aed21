"""The packaging files, checked without building (the build is packaging/check_build.sh).

Desktop entry, AppStream metainfo, icons, the PyInstaller spec's entry point and its
compiled engine, the CHANGELOG entry for the version, assemble.py + install.sh on a
stand-in build, and how scripts/dev.py starts the app on the compiled engine.
"""

from __future__ import annotations

import ast
import configparser
import importlib.util
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import time
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dealer_assist.service import station

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
APP_ID = "com.dealerassist.DealerAssist"
DESKTOP = PACKAGING / "linux" / f"{APP_ID}.desktop"
METAINFO = PACKAGING / "linux" / f"{APP_ID}.metainfo.xml"

_spec = importlib.util.spec_from_file_location("packaging_assemble", PACKAGING / "assemble.py")
assert _spec is not None and _spec.loader is not None
assemble = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(assemble)

_dev_spec = importlib.util.spec_from_file_location("scripts_dev", ROOT / "scripts" / "dev.py")
assert _dev_spec is not None and _dev_spec.loader is not None
dev = importlib.util.module_from_spec(_dev_spec)
_dev_spec.loader.exec_module(dev)


def pyproject() -> dict[str, object]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def desktop_entry(path: Path = DESKTOP) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    assert parser.sections() == ["Desktop Entry"]
    return dict(parser["Desktop Entry"])


def test_desktop_entry_runs_the_console_script_and_matches_the_window_class() -> None:
    entry = desktop_entry()
    scripts = pyproject()["project"]["scripts"]  # type: ignore[index]
    # Exec/TryExec name the `dealer-assist` command; install.sh makes them absolute.
    assert entry["Exec"] == "dealer-assist" and "dealer-assist" in scripts
    assert entry["TryExec"] == "dealer-assist"
    assert entry["Type"] == "Application" and entry["Terminal"] == "false"
    assert entry["Name"] == "Dealer Assist"
    # Qt on X11 sets WM_CLASS to (argv[0]'s name, QCoreApplication.applicationName());
    # ui/dealer/app.py names the application "dealer-assist", and so is the executable.
    assert entry["StartupWMClass"] == "dealer-assist"
    assert entry["Icon"] == APP_ID
    assert entry["Categories"].endswith(";") and "Office" in entry["Categories"].split(";")
    if shutil.which("desktop-file-validate"):  # the freedesktop.org validator, where installed
        done = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True)
        assert done.returncode == 0 and done.stdout == "", done.stdout


def test_desktop_entry_keys_are_known_to_the_specification() -> None:
    # Desktop Entry Specification 1.4, recognised keys (extensions must start with X-).
    known = {
        "Type", "Version", "Name", "GenericName", "NoDisplay", "Comment", "Icon", "Hidden",
        "OnlyShowIn", "NotShowIn", "DBusActivatable", "TryExec", "Exec", "Path", "Terminal",
        "Actions", "MimeType", "Categories", "Implements", "Keywords", "StartupNotify",
        "StartupWMClass", "URL", "PrefersNonDefaultGPU",
    }
    entry = desktop_entry()
    assert {k for k in entry if not k.startswith("X-")} <= known
    assert entry["Version"] == "1.4"


def test_metainfo_names_the_desktop_entry_icon_and_command() -> None:
    component = ET.parse(METAINFO).getroot()
    assert component.tag == "component" and component.get("type") == "desktop-application"
    assert component.findtext("id") == APP_ID
    launchable = component.find("launchable")
    assert launchable is not None and launchable.get("type") == "desktop-id"
    assert launchable.text == DESKTOP.name
    assert component.findtext("icon") == desktop_entry()["Icon"]
    assert component.findtext("provides/binary") == "dealer-assist"
    assert component.findtext("metadata_license") == "CC0-1.0"
    # The licence pyproject states (Proprietary) is an SPDX LicenseRef in AppStream.
    assert pyproject()["project"]["license"] == "LicenseRef-Proprietary"  # type: ignore[index]  (SPDX, PEP 639)
    assert component.findtext("project_license") == "LicenseRef-proprietary"
    games = [li.text for li in component.findall("description/ul/li")]
    assert games == ["Blackjack Ace Race", "Blackjack Lucky 8", "Star Elements Blackjack",
                     "Dueling 8's 21+", "Electronic Blackjack"]
    # assemble.py writes the release; the template must not carry a second one.
    assert component.find("releases") is None


def test_metainfo_release_is_the_pyproject_version_dated_from_the_changelog(tmp_path: Path) -> None:
    version = assemble.project_version()
    assert version == pyproject()["project"]["version"]  # type: ignore[index]
    date = assemble.release_date(version)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", date)
    stamped = assemble.metainfo_with_release(METAINFO.read_text(encoding="utf-8"), version, date)
    releases = ET.fromstring(stamped).findall("releases/release")
    assert [(r.get("version"), r.get("date")) for r in releases] == [(version, date)]
    if shutil.which("appstreamcli"):
        out = tmp_path / METAINFO.name
        out.write_text(stamped, encoding="utf-8")
        done = subprocess.run(["appstreamcli", "validate", "--no-net", str(out)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_release_date_comes_from_the_changelog_section(tmp_path: Path) -> None:
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text("# Changelog\n\n## [Unreleased]\n\n## [1.2.0] - 2027-01-31\n\n## [1.1.0] - 2026-12-01\n")
    assert assemble.release_date("1.1.0", changelog) == "2026-12-01"
    assert assemble.release_date("1.2.0", changelog) == "2027-01-31"
    with pytest.raises(assemble.AssembleError, match=r"no section '## \[1\.3\.0\]"):
        assemble.release_date("1.3.0", changelog)
    with pytest.raises(assemble.AssembleError, match="no section"):
        assemble.release_date("1.2", changelog)  # 1.2 is not 1.2.0


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_icons_have_the_sizes_their_names_say() -> None:
    for size in assemble.ICON_SIZES:
        assert png_size(PACKAGING / "icons" / f"dealer-assist-{size}.png") == (size, size)
    svg = ET.parse(PACKAGING / "icons" / "dealer-assist.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg" and svg.get("viewBox") == "0 0 256 256"


def test_spec_freezes_the_console_script_entry_point() -> None:
    scripts = pyproject()["project"]["scripts"]  # type: ignore[index]
    assert scripts["dealer-assist"] == "dealer_assist.cli:main"
    entry = (PACKAGING / "entry.py").read_text(encoding="utf-8")
    assert "from dealer_assist.cli import main" in entry and "sys.exit(main())" in entry
    spec = (PACKAGING / "dealer-assist.spec").read_text(encoding="utf-8")
    assert '"packaging" / "entry.py"' in spec
    assert 'APP = "dealer-assist"' in spec and "name=APP" in spec
    # The version is read from metadata at run time: the spec must bundle it, and the
    # subcommands (imported by name) must be listed for PyInstaller.
    assert 'copy_metadata("dealer-assist")' in spec
    assert "from dealer_assist.cli import SUBCOMMANDS" in spec
    assert '"PySide6.QtNetwork"' in spec


def test_spec_freezes_the_compiled_engine_from_build_compiled_first() -> None:
    spec = (PACKAGING / "dealer-assist.spec").read_text(encoding="utf-8")
    # build/compiled before the checkout, so its dealer_assist (extension modules) is frozen.
    assert 'COMPILED = ROOT / "build" / "compiled"' in spec
    assert "PATHEX = [str(COMPILED), str(ROOT)] if USE_COMPILED else [str(ROOT)]" in spec
    assert "pathex=PATHEX," in spec
    # Only a build of today's sources (compile_engine.py's stamp), never a stale one.
    assert "compile_engine.sources_digest()" in spec
    assert 'os.environ.get("DEALER_ASSIST_ENGINE") == "pure"' in spec
    assert "hiddenimports += compiled_engine_imports()" in spec
    build = (PACKAGING / "build.sh").read_text(encoding="utf-8")
    assert "scripts/compile_engine.py" in build and "DEALER_ASSIST_ENGINE=$engine" in build


def test_spec_lists_mypyc_runtime_and_what_compiled_modules_import(tmp_path: Path) -> None:
    """compiled_engine_imports(), run on a stand-in build/compiled."""
    tree = ast.parse((PACKAGING / "dealer-assist.spec").read_text(encoding="utf-8"))
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "compiled_engine_imports")
    namespace: dict[str, object] = {"ast": ast, "COMPILED": tmp_path}
    exec(compile(ast.Module(body=[func], type_ignores=[]), "dealer-assist.spec", "exec"), namespace)
    compiled_engine_imports = namespace["compiled_engine_imports"]
    with pytest.raises(SystemExit, match="no mypyc runtime"):
        compiled_engine_imports()  # type: ignore[operator]
    (tmp_path / "0123abcd__mypyc.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    package = tmp_path / "dealer_assist"
    package.mkdir()
    (package / "table.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    (package / "table.py").write_text("from __future__ import annotations\nimport json, random\n"
                                      "from fractions import Fraction\nfrom . import cards\n"
                                      "from dealer_assist.base.money import Money\n")
    (package / "store.py").write_text("import sqlite3\n")  # not compiled: PyInstaller reads it
    assert compiled_engine_imports() == [  # type: ignore[operator]
        "0123abcd__mypyc", "dealer_assist.base.money", "fractions", "json", "random"]


def test_dev_app_environment_puts_build_compiled_first_when_compiled() -> None:
    compiled, root = str(ROOT / "build" / "compiled"), str(ROOT)
    env = dev.app_environment(True, {"PYTHONPATH": "/elsewhere", "HOME": "/home/d"})
    assert env == {"PYTHONPATH": os.pathsep.join([compiled, root, "/elsewhere"]), "HOME": "/home/d"}
    assert dev.app_environment(True, {})["PYTHONPATH"] == os.pathsep.join([compiled, root])
    # Not compiled: the environment as it was (the editable install imports the sources).
    assert dev.app_environment(False, {"PYTHONPATH": "/elsewhere"}) == {"PYTHONPATH": "/elsewhere"}
    assert "PYTHONPATH" not in dev.app_environment(False, {})
    # The console script, not `python -m dealer_assist` (which, run from the checkout,
    # would put the sources before PYTHONPATH).
    command = dev.app_command(["--sim-seed", "3"])
    assert Path(command[0]).parent == dev.BIN and Path(command[0]).stem == "dealer-assist"
    assert command[1:] == ["--sim-seed", "3"]


@pytest.mark.parametrize(
    ("pure", "current", "running", "compiled", "says"),
    [
        (None, True, False, True, "[dev] running the compiled engine (build/compiled)"),
        (None, False, False, False, "compiling the rules engine with mypyc in the background (pid 4242"),
        (None, False, True, False, "the engine compile is still running"),
        ("1", False, False, False, "DEALER_ASSIST_PURE_PYTHON=1: running the pure-Python engine"),
    ],
)
def test_dev_app_starts_at_once_and_compiles_the_engine_in_the_background(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    pure: str | None, current: bool, running: bool, compiled: bool, says: str,
) -> None:
    """Issue 37: the app never waits for the compile: a build matching the sources is run,
    else the pure-Python engine while the compile runs in the background for the next start."""
    if pure is None:
        monkeypatch.delenv("DEALER_ASSIST_PURE_PYTHON", raising=False)
    else:
        monkeypatch.setenv("DEALER_ASSIST_PURE_PYTHON", pure)
    started: list[bool] = []

    def fake_background() -> int | None:
        started.append(True)
        return None if running else 4242

    monkeypatch.setattr(dev, "engine_up_to_date", lambda: current)
    monkeypatch.setattr(dev, "missing_c_toolchain", lambda: None)
    monkeypatch.setattr(dev, "compile_in_background", fake_background)
    assert dev.compile_engine() is compiled
    assert started == ([True] if not pure and not current else [])
    assert says in capsys.readouterr().out


def test_the_background_compile_is_detached_logged_and_never_twice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """compile_in_background with a stand-in for compile_engine.py: a process of its own
    session, its output in the log file; a second start while it runs starts nothing."""
    go = tmp_path / "go"
    stand_in = tmp_path / "compile_engine.py"
    stand_in.write_text("import os, sys, time\n"
                        "print('compiling in session', os.getsid(0) == os.getpid(), flush=True)\n"
                        f"while not os.path.exists({str(go)!r}):\n    time.sleep(0.05)\n"
                        "print('done', flush=True)\n")
    monkeypatch.setattr(dev, "PY", Path(sys.executable))
    monkeypatch.setattr(dev, "COMPILE_ENGINE", stand_in)
    monkeypatch.setattr(dev, "COMPILE_LOG", tmp_path / "compile-engine.log")
    monkeypatch.setattr(dev, "COMPILE_LOCK", tmp_path / ".compile-engine.lock")
    pid = dev.compile_in_background()
    assert pid is not None
    try:
        assert dev.compile_in_background() is None  # one runs: the lock is held by the child
    finally:
        go.touch()
        deadline = time.monotonic() + 60
        while "done" not in (tmp_path / "compile-engine.log").read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
    assert (tmp_path / "compile-engine.log").read_text() == "compiling in session True\ndone\n"
    while time.monotonic() < deadline:  # the child exits and releases the lock (reaped by init
        second = dev.compile_in_background()  # or by this process's Popen bookkeeping)
        if second is not None:
            break
        time.sleep(0.05)
    assert second is not None, "the lock outlived the compile"


def test_dev_knows_whether_build_compiled_is_current() -> None:
    assert isinstance(dev.engine_up_to_date(), bool)  # reads compile_engine.py's stamp and digest


def test_shell_scripts_parse() -> None:
    for script in ("build.sh", "install.sh", "check_build.sh"):
        path = PACKAGING / script
        assert os.access(path, os.X_OK), f"{script} is not executable"
        done = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def fake_build(tmp_path: Path) -> Path:
    """A stand-in for dist/dealer-assist/: a script in place of the frozen program."""
    dist = tmp_path / "dist" / "dealer-assist"
    (dist / "_internal").mkdir(parents=True)
    (dist / "_internal" / "marker").write_text("x")
    program = dist / "dealer-assist"
    program.write_text('#!/bin/sh\necho "dealer-assist 9.9.9"\n')
    program.chmod(0o755)
    return dist


def test_assemble_and_install_into_a_destdir(tmp_path: Path) -> None:
    dist = fake_build(tmp_path)
    written = assemble.assemble(dist)
    # 7 PNG sizes + SVG + desktop + metainfo + udev rule + unit + station.toml + install.sh + CHANGELOG = 15
    assert len(written) == 15
    root = tmp_path / "root"
    env = dict(os.environ, DESTDIR=str(root))
    done = subprocess.run([str(dist / "install.sh"), "--prefix", "/opt/da"], capture_output=True,
                          text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "Dealer Assist 9.9.9 installed in /opt/da." in done.stdout
    assert (root / "opt/da/_internal/marker").read_text() == "x"
    link = root / "usr/local/bin/dealer-assist"
    assert link.is_symlink() and os.readlink(link) == "/opt/da/dealer-assist"
    installed = desktop_entry(root / "usr/local/share/applications" / f"{APP_ID}.desktop")
    assert installed["Exec"] == "/opt/da/dealer-assist" and installed["TryExec"] == "/opt/da/dealer-assist"
    assert installed["StartupWMClass"] == "dealer-assist"
    rule = root / "etc/udev/rules.d/99-dealer-shoe.rules"
    assert rule.read_bytes() == (PACKAGING / "udev" / "99-dealer-shoe.rules").read_bytes()
    assert png_size(root / f"usr/local/share/icons/hicolor/64x64/apps/{APP_ID}.png") == (64, 64)
    metainfo = ET.parse(root / f"usr/local/share/metainfo/{APP_ID}.metainfo.xml").getroot()
    assert metainfo.find("releases/release").get("version") == assemble.project_version()  # type: ignore[union-attr]

    # the station (STATION-CONTRACT): the service's state 0700, its log 0750, the configuration
    # root's and readable by all; the unit runs the installed command as the service account
    assert stat.S_IMODE((root / "var/lib/dealer-assist").stat().st_mode) == 0o700
    assert stat.S_IMODE((root / "var/log/dealer-assist").stat().st_mode) == 0o750
    assert stat.S_IMODE((root / "etc/dealer-assist").stat().st_mode) == 0o755
    unit = configparser.ConfigParser(interpolation=None, strict=False)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(root / "etc/systemd/system/dealer-assist.service")
    assert unit["Service"]["ExecStart"] == "/usr/local/bin/dealer-assist station serve"
    assert (unit["Service"]["User"], unit["Service"]["Group"]) == ("dealer-assist", "dealer-assist")
    assert unit["Service"]["StateDirectoryMode"] == "0700" and unit["Service"]["RuntimeDirectory"] == "dealer-assist"
    config = root / "etc/dealer-assist/station.toml"
    assert stat.S_IMODE(config.stat().st_mode) == 0o644
    template = station.load_config(config)
    assert template.simulated and template.table == "" and template.store == ""  # nothing set yet
    assert config.read_text().count("\n#") >= 8  # commented for the technician
    assert "Station: wrote the template /etc/dealer-assist/station.toml" in done.stdout
    # a second install keeps the configuration the technician wrote
    config.write_text('[table]\nname = "BJ-07"\n')
    again = subprocess.run([str(dist / "install.sh"), "--prefix", "/opt/da"], capture_output=True,
                           text=True, env=env)
    assert again.returncode == 0, again.stderr
    assert config.read_text() == '[table]\nname = "BJ-07"\n' and "kept /etc/dealer-assist/station.toml" in again.stdout

    gone = subprocess.run([str(dist / "install.sh"), "--prefix", "/opt/da", "--uninstall"],
                          capture_output=True, text=True, env=env)
    assert gone.returncode == 0, gone.stderr
    # the program and the unit are gone; the station's configuration (and store and log directories) stay
    assert [p for p in root.rglob("*") if not p.is_dir()] == [config]
    assert (root / "var/lib/dealer-assist").is_dir()


def test_install_refuses_a_folder_that_is_not_a_build(tmp_path: Path) -> None:
    folder = tmp_path / "not-a-build"
    folder.mkdir()
    shutil.copy(PACKAGING / "install.sh", folder / "install.sh")
    env = dict(os.environ, DESTDIR=str(tmp_path / "root"))
    done = subprocess.run([str(folder / "install.sh")], capture_output=True, text=True, env=env)
    assert done.returncode == 1 and "run me from the built folder" in done.stderr
    assert not (tmp_path / "root").exists()
    bad = subprocess.run([str(folder / "install.sh"), "--frobnicate"], capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and "unknown option --frobnicate" in bad.stderr


def test_assemble_refuses_a_folder_without_the_program(tmp_path: Path) -> None:
    with pytest.raises(assemble.AssembleError, match="no dealer-assist executable"):
        assemble.assemble(tmp_path)


def test_test_command_skips_the_compiled_pass_only_without_a_c_toolchain(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a compiler and Python.h the test command compiles the engine; without one it says which is missing."""
    monkeypatch.setattr(dev.sysconfig, "get_config_var", lambda name: "gcc -pthread" if name == "CC" else None)
    monkeypatch.setattr(dev.shutil, "which", lambda name: None)
    assert dev.missing_c_toolchain() == "C compiler (gcc)"
    monkeypatch.setattr(dev.shutil, "which", lambda name: f"/usr/bin/{name}")
    include = Path(dev.sysconfig.get_paths()["include"])
    assert dev.missing_c_toolchain() == (None if (include / "Python.h").exists()
                                         else "Python.h (the Python development headers)")


def locked(name: str) -> dict[str, tuple[str, int]]:
    """package -> (version, number of hashes) in requirements/NAME.lock."""
    out: dict[str, tuple[str, int]] = {}
    current = ""
    for line in (ROOT / "requirements" / f"{name}.lock").read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==([^ ;\\]+)", line)
        if match:
            current = match.group(1).lower()
            out[current] = (match.group(2), 0)
        elif line.strip().startswith("--hash=sha256:") and current:
            version, count = out[current]
            out[current] = (version, count + 1)
    return out


def test_lock_files_pin_every_tool_with_hashes() -> None:
    project = pyproject()["project"]
    dev, build = locked("dev"), locked("build")
    for lock in (dev, build):
        assert lock and all(count >= 1 for _, count in lock.values()), lock
        assert "dealer-assist" not in lock  # the project itself is installed from the checkout
    # what pyproject pins exactly, the locks pin the same
    pins = [r for r in [*project["optional-dependencies"]["dev"], *project["optional-dependencies"]["packaging"]]
            if "==" in r]
    for requirement in pins:
        name, version = requirement.split("==")
        lock = build if name in ("pyinstaller", "pyinstaller-hooks-contrib") else dev
        assert lock[name.lower()][0] == version.split()[0], requirement
    assert "ruff==" in " ".join(project["optional-dependencies"]["dev"])
    assert "pyinstaller-hooks-contrib==" in " ".join(project["optional-dependencies"]["packaging"])
    for tool in ("ruff", "mypy", "pytest", "pytest-qt", "hypothesis", "pyside6-essentials", "pyserial"):
        assert tool in dev, tool
    for tool in ("pyinstaller", "pyinstaller-hooks-contrib", "mypy", "pyside6-essentials"):
        assert tool in build, tool
    assert dev["pyside6-essentials"] == build["pyside6-essentials"]  # the app tested is the app built


def test_spdx_licence_and_setuptools_floor() -> None:
    data = pyproject()
    assert data["project"]["license"] == "LicenseRef-Proprietary"  # type: ignore[index]
    floor = next(r for r in data["build-system"]["requires"] if r.startswith("setuptools"))  # type: ignore[index]
    assert floor == "setuptools>=77"  # the first setuptools that reads an SPDX license string
