"""The review's queries (no Qt): filtering, keyset paging, replay, re-decide, integrity, summaries, CSV.

Expected values are worked by hand in tests/ui_review/rounds.py and
../shared/examples/README.md; the store is built by conftest.build_store.
"""

from __future__ import annotations

import datetime as _dt
import sqlite3
from decimal import Decimal
from typing import Any

import pytest

from dealer_assist.store import Store, StoreReader, format_time
from dealer_assist.store.review_queries import (
    SORT_KEYS,
    RoundFilter,
    count_rounds,
    integrity_verdict,
    page_rounds,
    read_settlement_csv,
    redecide,
    replay,
    round_integrity,
    settlement_csv_text,
    summaries,
)
from tests.ui_review.conftest import Recorded


def _ids(store: StoreReader, flt: RoundFilter, **kw: Any) -> list[int]:
    return [r.id for r in page_rounds(store, flt, limit=1000, **kw)]


def test_list_holds_every_game_latest_first(recorded: Recorded) -> None:
    with StoreReader.open(recorded.path) as store:
        rows = page_rounds(store, RoundFilter())
    # 7 rounds recorded, one after another: ids 7..1, newest first
    assert [r.id for r in rows] == sorted(recorded.ids.values(), reverse=True)
    assert {r.game for r in rows} == {"ace_race", "electronic", "star_elements", "lucky8", "dueling8s"}
    by_id = {r.id: r for r in rows}
    ace = by_id[recorded.ids["ace_race"]]
    assert (ace.dealer, ace.status, ace.net) == ("ann", "settled", {"alice": Decimal(25)})
    # the table won -25 on it: minus the players' +25
    assert ace.house_net == Decimal(-25)
    assert by_id[recorded.ids["star_elements"]].dealer is None  # a transcript has no session


@pytest.mark.parametrize(
    ("flt", "names"),
    [
        (RoundFilter(game="lucky8"), {"lucky8_example", "lucky8_ruling", "lucky8_void"}),
        (RoundFilter(status="void"), {"lucky8_void"}),
        # rulings or void/referred: the 5.13 reconstruction and the 5.1 void
        (RoundFilter(irregular=True), {"lucky8_ruling", "lucky8_void"}),
        # player names starting with "al": alice played in five of the rounds
        (RoundFilter(player="al"),
         {"lucky8_example", "dueling8s_example", "ace_race", "lucky8_ruling", "lucky8_void"}),
        (RoundFilter(player="bob"), {"lucky8_example", "lucky8_ruling", "star_elements"}),
        (RoundFilter(player="t"), {"electronic_example"}),
        (RoundFilter(player="zed"), set()),
        # some player won or lost at least 100: bob +150 (lucky 8 example), t2 +105 (electronic)
        (RoundFilter(min_amount=Decimal(100)), {"lucky8_example", "electronic_example"}),
        # at least 50: also alice +75 (dueling 8's) and bob +50 (star elements); bob +40 is not
        (RoundFilter(min_amount=Decimal(50)),
         {"lucky8_example", "electronic_example", "dueling8s_example", "star_elements"}),
        (RoundFilter(game="lucky8", player="bob", irregular=True), {"lucky8_ruling"}),
    ],
)
def test_filters(recorded: Recorded, flt: RoundFilter, names: set[str]) -> None:
    expected = {recorded.ids[n] for n in names}
    with StoreReader.open(recorded.path) as store:
        assert set(_ids(store, flt)) == expected
        assert count_rounds(store, flt) == len(expected)


def test_date_range(recorded: Recorded) -> None:
    now = _dt.datetime.now(_dt.UTC)
    tomorrow = format_time(now + _dt.timedelta(days=1))
    yesterday = format_time(now - _dt.timedelta(days=1))
    with StoreReader.open(recorded.path) as store:
        assert _ids(store, RoundFilter(since=tomorrow)) == []
        assert len(_ids(store, RoundFilter(since=yesterday, until=tomorrow))) == 7
        assert _ids(store, RoundFilter(until=yesterday)) == []


