"""The dealer's screen started as ``dealer-assist`` starts it, on a screen of a table size
(each size by some game; issue 24 item 1): through the log-in dialog (no --dealer, no development switch), the
heaviest round of each game; after every event the window's frame is the screen's
available geometry and every button of the prompt and of the action bar lies inside the
window, uncovered. Each size is its own process: the offscreen platform's screen size is
fixed when Qt starts (its ``configfile``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # (tests/conftest.py runs these first)
GAMES = ["ace_race", "electronic", "star_elements", "lucky8", "dueling8s"]
SIZES = [(1280, 800), (1366, 768), (1920, 1080)]


def run_entry(game: str, size: tuple[int, int], tmp: Path) -> dict[str, object]:
    screen = tmp / "screen.json"
    screen.write_text(json.dumps({"screens": [{"name": "table", "x": 0, "y": 0, "width": size[0],
                                               "height": size[1], "logicalDpi": 96, "logicalBaseDpi": 96,
                                               "dpr": 1}]}))
    # a fresh account: its own data and a private runtime directory (the account's service's
    # socket: two tests at once must never meet on one)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DEALER_ASSIST_", "XDG_"))}
    run = tmp / "run"
    run.mkdir(mode=0o700, exist_ok=True)
    env.update(QT_QPA_PLATFORM=f"offscreen:configfile={screen}", PYTHONPATH=str(ROOT), XDG_RUNTIME_DIR=str(run),
               HOME=str(tmp), XDG_DATA_HOME=str(tmp / "data"), XDG_STATE_HOME=str(tmp / "state"),
               XDG_CONFIG_HOME=str(tmp / "config"), XDG_CACHE_HOME=str(tmp / "cache"))
    proc = subprocess.run([sys.executable, "-m", "tests.ui.entry_fit", game, str(tmp)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=240)  # under the suite's 300 s
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    assert lines, f"no result (status {proc.returncode}): {proc.stderr[-3000:]}"
    return dict(json.loads(lines[-1]))


# One size a game, every size by some game: the walk (test_layout_walk.py) starts each game the
# same way and checks it at all three sizes at each moment of the round, and test_fits.py looks
# at the dealer's controls after every event at each size in turn; fifteen starts here took
# more of the suite than either.
ONE_SIZE_A_GAME = [("star_elements", SIZES[0]), ("lucky8", SIZES[0]), ("dueling8s", SIZES[1]),
                   ("electronic", SIZES[1]), ("ace_race", SIZES[2])]


@pytest.mark.parametrize(("game", "size"), ONE_SIZE_A_GAME, ids=lambda v: v if isinstance(v, str) else f"{v[0]}x{v[1]}")
def test_the_real_start_keeps_the_screen_and_every_control_reachable(
        tmp_path: Path, game: str, size: tuple[int, int]) -> None:
    result = run_entry(game, size, tmp_path)
    assert "error" not in result, result.get("error")
    assert result["concluded"] is True
    assert int(str(result["events"])) > 40  # every wager, card and decision of the heavy round
    assert result["problems"] == []


def test_every_game_and_every_size_is_started_here() -> None:
    assert sorted(g for g, _ in ONE_SIZE_A_GAME) == sorted(GAMES)
    assert {s for _, s in ONE_SIZE_A_GAME} == set(SIZES)
