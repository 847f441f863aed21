"""The table's set-up changed at the table through the station service (issue 23: "table
settings a supervisor changes at the table (game, limits, set-up) are changed through the
service after a supervisor's PIN and audited old -> new in the store").

Op ``set_table`` carries the set-up (ui's SetupDialog fields) and a supervisor's PIN or a
``setup`` approval. It is refused between the first wager and the round's end (3.6: the
limits displayed at the table govern the wagers on it), and a set-up a round cannot open
with is refused naming the clause (2.1 decks, 3.6 limits of a table game, 2.2 Electronic's,
Appendix A areas). Nothing changes on a refusal.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from dealer_assist.engine.transcript import settle_text
from dealer_assist.games import GAMES
from dealer_assist.service.client import ServiceClient, ServiceError
from dealer_assist.service.table import SETUP_CHANGED_KIND
from tests.service.conftest import Station, wait_connected

BOB = {"user": "bob", "pin": "551903"}  # a supervisor (tests/service/conftest.py)
LUCKY8 = {"game": "lucky8", "decks": 6, "areas": 7, "limits": {}, "seated": {"p1": 1, "p2": 2, "p3": 3},
          "terminals": ["t1", "t2", "t3"], "decision_seconds": 20, "chips": [5, 25, 100, 500, 1000]}


def refusal(c: ServiceClient, **args: Any) -> ServiceError:
    before = c.request("state")
    with pytest.raises(ServiceError) as caught:
        c.request("set_table", **args)
    after = c.request("state")
    assert after["setup"] == before["setup"] and after["config"] == before["config"]  # nothing changed
    return caught.value


def test_a_supervisor_changes_the_game_and_limits_audited_old_to_new(station: Any) -> None:
    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    state = c.request("state")
    assert state["setup"] == LUCKY8 and state["config"]["game"] == "lucky8"  # the default station
    ace = {**LUCKY8, "game": "ace_race", "decks": 6, "areas": 6,
           "limits": {"main": [10, 500], "ace_race": [5, 50]}}
    no_pin = refusal(c, setup=ace)
    assert no_pin.code == "pin"
    wrong = refusal(c, setup=ace, pin={"user": "bob", "pin": "000000"})
    assert wrong.code == "pin"
    dealer_pin = refusal(c, setup=ace, pin={"user": "ann", "pin": "730418"})  # a dealer is no supervisor
    assert dealer_pin.code == "pin"
    assert s.running is not None
    assert s.running.store.audit_entries(kind=SETUP_CHANGED_KIND) == []

    state = c.request("set_table", setup=ace, pin=BOB)
    assert state["setup"] == ace
    # the round now taking bets is an Ace Race round with the new limits
    assert state["config"]["game"] == "ace_race" and state["config"]["areas"] == 6
    assert state["config"]["limits"] == {"main": [10, 500], "ace_race": [5, 50]}
    [entry] = s.running.store.audit_entries(kind=SETUP_CHANGED_KIND)
    assert entry.actor == "supervisor:bob" and entry.detail["dealer"] == "ann"
    assert entry.detail["changes"] == {"game": ["lucky8", "ace_race"], "areas": [7, 6],
                                       "limits": [{}, {"main": [10, 500], "ace_race": [5, 50]}]}
    assert entry.detail["old"] == LUCKY8 and entry.detail["new"] == ace
    approval = s.running.store.audit_entries(kind="setup")
    assert [a.id for a in approval] == [entry.detail["approval"]] and approval[0].actor == "bob"

    c.request("set_slip", wagers=[{"player": "p1", "bet": "main", "amount": 10, "area": 1}])
    # a wager is on the layout: the set-up waits for the round's end (3.6)
    between = refusal(c, setup={**ace, "limits": {}}, pin=BOB)
    assert between.code == "refused" and between.clause == "3.6" and "between rounds" in between.message
    state = s.deal(c, 1)
    assert [e["card"] for e in state["events"] if e["type"] == "card"] == ["10S"]
    assert s.running.store.find_open_round().config["game"] == "ace_race"


@pytest.mark.parametrize(("setup", "clause", "words"), [
    ({"game": "lucky8", "decks": 9}, "2.1", "1 to 8 decks, not 9"),
    ({"game": "star_elements", "decks": 3}, "2.1", "4 to 6 decks, not 3"),
    ({"game": "ace_race", "areas": 4}, None, "5 to 7 playing areas, not 4 (Appendix A)"),
    ({"game": "dueling8s", "limits": {"main": [500, 10]}}, "3.6", "minimum 500 is above its maximum 10"),
    ({"game": "dueling8s", "limits": {"pair": [5, 50]}}, "3.6", "Dueling 8's 21+ has no 'pair' wager"),
    ({"game": "electronic", "decks": 6, "limits": {"lucky8": [5, 50]}}, "2.2",
     "Electronic Blackjack has no 'lucky8' wager"),
    ({"game": "electronic", "decks": 6, "decision_seconds": 2}, "3.18.1", "5 to 120 seconds, not 2"),
])
def test_a_set_up_no_round_can_open_with_is_refused_naming_the_clause(
        station: Any, setup: dict[str, Any], clause: str | None, words: str) -> None:
    s: Station = station("10S 9H")
    c = s.dealer()
    refused = refusal(c, setup={**LUCKY8, **setup}, pin=BOB)
    assert refused.code == "refused" and refused.clause == clause, refused.message
    assert words in refused.message, refused.message
    if clause:
        assert f"({clause})" in refused.message
    assert s.running is not None and s.running.store.audit_entries(kind=SETUP_CHANGED_KIND) == []


def test_bad_requests_and_an_unknown_game(station: Any) -> None:
    s: Station = station("10S 9H")
    c = s.dealer()
    assert refusal(c, setup="lucky8", pin=BOB).code == "bad_request"
    assert refusal(c, setup={**LUCKY8, "colour": "green"}, pin=BOB).code == "bad_request"
    assert refusal(c, setup={**LUCKY8, "decks": "six"}, pin=BOB).code == "bad_request"
    unknown = refusal(c, setup={**LUCKY8, "game": "baccarat"}, pin=BOB)
    assert unknown.code == "refused" and "baccarat" in unknown.message and "lucky8" in unknown.message
    nobody = s.client()  # no dealer logged in on this connection
    with pytest.raises(ServiceError) as auth:
        nobody.request("set_table", setup={**LUCKY8, "game": "ace_race"}, pin=BOB)
    assert auth.value.code == "auth"


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_can_be_set_up_and_is_kept_over_a_restart(station: Any, game: str) -> None:
    s: Station = station("10S 9H")
    c = s.dealer()
    rules = GAMES[game]
    setup = {**LUCKY8, "game": game, "decks": rules.deck_range[1], "areas": min(max(3, rules.area_range[0]), rules.area_range[1]),
             "limits": {"main": [5, 100], rules.side_bets[0]: [1, 25]}}
    approval = c.request("approve", kind="setup", user="bob", pin="551903")["approval"]
    state = c.request("set_table", setup=setup, approval=approval)
    assert state["config"]["game"] == game and state["config"]["decks"] == rules.deck_range[1]
    # an approval is used once
    again = refusal(c, setup={**setup, "limits": {}}, approval=approval)
    assert again.code == "pin"
    s.stop()
    s.start()
    wait_connected(s)
    c = s.dealer()
    state = c.request("state")
    assert state["setup"] == setup and state["config"]["game"] == game
    assert state["config"]["limits"] == {"main": [5, 100], rules.side_bets[0]: [1, 25]}


def test_root_changing_the_game_in_station_toml_wins_over_the_set_up_kept_in_the_store(tmp_path: Any) -> None:
    """The supervisor's set-up is kept over a restart; root's later `station init` (a new game
    in station.toml) is reported as a significant event and its game is the table's from then
    on; a restart with no change to the file keeps whatever was chosen last."""
    from tests.service.conftest import make_shoe

    config = tmp_path / "station.toml"
    config.write_text('[table]\nname = "BJ-07"\ngame = "lucky8"\n', encoding="utf-8")
    s = Station(tmp_path / "state", tmp_path / "run" / "s.sock", make_shoe("10S"), config=str(config))
    try:
        s.start()
        wait_connected(s)
        c = s.dealer()
        c.request("set_table", setup={**LUCKY8, "game": "dueling8s", "areas": 7}, pin=BOB)
        s.stop()
        s.start()  # the file unchanged: the supervisor's Dueling 8's stays
        assert s.client().request("state")["config"]["game"] == "dueling8s"
        s.stop()
        config.write_text('[table]\nname = "BJ-07"\ngame = "star_elements"\n', encoding="utf-8")  # root
        running = s.start()
        state = s.client().request("state")
        assert state["config"]["game"] == "star_elements" and state["setup"]["game"] == "star_elements"
        [changed] = running.store.audit_entries(kind="station_config_changed")
        assert changed.detail["changes"]["game"] == ["lucky8", "star_elements"]
        adopted = running.store.audit_entries(kind=SETUP_CHANGED_KIND)[-1]  # the table's set-up, old -> new
        assert adopted.actor == "service" and adopted.detail["changes"]["game"] == ["dueling8s", "star_elements"]
        assert adopted.detail["source"] == str(config)
        s.stop()
        s.start()  # reported once; the file's game stays
        assert s.client().request("state")["config"]["game"] == "star_elements"
    finally:
        s.stop()
        s.sim.close()


def test_limits_in_cents_round_trip_exactly_from_set_up_to_the_transcript_and_its_settlement(station: Any) -> None:
    """Lucky 8, main limits 0.10 / 12.35 set by a supervisor: p1 wagers the maximum 12.35 on
    10+Q = 20, the dealer 9+8 = 17 stands, p1 is paid even money, 12.35 (4.3.2). The limits
    stay 0.10 and 12.35 in the service's set-up, the round's header, the exported
    transcript's JSON text (numbers, spec/round-script.md "Input") and its settlement."""
    s: Station = station("10S 9H QD 8C")
    c = s.dealer()
    limits = {"main": [Decimal("0.10"), Decimal("12.35")]}
    state = c.request("set_table", setup={**LUCKY8, "limits": limits}, pin=BOB)
    assert state["setup"]["limits"] == {"main": [Decimal("0.1"), Decimal("12.35")]}
    assert state["config"]["limits"] == {"main": [Decimal("0.1"), Decimal("12.35")]}
    assert s.running is not None
    assert s.running.service.setup.limits == {"main": [Decimal("0.10"), Decimal("12.35")]}
    assert all(type(v) is Decimal for v in s.running.service.setup.limits["main"])  # never a float
    [entry] = s.running.store.audit_entries(kind=SETUP_CHANGED_KIND)
    assert entry.detail["changes"]["limits"] == [{}, {"main": [0.1, 12.35]}]

    over = refusal(c, setup={**LUCKY8, "limits": {"main": [Decimal("0.10"), Decimal("12.345")]}}, pin=BOB)
    assert over.code == "refused" and over.clause == "3.6" and "12.345" in over.message, over.message

    c.request("wager", player="p1", bet="main", amount=Decimal("12.35"), area=1)
    s.deal(c, 3)
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    state = s.deal(c, 1)
    assert state["output"]["status"] == "settled" and state["output"]["net"] == {"p1": Decimal("12.35")}
    text = json.dumps(s.running.store.export_round(state["round_id"]), indent=1)
    assert '"main": [\n   0.1,\n   12.35\n  ]' in text, text[:400]
    settled = settle_text(text)
    assert settled["net"] == {"p1": 12.35} and Decimal(str(settled["net"]["p1"])) == Decimal("12.35")