def test_unknown_status_is_refused(recorded: Recorded) -> None:
    with StoreReader.open(recorded.path) as store, pytest.raises(ValueError, match="unknown status"):
        page_rounds(store, RoundFilter(status="paid"))


@pytest.mark.parametrize("sort", list(SORT_KEYS))
@pytest.mark.parametrize("descending", [True, False])
@pytest.mark.parametrize(("flt", "names"), [
    (RoundFilter(), None),
    # alice: lucky 8 example, dueling 8's example, ace race, the 5.13 round, the void round
    (RoundFilter(player="alice"),
     {"lucky8_example", "dueling8s_example", "ace_race", "lucky8_ruling", "lucky8_void"}),
    (RoundFilter(status="settled"), {"lucky8_example", "dueling8s_example", "electronic_example", "ace_race",
                                     "lucky8_ruling", "star_elements"}),
])
def test_keyset_pages_cover_every_round_once(recorded: Recorded, sort: str, descending: bool,
                                             flt: RoundFilter, names: set[str] | None) -> None:
    with StoreReader.open(recorded.path) as store:
        conn = store
        whole = page_rounds(conn, flt, sort=sort, descending=descending, limit=100)
        paged: list[int] = []
        after = None
        while True:
            page = page_rounds(conn, flt, sort=sort, descending=descending, after=after, limit=2)
            if not page:
                break
            paged += [r.id for r in page]
            after = page[-1].key(sort)
    assert paged == [r.id for r in whole]
    expected = recorded.ids.values() if names is None else [recorded.ids[n] for n in names]
    assert sorted(paged) == sorted(expected)
    keys = [r.key(sort) for r in whole]
    assert keys == sorted(keys, reverse=descending)


def test_sort_by_game(recorded: Recorded) -> None:
    with StoreReader.open(recorded.path) as store:
        rows = page_rounds(store, RoundFilter(), sort="game", descending=False)
    # alphabetical by game key, then by id
    assert [r.game for r in rows] == ["ace_race", "dueling8s", "electronic", "lucky8", "lucky8", "lucky8",
                                      "star_elements"]
    ids = recorded.ids
    assert [r.id for r in rows if r.game == "lucky8"] == [ids["lucky8_example"], ids["lucky8_ruling"],
                                                          ids["lucky8_void"]]


def test_replay_steps_through_the_reconstruction(recorded: Recorded) -> None:
    with StoreReader.open(recorded.path) as store:
        detail = store.get_round(recorded.ids["lucky8_ruling"])
    assert detail is not None
    steps = replay(detail.config, [e.event for e in detail.events])
    assert len(steps) == 13  # before any event + 12 events
    assert steps[0].output["areas"] == [] or all(not a["hands"] for a in steps[0].output["areas"])

    def hand(step: int, area: int) -> list[str]:
        for a in steps[step].output["areas"]:
            if a["area"] == area:
                return list(a["hands"][0]["cards"]) if a["hands"] else []
        return []

    # step 4 = after event 3 (10S to area 1)
    assert hand(4, 1) == ["10S"]
    # step 5 = after event 4: 9C put on area 1 but due to area 3; reconstructed (lucky-8 5.13)
    assert hand(5, 1) == ["10S"] and hand(5, 3) == ["9C"]
    assert [(r["rule"], r["ruling"]) for r in steps[5].output["rulings"]] == [("5.13", "reconstructed")]
    assert steps[5].output["rulings"][0]["moves"] == [{"card": "9C", "from": "area:1/1", "to": "area:3/1"}]
    # the end: alice 10S 8H = 18, bob 9C 10D = 19, dealer 5D 10C 9H = 24
    assert hand(12, 1) == ["10S", "8H"] and hand(12, 3) == ["9C", "10D"]
    assert steps[12].output["dealer"]["cards"] == ["5D", "10C", "9H"]
    assert steps[12].output["status"] == "settled"
    assert all(s.refusal is None for s in steps)


