"""Game protection on the floor (issue 36, Build 4): ``dealer-assist floor serve`` raises
"advantage play suspected" and "shoe favours the players" from the rounds stations forwarded,
on a real server, through the real entry point; only the review (supervisors') and service
roles read them, never a station.

- BJ-01 (Lucky 8, 6 decks): six shoes, each round A (no card out yet: true count 0) then round B
  after A's seven cards 2 3 4 5 6 10 10. p1 bets 10 in A and 50 in B (perfectly with the count),
  p2 bets 10 flat (as tests/protect/test_protect_cli.py). Lucky 8's count tags 2-7 +1 and
  A, 9, 10 -1: running count 5 - 2 = +3 with 305 of 312 cards left, true count 3 / (305 / 52).
  p1's 12 points lie on one line: correlation +1, p-value 0 (< 0.001), slope 40 / true count:
  flagged; p2 (flat) is not.
- BJ-02 (Lucky 8, 6 decks): p3 and p4 flat 10; three rounds of one shoe, each dealing eight
  fives (p 5 5, p 5 5, the dealer 5 5 5 5 = 20: both players lose, 10 against 20). After them
  all 24 fives of the shoe are out: the odds engine's exact expected return of the main wager on
  that shoe (optimal play) is about +3.8 % — above the +1 % level: the shoe favours the players.
  Nobody's bet follows a count: no advantage play there. BJ-01's last shoe (2 3 4 5 6 twice, four
  10s out) stays under the level by the same engine.
"""

from __future__ import annotations

import ast
import json
import re
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from dealer_assist.base.cards import parse_card
from dealer_assist.engine.transcript import settle_document
from dealer_assist.floor.forward import Forwarder
from dealer_assist.floor.schema import service_role
from dealer_assist.floor.service import FloorService, ServiceSettings
from dealer_assist.protect.counts import count_for
from dealer_assist.protect.live import ProtectionCheck
from dealer_assist.protect.removal import main_wager_return
from dealer_assist.store import record_transcript
from tests.floor.conftest import Floor
from tests.floor.helpers import ROOT, cli, query
from tests.protect.test_protect_cli import CARDS, lucky8_round

FIVES = ["5S", "5H", "5D", "5C"]


def fives_round(dealt: int) -> dict[str, Any]:
    """p3 5 5 and p4 5 5 stand on 10; the dealer 5 then 5 5 5: 20 (Lucky 8 dealer stands on 17+)."""
    return {"game": "lucky8", "decks": 6, "areas": 7, "seated": {"p3": 1, "p4": 2},
            "shoe": {"id": "H-1", "dealt": dealt}, "events": [
                {"type": "wager", "player": "p3", "area": 1, "bet": "main", "amount": 10},
                {"type": "wager", "player": "p4", "area": 2, "bet": "main", "amount": 10},
                {"type": "no_more_bets"},
                *({"type": "card", "card": c} for c in [*FIVES, "5S"]),
                {"type": "decision", "action": "stand", "area": 1},
                {"type": "decision", "action": "stand", "area": 2},
                *({"type": "card", "card": c} for c in ["5H", "5D", "5C"]),
            ]}


def recorded(db: Path, table: str, doc: dict[str, Any], net: dict[str, int]) -> None:
    result = settle_document(doc)
    assert result["status"] == "settled" and result["net"] == net
    record_transcript(db, doc, result, table=table, pit="PIT-1")


def serve_once(floor: Floor, tmp: Path, *extra: str) -> None:
    url = floor.server.url(floor.dbname, user=service_role(floor.dbname))
    done = cli("floor", "serve", "--url", url, "--state", str(tmp / "state.json"), "--log", str(tmp / "floor.log"),
               "--once", "--no-win-band", "--verify-every", "0", *extra)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr + (
        (tmp / "floor.log").read_text() if (tmp / "floor.log").exists() else "")


def alerts(url: str) -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = {}
    for table, kind, detail in query(url, "SELECT table_name, kind, detail FROM floor.alerts ORDER BY alert_id"):
        out.setdefault((str(table), str(kind)), []).append(str(detail))
    return out


@pytest.fixture
def played(floor: Floor, tmp_path: Path) -> Floor:
    urls = {t: floor.station(t, "PIT-1") for t in ("BJ-01", "BJ-02")}
    one, two = tmp_path / "bj01.db", tmp_path / "bj02.db"
    for n in range(6):
        shoe = f"S-{n + 1}"
        # p1 7 and p2 9 stand; the dealer 4 10 10 busts: both win their wagers
        recorded(one, "BJ-01", lucky8_round({"id": shoe, "dealt": 0}, 10, 10), {"p1": 10, "p2": 10})
        recorded(one, "BJ-01", lucky8_round({"id": shoe, "dealt": 7}, 50, 10), {"p1": 50, "p2": 10})
    for k in range(3):
        recorded(two, "BJ-02", fives_round(8 * k), {"p3": -10, "p4": -10})
    for table, db in (("BJ-01", one), ("BJ-02", two)):
        Forwarder(db, urls[table]).forward()
    return floor


