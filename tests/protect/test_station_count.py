"""The station keeps the count of the shoe in play (issue 36, Build 4): op ``shoe_count``,
a supervisor's only, through the real service with a simulated shoe on a pseudo-terminal.

Lucky 8's own count at 6 decks (protect/data/main_removal.json, fitted by protect/counts.py)
tags A -1, 2 3 4 5 6 7 +1, 8 0, 9 10 -1; 6 decks of 52 = 312 cards. The figures below are
worked out from those tags by hand."""

from __future__ import annotations

import time
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from dealer_assist.base.cards import parse_card
from dealer_assist.protect.counts import count_for
from dealer_assist.service import shoe_count
from dealer_assist.service.client import ServiceClient, ServiceError
from tests.protect.test_station_shoe import one_round, wait_new_shoe
from tests.service.conftest import Station, lock_taken_by_another_thread, wait_connected
from tests.service.test_table_setup import LUCKY8

BOB = {"user": "bob", "pin": "551903"}  # a supervisor (tests/service/conftest.py)
LUCKY8_TAGS = {"A": -1, "2": 1, "3": 1, "4": 1, "5": 1, "6": 1, "7": 1, "8": 0, "9": -1, "10": -1}


def read(c: ServiceClient) -> dict[str, Any]:
    """The op's reply, its figures as floats (the client reads JSON numbers as Decimal)."""
    reply: dict[str, Any] = c.request("shoe_count", pin=BOB)
    return {k: float(v) if isinstance(v, Decimal) else v for k, v in reply.items()}


def test_the_count_follows_the_cards_a_restart_keeps_it_a_shuffle_resets_it(station: Any) -> None:
    # round 1: p1 5S 6D (stands on 11), dealer 9H 8C (17 stands): +1 -1 +1 0 = +1
    # round 2: p1 AS 2H (soft 13, stands), dealer 10D 7C (17):     -1 -1 +1 +1 = 0
    # round 3: p1 3S 4D, dealer 9C, then 8S after the restart:     +1 -1 +1 (0)
    s: Station = station("5S 9H 6D 8C AS 10D 2H 7C 3S 9C 4D 8S")
    c = s.dealer()
    full = read(c)
    assert (full["running_count"], full["cards_out"], full["true_count"]) == (0, 0, 0.0)
    assert full["decks_remaining"] == 6.0 and full["count"]["tags"] == LUCKY8_TAGS
    shoe = full["shoe"]
    assert shoe == c.request("state")["config"]["shoe"]["id"] and full["supervisor"] == "bob"
    lucky8 = count_for("lucky8", 6)
    assert lucky8 is not None and full["edge"] == pytest.approx(lucky8.base)

    one_round(s, c)
    after1 = read(c)
    assert (after1["shoe"], after1["running_count"], after1["cards_out"]) == (shoe, 1, 4)
    assert after1["decks_remaining"] == pytest.approx(308 / 52)
    assert after1["true_count"] == pytest.approx(1 / (308 / 52))  # 0.1688
    e = dict(zip(("A", "2", "3", "4", "5", "6", "7", "8", "9", "10"), lucky8.effects, strict=True))
    # the removal-effect estimate: base + 312/308 x (effects of 5, 9, 6, 8)
    assert after1["edge"] == pytest.approx(lucky8.base + 312 / 308 * (e["5"] + e["9"] + e["6"] + e["8"]))
    # the side bets from the 308 cards left: Pair (4.1, 11 to 1) pays on two of one rank,
    # 24 of each rank but 23 of 5, 9, 6 and 8: 9 x 24 x 23 + 4 x 23 x 22 ordered pairs of 308 x 307
    pair = after1["side_bets"]["pair"]
    assert Fraction(pair["fraction"]) == Fraction(12 * (9 * 24 * 23 + 4 * 23 * 22), 308 * 307) - 1
    assert Fraction(full["side_bets"]["pair"]["fraction"]) == Fraction(12 * 13 * 24 * 23, 312 * 311) - 1
    assert list(after1["side_bets"]) == ["pair", "lucky8", "insurance_ace_up"]
    assert after1["side_bets"]["lucky8"]["edge"] is not None
    # insurance given an Ace up (3.27, 4.1: 2 to 1): none of 5, 9, 6, 8 is a ten or an Ace, so
    # 96 tens among the 307 cards besides the dealer's Ace: 96/307 x 3 - 1
    assert Fraction(after1["side_bets"]["insurance_ace_up"]["fraction"]) == Fraction(96, 307) * 3 - 1

    one_round(s, c)
    assert (read(c)["running_count"], read(c)["cards_out"]) == (1, 8)
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 3)  # round 3 in play: 3S 9C 4D
    mid = read(c)
    assert (mid["shoe"], mid["running_count"], mid["cards_out"], mid["on_record"]) == (shoe, 2, 11, 11)
    assert mid["true_count"] == pytest.approx(2 / (301 / 52))  # 0.3455

    s.stop()  # a restart with round 3 open: the count is rebuilt from the store
    s.start()
    wait_connected(s)
    c = s.dealer()
    assert read(c) == mid

    c.request("decide", action="stand", area=1, hand=1, player="p1")
    assert s.deal(c, 1)["concluded"]  # 8S: tag 0
    c.request("next_round")
    assert (read(c)["running_count"], read(c)["cards_out"]) == (2, 12)

    s.sim.shuffle()  # LOADED between rounds: the next round deals from a full shoe
    wait_new_shoe(c, shoe)
    fresh = read(c)
    assert fresh["shoe"] not in (None, shoe)
    assert (fresh["running_count"], fresh["cards_out"], fresh["true_count"]) == (0, 0, 0.0)
    one_round(s, c)  # the same order again: 5S 9H 6D 8C, +1
    assert (read(c)["shoe"], read(c)["running_count"], read(c)["cards_out"]) == (fresh["shoe"], 1, 4)