def test_redecide_honest_rounds_show_no_difference(recorded: Recorded) -> None:
    with StoreReader.open(recorded.path) as store:
        for name, rid in recorded.ids.items():
            result = redecide(store, rid)
            assert result.error is None, name
            assert result.differences == [], name
            assert result.same


def _alter_pair_settlement(path: Any, round_id: int) -> None:
    """Someone changes the derived record: alice's lost pair wager now reads as won 11 to 1."""
    conn = sqlite3.connect(path)
    with conn:
        changed = conn.execute(
            "UPDATE settlements SET result = 'win', net = '55' WHERE round_id = ? AND bet = 'pair'", (round_id,)
        ).rowcount
    conn.close()
    assert changed == 1


def test_redecide_shows_an_altered_settlement(recorded: Recorded) -> None:
    rid = recorded.ids["ace_race"]
    _alter_pair_settlement(recorded.path, rid)
    with StoreReader.open(recorded.path) as store:
        result = redecide(store, rid)
    assert not result.same
    # A-K is no pair: the pair wager loses its 5 (3.15.1); the altered row says won 55
    assert [(d.what, d.key, d.recorded, d.redecided) for d in result.differences] == [
        ("settlement", "alice area 1 pair", "stake 5 win net 55 (3.15.1)", "stake 5 lose net -5 (3.15.1)"),
    ]


def test_redecide_shows_a_changed_event(recorded: Recorded) -> None:
    """The event log itself edited: alice's main wager 25 -> 50. Blackjack 6 to 5 on 50 is 60."""
    rid = recorded.ids["ace_race"]
    conn = sqlite3.connect(recorded.path)
    with conn:
        conn.execute("UPDATE events SET event_json = replace(event_json, '\"amount\":25', '\"amount\":50') "
                     "WHERE round_id = ? AND seq = 0", (rid,))
    conn.close()
    with StoreReader.open(recorded.path) as store:
        result = redecide(store, rid)
        checks = {c.name: c for c in round_integrity(store, rid)}
    diffs = {(d.what, d.key): (d.recorded, d.redecided) for d in result.differences}
    assert diffs[("settlement", "alice area 1 hand 1 main")] == (
        "stake 25 win net 30 (4.3.1)", "stake 50 win net 60 (4.3.1)")
    # net: +60 - 5 = +55 instead of +25
    assert diffs[("net", "alice")] == ("25", "55")
    assert not checks["events"].ok and "event 0" in checks["events"].detail


def test_integrity_of_an_honest_round(recorded: Recorded) -> None:
    with StoreReader.open(recorded.path) as store:
        for rid in recorded.ids.values():
            checks = round_integrity(store, rid)
            assert [c.name for c in checks] == ["round header", "events", "audit entries", "finish record",
                                                "settlement rows"]
            assert all(c.ok for c in checks), checks


def test_integrity_names_the_altered_settlement_rows(recorded: Recorded) -> None:
    rid = recorded.ids["ace_race"]
    _alter_pair_settlement(recorded.path, rid)
    with StoreReader.open(recorded.path) as store:
        checks = {c.name: c for c in round_integrity(store, rid)}
        others = [round_integrity(store, r) for r in recorded.ids.values() if r != rid]
    assert not checks["settlement rows"].ok
    assert "alice area 1 pair" in checks["settlement rows"].detail
    assert checks["events"].ok and checks["finish record"].ok
    assert all(c.ok for checks_ in others for c in checks_)


def test_integrity_names_an_altered_status(recorded: Recorded) -> None:
    rid = recorded.ids["lucky8_void"]
    conn = sqlite3.connect(recorded.path)
    with conn:
        conn.execute("UPDATE rounds SET status = 'settled' WHERE id = ?", (rid,))
    conn.close()
    with StoreReader.open(recorded.path) as store:
        checks = {c.name: c for c in round_integrity(store, rid)}
        file_result = store.verify()
    assert not checks["finish record"].ok
    assert "status settled but the audit record says void" in checks["finish record"].detail
    assert not file_result.ok and file_result.row_id == rid


