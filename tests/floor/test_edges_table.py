"""The par sheets' figures kept on disk once (issue 35, item 2): ``dealer-assist floor edges``
works out a game's edges and the alerts' (edge, standard deviation) figures and keeps them,
named by the odds sources' digest; the alerts then read them and work nothing out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

from tests.floor.conftest import Floor
from tests.floor.helpers import ROOT, query
from tests.floor.stations import make_station, open_station, record_rounds


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


def test_a_forward_never_waits_for_a_par_sheet(floor: Floor, tmp_path: Path) -> None:
    """With no edges kept on the station (a fresh cache), the forwarder forwards the round at
    once without its theoretical win (the pit works it out for it) and starts working the edges
    out in a process of its own (`floor edges --background`, marked `.working` meanwhile); once
    they are kept, the next rounds carry it."""
    cache = tmp_path / "cache"
    env = os.environ | {"XDG_CACHE_HOME": str(cache)}
    url = floor.station("BJ-07", "PIT-2")
    db = tmp_path / "bj07.db"
    make_station(db, "BJ-07", "PIT-2", rounds=1)  # Ace Race, 6 decks: alice main 25, pair 5
    first = _run(env, "-m", "dealer_assist", "forward", "--db", str(db), "--to", url)
    assert first.returncode == 0 and first.stdout.startswith("forwarded 1 round"), first.stdout + first.stderr
    assert query(floor.admin_url, "SELECT round_id, status, theo FROM floor.rounds") == [(1, "settled", None)]
    # the background worker keeps them, then takes its mark away
    deadline = time.monotonic() + 280
    while True:
        kept = list((cache / "dealer-assist").glob("house-edges-*.json"))
        working = list((cache / "dealer-assist").glob("*.working"))
        if kept and not working and "ace_race/6" in json.loads(kept[0].read_text()):
            break
        assert time.monotonic() < deadline, (kept, working)
        time.sleep(0.5)
    with open_station(db) as store:
        record_rounds(store, 1)  # the same Ace Race round again
    again = _run(env, "-m", "dealer_assist", "forward", "--db", str(db), "--to", url)
    assert again.returncode == 0, again.stderr
    ace = {k: Decimal(v) for k, v in json.loads(kept[0].read_text())["ace_race/6"].items()}
    assert query(floor.admin_url, "SELECT round_id, theo FROM floor.rounds ORDER BY round_id") == [
        (1, None), (2, 25 * ace["main"] + 5 * ace["pair"])]