def test_a_limit_in_fractions_of_a_cent_is_refused_naming_electronic_2_2(station: Any) -> None:
    s: Station = station("10S 9H")
    c = s.dealer()
    bad = refusal(c, setup={**LUCKY8, "game": "electronic", "decks": 6,
                            "limits": {"main": [Decimal("5"), Decimal("99.999")]}}, pin=BOB)
    assert bad.code == "refused" and bad.clause == "2.2" and "99.999" in bad.message, bad.message


def test_a_set_up_an_older_version_remembered_with_float_limits_is_read_exactly(station: Any) -> None:
    """An older service wrote the set-up's limits as floats (12.5, 0.1): after a restart the
    table's limits are exactly 12.5 and 0.10 (read through their text, not the float's binary
    value)."""
    s: Station = station("10S 9H")
    s.dealer()
    assert s.running is not None
    old_new = {**LUCKY8, "game": "ace_race", "areas": 7, "limits": {"main": [0.1, 12.5], "ace_race": [1.05, 7.3]}}
    s.running.store.add_audit(SETUP_CHANGED_KIND, actor="supervisor:bob",
                              detail={"old": LUCKY8, "new": old_new, "changes": {"game": ["lucky8", "ace_race"]}})
    s.stop()
    running = s.start()
    wait_connected(s)
    assert running.service.setup.game == "ace_race"
    assert running.service.setup.limits == {"main": [Decimal("0.10"), Decimal("12.50")],
                                            "ace_race": [Decimal("1.05"), Decimal("7.30")]}
    assert s.client().request("state")["config"]["limits"] == {"main": [Decimal("0.1"), Decimal("12.5")],
                                                              "ace_race": [Decimal("1.05"), Decimal("7.3")]}