def test_a_count_follower_and_a_shoe_that_favours_the_players_are_raised_and_flat_bettors_are_not(
        played: Floor, tmp_path: Path) -> None:
    floor = played
    serve_once(floor, tmp_path)
    found = alerts(floor.admin_url)
    assert sorted(found) == [("BJ-01", "advantage_play"), ("BJ-02", "shoe_favours_players")]
    state = json.loads((tmp_path / "state.json").read_text())
    assert sorted(map(tuple, state["open_conditions"])) == sorted(found)

    # p1's evidence, worked out from the count's tags (module doc), not read from the output
    count = count_for("lucky8", 6)
    assert count is not None
    running = sum(count.tag(parse_card(c)) for c in CARDS)
    assert running == 3
    true_count = running / (305 / 52)
    (detail,) = found[("BJ-01", "advantage_play")]
    assert detail.startswith("advantage play suspected: p1: 12 rounds, correlation +1.00, p-value 0")
    assert f"{40 / true_count:.2f} per unit of count" in detail
    assert "p2" not in detail  # the flat bettor beside him

    # the hot shoe: its figure against the odds engine's exact analysis of the shoe less 24 fives
    exact = main_wager_return("lucky8", 6, [0, 0, 0, 0, 24, 0, 0, 0, 0, 0])
    assert exact > 0.035
    (hot,) = found[("BJ-02", "shoe_favours_players")]
    assert hot.startswith("shoe H-1 favours the players after round 3 (24 of 312 cards out, 24 on record): ")
    main = re.search(r"main wager ([+-][0-9.]+) %", hot)
    assert main is not None and float(main.group(1)) == pytest.approx(exact * 100, abs=0.5), (hot, exact)
    # BJ-01's last shoe: under the level by the same engine (2 3 4 5 6 twice and four 10s out)
    assert main_wager_return("lucky8", 6, [0, 2, 2, 2, 2, 2, 0, 0, 0, 4]) < 0.01

    # one open alert per table and kind: a second pass raises none again
    serve_once(floor, tmp_path)
    assert {k: len(v) for k, v in alerts(floor.admin_url).items()} == {
        ("BJ-01", "advantage_play"): 1, ("BJ-02", "shoe_favours_players"): 1}


def test_a_higher_level_and_no_protect_raise_nothing(played: Floor, tmp_path: Path) -> None:
    serve_once(played, tmp_path, "--shoe-edge", "5", "--protect-hours", "8")  # the shoe's ~+3.8 % is under 5 %
    assert sorted(alerts(played.admin_url)) == [("BJ-01", "advantage_play")]
    with psycopg.connect(played.admin_url) as conn:
        conn.execute("DELETE FROM floor.alerts")
    serve_once(played, tmp_path, "--no-protect")
    assert alerts(played.admin_url) == {}


def test_the_running_service_never_waits_on_the_work(played: Floor, tmp_path: Path) -> None:
    """``floor serve`` (not --once): the pass hands the work to a thread and raises what it
    found on a later pass."""
    check = ProtectionCheck()
    service = FloorService(played.server.url(played.dbname, user=service_role(played.dbname)),
                           tmp_path / "state.json", log_path=tmp_path / "floor.log",
                           settings=ServiceSettings(win_band=False, verify_every=0), checks=[check])
    first = service.pass_once()
    assert first.reachable and first.raised == []  # the work has only begun
    deadline = time.monotonic() + 600
    while any(t.name == "protect-live" for t in threading.enumerate()):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    second = service.pass_once()
    assert len(second.raised) == 2
    assert sorted(alerts(played.admin_url)) == [("BJ-01", "advantage_play"), ("BJ-02", "shoe_favours_players")]


def test_only_the_supervisors_and_service_roles_read_them_never_a_station(played: Floor, tmp_path: Path) -> None:
    serve_once(played, tmp_path)
    kinds = {str(k) for (k,) in query(played.review_url, "SELECT kind FROM floor.alerts")}
    assert kinds == {"advantage_play", "shoe_favours_players"}  # the pit window's (supervisors') role
    station = played.station("BJ-03", "PIT-1")
    with psycopg.connect(station) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("SELECT kind, detail FROM floor.alerts").fetchall()


def test_the_station_and_the_dealers_screen_never_read_floor_alerts() -> None:
    """No module of the station (dealer_assist/service, hardware) or the dealer's screen
    (ui/dealer) imports the floor's alerts or names floor.alerts: they never reach the dealer."""
    readers = []
    for top in ("dealer_assist/service", "hardware", "ui/dealer"):
        for path in sorted((ROOT / top).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text)
            modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
                a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
            if "floor.alerts" in text or any(m and m.startswith(("dealer_assist.floor.alerts",
                                                                 "dealer_assist.protect.live")) for m in modules):
                readers.append(str(path.relative_to(ROOT)))
    assert readers == []

