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

Each alert has its subject (migration 0013): the player, the shoe. One open alert per table,
kind and subject, each acknowledged on its own.
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
from dealer_assist.floor.alerts import Condition, raise_alerts
from dealer_assist.floor.forward import Forwarder
from dealer_assist.floor.schema import add_station, init_floor, review_role, service_role
from dealer_assist.floor.service import FloorService, ServiceSettings
from dealer_assist.protect.counts import count_for
from dealer_assist.protect.live import ProtectionCheck
from dealer_assist.protect.removal import main_wager_return
from dealer_assist.store import record_transcript
from tests.floor.conftest import Floor
from tests.floor.helpers import ROOT, cli, floor_version, query
from tests.floor.pgserver import Server
from tests.protect.test_protect_cli import CARDS, lucky8_round

pytestmark = pytest.mark.slow  # several minute-long floors (tests/conftest.py runs these first)

FIVES = ["5S", "5H", "5D", "5C"]


def fives_round(dealt: int, shoe: str = "H-1") -> dict[str, Any]:
    """p3 5 5 and p4 5 5 stand on 10; the dealer 5 then 5 5 5: 20 (Lucky 8 dealer stands on 17+)."""
    return {"game": "lucky8", "decks": 6, "areas": 7, "seated": {"p3": 1, "p4": 2},
            "shoe": {"id": shoe, "dealt": dealt}, "events": [
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
    # each with its subject: the count follower, the shoe of fives
    assert sorted(map(tuple, state["open_conditions"])) == [("BJ-01", "advantage_play", "p1"),
                                                            ("BJ-02", "shoe_favours_players", "H-1")]

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

    # one open alert per table, kind and subject: a second pass raises none again
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



# ---- one alert per subject (migration 0013) ----

def two_player_round(shoe: dict[str, Any], bets: dict[str, int]) -> dict[str, Any]:
    """lucky8_round's deal (both stand, the dealer busts: each wins their wager) for the two
    players ``bets`` names, seated at areas 1 and 2 in that order."""
    (first, a), (second, b) = bets.items()
    doc = lucky8_round(shoe, a, b)
    doc["seated"] = {first: 1, second: 2}
    doc["events"][0]["player"], doc["events"][1]["player"] = first, second
    return doc


def shoes(db: Path, first: int, follower: str, other: str, other_bets: tuple[int, int]) -> None:
    """Six shoes S-first.. of BJ-01, each round A (true count 0) then B (true count +0.51): the
    ``follower`` bets 10 then 50, ``other`` ``other_bets``."""
    for n in range(first, first + 6):
        for dealt, bet, other_bet in ((0, 10, other_bets[0]), (7, 50, other_bets[1])):
            doc = two_player_round({"id": f"S-{n}", "dealt": dealt}, {follower: bet, other: other_bet})
            recorded(db, "BJ-01", doc, {follower: bet, other: other_bet})


def subjects(url: str, kind: str) -> list[tuple[int, str, str, bool]]:
    """(alert id, subject, detail, acknowledged) of the floor's alerts of ``kind``."""
    return [(int(i), str(s), str(d), bool(a)) for i, s, d, a in query(
        url, "SELECT a.alert_id, a.subject, a.detail, c.alert_id IS NOT NULL FROM floor.alerts a "
             "LEFT JOIN floor.alert_acks c USING (alert_id) WHERE a.kind = %s ORDER BY a.alert_id", (kind,))]


def ack(floor: Floor, alert_id: int, note: str) -> None:
    done = cli("floor", "ack", "--url", floor.review_url, "--alert", str(alert_id), "--supervisor", "sue",
               "--note", note)
    assert done.returncode == 0 and done.stdout == f"floor: alert {alert_id} acknowledged by sue\n", done.stderr


def open_alerts(floor: Floor) -> list[tuple[int, str, str, str]]:
    """(id, kind, subject, detail) of each open alert, as ``floor alerts --open`` lists them: id,
    raised, table, kind, subject ("-" when none), detail, state."""
    done = cli("floor", "alerts", "--url", floor.review_url, "--open")
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert all(len(f) == 7 for f in rows), done.stdout
    return sorted((int(f[0]), f[3], f[4], f[5]) for f in rows)


def test_each_flagged_player_has_an_alert_of_their_own_acknowledged_on_its_own(
        floor: Floor, tmp_path: Path, qtbot: object) -> None:
    """pa follows the count from the first pass; pc, seated later, from the second while pa's
    alert is open: surveillance is told of pc too. pb (flat 10) never."""
    db = tmp_path / "bj01.db"
    url = floor.station("BJ-01", "PIT-1")
    shoes(db, 1, "pa", "pb", (10, 10))
    Forwarder(db, url).forward()
    serve_once(floor, tmp_path)
    ((pa_id, subject, detail, acked),) = subjects(floor.admin_url, "advantage_play")
    assert (subject, acked) == ("pa", False) and detail.startswith("advantage play suspected: pa: 12 rounds, ")

    shoes(db, 7, "pa", "pc", (10, 50))  # pa goes on (24 rounds), pc bets as he does (12 rounds)
    Forwarder(db, url).forward()
    serve_once(floor, tmp_path)
    found = subjects(floor.admin_url, "advantage_play")
    assert [(s, a) for _, s, _, a in found] == [("pa", False), ("pc", False)]  # pa's not raised again
    assert found[0][0] == pa_id and found[0][2] == detail  # pa's alert as the first pass raised it
    pc_id = found[1][0]
    assert found[1][2].startswith("advantage play suspected: pc: 12 rounds, correlation +1.00, p-value 0")
    assert "pb" not in found[0][2] + found[1][2]
    # the listing names whose alert each is (the subject column), not only in the detail's words
    assert [(i, s) for i, _, s, _ in open_alerts(floor)] == [(pa_id, "pa"), (pc_id, "pc")]

    ack(floor, pa_id, "pa backed off; watching")
    serve_once(floor, tmp_path)  # pa still flagged (acknowledged within the quiet half hour), pc open
    assert [(s, a) for _, s, _, a in subjects(floor.admin_url, "advantage_play")] == [("pa", True), ("pc", False)]
    ((still, kind, subject, text),) = open_alerts(floor)
    assert (still, kind, subject) == (pc_id, "advantage_play", "pc")
    assert text.startswith("advantage play suspected: pc: ")

    # the pit window's Alerts tab shows whose alert it is
    from dealer_assist.floor.reader import FloorReader
    from ui.review.pit_alerts import AlertsPanel

    panel = AlertsPanel(lambda alert_id, supervisor, note: None)
    qtbot.addWidget(panel)  # type: ignore[attr-defined]
    with FloorReader(floor.review_url) as reader:
        panel.show_alerts(reader.alerts())
    assert sorted(panel.list.item(r, 3).text() for r in range(panel.list.rowCount())) == [
        "advantage_play: pa", "advantage_play: pc"]

    ack(floor, pc_id, "pc asked to flat bet")
    assert open_alerts(floor) == []


def test_each_shoe_that_favours_the_players_has_an_alert_of_its_own(floor: Floor, tmp_path: Path) -> None:
    """BJ-02's shoe H-1 and then H-2: each loses its 24 fives in three rounds (the module doc:
    about +3.8 % to the player, over the +1 % level). H-2 is raised though H-1's alert is open."""
    db = tmp_path / "bj02.db"
    url = floor.station("BJ-02", "PIT-1")
    for k in range(3):
        recorded(db, "BJ-02", fives_round(8 * k, "H-1"), {"p3": -10, "p4": -10})
    Forwarder(db, url).forward()
    serve_once(floor, tmp_path)
    for k in range(3):
        recorded(db, "BJ-02", fives_round(8 * k, "H-2"), {"p3": -10, "p4": -10})
    Forwarder(db, url).forward()
    serve_once(floor, tmp_path)
    serve_once(floor, tmp_path)  # H-2 still the current shoe: not raised again
    found = subjects(floor.admin_url, "shoe_favours_players")
    assert [(s, a) for _, s, _, a in found] == [("H-1", False), ("H-2", False)]
    # rounds 1-3 were H-1's, 4-6 H-2's; 3 x 8 cards of each shoe out
    assert found[0][2].startswith("shoe H-1 favours the players after round 3 (24 of 312 cards out, 24 on record)")
    assert found[1][2].startswith("shoe H-2 favours the players after round 6 (24 of 312 cards out, 24 on record)")
    assert subjects(floor.admin_url, "advantage_play") == []  # p3 and p4 bet flat
    ack(floor, found[0][0], "H-1 is out of play")
    assert [(i, s) for i, _, s, _ in open_alerts(floor)] == [(found[1][0], "H-2")]  # the shoe is the subject


def test_the_quiet_period_after_an_acknowledgement_is_its_subjects_own(floor: Floor) -> None:
    """Straight through floor.raise_alert as the floor service's role: a subject acknowledged
    within the quiet period is not raised again; another subject of the same table and kind is;
    the table's own kinds (no subject) keep one open alert per table and kind."""
    floor.station("BJ-05", "PIT-1")
    service = floor.server.url(floor.dbname, user=service_role(floor.dbname))

    def raised(*conditions: Condition) -> list[int]:
        with psycopg.connect(service) as conn:
            return raise_alerts(conn, list(conditions))

    (first,) = raised(Condition("BJ-05", "advantage_play", "advantage play suspected: pa", "pa"))
    assert raised(Condition("BJ-05", "advantage_play", "advantage play suspected: pa again", "pa")) == []
    ack(floor, first, "seen")
    assert raised(Condition("BJ-05", "advantage_play", "advantage play suspected: pa", "pa")) == []
    assert len(raised(Condition("BJ-05", "advantage_play", "advantage play suspected: pd", "pd"))) == 1
    (link,) = raised(Condition("BJ-05", "link_down", "link down"), Condition("BJ-05", "link_down", "link down"))
    assert raised(Condition("BJ-05", "link_down", "link down still")) == []
    assert [(k, s) for k, s in query(floor.admin_url, "SELECT kind, subject FROM floor.alerts ORDER BY alert_id")] == [
        ("advantage_play", "pa"), ("advantage_play", "pd"), ("link_down", "")]
    assert link == max(i for (i,) in query(floor.admin_url, "SELECT alert_id FROM floor.alerts"))


def test_a_floor_of_0012_upgrades_in_place_with_its_open_alerts_while_a_station_forwards(
        pg_server: Server, floor_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A floor made by the previous version (0012) with an open advantage-play alert its floor
    service raised (one per table and kind then) and an acknowledged one; `floor init` migrates it
    while the station holds its forwarded tables in an open transaction. The open alert stays
    open (no subject) and still keeps its kind's one open alert; the acknowledged one keeps its
    acknowledgement; the players are raised one by one from then on."""
    admin = pg_server.url(floor_db)
    with monkeypatch.context() as m:
        floor_version(m, "0012_protection_alerts")
        assert init_floor(admin)[-1] == "0012_protection_alerts"
        station = pg_server.url(floor_db, user=add_station(admin, "BJ-01", "PIT-1").role)
    service = pg_server.url(floor_db, user=service_role(floor_db))
    with psycopg.connect(service) as conn:  # as 0012's floor service raised them
        (old,) = conn.execute("SELECT floor.raise_alert('BJ-01', 'advantage_play', "
                              "'advantage play suspected: pa: 12 rounds | pb: 12 rounds', interval '30 minutes')"
                              ).fetchone() or (None,)
        (paced,) = conn.execute("SELECT floor.raise_alert('BJ-01', 'pace', '3 rounds in the last hour (under 30)', "
                                "interval '30 minutes')").fetchone() or (None,)
    assert old is not None and paced is not None
    with psycopg.connect(pg_server.url(floor_db, user=review_role(floor_db))) as conn:
        conn.execute("INSERT INTO floor.alert_acks (alert_id, supervisor, note) VALUES (%s, 'sue', 'slow game')",
                     (paced,))

    db = tmp_path / "bj01.db"
    shoes(db, 1, "pa", "pc", (10, 50))
    with psycopg.connect(station) as held, monkeypatch.context() as m:  # the station's forwarding transaction
        held.execute("SELECT 1 FROM floor.rounds, floor.events, floor.audit, floor.round_players, "
                     "floor.settlements, floor.sessions, floor.tables LIMIT 1")
        floor_version(m, "0013_alert_subjects")
        assert init_floor(admin) == ["0013_alert_subjects"]  # its DDL waits on no lock the station holds
        held.execute("SELECT 1")  # still in its transaction (not ended by its 15 s idle bound)
    assert init_floor(admin) == ["0014_round_reach", "0015_chain_format", "0016_audit_format"]
    assert query(admin, "SELECT alert_id, kind, subject, detail FROM floor.alerts ORDER BY alert_id") == [
        (old, "advantage_play", "", "advantage play suspected: pa: 12 rounds | pb: 12 rounds"),
        (paced, "pace", "", "3 rounds in the last hour (under 30)")]
    assert query(admin, "SELECT alert_id, supervisor, note FROM floor.alert_acks") == [(paced, "sue", "slow game")]
    assert Forwarder(db, station).forward().rounds == 12  # 6 shoes x 2 rounds

    floor = Floor.__new__(Floor)  # the upgraded floor, not made again
    floor.server, floor.dbname, floor.admin_url = pg_server, floor_db, admin
    floor.review_url = pg_server.url(floor_db, user=review_role(floor_db))
    with psycopg.connect(service) as conn:
        # no subject: the upgraded open alert still counts; the pace one's acknowledgement its quiet period
        assert raise_alerts(conn, [Condition("BJ-01", "advantage_play", "advantage play suspected")]) == []
        assert raise_alerts(conn, [Condition("BJ-01", "pace", "2 rounds in the last hour (under 30)")]) == []
    serve_once(floor, tmp_path)
    assert [(i == old, s, a) for i, s, _, a in subjects(admin, "advantage_play")] == [
        (True, "", False), (False, "pa", False), (False, "pc", False)]
    # the alert raised before 0013 has no subject: listed as "-" beside pa's and pc's
    assert sorted(s for _, k, s, _ in open_alerts(floor) if k == "advantage_play") == ["-", "pa", "pc"]
    ack(floor, old, "the listing before the upgrade: both seen")
    assert sorted(s for _, k, s, _ in open_alerts(floor) if k == "advantage_play") == ["pa", "pc"]
