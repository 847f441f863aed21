"""Every subcommand fed the mistakes newcomers make (issue 17): one line ``error: ...`` on
standard error, exit 2 for bad input and 1 for a failed check, never a traceback, never
a Qt abort, nothing created where nothing should be.

The mistakes run the command line in this process (``dealer_assist.cli.main`` with its
argv, as the console script does); the tests marked "subprocess" start the real
``python -m dealer_assist`` as a user would (the process's exit status, Qt's own abort
without a display, the umask)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dealer_assist.cli import main
from dealer_assist.store import Store

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT.parent / "shared" / "examples" / "lucky8-pair-and-double.json"  # ../shared beside the checkout
if not EXAMPLE.exists():
    EXAMPLE = Path("/work/shared/examples/lucky8-pair-and-double.json")
_DISPLAY = ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")


def _environment(display: bool, env: dict[str, str]) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if k != "DEALER_ASSIST_CONFIG"}
    if not display:
        for name in _DISPLAY:
            environment.pop(name, None)
    environment.update(env)
    return environment


def run(*args: str, stdin: str | None = None, display: bool = True, **env: str) -> subprocess.CompletedProcess[str]:
    """``dealer-assist ARGS`` in this process: its exit status (returned, or SystemExit's, as
    the console script exits with), standard output and error."""
    environment = _environment(display, env)
    saved = dict(os.environ)
    out, err = io.StringIO(), io.StringIO()
    os.environ.clear()
    os.environ.update(environment)
    saved_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin if stdin is not None else "")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status: object = main(list(args))
            except SystemExit as stop:
                status = stop.code
    finally:
        sys.stdin = saved_stdin
        os.environ.clear()
        os.environ.update(saved)
    if status is None:
        code = 0
    elif isinstance(status, int):
        code = status
    else:  # sys.exit("message"): the message on stderr, status 1
        err.write(f"{status}\n")
        code = 1
    return subprocess.CompletedProcess(["dealer-assist", *args], code, out.getvalue(), err.getvalue())


def run_process(*args: str, stdin: str | None = None, display: bool = True,
                **env: str) -> subprocess.CompletedProcess[str]:
    """The real ``python -m dealer_assist ARGS``: a process of its own."""
    return subprocess.run([sys.executable, "-m", "dealer_assist", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, input=stdin, env=_environment(display, env))


def one_error(done: subprocess.CompletedProcess[str], *words: str, status: int = 2) -> None:
    assert done.returncode == status, (done.returncode, done.stderr)
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: "), lines[0]
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "table.db"
    done = run("settle", str(EXAMPLE), "--record", str(path))
    assert done.returncode == 0, done.stderr
    return path


# ----------------------------------------------------------------------------- settle
def _without(key: str) -> str:
    doc = json.loads(EXAMPLE.read_text())
    del doc[key]
    return json.dumps(doc)


@pytest.mark.parametrize(
    ("args", "stdin", "words"),
    [
        (["settle", "-"], _without("decks"), ["no 'decks'", "1 to 8 decks", "2.1"]),  # Lucky 8 2.1: 1-8 decks
        (["settle", "-"], _without("game"), ["no 'game'", "lucky8"]),
        (["settle", "-"], _without("areas"), ["no 'areas'", "5 to 7"]),
        (["settle", "/no/such/round.json"], None, ["cannot read", "/no/such/round.json"]),
        (["settle", str(EXAMPLE), "--record", "/no/such/dir/x.db"], None, ["--record", "no directory /no/such/dir"]),
        (["settle", str(EXAMPLE), "--record", "/tmp"], None, ["--record", "is a directory"]),
        (["settle"], None, ["file"]),
    ],
)
def test_settle(args: list[str], stdin: str | None, words: list[str]) -> None:
    one_error(run(*args, stdin=stdin), *words)
    assert not Path("/no/such/dir").exists()  # refused, not created


# ----------------------------------------------------------------------------- history
def test_history_on_a_fresh_store(tmp_path: Path) -> None:
    Store.open(tmp_path / "table.db").close()  # a new, empty store
    done = run("history", "--db", str(tmp_path / "table.db"), "list")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == "(no rounds)\n"
    assert run("history", "--db", str(tmp_path / "table.db"), "list", "--json").stdout == "[]\n"


def test_history_with_no_match(recorded: Path) -> None:
    done = run("history", "--db", str(recorded), "list", "--player", "nobody")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "(no rounds)\n"


def test_history_options_before_or_after(recorded: Path) -> None:
    outputs = {
        tuple(args): run(*args)
        for args in (["history", "--db", str(recorded), "list"], ["history", "list", "--db", str(recorded)],
                     ["--db", str(recorded), "history", "list"])
    }
    for args, done in outputs.items():
        assert done.returncode == 0, (args, done.stderr)
    texts = {done.stdout for done in outputs.values()}
    assert len(texts) == 1
    # the example's one round: alice +30, bob +150 (worked out in tests/store)
    assert "alice +30, bob +150" in texts.pop()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["list", "--limit", "-1"], ["--limit", "0 (all) or more"]),
        (["list", "--limit", "ten"], ["--limit", "whole number"]),
        (["list", "--since", "yesterday"], ["ISO 8601"]),
        (["export", "0"], ["round id must be positive"]),
        (["export", "x"], ["whole number"]),
        (["export", "99"], ["no round 99"]),
        (["list", "--status", "won"], ["--status"]),
        (["remove"], ["remove"]),
    ],
)
def test_history_mistakes(recorded: Path, args: list[str], words: list[str]) -> None:
    one_error(run("history", "--db", str(recorded), *args), *words)


def test_history_missing_store(tmp_path: Path) -> None:
    one_error(run("history", "--db", str(tmp_path / "nope.db"), "list"), "no such file")
    assert not (tmp_path / "nope.db").exists()
    # no --db and no store at the station's default place: says so and how to name one
    one_error(run("history", "list", HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data")), "--db")


# ----------------------------------------------------------------------------- bench
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--rounds", "0"], ["--rounds", "1 or more", "not 0"]),
        (["--rounds", "-5"], ["--rounds", "not -5"]),
        (["--rounds", "many"], ["--rounds", "whole number"]),
        (["--seed", "-1"], ["--seed"]),
        (["--game", "poker"], ["--game", "poker"]),
    ],
)
def test_bench(args: list[str], words: list[str]) -> None:
    one_error(run("bench", *args), *words)


def test_bench_one_round_runs() -> None:
    done = run("bench", "--rounds", "1")
    assert done.returncode == 0, done.stderr
    assert "rounds/s" in done.stdout and "-" not in done.stdout.split("rounds/s")[0].split()[-1]


# ----------------------------------------------------------------------------- review
def test_review_without_a_display(recorded: Path) -> None:
    """subprocess: without a display Qt would abort the whole process (exit 134)."""
    done = run_process("review", "--db", str(recorded), display=False)
    one_error(done, "no display")  # not Qt's abort (exit 134)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--round", "0"], ["--round", "1 or more"]),
        (["--round", "two"], ["--round"]),
    ],
)
def test_review_mistakes(recorded: Path, args: list[str], words: list[str]) -> None:
    one_error(run("review", "--db", str(recorded), *args, QT_QPA_PLATFORM="offscreen"), *words)


def test_review_missing_store(tmp_path: Path) -> None:
    one_error(run("review", "--db", str(tmp_path / "t.db"), QT_QPA_PLATFORM="offscreen"), "no such file")
    assert not (tmp_path / "t.db").exists()


# ----------------------------------------------------------------------------- gui
def test_gui_without_a_display(tmp_path: Path) -> None:
    """subprocess: as above, for the dealer's screen."""
    one_error(run_process(display=False, HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"),
                          XDG_RUNTIME_DIR=str(tmp_path)), "no display")
    assert not (tmp_path / "data").exists()  # no service started, no store made


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--db", "/no/such/dir/table.db"], ["unrecognized arguments: --db"]),  # issue 33: no embedded table
        (["--baud", "0"], ["--baud", "from 50"]),
        (["--game", "baccarat"], ["baccarat"]),
        (["--sim-seed", "-3"], ["--sim-seed"]),
        (["--config", "/no/such/station.toml"], ["/no/such/station.toml", "no such file"]),
        (["gui", "--codec", "nmea"], ["--codec", "nmea"]),
    ],
)
def test_gui_mistakes(tmp_path: Path, args: list[str], words: list[str]) -> None:
    one_error(run(*args, "--exit-after-show", QT_QPA_PLATFORM="offscreen",
                  HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"), XDG_RUNTIME_DIR=str(tmp_path)), *words)
    assert not Path("/no/such/dir").exists()


# ----------------------------------------------------------------------------- shoe tools
@pytest.mark.parametrize(
    ("args", "words", "status"),
    [
        (["shoe-sim", "--decks", "0"], ["--decks", "from 1 to 8"], 2),
        (["shoe-sim", "--interval", "-1"], ["--interval"], 2),
        (["shoe-monitor"], ["PORT"], 2),
        (["shoe-monitor", "/dev/null", "--baud", "0"], ["--baud"], 2),
        (["shoe-monitor", "/no/such/tty"], ["cannot open", "/no/such/tty"], 1),
    ],
)
def test_shoe_tools(args: list[str], words: list[str], status: int) -> None:
    one_error(run(*args), *words, status=status)


# ----------------------------------------------------------------------------- station
def test_station_init_refuses_to_overwrite_and_missing_directories(tmp_path: Path) -> None:
    path = tmp_path / "station.toml"
    done = run("station", "init", "--config", str(path), "--shoe", "/dev/dealer-shoe", "--table", "BJ-07")
    assert done.returncode == 0, done.stderr
    assert 'port = "/dev/dealer-shoe"' in path.read_text()
    one_error(run("station", "init", "--config", str(path)), "exists", "--force")
    one_error(run("station", "init", "--config", str(tmp_path / "etc" / "station.toml")), "no directory")
    assert not (tmp_path / "etc").exists()
    one_error(run("station", "frobnicate"), "frobnicate")


def test_station_show(tmp_path: Path) -> None:
    path = tmp_path / "station.toml"
    path.write_text('[table]\nname = "BJ-07"\n[store]\npath = "/srv/bj07.db"\n')
    done = run("station", "show", "--config", str(path))
    assert done.returncode == 0, done.stderr
    assert run("station", "--config", str(path), "show").stdout == done.stdout  # option before the action
    assert f"configuration: {path}" in done.stdout and "store: /srv/bj07.db" in done.stdout
    assert "shoe: simulated" in done.stdout


# ----------------------------------------------------------------------------- the command
def test_unknown_subcommand() -> None:
    one_error(run("replay", "x.json"), "replay")


def test_mistakes_as_a_process(tmp_path: Path) -> None:
    """subprocess: the real command's exit status and streams, for a refused round on
    standard input (Lucky 8 2.1: 1 to 8 decks), a bad option and a missing store."""
    one_error(run_process("settle", "-", stdin=_without("decks")), "no 'decks'", "1 to 8 decks", "2.1")
    one_error(run_process("bench", "--rounds", "0"), "--rounds", "1 or more")
    one_error(run_process("history", "--db", str(tmp_path / "nope.db"), "list"), "no such file")
    assert not (tmp_path / "nope.db").exists()


def test_settle_record_creates_the_store_0600(tmp_path: Path) -> None:
    """A new store is its owner's alone (0600, STATION-CONTRACT), whatever the caller's umask."""
    path = tmp_path / "new.db"
    done = subprocess.run(["sh", "-c", f'umask 022 && exec "$0" -m dealer_assist settle "{EXAMPLE}" --record "{path}"',
                           sys.executable], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (path.stat().st_mode & 0o777) == 0o600