def test_a_dealer_is_refused_and_every_read_is_audited(station: Any) -> None:
    s: Station = station("5S 9H 6D 8C")
    c = s.dealer()  # dealer ann logged in
    with pytest.raises(ServiceError) as no_pin:
        c.request("shoe_count")
    assert no_pin.value.code == "pin" and "supervisor only" in str(no_pin.value)
    with pytest.raises(ServiceError) as own_pin:  # a dealer's PIN is no supervisor's
        c.request("shoe_count", pin={"user": "ann", "pin": "730418"})
    assert own_pin.value.code == "pin"
    with pytest.raises(ServiceError) as nobody:  # a screen with nobody logged in, no PIN
        s.client().request("shoe_count")
    assert nobody.value.code == "pin"
    assert "running_count" not in c.request("state") and "count" not in c.request("state")
    read(s.client())  # a supervisor's PIN, no log-in needed
    assert s.running is not None
    reads = [a for a in s.running.store.audit_entries(kind="review") if a.detail.get("read") == "shoe_count"]
    assert [a.actor for a in reads] == ["bob"]


@pytest.mark.parametrize("game", ["ace_race", "electronic", "star_elements", "lucky8", "dueling8s"])
def test_every_game_answers_with_its_own_count(station: Any, game: str) -> None:
    s: Station = station("5S 9H 6D 8C")
    c = s.dealer()
    if game != "lucky8":
        c.request("set_table", setup={**LUCKY8, "game": game, "limits": {}}, pin=BOB)
    reply = read(c)
    count = count_for(game, 6)
    assert count is not None
    assert (reply["game"], reply["decks"], reply["cards_out"], reply["running_count"]) == (game, 6, 0, 0)
    assert reply["note"] == "" and reply["count"]["name"].startswith(f"{game} 6 decks")
    assert list(reply["count"]["tags"].values()) == list(count.tags)
    assert reply["edge"] == pytest.approx(count.base)


def test_a_game_with_no_count_says_so(station: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shoe_count, "count_for", lambda game, decks: None)  # no effects on file
    s: Station = station("5S 9H 6D 8C")
    c = s.dealer()
    one_round(s, c)  # the cards still go on record, the count answers without one
    reply = read(c)
    assert reply["cards_out"] == 4 and reply["running_count"] is None and reply["count"] is None
    assert reply["note"] == ("lucky8 at 6 decks has no count: no effects of removal on file "
                             "(dealer_assist/protect/data/main_removal.json)")