def test_session_summaries(recorded: Recorded) -> None:
    with StoreReader.open(recorded.path) as store:
        found = {s.label: s for s in summaries(store, "session")}
    ann = found[f"session {recorded.sessions['ann']}"]
    assert (ann.dealer, ann.game, ann.rounds, ann.irregular) == ("ann", "ace_race", 1, 0)
    bets = {b.bet: b for b in ann.bets}
    # main 25 paid 6 to 5 = +30 to alice: the table's hold is -30/25 = -120 %
    assert (bets["main"].wagered, bets["main"].player_net, bets["main"].hold_pct) == (
        Decimal(25), Decimal(30), Decimal("-120.00"))
    # pair 5 lost: the table keeps 5 of 5 = 100 %
    assert (bets["pair"].wagered, bets["pair"].house_net, bets["pair"].hold_pct) == (
        Decimal(5), Decimal(5), Decimal("100.00"))
    # all: -25 on 30 wagered = -83.33 %
    assert (ann.total.wagered, ann.total.house_net, ann.total.hold_pct) == (
        Decimal(30), Decimal(-25), Decimal("-83.33"))

    ben = found[f"session {recorded.sessions['ben']}"]
    assert (ben.rounds, ben.statuses, ben.irregular) == (2, {"settled": 1, "void": 1}, 2)
    # main: 20 + 40 at risk (the void round's 10 was returned, not counted), both won
    assert [(b.bet, b.wagers, b.wagered, b.player_net) for b in ben.bets] == [
        ("main", 2, Decimal(60), Decimal(60))]

    transcripts = found["transcripts"]
    assert transcripts.rounds == 4
    # README nets 30 + 150 (lucky 8), 75 (dueling 8's), 0 + 105 (electronic), star elements +50
    assert transcripts.total.player_net == Decimal(410)
    # wagered: lucky 8 25+5+100+10, dueling 40+20+5, electronic 10+20+10+5, star elements 50 = 300
    assert transcripts.total.wagered == Decimal(300)


def test_dealer_summaries(recorded: Recorded) -> None:
    with StoreReader.open(recorded.path) as store:
        found = {s.label: s for s in summaries(store, "dealer")}
    assert set(found) == {"ann", "ben", "transcripts"}
    assert (found["ann"].rounds, found["ben"].rounds, found["transcripts"].rounds) == (1, 2, 4)
    assert found["ben"].total.house_net == Decimal(-60)


def test_csv_rows_round_trip(recorded: Recorded) -> None:
    with StoreReader.open(recorded.path) as store:
        detail = store.get_round(recorded.ids["ace_race"])
    assert detail is not None
    rows = read_settlement_csv(settlement_csv_text(detail.summary.id, detail.settlements))
    rid = str(detail.summary.id)
    assert rows == [
        {"round": rid, "player": "alice", "area": "1", "hand": "1", "bet": "main", "stake": "25",
         "result": "win", "net": "30", "rule": "4.3.1", "stage": "interim"},
        {"round": rid, "player": "alice", "area": "1", "hand": "", "bet": "pair", "stake": "5",
         "result": "lose", "net": "-5", "rule": "3.15.1", "stage": "interim"},
    ]


def test_first_altered_settlements(recorded: Recorded) -> None:
    with StoreReader.open(recorded.path) as store:
        assert store.first_altered_settlements() is None
    _alter_pair_settlement(recorded.path, recorded.ids["ace_race"])
    conn = sqlite3.connect(recorded.path)
    with conn:  # a later round altered too: the first one is named
        conn.execute("UPDATE settlements SET stake = '60' WHERE round_id = ?", (recorded.ids["star_elements"],))
    conn.close()
    with StoreReader.open(recorded.path) as store:
        assert store.first_altered_settlements() == recorded.ids["ace_race"]


