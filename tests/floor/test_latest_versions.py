"""A round finished again at the station after it was forwarded: every floor figure and
listing reads its latest finish (floor.rounds_latest, floor.round_players_latest), not the
first forwarded copy.

BJ-07 plays the Dueling 8's example (../shared/examples/dueling8s-split-and-superb8.json):
alice main 20 and Superb 8 5 on area 2; the permanent 8S and the 8C are two 8's: the Superb 8
pays 3 to 1 (4.2: +15); split, hand 1 8S 3D doubled (40) to 21 with KS, hand 2 8C 8H = 16; the
dealer 8S 7D 9C = 24 busts: both hands win 1 to 1 (4.4.2: +40, +20).
First copy: alice +75, stakes 40 + 20 + 5 = 65, the house -75.

After it was forwarded, a 10H is found dealt to the dealer: Dueling 8's plays decks with the
four 10s removed (2.1), so a card that does not belong to the decks in use voids the round
(5.1, 5.1.1): every wager is returned. Latest: void, alice 0, the house 0, the wagers as placed
(main 20, Superb 8 5: 25).

BJ-08 plays the Ace Race round once (alice main 25, pair 5; blackjack 6 to 5 +30, pair lost
-5): alice +25, wagered 30, the house -25.
"""

from __future__ import annotations

import copy
import datetime as _dt
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.engine.transcript import settle_document
from dealer_assist.floor.reader import FloorReader, sort_key
from dealer_assist.floor.theo import pit_theo
from tests.floor.conftest import Floor
from tests.floor.helpers import cli, query
from tests.floor.stations import DOCUMENTS, make_station, open_station
from tests.floor.test_theo_floor import edges

DUELING = 5  # DOCUMENTS[5]: the Dueling 8's example
NOT_IN_THE_DECKS = {"type": "card", "card": "10H", "to": "dealer"}


def _refinished_floor(floor: Floor, tmp_path: Path) -> int:
    """BJ-07 (the Dueling 8's round, re-finished void after forwarding) and BJ-08 (Ace Race)."""
    bj07, bj08 = tmp_path / "bj07.db", tmp_path / "bj08.db"
    url07, url08 = floor.station("BJ-07", "PIT-2"), floor.station("BJ-08", "PIT-2")
    (rid,) = make_station(bj07, "BJ-07", "PIT-2", rounds=1, start=DUELING)
    make_station(bj08, "BJ-08", "PIT-2", rounds=1, start=0)
    for db, url in ((bj07, url07), (bj08, url08)):
        assert cli("forward", "--db", str(db), "--to", url).returncode == 0
    document = copy.deepcopy(DOCUMENTS[DUELING])
    document["events"].append(NOT_IN_THE_DECKS)
    with open_station(bj07) as store:
        store.append_event(rid, NOT_IN_THE_DECKS, actor="dealer:ann")
        store.finish_round(rid, settle_document(document), actor="dealer:ann")
    done = cli("forward", "--db", str(bj07), "--to", url07)
    assert done.returncode == 0, done.stderr
    assert "1 rounds finished again" in done.stdout
    # the floor's first copy is as forwarded: settled, alice +75 (the station role only inserts)
    assert query(floor.admin_url, "SELECT status, wagered, house_net FROM floor.rounds WHERE table_name = 'BJ-07'") == [
        ("settled", Decimal(65), Decimal(-75))]
    return rid


def test_a_refinished_round_is_listed_filtered_and_sorted_by_its_latest_finish(floor: Floor, tmp_path: Path) -> None:
    rid = _refinished_floor(floor, tmp_path)
    with FloorReader(floor.review_url) as reader:
        (row,) = reader.list_rounds(table="BJ-07")
        assert (row.id, row.status, row.net, row.wagered, row.house_net) == (
            rid, "void", {"alice": 0}, Decimal(25), Decimal(0))
        # filters read the latest finish
        assert [r.table for r in reader.list_rounds(pit="PIT-2", status="void")] == ["BJ-07"]
        assert [r.table for r in reader.list_rounds(pit="PIT-2", status="settled")] == ["BJ-08"]
        assert [r.table for r in reader.list_rounds(pit="PIT-2", min_net=Decimal(50))] == []
        assert [r.table for r in reader.list_rounds(pit="PIT-2", min_net=Decimal(25))] == ["BJ-08"]
        assert [r.table for r in reader.list_rounds(pit="PIT-2", min_wagered=Decimal(30))] == ["BJ-08"]
        # sorts too: the house's net 0 (BJ-07) above -25 (BJ-08); wagered 30 (BJ-08) above 25
        assert [r.table for r in reader.list_rounds(pit="PIT-2", sort="house")] == ["BJ-07", "BJ-08"]
        assert [r.table for r in reader.list_rounds(pit="PIT-2", sort="wagered")] == ["BJ-08", "BJ-07"]
        first = reader.list_rounds(pit="PIT-2", sort="wagered", limit=1)
        assert [r.table for r in reader.list_rounds(pit="PIT-2", sort="wagered", limit=1,
                                                    before=sort_key(first[0], "wagered"))] == ["BJ-07"]