def test_star_elements_counts_its_element_cards() -> None:
    # Star Elements at 6 decks: 65-card decks (5 element suits), 390 cards; tags A -1,
    # 2 3 4 5 6 +1, 7 8 9 0, 10 -1. 5Fi +1, 2Wa +1, KEa -1, 7Go 0, AWo -1, 6Fi +1 = +1.
    count = count_for("star_elements", 6)
    assert count is not None and count.tags == (-1, 1, 1, 1, 1, 1, 0, 0, 0, -1)
    cards = [parse_card(t) for t in "5Fi 2Wa KEa 7Go AWo 6Fi".split()]
    figures = shoe_count.shoe_figures("star_elements", 6, "S-x", cards, 7)  # a 7th card out, unread
    assert (figures["running_count"], figures["cards_out"], figures["on_record"]) == (1, 7, 6)
    assert figures["decks_remaining"] == pytest.approx(383 / 65)
    assert figures["true_count"] == pytest.approx(1 / (383 / 65))
    assert shoe_count.shoe_figures("no_such_game", 6, None, [], 0)["count"] is None


def test_the_count_reads_the_store_once_per_round(station: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rounds of the shoe are read from the store once: a read after more cards of the round in
    play reads no round again (nothing is recounted per card)."""
    read_rounds: list[int] = []
    real = shoe_count.shoe_rounds_after

    def counting(conn: Any, table: str, shoe: str, after: int, current: int | None) -> Any:
        found = real(conn, table, shoe, after, current)
        read_rounds.extend(rid for rid, _, _ in found)
        return found

    monkeypatch.setattr("dealer_assist.service.table.shoe_rounds_after", counting)
    s: Station = station("5S 9H 6D 8C AS 10D 2H 7C")
    c = s.dealer()
    first = one_round(s, c)
    read(c)
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 1)
    read(c)
    s.deal(c, 1)
    read(c)
    assert read_rounds == [first]  # the round in play is the session's, not read from the store


def test_a_shuffle_during_a_round_reads_as_the_new_shoe(station: Any) -> None:
    """A shuffle while a round is in play: the round's remaining cards come out of the new
    shoe, so the count is of the new shoe at once (full, then those cards), and the next
    round goes on with them (tests/protect/test_shuffle_mid_round.py works a longer case)."""
    s: Station = station("5S 9H 6D 8C")
    c = s.dealer()
    c.request("wager", player="p1", bet="main", amount=10, area=1)
    s.deal(c, 3)  # 5S 9H 6D: +1
    assert (read(c)["running_count"], read(c)["cards_out"]) == (1, 3)
    old = c.request("state")["config"]["shoe"]["id"]
    assert s.running is not None
    s.sim.shuffle()
    deadline = time.monotonic() + 10
    while not s.running.store.audit_entries(kind="shoe_loaded") and time.monotonic() < deadline:
        time.sleep(0.02)
    shuffled = read(c)
    assert shuffled["shoe"] not in (None, old)
    assert (shuffled["running_count"], shuffled["cards_out"]) == (0, 0)
    c.request("decide", action="stand", area=1, hand=1, player="p1")
    # the shoe deals the same order again: the dealer's 9H takes 5S (14), then 9H (23, bust):
    # 2 cards out of the new shoe, 5S +1, 9H -1 = 0
    assert not s.deal(c, 1)["concluded"] and s.deal(c, 1)["concluded"]
    assert (read(c)["shoe"], read(c)["running_count"], read(c)["cards_out"]) == (shuffled["shoe"], 0, 2)
    c.request("next_round")
    assert c.request("state")["config"]["shoe"] == {"id": shuffled["shoe"], "dealt": 2}
    fresh = read(c)
    assert (fresh["shoe"], fresh["running_count"], fresh["cards_out"]) == (shuffled["shoe"], 0, 2)


def test_the_figures_are_worked_out_with_the_tables_lock_free(station: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The side bets' figures take seconds for some games (enumerations over the cards left):
    they are worked out with the table's lock free, so a card or a dealer's input never waits
    for a supervisor's read (the cards themselves are taken under the lock)."""
    s: Station = station("5S 9H 6D 8C AS 10D 2H 7C")
    c = s.dealer()
    one_round(s, c)
    assert s.running is not None
    service = s.running.service
    real = shoe_count.shoe_figures
    lock_free: list[bool] = []

    def figures(*args: Any) -> Any:
        lock_free.append(lock_taken_by_another_thread(service))  # a card from the shoe, meanwhile
        return real(*args)

    monkeypatch.setattr("dealer_assist.service.table.shoe_figures", figures)
    reply = read(c)
    assert lock_free == [True]
    assert reply["supervisor"] == "bob"  # the read went through, its figures made
