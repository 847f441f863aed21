"""`python3 scripts/dev.py app` (the README's first command) is a thin wrapper over the
installed `dealer-assist` (issue 33): with no station configuration that starts the station
service for the account, then the screen on its socket, and stops the service when the
screen closes; on a configured station the development switches are refused."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import pytest

import dealer_assist.service.station as st

ROOT = Path(__file__).resolve().parents[2]


def dev_script() -> Any:
    spec = importlib.util.spec_from_file_location("dev_script", ROOT / "scripts" / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.PY = Path(sys.executable)  # this venv: dev.py would make ./.venv first
    module.BIN = Path(sys.executable).parent
    return module


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (st.CONFIG_ENV, "DEALER_ASSIST_DEV", "DEALER_ASSIST_SOCKET")}
    run = tmp_path / "run"
    run.mkdir(mode=0o700, exist_ok=True)
    home = tmp_path / "home"
    env.update(QT_QPA_PLATFORM="offscreen", HOME=str(home), XDG_RUNTIME_DIR=str(run),
               XDG_DATA_HOME=str(home / ".local" / "share"), XDG_STATE_HOME=str(home / ".local" / "state"),
               XDG_CONFIG_HOME=str(home / ".config"),
               PYTHONPATH=os.pathsep.join([*filter(None, [os.environ.get("PYTHONPATH")]), str(ROOT)]), **extra)
    return env


def test_the_app_command_starts_the_service_then_the_screen_and_stops_the_service(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    dev = dev_script()
    env = environment(tmp_path)
    assert dev.run_app(["--exit-after-show"], env) == 0
    out = capfd.readouterr().out
    sock = tmp_path / "run" / "dealer-assist" / "station.sock"
    assert f"the station service for this account (local store, SIMULATED SHOE) on {sock}" in out
    assert "shown" in out  # the screen came up on the service's socket
    assert not sock.exists()  # the service stopped with the screen (its socket removed)
    assert (tmp_path / "home" / ".local" / "share" / "dealer-assist" / "table.db").exists()  # the local store


def test_the_development_switch_is_refused_on_a_configured_station(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "station.toml"
    config.write_text(st.render_config(st.StationConfig(table="BJ-01")))
    dev = dev_script()
    assert dev.run_app([], environment(tmp_path, **{st.CONFIG_ENV: str(config)}, DEALER_ASSIST_DEV="1")) == 2
    err = capfd.readouterr().err
    assert "error: DEALER_ASSIST_DEV is for development runs only" in err
    assert f"this is a station (configured by {config})" in err


@pytest.mark.parametrize("args", [["--dealer", "ann"], ["--db", "t.db"], ["--settings", "s.ini"]])
def test_the_embedded_tables_switches_are_gone(tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                               args: list[str]) -> None:
    # issue 33: one table host. The switches that ran an embedded table (a log-in skipped, a
    # store file of its own, a remembered set-up in Qt's settings) are no options any more:
    # argparse refuses them before anything starts, and no store is made
    dev = dev_script()
    assert dev.run_app(args, environment(tmp_path)) == 2
    assert f"unrecognized arguments: {' '.join(args)}" in capfd.readouterr().err
    assert not (tmp_path / "home" / ".local" / "share" / "dealer-assist" / "table.db").exists()


def test_a_real_shoe_and_a_game_go_to_the_accounts_service_not_to_an_embedded_table(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # `dealer-assist --shoe PORT --game ace_race` with no configuration (issue 33: one host):
    # the account's station service opens the shoe (a simulated shoe on a pty here, opened by
    # its path as a real one is) and sets the table up for Ace Race, audited; the screen is its
    # client. Before, these switches ran an embedded table with no service.
    from dealer_assist.store import Store
    from tests.service.conftest import make_shoe

    shoe = make_shoe("10S 9H QD 8C")
    try:
        dev = dev_script()
        env = environment(tmp_path)
        assert dev.run_app(["--shoe", shoe.path, "--game", "ace_race", "--exit-after-show"], env) == 0
    finally:
        shoe.close()
    out = capfd.readouterr().out
    assert f"the station service for this account (local store, shoe {shoe.path})" in out and "shown" in out
    store_file = tmp_path / "home" / ".local" / "share" / "dealer-assist" / "table.db"
    with Store.open_readonly(store_file) as store:
        changed = store.audit_entries(kind="table_setup_changed")
        connected = store.audit_entries(kind="shoe_connected")
    assert [(e.actor, e.detail["new"]["game"], e.detail["source"]) for e in changed] == [
        ("service", "ace_race", "--game")]
    assert connected and connected[-1].detail["port"] == shoe.path  # the service's driver opened it


def test_a_development_shoe_or_game_is_refused_by_a_configured_stations_service(tmp_path: Path) -> None:
    # a station's shoe and game are its configuration's: `station serve --shoe/--game` refuses
    import subprocess

    config = tmp_path / "station.toml"
    config.write_text(st.render_config(st.StationConfig(table="BJ-01")))
    env = environment(tmp_path)
    done = subprocess.run([sys.executable, "-m", "dealer_assist", "station", "serve", "--config", str(config),
                           "--state-dir", str(tmp_path / "state"), "--game", "lucky8"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert f"error: --game: this is a station (configured by {config})" in done.stderr