def test_hourly_win_hold_and_a_players_rounds_use_the_latest_finish(floor: Floor, tmp_path: Path) -> None:
    rid = _refinished_floor(floor, tmp_path)
    now = _dt.datetime.now(_dt.UTC)
    since, until = now - _dt.timedelta(hours=3), now + _dt.timedelta(hours=3)
    with FloorReader(floor.review_url) as reader:
        by_table = {f.key: f for f in reader.hourly(pit="PIT-2", since=since, until=until)}
        assert {k: (f.rounds, f.wagered, f.house_net, f.net_wagered_percent) for k, f in by_table.items()} == {
            "BJ-07": (1, Decimal(25), Decimal(0), Decimal("0.00")),
            # the house lost 25 on 30 wagered: net/wagered -83.33 %
            "BJ-08": (1, Decimal(30), Decimal(-25), Decimal("-83.33")),
        }
        (ann,) = reader.hourly(pit="PIT-2", since=since, until=until, by="dealer")
        assert (ann.key, ann.rounds, ann.wagered, ann.house_net) == ("ann", 2, Decimal(55), Decimal(-25))
        # alice's rounds across the tables, and her play per table (matched partially, any case)
        mine = {r.table: r for r in reader.list_rounds(player="alice")}
        assert (mine["BJ-07"].id, mine["BJ-07"].status, mine["BJ-07"].net) == (rid, "void", {"alice": 0})
        assert mine["BJ-08"].net == {"alice": 25}
        assert [r.table for r in reader.list_rounds(player="ALI", player_partial=True, min_net=Decimal(1))] == [
            "BJ-08"]
        play = {t: (n, w, net) for _, t, _, n, w, net in reader.player_play("ALI", since=since, until=until)}
        assert play == {"BJ-07": (1, Decimal(25), Decimal(0)), "BJ-08": (1, Decimal(30), Decimal(25))}
        # theoretical win counts settled rounds: BJ-07's round is void now. BJ-08: 1 % of the
        # main 25 and 10 % of the pair 5 (the edges of test_theo_floor): 0.75; the house -25.
        theo = pit_theo(reader, pit="PIT-2", edges=edges)
        assert set(theo) == {"BJ-08"}
        assert (theo["BJ-08"].theo, theo["BJ-08"].actual) == (Decimal("0.75"), Decimal(-25))


@pytest.mark.gui
def test_the_pit_window_shows_the_latest_finish(floor: Floor, tmp_path: Path, qtbot: Any) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from ui.review.pit_view import PitWindow

    rid = _refinished_floor(floor, tmp_path)
    window = PitWindow(floor.review_url)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.pit.count() == 2 and window.pending == 0 and bool(window.states), timeout=20000)
    window.pit.setCurrentText("PIT-2")
    window.player.setText("ali")
    window.refresh()
    qtbot.waitUntil(lambda: window.pending == 0, timeout=20000)
    shown = {r.table: r for r in window.rounds_shown}
    assert (shown["BJ-07"].id, shown["BJ-07"].status, shown["BJ-07"].net) == (rid, "void", {"alice": 0})
    # net/wagered % per table: BJ-07 0 (all returned), BJ-08 -25 / 30 = -83.33 %
    assert {k: [y for _, y in v] for k, v in window.charts.series["net/wagered"].items()} == {
        "BJ-07": [0.0], "BJ-08": [-83.33]}
    # alice's net per table and hour
    assert {k: [y for _, y in v] for k, v in window.charts.series["play"].items()} == {
        "alice at BJ-07": [0.0], "alice at BJ-08": [25.0]}
    window.close()
