"""The par sheets' figures kept on disk once (issue 35, item 2): ``dealer-assist floor edges``
works out a game's edges and the alerts' (edge, standard deviation) figures and keeps them,
named by the odds sources' digest; the alerts then read them and work nothing out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.floor.helpers import ROOT


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_floor_edges_keeps_the_figures_and_the_alerts_read_them(tmp_path: Path) -> None:
    env = os.environ | {"XDG_CACHE_HOME": str(tmp_path)}
    done = _run(env, "-m", "dealer_assist", "floor", "edges", "--game", "lucky8", "--decks", "1")
    assert (done.returncode, done.stdout) == (0, "floor: edges of lucky8 at 1 decks kept\n"), done.stderr
    (edges_file,) = (tmp_path / "dealer-assist").glob("house-edges-*.json")
    (figures_file,) = (tmp_path / "dealer-assist").glob("par-figures-*.json")
    assert edges_file.name.split("-", 2)[2] == figures_file.name.split("-", 2)[2]  # one digest
    edges = json.loads(edges_file.read_text())["lucky8/1"]
    figures = json.loads(figures_file.read_text())["lucky8/1"]
    # the same par sheet: each bet's edge is the forwarder's; a deviation for each, none negative
    assert {k: v[0] for k, v in figures.items()} == {k: edges[k] for k in figures}
    assert all(float(sd) >= 0 for _, sd in figures.values()) and float(figures["main"][1]) > 0
    # the alerts read the kept figures (a planted one shows it is read, not worked out)
    figures["main"] = ["0.25", "2"]
    figures_file.write_text(json.dumps({"lucky8/1": figures}))
    code = ("from dealer_assist.floor.alerts import par_figures; "
            "print(par_figures('lucky8', 1)['main'])")
    read = _run(env, "-c", code)
    assert read.stdout.strip() == "(Decimal('0.25'), Decimal('2'))", read.stderr
    refused = _run(env, "-m", "dealer_assist", "floor", "edges", "--game", "nope")
    assert refused.returncode == 2 and refused.stderr.startswith("error: no game and deck count matches")