def test_replay_and_redecide_of_events_the_rules_refuse(tmp_path: Any) -> None:
    """A recorded wager after "no more bets" (lucky-8 5.3): the replay step says so and keeps
    the round as it was; re-decide reports the refusal instead of a result."""
    document = {"game": "lucky8", "decks": 6, "areas": 7, "events": [
        {"type": "wager", "player": "alice", "area": 1, "bet": "main", "amount": 10},
        {"type": "no_more_bets"},
        {"type": "wager", "player": "bob", "area": 2, "bet": "main", "amount": 10},
        {"type": "card", "card": "4S"},
    ]}
    recorded_output = {"game": "lucky8", "status": "in_progress", "settlements": [], "net": {}, "rulings": []}
    with Store.open(tmp_path / "t.db") as store:
        rid = store.record_document(document, recorded_output)
    steps = replay(document, document["events"])
    with StoreReader.open(tmp_path / "t.db") as reader:
        result = redecide(reader, rid)
    assert [s.refusal is not None for s in steps] == [False, False, False, True, False]
    assert steps[3].refusal is not None and steps[3].refusal.endswith("(5.3)")
    assert "event 2 (wager main, area 2, player bob)" in steps[3].refusal
    # bob's wager never reached the layout; the 4S went to area 1, the only wager
    assert [a["area"] for a in steps[4].output["areas"]] == [1]
    assert steps[4].output["areas"][0]["hands"][0]["cards"] == ["4S"]
    assert result.output is None and result.error is not None
    assert result.error.startswith("event 2 (wager main, area 2, player bob)") and result.error.endswith("(5.3)")


def test_every_replay_step_equals_the_round_rebuilt_to_that_step(recorded: Recorded) -> None:
    """The replay keeps a copy per step; each must show what a fresh round given the same
    first events shows (checked after the whole replay, so a shared state would show)."""
    from dealer_assist.engine.transcript import new_round, parse_event, round_output

    with StoreReader.open(recorded.path) as store:
        for rid in recorded.ids.values():
            detail = store.get_round(rid)
            assert detail is not None
            events = [e.event for e in detail.events]
            steps = replay(detail.config, events)
            assert len(steps) == len(events) + 1
            for k, step in enumerate(steps):
                fresh = new_round(dict(detail.config))
                for raw in events[:k]:
                    fresh.apply(parse_event(raw))
                assert step.output == round_output(fresh), (rid, k)
                assert round_output(step.round) == step.output


@pytest.mark.parametrize("few", [1, 5000])
def test_status_filter_pages_by_either_index(recorded: Recorded, monkeypatch: Any, few: int) -> None:
    """A status with few rounds is read by the status index, a common one along the start-time
    index (``_FEW`` decides): both give the same pages."""
    import dealer_assist.store.review_queries as queries

    monkeypatch.setattr(queries, "_FEW", few)
    settled = sorted((i for n, i in recorded.ids.items() if n != "lucky8_void"), reverse=True)
    with StoreReader.open(recorded.path) as store:
        conn = store
        paged: list[int] = []
        after = None
        while page := page_rounds(conn, RoundFilter(status="settled"), after=after, limit=4):
            paged += [r.id for r in page]
            after = page[-1].key("time")
    assert paged == settled


def test_a_copy_without_its_station_key_is_not_checked_rather_than_altered(recorded: Recorded) -> None:
    """The review of a station's copy (op snapshot: the service keeps the key) cannot check the
    keyed chains: that is "not checked", never "altered"; an honest round with its key is
    "intact", an altered one "altered" (the settlement row changed, as above)."""
    rid = recorded.ids["ace_race"]
    with StoreReader.open(recorded.path) as store:
        assert integrity_verdict(round_integrity(store, rid)) == "intact"
    key = recorded.path.with_name(recorded.path.name + ".key")
    kept = key.read_bytes()
    key.unlink()
    with StoreReader.open(recorded.path) as store:
        checks = round_integrity(store, rid)
    assert [(c.name, c.ok, c.checked) for c in checks] == [("station key", False, False)]
    assert "cannot be checked here" in checks[0].detail
    assert integrity_verdict(checks) == "not checked"
    key.write_bytes(kept)
    _alter_pair_settlement(recorded.path, rid)
    with StoreReader.open(recorded.path) as store:
        assert integrity_verdict(round_integrity(store, rid)) == "altered"
